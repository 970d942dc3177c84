"""CorrelatedTopicModel: the PG-augmented Gaussian updates against NumPy
references, the NIW update, Geweke tests of the correlated sweep (both links),
recovery from data drawn from the model, and the scikit-learn conventions."""

import functools
import warnings

import numpy as np
import pytest
from polyagamma import random_polyagamma as polyagamma_random
from scipy import sparse, stats
from scipy.optimize import linear_sum_assignment
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import _geweke_helpers as helpers
from _corpora import lda_corpus
from _geweke_helpers import chain_at, geweke_z, redraw_words
from sklearn_pgtm import CorrelatedTopicModel, GibbsLDA, _ctm
from sklearn_pgtm._ctm import _niw_posterior_draw
from sklearn_pgtm._kernels._ctm import (
    largest_deviation,
    logistic_normal_update,
    softmax_rows,
    stick_breaking_update,
)
from sklearn_pgtm._kernels._polyagamma import PG_EXACT, PG_GAUSSIAN
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._stick_breaking import stick_breaking
from sklearn_pgtm.exceptions import ChainDivergenceError


def correlated_corpus(n_topics=6, n_words=120, n_docs=400, doc_length=80, seed=0):
    """Documents drawn from the logistic-normal CTM with paired correlations."""
    rng = np.random.RandomState(seed)
    phi = np.zeros((n_topics, n_words))
    block = n_words // n_topics
    for k in range(n_topics):  # nearly disjoint topics: recovery is unambiguous
        phi[k, k * block:(k + 1) * block] = rng.dirichlet(np.ones(block))
    phi = 0.98 * phi + 0.02 / n_words
    corr = np.eye(n_topics)
    for i in range(0, n_topics - 1, 2):
        corr[i, i + 1] = corr[i + 1, i] = 0.7 if i % 4 == 0 else -0.7
    sigma = 1.5 * corr
    eta = rng.multivariate_normal(np.zeros(n_topics), sigma, size=n_docs)
    theta = np.exp(eta)
    theta /= theta.sum(axis=1, keepdims=True)
    X = np.vstack([rng.multinomial(doc_length, t @ phi) for t in theta])
    return X, phi, corr


# ------------------------------------------------- conditionals vs references
# (mu, Sigma, counts, the other sites, eta_0's start, grid of eta_0)
_SINGLE_SITE_CASES = {
    "moderate": ([0.2, -0.3, 0.5], [[1.0, 0.4, -0.2], [0.4, 0.8, 0.1], [-0.2, 0.1, 1.2]],
                 [7, 2, 3], [0.4, -0.1], 0.0, (-6.0, 8.0)),
    # eta_0 about 43 above the others: exp(eta_j - eta_0) < 1e-18, so total -
    # e_0 is exactly 0 in float64 and only the kernel's direct sum of the
    # others' exponentials gives zeta (removing that path passed every other
    # test; mutation testing).
    "dominant": ([45.0, 0.0, 0.0], np.eye(3), [6, 1, 1], [0.0, 0.0], 43.0, (30.0, 55.0)),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", list(_SINGLE_SITE_CASES))
def test_logistic_normal_single_site_matches_reference_posterior(case, seed):
    """With one topic free, the kernel's draws of eta_k follow the exact
    conditional p(eta_k | rest) ∝ N(eta_k | prior cond.) softmax_k^C_k (1-softmax_k)^(N-C_k)
    (the PG augmentation is exact once lambda is integrated out)."""
    mu, sigma, counts_row, others, start, (lo, hi) = (
        np.asarray(v, dtype=float) for v in _SINGLE_SITE_CASES[case])
    precision = np.linalg.inv(sigma)
    n_rep = 4000
    counts = np.tile(counts_row.astype(np.int32), (n_rep, 1))
    n_d = counts_row.sum()
    lengths = np.full(n_rep, int(n_d), dtype=np.int64)
    eta = np.tile(np.r_[start, others], (n_rep, 1))
    states = make_streams(seed, n_rep)
    # k = 0 is updated first and alone matters: each replicate (a row, its
    # own stream) burns in on eta_0 only, the other sites reset after every
    # sub-iteration.
    for _ in range(15):
        logistic_normal_update(counts, lengths, eta, mu, precision, 1, PG_EXACT, 1, states,
                               0, n_rep)
        eta[:, 1:] = others
    draws = eta[:, 0]
    assert np.all(np.isfinite(draws))
    # Reference density on a grid.
    p00 = precision[0, 0]
    cond_mean = mu[0] - precision[0, 1:] @ (others - mu[1:]) / p00
    grid = np.linspace(lo, hi, 20001)
    zeta = np.log(np.exp(others).sum())
    log_soft = grid - np.logaddexp(grid, zeta)
    log_rest = zeta - np.logaddexp(grid, zeta)
    log_dens = (-0.5 * p00 * (grid - cond_mean) ** 2 + counts_row[0] * log_soft
                + (n_d - counts_row[0]) * log_rest)
    dens = np.exp(log_dens - log_dens.max())
    cdf = np.cumsum(dens)
    cdf /= cdf[-1]
    assert stats.kstest(draws, lambda x: np.interp(x, grid, cdf)).pvalue > 1e-3


def test_stick_breaking_block_update_matches_gaussian_conditional():
    """Given the PG variables, psi_d ~ N(P^-1 (Sigma^-1 mu + kappa), P^-1): with
    N_d = 0 (no data, omega = kappa = 0) the draws must follow the prior."""
    mu = np.array([0.5, -1.0, 0.3])
    sigma = np.array([[1.0, 0.5, 0.0], [0.5, 2.0, -0.4], [0.0, -0.4, 0.7]])
    precision = np.linalg.inv(sigma)
    n_docs = 20000
    psi = np.zeros((n_docs, 3))
    counts = np.zeros((n_docs, 4), dtype=np.int32)
    stick_breaking_update(counts, np.zeros(n_docs, dtype=np.int64), psi, precision,
                          precision @ mu, PG_EXACT, 1, make_streams(1, n_docs), 0, n_docs)
    se = np.sqrt(np.diag(sigma) / n_docs)
    assert np.all(np.abs(psi.mean(axis=0) - mu) < 4 * se)
    np.testing.assert_allclose(np.cov(psi.T), sigma, atol=0.06)


def test_stick_breaking_posterior_matches_reference_with_data():
    """One stick (K = 2): psi | x ∝ N(psi | mu, s2) Bin(x | N, sigmoid(psi)).
    Alternating omega and psi draws is a Gibbs chain with that marginal."""
    mu, s2 = np.array([0.3]), np.array([[0.8]])
    precision = np.linalg.inv(s2)
    x, n = 9, 12
    n_rep = 3000
    counts, lengths, psi, states = _replicated_documents([x, n - x], n_rep, 1, 2)
    for _ in range(30):
        stick_breaking_update(counts, lengths, psi, precision, precision @ mu, PG_EXACT, 1,
                              states, 0, n_rep)
    grid = np.linspace(-6, 8, 20001)
    log_dens = (-0.5 * (grid - mu[0]) ** 2 / s2[0, 0] + x * -np.logaddexp(0, -grid)
                + (n - x) * -np.logaddexp(0, grid))
    dens = np.exp(log_dens - log_dens.max())
    cdf = np.cumsum(dens)
    cdf /= cdf[-1]
    assert stats.kstest(psi[:, 0], lambda v: np.interp(v, grid, cdf)).pvalue > 1e-3


def _replicated_documents(counts_row, n_rep, dim, seed):
    """``n_rep`` copies of one document's topic counts ``counts_row`` for
    independent chains of a Gaussian update: counts (n_rep, K), lengths,
    Gaussian vectors (n_rep, ``dim``) at 0 and one random stream per chain."""
    counts = np.tile(np.asarray(counts_row, dtype=np.int32), (n_rep, 1))
    lengths = counts.sum(axis=1).astype(np.int64)
    return counts, lengths, np.zeros((n_rep, dim)), make_streams(seed, n_rep)


def _assert_draws_follow_2d_density(draws, log_density):
    """KS tests of the projections of the (n, 2) ``draws`` on the axes and on
    the diagonals (the joint, not only the marginals: a Gibbs scan that
    updates a site given the other's stale value keeps the marginals of a
    Gaussian and loses their correlation) against ``log_density(x0, x1)``
    integrated on a rotated grid."""
    s = np.linspace(-12.0, 12.0, 1201)
    for direction in ([1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]):
        e = np.array(direction) / np.linalg.norm(direction)
        f = np.array([-e[1], e[0]])
        ss, tt = np.meshgrid(s, s, indexing="ij")
        log_d = log_density(ss * e[0] + tt * f[0], ss * e[1] + tt * f[1])
        cdf = np.cumsum(np.exp(log_d - log_d.max()).sum(axis=1))
        cdf /= cdf[-1]
        assert stats.kstest(draws @ e, lambda v: np.interp(v, s, cdf)).pvalue > 1e-3, direction


def test_logistic_normal_chain_targets_the_joint_posterior():
    """K = 2 with correlated prior: site 1 is updated after site 0 moved, from
    the running residual P (eta - mu) and exponentials. Independent chains
    (one document each) after 30 sweeps against the posterior
    N(eta | mu, Sigma) prod_k softmax(eta)_k^C_k. (The single-site test
    above reads only site 0: the residual not updated after a move passed
    every test of this file.)"""
    mu = np.array([0.3, -0.4])
    sigma = np.array([[1.0, 0.7], [0.7, 1.5]])
    precision = np.linalg.inv(sigma)
    counts_row = np.array([2, 9], dtype=np.int32)
    n_rep = 4000
    counts, lengths, eta, states = _replicated_documents(counts_row, n_rep, 2, 4)
    for _ in range(30):
        logistic_normal_update(counts, lengths, eta, mu, precision, 1, PG_EXACT, 1, states, 0,
                               n_rep)

    def log_density(x0, x1):
        d0, d1 = x0 - mu[0], x1 - mu[1]
        log_prior = -0.5 * (precision[0, 0] * d0 * d0 + 2 * precision[0, 1] * d0 * d1
                            + precision[1, 1] * d1 * d1)
        log_norm = np.logaddexp(x0, x1)
        return log_prior + counts_row[0] * (x0 - log_norm) + counts_row[1] * (x1 - log_norm)

    _assert_draws_follow_2d_density(eta, log_density)


def test_stick_breaking_chain_targets_the_joint_posterior():
    """K = 3 (two sticks): the second stick's binomial has N - x_0 trials.
    Independent chains after 30 sweeps against the posterior
    N(psi | mu, Sigma) Bin(x_0 | N, s(psi_0)) Bin(x_1 | N - x_0, s(psi_1))."""
    mu = np.array([0.2, -0.3])
    sigma = np.array([[0.8, 0.3], [0.3, 1.2]])
    precision = np.linalg.inv(sigma)
    x = np.array([3, 7, 2], dtype=np.int32)
    n_rep = 4000
    counts, lengths, psi, states = _replicated_documents(x, n_rep, 2, 6)
    for _ in range(30):
        stick_breaking_update(counts, lengths, psi, precision, precision @ mu, PG_EXACT, 1,
                              states, 0, n_rep)
    n0, n1 = x.sum(), x[1:].sum()

    def log_density(p0, p1):
        d0, d1 = p0 - mu[0], p1 - mu[1]
        log_prior = -0.5 * (precision[0, 0] * d0 * d0 + 2 * precision[0, 1] * d0 * d1
                            + precision[1, 1] * d1 * d1)
        return (log_prior - x[0] * np.logaddexp(0, -p0) - (n0 - x[0]) * np.logaddexp(0, p0)
                - x[1] * np.logaddexp(0, -p1) - (n1 - x[1]) * np.logaddexp(0, p1))

    _assert_draws_follow_2d_density(psi, log_density)


def test_document_blocks_give_the_same_draws():
    # Each document has its own stream: updating documents in blocks (as the
    # threads do) gives exactly the one-block result.
    rng = np.random.RandomState(0)
    counts = rng.poisson(3, size=(50, 4)).astype(np.int32)
    lengths = counts.sum(axis=1).astype(np.int64)
    precision = np.eye(4) * 1.3
    mu = np.zeros(4)
    a, b = np.zeros((50, 4)), np.zeros((50, 4))
    logistic_normal_update(counts, lengths, a, mu, precision, 2, PG_GAUSSIAN, 1,
                           make_streams(5, 50), 0, 50)
    states = make_streams(5, 50)
    for lo, hi in [(0, 17), (17, 50)]:
        logistic_normal_update(counts, lengths, b, mu, precision, 2, PG_GAUSSIAN, 1, states,
                               lo, hi)
    np.testing.assert_array_equal(a, b)
    # The kernel updates documents side by side in groups; one document per
    # call (groups of one) gives the same draws.
    b = np.zeros((50, 4))
    states = make_streams(5, 50)
    for d in range(50):
        logistic_normal_update(counts, lengths, b, mu, precision, 2, PG_GAUSSIAN, 1, states,
                               d, d + 1)
    np.testing.assert_array_equal(a, b)
    a, b = np.zeros((50, 3)), np.zeros((50, 3))
    stick_breaking_update(counts, lengths, a, precision[:3, :3], np.zeros(3), PG_EXACT, 1,
                          make_streams(6, 50), 0, 50)
    states = make_streams(6, 50)
    for lo, hi in [(0, 30), (30, 50)]:
        stick_breaking_update(counts, lengths, b, precision[:3, :3], np.zeros(3), PG_EXACT, 1,
                              states, lo, hi)
    np.testing.assert_array_equal(a, b)


def test_proportions():
    psi = np.array([[0.0, 0.0], [50.0, -3.0], [-800.0, 800.0]])
    out = np.empty((3, 3))
    stick_breaking(psi, out)
    np.testing.assert_allclose(out[0], [0.5, 0.25, 0.25])
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    assert np.all(np.isfinite(out))
    eta = np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]])
    soft = np.empty((2, 3))
    softmax_rows(eta, soft)
    np.testing.assert_allclose(soft[0], np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())
    np.testing.assert_allclose(soft[1], [1.0, 0.0, 0.0])


def test_niw_posterior_concentrates_on_the_data_moments():
    rng = np.random.default_rng(0)
    cov = np.array([[1.0, 0.6], [0.6, 2.0]])
    x = rng.multivariate_normal([1.0, -2.0], cov, size=5000)
    draws = [_niw_posterior_draw(x, np.zeros(2), 1.0, np.eye(2), 4.0, rng) for _ in range(50)]
    mus = np.array([d[0] for d in draws])
    sigmas = np.array([d[1] for d in draws])
    np.testing.assert_allclose(mus.mean(axis=0), x.mean(axis=0), atol=0.03)
    np.testing.assert_allclose(sigmas.mean(axis=0), np.cov(x.T), atol=0.06)


# ------------------------------------------------------------------ Geweke
def _proportions(link, gauss):
    """theta from the Gaussian vectors (last axis), in NumPy."""
    if link == "logistic_normal":
        e = np.exp(gauss - gauss.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    sig = 1.0 / (1.0 + np.exp(-gauss))
    rest = np.cumprod(1.0 - sig, axis=-1)
    left = np.concatenate([np.ones(gauss.shape[:-1] + (1,)), rest[..., :-1]], axis=-1)
    return np.concatenate([sig * left, rest[..., -1:]], axis=-1)


def _geweke(link, n_iter, seed=0):
    """Geweke (2004) on a tiny corpus (3 documents of 4, 3 and 5 tokens, K = 3,
    V = 4, beta = 0.7, prior_strength = 1: NIW(mean0, 3, 3 I, dim + 4)).

    Marginal-conditional simulator: (mu, Sigma) from the NIW prior, the
    documents' Gaussian vectors, topics and words (topics phi ~ Dir(beta)
    drawn afresh) in NumPy. Successive-conditional simulator: the estimator's
    own correlated sweep (``CorrelatedTopicModel._sweep``: the PG-augmented
    update of the Gaussian vectors, (mu, Sigma) | vectors, topics | vectors,
    words), then new words given the topics. Returns the z-scores of the
    test functions' means (chain by batch means).
    """
    n_topics, n_words, beta, strength = 3, 4, 0.7, 1.0
    lengths = np.array([4, 3, 5])
    n_docs = lengths.size
    doc_ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    doc_of_token = np.repeat(np.arange(n_docs), lengths)
    n_tokens = doc_ptr[-1]
    model = CorrelatedTopicModel(n_topics, link=link, topic_word_prior=beta,
                                 prior_strength=strength, burn_in=3)
    dim, mean0 = model._dim(), model._neutral_mean()
    a = strength * n_docs
    nu0 = int(dim + 1 + a)  # the model's NIW prior: (mean0, a, a I, dim + 1 + a)
    rng = np.random.default_rng(seed)

    def draw_prior(n):
        # Sigma ~ IW(a I, nu0): the inverse of a sum of nu0 outer products of N(0, I / a).
        x = rng.standard_normal((n, nu0, dim)) / np.sqrt(a)
        sigma = np.linalg.inv(np.einsum("nij,nik->njk", x, x))
        chol = np.linalg.cholesky(sigma)
        mu = mean0 + np.einsum("njk,nk->nj", chol, rng.standard_normal((n, dim))) / np.sqrt(a)
        noise = rng.standard_normal((n, n_docs, dim))
        gauss = mu[:, None] + np.einsum("njk,ndk->ndj", chol, noise)
        theta = _proportions(link, gauss)[:, doc_of_token]
        u = rng.random((n, n_tokens, 1))
        topics = np.minimum((u > np.cumsum(theta, axis=2)).sum(axis=2), n_topics - 1)
        return mu, sigma, gauss, topics.astype(np.int32)

    draw_words = functools.partial(helpers.draw_words, rng, n_topics=n_topics, n_words=n_words,
                                   beta=beta)

    def test_functions(mu, sigma, gauss, topics, words):
        theta = _proportions(link, gauss)
        own = np.take_along_axis(theta[:, doc_of_token], topics[..., None], axis=2)[..., 0]
        return np.column_stack([
            mu[:, 0], mu[:, -1], (mu[:, 0] - mean0[0]) ** 2, sigma[:, 0, 0], sigma[:, 0, 1],
            np.log(np.linalg.det(sigma)), gauss[:, 0, 0], gauss[:, 2, -1] ** 2,
            (gauss[:, 1, 0] - mu[:, 0]) ** 2, theta[:, 0, 0], theta[:, 1, -1],
            np.mean(topics == 0, axis=1), np.mean(topics[:, doc_ptr[2]:] == n_topics - 1, axis=1),
            np.mean((topics == 0) & (words == 0), axis=1), own.mean(axis=1),
            np.mean(topics[:, 1:] == topics[:, :-1], axis=1),
        ])

    mu, sigma, gauss, topics = draw_prior(n_iter)
    marginal = test_functions(mu, sigma, gauss, topics, draw_words(topics))

    # The chain starts from one draw of the joint.
    mu, sigma, gauss, topics = (v[0] for v in draw_prior(1))
    words = draw_words(topics[None])[0]
    X = sparse.csr_matrix((np.ones(n_tokens), (doc_of_token, words)), shape=(n_docs, n_words))
    model._record_fit_params()
    model.burn_in_ = model._new_burn_in()
    run = model._start_run(X, doc_ptr, words.copy(), seed + 1)
    chain = run.chain = chain_at(run.chain.tokens.word_ids, topics, doc_ptr, n_topics, n_words,
                                 seed + 2)
    run.mu, run.sigma, run.gauss[:] = mu, sigma, gauss
    # Correlated sweeps (past the warm-up and its stick reordering), inside
    # the burn-in (no kept counts); the sweeps do not advance the iteration.
    run.iteration = model._n_warmup() + 1
    assert run.iteration < model.burn_in_
    tokens = chain.tokens
    saved = (np.empty((n_iter, dim)), np.empty((n_iter, dim, dim)),
             np.empty((n_iter, n_docs, dim)), np.empty((n_iter, n_tokens), np.int32),
             np.empty((n_iter, n_tokens), np.int32))
    for it in range(n_iter):
        model._sweep(run)
        words = redraw_words(chain, rng, n_topics, n_words, beta)
        for out, value in zip(saved, (run.mu, run.sigma, run.gauss, tokens.topics, words)):
            out[it] = value
    return geweke_z(marginal, test_functions(*saved))


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_geweke_joint_distribution_of_the_correlated_sweep(link):
    """The composed sweep -- the Gaussian vectors | topics, mu, Sigma (single-
    site PG updates, or the PG block update of the sticks), (mu, Sigma) |
    vectors under the NIW prior, topics | vectors and words -- leaves the
    model's joint distribution invariant. Each of these wrong conditionals
    fails it (max |z| at 20,000 sweeps, seed 0, measured by editing the code):
    PG(N_d, 0.8 rho) for lambda (10.3), PG(N_d + 1, rho) (11.5), the NIW scale
    without its mean term (38.0), topics from sqrt(theta) (77.4); sticks:
    PG(N_d, psi) for PG(N_dk, psi) (15.1), PG(N_dk, psi / 2) (10.1), topics
    from sqrt(theta) (63.3). Tilting lambda by eta_dk for rho_dk, dropping
    lambda zeta from the mean, or kappa with N_d for N_dk make the chain
    diverge (ChainDivergenceError). Too small to see here: mu | Sigma with
    covariance Sigma / (kappa_n - 1) for Sigma / kappa_n (2.5)."""
    z = _geweke(link, 20000)
    assert np.all(np.abs(z) < 4.0), np.round(z, 2)


def _mean_forgotten(update, mean_position):
    """``update`` called with the prior mean argument (mu, or Sigma^-1 mu)
    replaced by zeros: a conditional that forgets the prior's mean."""
    def wrong(*args):
        args = list(args)
        args[mean_position] = np.zeros_like(args[mean_position])
        return update(*args)
    return wrong


@pytest.mark.parametrize("link, name, position", [
    ("logistic_normal", "logistic_normal_update", 3),
    ("stick_breaking", "stick_breaking_update", 4),
])
def test_geweke_rejects_a_wrong_conditional(monkeypatch, link, name, position):
    # The Gaussian vectors' update with the prior mean mu forgotten.
    monkeypatch.setattr(_ctm, name, _mean_forgotten(getattr(_ctm, name), position))
    z = _geweke(link, 5000, seed=1)
    assert np.max(np.abs(z)) > 6.0, np.round(z, 2)


# ----------------------------------------------------------------- the model
def recovery(model, phi, corr):
    """(worst L1 distance between a true topic and its fitted match after
    Hungarian matching, r between the fitted topic_correlation_ and the true
    correlation of the centred log proportions)."""
    n_topics = phi.shape[0]
    fitted_topics = model.components_ / model.components_.sum(axis=1, keepdims=True)
    distance = np.abs(fitted_topics[:, None, :] - phi[None, :, :]).sum(axis=2)
    fitted, true = linear_sum_assignment(distance)
    order = fitted[np.argsort(true)]
    fitted_corr = model.topic_correlation_[np.ix_(order, order)]
    centring = np.eye(n_topics) - 1.0 / n_topics
    true_cov = centring @ corr @ centring
    sd = np.sqrt(np.diag(true_cov))
    iu = np.triu_indices(n_topics, 1)
    r = np.corrcoef(fitted_corr[iu], (true_cov / np.outer(sd, sd))[iu])[0, 1]
    return distance[fitted, true].max(), r


# Seeds 3 and 5 are corpora on which a chain started from random topics
# merges a correlated pair (worst topic match -0.13 / -0.09 at the defaults,
# issue 12).
RECOVERY_SEEDS = [3, 5]


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_recovers_topic_correlations_from_model_data(link):
    # At the defaults: only n_components and random_state set.
    for seed in RECOVERY_SEEDS:
        X, phi, corr = correlated_corpus(seed=seed)
        model = CorrelatedTopicModel(6, link=link, random_state=seed).fit(X)
        worst_l1, r = recovery(model, phi, corr)
        assert worst_l1 < 0.5, (seed, worst_l1)
        assert r > 0.9, (seed, r)


def test_recovery_check_fails_on_merged_topics(monkeypatch):
    # The check above has power: started from random topics (the start
    # before the factorization) with the 20-sweep warm-up of before
    # 2026-11-27 and no annealing, the chain merges a pair of co-occurring
    # topics on seed 5 and the check sees it. (With the warm-up of half the
    # burn-in, the annealed prior or Dirichlet(2) warm-up documents alone,
    # the random start finds the pair too.)
    import sklearn_pgtm._ctm as ctm

    monkeypatch.setattr(ctm, "_FACTOR_START", False)
    monkeypatch.setattr(ctm, "_ANNEAL_MASS", 0.0)
    monkeypatch.setattr(ctm.CorrelatedTopicModel, "_n_warmup",
                        lambda self: min(20, self.burn_in_ // 2))
    X, phi, corr = correlated_corpus(seed=5)
    model = CorrelatedTopicModel(6, link="stick_breaking", random_state=5).fit(X)
    worst_l1, _ = recovery(model, phi, corr)
    assert worst_l1 > 0.5


def _warmup_priors(monkeypatch, X, document_prior=False, **params):
    """The topic-word prior (or with ``document_prior`` the document prior)
    of every plain-LDA sweep of a fit."""
    from sklearn_pgtm._chain import TopicChain

    seen = []
    original = TopicChain.sweep_lda

    def recording(self, alpha, beta, n_jobs=None):
        seen.append(np.copy(alpha if document_prior else beta))
        return original(self, alpha, beta, n_jobs)

    monkeypatch.setattr(TopicChain, "sweep_lda", recording)
    CorrelatedTopicModel(4, random_state=0, **params).fit(X)
    return np.array(seen)


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_warmup_documents_have_the_warmup_dirichlet_prior(monkeypatch, link):
    # Every warm-up sweep (and only those: burn_in // 3 of them) integrates
    # the proportions out under the symmetric Dirichlet(_WARMUP_DOC_PRIOR),
    # and the value reaches the fit.
    import sklearn_pgtm._ctm as ctm

    X, _, _ = correlated_corpus(seed=3)
    alphas = _warmup_priors(monkeypatch, X, document_prior=True, link=link, max_iter=34,
                            burn_in=30)
    assert alphas.shape == (10, 4)
    np.testing.assert_array_equal(alphas, ctm._WARMUP_DOC_PRIOR)
    assert ctm._WARMUP_DOC_PRIOR == 1.0
    fitted = CorrelatedTopicModel(4, link=link, random_state=0, max_iter=34, burn_in=30)
    default = fitted.fit(X).components_
    monkeypatch.setattr(ctm, "_WARMUP_DOC_PRIOR", 2.0)
    assert not np.allclose(fitted.fit(X).components_, default)


def test_warmup_anneals_the_topic_word_prior(monkeypatch):
    # First half of the warm-up: from V beta_0 = _ANNEAL_MASS x the mean
    # tokens per topic down geometrically to the prior; then the prior.
    import sklearn_pgtm._ctm as ctm

    X, _, _ = correlated_corpus(seed=3)
    prior = 0.001
    betas = _warmup_priors(monkeypatch, X, topic_word_prior=prior, max_iter=34, burn_in=30)
    assert betas.shape == (10,)  # the warm-up: burn_in // 3 sweeps
    start = ctm._ANNEAL_MASS * X.sum() / (4 * X.shape[1])
    assert start > 10 * prior
    np.testing.assert_allclose(betas[:5], start * (prior / start) ** (np.arange(5) / 5))
    np.testing.assert_allclose(betas[5:], prior)
    # A prior above beta_0 is not annealed.
    large = 2 * start
    betas = _warmup_priors(monkeypatch, X, topic_word_prior=large, max_iter=34, burn_in=30)
    np.testing.assert_allclose(betas, large)


def test_factorized_start_draws_in_proportion_to_the_factorization():
    # Every token of one (document, word) cell draws its topic from
    # W[d] * H[:, w] normalized: a chi-square test of the counts.
    from sklearn_pgtm._kernels._sweeps import TokenTopics, initialize_topics_from_factors

    n_tokens = 20000
    doc_ptr = np.array([0, n_tokens, n_tokens + 10], dtype=np.int64)
    word_ids = np.concatenate([np.zeros(n_tokens), np.ones(10)]).astype(np.int32)
    doc_weight = np.array([[0.5, 2.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    topic_weight = np.array([[1.0, 1.0], [0.3, 1.0], [5.0, 1.0], [0.7, 1.0]])
    topics = np.empty(n_tokens + 10, dtype=np.int32)
    doc_topic = np.zeros((2, 4), dtype=np.int32)
    word_topic = np.zeros((2, 4), dtype=np.int32)
    topic_total = np.zeros(4, dtype=np.int32)
    initialize_topics_from_factors(TokenTopics(doc_ptr, word_ids, topics, doc_topic), word_topic,
                                   topic_total, doc_weight, topic_weight, make_streams(0, 2))
    expected = doc_weight[0] * topic_weight[:, 0]
    expected = n_tokens * expected / expected.sum()
    assert doc_topic[0, 2] == 0
    keep = expected > 0
    assert stats.chisquare(doc_topic[0, keep], expected[keep]).pvalue > 1e-3
    # All-zero products (document 1): uniform, counts consistent.
    assert doc_topic[1].sum() == 10
    np.testing.assert_array_equal(word_topic.sum(axis=0), topic_total)
    np.testing.assert_array_equal(doc_topic.sum(axis=0), topic_total)
    np.testing.assert_array_equal(np.bincount(topics, minlength=4), topic_total)


def test_factorize_is_scikit_learns_nmf_of_the_tfidf_weights():
    # Oracle: scikit-learn's NMF of the tf-idf weights with the same random
    # state reconstructs them with the same error.
    from sklearn.decomposition import NMF
    from sklearn.feature_extraction.text import TfidfTransformer

    from sklearn_pgtm._chain import FACTOR_ITER, factorize

    X, _, _ = correlated_corpus(n_docs=80)
    weights = TfidfTransformer().fit_transform(X).toarray()
    seed = np.random.SeedSequence(3)
    error = NMF(6, solver="cd", max_iter=FACTOR_ITER,
                random_state=int(seed.generate_state(1)[0])).fit(weights).reconstruction_err_
    doc_weight, topic_weight = factorize(X, 6, np.random.SeedSequence(3))
    assert doc_weight.shape == (80, 6) and topic_weight.shape == (6, X.shape[1])
    assert doc_weight.flags.c_contiguous and topic_weight.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(weights - doc_weight @ topic_weight), error,
                               rtol=1e-6)


def test_factorize_leaves_the_empty_columns_out():
    # Columns without counts (a vocabulary fitted on a larger collection)
    # added nothing but cost as much as the others: at K = 100 with 5,000
    # used columns of 200,000 the start took over 400 s. The factorization
    # is that of the used columns, H zero on the others.
    from sklearn_pgtm._chain import factorize

    X, _, _ = correlated_corpus(n_docs=60)
    n_words = X.shape[1]
    wide = sparse.hstack([sparse.csr_matrix((60, 7)), X, sparse.csr_matrix((60, 5))]).tocsr()
    doc_weight, topic_weight = factorize(X, 4, np.random.SeedSequence(2))
    wide_doc, wide_topic = factorize(wide, 4, np.random.SeedSequence(2))
    assert wide_topic.shape == (4, n_words + 12) and wide_topic.flags.c_contiguous
    np.testing.assert_array_equal(wide_doc, doc_weight)
    np.testing.assert_array_equal(wide_topic[:, 7:7 + n_words], topic_weight)
    assert not wide_topic[:, :7].any() and not wide_topic[:, 7 + n_words:].any()


def test_factorize_runs_nmf_on_one_blas_thread(monkeypatch):
    # The factorized start's NMF calls BLAS hundreds of times on small
    # blocks; with OpenBLAS's own threads it took 132 s instead of 7.7 s at
    # K = 30 on a loaded 2-core machine. The NMF must see one BLAS thread,
    # whatever the limit outside (two here).
    from sklearn.decomposition import NMF
    from threadpoolctl import threadpool_info, threadpool_limits

    from sklearn_pgtm._chain import factorize

    seen = []
    fit_transform = NMF.fit_transform

    def recording(self, *args, **kwargs):
        seen.extend(lib["num_threads"] for lib in threadpool_info()
                    if lib["user_api"] == "blas")
        return fit_transform(self, *args, **kwargs)

    monkeypatch.setattr(NMF, "fit_transform", recording)
    X, _, _ = correlated_corpus(n_docs=40)
    with threadpool_limits(limits=2, user_api="blas"):
        factorize(X, 3, np.random.SeedSequence(0))
    assert seen and set(seen) == {1}


def test_factorize_one_document_warns_nothing():
    # On one document NMF's (unused) reconstruction error is the square root
    # of a rounding-negative number; numpy's warning must not reach the user.
    from sklearn_pgtm._chain import factorize

    X = sparse.csr_matrix(np.random.default_rng(0).poisson(0.5, size=(30, 40))[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        doc_weight, topic_weight = factorize(X, 3, np.random.SeedSequence(0))
    assert np.isfinite(doc_weight).all() and np.isfinite(topic_weight).all()


def test_stick_breaking_prior_mean_gives_uniform_proportions():
    for n_topics in (2, 5, 20):
        mean = CorrelatedTopicModel(n_topics, link="stick_breaking")._neutral_mean()
        proportions = np.empty((1, n_topics))
        stick_breaking(mean[None, :], proportions)
        np.testing.assert_allclose(proportions, 1.0 / n_topics)
    assert not CorrelatedTopicModel(5)._neutral_mean().any()


def test_stick_order_pairs_the_topics_present_together():
    # Oracle: the phi coefficients of the presence indicators by
    # np.corrcoef, and the greedy pairs written out for this corpus.
    import sklearn_pgtm._ctm as ctm
    from sklearn_pgtm._ctm import stick_order

    rng = np.random.RandomState(0)
    n_docs = 400
    pair_a, pair_b = rng.rand(n_docs) < 0.4, rng.rand(n_docs) < 0.5
    loose = rng.rand(n_docs) < 0.5
    doc_topic = np.zeros((n_docs, 6), dtype=np.int32)
    doc_topic[:, 3] = 30 * pair_a  # topics 3 and 0 nearly always together
    doc_topic[:, 0] = 30 * (pair_a ^ (rng.rand(n_docs) < 0.05))
    doc_topic[:, 1] = 30 * pair_b  # 1 and 4 less so
    doc_topic[:, 4] = 30 * (pair_b ^ (rng.rand(n_docs) < 0.2))
    doc_topic[:, 2] = 30 * loose
    doc_topic[:, 5] = 100  # present everywhere: no association
    doc_topic[:, 2] += 1  # one token in a long document is not presence
    share = ctm._PRESENCE_SHARE
    assert 30 >= share * doc_topic.sum(axis=1).max()  # 30 tokens are always presence
    present = doc_topic >= np.maximum(1, share * doc_topic.sum(axis=1, keepdims=True))
    phi = np.corrcoef(present[:, :5].T)
    assert phi[0, 3] > phi[1, 4] > np.abs(phi[2, [0, 1, 3, 4]]).max()
    # Two pairs, then the loose topic and the constant one (original order).
    np.testing.assert_array_equal(stick_order(doc_topic), [0, 3, 1, 4, 2, 5])
    # A permutation of the topics permutes the order the same way.
    perm = rng.permutation(6)
    assert {tuple(sorted(perm[stick_order(doc_topic[:, perm])[i:i + 2]]))
            for i in (0, 2)} == {(0, 3), (1, 4)}
    # One document: nothing varies, the order is kept.
    np.testing.assert_array_equal(stick_order(doc_topic[:1]), np.arange(6))


def test_chain_relabel_moves_every_count_with_its_topic():
    from sklearn_pgtm._base import to_tokens
    from sklearn_pgtm._chain import TopicChain

    X, _, _ = correlated_corpus(n_docs=50, seed=1)
    doc_ptr, word_ids = to_tokens(sparse.csr_matrix(X))
    chain = TopicChain.random(doc_ptr, word_ids, 6, X.shape[1], 0)
    before = (chain.tokens.topics.copy(), chain.tokens.doc_topic.copy(),
              chain.word_topic.copy(), chain.topic_total.copy())
    order = np.array([4, 0, 5, 2, 1, 3])
    chain.relabel(order)
    topics, doc_topic, word_topic, topic_total = before
    np.testing.assert_array_equal(order[chain.tokens.topics], topics)
    np.testing.assert_array_equal(chain.tokens.doc_topic, doc_topic[:, order])
    np.testing.assert_array_equal(chain.word_topic, word_topic[:, order])
    np.testing.assert_array_equal(chain.topic_total, topic_total[order])
    # The counts are still those of the tokens.
    docs = np.repeat(np.arange(X.shape[0]), np.diff(doc_ptr))
    counted = np.zeros_like(chain.tokens.doc_topic)
    np.add.at(counted, (docs, chain.tokens.topics), 1)
    np.testing.assert_array_equal(counted, chain.tokens.doc_topic)


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_stick_breaking_fit_puts_the_warmup_topics_in_stick_order(monkeypatch, link):
    # The stick-breaking chain renumbers its topics once, after the warm-up
    # (the first 10 sweeps here): the first correlated sweep sees the
    # warm-up's counts in stick_order, and the recorded topic shares follow.
    # The logistic-normal link keeps the warm-up's labels.
    import sklearn_pgtm._ctm as ctm

    X, _, _ = correlated_corpus(n_docs=150, seed=2)
    warmup, seen = [], []
    model_class = ctm.CorrelatedTopicModel
    sweep, update_gaussian = model_class._sweep, model_class._update_gaussian

    def recording_sweep(self, run):
        if run.iteration == self._n_warmup():
            warmup.append(np.copy(run.chain.tokens.doc_topic))
        return sweep(self, run)

    def recording_update(self, doc_topic, *args):
        if not seen:  # the first correlated sweep's counts
            seen.append(np.copy(doc_topic))
        return update_gaussian(self, doc_topic, *args)

    monkeypatch.setattr(model_class, "_sweep", recording_sweep)
    monkeypatch.setattr(model_class, "_update_gaussian", recording_update)
    model = CorrelatedTopicModel(6, link=link, max_iter=40, burn_in=30, random_state=0).fit(X)
    order = ctm.stick_order(warmup[0])
    assert not np.array_equal(order, np.arange(6))
    expected = warmup[0][:, order] if link == "stick_breaking" else warmup[0]
    np.testing.assert_array_equal(seen[0], expected)
    shares = warmup[0].sum(axis=0) / warmup[0].sum()
    np.testing.assert_allclose(model.trace_.topic_share[9],
                               shares[order] if link == "stick_breaking" else shares)


def test_attributes_reproducibility_and_scores():
    X, _, _ = correlated_corpus(n_docs=60)
    for link, dim in [("logistic_normal", 6), ("stick_breaking", 5)]:
        model = CorrelatedTopicModel(6, link=link, max_iter=8, burn_in=4, n_infer_iter=6,
                                     pg_method="gaussian", random_state=1).fit(X)
        assert model.components_.shape == (6, X.shape[1])
        # Pseudo-counts: the prior plus averaged counts, summing to the tokens.
        np.testing.assert_allclose(model.components_.sum(),
                                   X.sum() + 6 * X.shape[1] * model.topic_word_prior_)
        assert model.mean_.shape == (dim,) and model.covariance_.shape == (dim, dim)
        assert model.topic_correlation_.shape == (6, 6)
        theta = model.transform(X)
        np.testing.assert_allclose(theta.sum(axis=1), 1.0)
        np.testing.assert_array_equal(theta, model.transform(X))
        again = CorrelatedTopicModel(6, link=link, max_iter=8, burn_in=4, n_infer_iter=6,
                                     pg_method="gaussian", random_state=1).fit(X)
        np.testing.assert_array_equal(again.components_, model.components_)
        # Document completion: about half of the tokens are held out.
        n_heldout = -model.score(X) / np.log(model.perplexity(X))
        assert 0.4 * X.sum() < n_heldout < 0.6 * X.sum()


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_inference_inverts_the_fixed_covariance_once(link, monkeypatch):
    # transform / sample_transform inverted covariance_ (an O(K^3) step) at
    # every one of their sweeps: at K = 300 one document took 2.3 s (logistic
    # normal) and 12.6 s (stick breaking) of CPU for n_infer_iter=100.
    X, _, _ = correlated_corpus(n_docs=40)
    model = CorrelatedTopicModel(4, link=link, max_iter=4, burn_in=3, n_infer_iter=5,
                                 pg_method="gaussian", random_state=0).fit(X)
    inv = np.linalg.inv
    calls = []
    monkeypatch.setattr(np.linalg, "inv", lambda a: calls.append(a.shape) or inv(a))
    model.transform(X[:3])
    model.sample_transform(X[:3], n_samples=3)
    assert calls == [model.covariance_.shape] * 2


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_topic_correlation_is_exactly_a_correlation_matrix(link):
    # Found by probe D: C Sigma C was asymmetric in its last bits (scipy's
    # squareform(1 - topic_correlation_) raised "must be symmetric") and
    # correlations of -1 came out as -1.0000000000000002 (arccos: NaN).
    X, _, _ = correlated_corpus(n_docs=60, doc_length=40)
    for n_topics, seed in [(2, 0), (2, 1), (2, 2), (6, 0)]:
        corr = CorrelatedTopicModel(n_topics, link=link, max_iter=6, burn_in=3,
                                    n_infer_iter=2, pg_method="gaussian",
                                    random_state=seed).fit(X).topic_correlation_
        np.testing.assert_array_equal(corr, corr.T)
        np.testing.assert_array_equal(np.diag(corr), 1.0)
        assert np.all(np.abs(corr) <= 1.0)
    # The same on many covariances (rounding hits some of them).
    rng = np.random.RandomState(0)
    for n_topics in [2, 3, 5] * 20:
        dim = n_topics - (link == "stick_breaking")
        factor = rng.normal(size=(dim, dim))
        model = CorrelatedTopicModel(n_topics, link=link)
        model._infer_seed = 0
        covariance = factor @ factor.T + 0.1 * np.eye(dim)
        corr = model._topic_correlation(rng.normal(size=dim), covariance)
        np.testing.assert_array_equal(corr, corr.T)
        assert np.all(np.abs(corr) <= 1.0)


def test_largest_deviation_matches_numpy_and_flags_non_finite_rows():
    rng = np.random.RandomState(2)
    rows, mean = rng.normal(0.0, 3.0, (25, 6)), rng.normal(size=6)
    assert largest_deviation(rows, mean) == np.abs(rows - mean).max()
    assert largest_deviation(rows[:0], mean) == 0.0
    for bad in (np.nan, np.inf, -np.inf):
        broken = rows.copy()
        broken[17, 3] = bad
        assert largest_deviation(broken, mean) == np.inf


def test_divergence_is_reported_not_hidden(monkeypatch):
    import sklearn_pgtm._ctm as ctm

    X, _, _ = correlated_corpus(n_docs=30)
    monkeypatch.setattr(ctm, "_DIVERGENCE_BOUND", 1e-3)
    with pytest.raises(ChainDivergenceError, match="pg_method='pg1'. Use pg_method='exact'"):
        CorrelatedTopicModel(4, pg_method="pg1", max_iter=3, burn_in=2,
                             random_state=0).fit(X)
    # With exact draws, advising them is no help: the covariance's prior is.
    with pytest.raises(ChainDivergenceError, match="'exact'. Change prior_strength"):
        CorrelatedTopicModel(4, pg_method="exact", max_iter=3, burn_in=2,
                             random_state=0).fit(X)


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
@pytest.mark.parametrize("n_docs, prior_strength", [
    (3, 1e-30),    # the prior's a I lost next to a singular scatter: Psi_n not PD
    (1, 1e-310),   # a subnormal covariance drawn: its inverse overflows to inf
    (30, 1e306),   # kappa0 * D (a = prior_strength * D) overflows: Psi_n is NaN
])
def test_covariance_beyond_float64_names_prior_strength(link, n_docs, prior_strength):
    # Found by probing prior_strength at the ends of its range (0, inf): the
    # fit failed with scipy's LinAlgError ("5-th leading minor of the array is
    # not positive definite"), numba's "Matrix is not positive definite",
    # scipy's "array must not contain infs or NaNs", or a divergence error
    # advising pg_method='exact'; none named the setting to change.
    X, _, _ = correlated_corpus(n_docs=30)
    model = CorrelatedTopicModel(6, link=link, prior_strength=prior_strength, max_iter=6,
                                 burn_in=1, random_state=0)
    with pytest.raises(ChainDivergenceError, match=r"prior_strength=.*Change prior_strength"):
        model.fit(X[:n_docs])
    assert not hasattr(model, "components_")
    # Beyond those ends the same D documents fit.
    model.set_params(prior_strength=0.01).fit(X[:n_docs])
    assert np.all(np.isfinite(model.covariance_))


def test_bad_input_and_pipeline():
    X, _, _ = correlated_corpus(n_docs=40)
    model = CorrelatedTopicModel(3, max_iter=3, burn_in=2, n_infer_iter=2, pg_method="gaussian")
    with pytest.raises(ValueError, match="Negative"):
        model.fit(-X)
    with pytest.raises(ValueError, match="empty"):
        model.fit(np.zeros((5, 4)))
    model.fit(X)
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :-1])
    X, _, _ = correlated_corpus(n_docs=100)
    y = (X[:, :20].sum(axis=1) > X[:, 40:60].sum(axis=1)).astype(int)
    pipe = make_pipeline(CorrelatedTopicModel(6, max_iter=40, burn_in=20, n_infer_iter=10,
                                              pg_method="gaussian", random_state=0),
                         LogisticRegression(C=100.0))
    assert pipe.fit(X, y).score(X, y) > 0.8


@parametrize_with_checks([
    CorrelatedTopicModel(n_components=3, max_iter=4, burn_in=2, n_infer_iter=2,
                         pg_method="gaussian"),
    CorrelatedTopicModel(n_components=3, max_iter=4, burn_in=2, n_infer_iter=2,
                         link="stick_breaking"),
])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_convergence_warning_says_what_the_model_knows_of_its_rises():
    # At the defaults the warning fires on most real corpora, where part of
    # the rise is the covariance's random walk (benchmarks/convergence.py):
    # the message says so and where to read more; GibbsLDA's does not.
    from sklearn.exceptions import ConvergenceWarning

    X, _, _ = correlated_corpus(seed=0)
    with pytest.warns(ConvergenceWarning, match=r"continues it\)\. For this model part "
                                                r"of the rise can be the covariance's"):
        CorrelatedTopicModel(6, max_iter=40, burn_in=20, random_state=0).fit(X)
    with pytest.warns(ConvergenceWarning, match=r"continues it\)\.$"):
        GibbsLDA(6, max_iter=40, burn_in=20, random_state=0).fit(X)


def test_convergence_warning_is_not_hidden_by_the_end_of_the_warmup():
    # Found by probe D (max_iter smaller than the burn-in, as in a fit
    # continued with warm_start): the warm-up's trace lacks the documents'
    # term, and its drop at the warm-up's end, inside the judged second half,
    # hid a rise of 0.058 nats per token after it (z-score 10.0 against -2.5
    # with the drop).
    from sklearn.exceptions import ConvergenceWarning

    X, _, _ = correlated_corpus(n_docs=300, doc_length=60, seed=0)
    with pytest.warns(ConvergenceWarning, match="still rises"):
        CorrelatedTopicModel(6, max_iter=60, burn_in=120, n_infer_iter=5,
                             random_state=0).fit(X)


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_fit_ending_inside_the_warmup_warns_that_the_correlations_are_the_start(link):
    # max_iter=150 at the default burn_in=750 (the gallery example did this)
    # runs only the 250-sweep LDA warm-up: no (mu, Sigma) draw, and
    # topic_correlation_ came back as -1 / (K - 1) for every pair, silently.
    X, _, _ = correlated_corpus(n_topics=4, n_words=40, n_docs=60, doc_length=30)
    with pytest.warns(ConvergenceWarning, match="inside its LDA warm-up"):
        model = CorrelatedTopicModel(4, link=link, max_iter=5, burn_in=30,
                                     random_state=0).fit(X)
    np.testing.assert_array_equal(model.covariance_, np.eye(model.covariance_.shape[0]))
    # One correlated sweep after the warm-up: estimates, no such warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a trend warning may come with short chains
        warnings.filterwarnings("error", message=".*inside its LDA warm-up")
        CorrelatedTopicModel(4, link=link, max_iter=11, burn_in=30, random_state=0).fit(X)


def test_niw_posterior_draws_have_the_closed_form_moments():
    # Few rows and a strong prior centred away from them: the prior's terms
    # (kappa0 mu0 in mu_n, the kappa0 n / kappa_n outer product in Psi_n,
    # nu0 + n, Sigma / kappa_n) all matter, unlike with 5,000 rows.
    # Closed forms (MODELS.md 2a): E[mu] = mu_n, E[Sigma] = Psi_n / (nu_n - p - 1),
    # Cov[mu] = E[Sigma] / kappa_n.
    x = np.array([[2.0, 1.5], [2.5, 2.0], [1.5, 2.5], [2.0, 2.0]])
    mean0, kappa0, psi0, nu0 = np.array([0.0, -1.0]), 2.0, np.eye(2), 5.0
    n, p = x.shape
    xbar = x.mean(axis=0)
    kappa_n, nu_n = kappa0 + n, nu0 + n
    mean_n = (kappa0 * mean0 + n * xbar) / kappa_n
    scatter = (x - xbar).T @ (x - xbar)
    psi_n = psi0 + scatter + kappa0 * n / kappa_n * np.outer(xbar - mean0, xbar - mean0)
    expected_sigma = psi_n / (nu_n - p - 1)
    rng = np.random.default_rng(1)
    draws = [_niw_posterior_draw(x, mean0, kappa0, psi0, nu0, rng) for _ in range(4000)]
    mus = np.array([d[0] for d in draws])
    sigmas = np.array([d[1] for d in draws])
    # Tolerances: 5 Monte Carlo standard errors of each mean.
    se_mu = mus.std(axis=0) / np.sqrt(len(mus))
    assert np.all(np.abs(mus.mean(axis=0) - mean_n) < 5 * se_mu)
    se_sigma = sigmas.std(axis=0) / np.sqrt(len(sigmas))
    assert np.all(np.abs(sigmas.mean(axis=0) - expected_sigma) < 5 * se_sigma)
    cov_mu = np.cov(mus.T)
    np.testing.assert_allclose(cov_mu, expected_sigma / kappa_n, rtol=0.12, atol=0.01)


@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
def test_fitted_moments_average_exactly_the_draws_after_the_burn_in(link):
    # Oracle: the same chain continued one sweep at a time (warm_start
    # equals one longer fit), its (mu, Sigma) and topic-word counts read
    # after every sweep: mean_, covariance_ and components_ are their means
    # over sweeps burn_in + 1 .. max_iter, topic_correlation_ (logistic
    # normal) the correlation of C covariance_ C with C = I - 11^T / K.
    X, _, _ = correlated_corpus(n_topics=3, n_words=30, n_docs=30, doc_length=20)
    burn_in, max_iter = 3, 7
    params = dict(n_components=3, link=link, burn_in=burn_in, topic_word_prior=0.1,
                  pg_method="gaussian", random_state=0)
    warm = CorrelatedTopicModel(max_iter=1, warm_start=True, **params)
    mus, sigmas, counts = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(max_iter):
            warm.fit(X)
            mus.append(warm._run.mu.copy())
            sigmas.append(warm._run.sigma.copy())
            counts.append(warm._run.chain.word_topic.T.astype(np.float64))
        full = CorrelatedTopicModel(max_iter=max_iter, **params).fit(X)
    np.testing.assert_allclose(full.mean_, np.mean(mus[burn_in:], axis=0), rtol=1e-12)
    np.testing.assert_allclose(full.mean_, full.trace_.mean[burn_in:].mean(axis=0),
                               rtol=1e-12)
    np.testing.assert_allclose(full.covariance_, np.mean(sigmas[burn_in:], axis=0),
                               rtol=1e-12)
    np.testing.assert_allclose(full.components_, 0.1 + np.mean(counts[burn_in:], axis=0),
                               rtol=1e-12)
    if link == "logistic_normal":
        centring = np.eye(3) - 1.0 / 3
        cov = centring @ full.covariance_ @ centring
        sd = np.sqrt(np.diag(cov))
        np.testing.assert_allclose(full.topic_correlation_, cov / np.outer(sd, sd),
                                   atol=1e-12)


def test_auto_burn_in_is_three_fifths_of_max_iter():
    # 750 of the default 1,250 sweeps; a shorter chain keeps the proportions
    # (warm-up burn_in_ // 3, then correlated burn-in, then kept sweeps).
    X, _, _ = correlated_corpus(n_topics=3, n_words=30, n_docs=30, doc_length=20)
    params = dict(n_components=3, topic_word_prior=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        auto = CorrelatedTopicModel(max_iter=15, **params).fit(X)
        fixed = CorrelatedTopicModel(max_iter=15, burn_in=9, **params).fit(X)
    assert CorrelatedTopicModel().burn_in == "auto"
    assert CorrelatedTopicModel()._new_burn_in() == 750
    assert auto.burn_in_ == 9 and auto._n_warmup() == 3
    np.testing.assert_array_equal(auto.components_, fixed.components_)
    np.testing.assert_array_equal(auto.covariance_, fixed.covariance_)


def test_stick_breaking_topic_correlation_is_that_of_the_centred_log_proportions():
    # Oracle: 200,000 draws of N(mean_, covariance_) of our own, mapped by
    # the stick-breaking link written in NumPy; the correlation of log theta
    # minus its mean over the topics (docstring of _topic_correlation).
    X, _, _ = correlated_corpus(n_topics=4, n_words=30, n_docs=40, doc_length=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = CorrelatedTopicModel(4, link="stick_breaking", max_iter=6, burn_in=3,
                                     pg_method="gaussian", random_state=0).fit(X)
    psi = np.random.default_rng(5).multivariate_normal(model.mean_, model.covariance_,
                                                       size=200_000)
    sticks = 1.0 / (1.0 + np.exp(-psi))
    left = np.cumprod(np.hstack([np.ones((len(psi), 1)), 1.0 - sticks]), axis=1)
    theta = np.hstack([sticks, np.ones((len(psi), 1))]) * left
    log_theta = np.log(theta)
    expected = np.corrcoef((log_theta - log_theta.mean(axis=1, keepdims=True)).T)
    np.testing.assert_allclose(model.topic_correlation_, expected, atol=0.03)


def test_transform_is_the_mean_of_the_inference_sweeps_not_the_last_one():
    # The posterior mean of short documents' proportions, whose posterior is
    # wide: transform over many sweeps against the mean of as many posterior
    # draws of sample_transform (the same chain, continued); a single sweep's
    # proportions would be off by about their posterior spread.
    X, _, _ = correlated_corpus(n_topics=3, n_words=30, n_docs=40, doc_length=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = CorrelatedTopicModel(3, max_iter=6, burn_in=3, pg_method="gaussian",
                                     n_infer_iter=6000, random_state=0).fit(X)
    docs = np.zeros((4, X.shape[1]), dtype=int)
    docs[np.arange(4), np.arange(4)] = 1
    draws = model.sample_transform(docs, n_samples=3000)
    assert draws.std(axis=0).max() > 0.1  # a wide posterior
    np.testing.assert_allclose(model.transform(docs), draws.mean(axis=0), atol=0.03)


# ------------------------------- guarded paths of the single-site scan
def _numpy_scan(start, mu, precision, counts_row, rng):
    """One systematic scan of the two sites of K = 2 documents (rows of
    ``start``) from the user guide's equations: zeta_k = eta_{other},
    lambda ~ PG(N_d, eta_k - zeta_k) from the ``polyagamma`` package (method
    "devroye", exact for integer b: its default (2.0.2) is wrong for c <= -100,
    mean 0.069 for PG(5, -100) where the exact one is 0.025), then eta_k from
    its Gaussian conditional."""
    ref = start.copy()
    n_d = float(counts_row.sum())
    for k in range(2):
        j = 1 - k
        zeta = ref[:, j]
        lam = polyagamma_random(n_d, ref[:, k] - zeta, method="devroye", random_state=rng)
        cond_mean = mu[k] - precision[k, j] * (ref[:, j] - mu[j]) / precision[k, k]
        post_var = 1.0 / (precision[k, k] + lam)
        post_mean = post_var * (precision[k, k] * cond_mean + counts_row[k] - 0.5 * n_d
                                + lam * zeta)
        ref[:, k] = post_mean + np.sqrt(post_var) * rng.standard_normal(ref.shape[0])
    return ref


# One scan of the kernel over copies of a document against _numpy_scan
# (two-sample KS on both sites), in the scan's rare paths, each found
# untested by mutation testing:
# - "jump": from (0, 0) with prior mean (150, 0) site 0 jumps by more than 30,
#   the re-shift of the running exponentials (a stale shift passed);
# - "long jump": the same in a document of 600 tokens (prior mean 5500), where
#   site 1 is drawn with lambda about 8, so that a running total left in the
#   old shift's scale (zeta off by up to log K) shows;
# - "fall": from (60, 42) with prior mean (0, 42) site 0 falls to about 6,
#   then site 1 is dominant and takes the direct sum of the others'
#   exponentials, which must hold site 0's new value (a stale one passed).
_SCANS = {
    "jump": ([0.0, 0.0], [150.0, 0.0], [[1.0, 0.3], [0.3, 1.0]], [3, 2]),
    "long jump": ([0.0, 0.0], [5500.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [300, 300]),
    "fall": ([60.0, 42.0], [0.0, 42.0], [[1.0, 0.0], [0.0, 1.0]], [3, 4]),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", list(_SCANS))
def test_scan_in_its_rare_paths_matches_a_numpy_reference(case, seed):
    start, mu, sigma, counts_row = (np.array(v) for v in _SCANS[case])
    precision = np.linalg.inv(sigma)
    counts_row = counts_row.astype(np.int32)
    n_rep = 3000
    counts = np.tile(counts_row, (n_rep, 1))
    lengths = counts.sum(axis=1).astype(np.int64)
    eta = np.tile(start, (n_rep, 1))
    logistic_normal_update(counts, lengths, eta, mu, precision, 1, PG_EXACT, 1,
                           make_streams(seed, n_rep), 0, n_rep)
    assert np.all(np.isfinite(eta))
    if case == "fall":
        assert np.mean(eta[:, 1] - eta[:, 0] > 19.0) > 0.99  # site 1 took the direct sum
    else:
        assert np.mean(eta[:, 0] > 30.0) > 0.99  # the scans took the re-shift path
    ref = _numpy_scan(np.tile(start, (n_rep, 1)), mu, precision, counts_row,
                      np.random.default_rng(100 + seed))
    for k in range(2):
        assert stats.ks_2samp(eta[:, k], ref[:, k]).pvalue > 1e-3, k


# transform averages the proportions of all its n_infer_iter sweeps but the
# first max(n // 8, min(5, n // 2)) (one sweep fewer passed every test;
# mutation testing). Public API only: the inference chain does not depend on
# n_infer_iter, so sample_transform with n_infer_iter = s gives the
# proportions of sweeps s, s + 1, ... of the same chain.
@pytest.mark.parametrize("link", ["logistic_normal", "stick_breaking"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_transform_averages_exactly_the_documented_sweeps(link, seed):
    X, _ = lda_corpus(40, 30, 3, 25, 0.5, 0.2, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CorrelatedTopicModel(3, link=link, max_iter=30, burn_in=15, n_infer_iter=10,
                                     random_state=seed).fit(X)
    docs = X[:8]
    for n in (6, 9, 16, 24):
        skipped = max(n // 8, min(5, n // 2))
        theta = model.set_params(n_infer_iter=n).transform(docs)
        draws = model.set_params(n_infer_iter=skipped).sample_transform(
            docs, n_samples=n - skipped)
        expected = draws.mean(axis=0)
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(theta, expected, rtol=1e-12, atol=1e-15)
        # the window matters: one sweep fewer gives another average
        fewer = draws[1:].mean(axis=0)
        fewer /= fewer.sum(axis=1, keepdims=True)
        assert np.abs(fewer - theta).max() > 1e-9
