"""Exceptions and warnings of sklearn-pgtm."""

__all__ = ["ChainDivergenceError"]


class ChainDivergenceError(FloatingPointError):
    """A Markov chain ran off to non-finite or absurd values during ``fit``.

    Raised by every estimator of the package for the same kind of failure;
    the message names the setting to change (a smaller regularization
    constant, another Pólya-Gamma sampler, fixed priors, ...). A subclass of
    :class:`FloatingPointError`. The estimator keeps its state from before
    the failed ``fit``.
    """
