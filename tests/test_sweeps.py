"""Tests of the collapsed topic sweeps (every entry point) and of the
partitioned multi-threaded driver.

Oracle: the exact full conditional of one token computed in NumPy. A single
token ``i`` of document ``d`` is resampled many times by passing the kernels
the block ``(d, d + 1)`` of a one-token view of the corpus (``doc_ptr = [i,
i + 1]`` over the row ``doc_topic[d:d + 1]``, token offsets absolute, so the
rest of document ``d`` stays in the counts); the conditional given the other
tokens does not depend on the token's current topic, so the draws are i.i.d.
from it and are compared with a chi-square test.
"""

import itertools

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp
from scipy.stats import chi2_contingency, chisquare

from sklearn_pgtm._chain import TopicChain, infer_topics, resolve_lda_method
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._sweeps import (
    ALL_WORDS,
    ORDERED_MIN_TOPICS,
    BinaryResponse,
    TokenTopics,
    sample_fixed_topics,
    sample_fixed_topics_weighted,
    sample_lda,
    sample_lda_sparse,
    sample_supervised,
    sample_weighted,
    word_topic_lists,
)
from sklearn_pgtm._parallel import balanced_cuts

N_DRAWS = 20000
P_MIN = 1e-4


def _corpus(n_docs=6, n_words=8, n_topics=5, seed=0, min_len=3, max_len=12):
    """A random chain: returns the TopicChain."""
    rng = np.random.default_rng(seed)
    lens = rng.integers(min_len, max_len + 1, n_docs)
    doc_ptr = np.zeros(n_docs + 1, dtype=np.int64)
    doc_ptr[1:] = np.cumsum(lens)
    word_ids = rng.integers(0, n_words, doc_ptr[-1]).astype(np.int32)
    return TopicChain.random(doc_ptr, word_ids, n_topics, n_words, seed)


def _recount(chain):
    t = chain.tokens
    n_docs, n_topics = t.doc_topic.shape
    docs = np.repeat(np.arange(n_docs), np.diff(t.doc_ptr))
    dt = np.zeros((n_docs, n_topics), dtype=np.int32)
    wt = np.zeros(chain.word_topic.shape, dtype=np.int32)
    np.add.at(dt, (docs, t.topics), 1)
    np.add.at(wt, (t.word_ids, t.topics), 1)
    return dt, wt, wt.sum(axis=0).astype(np.int32)


def _assert_counts_exact(chain):
    dt, wt, tt = _recount(chain)
    np.testing.assert_array_equal(dt, chain.tokens.doc_topic)
    np.testing.assert_array_equal(wt, chain.word_topic)
    np.testing.assert_array_equal(tt, chain.topic_total)


def _reference(i, d, chain, alpha, beta, doc_weight=None, phi=None, eta=None, a_d=0.0,
               b_d=0.0, disc=0.0):
    """Exact conditional of token i (NumPy), counts excluding the token."""
    t = chain.tokens
    w, old = t.word_ids[i], t.topics[i]
    dt_ = t.doc_topic[d].astype(float).copy()
    wt_ = chain.word_topic[w].astype(float).copy()
    tt_ = chain.topic_total.astype(float).copy()
    dt_[old] -= 1
    if phi is None:
        wt_[old] -= 1
        tt_[old] -= 1
    doc = doc_weight[d] if doc_weight is not None else dt_ + alpha
    word = phi[w] if phi is not None else (wt_ + beta) / (tt_ + beta * chain.n_words)
    p = doc * word
    if eta is not None:
        rest = disc - eta[old]
        p = p * np.exp(a_d * eta - b_d * (eta**2 + 2 * eta * rest))
    return p / p.sum()


def _one_token(chain, i, d):
    """The chain's tokens seen as a corpus of one document holding token i."""
    t = chain.tokens
    return TokenTopics(np.array([i, i + 1], dtype=np.int64), t.word_ids, t.topics,
                       t.doc_topic[d:d + 1])


def _draw(kernel, K, n_draws, seed):
    """Resample a token n_draws times; ``kernel(states)`` returns its topic."""
    states = make_streams(seed, 1)
    counts = np.zeros(K, dtype=np.int64)
    for _ in range(n_draws):
        counts[kernel(states)] += 1
    return counts


def _check(counts, p):
    keep = p * counts.sum() > 0
    assert np.all(counts[~keep] == 0)
    stat = chisquare(counts[keep], p[keep] * counts.sum())
    assert stat.pvalue > P_MIN, (counts, p)


MODES = ["lda", "sparse", "supervised", "weighted", "fixed", "fixed_weighted"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("K", [5, ORDERED_MIN_TOPICS + 3])  # natural and ordered search
def test_entry_point_samples_the_exact_conditional(mode, K):
    V = 8
    chain = _corpus(n_words=V, n_topics=K, seed=1)
    t = chain.tokens
    rng = np.random.default_rng(2)
    alpha = rng.uniform(0.1, 1.0, K)
    beta = 0.3
    n_docs = chain.n_docs
    weights = (rng.dirichlet(np.ones(K), size=n_docs)
               if mode in ("weighted", "fixed_weighted") else None)
    phi = rng.dirichlet(np.ones(V), size=K).T.copy() if mode.startswith("fixed") else None
    eta = rng.normal(0, 1.5, K) if mode == "supervised" else None
    a = rng.normal(0, 1, n_docs)
    b = rng.uniform(0.1, 0.5, n_docs)
    disc = np.zeros(n_docs)
    if eta is not None:
        for d in range(n_docs):
            disc[d] = eta[t.topics[t.doc_ptr[d]:t.doc_ptr[d + 1]]].sum()
    block = (0, 1, 0, ALL_WORDS)
    d = 2
    for i in (t.doc_ptr[d], t.doc_ptr[d + 1] - 1):
        p = _reference(i, d, chain, alpha, beta, weights, phi, eta, a[d], b[d], disc[d])
        one = _one_token(chain, i, d)
        wt, tt = chain.word_topic, chain.topic_total

        def kernel(states):
            if mode == "lda":
                sample_lda(one, wt, tt, alpha, beta, states, block)
            elif mode == "sparse":
                sample_lda_sparse(one, wt, tt, alpha, beta, states, block,
                                  word_topic_lists(wt, wt.sum(axis=1)))
            elif mode == "supervised":
                response = BinaryResponse(eta, a[d:d + 1], b[d:d + 1], disc[d:d + 1])
                sample_supervised(one, wt, tt, alpha, beta, response, states, block)
            elif mode == "weighted":
                sample_weighted(one, wt, tt, weights[d:d + 1], beta, states, block)
            elif mode == "fixed":
                sample_fixed_topics(one, phi, alpha, states, block)
            else:
                sample_fixed_topics_weighted(one, phi, weights[d:d + 1], states, block)
            return t.topics[i]

        n_draws = N_DRAWS // 4 if mode == "sparse" else N_DRAWS
        _check(_draw(kernel, K, n_draws, 3), p)
        if mode == "supervised":
            # The discriminant follows the token.
            assert np.isclose(disc[d], eta[t.topics[t.doc_ptr[d]:t.doc_ptr[d + 1]]].sum())
    if phi is None:
        _assert_counts_exact(chain)


def test_dense_and_sparse_chains_agree_in_distribution():
    """Two-sample test: joint topics of two tokens after 3 whole sweeps from a
    fixed start, over many chains, dense vs sparse."""
    K, V = 4, 5
    alpha = np.array([0.1, 0.3, 0.5, 0.2])
    tables = []
    for method in ("dense", "sparse"):
        hist = np.zeros(K * K, dtype=np.int64)
        for c in range(3000):
            chain = _corpus(n_docs=3, n_words=V, n_topics=K, seed=8, min_len=2, max_len=4)
            chain.states = make_streams([c, 99 if method == "dense" else 98], 3)
            for _ in range(3):
                chain.sweep_lda(alpha, 0.1, method=method)
            hist[chain.tokens.topics[0] * K + chain.tokens.topics[-1]] += 1
        tables.append(hist)
    table = np.vstack(tables)
    table = table[:, table.sum(axis=0) > 0]
    assert chi2_contingency(table).pvalue > P_MIN


def _sweep(chain, kind, n_jobs, rng_seed=0):
    K = chain.n_topics
    rng = np.random.default_rng(rng_seed)
    if kind in ("dense", "sparse"):
        chain.sweep_lda(np.full(K, 0.1), 0.01, n_jobs=n_jobs, method=kind)
    elif kind == "supervised":
        n_docs = chain.n_docs
        eta = rng.normal(0, 1, K)
        t = chain.tokens
        disc = np.array([eta[t.topics[t.doc_ptr[d]:t.doc_ptr[d + 1]]].sum()
                         for d in range(n_docs)])
        response = BinaryResponse(eta, rng.normal(0, 1, n_docs), rng.uniform(0, .1, n_docs),
                                  disc)
        chain.sweep_supervised(np.full(K, 0.1), 0.01, response, n_jobs=n_jobs)
    else:
        chain.sweep_weighted(rng.dirichlet(np.ones(K), size=chain.n_docs), 0.01,
                             n_jobs=n_jobs)


@pytest.mark.parametrize("kind", ["dense", "sparse", "supervised", "weighted"])
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_counts_consistent_and_reproducible(kind, n_jobs):
    out = []
    for _ in range(2):
        chain = _corpus(n_docs=40, n_words=40, n_topics=30, seed=10, min_len=1, max_len=30)
        for s in range(4):
            _sweep(chain, kind, n_jobs, s)
        _assert_counts_exact(chain)
        out.append(chain.tokens.topics.copy())
    np.testing.assert_array_equal(out[0], out[1])


def test_one_thread_is_the_serial_kernel():
    K = 6
    chain = _corpus(n_docs=10, n_words=10, n_topics=K, seed=12)
    copy = _corpus(n_docs=10, n_words=10, n_topics=K, seed=12)
    alpha = np.full(K, 0.2)
    chain.sweep_lda(alpha, 0.1, n_jobs=1, method="dense")
    sample_lda(copy.tokens, copy.word_topic, copy.topic_total, alpha, 0.1, copy.states,
               (0, copy.n_docs, 0, ALL_WORDS))
    np.testing.assert_array_equal(chain.tokens.topics, copy.tokens.topics)
    assert chain.n_sweeps == 1


@pytest.mark.parametrize("K", [8, ORDERED_MIN_TOPICS + 10])
def test_block_sweep_is_its_documents_swept_one_by_one(K):
    # The core computes the documents' search orders a chunk of documents
    # (256) at a time, before sweeping them; that must be the same as
    # computing each document's order at its start: one call over 600
    # documents draws exactly what 600 one-document calls draw.
    whole = _corpus(n_docs=600, n_words=30, n_topics=K, seed=13, min_len=1, max_len=20)
    parts = _corpus(n_docs=600, n_words=30, n_topics=K, seed=13, min_len=1, max_len=20)
    alpha = np.full(K, 0.3)
    for _ in range(2):
        sample_lda(whole.tokens, whole.word_topic, whole.topic_total, alpha, 0.05,
                   whole.states, (0, whole.n_docs, 0, ALL_WORDS))
        for d in range(parts.n_docs):
            sample_lda(parts.tokens, parts.word_topic, parts.topic_total, alpha, 0.05,
                       parts.states, (d, d + 1, 0, ALL_WORDS))
    np.testing.assert_array_equal(whole.tokens.topics, parts.tokens.topics)
    _assert_counts_exact(whole)


@pytest.mark.parametrize("kind, K", [("dense", 8), ("dense", ORDERED_MIN_TOPICS + 10),
                                     ("sparse", 8), ("supervised", 8), ("weighted", 8)])
def test_partitioned_sweep_visits_every_slice_and_keeps_counts_exact(kind, K):
    # Each token belongs to one (document block, word slice) cell, visited in
    # one sub-round: over a few sweeps most tokens move, and the counts stay
    # equal to a recount (threads never share a row).
    chain = _corpus(n_docs=20, n_words=30, n_topics=K, seed=21, min_len=5, max_len=25)
    moved = np.zeros(chain.n_tokens, dtype=bool)
    for s in range(5):
        before = chain.tokens.topics.copy()
        _sweep(chain, kind, 2, s)
        moved |= before != chain.tokens.topics
    assert moved.mean() > 0.5
    _assert_counts_exact(chain)


def test_partitioned_sweep_matches_serial_in_distribution():
    """Two-sample test: joint topics of two tokens after 20 whole sweeps from a
    fixed start (the chains have forgotten it: the partitioned sweep visits a
    document's tokens in another order, so the two differ in their first
    sweeps), over many chains, serial vs 2-thread partitioned."""
    K = 3
    alpha = np.array([0.2, 0.5, 0.3])
    tables = []
    for n_jobs in (1, 2):
        hist = np.zeros(K * K, dtype=np.int64)
        for c in range(3000):
            chain = _corpus(n_docs=4, n_words=6, n_topics=K, seed=30, min_len=3, max_len=5)
            chain.states = make_streams([c, 50 + n_jobs], 4)
            for _ in range(20):
                # The only approximation is the staleness of the topic totals
                # within a sub-round: on this tiny corpus a change of one token
                # is a large change of C_k, so a large beta (V beta = 30 against
                # totals of ~5) keeps it as small as on real corpora, where
                # C_k is of order N / K.
                chain.sweep_lda(alpha, 5.0, n_jobs=n_jobs, method="dense")
            hist[chain.tokens.topics[0] * K + chain.tokens.topics[-1]] += 1
        tables.append(hist)
    table = np.vstack(tables)
    table = table[:, table.sum(axis=0) > 0]
    assert chi2_contingency(table).pvalue > P_MIN


def test_partition_and_method_rules():
    doc_ptr = np.array([0, 5, 5, 10, 30, 31], dtype=np.int64)
    b = balanced_cuts(doc_ptr, 2)
    assert b[0] == 0 and b[-1] == 5 and np.all(np.diff(b) >= 0)
    assert resolve_lda_method("auto", 20) == "dense"
    assert resolve_lda_method("auto", 100) == "dense"
    assert resolve_lda_method("auto", 1000) == "sparse"
    with pytest.raises(ValueError, match="method"):
        resolve_lda_method("plain", 10)


def test_vocabulary_cuts_belong_to_their_chain():
    # The cuts decide the partitioned sweep's order, hence reproducibility:
    # each chain computes its own from its own tokens.
    skewed = _corpus(n_docs=20, n_words=10, n_topics=3, seed=1)
    skewed.tokens.word_ids[:] = 0
    skewed.tokens.word_ids[-9:] = np.arange(1, 10)
    other = _corpus(n_docs=20, n_words=10, n_topics=3, seed=1)
    a = skewed._vocabulary_cuts(2)
    b = other._vocabulary_cuts(2)
    assert a[1] == 1 and not np.array_equal(a, b)
    assert skewed._vocabulary_cuts(2) is a


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_word_lists_are_refilled_from_the_current_counts(n_jobs):
    # The chain keeps SparseLDA's lists between sweeps and refills them by
    # word slices before each sparse sweep: after dense sweeps and a
    # permutation of the topics (as EmpiricalBayesLDA's alignment does), the
    # lists hold exactly the nonzero topics of every word.
    chain = _corpus(n_docs=30, n_words=25, n_topics=12, seed=4, min_len=1, max_len=30)
    alpha = np.full(12, 0.1)
    chain.sweep_lda(alpha, 0.05, n_jobs=n_jobs, method="sparse")
    for _ in range(2):
        chain.sweep_lda(alpha, 0.05, n_jobs=n_jobs, method="dense")
    perm = np.random.default_rng(0).permutation(12)
    chain.word_topic[:] = chain.word_topic[:, perm]
    chain.topic_total[:] = chain.topic_total[perm]
    kept = chain._word_lists
    ptr, lists, length = chain._current_word_lists(n_jobs)
    assert lists is kept[1]
    for w in range(chain.n_words):
        np.testing.assert_array_equal(lists[ptr[w]:ptr[w] + length[w]],
                                      np.flatnonzero(chain.word_topic[w] > 0))
        assert ptr[w + 1] - ptr[w] == min(12, chain.word_frequencies[w])


def test_fixed_topic_inference_does_not_depend_on_n_jobs():
    chain = _corpus(n_docs=30, n_words=12, n_topics=4, seed=5)
    phi = np.random.default_rng(0).dirichlet(np.ones(12), size=4).T.copy()
    results = []
    for n_jobs in (1, 2, 3):
        t = chain.tokens
        tokens = TokenTopics(t.doc_ptr, t.word_ids, t.topics.copy(), t.doc_topic.copy())
        states = make_streams(3, chain.n_docs)
        for _ in range(3):
            infer_topics(tokens, phi, states, n_jobs, alpha=np.full(4, 0.3))
        results.append(tokens.topics)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


def test_exp_nonpositive_matches_math_exp():
    from numba import njit

    from sklearn_pgtm._kernels._intrinsics import exp_nonpositive

    @njit
    def apply(x, out):
        for i in range(x.shape[0]):
            out[i] = exp_nonpositive(x[i])

    rng = np.random.default_rng(0)
    x = -np.concatenate([rng.uniform(0, 700, 200_000), rng.uniform(0, 1, 200_000),
                         rng.uniform(0, 1e-12, 1000), [0.0, 5e-324, 0.5 * np.log(2), 699.999]])
    out = np.empty_like(x)
    apply(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=4e-16, atol=0)
    # Below the floor: exp(-700), never 0, inf or NaN.
    apply(np.array([-701.0, -1e300, -np.inf]), out[:3])
    np.testing.assert_allclose(out[:3], np.exp(-700.0), rtol=4e-16)


def test_more_threads_than_words_or_documents():
    # The number of threads is capped by the number of documents and of words.
    for n_docs, V in [(2, 1), (5, 2)]:
        for kind in ("dense", "sparse"):
            chain = _corpus(n_docs=n_docs, n_words=V, n_topics=3, seed=3)
            _sweep(chain, kind, 4)
            _assert_counts_exact(chain)


@pytest.mark.parametrize("n_present", [0, 1, 5, 64, 65, 200])
def test_count_order_is_decreasing_count_then_topic_order(n_present):
    from sklearn_pgtm._kernels._sweeps import _count_order

    rng = np.random.default_rng(n_present)
    counts = np.zeros(300, dtype=np.int32)
    counts[rng.choice(300, n_present, replace=False)] = rng.integers(1, 6, n_present)
    out = np.empty(300, dtype=np.int64)
    _count_order(counts, out)
    assert sorted(out) == list(range(300))
    assert np.all(np.diff(counts[out]) <= 0)
    if n_present <= 64:  # by insertion: ties and absent topics in topic order
        np.testing.assert_array_equal(out, np.argsort(-counts, kind="stable"))


# --------------------------------------------------------------------------
# Whole sweeps against an enumerated posterior. The tests above resample one
# token of a one-token view, so the running state a sweep carries from token
# to token (coefficients, SparseLDA's buckets and lists, the binary factor's
# weights and pair rows) is never read after a move; here it is.
# --------------------------------------------------------------------------


def _enumerated_log_joint(doc_ptr, word_ids, n_topics, n_words, alpha, beta):
    """Every topic assignment of a tiny corpus (S, N) and its collapsed LDA
    log joint log p(w, z | alpha, beta), and each token's document."""
    n_docs = len(doc_ptr) - 1
    docs = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    states = np.array(list(itertools.product(range(n_topics), repeat=len(word_ids))))
    onehot = np.eye(n_topics)[states]  # (S, N, K)
    doc = np.stack([onehot[:, docs == d].sum(axis=1) for d in range(n_docs)], axis=1)
    word = np.stack([onehot[:, word_ids == w].sum(axis=1) for w in range(n_words)], axis=1)
    log_p = (gammaln(doc + alpha).sum(axis=(1, 2)) + gammaln(word + beta).sum(axis=(1, 2))
             - gammaln(word.sum(axis=1) + n_words * beta).sum(axis=1))
    return states, log_p, docs


def _visits(sweep, topics, n_topics, n_sweeps):
    """Histogram of the states (base-K index of the topics) after every
    second of ``n_sweeps`` calls of ``sweep()`` (thinned: successive sweeps
    are correlated)."""
    index = n_topics ** np.arange(len(topics))[::-1]
    visits = np.zeros(n_topics ** len(topics), dtype=np.int64)
    for s in range(n_sweeps):
        sweep()
        if s % 2 == 0:
            visits[topics @ index] += 1
    return visits


def _pooled_chi_square(visits, log_p, pool_below=5.0):
    """Chi-square p-value of ``visits`` against exp(log_p) normalized, the
    rarest states pooled into one cell expecting at least ``pool_below``."""
    expected = np.exp(log_p - logsumexp(log_p)) * visits.sum()
    order = np.argsort(expected)
    pooled = np.searchsorted(np.cumsum(expected[order]), pool_below)
    e = np.append(expected[order][:pooled + 1].sum(), expected[order][pooled + 1:])
    o = np.append(visits[order][:pooled + 1].sum(), visits[order][pooled + 1:])
    return chisquare(o, e).pvalue


@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_whole_sweeps_visit_the_enumerated_lda_posterior(method):
    # Two documents, seven tokens, repeated words: the states visited by
    # whole sweeps against the collapsed posterior over all 3^7 assignments.
    # (A SparseLDA sweep that left a moved token's coefficient stale passed
    # every other test of this file.)
    K, V, alpha, beta = 3, 3, np.array([0.3, 0.5, 0.8]), 0.4
    word_ids = np.array([0, 0, 1, 2, 1, 1, 2], dtype=np.int32)
    doc_ptr = np.array([0, 4, 7], dtype=np.int64)
    states, log_p, _ = _enumerated_log_joint(doc_ptr, word_ids, K, V, alpha, beta)
    chain = TopicChain.random(doc_ptr, word_ids, K, V, 0)
    t, wt, tt = chain.tokens, chain.word_topic, chain.topic_total
    lists = word_topic_lists(wt, wt.sum(axis=1))
    stream = make_streams(7, 2)
    block = (0, 2, 0, ALL_WORDS)
    if method == "dense":
        def sweep():
            sample_lda(t, wt, tt, alpha, beta, stream, block)
    else:
        def sweep():
            sample_lda_sparse(t, wt, tt, alpha, beta, stream, block, lists)
    visits = _visits(sweep, t.topics, K, 60000)
    assert _pooled_chi_square(visits, log_p) > P_MIN
    _assert_counts_exact(chain)


def test_supervised_whole_sweeps_visit_the_enumerated_posterior():
    # Binary Gibbs sLDA: the joint is the LDA joint times exp(a_d s_d - b_d
    # s_d^2) per document, s_d = sum_n eta_{z_dn} (the per-token factor is its
    # conditional). Two documents with different b_d, so that the pair rows
    # of one document are wrong for the next, and moves inside a document
    # change the weights of the tokens after them. (Pair rows kept across
    # documents, or the document's weights not refreshed after a move,
    # passed every other test of the sweeps.)
    K, V, alpha, beta = 3, 3, np.array([0.3, 0.5, 0.8]), 0.4
    word_ids = np.array([0, 0, 1, 2, 1, 1], dtype=np.int32)
    doc_ptr = np.array([0, 3, 6], dtype=np.int64)
    states, log_p, docs = _enumerated_log_joint(doc_ptr, word_ids, K, V, alpha, beta)
    eta = np.array([-1.5, 0.4, 1.2])
    a = np.array([0.6, -0.4])
    b = np.array([0.05, 0.6])
    s = np.stack([eta[states[:, docs == d]].sum(axis=1) for d in range(2)], axis=1)
    log_p = log_p + (a * s - b * s ** 2).sum(axis=1)
    chain = TopicChain.random(doc_ptr, word_ids, K, V, 0)
    t = chain.tokens
    disc = np.array([eta[t.topics[doc_ptr[d]:doc_ptr[d + 1]]].sum() for d in range(2)])
    response = BinaryResponse(eta, a, b, disc)
    stream = make_streams(5, 2)

    def sweep():
        sample_supervised(t, chain.word_topic, chain.topic_total, alpha, beta, response,
                          stream, (0, 2, 0, ALL_WORDS))

    visits = _visits(sweep, t.topics, K, 60000)
    assert _pooled_chi_square(visits, log_p) > P_MIN
    np.testing.assert_allclose(disc, [eta[t.topics[doc_ptr[d]:doc_ptr[d + 1]]].sum()
                                      for d in range(2)])
    _assert_counts_exact(chain)


# The starts of a chain against their stated distributions: TopicChain.random
# with a (V, K) topic-word prior draws a token's topic in proportion to its
# word's prior (a seed word starts in its topic), from_factors in proportion
# to W[d, k] H[k, w]. Only fits' end results were tested: a seeded chain
# started uniform, or a factorized start that ignored H, passed (mutation
# testing). Chi-square tests on many tokens of a few words.
_PER_CELL = 6000


def _start_corpus(n_docs, n_words):
    # Every document holds _PER_CELL tokens of every word, in order.
    word_ids = np.tile(np.repeat(np.arange(n_words, dtype=np.int32), _PER_CELL), n_docs)
    doc_ptr = np.arange(n_docs + 1, dtype=np.int64) * (n_words * _PER_CELL)
    return doc_ptr, word_ids


def _cell_counts(chain, d, w, n_topics):
    t = chain.tokens
    lo, hi = t.doc_ptr[d], t.doc_ptr[d + 1]
    mask = t.word_ids[lo:hi] == w
    return np.bincount(t.topics[lo:hi][mask], minlength=n_topics)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeded_chain_starts_in_proportion_to_the_prior(seed):
    V, K = 3, 4
    beta = np.array([[5.0, 0.01, 0.01, 0.01],   # a seed word of topic 0
                     [0.1, 0.1, 0.1, 2.0],       # a seed word of topic 3
                     [0.2, 0.4, 0.6, 0.8]])      # (V, K)
    doc_ptr, word_ids = _start_corpus(2, V)
    chain = TopicChain.random(doc_ptr, word_ids, K, V, seed, beta=beta)
    for d in range(2):
        for w in range(V):
            counts = _cell_counts(chain, d, w, K)
            expected = beta[w] / beta[w].sum() * counts.sum()
            assert chisquare(counts, expected).pvalue > 1e-4, (d, w, counts, expected)
    # Counts consistent with the topics.
    np.testing.assert_array_equal(chain.topic_total, np.bincount(chain.tokens.topics,
                                                                 minlength=K))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factorized_start_draws_in_proportion_to_w_times_h(seed):
    D, V, K = 2, 3, 3
    W = np.array([[1.0, 0.2, 0.5], [0.1, 2.0, 1.0]])
    H = np.array([[0.5, 1.0, 0.05], [2.0, 0.1, 1.0], [0.3, 0.3, 3.0]])  # (K, V)
    doc_ptr, word_ids = _start_corpus(D, V)
    chain = TopicChain.from_factors(doc_ptr, word_ids, W, H, seed)
    for d in range(D):
        for w in range(V):
            counts = _cell_counts(chain, d, w, K)
            p = W[d] * H[:, w]
            expected = p / p.sum() * counts.sum()
            assert chisquare(counts, expected).pvalue > 1e-4, (d, w, counts, expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("K", [2, 5])
def test_random_chain_starts_uniform_over_all_topics(seed, K):
    doc_ptr, word_ids = _start_corpus(2, 2)
    chain = TopicChain.random(doc_ptr, word_ids, K, 2, seed)
    counts = np.bincount(chain.tokens.topics, minlength=K)
    assert counts.shape[0] == K
    assert chisquare(counts).pvalue > 1e-4, counts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factorized_start_is_uniform_where_every_product_is_zero(seed):
    # Word 1 has H[:, 1] = 0 (a word the factorization gave no weight): its
    # tokens start uniform over the topics (topic 0 for all passed every test).
    W = np.array([[1.0, 0.2, 0.5, 0.1], [0.1, 2.0, 1.0, 0.3]])
    H = np.array([[0.5, 0.0], [2.0, 0.0], [0.3, 0.0], [1.0, 0.0]])
    doc_ptr, word_ids = _start_corpus(2, 2)
    chain = TopicChain.from_factors(doc_ptr, word_ids, W, H, seed)
    for d in range(2):
        counts = _cell_counts(chain, d, 1, 4)
        assert chisquare(counts).pvalue > 1e-4, (d, counts)
