"""Tests of EmpiricalBayesLDA and its hyperparameter kernels."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.optimize import linear_sum_assignment
from scipy.special import digamma as sp_digamma
from scipy.special import gammaln
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm._kernels._eblda import (
    augmentation_parameters,
    binomial,
    count_histograms,
    digamma,
    gamma_draw,
    hmc_update,
    log_joint,
    log_posterior_grad,
)
from sklearn_pgtm._kernels._random import make_streams


def lda_corpus(n_docs, n_words, n_topics, doc_length, alpha, eta, seed):
    rng = np.random.RandomState(seed)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    phi = rng.dirichlet(np.full(n_words, eta), size=n_topics)
    theta = rng.dirichlet(alpha, size=n_docs)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    for d in range(n_docs):
        z = rng.multinomial(doc_length, theta[d])
        for t in np.flatnonzero(z):
            X[d] += rng.multinomial(z[t], phi[t])
    return X, phi


# ---------------------------------------------------------------- kernels


def test_digamma_matches_scipy():
    x = np.concatenate([np.logspace(-4, 4, 200), [0.5, 1.0, 5.9999, 6.0, 123.4]])
    ours = np.array([digamma(v) for v in x])
    np.testing.assert_allclose(ours, sp_digamma(x), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n, p", [(7, 0.3), (2000, 0.37), (100000, 0.001)])
def test_binomial_distribution(n, p):
    state = make_streams(3, 1)[0]
    draws = np.array([binomial(state, n, p) for _ in range(20000)])
    mean, var = n * p, n * p * (1 - p)
    se = np.sqrt(var / draws.size)
    assert abs(draws.mean() - mean) < 5 * se
    assert abs(draws.var() / var - 1) < 0.06
    # chi-square goodness of fit on the central bins
    lo, hi = stats.binom.ppf([0.001, 0.999], n, p).astype(int)
    values = np.arange(lo, hi + 1)
    observed = np.array([(draws == v).sum() for v in values])
    expected = stats.binom.pmf(values, n, p) * draws.size
    keep = expected > 5
    chi = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi, keep.sum() - 1) > 1e-4


def _random_counts(seed, n_docs=30, n_words=25, n_topics=3):
    rng = np.random.RandomState(seed)
    doc_topic = rng.poisson(2.0, size=(n_docs, n_topics)).astype(np.int32)
    doc_topic[rng.rand(n_docs, n_topics) < 0.4] = 0
    word_topic = np.zeros((n_words, n_topics), dtype=np.int32)
    for t in range(n_topics):
        total = doc_topic[:, t].sum()
        word_topic[:, t] = rng.multinomial(total, rng.dirichlet(np.full(n_words, 0.3)))
    return doc_topic, word_topic


def _histograms(doc_topic, word_topic):
    n_topics = doc_topic.shape[1]
    doc_lengths = doc_topic.sum(axis=1).astype(np.int64)
    alpha_hist = np.zeros((n_topics, doc_lengths.max() + 1), dtype=np.int64)
    alpha_max = np.full(n_topics, alpha_hist.shape[1] - 1, dtype=np.int64)
    eta_hist = np.zeros(word_topic.max() + 1, dtype=np.int64)
    eta_max = np.array([eta_hist.size - 1], dtype=np.int64)
    count_histograms(doc_topic, word_topic, alpha_hist, eta_hist, alpha_max, eta_max)
    values, counts = np.unique(doc_lengths[doc_lengths > 0], return_counts=True)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    return dict(
        alpha_hist=alpha_hist, alpha_max=alpha_max, eta_hist=eta_hist, eta_max=eta_max,
        len_values=values.astype(float), len_counts=counts.astype(float),
        topic_total=topic_total, doc_lengths=doc_lengths,
    )


def _log_joint_reference(doc_topic, word_topic, alpha, eta):
    """Dirichlet-multinomial terms written directly from the counts (NumPy)."""
    alpha = np.asarray(alpha, dtype=float)
    n_d = doc_topic.sum(axis=1)
    doc = np.sum(gammaln(alpha.sum()) - gammaln(n_d + alpha.sum())) + np.sum(
        gammaln(doc_topic + alpha) - gammaln(alpha)
    )
    V = word_topic.shape[0]
    m_t = word_topic.sum(axis=0)
    word = np.sum(gammaln(V * eta) - gammaln(m_t + V * eta)) + np.sum(
        gammaln(word_topic + eta) - gammaln(eta)
    )
    return doc + word


def test_histograms_and_log_joint_match_direct_sums():
    doc_topic, word_topic = _random_counts(0)
    hist = _histograms(doc_topic, word_topic)
    assert hist["alpha_hist"][:, 1:].sum() == np.count_nonzero(doc_topic)
    assert hist["eta_hist"][1:].sum() == np.count_nonzero(word_topic)
    for alpha, eta in [(np.array([0.2, 0.7, 1.5]), 0.05), (np.full(3, 0.3), 1.2)]:
        ours = log_joint(alpha, eta, hist["alpha_hist"], hist["alpha_max"],
                         hist["len_values"], hist["len_counts"], hist["eta_hist"],
                         hist["eta_max"], hist["topic_total"], word_topic.shape[0])
        ref = _log_joint_reference(doc_topic, word_topic, alpha, eta)
        np.testing.assert_allclose(ours, ref, rtol=1e-10)


@pytest.mark.parametrize("symmetric", [True, False])
def test_log_posterior_gradient_finite_differences(symmetric):
    doc_topic, word_topic = _random_counts(1)
    hist = _histograms(doc_topic, word_topic)
    u = np.log(np.array([0.4, 0.15])) if symmetric else np.log(np.array([0.2, 0.5, 0.9, 0.15]))
    args = (symmetric, hist["alpha_hist"], hist["alpha_max"], hist["len_values"],
            hist["len_counts"], hist["eta_hist"], hist["eta_max"], hist["topic_total"],
            word_topic.shape[0], 1.0, 0.01)
    grad = np.empty_like(u)
    log_posterior_grad(u, *args, grad)
    numeric = np.empty_like(u)
    scratch = np.empty_like(u)
    for j in range(u.size):
        e = np.zeros_like(u)
        e[j] = 1e-6
        numeric[j] = (log_posterior_grad(u + e, *args, scratch)
                      - log_posterior_grad(u - e, *args, scratch)) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-5)


def _posterior_means_by_quadrature(doc_topic, word_topic, prior_shape, prior_rate):
    """Posterior means of alpha (symmetric) and eta given z, by grid quadrature."""
    hist = _histograms(doc_topic, word_topic)
    n_topics = doc_topic.shape[1]
    grid = np.linspace(1e-3, 5.0, 20000)
    # The two factors of p(z | alpha) p(w | z, eta) separate.
    log_a = np.array([log_joint(np.full(n_topics, a), 1.0, hist["alpha_hist"], hist["alpha_max"],
                                hist["len_values"], hist["len_counts"], hist["eta_hist"],
                                hist["eta_max"], hist["topic_total"], word_topic.shape[0])
                      for a in grid])
    log_e = np.array([log_joint(np.full(n_topics, 1.0), e, hist["alpha_hist"], hist["alpha_max"],
                                hist["len_values"], hist["len_counts"], hist["eta_hist"],
                                hist["eta_max"], hist["topic_total"], word_topic.shape[0])
                      for e in grid])
    means = []
    for lp in (log_a, log_e):
        lp = lp + (prior_shape - 1) * np.log(grid) - prior_rate * grid
        w = np.exp(lp - lp.max())
        means.append(np.sum(w * grid) / np.sum(w))
    return np.array(means)


@pytest.mark.parametrize("sampler", ["augmentation", "hmc"])
def test_h_update_targets_conditional_posterior(sampler):
    """With z fixed, the h-update must leave p(h | z) invariant (quadrature oracle)."""
    doc_topic, word_topic = _random_counts(2, n_docs=40, n_words=20, n_topics=3)
    hist = _histograms(doc_topic, word_topic)
    a, b = 1.0, 0.5
    expected = _posterior_means_by_quadrature(doc_topic, word_topic, a, b)
    states = make_streams(7, 4)
    alpha = np.full(3, 0.5)
    eta = 0.5
    shape_buf = np.empty(1)
    draws = []
    u = np.log(np.array([0.5, 0.5]))
    inv_mass = np.ones(2)
    for it in range(6000):
        if sampler == "augmentation":
            rate, e_shape, e_rate = augmentation_parameters(
                alpha, eta, True, hist["alpha_hist"], hist["alpha_max"], hist["doc_lengths"],
                hist["eta_hist"], hist["eta_max"], hist["topic_total"], word_topic.shape[0],
                a, b, states[:3], shape_buf)
            alpha[:] = gamma_draw(states[3], shape_buf[0], rate)
            eta = gamma_draw(states[3], e_shape, e_rate)
            h = (alpha[0], eta)
        else:
            hmc_update(u, inv_mass, 0.3, 3, True, hist["alpha_hist"], hist["alpha_max"],
                       hist["len_values"], hist["len_counts"], hist["eta_hist"],
                       hist["eta_max"], hist["topic_total"], word_topic.shape[0], a, b,
                       states[3])
            h = tuple(np.exp(u))
        if it >= 500:
            draws.append(h)
    draws = np.array(draws)
    np.testing.assert_allclose(draws.mean(axis=0), expected, rtol=0.05)


# ---------------------------------------------------------------- estimator


@pytest.mark.parametrize("sampler", ["augmentation", "hmc"])
def test_recovery_symmetric(sampler):
    X, _ = lda_corpus(600, 300, 4, 60, 0.3, 0.1, seed=11)
    model = EmpiricalBayesLDA(4, sampler=sampler, n_samples=200, burn_in=100,
                              random_state=0).fit(X)
    assert abs(model.doc_topic_prior_ / 0.3 - 1) < 0.15
    assert abs(model.topic_word_prior_ / 0.1 - 1) < 0.10
    assert isinstance(model.doc_topic_prior_, float)
    assert model.hyperparameter_covariance_.shape == (2, 2)
    if sampler == "hmc":
        assert 0.3 < model.acceptance_rate_ <= 1.0


def test_recovery_asymmetric_with_alignment():
    alpha = np.array([0.2, 0.5, 1.0])
    X, phi = lda_corpus(800, 300, 3, 60, alpha, 0.3, seed=5)
    model = EmpiricalBayesLDA(3, symmetric_alpha=False, n_samples=200, burn_in=100,
                              random_state=1).fit(X)
    est = model.components_ / model.components_.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(np.abs(est[:, None] - phi[None]).sum(axis=2))
    a_hat = np.empty(3)
    a_hat[cols] = model.doc_topic_prior_[rows]
    np.testing.assert_allclose(a_hat, alpha, rtol=0.2)
    assert abs(model.topic_word_prior_ / 0.3 - 1) < 0.10
    assert model.hyperparameter_covariance_.shape == (4, 4)
    assert model.hyperparameter_samples_.shape == (200, 4)


@pytest.fixture(scope="module")
def fitted():
    X, _ = lda_corpus(200, 80, 3, 40, 0.3, 0.2, seed=3)
    model = EmpiricalBayesLDA(3, n_samples=100, burn_in=50, random_state=0).fit(X)
    return model, X


def test_marginal_likelihood_surface_and_region(fitted):
    model, _ = fitted
    a, e = model.doc_topic_prior_, model.topic_word_prior_
    best = model.log_marginal_likelihood(a, e)
    assert isinstance(best, float)
    grid_a, grid_e = np.meshgrid(a * np.linspace(0.7, 1.3, 9), e * np.linspace(0.7, 1.3, 11))
    surface = model.log_marginal_likelihood(grid_a, grid_e)
    assert surface.shape == grid_a.shape
    assert np.all(surface <= best + 1e-6)
    assert model.in_confidence_region(a, e)
    assert not model.in_confidence_region(2 * a, 2 * e)
    cov = model.hyperparameter_covariance_
    assert np.all(np.linalg.eigvalsh(cov) >= 0)
    sd = np.sqrt(np.diag(cov))
    assert np.all(sd > 0) and np.all(sd < 0.2 * np.array([a, e]))


def test_transform_score_perplexity(fitted):
    model, X = fitted
    theta = model.transform(X[:20])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(theta, model.transform(X[:20]))
    score = model.score(X[:20])
    n_tokens = X[:20].sum()
    np.testing.assert_allclose(model.perplexity(X[:20]), np.exp(-score / n_tokens))
    # Better than a uniform model over the vocabulary.
    assert model.perplexity(X) < X.shape[1]
    assert model.n_iter_ == 50 + 100 + model.n_final_iter
    assert model.components_.min() >= model.topic_word_prior_ - 1e-12


def test_reproducible_and_sparse_equivalent(fitted):
    _, X = fitted
    params = dict(n_components=3, n_samples=30, burn_in=10, random_state=42)
    m1 = EmpiricalBayesLDA(**params).fit(X)
    m2 = EmpiricalBayesLDA(**params).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(m1.components_, m2.components_)
    assert m1.doc_topic_prior_ == m2.doc_topic_prior_
    m3 = EmpiricalBayesLDA(**{**params, "random_state": 43}).fit(X)
    assert not np.array_equal(m1.hyperparameter_samples_, m3.hyperparameter_samples_)


def test_input_validation(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="Negative values"):
        EmpiricalBayesLDA(2).fit(-np.ones((3, 4)))
    with pytest.raises(ValueError, match="NaN"):
        EmpiricalBayesLDA(2).fit(np.full((3, 4), np.nan))
    with pytest.raises(ValueError, match="empty"):
        EmpiricalBayesLDA(2).fit(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((2, X.shape[1] + 1)))
    with pytest.raises(ValueError, match="hyperprior"):
        EmpiricalBayesLDA(2, hyperprior=(1.0, -1.0)).fit(X)
    with pytest.raises(ValueError, match="last dimension"):
        model.set_params(symmetric_alpha=False)
        try:
            model.log_marginal_likelihood([0.1, 0.2], 0.1)
        finally:
            model.set_params(symmetric_alpha=True)


def test_verbose_prints(capsys, fitted):
    _, X = fitted
    EmpiricalBayesLDA(2, n_samples=10, burn_in=0, verbose=1, random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "iteration 10/10" in out and "log_joint" in out and "done" in out


@parametrize_with_checks(
    [
        EmpiricalBayesLDA(2, n_samples=8, burn_in=2, n_final_iter=2, n_infer_iter=4,
                          random_state=0),
        EmpiricalBayesLDA(2, sampler="hmc", symmetric_alpha=False, n_samples=8, burn_in=4,
                          n_final_iter=2, n_infer_iter=4, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fixed_hmc_step_and_batches(fitted):
    _, X = fitted
    model = EmpiricalBayesLDA(3, sampler="hmc", hmc_step_size=0.01, n_batches=3, n_samples=30,
                              burn_in=10, random_state=0).fit(X)
    assert model.hmc_step_size_ == 0.01
    # a tiny step on the unit-mass scale is almost always accepted
    assert model.acceptance_rate_ > 0.9
    assert np.isnan(EmpiricalBayesLDA(3, n_samples=10, burn_in=0).fit(X).acceptance_rate_)
