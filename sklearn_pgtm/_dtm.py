"""Dynamic topic model: topics that drift over time, fitted by stick-breaking
Pólya-Gamma Gibbs sampling (Linderman, Johnson & Adams 2015). Equations:
user guide page ``doc/dtm.rst``.
"""

import datetime
import reprlib
from dataclasses import dataclass, field
from numbers import Number, Real

import numpy as np
from scipy.special import digamma, polygamma
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import (
    N_JOBS_CONSTRAINT,
    PG_TERMS_CONSTRAINT,
    ChainTrace,
    IntegerInterval,
    averaged_sweeps,
    check_call_settings,
    check_counts,
    check_feature_names,
    check_n_draws,
    check_finite,
    check_nonempty_corpus,
    completion_halves,
    completion_perplexity,
    dirichlet_draws,
    is_integer_at_least,
    keep_state_on_failure,
    present_words,
    to_tokens,
    warn_if_trending,
)
from ._chain import TopicChain
from ._kernels._dtm import (
    count_slice_topic_words,
    log_words_given_topics,
    sample_topic_word_logits,
    sum_squared_steps,
    topic_word_probabilities,
)
from ._kernels._dirichlet import log_doc_topic_joint
from ._kernels._likelihood import log_predictive
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import document_streams, make_streams, seed_from
from ._kernels._stick_breaking import inverse_stick_breaking
from ._kernels._sweeps import ALL_WORDS, TokenTopics, sample_fixed_topics
from ._lda import PRIOR_CONSTRAINT, PRIOR_VALUE
from ._parallel import balanced_cuts, effective_n_jobs, map_ranges
from ._priors import DirichletPriors
from ._progress import ProgressReporter
from ._split_merge import MIN_TOPICS, SplitMerge
from .inspection import _check_n_words

# Inverse-gamma prior InvGamma(a0, b0) of the step variance when it is
# estimated; with K (V - 1) (S - 1) steps in the likelihood it hardly matters.
_CHAIN_VARIANCE_PRIOR = (1.0, 1e-3)
# Starting value of an estimated step variance.
_CHAIN_VARIANCE_START = 0.2
# Sweeps of every warm-start chain before the best one is chosen.
_SELECTION_ITER = 20

# scikit-learn's estimator checks that cannot pass by design (merged into the
# expected failures by tests/test_common.py).
_EXPECTED_FAILED_CHECKS = {
    # These compare fit_transform(X, y) (y: the time labels, each document read
    # at its own slice) with fit(X, y).transform(X) (no labels: every document
    # read at the last slice). tests/test_dtm.py checks what they check
    # (consistency of fit_transform and transform, n_features errors) with the
    # labels given to both.
    "check_transformer_general": (
        "compares fit_transform(X, times) with transform(X) without the times"
    ),
    "check_transformer_data_not_an_array": (
        "compares fit_transform(X, times) with transform(X) without the times"
    ),
}


# ---------------------------------------------------------------- z-sweeps
def _sample_topics_by_slice(doc_ptr, word_ids, topics, doc_topic, phi, slice_ptr, alpha,
                            states, n_threads):
    """One sweep over every token's topic with fixed topic-word weights per slice.

    ``p(z_dn = k) ∝ (C_dk¬n + alpha_k) phi[s_d, w_dn, k]`` (the shared
    fixed-topic sweep, :func:`~sklearn_pgtm._kernels._sweeps.sample_fixed_topics`,
    on each slice's documents with that slice's weights ``phi[s]`` (V, K)).
    Documents are sorted by slice (slice ``s`` holds documents
    ``slice_ptr[s]:slice_ptr[s + 1]``) and cut into ``n_threads`` blocks of
    about equal numbers of tokens; each block runs the sweep on its part of
    every slice it meets. Every document has its own stream and the weights
    are fixed, so the result does not depend on ``n_threads``.
    """
    tokens = TokenTopics(doc_ptr, word_ids, topics, doc_topic)
    n_slices = slice_ptr.shape[0] - 1

    def block(lo, hi):
        for s in range(n_slices):
            a = max(int(lo), int(slice_ptr[s]))
            b = min(int(hi), int(slice_ptr[s + 1]))
            if a < b:
                sample_fixed_topics(tokens, phi[s], alpha, states, (a, b, 0, ALL_WORDS))

    map_ranges(block, balanced_cuts(doc_ptr, n_threads))


def _warm_start(doc_ptr, word_ids, n_topics, n_words, alpha, beta, n_iter, seeds, n_threads,
                moves=None):
    """Collapsed LDA sweeps over all documents: the best of ``len(seeds)`` chains,
    with split-merge moves.

    Each chain starts from random topics and runs ``min(n_iter,
    _SELECTION_ITER)`` sweeps; the chain with the highest collapsed joint
    log-likelihood ``log p(w, z)`` is kept and runs the remaining sweeps
    (Gibbs LDA often settles early in a mode that merges two topics and
    splits another, much less likely than the best one; restarts and the
    moves escape it). ``moves`` (a :class:`~sklearn_pgtm._split_merge.SplitMerge`
    or None) makes a round of split-merge moves after every
    ``MOVE_INTERVAL``-th sweep of the first half of the ``n_iter``, as
    :class:`GibbsLDA` does in the first half of its burn-in; ``moves.moves``
    lists those accepted. Chains run concurrently on ``n_threads`` threads,
    each chain serial with its own seed, so the result does not depend on
    ``n_threads``.

    Returns the kept :class:`~sklearn_pgtm._chain.TopicChain`.
    """
    n_select = min(n_iter, _SELECTION_ITER)

    def run_chain(seed):
        chain = TopicChain.random(doc_ptr, word_ids, n_topics, n_words, seed)
        for _ in range(n_select):
            chain.sweep_lda(alpha, beta)
        joint = DirichletPriors.for_chain(chain, float(alpha[0]), beta, 0).log_joint(chain)
        return joint, chain

    def block(lo, hi):
        return [run_chain(seeds[c]) for c in range(lo, hi)]

    cuts = balanced_cuts(np.arange(len(seeds) + 1), n_threads)
    chains = [chain for part in map_ranges(block, cuts) for chain in part]
    _, chain = max(chains, key=lambda chain: chain[0])
    for iteration in range(n_select, n_iter):
        chain.sweep_lda(alpha, beta)
        if moves is not None and moves.due(iteration, n_iter):
            moves.step(chain, float(alpha[0]), float(beta), iteration)
    return chain


def _dirichlet_matched_prior(n_words, concentration):
    """Mean and variance of each stick's logit under a symmetric Dirichlet.

    Dir(a, ..., a) over V words is the stick-breaking of independent
    ``Beta(a, (V - 1 - v) a)`` fractions; the logit of ``Beta(a, b)`` has mean
    ``digamma(a) - digamma(b)`` and variance ``trigamma(a) + trigamma(b)``
    (Linderman et al. 2015, appendix A).
    """
    rest = concentration * np.arange(n_words - 1, 0, -1, dtype=np.float64)
    mean = digamma(concentration) - digamma(rest)
    var = polygamma(1, concentration) + polygamma(1, rest)
    return np.ascontiguousarray(mean), np.ascontiguousarray(var)


def _components(phi, stick_order, scale):
    """``components_``, (S, K, n_words) in the columns' order: the mean
    topic-word probabilities ``phi`` (the chain's rows in stick order,
    :attr:`_DynamicRun.phi`) times ``scale`` (S, K). When the last row of
    ``phi`` is the mass of the words without tokens, they share it equally
    (their sticks are not sampled; under the symmetric Dirichlet that the
    sticks' prior matches, the words are exchangeable, each with an equal
    share of that mass in expectation)."""
    n_slices, n_rows, n_topics = phi.shape
    n_words = stick_order.shape[0]
    # Words with a row of their own: all of them, or all but the shared last row.
    n_own = n_rows if n_rows == n_words else n_rows - 1
    out = np.empty((n_slices, n_topics, n_words))
    out[:, :, stick_order[:n_own]] = phi[:, :n_own].transpose(0, 2, 1) * scale[:, :, None]
    if n_own < n_words:
        share = phi[:, n_own] * scale / (n_words - n_own)
        out[:, :, stick_order[n_own:]] = share[:, :, None]
    return out


def _draw_chain_variance(sum_squared_steps, n_steps, prior, gen):
    """Draw sigma^2 from its conditional InvGamma(a0 + n / 2, b0 + SS / 2).

    ``SS`` is the sum of the ``n`` squared steps of the random walks and
    ``prior = (a0, b0)`` the inverse-gamma prior.
    """
    shape = prior[0] + 0.5 * n_steps
    rate = prior[1] + 0.5 * sum_squared_steps
    return float(rate / gen.gamma(shape))


def _one_of_times(y, times):
    """The time labels of ``fit(X, times=...)``, else of ``fit(X, times)``
    (second place, scikit-learn's y). With ``times`` given by keyword, ``y``
    is ignored, as an unsupervised transformer ignores it: it is then the
    target that a pipeline passes to every step (the class labels of a
    classifier after this step)."""
    return y if times is None else times


def _check_category_order(times, whom):
    """A ValueError for an ordered pandas categorical whose order is not the
    sort order of its categories: the slices are ordered by sorting the
    labels, which would silently put them in another order than the one the
    categorical declares (e.g. "Jan" < "Feb" < "Mar" sorted as text)."""
    dtype = getattr(times, "dtype", None)
    if not getattr(dtype, "ordered", False) or not hasattr(dtype, "categories"):
        return
    categories = list(dtype.categories)
    try:
        in_sort_order = categories == sorted(categories)
    except TypeError:
        in_sort_order = False
    if not in_sort_order:
        raise ValueError(
            f"{whom}: times is an ordered categorical whose order ({categories[:4]!r}"
            f"{' ...' if len(categories) > 4 else ''}) is not the sort order of its labels; "
            "the time slices follow the sorted labels. Pass labels that sort in time "
            "order, e.g. its codes (Series.cat.codes, Categorical.codes).")


def _label_kind(label):
    """What a time label is, for the check that labels are of one kind."""
    if isinstance(label, (str, np.str_, bytes)):
        return "strings"
    if isinstance(label, (Number, np.number)):
        return "numbers"
    return type(label).__name__


def _is_missing(label):
    """Whether a time label is missing: None, NaN, NaT or pandas.NA."""
    if label is None:
        return True
    try:
        return bool(label != label)
    except TypeError:
        # pandas.NA compares to NA, whose truth value raises ("boolean value
        # of NA is ambiguous"): it is the missing label of nullable arrays.
        return True


_DATETIME_LIKE = {"M": (datetime.date, np.datetime64), "m": (datetime.timedelta, np.timedelta64)}


def _as_datetime64(labels):
    """Time labels as a datetime64 (or timedelta64) array, or None.

    A datetime64 / timedelta64 array is returned as it is; a 1-D object array
    of timezone-naive datetime-likes (``datetime``, ``date``, pandas
    ``Timestamp``, ``numpy.datetime64``), or of timedelta-likes, is converted,
    each label at its own resolution (a Timestamp keeps its nanoseconds);
    other labels give None. A list of Timestamps is an object array and a
    pandas Series of them a datetime64 one: converted, the two compare.
    """
    if labels.dtype.kind in "mM":
        return labels
    if labels.dtype.kind != "O" or labels.size == 0:
        return None
    for kind, like in _DATETIME_LIKE.items():
        if all(isinstance(x, like) and getattr(x, "tzinfo", None) is None for x in labels):
            break
    else:
        return None
    scalar = np.datetime64 if kind == "M" else np.timedelta64
    try:
        return np.array([x.to_numpy() if hasattr(x, "to_numpy") else scalar(x)
                         for x in labels])
    except (TypeError, ValueError, OverflowError):
        return None


def _comparable_times(fitted, labels):
    """``(fitted, labels)`` as datetime64 (or timedelta64) arrays when both
    hold date-likes (or time-likes) of one kind, whichever container they
    come in (a Series of Timestamps is datetime64, a list of them an object
    array, which numpy can neither order nor equate with the other; each
    label keeps its own resolution); otherwise as given."""
    fitted_dt, labels_dt = _as_datetime64(fitted), _as_datetime64(labels)
    if fitted_dt is None or labels_dt is None or fitted_dt.dtype.kind != labels_dt.dtype.kind:
        return fitted, labels
    return fitted_dt, labels_dt


def _check_times(times, n_samples, whom):
    """One orderable label per document as a 1-D array, or a clear ValueError."""
    _check_category_order(times, whom)
    if not isinstance(times, np.ndarray):
        # np.asarray would turn [1990, "2000"] into strings, ordered as text.
        kinds = {_label_kind(label) for label in np.asarray(times, dtype=object).ravel()
                 if not _is_missing(label)}  # missing labels: below
        if len(kinds) > 1:
            raise ValueError(
                f"{whom}: the time labels mix {' and '.join(sorted(kinds))}; use labels of "
                "one comparable type (numbers, dates or strings)."
            )
    times = np.asarray(times)
    if times.ndim == 2 and times.shape[1] == 1:
        times = times.ravel()
    if times.ndim != 1:
        raise ValueError(
            f"{whom}: times must hold one label per document (a 1-D array), got an "
            f"array of shape {times.shape}."
        )
    if times.shape[0] != n_samples:
        raise ValueError(
            f"{whom}: times has {times.shape[0]} labels but X has {n_samples} documents."
        )
    if times.dtype.kind == "f" and np.isnan(times).any():
        raise ValueError(f"{whom}: times contains NaN; every document needs a time label.")
    if times.dtype.kind in "mM" and np.isnat(times).any():
        raise ValueError(f"{whom}: times contains NaT; every document needs a time label.")
    if times.dtype.kind == "O":
        for label in times:
            if _is_missing(label):
                raise ValueError(
                    f"{whom}: times contains a missing label ({label!r}); every "
                    "document needs a time label."
                )
    return times


def _time_slices(times, n_docs, whom):
    """Sorted distinct time labels and each document's slice among them
    (one slice labelled 0 without times)."""
    if times is None:
        return np.array([0]), np.zeros(n_docs, dtype=np.intp)
    times = _check_times(times, n_docs, whom)
    try:
        labels, slice_index = np.unique(times, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            f"{whom}: the time labels cannot be ordered ({exc}); use labels "
            "of one comparable type (numbers, dates or strings)."
        ) from exc
    return labels, slice_index.ravel()


@dataclass
class _DynamicRun:
    """The state of a fit's chain between sweeps.

    Attributes
    ----------
    doc_ptr, word_ids : ndarray
        Tokens, documents grouped by slice, words in stick order.
    slice_ptr : ndarray of shape (n_slices + 1,), int64
        Documents ``slice_ptr[s]:slice_ptr[s + 1]`` form slice ``s``.
    stick_order : ndarray of shape (n_words,)
        Column of X at each stick position (most frequent word first).
    chain : TopicChain
        The tokens' topics and their counts (from the LDA warm start).
    priors : DirichletPriors
        The document prior (``priors.alpha``, updated in place when estimated).
    psi : ndarray of shape (n_topics, n_sticks, n_slices)
        Topic logits of the sticks that counts reach: ``n_words - 1`` when
        every word has tokens, else one per word with tokens (the words
        without tokens come last in stick order; their sticks would only
        draw from the prior, and they share what these sticks leave).
    prior : tuple of float
        Mean and variance of the first slice's logits.
    chain_variance : float
        Current step variance of the logits' random walk.
    estimate_variance : bool
    doc_states, cell_states : ndarray
        Random streams of the documents and of the (topic, stick) cells.
    variance_rng : numpy.random.Generator
        Draws of the step variance.
    counts : ndarray of shape (n_topics, n_present, n_slices), int32
        Topic-word counts per slice of the last sweep, words with tokens.
    phi : ndarray of shape (n_slices, n_sticks + 1, n_topics)
        Topic-word probabilities of the last sweep: of the words with
        tokens, then (row ``n_sticks``) the mass the sticks leave (the last
        word's, or the words' without tokens together).
    trace : ChainTrace
    warm_start_moves : list of Move
        Split-merge moves accepted in the LDA warm start.
    """

    doc_ptr: np.ndarray
    word_ids: np.ndarray
    slice_ptr: np.ndarray
    stick_order: np.ndarray
    chain: TopicChain
    priors: DirichletPriors
    psi: np.ndarray
    prior: tuple
    chain_variance: float
    estimate_variance: bool
    doc_states: np.ndarray
    cell_states: np.ndarray
    variance_rng: np.random.Generator
    counts: np.ndarray
    phi: np.ndarray
    trace: ChainTrace = field(default_factory=ChainTrace)
    warm_start_moves: list = field(default_factory=list)

    @property
    def topics(self):
        return self.chain.tokens.topics

    @property
    def doc_topic(self):
        return self.chain.tokens.doc_topic


@dataclass
class _KeptSums:
    """Sums over the kept sweeps of what the fitted attributes average."""

    phi: np.ndarray
    doc_topic: np.ndarray
    chain_variance: float = 0.0
    n: int = 0

    @classmethod
    def zeros_like(cls, run):
        return cls(np.zeros_like(run.phi), np.zeros(run.doc_topic.shape))

    def add(self, run):
        self.phi += run.phi
        self.doc_topic += run.doc_topic
        self.chain_variance += run.chain_variance
        self.n += 1

class DynamicTopicModel(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Dynamic topic model: topics that drift over time slices.

    Documents carry a time label; documents with the same label form a time
    slice, and each topic has one word distribution per slice. The topics'
    stick-breaking logits follow a Gaussian random walk from one slice to the
    next, ``psi_{s,k} = psi_{s-1,k} + N(0, chain_variance I)`` with
    ``beta_{s,k} = pi_SB(psi_{s,k})``, and the documents' topic proportions
    have a Dirichlet prior (integrated out). Gibbs sampling alternates the
    tokens' topics (the package's collapsed sweep with the slice's topics as
    fixed weights) and an exact block update of every (topic, word) time
    series: Pólya-Gamma augmentation of the binomial sticks makes it a scalar
    Gaussian state-space model, drawn by forward-filtering backward-sampling
    (Linderman et al. [1]_; the model of Blei and Lafferty [2]_ with a
    different link and exact sampling instead of a variational
    approximation).

    Read more in the :ref:`User Guide <dtm>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (K). The default is scikit-learn's
        (:class:`~sklearn.decomposition.LatentDirichletAllocation`) and
        :class:`GibbsLDA`'s. K is the user's modelling choice; the other
        defaults were measured at K = 10 (State of the Union paragraphs by
        decade: held-out perplexity 1661 against tomotopy DTModel's 2460 and
        a static :class:`GibbsLDA`'s 1794; section dtm_sotu of
        ``benchmarks/RESULTS.md``) and on drawn corpora at K = 5 and 10 (section
        dtm_recovery).

    doc_topic_prior : "auto" or float, default="auto"
        Symmetric Dirichlet prior ``alpha`` of the documents' topic
        proportions. ``"auto"`` estimates it inside the chain with the
        package's shared empirical-Bayes update (the augmentation of Xia &
        Doss, :ref:`dirichlet_priors`): starting at ``1 / n_components``, one
        data-augmentation update per sweep during the first half of the
        ``max_iter`` sweeps, then held at the estimate over the second half
        of those (as every topic model of the package does over its burn-in);
        it needs ``max_iter >= 2`` (``max_iter=1`` raises ``ValueError``).
        On the validation split of the State of the Union paragraphs
        (``benchmarks/dtm.py --part defaults``, section dtm_defaults of
        ``benchmarks/RESULTS.md``; K = 10, 100 sweeps, document-completion
        perplexity; run of 2026-11-30) "auto" scored 1634 (1621 and 1615
        with two other seeds), fixed 0.03 / 0.1 / 0.3 scored 1656 / 1633 /
        1651: "auto" is as good as the best fixed value without having to
        know it.

    topic_word_prior : float, default=0.1
        Concentration ``a`` of the symmetric Dirichlet whose moments give the
        Gaussian prior of the first slice's logits (each stick's logit gets
        the mean and variance of the logit of ``Beta(a, (V - 1 - v) a)``),
        and the topic-word prior of the LDA warm start. Same validation split,
        three seeds each: 0.03 / 0.1 / 0.3 / 1.0 scored means of 1628.8 /
        1623.5 / 1621.2 / 1635.4 (per seed 1615-1639 for 0.1 and 0.3): 0.1
        and 0.3 alike.

    chain_variance : float or "auto", default=0.2
        Variance ``sigma^2`` of one step of the logits' random walk: how fast
        the topics may drift between consecutive slices. ``"auto"`` draws it
        every sweep from its inverse-gamma conditional (prior
        ``InvGamma(1, 0.001)``, starting at 0.2). On decades of the State of
        the Union (validation perplexity, ``benchmarks/dtm.py --part
        defaults``; user guide, :ref:`dtm`) 0.2 and 0.5 predicted alike (1634
        and 1636; three seeds at 0.2 give 1615-1634), 0.01, 0.05 and 1.0
        worse (1722, 1666, 1653), ``"auto"`` 1654; slices closer in time call
        for smaller values.

    max_iter : int, default=200
        Number of Gibbs sweeps of the dynamic model, after the warm start.
        The first half is the burn-in (where an ``"auto"`` prior is
        estimated); ``components_`` and ``topic_prevalence_`` are posterior
        means over the second half. On the State of the Union by decade the
        held-out perplexity still falls at 200 sweeps (1768 after 10, 1678
        after 100, 1661 after 200; ``benchmarks/dtm.py --part sotu``): 200
        is a choice of fit time, not a plateau.

    warm_start_iter : int, default=200
        Sweeps of collapsed LDA (all slices pooled, with the moves of
        ``split_merge``) before the dynamic sweeps; the logits of every slice
        start at those of the LDA topics. Without it (0) the validation
        perplexity of ``benchmarks/dtm.py --part defaults`` is 2150 against
        1634.

    n_init : int, default=1
        Independent LDA warm-start chains (run in parallel with ``n_jobs``),
        20 sweeps each; the one with the highest joint likelihood
        ``p(words, topics)`` is kept and runs the rest of
        ``warm_start_iter``. Gibbs LDA can settle in a mode that merges two
        topics and splits a third; restarts avoid it, and so do the
        ``split_merge`` moves at less cost. Measured (``benchmarks/dtm.py
        --part warm-start``, section ``dtm_warm_start``; 30 fits to five
        drawn corpora, and the State of the Union validation split): one
        chain without moves kept a pair merged in 4 of 30 fits (worst L1
        0.99-1.86), eight restarts without moves and one chain with moves
        in none; validation perplexity 1623 / 1624 / 1623 (eight restarts /
        one chain / one chain with moves, means of three seeds) at 20.9 /
        17.7 / 17.4 s per fit. The default was 8 (without moves) until
        2026-11-30.

    split_merge : bool, default=True
        Split-merge moves in the LDA warm start, as :class:`GibbsLDA` makes
        them in its burn-in (user guide :ref:`split_merge`): a round after
        every 25th sweep of the first half of ``warm_start_iter`` (sweeps
        25, 50, 75 and 100 at the default 200) makes the moves (merge two
        topics, split a third in two) that raise the collapsed log joint.
        The moves draw from their own stream: a fit in which no move is
        accepted is the fit without moves. Not made with fewer than three
        topics. With ``verbose``, each accepted move is noted. Measured: see
        ``n_init``.

    n_infer_iter : int, default=100
        Gibbs sweeps over a new document's topics (topics fixed) in
        :meth:`transform`, :meth:`score` and :meth:`perplexity`; proportions
        are averaged over all of them but the first eighth, at least the
        first five (half below ten sweeps; user guide
        :ref:`infer_averaging`; the second half until 2026-11-29, 0.56 %
        higher validation perplexity). On the State of
        the Union validation split of ``benchmarks/dtm.py --part defaults``
        (three halvings; ``benchmarks/inference.py --part sweeps``, section
        ``infer_sweeps``, run of 2026-11-30 evening) 25 / 50 / 100 / 200 /
        400 sweeps gave 1634.2 / 1622.0 / 1616.5 / 1614.3 / 1612.6, for
        0.06 / 0.09 / 0.16 / 0.34 / 0.57 s per transform: 100 (the default
        since 2026-11-30, was 50; :class:`GibbsLDA`'s) takes more than half
        of what 400 gains over 50 at under a third of its time.

    pg_method : {"auto", "exact", "gaussian", "pg1", "truncated"}, default="gaussian"
        Pólya-Gamma sampler of the augmentation variables (see
        :ref:`polyagamma`). ``"gaussian"`` (moment-matched normal draws)
        predicted as well as ``"auto"`` (then exact draws below ``b = 14``, the
        shifted gamma approximation above) on the State of the Union
        (validation perplexity 1634 against 1632, within the spread between
        seeds; user guide, :ref:`dtm`): a topic's stick counts are large for
        its common words, where the normal is accurate, and the fit took 28 s
        against 35 s there (loaded machine).

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers (no default
        ``pg_method`` uses them), at most 100,000 (the bound of
        :func:`sklearn_pgtm.polyagamma.random_polyagamma`). Set before it was
        measured: at 8 terms both are coarser and slower than the default's
        approximations (Kolmogorov-Smirnov distance to exact draws 0.0095-0.036
        and 0.029-0.042 at b = 100 and 1,000, against at most 0.015; user guide
        :ref:`pg_terms`).

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw.

    n_jobs : int, default=None
        Threads for the topic sweep (blocks of documents) and the logit
        updates (blocks of (topic, word) cells). Every document and every
        cell has its own random stream, so the result does not depend on
        ``n_jobs``. ``-1`` uses all cores.

    verbose : int, default=0
        Print the sweep, the joint log-likelihood and the time, and a
        summary at the end.

    Attributes
    ----------
    components_ : ndarray of shape (n_time_slices, n_components, n_features)
        Topic-word pseudo-counts per slice, with the meaning of
        scikit-learn's ``components_`` in each slice: row ``[s, k]`` is the
        posterior mean word distribution of topic ``k`` in slice ``s`` times
        (the posterior mean number of the slice's tokens in topic ``k``, plus
        one), so rows normalize to the topics. Words in the columns' order
        of ``X``.

    time_slices_ : ndarray of shape (n_time_slices,)
        The sorted distinct time labels seen in :meth:`fit` (``[0]`` when
        ``times`` was None).

    topic_prevalence_ : ndarray of shape (n_time_slices, n_components)
        Mean topic proportions of the training documents of each slice
        (posterior means over the second half of the sweeps).

    doc_topic_prior_ : float
        The ``alpha`` used after the burn-in (the empirical-Bayes estimate
        when ``doc_topic_prior="auto"``).

    trace_ : ChainTrace
        Per-sweep record of the dynamic sweeps: ``log_likelihood`` (the joint
        ``log p(w, z | beta, alpha)`` of the training tokens),
        ``topic_share`` and, when estimated, ``doc_topic_prior``.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        ``trace_.log_likelihood``.

    chain_variance_ : float
        The step variance used (its posterior mean over the second half of
        the sweeps when ``chain_variance="auto"``).

    stick_order_ : ndarray of shape (n_features,)
        Column of ``X`` at each stick position: words by decreasing corpus
        frequency (ties by column). The stick-breaking prior is not
        exchangeable, so the most frequent words get the first sticks.

    n_iter_ : int
        Number of dynamic sweeps run.

    n_features_in_ : int
        Number of words seen in :meth:`fit`.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the words seen in :meth:`fit`, when ``X`` has string column
        names (the default words of :meth:`get_topic_words`).

    See Also
    --------
    GibbsLDA : Static LDA (one set of topics for all documents).
    CorrelatedTopicModel : Topic proportions with learned correlations.
    EmpiricalBayesLDA : Static LDA with estimated Dirichlet priors.

    Notes
    -----
    Cost per sweep: O(tokens x K) for the topic sweep and O(S x K x V) for
    the counts, Pólya-Gamma draws and FFBS, V the number of words with
    tokens in the training documents (columns without tokens share the mass
    the others leave equally and cost nothing per sweep); memory O(S x K x
    V) and one (S, K, n_features) array for ``components_``.
    Documents whose time is not given (``times=None`` in :meth:`transform`)
    are read with the topics of the last slice; labels that were not seen in
    :meth:`fit` use the latest slice not after them (the first slice for
    labels before it).

    References
    ----------
    .. [1] S. Linderman, M. Johnson, R. Adams, "Dependent multinomial models
       made easy: stick-breaking with the Pólya-gamma augmentation",
       NIPS 2015.
    .. [2] D. Blei, J. Lafferty, "Dynamic topic models", ICML 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import DynamicTopicModel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(60, 20))
    >>> years = np.repeat([2001, 2002, 2003], 20)
    >>> dtm = DynamicTopicModel(n_components=3, doc_topic_prior=0.5, max_iter=10,
    ...                         random_state=0).fit(X, years)
    >>> dtm.components_.shape
    (3, 3, 20)
    >>> dtm.transform(X[:2], years[:2]).shape
    (2, 3)
    >>> dtm.time_slices_
    array([2001, 2002, 2003])
    """

    _parameter_constraints: dict = {
        "n_components": [IntegerInterval(1, None, closed="left")],
        "doc_topic_prior": PRIOR_CONSTRAINT,
        "topic_word_prior": [PRIOR_VALUE],
        "chain_variance": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "warm_start_iter": [IntegerInterval(0, None, closed="left")],
        "n_init": [IntegerInterval(1, None, closed="left")],
        "split_merge": ["boolean"],
        "n_infer_iter": [IntegerInterval(1, None, closed="left")],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": PG_TERMS_CONSTRAINT,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=10,
        *,
        doc_topic_prior="auto",
        topic_word_prior=0.1,
        chain_variance=0.2,
        max_iter=200,
        warm_start_iter=200,
        n_init=1,
        split_merge=True,
        n_infer_iter=100,
        pg_method="gaussian",
        pg_terms=8,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.chain_variance = chain_variance
        self.max_iter = max_iter
        self.warm_start_iter = warm_start_iter
        self.n_init = n_init
        self.split_merge = split_merge
        self.n_infer_iter = n_infer_iter
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # --------------------------------------------------------------- helpers
    def _update_logits(self, counts, psi, prior_mean, prior_var, chain_var, states, n_threads):
        """Stick counts, PG draws and FFBS of every (topic, word) cell, in threads."""
        method = PG_METHODS[self.pg_method]
        n_cells = psi.shape[0] * psi.shape[1]

        def block(lo, hi):
            sample_topic_word_logits(counts, psi, prior_mean, prior_var, chain_var, method,
                                     self.pg_terms, states, lo, hi)

        map_ranges(block, balanced_cuts(np.arange(n_cells + 1), n_threads))

    @staticmethod
    def _topic_word(psi, phi, n_threads):
        """phi[s, :, k] = pi_SB(psi[k, :, s]), topics in threads."""
        def block(lo, hi):
            topic_word_probabilities(psi, lo, hi, phi)

        map_ranges(block, balanced_cuts(np.arange(psi.shape[0] + 1), n_threads))

    @staticmethod
    def _log_joint(counts, phi, doc_topic, alpha):
        """``log p(w, z | beta, alpha)`` of the training tokens: the words given
        their topics and the slices' topics, plus the topics under the
        documents' Dirichlet prior (proportions integrated out)."""
        log_topics = log_doc_topic_joint(doc_topic, np.ascontiguousarray(alpha, np.float64))
        return float(log_words_given_topics(counts, phi) + log_topics)

    # ------------------------------------------------------------------- fit
    @keep_state_on_failure
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, times=None):
        """Fit the model by Gibbs sampling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : array-like of shape (n_samples,), default=None
            The time labels given in second place, ``fit(X, times)``, as
            ``Pipeline.fit(docs, times)`` and cross-validation pass them;
            the same as ``times``. Ignored when ``times`` is given. A
            pipeline passes its ``y`` to every step: before a classifier this
            step would read the class labels as time slices unless the time
            labels are routed to it by keyword (``dynamictopicmodel__times=``,
            or ``set_fit_request(times=True)`` with metadata routing).

        times : array-like of shape (n_samples,), default=None
            Time label of each document: any mutually orderable values
            (years, dates, integers, strings); documents with equal labels
            form one time slice and slices are ordered by label (sorted: an
            ordered pandas categorical whose declared order is not its
            labels' sort order raises a ValueError; pass its codes). None puts
            every document in one slice (labelled 0). By keyword, it can be
            routed to this step of a pipeline (``dynamictopicmodel__times=``).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        name = type(self).__name__
        whom = f"{name}.fit"
        times = _one_of_times(y, times)
        self._check_params()
        X = check_counts(self, X, reset=True, whom=whom)
        check_nonempty_corpus(X, whom)
        labels, slice_index = _time_slices(times, X.shape[0], whom)
        n_threads = effective_n_jobs(self.n_jobs)
        reporter = ProgressReporter(name, self.verbose)
        run = self._start_run(X, slice_index, labels.shape[0], n_threads)
        for move in run.warm_start_moves:
            reporter.note(f"LDA warm start: {move}")
        with reporter:
            kept = self._run_chain(run, reporter, n_threads, whom)
        self._set_fitted(run, kept, labels)
        warn_if_trending(self.log_likelihood_trace_, name, "max_iter",
                         n_tokens=run.word_ids.shape[0], can_continue=False)
        reporter.summary(
            f"{self.max_iter} sweeps (+{self.warm_start_iter} LDA warm-up), "
            f"{run.word_ids.shape[0]} tokens, {labels.shape[0]} slices, "
            f"doc_topic_prior={self.doc_topic_prior_:.4g}, "
            f"chain_variance={self.chain_variance_:.4g}, "
            f"log-likelihood {self.log_likelihood_trace_[-1]:.6g}"
        )
        return self

    def _start_run(self, X, slice_index, n_slices, n_threads):
        """Seeds, tokens in stick order grouped by slice, the LDA warm start
        and every slice's logits at its smoothed topics."""
        rng = check_random_state(self.random_state)
        seeds = np.random.SeedSequence(seed_from(rng)).spawn(5)
        chain_seeds = seeds[0].spawn(self.n_init)
        # The moves' stream: the next child, so that the chains' seeds, and a
        # chain without accepted moves, are those of a fit without moves.
        moves = (SplitMerge.from_seed(seeds[0].spawn(1)[0])
                 if self.split_merge and self.n_components >= MIN_TOPICS else None)
        self._infer_seed = seed_from(rng)
        self._split_seed = seed_from(rng)
        n_docs, n_words = X.shape
        n_topics = self.n_components
        eta = float(self.topic_word_prior)
        # An estimated alpha starts at 1 / K (scikit-learn's default) for the
        # warm start and the first dynamic sweeps.
        alpha = np.full(n_topics, 1.0 / n_topics if isinstance(self.doc_topic_prior, str)
                        else float(self.doc_topic_prior))
        estimate_variance = self.chain_variance == "auto"

        # Stick order (most frequent word first) and documents grouped by slice.
        word_totals = np.asarray(X.sum(axis=0)).ravel()
        stick_order = np.argsort(-word_totals, kind="stable")
        # Words without tokens (a vocabulary fitted on other documents, or
        # hashed) come last; no count reaches their sticks, which would only
        # draw from their prior at every sweep (O(K V S)), so the chain keeps
        # one stick per word with tokens and the mass after them.
        n_present = int(np.count_nonzero(word_totals))
        n_sticks = n_words - 1 if n_present == n_words else n_present
        doc_order = np.argsort(slice_index, kind="stable")
        doc_ptr, word_ids = to_tokens(X[doc_order][:, stick_order].sorted_indices())
        slice_ptr = np.searchsorted(slice_index[doc_order], np.arange(n_slices + 1))

        # Warm start: LDA over all slices pooled, then every slice's logits
        # at the smoothed LDA topics.
        chain = _warm_start(doc_ptr, word_ids, n_topics, n_words, alpha, eta,
                            self.warm_start_iter, chain_seeds, n_threads, moves)
        # The shared Dirichlet-prior machinery (sklearn_pgtm._priors):
        # an "auto" alpha gets one data-augmentation update per sweep during
        # the burn-in (the first max_iter - n_average sweeps), its Gamma
        # conditionals recorded over the burn-in's second half, and is then
        # held at the empirical-Bayes estimate, as in every other model.
        priors = DirichletPriors.for_chain(chain, self.doc_topic_prior, eta, seeds[4],
                                           start=(alpha[0], eta))
        doc_states = make_streams(seeds[1], n_docs)
        start = np.empty((n_topics, n_words - 1))
        inverse_stick_breaking(np.ascontiguousarray(chain.word_topic.T + eta), start)
        return _DynamicRun(
            doc_ptr=doc_ptr, word_ids=word_ids, slice_ptr=slice_ptr.astype(np.int64),
            stick_order=stick_order, chain=chain, priors=priors,
            psi=np.ascontiguousarray(np.repeat(start[:, :n_sticks, None], n_slices, axis=2)),
            prior=_dirichlet_matched_prior(n_words, eta),
            chain_variance=(_CHAIN_VARIANCE_START if estimate_variance
                            else float(self.chain_variance)),
            estimate_variance=estimate_variance, doc_states=doc_states,
            cell_states=make_streams(seeds[2], n_topics * n_sticks),
            variance_rng=np.random.default_rng(seeds[3]),
            counts=np.zeros((n_topics, n_present, n_slices), dtype=np.int32),
            phi=np.empty((n_slices, n_sticks + 1, n_topics)),
            warm_start_moves=moves.moves if moves is not None else [],
        )

    def _check_params(self):
        """An "auto" ``doc_topic_prior`` is estimated during the burn-in, the
        first ``max_iter - max(max_iter // 2, 1)`` sweeps; ``max_iter=1`` has
        none (the prior stayed at its start, ``1 / n_components``, and was
        reported as the estimate), as ``burn_in=0`` in the other models."""
        if isinstance(self.doc_topic_prior, str) and self.max_iter < 2:
            raise ValueError(
                f"{type(self).__name__}: doc_topic_prior='auto' is estimated during the "
                "burn-in, the first half of the max_iter sweeps, and max_iter=1 leaves no "
                "sweep to estimate it in (it would stay at its starting value 1 / "
                "n_components). Set max_iter >= 2, or give the prior as a float.")

    def _run_chain(self, run, reporter, n_threads, whom):
        """``max_iter`` dynamic sweeps; returns the sums over the second half."""
        kept = _KeptSums.zeros_like(run)
        burn_in = self.max_iter - max(self.max_iter // 2, 1)
        priors = run.priors
        divergence = "pg_method (e.g. 'exact') or chain_variance"
        for it in range(self.max_iter):
            log_likelihood = self._sweep(run, n_threads)
            if it < burn_in and priors.estimated:
                priors.update(run.chain, record=it >= burn_in // 2)
                if it + 1 == burn_in:
                    priors.set_estimated(priors.estimate())
            if it >= burn_in:
                kept.add(run)
            check_finite(log_likelihood, whom, "the log-likelihood", divergence)
            run.trace.record(log_likelihood=log_likelihood,
                             topic_share=run.doc_topic.sum(axis=0)
                             / max(run.word_ids.shape[0], 1))
            if priors.estimate_alpha:
                run.trace.record(doc_topic_prior=priors.alpha[0])
            if reporter.due(it, self.max_iter):
                extra = {"chain_variance": run.chain_variance} if run.estimate_variance else {}
                reporter.report(it, self.max_iter, log_likelihood=log_likelihood, **extra)
        check_finite(run.psi, whom, "the topic logits", divergence)
        return kept

    def _sweep(self, run, n_threads):
        """One sweep: topic-word weights of every slice, the tokens' topics,
        the joint of the counts, the logits and the step variance; returns
        the log joint."""
        alpha = run.priors.alpha
        self._topic_word(run.psi, run.phi, n_threads)
        _sample_topics_by_slice(run.doc_ptr, run.word_ids, run.topics, run.doc_topic, run.phi,
                                run.slice_ptr, alpha, run.doc_states, n_threads)
        run.chain.n_sweeps += 1  # the priors' histograms follow the sweeps
        count_slice_topic_words(run.doc_ptr, run.word_ids, run.topics, run.slice_ptr,
                                run.counts)
        log_likelihood = self._log_joint(run.counts, run.phi, run.doc_topic, alpha)
        self._update_logits(run.counts, run.psi, *run.prior, run.chain_variance,
                            run.cell_states, n_threads)
        n_steps = run.psi[:, :, 1:].size
        if run.estimate_variance and n_steps > 0:
            run.chain_variance = _draw_chain_variance(sum_squared_steps(run.psi), n_steps,
                                                      _CHAIN_VARIANCE_PRIOR, run.variance_rng)
        return log_likelihood

    def _set_fitted(self, run, kept, labels):
        """Fitted attributes from the sums over the kept sweeps."""
        alpha = run.priors.alpha
        n_slices, _, n_topics = kept.phi.shape
        lengths = np.diff(run.doc_ptr).astype(np.float64)
        doc_topic_mean = kept.doc_topic / kept.n
        theta = (doc_topic_mean + alpha) / (lengths + alpha.sum())[:, None]
        prevalence = np.empty((n_slices, n_topics))
        tokens_per_topic = np.empty((n_slices, n_topics))
        for s in range(n_slices):
            a, b = run.slice_ptr[s], run.slice_ptr[s + 1]
            prevalence[s] = theta[a:b].mean(axis=0) if b > a else alpha / alpha.sum()
            tokens_per_topic[s] = doc_topic_mean[a:b].sum(axis=0)
        self.components_ = _components(kept.phi / kept.n, run.stick_order,
                                       tokens_per_topic + 1.0)
        self.time_slices_ = labels
        self.topic_prevalence_ = prevalence
        self.doc_topic_prior_ = float(alpha[0])
        self.chain_variance_ = (kept.chain_variance / kept.n if run.estimate_variance
                                else float(self.chain_variance))
        self.stick_order_ = run.stick_order
        self.n_iter_ = self.max_iter
        self.trace_ = run.trace.frozen()
        self.log_likelihood_trace_ = self.trace_.log_likelihood

    def fit_transform(self, X, y=None, *, times=None):
        """Fit the model and return the topic proportions of X at its own slices.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        y : array-like of shape (n_samples,), default=None
            The time labels given in second place (see :meth:`fit`).

        times : array-like of shape (n_samples,), default=None
            Time label of each document (see :meth:`fit`).

        Returns
        -------
        doc_topic : ndarray of shape (n_samples, n_components)
            ``self.fit(X, times=times).transform(X, times)``.
        """
        times = _one_of_times(y, times)
        return self.fit(X, times=times).transform(X, times)

    # ------------------------------------------------------------- inference
    def _slice_index(self, times, n_docs, whom):
        """Slice of each document: its label's slice, the latest slice not
        after an unseen label, the last slice when ``times`` is None."""
        n_slices = self.time_slices_.shape[0]
        if times is None:
            return np.full(n_docs, n_slices - 1, dtype=np.intp)
        times = _check_times(times, n_docs, whom)
        fitted, times = _comparable_times(self.time_slices_, times)
        groups = ("biuf", "US", "M", "m")
        kinds = (fitted.dtype.kind, times.dtype.kind)
        try:
            if "O" in kinds:
                # Python objects (dates, ...): compare one pair to catch a type clash.
                _ = times[0] < fitted[0] if times.shape[0] else None
            elif not any(kinds[0] in g and kinds[1] in g for g in groups):
                raise TypeError(f"{fitted.dtype} and {times.dtype} labels")
            index = np.searchsorted(fitted, times, side="right") - 1
        except TypeError as exc:
            raise ValueError(
                f"{whom}: the time labels cannot be compared with those seen in fit "
                f"({fitted.dtype}): {exc}"
            ) from exc
        return np.clip(index, 0, n_slices - 1).astype(np.intp)

    def _prepare(self, X, times, whom):
        """Validated tokens of X in stick order with documents grouped by slice.

        Returns ``doc_ptr, word_ids, slice_ptr, doc_order`` (``doc_order[i]`` is
        the row of X of the i-th grouped document), the topics ``phi`` (S, U,
        K) of the U words present in X, normalized from ``components_``, and
        ``rows``, the row of ``phi[s]`` of each token's word (the whole
        (S, V, K) topics, normalized and transposed at every call, were three
        temporary copies of ``components_``).
        """
        check_is_fitted(self)
        check_call_settings(self, ("n_infer_iter", "n_jobs"))
        X = check_counts(self, X, reset=False, whom=whom)
        slice_index = self._slice_index(times, X.shape[0], whom)
        doc_order = np.argsort(slice_index, kind="stable")
        doc_ptr, word_ids = to_tokens(X[doc_order][:, self.stick_order_].sorted_indices())
        n_slices = self.time_slices_.shape[0]
        slice_ptr = np.searchsorted(slice_index[doc_order], np.arange(n_slices + 1))
        words, rows = present_words(word_ids, self.stick_order_.shape[0])
        phi = np.empty((n_slices, words.shape[0], self.components_.shape[1]))
        for s in range(n_slices):
            # The totals over the stick-ordered row, as the whole matrix gave them.
            totals = self.components_[s][:, self.stick_order_].sum(axis=1, keepdims=True)
            phi[s] = (self.components_[s][:, self.stick_order_[words]] / totals).T
        return doc_ptr, word_ids, rows, slice_ptr.astype(np.int64), doc_order, phi

    def _infer_tokens(self, doc_ptr, word_ids, rows, slice_ptr, phi, seed, n_samples=0):
        """Posterior mean topic proportions of grouped documents, topics fixed
        (``phi[s, rows[i]]`` the topics of token ``i``'s word), and with
        ``n_samples > 0`` as many posterior draws (None otherwise): further
        sweeps, each ending with ``theta_d ~ Dirichlet(C_d + alpha)`` per
        document, as the static models' :func:`dirichlet_posterior` draws.

        Each document's stream is derived from ``seed`` and its own tokens, so
        its result does not depend on the other documents of the batch.
        """
        n_docs, n_topics = doc_ptr.shape[0] - 1, phi.shape[2]
        alpha = np.full(n_topics, self.doc_topic_prior_)
        states = document_streams(seed, doc_ptr, word_ids)
        word_ids = rows  # the sweeps index the rows of phi
        topics = np.zeros(word_ids.shape[0], dtype=np.int32)
        for s in range(slice_ptr.shape[0] - 1):
            # Start from each word's most likely topic in the slice (per word,
            # then per token: phi[s][word_ids] was a float64 copy of the K
            # topics of every token, 88 MB for 50,000 short documents at K = 20).
            lo, hi = doc_ptr[slice_ptr[s]], doc_ptr[slice_ptr[s + 1]]
            if hi > lo:
                topics[lo:hi] = np.argmax(phi[s], axis=1)[word_ids[lo:hi]]
        doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
        np.add.at(doc_topic, (np.repeat(np.arange(n_docs), np.diff(doc_ptr)), topics), 1)
        n_threads = effective_n_jobs(self.n_jobs)
        n_iter = self.n_infer_iter
        n_average = averaged_sweeps(n_iter)
        doc_topic_sum = np.zeros((n_docs, n_topics))
        for it in range(n_iter):
            _sample_topics_by_slice(doc_ptr, word_ids, topics, doc_topic, phi, slice_ptr,
                                    alpha, states, n_threads)
            if it >= n_iter - n_average:
                doc_topic_sum += doc_topic
        lengths = np.diff(doc_ptr).astype(np.float64)
        theta = (doc_topic_sum / n_average + alpha) / (lengths + alpha.sum())[:, None]
        if not n_samples:
            return theta, None
        draws = dirichlet_draws(lambda: _sample_topics_by_slice(
            doc_ptr, word_ids, topics, doc_topic, phi, slice_ptr, alpha, states, n_threads),
            doc_topic, doc_ptr, alpha, states, n_threads, n_samples)
        return theta, draws

    def _infer(self, X, times, whom, n_samples=0):
        """``transform`` (and with ``n_samples``, ``sample_transform``) of X in
        its own row order."""
        doc_ptr, word_ids, rows, slice_ptr, doc_order, phi = self._prepare(X, times, whom)
        theta, draws = self._infer_tokens(doc_ptr, word_ids, rows, slice_ptr, phi,
                                          self._infer_seed, n_samples)
        grouped = draws if n_samples else theta
        in_order = np.empty_like(grouped)
        in_order[..., doc_order, :] = grouped
        return in_order

    def _completion_log_likelihood(self, X, times, whom):
        """Document completion: log-likelihood of a random half of each
        document's tokens given proportions inferred from the other half.

        Returns ``(log_likelihood, n_heldout_tokens)``. The split of a
        document depends only on its own tokens and the fitted model's seed,
        so repeated calls agree.
        """
        doc_ptr, word_ids, rows, slice_ptr, _, phi = self._prepare(X, times, whom)
        (obs_ptr, obs_words, obs_rows), (held_ptr, held_words, held_rows) = completion_halves(
            doc_ptr, word_ids, rows, self._split_seed)
        theta, _ = self._infer_tokens(obs_ptr, obs_words, obs_rows, slice_ptr, phi,
                                      self._infer_seed)
        total = 0.0
        for s in range(slice_ptr.shape[0] - 1):
            a, b = int(slice_ptr[s]), int(slice_ptr[s + 1])
            if a < b:
                total += log_predictive(held_ptr[a:b + 1], held_rows, theta[a:b], phi[s])
        return total, int(held_words.shape[0])

    def transform(self, X, times=None):
        """Topic proportions of documents, with the topics of their slices fixed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        times : array-like of shape (n_samples,), default=None
            Time label of each document. Each document is read with the
            topics of its slice (the latest slice not after an unseen label;
            the first slice for labels before it). None reads every document
            with the topics of the last slice. Timezone-naive dates and times
            compare with the fitted ones in any container (a pandas Series of
            datetimes, a list of Timestamps, ``datetime`` or ``date`` objects,
            a datetime64 array).

        Returns
        -------
        doc_topic : ndarray of shape (n_samples, n_components)
            Posterior mean topic proportions (rows sum to 1), averaged over
            ``n_infer_iter`` sweeps but the first eighth (at least five, half
            below ten sweeps);
            identical on repeated calls.
        """
        return self._infer(X, times, f"{type(self).__name__}.transform")

    def sample_transform(self, X, times=None, *, n_samples=100):
        """Posterior draws of documents' topic proportions, with the topics of
        their slices fixed.

        After the ``n_infer_iter`` sweeps of :meth:`transform`, each of
        ``n_samples`` further Gibbs sweeps ends with one draw of every
        document's proportions from their conditional given the tokens'
        topics, ``Dirichlet(C_d + alpha)``: Markov chain draws from the
        posterior, whose spread shows how uncertain the proportions are, as
        the static models' ``sample_transform``. Deterministic for a fitted
        estimator; a document's draws do not depend on the other documents.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        times : array-like of shape (n_samples,), default=None
            Time label of each document (see :meth:`transform`).

        n_samples : int, default=100
            Number of draws.

        Returns
        -------
        draws : ndarray of shape (n_samples, n_documents, n_components)
            Rows of each draw sum to one.
        """
        whom = f"{type(self).__name__}.sample_transform"
        return self._infer(X, times, whom, check_n_draws(n_samples, whom))

    def score(self, X, y=None, *, times=None):
        """Document completion log-likelihood of X (higher is better).

        The tokens of every document are split at random in two halves
        (each token with probability 1/2); topic proportions are inferred
        from the first half with the topics of the document's slice, and the
        log-likelihood ``sum log(theta_d . beta_{s_d, w})`` of the second
        half is returned. The split is fixed by the fitted model's seed, so
        repeated calls agree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (held-out documents).

        y : array-like of shape (n_samples,), default=None
            The time labels given in second place, ``score(X, times)``, as
            ``Pipeline.score(docs, times)`` passes them; the same as
            ``times``. Ignored when ``times`` is given.

        times : array-like of shape (n_samples,), default=None
            Time label of each document (see :meth:`transform`).

        Returns
        -------
        score : float
            Log-likelihood of the held-out halves.
        """
        whom = f"{type(self).__name__}.score"
        return self._completion_log_likelihood(X, _one_of_times(y, times), whom)[0]

    def perplexity(self, X, times=None):
        """Document completion perplexity ``exp(-score(X, times) / n_heldout)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (held-out documents).

        times : array-like of shape (n_samples,), default=None
            Time label of each document (see :meth:`transform`).

        Returns
        -------
        perplexity : float
            Lower is better.
        """
        whom = f"{type(self).__name__}.perplexity"
        total, n_heldout = self._completion_log_likelihood(X, times, whom)
        return completion_perplexity(total, n_heldout, whom)

    # ---------------------------------------------------------------- topics
    def _slice_position(self, time_slice):
        # A sequence was compared element-wise: [0, 1, 2, 3] matched slice 0
        # (as many labels as slices), [0, 1] raised numpy's broadcast error.
        try:
            label = np.asarray(time_slice)
        except ValueError:  # ragged nested sequences
            label = None
        if label is None or label.ndim != 0:
            raise ValueError("time_slice must be one label of time_slices_, not a sequence; "
                             f"got {reprlib.repr(time_slice)}.")
        # A pandas Timestamp or a datetime never equals a datetime64 label:
        # both compare as datetime64, at their own resolutions.
        fitted, labels = _comparable_times(self.time_slices_,
                                           np.array([time_slice], dtype=object))
        if labels.dtype.kind in "mM":
            label = labels[0]
        matches = np.flatnonzero(fitted == label)
        if matches.size == 0:
            raise ValueError(
                f"time_slice={time_slice!r} is not one of the time slices seen in fit "
                f"(time_slices_ = {self._slice_labels()!r})."
            )
        return int(matches[0])

    def get_topic_words(self, topic, time_slice, n_words=10, feature_names=None):
        """Most probable words of a topic in one time slice.

        Parameters
        ----------
        topic : int
            Topic index, in ``[0, n_components)``.

        time_slice : object
            One label of ``time_slices_`` (for date or time labels, also a
            ``datetime``, ``date``, pandas ``Timestamp`` or ``numpy.datetime64``
            equal to it).

        n_words : int, default=10
            Number of words.

        feature_names : array-like of str, default=None
            Name of each column of ``X`` (e.g. ``get_feature_names_out()`` of
            the vectorizer). Defaults to ``feature_names_in_`` when ``X`` had
            column names, else words are column indices.

        Returns
        -------
        words : list of (word, probability) tuples
            By decreasing probability.
        """
        check_is_fitted(self)
        n_topics = self.components_.shape[1]
        if not is_integer_at_least(topic, 0) or topic >= n_topics:
            raise ValueError(f"topic must be an integer in [0, {n_topics}); got {topic!r}.")
        row = self.components_[self._slice_position(time_slice), int(topic)]
        row = row / row.sum()
        n_words = _check_n_words(n_words, row.shape[0])
        names = feature_names
        if names is None:
            names = getattr(self, "feature_names_in_", None)
        if names is not None:
            names = check_feature_names(names, row.shape[0])
        top = np.argsort(-row, kind="stable")[:n_words]
        return [(names[i] if names is not None else int(i), float(row[i])) for i in top]

    def topic_evolution(self, topic, n_words=10, feature_names=None):
        """Most probable words of a topic in every time slice.

        Parameters
        ----------
        topic : int
            Topic index, in ``[0, n_components)``.

        n_words : int, default=10
            Number of words per slice.

        feature_names : array-like of str, default=None
            Name of each column of ``X`` (see :meth:`get_topic_words`).

        Returns
        -------
        evolution : dict
            ``{time label: [(word, probability), ...]}`` in time order; the
            labels of ``time_slices_`` as ``tolist()`` gives them, except
            datetime64 labels of nanosecond units (pandas' datetimes), which
            ``tolist()`` turns into integers: those are ``numpy.datetime64``.
        """
        check_is_fitted(self)
        return {
            label: self.get_topic_words(topic, self.time_slices_[s], n_words, feature_names)
            for s, label in enumerate(self._slice_labels())
        }

    def _slice_labels(self):
        """The labels of ``time_slices_`` as Python objects (``tolist``), but
        datetime64 / timedelta64 labels that ``tolist`` turns into integers
        (nanosecond units: pandas' datetimes) as numpy scalars."""
        labels = self.time_slices_.tolist()
        if self.time_slices_.dtype.kind in "mM":
            labels = [self.time_slices_[s] if isinstance(label, int) else label
                      for s, label in enumerate(labels)]
        return labels

    @property
    def _n_features_out(self):
        return self.components_.shape[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags
