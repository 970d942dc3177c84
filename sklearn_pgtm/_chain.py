"""The state of a collapsed Gibbs chain over the tokens' topics, and its sweeps.

Every topic model of the package keeps one :class:`TopicChain` while it
fits: the tokens and their topics, the count matrices, and one random stream
per document. Its ``sweep_*`` methods run the kernels of
:mod:`sklearn_pgtm._kernels._sweeps` serially or, with ``n_jobs > 1``, on
the partitioned multi-threaded scheme below; :func:`infer_topics` runs the
fixed-topic kernels (inference of new documents) on blocks of documents.

Partitioned sweep (P threads; Yan, Xu & Qi 2009, also tomotopy's default):
the documents are cut into P contiguous blocks and the vocabulary into P
contiguous slices, both of about equal numbers of tokens. A sweep is P
sub-rounds; in sub-round r, thread p resamples the tokens of document block
p whose word lies in slice (p + r) mod P. Threads therefore never share a row
of ``doc_topic`` or of ``word_topic``: those counts are always exact. Only
the K topic totals are shared: each thread works on its own copy within a
sub-round and the changes are added up at its end. That staleness of K
numbers, each of order N / K, is the whole approximation. Each document keeps
its stream, so the result depends only on ``random_state`` and ``n_jobs``;
with one thread the sweep is exactly the serial one. P is what ``n_jobs``
asks for, not capped by the machine's cores: on fewer cores than P, fewer
threads run the P blocks of a sub-round in turn, to the same result.
"""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from sklearn.decomposition import NMF
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer

from ._kernels._random import make_streams
from ._kernels._sweeps import (
    ALL_WORDS,
    TokenTopics,
    fill_word_topic_lists,
    initialize_topics,
    initialize_topics_from_factors,
    sample_fixed_topics,
    sample_fixed_topics_weighted,
    sample_lda,
    sample_lda_sparse,
    sample_softmax,
    sample_supervised,
    sample_weighted,
    word_topic_lists,
)
from ._parallel import (
    balanced_cuts,
    effective_n_jobs,
    ignoring_warnings,
    map_ranges,
    one_blas_thread,
    requested_n_jobs,
    thread_pool,
)

# From this many topics on, the LDA sweep is SparseLDA (benchmarks/throughput.py
# on 20 Newsgroups: the dense sweep is faster at K = 20 and 100, SparseLDA
# about twice as fast at K = 1000; the switch lies between the measured points).
SPARSE_MIN_TOPICS = 300
LDA_METHODS = ("auto", "dense", "sparse")

# Iterations of the factorization behind the factorized start.
FACTOR_ITER = 200


def topic_word_prior_array(beta):
    """A topic-word prior as the kernels take it: a float, or a C-contiguous
    float64 (V, K) array (word-major, like the counts)."""
    if np.ndim(beta) == 0:
        return float(beta)
    return np.ascontiguousarray(beta, dtype=np.float64)


def resolve_lda_method(method, n_topics):
    """The LDA kernel (``"dense"`` or ``"sparse"``) for ``method`` at ``n_topics``."""
    if method not in LDA_METHODS:
        raise ValueError(f"method must be one of {LDA_METHODS}, got {method!r}.")
    if method == "auto":
        return "sparse" if n_topics >= SPARSE_MIN_TOPICS else "dense"
    return method


def _zero_counts(doc_ptr, word_ids, n_topics, n_words):
    """Tokens with topic 0 and zero counts, for the initial-topic kernels to fill."""
    n_docs = doc_ptr.shape[0] - 1
    tokens = TokenTopics(doc_ptr, word_ids, np.zeros(word_ids.shape[0], dtype=np.int32),
                         np.zeros((n_docs, n_topics), dtype=np.int32))
    return (tokens, np.zeros((n_words, n_topics), dtype=np.int32),
            np.zeros(n_topics, dtype=np.int32))


@dataclass
class TopicChain:
    """Tokens, their topics, the counts they imply and the documents' streams.

    Attributes
    ----------
    tokens : TokenTopics
        ``doc_ptr``, ``word_ids``, ``topics`` and ``doc_topic`` (D, K) int32.
    word_topic : ndarray of shape (n_words, n_topics), int32
    topic_total : ndarray of shape (n_topics,), int32
    states : ndarray of shape (n_docs, 4), uint64
        One xoshiro256** stream per document for the sweeps.
    n_sweeps : int
        Sweeps done so far.
    n_threads : int
        Threads of the last sweep (the priors' histograms and update and the
        sum of the kept counts use as many; their results do not depend on
        it).
    """

    tokens: TokenTopics
    word_topic: np.ndarray
    topic_total: np.ndarray
    states: np.ndarray
    n_sweeps: int = 0
    n_threads: int = 1
    _word_cuts: dict = field(default_factory=dict, repr=False)
    _word_lists: tuple = field(default=None, repr=False)

    @classmethod
    def random(cls, doc_ptr, word_ids, n_topics, n_words, seed, beta=None):
        """A chain started from random topics: uniform, or, given a (V, K)
        topic-word prior ``beta``, drawn in proportion to each token's word's
        prior (a seed word starts in the topic it seeds).

        ``seed`` (anything :class:`numpy.random.SeedSequence` takes) gives
        the initial topics and, independently, the sweeps' streams.
        """
        if not isinstance(seed, np.random.SeedSequence):
            seed = np.random.SeedSequence(seed)
        init_seed, sweep_seed = seed.spawn(2)
        n_docs = doc_ptr.shape[0] - 1
        tokens, word_topic, topic_total = _zero_counts(doc_ptr, word_ids, n_topics, n_words)
        init_states = make_streams(init_seed, n_docs)
        if beta is not None and np.ndim(beta) == 2:
            # In proportion to the prior: the factorized draw with equal
            # document weights.
            initialize_topics_from_factors(tokens, word_topic, topic_total,
                                           np.ones((n_docs, n_topics)),
                                           np.ascontiguousarray(np.asarray(beta, float).T),
                                           init_states)
        else:
            initialize_topics(tokens, word_topic, topic_total, init_states)
        return cls(tokens, word_topic, topic_total, make_streams(sweep_seed, n_docs))

    @classmethod
    def from_factors(cls, doc_ptr, word_ids, doc_weight, topic_weight, seed):
        """A chain started from topics drawn from a nonnegative factorization
        ``(W, H) = (doc_weight, topic_weight)`` of the counts
        (:func:`factorize`): token ``(d, w)`` takes topic ``k`` with
        probability ``∝ W[d, k] H[k, w]``.

        Why (user guide :ref:`ctm_merged`): from random topics, the collapsed
        sweep gives two topics that nearly always co-occur one topic in its
        first sweeps and spends the topic it saved on a fragment of another
        one; single-token moves leave that state only after hundreds of
        sweeps. The factorization separates such topics from the start. It
        only chooses the starting state: the chain that follows is
        unchanged.
        """
        if not isinstance(seed, np.random.SeedSequence):
            seed = np.random.SeedSequence(seed)
        draw_seed, sweep_seed = seed.spawn(2)
        n_docs, n_topics = doc_weight.shape
        tokens, word_topic, topic_total = _zero_counts(doc_ptr, word_ids, n_topics,
                                                       topic_weight.shape[1])
        initialize_topics_from_factors(tokens, word_topic, topic_total, doc_weight,
                                       topic_weight, make_streams(draw_seed, n_docs))
        return cls(tokens, word_topic, topic_total, make_streams(sweep_seed, n_docs))

    @property
    def n_docs(self):
        return self.tokens.doc_topic.shape[0]

    @property
    def n_topics(self):
        return self.tokens.doc_topic.shape[1]

    @property
    def n_words(self):
        return self.word_topic.shape[0]

    @property
    def n_tokens(self):
        return self.tokens.word_ids.shape[0]

    @property
    def doc_lengths(self):
        return np.diff(self.tokens.doc_ptr)

    @cached_property
    def word_frequencies(self):
        """Corpus frequency of each word (fixed for the chain): no topic-word
        count can exceed its word's."""
        return np.bincount(self.tokens.word_ids, minlength=self.n_words)

    @cached_property
    def present_words(self):
        """The words with at least one token (sorted, int64): the only rows of
        ``word_topic`` that ever hold counts (a vocabulary fitted on a larger
        collection, or hashed, leaves most rows empty)."""
        return np.flatnonzero(self.word_frequencies)

    @cached_property
    def largest_word_frequency(self):
        """The largest corpus frequency of a word (bounds every topic-word count)."""
        return int(self.word_frequencies.max(initial=0))

    def relabel(self, order):
        """Renumber the topics in place: topic ``k`` becomes the old topic
        ``order[k]`` (every count and token follows; nothing else changes)."""
        order = np.asarray(order, dtype=np.int64)
        new_label = np.empty(self.n_topics, dtype=self.tokens.topics.dtype)
        new_label[order] = np.arange(self.n_topics)
        self.tokens.topics[:] = new_label[self.tokens.topics]
        self.tokens.doc_topic[:] = self.tokens.doc_topic[:, order]
        self.word_topic[:] = self.word_topic[:, order]
        self.topic_total[:] = self.topic_total[order]

    # ------------------------------------------------------------- sweeps
    def sweep_lda(self, alpha, beta, n_jobs=None, method="auto"):
        """One LDA sweep (``alpha`` a float64 vector, ``beta`` a float or a
        (V, K) array; SparseLDA needs a float ``beta``, an array takes the
        dense sweep)."""
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        beta = topic_word_prior_array(beta)
        if np.ndim(beta) == 0 and resolve_lda_method(method, self.n_topics) == "sparse":
            lists = self._current_word_lists(n_jobs)
            self._partitioned(n_jobs, lambda total, block: sample_lda_sparse(
                self.tokens, self.word_topic, total, alpha, beta, self.states, block, lists))
        else:
            self._partitioned(n_jobs, lambda total, block: sample_lda(
                self.tokens, self.word_topic, total, alpha, beta, self.states, block))

    def sweep_supervised(self, alpha, beta, response, n_jobs=None):
        """One Gibbs sLDA sweep with a :class:`~._kernels._sweeps.BinaryResponse`."""
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        beta = topic_word_prior_array(beta)
        self._partitioned(n_jobs, lambda total, block: sample_supervised(
            self.tokens, self.word_topic, total, alpha, beta, response, self.states, block))

    def sweep_softmax(self, alpha, beta, response, n_jobs=None):
        """One multinomial Gibbs sLDA sweep with a
        :class:`~._kernels._sweeps.SoftmaxResponse`."""
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        beta = topic_word_prior_array(beta)
        self._partitioned(n_jobs, lambda total, block: sample_softmax(
            self.tokens, self.word_topic, total, alpha, beta, response, self.states, block))

    def sweep_weighted(self, weights, beta, n_jobs=None):
        """One sweep with fixed document weights ``weights`` (D, K)."""
        beta = topic_word_prior_array(beta)
        self._partitioned(n_jobs, lambda total, block: sample_weighted(
            self.tokens, self.word_topic, total, weights, beta, self.states, block))

    def _partitioned(self, n_jobs, run_block):
        """Run ``run_block(topic_total, block)`` over the partitioned scheme."""
        self.n_sweeps += 1
        n_parts = self._n_parts(n_jobs)
        # The blocks of a sub-round share nothing: fewer threads than blocks
        # (a machine with fewer cores) run them in turn, to the same result.
        self.n_threads = self._n_threads(n_jobs)
        if n_parts == 1:
            run_block(self.topic_total, (0, self.n_docs, 0, ALL_WORDS))
            return
        doc_cuts = balanced_cuts(self.tokens.doc_ptr, n_parts)
        word_cuts = self._vocabulary_cuts(n_parts)
        pool = thread_pool(self.n_threads)

        def run_blocks(r, parts, totals):
            for p in parts:
                g = (p + r) % n_parts
                run_block(totals[p], (int(doc_cuts[p]), int(doc_cuts[p + 1]),
                                      int(word_cuts[g]), int(word_cuts[g + 1])))

        # One task per thread, each running its share of the blocks in turn
        # (one task per block cost 15 us each: 60 ms a sweep at n_jobs=64).
        shares = [range(t, n_parts, self.n_threads) for t in range(self.n_threads)]
        for r in range(n_parts):
            totals = [self.topic_total.copy() for _ in range(n_parts)]
            futures = [pool.submit(run_blocks, r, parts, totals) for parts in shares]
            for future in futures:
                future.result()
            # Each thread saw its own changes of the totals only (the shared
            # totals are untouched during the sub-round): add them up.
            self.topic_total += sum(total - self.topic_total for total in totals)

    def _n_parts(self, n_jobs):
        """Document blocks and vocabulary slices of a sweep with ``n_jobs``:
        as many as ``n_jobs`` asks for (at most the documents or the words),
        not capped by the cores: the blocks decide the result, and capping
        them made ``n_jobs=2`` fit another model on one core than on two."""
        return max(1, min(requested_n_jobs(n_jobs), self.n_docs, self.n_words))

    def _n_threads(self, n_jobs):
        """Threads that run the blocks: at most the cores."""
        return effective_n_jobs(n_jobs, min(self.n_docs, self.n_words))

    def _current_word_lists(self, n_jobs):
        """SparseLDA's nonzero-topic lists of the current counts, refilled
        before every sparse sweep (other steps of a fit may change the counts
        between sweeps: EmpiricalBayesLDA permutes topics, a dense sweep does
        not keep the lists) by slices of the vocabulary on ``n_jobs`` threads
        (their offsets depend only on the word frequencies: computed once)."""
        if self._word_lists is None:
            self._word_lists = word_topic_lists(self.word_topic, self.word_frequencies)
        else:
            cuts = self._vocabulary_cuts(self._n_threads(n_jobs))
            map_ranges(lambda lo, hi: fill_word_topic_lists(self.word_topic, self._word_lists,
                                                            lo, hi), cuts)
        return self._word_lists

    def _vocabulary_cuts(self, n_parts):
        """Slices of the vocabulary of about equal token counts (computed once
        per chain and thread count: they decide the sweep order)."""
        cuts = self._word_cuts.get(n_parts)
        if cuts is None:
            cumulative = np.zeros(self.n_words + 1, dtype=np.int64)
            np.cumsum(self.word_frequencies, out=cumulative[1:])
            cuts = self._word_cuts[n_parts] = balanced_cuts(cumulative, n_parts)
        return cuts


def factorize(X, n_topics, seed):
    """Nonnegative factorization ``tfidf(X) ~ W H`` with ``n_topics``
    components by scikit-learn's NMF (coordinate descent, NNDSVDa start, or
    random when ``K > min(D, V)``; at most :data:`FACTOR_ITER` iterations;
    ``seed`` gives its random state).

    On tf-idf weights, not counts: raw counts let the frequent words of a
    strongly correlated pair dominate, and the factorization then merges the
    pair (K = 10, D = 2,000, seeds 0-2: worst L1 of the factorization's
    topics 1.83 / 0.84 / 1.54 on counts, 0.55 / 0.49 / 0.53 on tf-idf). A
    word's idf and a document's norm are common to all topics and cancel in
    the draw of :meth:`TopicChain.from_factors`. Several factorizations
    keeping the smallest error were tried and rejected (user guide
    :ref:`ctm_merged`).

    Only the columns with counts are factorized; ``H`` is 0 on the others.
    Empty columns (a vocabulary fitted on a larger collection) add nothing
    to the fit but cost as much per column as the others: on 2,000
    documents with 5,000 used columns of 200,000, the start took over 400 s
    at K = 100. On a corpus without empty columns nothing changes.

    Returns ``W`` (D, K) and ``H`` (K, V), C-contiguous float64.
    """
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    used = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() > 0)
    if 0 < used.size < X.shape[1]:
        doc_weight, used_weight = factorize(X[:, used], n_topics, seed)
        topic_weight = np.zeros((used_weight.shape[0], X.shape[1]))
        topic_weight[:, used] = used_weight
        return doc_weight, topic_weight
    # errstate: on a corpus of one document NMF's reconstruction error (not
    # used here) is the square root of a rounding-negative number.
    # One BLAS thread, as in the sweeps (_parallel.one_blas_thread): the
    # coordinate descent calls BLAS on (K, K) and (D, K) blocks hundreds of
    # times, and OpenBLAS's threads spin between the calls. On the loaded
    # 2-core machine (D = 2,000, V = 5,000, 50 tokens per document) the
    # factorization took 132 s of wall time at K = 30 with its default
    # threads, 7.7 s with one, and was most of a short fit's time.
    with (ignoring_warnings(ConvergenceWarning), np.errstate(invalid="ignore"),
          one_blas_thread()):
        nmf = NMF(n_topics, init=None, solver="cd", max_iter=FACTOR_ITER,
                  random_state=int(seed.generate_state(1)[0]))
        doc_weight = nmf.fit_transform(TfidfTransformer().fit_transform(X))
    return (np.ascontiguousarray(doc_weight, dtype=np.float64),
            np.ascontiguousarray(nmf.components_, dtype=np.float64))


def infer_topics(tokens, phi, states, n_jobs=None, *, alpha=None, weights=None):
    """One sweep over ``tokens`` with the topics fixed at ``phi`` (V, K).

    The document side is a Dirichlet ``alpha`` (K,) or fixed ``weights``
    (D, K). Documents are independent here: blocks of documents run in
    threads with no shared state, and the result does not depend on
    ``n_jobs``.
    """
    n_docs = tokens.doc_topic.shape[0]
    bounds = balanced_cuts(tokens.doc_ptr, effective_n_jobs(n_jobs, n_docs))
    if weights is None:
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        map_ranges(lambda lo, hi: sample_fixed_topics(tokens, phi, alpha, states,
                                                      (lo, hi, 0, ALL_WORDS)), bounds)
    else:
        map_ranges(lambda lo, hi: sample_fixed_topics_weighted(tokens, phi, weights, states,
                                                               (lo, hi, 0, ALL_WORDS)), bounds)
