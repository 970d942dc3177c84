"""Exceptions and warnings of sklearn-pgtm."""

import os
import sys
import warnings

import sklearn

__all__ = ["ChainDivergenceError"]


class ChainDivergenceError(FloatingPointError):
    """A Markov chain ran off to non-finite or absurd values during ``fit``.

    Raised by every estimator of the package for the same kind of failure;
    the message names the setting to change (a smaller regularization
    constant, another Pólya-Gamma sampler, fixed priors, ...). A subclass of
    :class:`FloatingPointError`. The estimator keeps its state from before
    the failed ``fit``.
    """


def _warn(message, category):
    """``warnings.warn`` attributed to the user's call: the first frame outside
    the package's private modules and scikit-learn (whose wrappers, such as
    ``Pipeline.fit``, may stand between). A fixed ``stacklevel`` pointed into
    the package (``_base.py``: ``return self._fit_counts(X, whom)``), as each
    estimator reaches its warnings through a different number of frames."""
    frame, level = sys._getframe(1), 2
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _is_internal(filename):
    filename = os.path.abspath(filename)
    if filename.startswith(_SKLEARN_DIR):
        return True
    if not filename.startswith(_PACKAGE_DIR):
        return False
    parts = os.path.relpath(filename, _PACKAGE_DIR).split(os.sep)
    return any(part.startswith("_") for part in parts)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_SKLEARN_DIR = os.path.dirname(os.path.abspath(sklearn.__file__)) + os.sep
