"""Pólya-Gamma topic models for scikit-learn."""

__version__ = "0.1.0.dev0"

from ._ctm import CorrelatedTopicModel  # noqa: E402
from ._eblda import EmpiricalBayesLDA  # noqa: E402
from ._lds import MultinomialLDS  # noqa: E402
from ._slda import GibbsSLDAClassifier  # noqa: E402

__all__ = [
    "CorrelatedTopicModel",
    "EmpiricalBayesLDA",
    "GibbsSLDAClassifier",
    "MultinomialLDS",
]
