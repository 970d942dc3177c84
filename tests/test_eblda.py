"""Tests of EmpiricalBayesLDA (its kernels: tests/test_priors.py)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pgtm import EmpiricalBayesLDA

from _corpora import lda_corpus


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
    EmpiricalBayesLDA(2, n_samples=10, burn_in=0, n_final_iter=2, verbose=1,
                      random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "sweep 10/" in out and "log_likelihood" in out and "done" in out


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
