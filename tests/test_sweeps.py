"""Tests of the shared topic sweep and of the fast / multi-threaded LDA sweeps.

Oracle: the exact full conditional of one token computed in NumPy. A single
token ``i`` of document ``d`` is resampled many times by passing the kernels
``doc_ptr = [i, i + 1]`` and the row ``doc_topic[d:d + 1]`` (token offsets are
absolute, so the rest of document ``d`` stays in the counts); the conditional
given the other tokens does not depend on the token's current topic, so the
draws are i.i.d. from it and are compared with a chi-square test.
"""

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from sklearn_pgtm._base import random_topic_state
from sklearn_pgtm._kernels._fast_sweeps import (
    dense_sweep,
    lda_sweep,
    partition_documents,
    resolve_method,
    sparse_sweep,
)
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._sweeps import ORDERED_MIN_TOPICS, sample_topics

E1 = np.zeros(0)
E2 = np.zeros((0, 0))
N_DRAWS = 20000
P_MIN = 1e-4


def _corpus(n_docs=6, n_words=8, n_topics=5, seed=0, min_len=3, max_len=12):
    rng = np.random.default_rng(seed)
    lens = rng.integers(min_len, max_len + 1, n_docs)
    doc_ptr = np.zeros(n_docs + 1, dtype=np.int64)
    doc_ptr[1:] = np.cumsum(lens)
    word_ids = rng.integers(0, n_words, doc_ptr[-1]).astype(np.int32)
    topics, dt, wt, tt = random_topic_state(doc_ptr, word_ids, n_topics, n_words, seed)
    return doc_ptr, word_ids, topics, dt, wt, tt


def _recount(doc_ptr, word_ids, topics, n_words, n_topics):
    n_docs = doc_ptr.shape[0] - 1
    docs = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    dt = np.zeros((n_docs, n_topics), dtype=np.int32)
    wt = np.zeros((n_words, n_topics), dtype=np.int32)
    np.add.at(dt, (docs, topics), 1)
    np.add.at(wt, (word_ids, topics), 1)
    return dt, wt, wt.sum(axis=0).astype(np.int32)


def _reference(i, d, word_ids, topics, dt, wt, tt, alpha, beta, doc_weight=None,
               phi=None, eta=None, a_d=0.0, b_d=0.0, disc=0.0):
    """Exact conditional of token i (NumPy), counts excluding the token."""
    w, old = word_ids[i], topics[i]
    dt_ = dt[d].astype(float).copy()
    wt_ = wt[w].astype(float).copy()
    tt_ = tt.astype(float).copy()
    dt_[old] -= 1
    if phi is None:
        wt_[old] -= 1
        tt_[old] -= 1
    doc = doc_weight[d] if doc_weight is not None else dt_ + alpha
    word = phi[w] if phi is not None else (wt_ + beta) / (tt_ + beta * wt.shape[0])
    p = doc * word
    if eta is not None:
        rest = disc - eta[old]
        p = p * np.exp(a_d * eta - b_d * (eta**2 + 2 * eta * rest))
    return p / p.sum()


def _draw(kernel, K, n_draws, seed, i):
    """Resample token i n_draws times; ``kernel(doc_ptr, states)`` returns its topic."""
    states = make_streams(seed, 1)
    ptr = np.array([i, i + 1], dtype=np.int64)
    counts = np.zeros(K, dtype=np.int64)
    for _ in range(n_draws):
        counts[kernel(ptr, states)] += 1
    return counts


def _check(counts, p):
    keep = p * counts.sum() > 0
    assert np.all(counts[~keep] == 0)
    stat = chisquare(counts[keep], p[keep] * counts.sum())
    assert stat.pvalue > P_MIN, (counts, p)


@pytest.mark.parametrize("mode", ["lda", "doc_weight", "phi", "supervised"])
@pytest.mark.parametrize("K", [5, ORDERED_MIN_TOPICS + 3])  # natural and ordered search
def test_plain_sweep_conditional(mode, K):
    V = 8
    doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_words=V, n_topics=K, seed=1)
    rng = np.random.default_rng(2)
    alpha = rng.uniform(0.1, 1.0, K)
    beta = 0.3
    doc_weight = rng.dirichlet(np.ones(K), size=dt.shape[0]) if mode == "doc_weight" else None
    phi = rng.dirichlet(np.ones(V), size=K).T.copy() if mode == "phi" else None
    eta = rng.normal(0, 1.5, K) if mode == "supervised" else None
    n_docs = dt.shape[0]
    a = rng.normal(0, 1, n_docs)
    b = rng.uniform(0.1, 0.5, n_docs)
    disc = np.zeros(n_docs)
    if eta is not None:
        for d in range(n_docs):
            disc[d] = eta[topics[doc_ptr[d]:doc_ptr[d + 1]]].sum()
    d = 2
    for i in (doc_ptr[d], doc_ptr[d + 1] - 1):
        p = _reference(i, d, word_ids, topics, dt, wt, tt, alpha, beta, doc_weight, phi,
                       eta, a[d], b[d], disc[d])

        def kernel(ptr, states):
            sample_topics(
                ptr, word_ids, topics, dt[d:d + 1], wt, tt, alpha, beta, beta * V,
                E2 if doc_weight is None else doc_weight[d:d + 1],
                E2 if phi is None else phi, E1 if eta is None else eta,
                a[d:d + 1], b[d:d + 1], disc[d:d + 1], states,
            )
            return topics[i]

        counts = _draw(kernel, K, N_DRAWS, 3, i)
        _check(counts, p)
    # The counts are still consistent with the topics.
    if phi is None:
        dt2, wt2, tt2 = _recount(doc_ptr, word_ids, topics, V, K)
        np.testing.assert_array_equal(dt2, dt)
        np.testing.assert_array_equal(wt2, wt)
        np.testing.assert_array_equal(tt2, tt)


@pytest.mark.parametrize("method", ["dense", "dense_ordered", "sparse"])
def test_fast_sweep_conditional(method):
    # A sparse state: many topics, small beta, a few sweeps from random init.
    K, V = 12, 10
    doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_docs=8, n_words=V, n_topics=K,
                                                    seed=4, min_len=5, max_len=20)
    rng = np.random.default_rng(5)
    alpha = rng.uniform(0.05, 0.5, K)
    beta = 0.05
    states = make_streams(6, dt.shape[0])
    for _ in range(3):
        lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, alpha, beta, states,
                  method=method.replace("_ordered", ""))
    extra = (True,) if method == "dense_ordered" else ()
    kern = sparse_sweep if method == "sparse" else dense_sweep
    for d in (0, 3):
        for i in (doc_ptr[d], doc_ptr[d + 1] - 1):
            p = _reference(i, d, word_ids, topics, dt, wt, tt, alpha, beta)

            def kernel(ptr, states):
                kern(0, 1, ptr, word_ids, topics, dt[d:d + 1], wt, tt, alpha, beta,
                     beta * V, states, *extra)
                return topics[i]

            _check(_draw(kernel, K, N_DRAWS, 7 + i, i), p)


def test_fast_sweep_chains_match_plain():
    """Two-sample test: joint topics of two tokens after 3 whole sweeps from a
    fixed start, over many chains, plain vs sparse vs dense."""
    K, V = 4, 5
    doc_ptr, word_ids, topics0, dt0, wt0, tt0 = _corpus(n_docs=3, n_words=V, n_topics=K,
                                                        seed=8, min_len=2, max_len=4)
    alpha = np.array([0.1, 0.3, 0.5, 0.2])
    beta = 0.1
    tables = {}
    for method in ("plain", "dense", "sparse"):
        hist = np.zeros(K * K, dtype=np.int64)
        for c in range(3000):
            topics, dt, wt, tt = topics0.copy(), dt0.copy(), wt0.copy(), tt0.copy()
            states = make_streams([c, 99 if method == "plain" else 98], 3)
            for _ in range(3):
                lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, alpha, beta, states,
                          method=method)
            hist[topics[0] * K + topics[-1]] += 1
        tables[method] = hist
    for method in ("dense", "sparse"):
        table = np.vstack([tables["plain"], tables[method]])
        table = table[:, table.sum(axis=0) > 0]
        assert chi2_contingency(table).pvalue > P_MIN


@pytest.mark.parametrize("method", ["plain", "dense", "sparse"])
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_counts_consistent_and_reproducible(method, n_jobs):
    K, V = 30, 40
    out = []
    for _ in range(2):
        doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_docs=40, n_words=V, n_topics=K,
                                                        seed=10, min_len=1, max_len=30)
        states = make_streams(11, dt.shape[0])
        for _ in range(4):
            lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, np.full(K, 0.1), 0.01,
                      states, n_jobs=n_jobs, method=method)
        dt2, wt2, tt2 = _recount(doc_ptr, word_ids, topics, V, K)
        np.testing.assert_array_equal(dt2, dt)
        np.testing.assert_array_equal(wt2, wt)
        np.testing.assert_array_equal(tt2, tt)
        out.append(topics)
    np.testing.assert_array_equal(out[0], out[1])


def test_n_jobs_one_is_the_serial_sweep():
    K, V = 6, 10
    doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_docs=10, n_words=V, n_topics=K, seed=12)
    copy = [a.copy() for a in (topics, dt, wt, tt)]
    alpha = np.full(K, 0.2)
    lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, alpha, 0.1, make_streams(5, 10),
              n_jobs=1, method="plain")
    sample_topics(doc_ptr, word_ids, copy[0], copy[1], copy[2], copy[3], alpha, 0.1, 0.1 * V,
                  E2, E2, E1, E1, E1, E1, make_streams(5, 10))
    np.testing.assert_array_equal(topics, copy[0])
    # The plain method runs serially whatever n_jobs.
    serial = [a.copy() for a in _corpus(n_docs=10, n_words=V, n_topics=K, seed=12)[2:]]
    par = [a.copy() for a in serial]
    lda_sweep(doc_ptr, word_ids, *serial, alpha, 0.1, make_streams(5, 10), n_jobs=1,
              method="plain")
    lda_sweep(doc_ptr, word_ids, *par, alpha, 0.1, make_streams(5, 10), n_jobs=2,
              method="plain")
    for a, b in zip(serial, par):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method, K", [("dense", 8), ("dense", ORDERED_MIN_TOPICS + 10),
                                       ("sparse", 8)])
def test_partitioned_sweep_visits_every_slice_and_keeps_counts_exact(method, K):
    # Each token belongs to one (document block, word slice) cell, visited in
    # one sub-round: over a few sweeps most tokens move, and the counts stay
    # equal to a recount (threads never share a row).
    V = 30
    doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_docs=20, n_words=V, n_topics=K,
                                                    seed=21, min_len=5, max_len=25)
    alpha = np.full(K, 0.3)
    moved = np.zeros(word_ids.shape[0], dtype=bool)
    for sweep in range(5):
        before = topics.copy()
        lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, alpha, 0.05,
                  make_streams(sweep, 20), n_jobs=2, method=method)
        moved |= before != topics
    assert moved.mean() > 0.5  # every slice of the vocabulary is visited
    dt2, wt2, tt2 = _recount(doc_ptr, word_ids, topics, V, K)
    np.testing.assert_array_equal(dt2, dt)
    np.testing.assert_array_equal(wt2, wt)
    np.testing.assert_array_equal(tt2, tt)


def test_partitioned_sweep_matches_serial_in_distribution():
    """Two-sample test: joint topics of two tokens after 3 whole sweeps from a
    fixed start, over many chains, serial dense vs 2-thread partitioned."""
    K, V = 3, 6
    doc_ptr, word_ids, topics0, dt0, wt0, tt0 = _corpus(n_docs=4, n_words=V, n_topics=K,
                                                        seed=30, min_len=3, max_len=5)
    alpha = np.array([0.2, 0.5, 0.3])
    beta = 0.5  # large beta: the stale totals matter little, as on real corpora
    tables = []
    for n_jobs in (1, 2):
        hist = np.zeros(K * K, dtype=np.int64)
        for c in range(3000):
            topics, dt, wt, tt = topics0.copy(), dt0.copy(), wt0.copy(), tt0.copy()
            states = make_streams([c, 50 + n_jobs], 4)
            for _ in range(3):
                lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, alpha, beta, states,
                          n_jobs=n_jobs, method="dense")
            hist[topics[0] * K + topics[-1]] += 1
        tables.append(hist)
    table = np.vstack(tables)
    table = table[:, table.sum(axis=0) > 0]
    assert chi2_contingency(table).pvalue > P_MIN


def test_partition_and_method_rules():
    doc_ptr = np.array([0, 5, 5, 10, 30, 31], dtype=np.int64)
    b = partition_documents(doc_ptr, 2)
    assert b[0] == 0 and b[-1] == 5 and np.all(np.diff(b) >= 0)
    assert resolve_method("auto", 20) == "dense"
    assert resolve_method("auto", 100) == "dense"
    assert resolve_method("auto", 1000) == "sparse"
    with pytest.raises(ValueError, match="method"):
        resolve_method("fast", 10)


def test_word_bounds_cache_never_serves_another_array():
    # The cuts decide the partitioned sweep's order: a new token array must
    # get its own cuts even when it reuses the id of a freed one.
    from sklearn_pgtm._kernels import _fast_sweeps

    skewed = np.repeat(np.arange(10, dtype=np.int64), [100] + [1] * 9)
    uniform_ids = np.repeat(np.arange(10, dtype=np.int64), 11)
    first = _fast_sweeps._word_bounds(skewed, 10, 2)
    np.testing.assert_array_equal(first, _fast_sweeps.partition_words(skewed, 10, 2))
    assert _fast_sweeps._word_bounds(skewed, 10, 2) is first  # remembered
    # Plant the skewed array's entry under the uniform array's key, as if the
    # uniform array had been allocated at the freed array's address.
    key = (id(uniform_ids), uniform_ids.shape[0], 10, 2)
    _fast_sweeps._WORD_BOUNDS_CACHE[key] = _fast_sweeps._WORD_BOUNDS_CACHE[
        (id(skewed), skewed.shape[0], 10, 2)]
    np.testing.assert_array_equal(_fast_sweeps._word_bounds(uniform_ids, 10, 2),
                                  _fast_sweeps.partition_words(uniform_ids, 10, 2))
    assert not np.array_equal(first, _fast_sweeps.partition_words(uniform_ids, 10, 2))


def test_eblda_n_jobs_reproducible():
    from sklearn_pgtm import EmpiricalBayesLDA

    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(30, 15))
    X[:, 0] += 1
    params = dict(n_components=3, n_samples=20, burn_in=10, n_final_iter=4, random_state=0)
    a = EmpiricalBayesLDA(n_jobs=2, **params).fit(X)
    b = EmpiricalBayesLDA(n_jobs=2, **params).fit(X)
    c = EmpiricalBayesLDA(n_jobs=1, **params).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert np.all(np.isfinite(a.components_))
    # The parallel chain (partitioned sweep) is a different chain than the serial one.
    assert not np.array_equal(a.components_, c.components_)


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
    # n_jobs is capped by the number of documents and of words.
    K = 3
    for n_docs, V in [(2, 1), (5, 2)]:
        doc_ptr, word_ids, topics, dt, wt, tt = _corpus(n_docs=n_docs, n_words=V, n_topics=K,
                                                        seed=3)
        for method in ("dense", "sparse"):
            lda_sweep(doc_ptr, word_ids, topics, dt, wt, tt, np.full(K, 0.5), 0.1,
                      make_streams(0, n_docs), n_jobs=4, method=method)
            dt2, wt2, tt2 = _recount(doc_ptr, word_ids, topics, V, K)
            np.testing.assert_array_equal(wt2, wt)
            np.testing.assert_array_equal(tt2, tt)
