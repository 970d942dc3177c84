"""Pólya-Gamma topic models and dependent multinomial models for scikit-learn."""

__version__ = "0.1.0.dev0"

from ._ctm import CorrelatedTopicModel  # noqa: E402
from ._dtm import DynamicTopicModel  # noqa: E402
from ._eblda import EmpiricalBayesLDA  # noqa: E402
from ._gp import ColumnKernel, MultinomialGaussianProcess  # noqa: E402
from ._lda import GibbsLDA  # noqa: E402
from ._lds import MultinomialLDS  # noqa: E402
from ._slda import GibbsSLDAClassifier  # noqa: E402

__all__ = [
    "ColumnKernel",
    "CorrelatedTopicModel",
    "DynamicTopicModel",
    "EmpiricalBayesLDA",
    "GibbsLDA",
    "GibbsSLDAClassifier",
    "MultinomialGaussianProcess",
    "MultinomialLDS",
]
