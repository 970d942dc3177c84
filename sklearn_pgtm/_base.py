"""What every topic model of the package shares: input validation, the token
arrays, the Gibbs run loop with its trace, and one post-fit layer.

- :func:`check_counts` validates a document-term count matrix the same way for
  every estimator and :func:`to_tokens` turns it into flat token arrays.
- :class:`GibbsTopicModel` is the base of the family: ``fit`` validates the
  counts, starts (or, with ``warm_start``, continues) a run, sweeps it
  ``max_iter`` times while recording a :class:`ChainTrace`, and finishes the
  fitted attributes; each model supplies only its own steps (``_start_run``,
  ``_sweep``, ``_log_likelihood``, ``_finish``). The post-fit methods
  (``transform``, ``sample_transform``, ``score``, ``perplexity``,
  ``get_feature_names_out``) are written once here, on top of one model hook,
  ``_posterior``: posterior draws and means of documents' topic proportions
  with the topics fixed.
- ``components_`` has scikit-learn's meaning in every model (that of
  :class:`~sklearn.decomposition.LatentDirichletAllocation`): unnormalized
  topic-word pseudo-counts, the topic-word prior plus the topic-word counts
  averaged over the kept sweeps; normalized rows are the posterior mean
  topics.
"""

import copy
import functools
import hashlib
import reprlib
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, validate_parameter_constraints
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from ._chain import infer_topics
from ._kernels._counts import add_word_rows, transposed_mean
from ._kernels._likelihood import log_predictive
from ._kernels._polyagamma import MAX_PG_TERMS
from ._kernels._random import (
    dirichlet_rows,
    document_streams,
    seed_from,
    split_tokens_in_half,
)
from ._kernels._sweeps import TokenTopics
from ._parallel import balanced_cuts, effective_n_jobs, map_ranges, one_blas_thread
from ._progress import ProgressReporter
from .exceptions import ChainDivergenceError, _warn

# A document longer than this cannot be held in the int32 count matrices.
MAX_DOCUMENT_TOKENS = np.iinfo(np.int32).max
# Nor a training corpus longer than this: a topic's total (int32, as the
# topic-word counts) can hold every token of the corpus.
MAX_CORPUS_TOKENS = np.iinfo(np.int32).max
# Largest total of a row of a count model that does not expand rows into
# tokens (MultinomialLDS): its counts are float64, exact up to 2**53.
MAX_ROW_COUNT = 2**53
# More non-integer entries than this fraction: the input is evidently not counts.
_FRACTIONAL_WARNING_SHARE = 0.5
# More columns without a count than this fraction: fit warns (see
# warn_if_many_empty_columns). Measured by placing the 432 messages of
# benchmarks/priors.py --part empty-columns at random among more columns
# (three seeds; section priors_empty_columns): with 10 % of them empty the
# package's models at their defaults changed held-out perplexity by -1.1 to
# +1.1 %, within the seeds' spread; with 25 % they lost 2.8-4.6 %, with 56 %
# 5.1-7.4 % and with a HashingVectorizer's 2**20 columns 29-58 %. A
# vocabulary built on all documents leaves empty in a training part only the
# words of the held-out documents alone: 35 of 7,209 columns with 48 of the
# 480 messages held out, 7 of 9,307 on the embedded religion corpus
# (vocabularies with min_df=2; side measurement of 2026-11-30).
_EMPTY_COLUMNS_WARNING_SHARE = 0.25


_INT64 = np.iinfo(np.int64)


class IntegerInterval(Interval):
    """``Interval(Integral, left, right, closed=...)`` of the parameter
    constraints without the booleans, and within int64: ``bool`` is an
    ``Integral``, so ``n_components=True`` passed scikit-learn's interval as 1
    and then failed inside fit in numpy ("an integer is required"), naming no
    parameter; an open end (None) is int64's limit, so ``n_components=10**30``
    is refused by name instead of failing in numpy or numba ("Maximum allowed
    dimension exceeded", "int too big to convert")."""

    def __init__(self, left, right, *, closed):
        if left is None:
            left = int(_INT64.min)
            closed = "left" if closed == "neither" else "both"
        if right is None:
            right = int(_INT64.max)
            closed = "right" if closed == "neither" else "both"
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


#: ``_parameter_constraints`` entry of ``n_jobs`` in every estimator: None, or
#: a nonzero integer (see :func:`sklearn_pgtm._parallel.effective_n_jobs`).
N_JOBS_CONSTRAINT = [
    None,
    IntegerInterval(None, -1, closed="right"),
    IntegerInterval(1, None, closed="left"),
]

#: ``_parameter_constraints`` entry of ``pg_terms`` in every Pólya-Gamma
#: model: the bound of :func:`sklearn_pgtm.polyagamma.random_polyagamma`.
PG_TERMS_CONSTRAINT = [IntegerInterval(1, MAX_PG_TERMS, closed="both")]


# --------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------


def check_counts(estimator, X, *, reset, whom=None, as_tokens=True):
    """Validate a document-term count matrix and return it as CSR int64 counts.

    - sparse or dense input; NaN and infinite values raise ``ValueError``
      (from :func:`~sklearn.utils.validation.validate_data`);
    - negative values raise ``ValueError("Negative values in data passed
      to ...")``;
    - non-integer values are rounded to the nearest integer, halves to the
      even one as :func:`numpy.rint` does (topic models count tokens), with
      a ``UserWarning`` when most nonzero entries are fractional (TF-IDF or
      normalized input is not counts);
    - a document with more tokens than the int32 counts can hold raises
      ``ValueError`` (``as_tokens``: the rows are expanded into tokens), and
      so does a training corpus (``reset``) of more than
      ``MAX_CORPUS_TOKENS``; else a row above ``MAX_ROW_COUNT`` (count models
      such as MultinomialLDS);
    - at predict / transform time a wrong number of features raises
      ``ValueError`` naming both numbers.

    Returns a ``scipy.sparse.csr_matrix`` of ``int64`` with sorted indices,
    duplicate entries summed (before the checks and the rounding: a cell's
    value is the sum of its entries) and explicit zeros removed.
    """
    whom = whom or type(estimator).__name__
    X = validate_data(estimator, X, reset=reset, accept_sparse="csr",
                      dtype=[np.float64, np.float32])
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    # A CSR matrix may store a cell in several entries (its value is their
    # sum): add them up before the entries are checked and rounded, which
    # rounded the parts (1.5 + 1.5 stored for a 3 became 2 + 2) and refused
    # a cell stored as -1 + 3.
    X.sum_duplicates()
    check_non_negative(X, whom)
    X.eliminate_zeros()
    warn_if_fractional(X.data, whom)
    X.data = np.rint(X.data)
    lengths = np.asarray(X.sum(axis=1)).ravel() if X.shape[0] else np.zeros(0)
    if as_tokens and lengths.size and lengths.max() > MAX_DOCUMENT_TOKENS:
        raise ValueError(
            f"{whom}: a document has {lengths.max():.3g} tokens; at most "
            f"{MAX_DOCUMENT_TOKENS} per document can be expanded into tokens (the counts "
            "are probably not word counts).")
    if as_tokens and reset and lengths.sum() > MAX_CORPUS_TOKENS:
        raise ValueError(
            f"{whom}: the corpus has {lengths.sum():.3g} tokens; at most "
            f"{MAX_CORPUS_TOKENS} can be fitted (the topics' token counts are int32). "
            "Fit a sample of the documents.")
    if not as_tokens:
        check_row_totals(lengths, whom)
    X.eliminate_zeros()
    X = X.astype(np.int64)
    X.sort_indices()
    return X


def check_row_totals(lengths, whom):
    """``ValueError`` when a row total in ``lengths`` (inf where the sum
    overflowed) exceeds ``MAX_ROW_COUNT``, the counts that float64 holds
    exactly (models that take counts, not tokens)."""
    if lengths.size and lengths.max() > MAX_ROW_COUNT:
        raise ValueError(
            f"{whom}: a row has {lengths.max():.3g} counts; at most {MAX_ROW_COUNT:.3g} "
            "per row are supported (integers exact in float64).")


def check_call_settings(estimator, names):
    """Validate the parameters that the post-fit methods read at each call
    (``n_infer_iter``, ``n_jobs``, ...): ``set_params`` after ``fit`` does not
    validate them, and an ``n_infer_iter`` of 0 made ``transform`` return
    NaN. Raises ``InvalidParameterError`` naming the parameter."""
    constraints = estimator._parameter_constraints
    validate_parameter_constraints({name: constraints[name] for name in names},
                                   {name: getattr(estimator, name) for name in names},
                                   caller_name=type(estimator).__name__)


def warn_if_fractional(values, whom, name="X"):
    """Warn (``UserWarning``) when most nonzero ``values`` are not integers:
    the input is then probably not counts (TF-IDF or normalized rows), and
    the caller rounds it to the nearest integer."""
    n_nonzero = np.count_nonzero(values)
    fractional = np.count_nonzero(values != np.rint(values))  # zeros are integers
    if n_nonzero and fractional > _FRACTIONAL_WARNING_SHARE * n_nonzero:
        _warn(
            f"{whom}: {fractional} of the {n_nonzero} nonzero entries of {name} are "
            f"not integers; {name} should hold counts (e.g. from CountVectorizer, not "
            "TfidfVectorizer). The values are rounded to the nearest integer.",
            UserWarning)


def warn_if_many_empty_columns(X, whom):
    """Warn (``UserWarning``) when more than a quarter of the columns of the
    training counts ``X`` (CSR, explicit zeros removed) have no count: a
    ``HashingVectorizer`` makes them (2**20 columns by default). The topics'
    Dirichlet prior over words spreads over those columns as over words,
    which takes probability from the words of the corpus; an ``"auto"``
    ``topic_word_prior`` shrinks to make up for it and then smooths those
    words too little (user guide, :ref:`lda_empty_columns`)."""
    n_columns = X.shape[1]
    n_empty = n_columns - np.count_nonzero(X.getnnz(axis=0))
    if n_empty > _EMPTY_COLUMNS_WARNING_SHARE * n_columns:
        _warn(
            f"{whom}: {n_empty:,} of the {n_columns:,} columns of X have no count in any "
            "document. The Dirichlet prior over words spreads over them as over words and "
            "takes probability from the corpus's words (held-out perplexity and topics "
            "suffer; an 'auto' topic_word_prior shrinks and then smooths the corpus's "
            "words too little). Drop the empty columns before fitting, e.g. with "
            "sklearn.feature_selection.VarianceThreshold() in the pipeline.",
            UserWarning)


def check_draw_totals(values, n, whom, name):
    """The totals of ``n`` multinomial draws given as an int or array-like of
    non-negative integers broadcastable to ``(n,)``, as int64, or a
    ValueError naming ``name``."""
    values = np.asarray(values)
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] not in (1, n)):
        raise ValueError(f"{whom}: {name} must be one integer or {n} integers, got shape "
                         f"{values.shape}.")
    if (values.dtype.kind not in "biuf" or not np.all(np.isfinite(values))
            or np.any(values != np.rint(values)) or np.any(values < 0)
            or np.any(values > MAX_ROW_COUNT)):
        raise ValueError(f"{whom}: {name} must hold non-negative integers of at most "
                         f"2**53, got {values.tolist()!r}.")
    return np.broadcast_to(values.astype(np.int64), (n,))


def check_feature_names(feature_names, n_features):
    """``feature_names`` as a 1-d object array of ``n_features`` names (the
    words of the columns of X, in order); ``ValueError`` otherwise."""
    names = np.asarray(feature_names, dtype=object)
    # A set or dict has no column order, and np.asarray makes a 0-d array of
    # it (as of a string or a generator): "1 entries" would mislead.
    if isinstance(feature_names, (set, frozenset, dict)) or names.ndim == 0:
        raise ValueError(
            "feature_names must be a sequence of names in the order of the columns of "
            f"X; got a {type(feature_names).__name__}.")
    names = names.ravel()
    if names.shape[0] != n_features:
        raise ValueError(f"feature_names has {names.shape[0]} entries, but the topics have "
                         f"{n_features} features.")
    return names


# The smallest fixed or starting Dirichlet prior of every model (the ranges of
# the models' prior parameters; see PRIOR_VALUE in _lda.py for why).
MIN_PRIOR = 1e-10


def real_array(value, name):
    """``value``, a number, an array-like of real numbers or a scipy sparse
    matrix, as a dense float64 array; a ValueError naming ``name`` otherwise.
    np.asarray(value, float64) let numpy speak alone ("could not convert
    string to float", an "inhomogeneous shape" for ragged rows, a TypeError
    from float(), "setting an array element with a sequence" for a sparse
    matrix), parsed strings of numbers and read True as 1.0. Objects that are
    real numbers (``fractions.Fraction``) are taken."""
    if sp.issparse(value):
        value = value.toarray()
    try:
        values = np.asarray(value)
    except ValueError as exc:  # ragged rows
        raise ValueError(f"{name} must be a number or an array-like of numbers; its rows "
                         f"differ in length ({exc}).") from exc
    if values.dtype.kind == "O" and all(isinstance(v, Real) and not isinstance(v, bool)
                                        for v in values.flat):
        values = values.astype(np.float64)
    if values.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a number or an array-like of numbers; got "
                         f"{reprlib.repr(value)}.")
    return values.astype(np.float64)


def is_integer_at_least(value, low):
    """Whether ``value`` is an integer (a bool is not one) of at least ``low``."""
    return isinstance(value, Integral) and not isinstance(value, bool) and value >= low


def check_n_draws(n_samples, whom):
    """``n_samples`` of a method that draws, or a ValueError."""
    if not is_integer_at_least(n_samples, 1):
        raise ValueError(f"{whom}: n_samples must be a positive integer, got {n_samples!r}.")
    return int(n_samples)


def _same_param(a, b):
    """Whether two values of a parameter are the same setting (arrays and
    lists by value, numbers and strings by equality, anything else by
    identity)."""
    if isinstance(a, (np.ndarray, list)) or isinstance(b, (np.ndarray, list)):
        try:
            return np.shape(a) == np.shape(b) and np.array_equal(a, b)
        except ValueError:  # ragged rows
            return False
    plain = (str, Real, tuple, type(None))
    if isinstance(a, plain) and isinstance(b, plain):
        return a == b
    return a is b


def _param_snapshot(value):
    """A parameter's value as a warm start keeps it to compare with the next
    fit's: arrays and lists copied, so that changing the user's object in
    place is seen as a change (anything else as it is: a ``RandomState`` is
    compared by identity)."""
    if isinstance(value, (np.ndarray, list)):
        return copy.deepcopy(value)
    return value


def check_nonempty_corpus(X, whom):
    """Raise a clear error when a training corpus has no token at all."""
    if X.shape[0] == 0 or X.nnz == 0:
        raise ValueError(
            f"{whom}: the corpus is empty (no document has a positive count "
            "after rounding counts to integers); nothing to fit."
        )


def to_tokens(X):
    """Flat token arrays of a CSR count matrix from :func:`check_counts`.

    Returns ``doc_ptr`` (int64, D + 1 offsets) and ``word_ids`` (int32, one
    entry per token, grouped by document, words in column order).
    """
    word_ids = np.repeat(X.indices.astype(np.int32), X.data)
    doc_ptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.asarray(X.sum(axis=1)).ravel().astype(np.int64), out=doc_ptr[1:])
    return doc_ptr, word_ids


def keep_state_on_failure(fit):
    """Decorator of ``fit``: if it raises (bad input, a diverging chain,
    ``KeyboardInterrupt``), the estimator is restored to its state before the
    call, so a previous fit stays usable and nothing half-fitted remains.

    It restores the attributes, not the objects they hold: ``fit`` must not
    change those in place (a ``warm_start`` continuation sweeps a copy of the
    kept run, :func:`continuation_copy`)."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


# --------------------------------------------------------------------------
# the run of a chain and its trace
# --------------------------------------------------------------------------


@dataclass
class ChainTrace:
    """Per-sweep record of a fit (``trace_`` of a fitted estimator).

    Attributes
    ----------
    log_likelihood : ndarray of shape (n_iter,)
        The model's training log-likelihood after each sweep (for LDA-type
        models the collapsed ``log p(w, z | alpha, beta)``).
    topic_share : ndarray of shape (n_iter, n_topics)
        Fraction of the tokens assigned to each topic after each sweep.
    doc_topic_prior : ndarray of shape (n_iter,) or (n_iter, n_columns) or None
        The (symmetric) document-topic prior at each sweep, when estimated;
        one column per binary model of a one-vs-rest classifier, one per
        topic for ``EmpiricalBayesLDA(symmetric_alpha=False)``.
    topic_word_prior : ndarray of shape (n_iter,) or (n_iter, n_models) or None
        The topic-word prior at each sweep, when estimated; one column per
        binary model of a one-vs-rest classifier.
    coef : ndarray of shape (n_iter, n_models, n_topics) or None
        Classifier weights of each sweep (supervised model): a row per
        binary model, or per class of the multinomial model (its topics
        shared by the classes).
    mean : ndarray of shape (n_iter, dim) or None
        Mean of the documents' Gaussian vectors (correlated model).
    """

    log_likelihood: list = field(default_factory=list)
    topic_share: list = field(default_factory=list)
    doc_topic_prior: list = field(default_factory=list)
    topic_word_prior: list = field(default_factory=list)
    coef: list = field(default_factory=list)
    mean: list = field(default_factory=list)

    def record(self, **values):
        for name, value in values.items():
            getattr(self, name).append(np.copy(value) if np.ndim(value) else float(value))

    def frozen(self):
        """A copy whose fields are arrays (None for fields never recorded)."""
        return ChainTrace(**{name: (np.array(values) if len(values) else None)
                             for name, values in vars(self).items()})


@dataclass
class GibbsRun:
    """The whole state of a model's Markov chain between sweeps.

    Attributes
    ----------
    chain : TopicChain
    priors : DirichletPriors
    iteration : int
        Sweeps done (kept across ``warm_start`` fits).
    trace : ChainTrace
    word_topic_sum : ndarray of shape (n_words, n_topics), int32 or int64
        Sum of the topic-word counts over the kept sweeps (exact; int64 once
        int32 could overflow).
    n_kept : int
        Number of kept sweeps in ``word_topic_sum``.
    split_merge : SplitMerge or None
        The split-merge moves of the burn-in (GibbsLDA, GibbsSLDAClassifier),
        or None.
    notes : list of str
        Events of the last sweep's steps for the progress report (shown and
        cleared after every sweep).
    extra_sweeps : int
        Sweeps the model added to this fit beyond ``_n_sweeps_per_fit()``
        (EmpiricalBayesLDA's extended burn-in).
    """

    chain: object
    priors: object
    iteration: int = 0
    trace: ChainTrace = field(default_factory=ChainTrace)
    word_topic_sum: np.ndarray = None
    n_kept: int = 0
    split_merge: object = None
    notes: list = field(default_factory=list)
    extra_sweeps: int = 0

    def keep_counts(self):
        """Add the current topic-word counts to the summed ones.

        The sum is int32, half of float64's memory (288 MiB against 576 MiB
        at K = 1000 on all of 20 Newsgroups), until ``n_kept + 1`` times the
        largest word frequency could exceed int32; then it moves to int64.
        Only the rows of the words with tokens are added (the others stay 0):
        with a vocabulary fitted on a larger collection, or hashed, most rows
        are empty (400 messages' 5,177 words over 2^20 hashed columns, K =
        20: 7 ms per kept sweep over every row, 1.10 s of a 2.8 s fit of 150
        kept sweeps).
        """
        if self.word_topic_sum is None:
            self.word_topic_sum = np.zeros(self.chain.word_topic.shape, dtype=np.int32)
        if (self.word_topic_sum.dtype == np.int32
                and (self.n_kept + 1) * self.chain.largest_word_frequency
                > np.iinfo(np.int32).max):
            self.word_topic_sum = self.word_topic_sum.astype(np.int64)
        total, counts = self.word_topic_sum, self.chain.word_topic
        words = self.chain.present_words
        # On the chain's threads, by slices of the words (the kernel releases the GIL).
        cuts = np.linspace(0, words.shape[0], self.chain.n_threads + 1).astype(np.int64)
        map_ranges(lambda lo, hi: add_word_rows(total, counts, words[lo:hi]), cuts)
        self.n_kept += 1

    def topic_share(self):
        """Fraction of the tokens in each topic."""
        return self.chain.topic_total / max(self.chain.n_tokens, 1)

    def chains(self):
        """The run's topic chains."""
        return [self.chain]

    def components(self, topic_word_prior, out=None):
        """``components_``: the topic-word counts averaged over the kept sweeps
        (the last sweep's counts if none was kept) plus ``topic_word_prior``
        (a float or an (n_topics, n_words) array), as a new C-ordered
        (n_topics, n_words) float64 array, or written into ``out`` (a
        C-contiguous array of that shape, e.g. rows of a larger one)."""
        counts, n = ((self.chain.word_topic, 1) if self.n_kept == 0
                     else (self.word_topic_sum, self.n_kept))
        if out is None:
            out = np.empty(counts.shape[::-1])
        transposed_mean(counts, n, out)
        out += topic_word_prior
        return out


def continuation_copy(run):
    """A copy of ``run`` for a ``warm_start`` fit to continue: deep (chains,
    priors, streams, kept sums, trace), except for the corpus's token arrays
    ``doc_ptr`` and ``word_ids`` of its chains, which no step changes and
    which the copy shares."""
    memo = {}
    for chain in run.chains():
        for array in (chain.tokens.doc_ptr, chain.tokens.word_ids):
            memo[id(array)] = array  # deepcopy returns what the memo holds
    return copy.deepcopy(run, memo)


def trend_z_score(values):
    """z-score of the linear trend of ``values`` (a stretch of a chain's
    log-likelihood trace): the rise of the least-squares line over the
    stretch divided by its standard error, the residuals' lag-1
    autocorrelation inflating the error as for an AR(1) series. 0 for fewer
    than 4 values."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if n < 4:
        return 0.0
    # The score does not depend on the scale; rescaled, the sums of squares
    # of a trace near 1e300 (a classifier with c = 1e300) do not overflow.
    centred = values - values.mean()
    spread = np.abs(centred).max()
    if spread == 0.0:
        return 0.0
    values = centred / spread
    t, slope = _least_squares_slope(values)
    resid = values - values.mean() - slope * t
    var = resid @ resid / (n - 2)
    if var == 0.0:
        return 0.0 if slope == 0 else float(np.sign(slope) * np.inf)
    r = np.clip(resid[1:] @ resid[:-1] / (resid @ resid), 0.0, 0.95)
    se = np.sqrt(var / (t @ t) * (1 + r) / (1 - r))
    return float(slope / se)


def fitted_rise(values):
    """Rise of the least-squares line through ``values`` over their stretch
    (its slope times the number of values), for at least 2 values."""
    values = np.asarray(values, dtype=np.float64)
    return float(_least_squares_slope(values)[1] * values.shape[0])


def _least_squares_slope(values):
    """Centred time index ``t`` of float array ``values`` and the slope of
    their least-squares line."""
    n = values.shape[0]
    t = np.arange(n) - (n - 1) / 2.0
    return t, t @ (values - values.mean()) / (t @ t)


# A rise of the log-likelihood over the kept half of the chain smaller than
# this many nats per token (1 % of the training perplexity) is not reported.
# Measured by following the warning's advice (benchmarks/convergence.py,
# section convergence_warning: 42 fits at K = 20 on seven corpora, each
# continued by as many sweeps again): every fit whose held-out perplexity
# then fell by more than 0.75 % had risen by at least 0.0135 over its kept
# half (200-sweep chains; the correlated model on five comp.* groups), and
# no fit that had risen by less than 0.0072 gained over 0.5 % (GibbsLDA
# at its defaults on two 20 Newsgroups subsets rose by 0.0064 / 0.0070 and
# gained 0.20 / 0.01 %; the classifier of make demo rose by 0.0097-0.0108
# and its test accuracy did not improve). 0.01 lies mid-way (geometric mean)
# between 0.0072 and 0.0135. The former threshold, 0.005, warned on those two
# GibbsLDA fits and on two of the three classifier fits (0.0108 still warns).
MIN_RISE_PER_TOKEN = 0.01


def warn_if_trending(trace, whom, setting="max_iter", n_tokens=None, z_threshold=4.0,
                     can_continue=True, note=""):
    """``ConvergenceWarning`` when the second half of the log-likelihood trace
    still rises: a trend z-score of :func:`trend_z_score` above
    ``z_threshold`` and, when ``n_tokens`` is given, a rise of the fitted
    line over that half of more than ``MIN_RISE_PER_TOKEN`` nats per token
    (a real but immaterial drift is not reported). The advice names
    ``setting``, and ``warm_start`` when the estimator ``can_continue``;
    ``note``, what the model knows of its own rises, ends the message."""
    values = np.asarray(trace, dtype=np.float64)
    half = values[values.shape[0] // 2:]
    z = trend_z_score(half)
    if z <= z_threshold:
        return
    if n_tokens and fitted_rise(half) / n_tokens <= MIN_RISE_PER_TOKEN:
        return
    _warn(
        f"{whom}: the training log-likelihood still rises over the second half of the "
        f"chain (trend z-score {z:.1f}); the chain may not have converged. Increase "
        f"{setting}" + (" (or continue the chain: with warm_start=True a fit keeps it and the "
                        "next fit on the same X continues it)." if can_continue else ".")
        + (f" {note}" if note else ""),
        ConvergenceWarning)


def check_finite(values, whom, what, setting):
    """Raise :class:`ChainDivergenceError` naming ``setting`` if ``values``
    is not all finite."""
    if not np.all(np.isfinite(values)):
        raise ChainDivergenceError(
            f"{whom}: {what} became non-finite; the chain diverged. Change {setting}.")


# --------------------------------------------------------------------------
# inference of document topics with the topics fixed
# --------------------------------------------------------------------------


def resolve_burn_in(burn_in, max_iter, share):
    """``burn_in``, or for ``"auto"`` the ``share`` ``(numerator,
    denominator)`` of ``max_iter`` (each estimator's own share)."""
    if isinstance(burn_in, str):
        numerator, denominator = share
        return max_iter * numerator // denominator
    return burn_in


def completion_halves(doc_ptr, word_ids, rows, seed):
    """Document completion's split of the tokens of every document: each
    token in the observed half with probability 1/2, from a stream of
    ``seed`` and its document's own tokens (a document's split does not
    depend on the other documents, and repeated calls agree).

    Returns ``(observed, heldout)``, each ``(doc_ptr, word_ids, rows)`` of
    its tokens in their order (``rows``: any per-token array that follows
    them, e.g. the rows of :func:`present_words`).
    """
    n_docs = doc_ptr.shape[0] - 1
    observed = np.empty(word_ids.shape[0], dtype=np.uint8)
    split_tokens_in_half(doc_ptr, document_streams(seed, doc_ptr, word_ids), observed)
    doc_ids = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    halves = []
    for keep in (1, 0):
        mask = observed == keep
        half_ptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(doc_ids[mask], minlength=n_docs), out=half_ptr[1:])
        halves.append((half_ptr, np.ascontiguousarray(word_ids[mask]),
                       np.ascontiguousarray(rows[mask])))
    return tuple(halves)


def completion_perplexity(total, n_heldout, whom):
    """``exp(-total / n_heldout)``, the document completion perplexity of a
    held-out log-likelihood ``total`` over ``n_heldout`` tokens, or a
    ValueError naming ``whom`` when no token was held out. Shared by every
    topic model's ``perplexity``, so that the same input gets the same
    answer (DynamicTopicModel's message had lost the reason)."""
    if n_heldout == 0:
        raise ValueError(f"{whom}: the held-out halves of X contain no token (X has "
                         "no token, or so few that every coin kept them for inference); "
                         "the perplexity is undefined.")
    return float(np.exp(-total / n_heldout))


def present_words(word_ids, n_words):
    """The words that occur among ``word_ids`` (sorted, int64) and, for each
    token, its word's index among them (int32): the row of the token's word
    in a topic matrix restricted to those words.

    The post-fit methods take the topics of these words only: the whole
    (n_features, n_components) topic matrix, normalized and transposed at
    every call, was two temporary copies of ``components_`` and most of the
    time of a small batch (one document at K = 100, V = 200,000: 0.27 s,
    320 MB)."""
    seen = np.zeros(n_words, dtype=bool)
    seen[word_ids] = True
    words = np.flatnonzero(seen)
    index = np.cumsum(seen, dtype=np.int32)
    index -= 1
    return words, np.ascontiguousarray(index[word_ids])


# The inference of new documents (``transform``) averages all of its
# ``n_infer_iter`` sweeps but the first ``n_infer_iter // INFER_BURN_IN_DIVISOR``,
# and at least the first INFER_MIN_BURN_IN (half of them, below twice that).
# Started at each word's most likely topic, the chains of new documents forget
# their start within a few sweeps; the proportions' Monte Carlo noise is what
# more averaged sweeps lower. Measured (benchmarks/inference.py, section
# infer_averaging; user guide :ref:`infer_averaging`): against the second half
# (divisor 2), held-out perplexity 0.03-0.56 % lower on all 29 fits of every
# topic model at its defaults; 16 lowered it by at most 0.10 % more. The
# correlated model's Gaussian vectors need a few sweeps to leave the mean:
# with 4 / 7 sweeps, all but an eighth without the minimum raised its
# perplexity by 1.8 / 1.1 % (logistic normal) and 3.7 / 2.4 % (stick breaking)
# over the second half (section infer_averaging_few), hence the minimum, which
# leaves the rule as it was up to ten sweeps and changes no default.
INFER_BURN_IN_DIVISOR = 8
INFER_MIN_BURN_IN = 5


def averaged_sweeps(n_iter, divisor=None):
    """How many of the last of ``n_iter`` inference sweeps are averaged: all
    but the first ``max(n_iter // divisor, min(INFER_MIN_BURN_IN, n_iter //
    2))`` (at least one; ``divisor`` defaults to
    :data:`INFER_BURN_IN_DIVISOR`)."""
    if divisor is None:
        divisor = INFER_BURN_IN_DIVISOR
    return n_iter - max(n_iter // divisor, min(INFER_MIN_BURN_IN, n_iter // 2))


def initial_topics(doc_ptr, word_ids, phi):
    """Every token at its word's most likely topic (fewer sweeps needed than
    from random topics); returns the :class:`TokenTopics` of the documents."""
    n_docs, n_topics = doc_ptr.shape[0] - 1, phi.shape[1]
    topics = (np.argmax(phi, axis=1).astype(np.int32)[word_ids] if word_ids.size
              else np.zeros(0, dtype=np.int32))
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
    np.add.at(doc_topic, (np.repeat(np.arange(n_docs), np.diff(doc_ptr)), topics), 1)
    return TokenTopics(doc_ptr, word_ids, topics, doc_topic)


def dirichlet_posterior(doc_ptr, word_ids, rows, phi, alpha, n_iter, seed, n_jobs=None,
                        n_samples=0, n_average=None):
    """Posterior of documents' topic proportions under fixed topics, for the
    models with a Dirichlet document prior.

    Collapsed Gibbs over the tokens' topics, ``p(z = k) ∝ phi[w, k] (C_dk¬n +
    alpha_k)``, started at each word's most likely topic. ``n_iter`` sweeps;
    the mean is the Rao-Blackwellized ``(C_dk + alpha_k) / (N_d + sum alpha)``
    averaged over all of them but the first few (:func:`averaged_sweeps`),
    or over the last ``n_average``. With ``n_samples > 0``, as many
    further sweeps follow, each ending with one draw ``theta_d ~ Dir(C_d +
    alpha)`` per document: exact Markov chain draws from the posterior.
    Deterministic for a given ``seed``; a document's result depends only on
    its own words (its stream is derived from them), not on the batch.
    Documents without tokens get the prior.

    ``rows``: the row of ``phi`` of each token (``word_ids`` when ``phi``
    holds every word; :func:`present_words` when it holds the topics of the
    batch's words only). The streams derive from ``word_ids``.

    Returns ``(mean_counts, draws)``: the averaged ``C_dk`` (D, K) and
    ``None`` or the (n_samples, D, K) draws.
    """
    n_docs, n_topics = doc_ptr.shape[0] - 1, phi.shape[1]
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    states = document_streams(seed, doc_ptr, word_ids)
    tokens = initial_topics(doc_ptr, rows, phi)
    n_average = min(n_average or averaged_sweeps(n_iter), n_iter)
    mean_counts = np.zeros((n_docs, n_topics))
    for it in range(n_iter):
        infer_topics(tokens, phi, states, n_jobs, alpha=alpha)
        if it >= n_iter - n_average:
            mean_counts += tokens.doc_topic
    mean_counts /= n_average
    draws = None
    if n_samples:
        draws = dirichlet_draws(lambda: infer_topics(tokens, phi, states, n_jobs, alpha=alpha),
                                tokens.doc_topic, doc_ptr, alpha, states, n_jobs, n_samples)
    return mean_counts, draws


def dirichlet_draws(sweep, doc_topic, doc_ptr, alpha, states, n_jobs, n_samples):
    """``n_samples`` further sweeps of an inference chain (``sweep()``, which
    updates ``doc_topic`` in place), each ending with one draw ``theta_d ~
    Dir(C_d + alpha)`` per document from its own stream ``states[d]``: Markov
    chain draws of the documents' proportions, (n_samples, D, K)."""
    n_docs, n_topics = doc_topic.shape
    draws = np.empty((n_samples, n_docs, n_topics))
    bounds = balanced_cuts(doc_ptr, effective_n_jobs(n_jobs, n_docs))
    for s in range(n_samples):
        sweep()
        map_ranges(lambda lo, hi, out=draws[s]: dirichlet_rows(
            doc_topic, alpha, states, lo, hi, out), bounds)
    return draws


def posterior_mean(mean_counts, alpha):
    """``(C_dk + alpha_k) / (N_d + sum alpha)`` from averaged counts."""
    theta = mean_counts + alpha
    return theta / theta.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------
# the base estimator
# --------------------------------------------------------------------------


class FittedParamsMixin:
    """The parameters of the last fit, for the post-fit methods: a fitted
    estimator behaves as fitted until it is fitted again, as in scikit-learn,
    whatever ``set_params`` changed since. ``fit`` calls
    ``_record_fit_params`` first; the fit's steps and the post-fit methods
    read ``_fitted_param(name)``."""

    def _record_fit_params(self):
        self._fit_params = self.get_params(deep=False)

    def _fitted_param(self, name):
        """Parameter ``name`` as it was in the fit that made the fitted model
        (or in the running fit), not as ``set_params`` may have changed it."""
        return self._fit_params[name]


class GibbsTopicModel(FittedParamsMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                      BaseEstimator):
    """Base of every topic model of the package (not for direct use).

    Subclasses define the parameters and the model's steps:

    - ``_start_run(X, doc_ptr, word_ids, seed)`` returns a new run;
    - ``_sweep(run)`` performs one sweep of the run (topics and the model's
      other variables);
    - ``_log_likelihood(run)`` gives the trace's value after a sweep;
    - ``_finish(run)`` sets the fitted attributes from the run;
    - ``_posterior(doc_ptr, word_ids, n_samples)`` infers new documents.

    A fitted estimator behaves as fitted until it is fitted again, as in
    scikit-learn: the post-fit methods take the number of topics from the
    fitted arrays (``_n_topics``) and every other parameter as it was at fit
    (``_fitted_param``), whatever ``set_params`` changed since, except the
    settings of the inference of new documents, ``n_infer_iter`` and
    ``n_jobs``, which they read at each call.
    """

    # Set by subclasses: the parameter to name when the chain is too short.
    _iterations_parameter = "max_iter"

    # ------------------------------------------------------------- fitting
    @keep_state_on_failure
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model by Gibbs sampling (or, with ``warm_start``, continue it).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        whom = f"{type(self).__name__}.fit"
        self._check_params()
        X = self._check_fit_counts(X, whom)
        return self._fit_counts(X, whom)

    def _check_fit_counts(self, X, whom):
        """``check_counts`` for ``fit``: against the columns of the kept chain
        (and ``feature_names_in_``) when a warm start continues it. A change
        of shape gets the continuation's error first (scikit-learn's check
        would speak of the features a transform expects)."""
        continuing = self._continuing()
        if continuing:
            try:  # X.shape, or that of nested lists
                shape = np.shape(X)
            except ValueError:  # ragged lists: check_counts names the problem
                shape = ()
            if len(shape) == 2:
                self._check_continued_shape(tuple(shape), whom)
        return check_counts(self, X, reset=not continuing, whom=whom)

    def _check_continued_shape(self, shape, whom):
        fitted = self._run_data[0]
        if shape != fitted:
            raise ValueError(
                f"{whom}: warm_start continues the previous chain, which was fitted on X of "
                f"shape {fitted}; got {shape}. Set warm_start=False to start a new chain.")

    def _check_params(self):
        """Checks of the parameters beyond ``_parameter_constraints``: an
        ``"auto"`` prior needs a burn-in, the sweeps in which it is estimated
        (with ``burn_in=0`` it stayed at its start, ``1 / n_components``, and
        was reported as the estimate)."""
        auto = [name for name in ("doc_topic_prior", "topic_word_prior")
                if isinstance(getattr(self, name, None), str)
                and getattr(self, name) == "auto"]
        if auto and not self._continuing() and self._new_burn_in() == 0:
            given = ("burn_in=0" if self.burn_in == 0 else
                     f"burn_in='auto' at max_iter={self.max_iter} (a burn-in of 0 sweeps)")
            raise ValueError(
                f"{type(self).__name__}: {' and '.join(auto)}='auto' is estimated during the "
                f"burn-in, and {given} leaves no sweep to estimate it in (it would stay at "
                "its starting value 1 / n_components). Set burn_in >= 1, or give the prior "
                "as a float.")

    # burn_in="auto" discards this share of max_iter (numerator, denominator).
    _AUTO_BURN_IN_SHARE = (1, 2)

    def _new_burn_in(self):
        """The burn-in of a new chain (:func:`resolve_burn_in` with
        :data:`_AUTO_BURN_IN_SHARE`). A continued chain keeps the burn-in it
        started with (``burn_in_``)."""
        return resolve_burn_in(self.burn_in, self.max_iter, self._AUTO_BURN_IN_SHARE)

    def _continuing(self):
        """Whether this fit continues the previous chain (``warm_start``)."""
        return getattr(self, "warm_start", False) and getattr(self, "_run", None) is not None

    # Parameters a warm start may change: the number of sweeps to add and
    # what does not enter the chain's transition (threads: the partitioned
    # sweep is a valid transition too; inference and output settings).
    _continuation_free_params = frozenset(
        {"max_iter", "warm_start", "verbose", "n_jobs", "n_infer_iter"})

    def _chain_params(self):
        """The parameters that define the chain a warm start continues."""
        return {name: value for name, value in self.get_params(deep=False).items()
                if name not in self._continuation_free_params}

    def _data_fingerprint(self, X):
        """A digest of the training data, to tell a warm start given other data."""
        digest = hashlib.blake2b(digest_size=16)
        for array in (X.indptr, X.indices, X.data):
            digest.update(np.ascontiguousarray(array).tobytes())
        return X.shape, digest.hexdigest()

    def _check_continuation(self, X, whom):
        """Raise when a warm start cannot continue the kept chain: other data,
        or a parameter that defines the chain set to another value."""
        self._check_continued_shape(X.shape, whom)
        if self._data_fingerprint(X)[1] != self._run_data[1]:
            raise ValueError(
                f"{whom}: warm_start continues the previous chain, which was fitted on other "
                "data (same shape, other values); continuing needs the same training data. "
                "Set warm_start=False to start a new chain.")
        changed = [name for name, value in self._chain_params().items()
                   if not _same_param(value, self._run_params.get(name))]
        if changed:
            settings = ", ".join(f"{name}={self._run_params.get(name)!r} -> "
                                 f"{getattr(self, name)!r}" for name in changed)
            raise ValueError(
                f"{whom}: warm_start continues the previous chain, which was run with other "
                f"parameters ({settings}); only max_iter, n_jobs, verbose and inference "
                "settings can change between its fits. Set warm_start=False to start a new "
                "chain.")

    def _fit_counts(self, X, whom):
        """Run (or continue) the chain on validated counts ``X`` and finish."""
        self._record_fit_params()
        run = self._run if self._continuing() else None
        if run is not None:
            self._check_continuation(X, whom)
            # The sweeps change a run in place: continue a copy, which replaces
            # the kept run only if this fit succeeds, so that a failed or
            # interrupted continuation leaves the chain as it was (and the
            # next one equals the uninterrupted longer fit). Cost, once per
            # fit: a second copy of the chain's state while it runs (the
            # tokens are shared). At K = 1,000 on all of 20 Newsgroups its
            # counts, their kept sum and the documents' counts are about 650
            # MiB: 0.1-1.5 s to copy (fresh memory is the slow part), against
            # about 1.9 s per sweep there (benchmarks/throughput.py).
            run = continuation_copy(run)
        else:
            check_nonempty_corpus(X, whom)
            if not isinstance(getattr(self, "topic_word_prior", None), np.ndarray):
                warn_if_many_empty_columns(X, whom)  # a seeded prior is the user's
            rng = check_random_state(self.random_state)
            doc_ptr, word_ids = to_tokens(X)
            self.burn_in_ = self._new_burn_in()
            run = self._start_run(X, doc_ptr, word_ids, seed_from(rng))
            self._infer_seed = seed_from(rng)
            self._split_seed = seed_from(rng)  # of score's document completion
        reporter = ProgressReporter(type(self).__name__, self.verbose)
        run.extra_sweeps = 0
        n_iter = self._n_sweeps_per_fit()
        # The sweeps' dense algebra is small (K x K conditionals, D x K
        # products); a multi-threaded BLAS on it only adds threads that spin
        # after each call and take the cores from the package's own threads
        # (binary classifier on two threads, 20 Newsgroups: a median speed-up
        # of 1.61 before, 1.64-1.65 after; benchmarks/RESULTS.md, section
        # throughput_threads, "Two threads").
        with one_blas_thread(), reporter:
            it = 0
            while it < n_iter + run.extra_sweeps:
                self._sweep(run)
                for message in run.notes:
                    reporter.note(message)
                run.notes.clear()
                run.iteration += 1
                log_likelihood = self._log_likelihood(run)
                check_finite(log_likelihood, whom, "the log-likelihood",
                             self._divergence_setting())
                run.trace.record(log_likelihood=log_likelihood, topic_share=run.topic_share())
                if reporter.due(it, n_iter + run.extra_sweeps):
                    reporter.report(it, n_iter + run.extra_sweeps,
                                    log_likelihood=float(log_likelihood))
                it += 1
        self._finish(run)
        self._warn_if_nothing_kept(run)
        self.trace_ = run.trace.frozen()
        self.log_likelihood_trace_ = self.trace_.log_likelihood
        self.n_iter_ = run.iteration
        if getattr(self, "warm_start", False):
            self._run = run
            self._run_data = self._data_fingerprint(X)
            # Copies: a prior array changed in place after this fit was not
            # seen, and the next fit continued the chain with the old prior.
            self._run_params = {name: _param_snapshot(value)
                                for name, value in self._chain_params().items()}
        else:
            self.__dict__.pop("_run", None)
        warn_if_trending(self._trend_trace(), type(self).__name__,
                         self._iterations_parameter, n_tokens=int(X.sum()),
                         can_continue="warm_start" in self.get_params(),
                         note=self._trend_note)
        # A continued chain (warm_start) ran ``it`` of its sweeps in this call.
        in_chain = f" ({run.iteration} in the chain)" if run.iteration != it else ""
        reporter.summary(f"{it} sweeps{in_chain}, log-likelihood "
                         f"{self.log_likelihood_trace_[-1]:.6g}")
        return self

    def _n_sweeps_per_fit(self):
        return self.max_iter

    def _warn_if_nothing_kept(self, run):
        """A chain that ended inside its burn-in (``max_iter <= burn_in``)
        kept no sweep: ``components_`` and the model's other averages are the
        last sweep's state and an "auto" prior its estimate so far, which the
        fit reported without a word."""
        if run.iteration > self.burn_in_:
            return
        _warn(f"{type(self).__name__}: the chain ended inside its burn-in ({run.iteration} "
              f"sweeps, burn-in {self.burn_in_}): no sweep was kept, so components_ and the "
              "other fitted averages are the last sweep's state, not averages over the "
              "posterior. Increase max_iter or lower burn_in.", ConvergenceWarning)

    def _trend_trace(self):
        """The log-likelihood trace whose second half the ConvergenceWarning
        judges (the whole chain)."""
        return self.log_likelihood_trace_

    # What the ConvergenceWarning adds about this model's rises (see CTM).
    _trend_note = ""

    def _divergence_setting(self):
        return "the priors or the sampler's settings"

    # ------------------------------------------------- Dirichlet priors
    def _update_priors(self, run):
        """After the sweep of iteration ``run.iteration``: during the burn-in,
        one data-augmentation update of the 'auto' priors given the chain
        (their Gamma conditionals recorded over the second half of the
        burn-in); at its end, the priors are fixed at the empirical-Bayes
        estimate over those sweeps; after it, the topic-word counts are kept.

        Holding the priors after the burn-in (rather than moving them for the
        whole chain) lets the topics mix faster: on corpora drawn from LDA
        the bulk ESS of the log-likelihood over 4 x 100 kept sweeps was 33-49
        against 12-21 with moving priors, and its R-hat 1.05-1.09 against
        1.16-1.27 (measured with sklearn_pgtm.diagnostics; the moving priors
        slow the topics down because the two are strongly coupled).
        """
        it, priors, burn_in = run.iteration, run.priors, self.burn_in_
        if it < burn_in and priors.estimated:
            priors.update(run.chain, record=it >= burn_in // 2)
            if it + 1 == burn_in:
                priors.set_estimated(priors.estimate())
        elif it >= burn_in:
            run.keep_counts()
        if priors.estimate_alpha:
            run.trace.record(doc_topic_prior=priors.alpha[0])
        if priors.estimate_beta:
            run.trace.record(topic_word_prior=priors.beta)

    def _finish_priors(self, run):
        """The fitted priors: for 'auto' ones the empirical-Bayes estimate (set
        at the end of the burn-in; a fit that ended inside the burn-in reports
        the estimate over what was recorded so far, or the current draw if
        nothing was, without changing the run's own priors: a warm start goes
        on from them)."""
        priors = run.priors
        alpha, beta = priors.alpha[0], priors.beta
        if priors.estimated and run.iteration < self.burn_in_ and priors.recorded()[0].size:
            h_hat = priors.estimate()
            if priors.estimate_alpha:
                alpha = h_hat[0]
            if priors.estimate_beta:
                beta = h_hat[-1]
        if hasattr(self, "doc_topic_prior"):
            self.doc_topic_prior_ = float(alpha)
        # A (V, K) array prior is reported as the user gave it, (K, V).
        self.topic_word_prior_ = float(beta) if np.ndim(beta) == 0 else beta.T.copy()

    def _topic_word_prior_for(self, n_topics, n_words):
        """The ``topic_word_prior`` parameter as the chain takes it: "auto", a
        float, or a validated (n_components, n_features) array turned into a
        word-major (n_features, n_components) one."""
        if isinstance(self.topic_word_prior, (str, Real)):
            return self.topic_word_prior
        prior = real_array(self.topic_word_prior, f"{type(self).__name__}: topic_word_prior")
        if prior.ndim == 0:
            # A 0-d array passes the "array-like" constraint, not the float's
            # range: np.array(-0.1) ran the chain with a negative prior.
            value = float(prior)
            if not (np.isfinite(value) and value >= MIN_PRIOR):
                raise ValueError(
                    f"{type(self).__name__}: topic_word_prior as a number must be at least "
                    f"{MIN_PRIOR:g} and finite; got {self.topic_word_prior!r}.")
            return value
        if prior.shape != (n_topics, n_words):
            raise ValueError(
                f"{type(self).__name__}: topic_word_prior as an array must have shape "
                f"(n_components, n_features) = ({n_topics}, {n_words}); got {prior.shape}.")
        if not (np.all(np.isfinite(prior)) and np.all(prior > 0)):
            raise ValueError(f"{type(self).__name__}: every entry of topic_word_prior must be "
                             "positive and finite.")
        return np.ascontiguousarray(prior.T)

    # ------------------------------------------------------------ post-fit
    def _n_topics(self):
        """Topics of the fitted model, from its arrays (``n_components`` may
        have changed since)."""
        return self.components_.shape[0]

    def _validated_tokens(self, X, whom):
        check_is_fitted(self)
        check_call_settings(self, ("n_infer_iter", "n_jobs"))
        X = check_counts(self, X, reset=False, whom=f"{type(self).__name__}.{whom}")
        return to_tokens(X)

    def _present_topics(self, word_ids):
        """The topics of the words among ``word_ids`` (:func:`present_words`):
        ``(phi, rows)``, ``phi`` the rows of those words of the row-normalized
        ``components_`` transposed to (n_words, n_components), and
        ``phi[rows[i]]`` the topics of token ``i``'s word."""
        words, rows = present_words(word_ids, self.components_.shape[-1])
        components = np.asarray(self.components_, dtype=np.float64)
        totals = components.sum(axis=1, keepdims=True)
        return np.ascontiguousarray((components[:, words] / totals).T), rows

    def transform(self, X):
        """Topic proportions of documents, with the topics fixed.

        The posterior mean of each document's topic proportions given its
        words and the fitted model (Gibbs sampling over the tokens' topics,
        ``n_infer_iter`` sweeps). Deterministic: repeated calls give the same
        result, and a document's row does not depend on the other documents.
        Documents without words get the prior mean (CorrelatedTopicModel,
        whose logistic-normal prior mean has no closed form: its Monte Carlo
        estimate over the same sweeps).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        doc_topic_distr : ndarray of shape (n_samples, n_components)
            Rows sum to one.
        """
        doc_ptr, word_ids = self._validated_tokens(X, "transform")
        return self._posterior(doc_ptr, word_ids, 0)[0]

    def sample_transform(self, X, n_samples=100):
        """Posterior draws of documents' topic proportions, with the topics fixed.

        After the ``n_infer_iter`` sweeps of :meth:`transform`, each of
        ``n_samples`` further Gibbs sweeps ends with one draw of every
        document's proportions from their conditional given the tokens'
        topics: Markov chain draws from the posterior, whose spread shows how
        uncertain the proportions are (short documents, mixed topics).
        Deterministic for a fitted estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        n_samples : int, default=100
            Number of draws.

        Returns
        -------
        draws : ndarray of shape (n_samples, n_documents, n_components)
            Rows of each draw sum to one.
        """
        n_samples = check_n_draws(n_samples, f"{type(self).__name__}.sample_transform")
        doc_ptr, word_ids = self._validated_tokens(X, "sample_transform")
        return self._posterior(doc_ptr, word_ids, n_samples)[1]

    def score(self, X, y=None):
        """Document completion log-likelihood of X (higher is better).

        The held-out measure of the user guide (:ref:`evaluation`): the
        tokens of every document are split at random in two halves (each
        token with probability 1/2; the split of a document depends only on
        its tokens and the fitted model's seed, so repeated calls agree),
        topic proportions are inferred from the first half as
        :meth:`transform` does, and ``sum log(theta_d . phi_w)`` of the second
        half is returned, ``phi`` the normalized ``components_``. Scoring
        the words that inferred the proportions (the plug-in score before
        2026-11-30) flatters every extra topic: ``GridSearchCV`` over
        ``n_components`` in (3, 5, 8, 15, 30) with it chose 30 on corpora
        drawn from LDA with 5 topics (two seeds), with this score 5.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (held-out documents).

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        score : float
            Log-likelihood of the held-out halves; 0 for documents without
            words.
        """
        return self._completion_log_likelihood(X, "score")[0]

    def perplexity(self, X):
        """Document completion perplexity of X (lower is better).

        The tokens of every document are split at random in two halves (the
        split depends only on the document's tokens and the fitted model's
        seed), the topic proportions are inferred from the first half as
        :meth:`transform` does, and ``exp(-L / n_heldout)`` is returned, ``L``
        the log-likelihood of the second half and ``n_heldout`` its number of
        tokens. ``L`` is what a topic model's ``score`` returns; a classifier's
        ``score`` is its accuracy, as for every scikit-learn classifier, and
        its ``L`` is averaged over its models (one for a binary problem or the
        multinomial model, one per class for one-vs-rest). No label is used.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (held-out documents).

        Returns
        -------
        perplexity : float
            Lower is better.
        """
        total, n_heldout = self._completion_log_likelihood(X, "perplexity")
        return completion_perplexity(total, n_heldout, f"{type(self).__name__}.perplexity")

    def _completion_log_likelihood(self, X, whom):
        """Document completion (:func:`completion_halves`): the log-likelihood
        of the held-out halves given the proportions inferred from the
        observed ones, and the number of held-out tokens."""
        doc_ptr, word_ids = self._validated_tokens(X, whom)
        topics, rows = self._present_topics(word_ids)
        (obs_ptr, obs_words, _), (held_ptr, _, held_rows) = completion_halves(
            doc_ptr, word_ids, rows, self._split_seed)
        theta = self._posterior(obs_ptr, obs_words, 0)[0]
        return self._log_predictive(held_ptr, held_rows, theta, topics), held_rows.shape[0]

    def _log_predictive(self, doc_ptr, rows, theta, topics):
        """``sum_d sum_n log(theta_d . topics[rows_n])`` over the tokens of
        ``doc_ptr`` (``topics`` from :meth:`_present_topics`)."""
        return float(log_predictive(doc_ptr, rows, theta, topics))

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
