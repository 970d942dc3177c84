"""DynamicTopicModel: kernels against independent oracles (dense Gaussian
conditioning for FFBS, quadrature of the exact posterior of one (topic, word)
time series, NumPy references, a Geweke test of the composed sampler),
recovery from corpora drawn from the model, and the scikit-learn conventions."""

import datetime

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import expit, log_expit

from sklearn_pgtm import DynamicTopicModel
from sklearn_pgtm._dtm import (
    _dirichlet_matched_prior,
    _draw_chain_variance,
    _sample_topics_by_slice,
)
from sklearn_pgtm._kernels._dtm import (
    count_slice_topic_words,
    sample_topic_word_logits,
    split_tokens_in_half,
    sum_squared_steps,
    topic_word_probabilities,
)
from sklearn_pgtm._kernels._linear_gaussian import scalar_ffbs
from sklearn_pgtm._kernels._polyagamma import PG_AUTO, PG_EXACT
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._stick_breaking import stick_breaking


def _batch_se(x, n_batches=50):
    """Standard error of the mean of a (possibly autocorrelated) chain, by batch means."""
    x = np.asarray(x, dtype=float)
    n = (x.shape[0] // n_batches) * n_batches
    means = x[:n].reshape(n_batches, -1, *x.shape[1:]).mean(axis=1)
    return means.std(axis=0, ddof=1) / np.sqrt(n_batches)


# --------------------------------------------------------------- scalar FFBS
def test_scalar_ffbs_matches_dense_gaussian_conditioning():
    prior_mean, prior_var, step_var = 0.3, 2.0, 0.5
    precision = np.array([1.0, 0.0, 2.5, 0.3, 0.0, 4.0])
    linear = np.array([0.5, 0.0, -2.0, 0.7, 0.0, 1.5])
    n = precision.size
    # Dense oracle: prior covariance of the random walk, then Gaussian conditioning.
    idx = np.arange(n)
    cov0 = prior_var + step_var * np.minimum.outer(idx, idx)
    prec0 = np.linalg.inv(cov0)
    post_cov = np.linalg.inv(prec0 + np.diag(precision))
    post_mean = post_cov @ (prec0 @ np.full(n, prior_mean) + linear)

    n_draws = 20000
    state = make_streams(1, 1)[0]
    fm, fv, out = np.empty(n), np.empty(n), np.empty(n)
    draws = np.empty((n_draws, n))
    for r in range(n_draws):
        scalar_ffbs(precision, linear, prior_mean, prior_var, step_var, state, fm, fv, out)
        draws[r] = out
    se_mean = np.sqrt(np.diag(post_cov) / n_draws)
    assert np.all(np.abs(draws.mean(axis=0) - post_mean) < 4.5 * se_mean)
    emp_cov = np.cov(draws.T)
    sd = np.sqrt(np.diag(post_cov))
    se_cov = np.sqrt((np.outer(sd, sd) ** 2 + post_cov ** 2) / n_draws)
    assert np.all(np.abs(emp_cov - post_cov) < 4.5 * se_cov)


def test_scalar_ffbs_single_step_and_empty():
    state = make_streams(2, 1)[0]
    out = np.empty(1)
    draws = np.empty(20000)
    for r in range(draws.size):
        scalar_ffbs(np.array([3.0]), np.array([1.2]), -0.5, 0.5, 0.1, state,
                    np.empty(1), np.empty(1), out)
        draws[r] = out[0]
    var = 1.0 / (1.0 / 0.5 + 3.0)
    mean = var * (-0.5 / 0.5 + 1.2)
    assert abs(draws.mean() - mean) < 4.5 * np.sqrt(var / draws.size)
    assert abs(draws.var() / var - 1.0) < 0.05
    scalar_ffbs(np.zeros(0), np.zeros(0), 0.0, 1.0, 1.0, state, np.empty(0), np.empty(0),
                np.empty(0))  # no slice: nothing to do, no error


# ------------------------------------------------------ the (k, v) cell update
def _exact_cell_posterior(x, total, prior_mean, prior_var, step_var, half_width=9.0,
                          n_grid=601):
    """Moments of p(psi_0, psi_1 | x, N) ∝ RW prior x prod_s Bin(x_s | N_s, sigmoid(psi_s))
    on a grid (two slices)."""
    sd = np.sqrt(prior_var + step_var)
    g = np.linspace(prior_mean - half_width * sd, prior_mean + half_width * sd, n_grid)
    a, b = np.meshgrid(g, g, indexing="ij")
    log_p = (-0.5 * (a - prior_mean) ** 2 / prior_var - 0.5 * (b - a) ** 2 / step_var
             + x[0] * log_expit(a) + (total[0] - x[0]) * log_expit(-a)
             + x[1] * log_expit(b) + (total[1] - x[1]) * log_expit(-b))
    p = np.exp(log_p - log_p.max())
    p /= p.sum()
    m = np.array([(p * a).sum(), (p * b).sum()])
    v = np.array([(p * a * a).sum() - m[0] ** 2, (p * b * b).sum() - m[1] ** 2])
    return m, v


@pytest.mark.parametrize("method", [PG_AUTO, PG_EXACT])
def test_cell_update_samples_exact_posterior_of_each_stick(method):
    """One topic, three words (two sticks), two slices. The chain of the fused
    kernel (omega | psi then psi | omega by FFBS) must have the exact
    posterior of each stick's time series as its stationary distribution;
    stick 1 needs the stick counts N = n_1 + n_2, stick 0 N = n_0 + n_1 + n_2."""
    counts = np.array([[[3, 0], [1, 4], [2, 1]]], dtype=np.int32)  # (K=1, V=3, S=2)
    prior_mean = np.array([-0.4, 0.2])
    prior_var = np.array([1.5, 2.0])
    step_var = 0.4
    psi = np.zeros((1, 2, 2))
    states = make_streams(7, 2)
    n_iter, burn = 30000, 200
    trace = np.empty((n_iter, 2, 2))
    for it in range(n_iter):
        sample_topic_word_logits(counts, psi, prior_mean, prior_var, step_var, method, 1,
                                 states, 0, 2)
        trace[it] = psi[0]
    trace = trace[burn:]
    for v, (x, total) in enumerate([(counts[0, 0], counts[0].sum(axis=0)),
                                    (counts[0, 1], counts[0, 1:].sum(axis=0))]):
        mean, var = _exact_cell_posterior(x, total, prior_mean[v], prior_var[v], step_var)
        se = _batch_se(trace[:, v])
        assert np.all(np.abs(trace[:, v].mean(axis=0) - mean) < 4.5 * se + 1e-3), v
        assert np.allclose(trace[:, v].var(axis=0), var, rtol=0.08), v


def test_cell_update_does_not_depend_on_blocks():
    """Cutting the cells into blocks (threads) anywhere, even inside a topic,
    gives the same draws: per-cell streams and per-block suffix sums."""
    rng = np.random.default_rng(0)
    n_topics, n_words, n_slices = 3, 7, 4
    counts = rng.poisson(2.0, size=(n_topics, n_words, n_slices)).astype(np.int32)
    counts[1, 4:, :] = 0  # a topic whose tail is empty (N = 0 cells)
    prior_mean, prior_var = _dirichlet_matched_prior(n_words, 0.5)
    n_cells = n_topics * (n_words - 1)
    start = rng.normal(size=(n_topics, n_words - 1, n_slices))
    results = []
    for cuts in ([0, n_cells], [0, 1, 5, 9, 13, n_cells], [0, 8, 10, n_cells]):
        psi = start.copy()
        states = make_streams(3, n_cells)
        for _ in range(3):
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                sample_topic_word_logits(counts, psi, prior_mean, prior_var, 0.3, PG_AUTO, 1,
                                         states, lo, hi)
        results.append(psi)
    for psi in results[1:]:
        np.testing.assert_array_equal(psi, results[0])
    assert np.all(np.isfinite(results[0]))


# ------------------------------------------------------- references in NumPy
def test_topic_word_probabilities_is_the_stick_breaking_map():
    rng = np.random.default_rng(1)
    psi = rng.normal(scale=4.0, size=(3, 5, 4))
    psi[0, 0, 0], psi[1, 2, 3] = 800.0, -800.0
    phi = np.empty((4, 6, 3))
    topic_word_probabilities(psi, 0, 2, phi)
    topic_word_probabilities(psi, 2, 3, phi)
    for k in range(3):
        ref = np.empty((4, 6))
        stick_breaking(np.ascontiguousarray(psi[k].T), ref)
        np.testing.assert_allclose(phi[:, :, k], ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(phi.sum(axis=1), 1.0)


def test_count_slice_topic_words_and_squared_steps():
    rng = np.random.default_rng(2)
    n_docs, n_words, n_topics = 9, 6, 3
    lengths = rng.integers(0, 8, n_docs)
    doc_ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    word_ids = rng.integers(0, n_words, doc_ptr[-1]).astype(np.int32)
    topics = rng.integers(0, n_topics, doc_ptr[-1]).astype(np.int32)
    slice_ptr = np.array([0, 4, 4, 9], dtype=np.int64)  # an empty middle slice
    counts = np.full((n_topics, n_words, 3), 7, dtype=np.int32)
    count_slice_topic_words(doc_ptr, word_ids, topics, slice_ptr, counts)
    slice_of_doc = np.repeat([0, 2], [4, 5])
    slice_of_token = np.repeat(slice_of_doc, lengths)
    ref = np.zeros_like(counts)
    np.add.at(ref, (topics, word_ids, slice_of_token), 1)
    np.testing.assert_array_equal(counts, ref)
    psi = rng.normal(size=(2, 3, 5))
    assert np.isclose(sum_squared_steps(psi), (np.diff(psi, axis=2) ** 2).sum())


def test_dirichlet_matched_prior_moments():
    from scipy.stats import beta as beta_dist

    mean, var = _dirichlet_matched_prior(5, 0.7)
    draws = beta_dist.rvs(0.7, 0.7 * 3, size=400000, random_state=0)
    logit = np.log(draws) - np.log1p(-draws)
    assert abs(logit.mean() - mean[1]) < 0.02
    assert abs(logit.var() / var[1] - 1) < 0.02
    assert mean.shape == var.shape == (4,)


def test_split_tokens_in_half_is_a_fair_coin_per_token():
    doc_ptr = np.array([0, 20000, 20003], dtype=np.int64)
    observed = np.empty(20003, dtype=np.uint8)
    split_tokens_in_half(doc_ptr, make_streams(0, 2), observed)
    assert abs(observed[:20000].mean() - 0.5) < 4 * 0.5 / np.sqrt(20000)


def test_chain_variance_draw_is_the_inverse_gamma_conditional():
    gen = np.random.default_rng(0)
    prior = (3.0, 2.0)
    draws = np.array([_draw_chain_variance(5.0, 40, prior, gen) for _ in range(40000)])
    shape, rate = 3.0 + 20, 2.0 + 2.5
    assert abs(draws.mean() - rate / (shape - 1)) < 4 * draws.std() / np.sqrt(draws.size)
    assert abs(draws.var() / (rate ** 2 / ((shape - 1) ** 2 * (shape - 2))) - 1) < 0.05


# --------------------------------------------------------- z-sweep by slice
def test_topic_sweep_uses_each_slice_topics_and_threads_agree():
    n_topics, n_words = 3, 4
    # Slice 0 explains word 0 by topic 0 only, slice 1 by topic 2 only.
    phi = np.full((2, n_words, n_topics), 1.0)
    phi[0, 0] = [1.0, 0.0, 0.0]
    phi[1, 0] = [0.0, 0.0, 1.0]
    rng = np.random.default_rng(3)
    lengths = rng.integers(1, 12, 40)
    doc_ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    word_ids = rng.integers(0, n_words, doc_ptr[-1]).astype(np.int32)
    slice_ptr = np.array([0, 25, 40], dtype=np.int64)
    alpha = np.full(n_topics, 0.5)
    outs = []
    for n_threads in (1, 2):
        topics = rng.integers(0, n_topics, doc_ptr[-1]).astype(np.int32) * 0
        doc_topic = np.zeros((40, n_topics), dtype=np.int32)
        doc_topic[:, 0] = lengths
        states = make_streams(5, 40)
        for _ in range(3):
            _sample_topics_by_slice(doc_ptr, word_ids, topics, doc_topic, phi, slice_ptr,
                                    alpha, states, n_threads)
        outs.append(topics.copy())
        slice_of_token = np.repeat(np.repeat([0, 1], [25, 15]), lengths)
        zero = word_ids == 0
        assert np.all(topics[zero & (slice_of_token == 0)] == 0)
        assert np.all(topics[zero & (slice_of_token == 1)] == 2)
        ref = np.zeros_like(doc_topic)
        np.add.at(ref, (np.repeat(np.arange(40), lengths), topics), 1)
        np.testing.assert_array_equal(doc_topic, ref)
    np.testing.assert_array_equal(outs[0], outs[1])


# ------------------------------------------------------------ Geweke test
def test_geweke_joint_distribution_of_the_composed_sampler():
    """Geweke (2004): the marginal-conditional simulator (draw sigma^2, psi,
    z and the words from the prior) and the successive-conditional simulator
    (one Gibbs sweep of the model -- topics by slice, counts, PG + FFBS,
    sigma^2 | psi -- then new words given topics and logits) must give the
    same distribution of every test function when the sweep is correct."""
    n_topics, n_words, n_slices, per_slice, doc_len = 2, 4, 3, 2, 4
    n_docs = n_slices * per_slice
    alpha = np.full(n_topics, 0.8)
    prior_mean, prior_var = _dirichlet_matched_prior(n_words, 1.0)
    var_prior = (4.0, 1.2)
    doc_ptr = np.arange(0, (n_docs + 1) * doc_len, doc_len, dtype=np.int64)
    slice_ptr = np.arange(0, n_docs + 1, per_slice, dtype=np.int64)
    slice_of_token = np.repeat(np.arange(n_slices), per_slice * doc_len)
    doc_of_token = np.repeat(np.arange(n_docs), doc_len)
    n_steps = n_topics * (n_words - 1) * (n_slices - 1)
    rng = np.random.default_rng(11)

    def draw_prior(n):
        """n independent draws of (sigma^2, psi, topics) from the prior."""
        chain_var = var_prior[1] / rng.gamma(var_prior[0], size=n)
        steps = rng.standard_normal((n, n_topics, n_words - 1, n_slices))
        steps[..., 1:] *= np.sqrt(chain_var)[:, None, None, None]
        steps[..., 0] = prior_mean + np.sqrt(prior_var) * steps[..., 0]
        psi = np.cumsum(steps, axis=3)
        theta = rng.dirichlet(alpha, size=(n, n_docs))[:, doc_of_token]  # (n, tokens, K)
        u = rng.random((n, doc_of_token.size, 1))
        topics = np.minimum((u > np.cumsum(theta, axis=2)).sum(axis=2), n_topics - 1)
        return chain_var, psi, topics.astype(np.int32)

    def draw_words(psi, topics):
        phi = np.empty((n_slices, n_words, n_topics))
        topic_word_probabilities(psi, 0, n_topics, phi)
        cum = np.cumsum(phi[slice_of_token, :, topics], axis=1)  # (tokens, V)
        u = rng.random(topics.size)[:, None] * cum[:, -1:]
        return np.minimum((u > cum).sum(axis=1), n_words - 1).astype(np.int32), phi

    def stats(chain_var, psi, topics, word_ids):
        phi = np.empty((n_slices, n_words, n_topics))
        topic_word_probabilities(psi, 0, n_topics, phi)
        # How much each token's topic favours its word in the token's own
        # slice (sensitive to a sweep reading another slice's topics).
        fit = (phi[slice_of_token, word_ids, topics]
               - phi[slice_of_token, word_ids].mean(axis=1))
        return np.array([
            chain_var, psi[0, 0, 0], psi[1, 1, 2], psi[0, 2, 1],
            (psi[0, 0, 2] - psi[0, 0, 0]) ** 2, np.mean(topics == 0),
            np.mean((topics == 0) & (word_ids == 0)),
            fit[slice_of_token == 0].mean(), fit[slice_of_token == n_slices - 1].mean(),
        ])

    n_mc = 20000
    mc = np.empty((n_mc, 9))
    all_var, all_psi, all_topics = draw_prior(n_mc)
    for r in range(n_mc):
        psi = np.ascontiguousarray(all_psi[r])
        words, _ = draw_words(psi, all_topics[r])
        mc[r] = stats(all_var[r], psi, all_topics[r], words)

    chain_var, psi, topics = draw_prior(1)
    chain_var, psi, topics = float(chain_var[0]), np.ascontiguousarray(psi[0]), topics[0]
    word_ids, phi = draw_words(psi, topics)
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
    np.add.at(doc_topic, (doc_of_token, topics), 1)
    doc_states = make_streams(12, n_docs)
    cell_states = make_streams(13, n_topics * (n_words - 1))
    counts = np.zeros((n_topics, n_words, n_slices), dtype=np.int32)
    n_sc = 30000
    sc = np.empty((n_sc, 9))
    for it in range(n_sc):
        _sample_topics_by_slice(doc_ptr, word_ids, topics, doc_topic, phi, slice_ptr, alpha,
                                doc_states, 1)
        count_slice_topic_words(doc_ptr, word_ids, topics, slice_ptr, counts)
        sample_topic_word_logits(counts, psi, prior_mean, prior_var, chain_var, PG_AUTO, 1,
                                 cell_states, 0, n_topics * (n_words - 1))
        chain_var = _draw_chain_variance(sum_squared_steps(psi), n_steps, var_prior, rng)
        word_ids, phi = draw_words(psi, topics)
        sc[it] = stats(chain_var, psi, topics, word_ids)
    z = (mc.mean(axis=0) - sc.mean(axis=0)) / np.sqrt(
        mc.var(axis=0) / n_mc + _batch_se(sc, 40) ** 2)
    assert np.all(np.abs(z) < 4.0), z
