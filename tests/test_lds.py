"""MultinomialLDS: kernels against NumPy / quadrature oracles, a Geweke test of
the joint sampler, recovery from data drawn from the model, the estimator's
API, and the embedded Wonderland text."""

import copy
import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from scipy.stats import invwishart, multinomial
from sklearn.utils._param_validation import InvalidParameterError

from _geweke_helpers import batch_means_se
from sklearn_pgtm import MultinomialLDS
from sklearn_pgtm._kernels._lds import (
    calibrate_offsets,
    draw_emission_rows,
    draw_omega,
    emission_statistics,
    forecast_proba,
    row_log_likelihood,
    observation_potentials,
    particle_log_predictive,
    particle_predictive_proba,
)
from sklearn_pgtm._kernels._polyagamma import PG_METHODS, pg_mean, pg_var
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._stick_breaking import stick_breaking, stick_counts
from sklearn_pgtm import _lds
from sklearn_pgtm._lds import (
    _DrawMixture,
    _GibbsChain,
    _KeptDraws,
    _Prior,
    _Sequences,
    _draw_dynamics,
)
from sklearn_pgtm.datasets import load_wonderland
from sklearn_pgtm.datasets._wonderland import TEXT_SHA256, tokenize

EXACT = PG_METHODS["exact"]


def _pi(psi):
    psi = np.atleast_2d(psi)
    out = np.empty((psi.shape[0], psi.shape[1] + 1))
    stick_breaking(np.ascontiguousarray(psi, dtype=float), out)
    return out


def _dense(data, ragged, n_sticks):
    """Ragged per-row stick values -> dense (n_rows, n_sticks), 0 where inactive."""
    out = np.zeros((data.n_rows, n_sticks))
    for t in range(data.n_rows):
        a, b = data.stick_ptr[t], data.stick_ptr[t + 1]
        out[t, : b - a] = ragged[a:b]
    return out


def _random_counts(rng, n_rows, n_categories, total=4):
    X = np.vstack([rng.multinomial(total, rng.dirichlet(np.ones(n_categories)))
                   for _ in range(n_rows)])
    X[3] = 0  # an empty row
    X[5] = 0
    X[5, 0] = 2  # a row whose only category is the first
    return X


# ------------------------------------------------------------------ layout


def test_stick_rows_match_the_shared_stick_counts():
    rng = np.random.default_rng(0)
    X = _random_counts(rng, 12, 5)
    data = _Sequences(sp.csr_matrix(X), np.array([0, 12]), 4)
    totals = np.empty((12, 4))
    stick_counts(X, totals)
    kappa = X[:, :4] - totals / 2
    for t in range(12):
        nonzero = np.flatnonzero(X[t])
        n_active = 0 if nonzero.size == 0 else min(nonzero[-1] + 1, 4)
        a, b = data.stick_ptr[t], data.stick_ptr[t + 1]
        assert b - a == n_active
        np.testing.assert_array_equal(data.totals[a:b], totals[t, :n_active])
        np.testing.assert_array_equal(data.kappa[a:b], kappa[t, :n_active])
        # Beyond the active sticks the stick counts are zero.
        assert np.all(totals[t, n_active:] == 0)
    assert np.all(data.totals > 0)
    np.testing.assert_allclose(
        data.row_log_coef, [multinomial.logpmf(x, x.sum(), np.ones(5) / 5) + x.sum() * np.log(5)
                            for x in X], atol=1e-12)


def test_log_likelihood_matches_scipy_multinomial():
    rng = np.random.default_rng(1)
    X = _random_counts(rng, 10, 4, total=6)
    data = _Sequences(sp.csr_matrix(X), np.array([0, 10]), 3)
    C = rng.normal(size=(3, 2))
    mu = rng.normal(size=3)
    z = rng.normal(size=(10, 2))
    pi = _pi(z @ C.T + mu)
    expected = [multinomial.logpmf(x, x.sum(), p) if x.sum() else 0.0 for x, p in zip(X, pi)]
    got = np.empty(10)
    row_log_likelihood(data.stick_ptr, data.totals, data.kappa, data.row_log_coef, C, mu, z,
                       0, 10, got)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------ Gibbs pieces


def test_omega_draws_have_the_polya_gamma_mean_and_variance():
    rng = np.random.default_rng(2)
    X = _random_counts(rng, 8, 4, total=5)
    data = _Sequences(sp.csr_matrix(X), np.array([0, 8]), 3)
    C = rng.normal(size=(3, 2))
    mu = rng.normal(size=3)
    z = rng.normal(size=(8, 2))
    psi = _dense(data, np.zeros_like(data.totals), 3) + z @ C.T + mu
    psi_ragged = np.concatenate([psi[t, : data.stick_ptr[t + 1] - data.stick_ptr[t]]
                                 for t in range(8)])
    states = make_streams(0, 8)
    omega = np.empty_like(data.totals)
    n_draws = 4000
    draws = np.empty((n_draws, omega.size))
    for i in range(n_draws):
        draw_omega(data.stick_ptr, data.totals, C, mu, z, EXACT, 1, states, 0, 8, omega)
        draws[i] = omega
    means = np.array([pg_mean(b, c) for b, c in zip(data.totals, psi_ragged)])
    sds = np.sqrt([pg_var(b, c) for b, c in zip(data.totals, psi_ragged)])
    z_scores = (draws.mean(axis=0) - means) / (sds / np.sqrt(n_draws))
    assert np.all(np.abs(z_scores) < 4.5)
    np.testing.assert_allclose(draws.std(axis=0), sds, rtol=0.1)


def test_potentials_and_emission_statistics_match_numpy():
    rng = np.random.default_rng(3)
    X = _random_counts(rng, 9, 5)
    data = _Sequences(sp.csr_matrix(X), np.array([0, 9]), 4)
    omega = rng.gamma(1.0, size=data.totals.size)
    C = rng.normal(size=(4, 3))
    mu = rng.normal(size=4)
    z = rng.normal(size=(9, 3))
    J = np.empty((9, 3, 3))
    h = np.empty((9, 3))
    observation_potentials(data.stick_ptr, omega, data.kappa, C, mu, 0, 9, J, h)
    W = _dense(data, omega, 4)
    K = _dense(data, data.kappa, 4)
    for t in range(9):
        np.testing.assert_allclose(J[t], C.T @ np.diag(W[t]) @ C, atol=1e-12)
        np.testing.assert_allclose(h[t], C.T @ (K[t] - W[t] * mu), atol=1e-12)
    gram = np.empty((4, 4, 4))
    moment = np.empty((4, 4))
    # Two blocks of sticks, as two threads would compute them.
    emission_statistics(data.stick_ptr, omega, data.kappa, z, 0, 2, gram, moment)
    emission_statistics(data.stick_ptr, omega, data.kappa, z, 2, 4, gram, moment)
    u = np.c_[z, np.ones(9)]
    for k in range(4):
        full = u.T @ np.diag(W[:, k]) @ u
        np.testing.assert_allclose(np.tril(gram[k]), np.tril(full), atol=1e-12)
        np.testing.assert_allclose(moment[k], u.T @ K[:, k], atol=1e-12)


@pytest.mark.parametrize("offset_scale", [0.0, 0.7])
def test_emission_rows_follow_their_gaussian_conditional(offset_scale):
    rng = np.random.default_rng(4)
    dim, n_sticks = 2, 20000
    u = np.c_[rng.normal(size=(6, dim)), np.ones(6)]
    w = rng.gamma(1.0, size=6)
    r = rng.normal(size=6)
    gram_one = u.T @ np.diag(w) @ u
    gram = np.repeat(np.tril(gram_one)[None], n_sticks, axis=0)
    moment = np.repeat((u.T @ r)[None], n_sticks, axis=0)
    prior = _Prior(dim, np.full(n_sticks, 0.3), emission_scale=1.5, offset_scale=offset_scale,
                   noise_variance=1.0)
    C = np.zeros((n_sticks, dim))
    mu = np.full(n_sticks, 0.3)
    assert draw_emission_rows(gram, moment, prior.emission_precision, prior.offset_mean,
                              prior.offset_precision, make_streams(1, n_sticks), 0, n_sticks,
                              C, mu)
    if offset_scale == 0.0:
        # mu fixed: c ~ N_info(I / s^2 + G_zz, m_z - mu G_z1).
        P = np.eye(dim) / 1.5**2 + gram_one[:dim, :dim]
        hvec = (u.T @ r)[:dim] - 0.3 * gram_one[:dim, dim]
        draws = C
        np.testing.assert_array_equal(mu, 0.3)
    else:
        P = gram_one + np.diag([1 / 1.5**2] * dim + [1 / offset_scale**2])
        hvec = u.T @ r + np.r_[np.zeros(dim), 0.3 / offset_scale**2]
        draws = np.c_[C, mu]
    cov = np.linalg.inv(P)
    mean = cov @ hvec
    se = np.sqrt(np.diag(cov) / n_sticks)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 4.5 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.04 * np.abs(cov).max())


# ------------------------------------------------------- particle filtering


def _grid_weights(sd, n=801, width=8.0):
    grid = np.linspace(-width * sd, width * sd, n)
    w = np.exp(-0.5 * (grid / sd) ** 2)
    return grid, w / w.sum()


def test_calibrated_offsets_match_the_target_counts():
    # Oracle: the stick-breaking probabilities of the calibrated offsets,
    # weighted by the row totals and summed over rows (NumPy map), give the
    # target counts, for targets from very common to far rarer than any row's
    # probability at zero offset.
    rng = np.random.default_rng(3)
    n_rows, dim, n_categories = 80, 3, 12
    C = rng.normal(scale=0.8, size=(n_categories - 1, dim))
    z = rng.normal(size=(n_rows, dim))
    weight = rng.integers(1, 5, size=n_rows).astype(float)
    share = np.r_[0.4, 0.2, rng.dirichlet(np.ones(n_categories - 3)) * 0.4, 1e-4]
    share /= share.sum()
    target = share * weight.sum()
    offset = np.zeros(n_categories - 1)
    calibrate_offsets(C, z, weight, target, offset)
    achieved = (weight[:, None] * _pi(z @ C.T + offset)).sum(axis=0)
    np.testing.assert_allclose(achieved, target, rtol=1e-8)



def test_calibrated_offsets_with_logits_beyond_the_range_of_exp():
    # Emission rows of scale 300 put the rows' logits c_k . z_t far beyond
    # +-709 on both sides, where exp(-x) overflows or underflows inside the
    # Newton steps: the offsets stay finite and still give the target counts
    # (oracle: the stick-breaking map in NumPy, log-sigmoids from scipy).
    from scipy.special import log_expit

    rng = np.random.default_rng(0)
    C = rng.normal(scale=300.0, size=(5, 2))
    z = rng.normal(size=(50, 2))
    weight = np.ones(50)
    target = np.array([0.3, 0.2, 0.2, 0.1, 0.1, 0.1]) * weight.sum()
    offset = np.zeros(5)
    calibrate_offsets(C, z, weight, target, offset)
    assert np.all(np.isfinite(offset))
    psi = z @ C.T + offset
    log_rest = np.cumsum(np.c_[np.zeros(len(z)), log_expit(-psi)], axis=1)
    proba = np.exp(log_rest[:, :-1] + log_expit(psi))
    achieved = np.r_[weight @ proba, weight @ np.exp(log_rest[:, -1])]
    np.testing.assert_allclose(achieved, target, rtol=1e-6)

def test_particle_filter_matches_quadrature():
    # L = 1, three categories, two rows: p(x_0) and p(x_1 | x_0) on a grid.
    A, Q, C, mu = 0.8, 0.5, np.array([[1.0], [-0.7]]), np.array([0.2, -0.1])
    X = np.array([[2, 0, 1], [0, 1, 2]])
    data = _Sequences(sp.csr_matrix(X), np.array([0, 2]), 2)
    z0, w0 = _grid_weights(1.0)
    lik = [np.array([multinomial.pmf(x, x.sum(), p) for p in _pi(z0[:, None] @ C.T + mu)])
           for x in X]
    p0 = np.sum(w0 * lik[0])
    post0 = w0 * lik[0] / p0
    # p(x_1 | x_0) = sum_z0 post0(z0) E[lik1(A z0 + e)], e ~ N(0, Q), on the same grid.
    trans = np.exp(-0.5 * (z0[None, :] - A * z0[:, None]) ** 2 / Q)
    trans /= trans.sum(axis=1, keepdims=True)
    p1 = post0 @ trans @ lik[1]
    n_particles = 40000
    particles = np.empty((n_particles, 1))
    log_pred = np.empty(2)
    particle_log_predictive(data.stick_ptr, data.totals, data.kappa, data.row_log_coef, 0, 2,
                            np.zeros(1), np.eye(1), np.array([[A]]), np.sqrt([[Q]]), C, mu,
                            make_streams(5, 1)[0], particles, log_pred)
    np.testing.assert_allclose(log_pred, np.log([p0, p1]), atol=0.02)
    proba = np.empty((2, 3))
    particle_predictive_proba(data.stick_ptr, data.totals, data.kappa, data.row_log_coef, 0, 2,
                              np.zeros(1), np.eye(1), np.array([[A]]), np.sqrt([[Q]]), C, mu,
                              make_streams(6, 1)[0], particles, log_pred, proba)
    pi_grid = _pi(z0[:, None] @ C.T + mu)
    np.testing.assert_allclose(proba[0], w0 @ pi_grid, atol=0.01)
    np.testing.assert_allclose(proba[1], post0 @ trans @ pi_grid, atol=0.01)
    np.testing.assert_allclose(log_pred, np.log([p0, p1]), atol=0.02)


def test_forecast_matches_quadrature():
    # With A = 0 every forecast step is E[pi(C e + mu)], e ~ N(0, Q).
    C, mu, Q = np.array([[1.5], [0.5], [-1.0]]), np.array([0.5, -0.3, 0.1]), 0.7
    particles = np.full((40000, 1), 3.0)
    proba = np.empty((2, 4))
    forecast_proba(particles, np.zeros((1, 1)), np.sqrt([[Q]]), C, mu, make_streams(0, 1)[0],
                   proba)
    grid, w = _grid_weights(np.sqrt(Q))
    expected = w @ _pi(grid[:, None] @ C.T + mu)
    np.testing.assert_allclose(proba, np.tile(expected, (2, 1)), atol=0.01)


def test_forecast_rolls_the_states_with_the_dynamics_matrix():
    # Nearly noiseless dynamics (noise sd 1e-6): the forecast h steps ahead
    # is pi(C A^h z0 + mu), for a non-symmetric A (A' would show).
    A = np.array([[0.9, 0.6], [-0.4, 0.5]])
    C = np.array([[1.0, -0.5], [0.3, 1.2], [-0.8, 0.4]])
    mu = np.array([0.2, -0.1, 0.3])
    z0 = np.array([1.0, -2.0])
    proba = np.empty((3, 4))
    forecast_proba(np.tile(z0, (10, 1)), A, 1e-6 * np.eye(2), C, mu, make_streams(0, 1)[0],
                   proba)
    states = np.array([np.linalg.matrix_power(A, h) @ z0 for h in (1, 2, 3)])
    np.testing.assert_allclose(proba, _pi(states @ C.T + mu), atol=1e-5)


def test_forecast_noise_has_the_state_noise_covariance():
    # With A = 0 one forecast step leaves the particles at draws of
    # N(0, Q): their sample covariance against a correlated Q, whose factor
    # is lower triangular (its transpose would give another covariance).
    Q = np.array([[1.0, 0.8], [0.8, 2.0]])
    particles = np.zeros((40000, 2))
    forecast_proba(particles, np.zeros((2, 2)), np.linalg.cholesky(Q), np.zeros((1, 2)),
                   np.zeros(1), make_streams(1, 1)[0], np.empty((1, 2)))
    # Entry-wise standard error of a sample covariance: sqrt((q_ii q_jj + q_ij^2) / n).
    se = np.sqrt((np.outer(np.diag(Q), np.diag(Q)) + Q ** 2) / particles.shape[0])
    assert np.all(np.abs(np.cov(particles.T) - Q) < 4.5 * se), np.cov(particles.T)


def test_draw_mixture_weighs_each_draw_by_its_likelihood_of_the_earlier_rows():
    # Oracle: sum_s w_st p_st with w_st proportional to exp(sum of draw s's log
    # predictive over the earlier rows of row t's sequence), normalized over
    # the draws; the mixture folds the draws in one at a time.
    rng = np.random.default_rng(0)
    seq_ptr = np.array([0, 4, 5, 9])
    log_pred = rng.normal(-3.0, 2.0, size=(6, 9)) * np.array([1, 1, 1, 1, 1, 50, 1, 1, 1])
    probas = rng.dirichlet(np.ones(7), size=(6, 9))
    before = np.zeros_like(log_pred)
    for a, b in zip(seq_ptr[:-1], seq_ptr[1:]):
        before[:, a + 1:b] = np.cumsum(log_pred[:, a:b - 1], axis=1)
    weights = np.exp(before - before.max(axis=0))
    expected = np.einsum("sr,srv->rv", weights / weights.sum(axis=0), probas)
    mixture = _DrawMixture(seq_ptr, 9, 7)
    for s in range(6):
        mixture.add(log_pred[s], probas[s])
    np.testing.assert_allclose(mixture.mean(), expected, rtol=1e-12)


def test_next_row_probabilities_do_not_depend_on_how_many_draws_are_held(monkeypatch):
    # predict_next_proba and forecast hold a chunk of draws' probabilities at
    # once (all of them took n_draws times the output: 185 MB for 8 MB of
    # probabilities); the draws are folded in the same order whatever the
    # chunk, which grows with the threads.
    rng = np.random.default_rng(1)
    X = np.eye(6, dtype=int)[rng.integers(6, size=80)]
    lds = MultinomialLDS(2, max_iter=12, n_samples=5, n_particles=30, random_state=0)
    lds.fit(X[:50])
    results = []
    for chunk, n_jobs in ((1, 1), (2, 1), (5, 1), (2, 2)):
        monkeypatch.setattr(_lds, "_PROBA_DRAW_CHUNK", chunk)
        lds.set_params(n_jobs=n_jobs)
        results.append((lds.predict_next_proba(X[50:], lengths=[10, 5, 15]),
                        lds.forecast(4, X[50:], lengths=[10, 5, 15])))
    for next_rows, forecast in results[1:]:
        np.testing.assert_array_equal(next_rows, results[0][0])
        np.testing.assert_array_equal(forecast, results[0][1])


def test_particle_filter_predicts_the_first_row_from_the_start_distribution():
    # The first row is predicted from N(start_mean, start_chol^2) itself, not
    # from one step of the dynamics after it (A = 0 would move the particles
    # to N(0, Q)). Oracle: quadrature over the start distribution.
    C, mu = np.array([[2.0], [-1.0]]), np.array([0.1, 0.0])
    X = np.array([[3, 0, 1]])
    data = _Sequences(sp.csr_matrix(X), np.array([0, 1]), 2)
    grid, w = _grid_weights(0.2)
    pi_grid = _pi((grid + 1.5)[:, None] @ C.T + mu)
    expected = np.log(w @ multinomial.pmf(X[0], 4, pi_grid))
    particles = np.empty((20000, 1))
    log_pred, proba = np.empty(1), np.empty((1, 3))
    args = (data.stick_ptr, data.totals, data.kappa, data.row_log_coef, 0, 1, np.array([1.5]),
            np.array([[0.2]]), np.zeros((1, 1)), np.eye(1), C, mu, make_streams(2, 1)[0],
            particles, log_pred)
    particle_log_predictive(*args)
    assert abs(log_pred[0] - expected) < 0.02, (log_pred, expected)
    particle_predictive_proba(*args, proba)
    assert abs(log_pred[0] - expected) < 0.02, (log_pred, expected)
    np.testing.assert_allclose(proba[0], w @ pi_grid, atol=0.01)


def test_dynamics_draws_have_the_matrix_normal_inverse_wishart_moments():
    # Oracle: Bayesian multivariate regression of z_t on z_{t-1} (pairs inside
    # each of two sequences only), written out here: K_n = (K0^-1 + X'X)^-1,
    # M_n = (M0 K0^-1 + Y'X) K_n, S_n = S0 + M0 K0^-1 M0' + Y'Y - M_n K_n^-1 M_n',
    # nu_n = nu0 + n. Then E[A] = M_n, E[Q] = S_n / (nu_n - L - 1) and
    # Cov(A_ij, A_kl) = E[Q]_ik (K_n)_jl. Few, strongly correlated states make
    # K_n far from diagonal, so a transposed factor of K_n shows.
    prior = _Prior(2, np.zeros(2), emission_scale=1.0, offset_scale=0.0, noise_variance=0.3)
    z = np.array([[1.0, 0.9], [0.8, 0.9], [0.2, 0.1], [-1.0, -0.7], [0.5, 0.6], [0.9, 1.0],
                  [0.3, 0.2]])
    seq_ptr = np.array([0, 4, 7])
    pairs = [(t - 1, t) for t in range(1, 7) if t != 4]
    X = z[[a for a, _ in pairs]]
    Y = z[[b for _, b in pairs]]
    K_n = np.linalg.inv(prior.K0_inv + X.T @ X)
    M_n = (prior.M0 @ prior.K0_inv + Y.T @ X) @ K_n
    S_n = (prior.S0 + prior.M0 @ prior.K0_inv @ prior.M0.T + Y.T @ Y
           - M_n @ np.linalg.inv(K_n) @ M_n.T)
    EQ = S_n / (prior.nu0 + len(pairs) - 3)
    gen = np.random.default_rng(0)
    n = 40000
    A = np.empty((n, 2, 2))
    Q = np.empty((n, 2, 2))
    for i in range(n):
        A[i], Q[i] = _draw_dynamics(z, seq_ptr, prior, gen)
    cov_A = np.kron(EQ, K_n)
    se_A = np.sqrt(np.diag(cov_A) / n)
    assert np.all(np.abs(A.mean(axis=0) - M_n).ravel() < 4.5 * se_A)
    np.testing.assert_allclose(np.cov(A.reshape(n, 4).T), cov_A, rtol=0.06,
                               atol=0.03 * np.abs(cov_A).max())
    np.testing.assert_allclose(Q.mean(axis=0), EQ, rtol=0.05, atol=0.02 * np.abs(EQ).max())


# -------------------------------------------------------------- Geweke test


def _prior_draw(prior, n_sticks, gen):
    dim = prior.dim
    Q = np.atleast_2d(invwishart.rvs(df=prior.nu0, scale=prior.S0, random_state=gen))
    A = prior.M0 + np.linalg.cholesky(Q) @ gen.standard_normal((dim, dim)) @ np.linalg.cholesky(
        np.linalg.inv(prior.K0_inv)).T
    C = gen.standard_normal((n_sticks, dim)) / np.sqrt(prior.emission_precision)
    mu = prior.offset_mean.copy()
    if np.isfinite(prior.offset_precision):
        mu = mu + gen.standard_normal(n_sticks) / np.sqrt(prior.offset_precision)
    return A, Q, C, mu


def _states_and_counts(A, Q, C, mu, seq_ptr, n_counts, gen, P0):
    dim = A.shape[0]
    z = np.empty((seq_ptr[-1], dim))
    for a, b in zip(seq_ptr[:-1], seq_ptr[1:]):
        z[a] = np.linalg.cholesky(P0) @ gen.standard_normal(dim)
        for t in range(a + 1, b):
            z[t] = A @ z[t - 1] + np.linalg.cholesky(Q) @ gen.standard_normal(dim)
    pi = _pi(z @ C.T + mu)
    X = np.vstack([gen.multinomial(n_counts, p / p.sum()) for p in pi])
    return z, X


def _test_functions(A, Q, C, mu, z):
    psi = z @ C.T + mu
    return np.array([
        A[0, 0], A[0, 1], np.log(np.linalg.det(Q)), np.linalg.inv(Q)[0, 1],
        C[0, 0], C[1, 1], C[0, 0] * C[1, 0], mu[1],
        np.tanh(z[0, 0]), np.tanh(z[-1, 1]), expit(psi[2, 0]), expit(psi[-1, 1]),
    ])


@pytest.mark.parametrize("offset_scale", [0.0, 1.0])
def test_geweke_joint_sampler(offset_scale):
    """Geweke (2004): draws of (parameters, states) from the prior (marginal-
    conditional simulator) against a chain that alternates one Gibbs sweep
    with a fresh draw of the counts (successive-conditional simulator); both
    have the prior as their distribution if and only if every conditional of
    the sweep is right."""
    dim, n_categories, n_counts = 2, 3, 3
    seq_ptr = np.array([0, 4, 7])  # two sequences
    prior = _Prior(dim, np.array([0.3, -0.4]), emission_scale=1.0, offset_scale=offset_scale,
                   noise_variance=0.3)
    gen = np.random.default_rng(0 if offset_scale == 0.0 else 1)
    P0 = np.linalg.inv(prior.J_init)
    n_draws = 6000
    forward = np.array([
        _test_functions(*(params := _prior_draw(prior, 2, gen)),
                        _states_and_counts(*params, seq_ptr, n_counts, gen, P0)[0])
        for _ in range(n_draws)
    ])
    A, Q, C, mu = _prior_draw(prior, 2, gen)
    z, X = _states_and_counts(A, Q, C, mu, seq_ptr, n_counts, gen, P0)
    chain = _GibbsChain(_Sequences(sp.csr_matrix(X), seq_ptr, 2), prior, 5, 1, "exact", 1)
    chain.set_parameters(A, Q, C, mu, z)
    backward = np.empty_like(forward)
    for i in range(n_draws):
        chain.sweep()
        z, X = _states_and_counts(chain.A, chain.Q, chain.C, chain.mu, seq_ptr, n_counts, gen,
                                  P0)
        chain.z = z
        chain.set_data(_Sequences(sp.csr_matrix(X), seq_ptr, 2))
        backward[i] = _test_functions(chain.A, chain.Q, chain.C, chain.mu, z)
    se_chain = batch_means_se(backward, 50)
    se_forward = forward.std(axis=0, ddof=1) / np.sqrt(n_draws)
    z_scores = (backward.mean(axis=0) - forward.mean(axis=0)) / np.hypot(se_chain, se_forward)
    assert np.all(np.abs(z_scores) < 4.0), np.round(z_scores, 2)


# --------------------------------------------------------------- estimator


def _simulate(seed, n_rows=400, n_counts=30):
    """A 2-d rotation-with-decay system observed through 6 categories."""
    rng = np.random.default_rng(seed)
    angle, radius = 0.2, 0.97
    A = radius * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    Q = 0.02 * np.eye(2)
    C = 2.0 * rng.normal(size=(5, 2))
    mu = np.array([0.5, 0.0, -0.3, 0.2, 0.0])
    z = np.empty((n_rows, 2))
    z[0] = rng.normal(scale=0.5, size=2)
    for t in range(1, n_rows):
        z[t] = A @ z[t - 1] + rng.multivariate_normal(np.zeros(2), Q)
    pi = _pi(z @ C.T + mu)
    X = np.vstack([rng.multinomial(n_counts, p / p.sum()) for p in pi])
    return X, pi, A


def test_recovers_dynamics_spectrum_and_probabilities():
    X, pi, A = _simulate(0)
    lds = MultinomialLDS(2, max_iter=150, random_state=0).fit(X)
    true = np.sort_complex(np.linalg.eigvals(A))
    fitted = np.sort_complex(np.linalg.eigvals(lds.dynamics_matrix_))
    np.testing.assert_allclose(np.abs(fitted), np.abs(true), atol=0.04)
    np.testing.assert_allclose(np.abs(np.angle(fitted)), np.abs(np.angle(true)), atol=0.06)
    smoothed = lds.predict_proba(X)
    raw = X / X.sum(axis=1, keepdims=True)
    err_smoothed = np.abs(smoothed - pi).sum(axis=1).mean()
    err_raw = np.abs(raw - pi).sum(axis=1).mean()
    assert err_smoothed < 0.5 * err_raw, (err_smoothed, err_raw)
    np.testing.assert_allclose(smoothed.sum(axis=1), 1.0)


def test_recovers_a_fast_rotation_next_to_a_slow_one():
    # Two damped rotations (0.98 e^{+-0.15i}, 0.9 e^{+-0.6i}) seen through 20
    # categories. Without the offset calibration the chain spent a state
    # dimension on a constant correction of the offsets (eigenvalue ~0.999)
    # and returned the fast pair as two real eigenvalues (benchmarks/lds.py).
    rng = np.random.default_rng(0)
    A = np.zeros((4, 4))
    for block, (radius, angle) in enumerate([(0.98, 0.15), (0.9, 0.6)]):
        c, s = np.cos(angle), np.sin(angle)
        A[2 * block:2 * block + 2, 2 * block:2 * block + 2] = radius * np.array([[c, -s],
                                                                                  [s, c]])
    C = rng.normal(size=(19, 4))
    mu = rng.normal(scale=0.5, size=19) - np.log(np.arange(19, 0, -1))
    z = np.zeros((1000, 4))
    for t in range(1, 1000):
        z[t] = A @ z[t - 1] + rng.normal(scale=np.sqrt(0.02), size=4)
    X = np.vstack([rng.multinomial(20, p / p.sum()) for p in _pi(z @ C.T + mu)])
    lds = MultinomialLDS(4, max_iter=100, random_state=0).fit(X)
    fitted = np.linalg.eigvals(lds.dynamics_matrix_)
    for radius, angle in [(0.98, 0.15), (0.9, 0.6)]:
        nearest = fitted[np.argmin(np.abs(fitted - radius * np.exp(1j * angle)))]
        assert abs(abs(nearest) - radius) < 0.05, fitted
        assert abs(abs(np.angle(nearest)) - angle) < 0.06, fitted


@pytest.fixture(scope="module")
def small_fit():
    X, _, _ = _simulate(1, n_rows=60, n_counts=5)
    return X, MultinomialLDS(2, max_iter=30, n_particles=100, random_state=0).fit(
        X, lengths=[40, 20])


def test_same_seed_same_result_for_any_n_jobs(small_fit):
    X, lds = small_fit
    other = MultinomialLDS(2, max_iter=30, n_particles=100, random_state=0, n_jobs=2).fit(
        X, lengths=[40, 20])
    for name in ("dynamics_matrix_", "dynamics_covariance_", "emission_matrix_",
                 "emission_offset_", "log_likelihood_trace_"):
        np.testing.assert_array_equal(getattr(lds, name), getattr(other, name))
    np.testing.assert_array_equal(lds.transform(X, lengths=[40, 20]),
                                  other.transform(X, lengths=[40, 20]))
    assert lds.score(X, lengths=[40, 20]) == other.score(X, lengths=[40, 20])


def test_inference_averages_the_second_half_of_its_sweeps(small_fit, monkeypatch):
    # Not the topic models' rule (all but the first eighth): the states start
    # at zero (benchmarks/inference.py --part lds). The LDS reads its own
    # divisor, and the shared one does not change it.
    import sklearn_pgtm._base as base
    import sklearn_pgtm._lds as lds_module

    X, lds = small_fit
    expected = lds.transform(X[:10])
    monkeypatch.setattr(base, "INFER_BURN_IN_DIVISOR", 3)
    np.testing.assert_array_equal(lds.transform(X[:10]), expected)
    assert lds_module.INFER_BURN_IN_DIVISOR == 2
    monkeypatch.setattr(lds_module, "INFER_BURN_IN_DIVISOR", 8)
    assert not np.allclose(lds.transform(X[:10]), expected)


def test_post_fit_methods_are_deterministic_and_well_formed(small_fit):
    X, lds = small_fit
    np.testing.assert_array_equal(lds.transform(X[:10]), lds.transform(X[:10]))
    assert lds.transform(X[:10]).shape == (10, 2)
    next_proba = lds.predict_next_proba(X[:15])
    np.testing.assert_allclose(next_proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(next_proba, lds.predict_next_proba(X[:15]))
    fc = lds.forecast(4)
    np.testing.assert_allclose(fc.sum(axis=1), 1.0)
    np.testing.assert_array_equal(fc, lds.forecast(4))
    np.testing.assert_allclose(lds.forecast(2, X[:15]).sum(axis=1), 1.0)
    s1, s2 = lds.score(X[:15]), lds.score(X[:15], continue_training=True)
    assert np.isfinite(s1) and np.isfinite(s2)
    Xs, Z = lds.sample(25, n_counts=5, random_state=0)
    assert Xs.shape == (25, 6) and Z.shape == (25, 2)
    np.testing.assert_array_equal(Xs.sum(axis=1), 5)
    np.testing.assert_array_equal(Xs, lds.sample(25, n_counts=5, random_state=0)[0])
    assert lds.n_iter_ == 30 and lds.log_likelihood_trace_.shape == (30,)
    assert sorted(lds.category_order_) == list(range(6))


def test_score_is_the_chain_rule_of_next_row_probabilities(small_fit):
    # For one-hot rows, the per-row predictive of score is log p(next row);
    # predict_next_proba gives the same probabilities (up to Monte Carlo).
    X, lds = small_fit
    tokens = np.eye(6, dtype=int)[np.argmax(X[:12], axis=1)]
    proba = lds.predict_next_proba(tokens)
    exact_ll = np.log(proba[np.arange(12), np.argmax(tokens, axis=1)]).sum() / 12
    assert abs(lds.score(tokens) - exact_ll) < 0.1


def test_input_validation(small_fit):
    X, lds = small_fit
    with pytest.raises(ValueError, match="lengths sum to 59"):
        MultinomialLDS(2, max_iter=2).fit(X, lengths=[40, 19])
    with pytest.raises(ValueError, match="at least 1"):
        MultinomialLDS(2, max_iter=2).fit(X, lengths=[60, 0])
    # Lengths whose int64 sum wraps around to the number of rows (accepted,
    # then an IndexError).
    with pytest.raises(ValueError, match=f"lengths sum to {2**64 + 60}"):
        MultinomialLDS(2, max_iter=2).fit(X, lengths=np.array([2**62] * 3 + [2**62 + 60]))
    with pytest.raises(ValueError, match="Negative values"):
        MultinomialLDS(2, max_iter=2).fit(-X)
    with pytest.raises(ValueError, match="one sequence"):
        lds.score(X, lengths=[30, 30], continue_training=True)
    with pytest.raises(ValueError, match="features"):
        lds.transform(X[:, :4])
    with pytest.raises(ValueError, match="n_steps"):
        lds.forecast(0)
    with pytest.raises(ValueError, match="lengths describe the sequences of X"):
        lds.forecast(2, lengths=[30, 30])  # was ignored silently
    with pytest.raises(ValueError, match="no positive count"):
        MultinomialLDS(2, max_iter=2).fit(np.zeros((6, 3)))


def test_lengths_in_second_place_are_not_ignored_silently(small_fit):
    # hmmlearn's fit(X, lengths) put the lengths in y, which was ignored: X
    # was fitted (and scored) as one sequence without a word.
    X, lds = small_fit
    with pytest.raises(ValueError, match="2 values for the 60 rows of X.*lengths="):
        MultinomialLDS(2, max_iter=2).fit(X, [30, 30])
    with pytest.raises(ValueError, match="2 values for the 60 rows of X"):
        MultinomialLDS(2, max_iter=2).fit_transform(X, [30, 30])
    with pytest.raises(ValueError, match="2 values for the 60 rows of X"):
        lds.score(X, [30, 30])
    # A target of one value per row, as a Pipeline passes it, is still ignored.
    y = np.arange(60) % 2
    fitted = MultinomialLDS(2, max_iter=2, random_state=0).fit(X, y)
    plain = MultinomialLDS(2, max_iter=2, random_state=0).fit(X)
    np.testing.assert_array_equal(fitted.emission_matrix_, plain.emission_matrix_)
    assert lds.score(X[:10], y[:10]) == lds.score(X[:10])


@pytest.mark.parametrize("sign", [1, -1])
def test_n_jobs_zero_is_refused_by_the_parameter_validation(small_fit, sign):
    # Refused up front, as by the topic models (N_JOBS_CONSTRAINT): it passed
    # the validation ([Integral, None]) and failed in fit, after the checks of
    # X (which reported negative counts first), with a plain ValueError.
    X, _ = small_fit
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        MultinomialLDS(2, max_iter=2, n_jobs=0).fit(sign * X)


@pytest.mark.parametrize("setting", [{"n_particles": 0}, {"n_particles": 2.5},
                                     {"n_infer_iter": 2.5}, {"n_jobs": 0}])
def test_inference_settings_set_after_fit_are_validated_at_the_call(small_fit, setting):
    # Read at each call, and set_params does not validate: n_particles=0 made
    # score divide by zero, 2.5 failed in numpy naming no parameter.
    X, lds = small_fit
    lds = copy.deepcopy(lds).set_params(**setting)
    name = next(iter(setting))
    for method in (lds.transform, lds.predict_proba, lds.score, lds.predict_next_proba,
                   lambda Z: lds.forecast(2, Z), lambda Z: lds.forecast(2)):
        with pytest.raises(InvalidParameterError, match=name):
            method(X)


@pytest.mark.parametrize("params", [
    {"state_noise_prior": 1e-18}, {"state_noise_prior": 1e30}, {"emission_prior_scale": 1e-300},
    {"emission_prior_scale": 1e160}, {"offset_prior_scale": 1e-300},
    {"offset_prior_scale": 1e160}])
def test_prior_settings_beyond_float_precision_are_refused(params):
    # Accepted by the validation (any positive value), they failed inside fit:
    # LinAlgError (the posterior scale of Q rounded to not positive definite),
    # ZeroDivisionError and OverflowError (the precisions 1 / scale**2); a
    # huge state noise gave a NaN score.
    X, _, _ = _simulate(1, n_rows=30, n_counts=3)
    name = next(iter(params))
    with pytest.raises(InvalidParameterError, match=name):
        MultinomialLDS(2, max_iter=3, random_state=0, **params).fit(X)


def test_prior_settings_at_the_limits_fit():
    X, _, _ = _simulate(1, n_rows=30, n_counts=3)
    for params in ({"state_noise_prior": 1e-10}, {"state_noise_prior": 1e4},
                   {"emission_prior_scale": 1e-150},
                   {"offset_prior_scale": 1e-150}, {"offset_prior_scale": 1e150},
                   {"offset_prior_scale": 0}):
        lds = MultinomialLDS(2, max_iter=4, n_particles=10, random_state=0, **params).fit(X)
        score = lds.score(X)
        assert np.isfinite(score) and score > -10.0, params


def test_burn_in_must_leave_a_sweep():
    # A burn_in >= max_iter used to be cut to max_iter - 1, keeping one draw
    # instead of n_samples without a word.
    X, _, _ = _simulate(2, n_rows=20, n_counts=3)
    for burn_in in (6, 10):
        with pytest.raises(ValueError, match=f"burn_in={burn_in} must be smaller than "
                                             "max_iter=6"):
            MultinomialLDS(2, max_iter=6, burn_in=burn_in).fit(X)
    lds = MultinomialLDS(2, max_iter=6, burn_in=5, n_samples=3, n_particles=10,
                         random_state=0).fit(X)
    assert lds._draws.n_draws == 1
    # The default burn_in, "auto" (max_iter // 2), works for any max_iter.
    assert MultinomialLDS().burn_in == "auto"
    lds = MultinomialLDS(2, max_iter=1, n_samples=3, n_particles=10, random_state=0).fit(X)
    assert lds._draws.n_draws == 1
    auto = MultinomialLDS(2, max_iter=6, n_samples=2, n_particles=10, random_state=0).fit(X)
    half = MultinomialLDS(2, max_iter=6, burn_in=3, n_samples=2, n_particles=10,
                          random_state=0).fit(X)
    np.testing.assert_array_equal(auto.predict_proba(X), half.predict_proba(X))


def test_initial_state_is_the_documented_prior():
    X, _, _ = _simulate(2, n_rows=20, n_counts=3)
    lds = MultinomialLDS(3, max_iter=2, state_noise_prior=0.05, random_state=0).fit(X)
    np.testing.assert_array_equal(lds.initial_state_mean_, np.zeros(3))
    np.testing.assert_allclose(lds.initial_state_covariance_,
                               0.05 / (1 - 0.99**2) * np.eye(3))


def test_failed_fit_keeps_the_previous_model(small_fit):
    # A refit rejected after n_features_in_ was reset used to leave the old
    # parameters with the new width (IndexError in transform, a heap overrun
    # in sample).
    import copy

    X, fitted = small_fit
    lds = copy.deepcopy(fitted)
    before = lds.transform(X)
    with pytest.raises(ValueError, match="lengths sum to 10"):
        lds.fit(X[:12, :3], lengths=[5, 5])
    assert lds.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(lds.transform(X), before)
    assert lds.sample(5)[0].shape == (5, X.shape[1])


# Read at each call: the settings of the inference on new data (documented).
_LIVE_PARAMS = {"n_infer_iter", "n_particles", "n_jobs"}
# Other valid values of the parameters read at fit (n_components first: the
# shape of transform showed the bug at once).
_OTHER_VALUES = {
    "n_components": [3, 1], "max_iter": [2], "burn_in": [0, 1], "n_samples": [2],
    "pg_method": ["exact", "gaussian", "truncated"], "pg_terms": [2],
    "state_noise_prior": [0.5], "emission_prior_scale": [1.0], "offset_prior_scale": [0.3],
    "offset_pseudo_count": [3.0], "calibrate_offset": [False], "category_order": ["given"],
    "random_state": [7], "verbose": [1],
}


def _post_fit_outputs(lds, X):
    out = {"transform": lds.transform(X, lengths=[10, 5]),
           "predict_proba": lds.predict_proba(X),
           "predict_next_proba": lds.predict_next_proba(X, lengths=[10, 5]),
           "score": lds.score(X), "score_continued": lds.score(X, continue_training=True),
           "forecast": lds.forecast(3), "forecast_after_X": lds.forecast(2, X),
           "feature_names": lds.get_feature_names_out()}
    out["sample"], out["sample_states"] = lds.sample(6, n_counts=4, random_state=0)
    return out


def _assert_same_outputs(lds, X, expected, setting):
    outputs = _post_fit_outputs(lds, X)
    for key, value in expected.items():
        np.testing.assert_array_equal(outputs[key], value, err_msg=f"{setting}: {key}")


def test_set_params_after_fit_leaves_the_fitted_model_unchanged(small_fit):
    # A fitted estimator behaves as fitted until it is fitted again
    # (scikit-learn's convention). Before, the post-fit methods read
    # n_components, pg_method and pg_terms as set now: set_params(n_components=3)
    # on a 2-d fit made transform return 3 columns, its kernels given state
    # arrays of another width than the fitted matrices.
    import copy

    X, fitted = small_fit
    X = X[:15]
    lds = copy.deepcopy(fitted)
    expected = _post_fit_outputs(lds, X)
    params = lds.get_params()
    assert set(params) - _LIVE_PARAMS == set(_OTHER_VALUES)  # none forgotten
    others = [(name, value) for name, values in _OTHER_VALUES.items() for value in values
              if value != params[name]]
    for param, value in others:
        lds.set_params(**{param: value})
        _assert_same_outputs(lds, X, expected, f"{param}={value!r}")
        lds.set_params(**{param: params[param]})
    lds.set_params(**dict(others))
    _assert_same_outputs(lds, X, expected, "all changed")
    # The settings of the inference apply from the next call; threads do not
    # change the results.
    lds.set_params(n_jobs=2)
    _assert_same_outputs(lds, X, expected, "n_jobs=2")
    lds.set_params(n_infer_iter=3, n_particles=7)
    outputs = _post_fit_outputs(lds, X)
    for key in ("transform", "predict_proba", "predict_next_proba", "score", "forecast_after_X"):
        assert np.shape(outputs[key]) == np.shape(expected[key])
        assert np.all(np.isfinite(outputs[key])) and not np.array_equal(outputs[key],
                                                                         expected[key]), key
    assert outputs["forecast"].shape == expected["forecast"].shape


def test_rows_of_billions_of_counts():
    # Rows are not expanded into tokens: the topic models' int32 limit per
    # document does not apply; beyond 2**53 the counts are no longer exact.
    X = np.random.RandomState(0).poisson(3, (20, 5)).astype(float)
    X[3] = [3e9, 1e9, 5e8, 1, 0]
    lds = MultinomialLDS(2, max_iter=6, n_particles=20, random_state=0).fit(X)
    assert np.all(np.isfinite(lds.predict_proba(X))) and np.isfinite(lds.score(X))
    X[3, 0] = 2.0 ** 54
    with pytest.raises(ValueError, match="a row has .* counts; at most"):
        MultinomialLDS(2, max_iter=2).fit(X)


def test_sample_arguments_are_checked(small_fit):
    _, lds = small_fit
    for kwargs, match in [({"n_samples": 0}, "n_samples must be a positive integer"),
                          ({"n_samples": 2.0}, "n_samples must be a positive integer"),
                          ({"n_samples": 3, "n_counts": [1, 2]}, "one integer or 3 integers"),
                          ({"n_counts": 1.7}, "non-negative integers"),
                          ({"n_counts": -1}, "non-negative integers")]:
        with pytest.raises(ValueError, match=match):
            lds.sample(**kwargs)
    X, _ = lds.sample(3, n_counts=[1, 0, 4], random_state=0)
    np.testing.assert_array_equal(X.sum(axis=1), [1, 0, 4])


def test_unstable_dynamics_overflow_with_a_clear_error(small_fit):
    """A draw of A with spectral radius above 1 grows the states as its power:
    after about 1,750 steps at 1.5 they left float64, and sample raised numpy's
    'pvals contains NaNs' while forecast returned NaN rows."""
    _, fitted = small_fit
    lds = copy.deepcopy(fitted)
    unstable = 1.5 * np.eye(lds.dynamics_matrix_.shape[0])
    lds.dynamics_matrix_ = unstable
    lds._draws.A[0] = unstable
    for method, unit in [(lambda n: lds.sample(n, n_counts=3, random_state=0)[1], "rows"),
                         (lds.forecast, "steps")]:
        with pytest.raises(ValueError, match=rf"overflow float64 at step \d+ of the 3000 "
                           rf"{unit}: .*spectral radius 1.5 > 1") as error:
            method(3000)
        n_ok = int(re.search(rf"at most (\d+) {unit}", str(error.value)).group(1))
        assert 1000 < n_ok < 2000
        assert np.all(np.isfinite(method(n_ok)))


def test_degenerate_inputs():
    # One category: nothing to predict, probabilities are 1.
    X = np.full((5, 1), 3)
    lds = MultinomialLDS(2, max_iter=3, n_particles=20, random_state=0).fit(X)
    np.testing.assert_allclose(lds.predict_proba(X), 1.0)
    assert lds.score(X) == 0.0
    # One row, sparse input, empty rows.
    X = sp.csr_matrix(np.array([[0, 2, 1], [0, 0, 0], [1, 0, 0]]))
    lds = MultinomialLDS(1, max_iter=3, n_particles=20, random_state=0).fit(X)
    assert np.all(np.isfinite(lds.transform(X)))
    MultinomialLDS(1, max_iter=3, n_particles=20, random_state=0).fit(X[:1])


def test_verbose_prints_progress_and_summary(capsys):
    X, _, _ = _simulate(2, n_rows=20, n_counts=3)
    MultinomialLDS(2, max_iter=4, verbose=1, random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "sweep 4/4" in out and "done in" in out


# ----------------------------------------------------------------- dataset


def test_wonderland_text_and_tokens():
    alice = load_wonderland(n_words=None)
    assert hashlib.sha256(alice.text.encode("ascii")).hexdigest() == TEXT_SHA256
    assert alice.text.lstrip().startswith("ALICE'S ADVENTURES IN WONDERLAND")
    assert alice.text.rstrip().endswith("THE END")
    assert len(alice.words) == 26683 and len(alice.vocabulary) == 2636
    assert tokenize("`Don't,' said ALICE's cat--the end.") == [
        "don't", "said", "alice's", "cat", "the", "end"]
    counts = alice.word_counts
    assert np.all(np.diff(counts) <= 0)
    small = load_wonderland(n_words=1000, n_tokens=4000)
    assert small.X.shape == (4000, 1000)
    np.testing.assert_array_equal(small.X.sum(axis=1), 1)
    np.testing.assert_array_equal(small.X.indices, small.token_ids)
    np.testing.assert_array_equal(small.vocabulary[small.token_ids], alice.words[small.positions])
    np.testing.assert_array_equal(small.vocabulary, alice.vocabulary[:1000])
    with pytest.raises(ValueError, match="n_words"):
        load_wonderland(n_words=0)


def test_wonderland_build_script_reproduces_the_file(tmp_path):
    # Needs the brotli 1.2.1 source distribution (pip download brotli==1.2.1
    # --no-deps --no-binary :all:); skipped when it is not at hand.
    from sklearn_pgtm.datasets import _build_wonderland as build

    candidates = [Path("/tmp/pkgx/brotli-1.2.1.tar.gz"),
                  Path(__file__).resolve().parents[1].parent / "shared" / "data"
                  / "brotli-1.2.1.tar.gz"]
    sdist = next((p for p in candidates if p.exists()), None)
    if sdist is None:
        pytest.skip("brotli-1.2.1.tar.gz is not available")
    text = build.normalized_text(build.read_source(sdist))
    target = tmp_path / "wonderland.txt.gz"
    build.write(text, target)
    assert target.read_bytes() == build.DATA_FILE.read_bytes()
    assert gzip.decompress(target.read_bytes()).decode() == load_wonderland().text


def test_inverse_wishart_draws_match_scipy_moments():
    from sklearn_pgtm._lds import _inverse_wishart

    scale = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 1.5]])
    df = 9.0
    gen = np.random.default_rng(0)
    draws = np.array([_inverse_wishart(scale, df, gen) for _ in range(20000)])
    reference = invwishart.rvs(df=df, scale=scale, size=20000, random_state=1)
    np.testing.assert_allclose(draws.mean(axis=0), scale / (df - 3 - 1), atol=0.01)
    np.testing.assert_allclose(draws.mean(axis=0), reference.mean(axis=0), atol=0.015)
    np.testing.assert_allclose(draws.var(axis=0), reference.var(axis=0), rtol=0.15, atol=1e-3)


@pytest.mark.parametrize("max_iter, calibrate, expected", [(60, True, 12), (10, True, 5),
                                                            (60, False, 0)])
def test_offsets_are_calibrated_over_the_first_sweeps_only(monkeypatch, max_iter, calibrate,
                                                             expected):
    # After each of the first _CALIBRATION_SWEEPS sweeps, or of the burn-in
    # (max_iter // 2) if shorter; never without calibrate_offset. Calibrating
    # through the whole burn-in let the states drift (the text benchmark's
    # score fell with the length of the chain).
    calls = []
    original = _GibbsChain.calibrate_offsets

    def counted(chain, row_weight, target):
        calls.append(1)
        return original(chain, row_weight, target)

    monkeypatch.setattr(_GibbsChain, "calibrate_offsets", counted)
    X = _simulate(0, n_rows=60)[0]
    MultinomialLDS(2, max_iter=max_iter, n_samples=2, calibrate_offset=calibrate,
                   random_state=0).fit(X)
    assert len(calls) == expected


# ------------------------------------- post-fit predictions against a grid


def _fitted_with_draws(draws, n_particles=20000):
    """A fitted 1-state, 3-category model whose kept posterior draws are
    ``draws`` (tuples A, Q, C (2, 1), mu (2,), z_end), columns in stick
    order (``category_order="given"``); the last draw is the point estimate."""
    X = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    lds = MultinomialLDS(1, max_iter=2, n_infer_iter=2, n_particles=n_particles,
                         category_order="given", random_state=0).fit(X)
    kept = _KeptDraws()
    for A, Q, C, mu, z_end in draws:
        kept._kept.append((np.array([[A]]), np.array([[Q]]), np.array(C, dtype=float),
                           np.array(mu, dtype=float), np.array([z_end], dtype=float)))
    lds._draws = kept.stack()
    A, Q, C, mu, _ = draws[-1]
    lds.dynamics_matrix_, lds.dynamics_covariance_ = np.array([[A]]), np.array([[Q]])
    lds.emission_matrix_, lds.emission_offset_ = np.array(C, float), np.array(mu, float)
    return lds


_GRID = np.linspace(-7.0, 7.0, 1601)


def _grid_filter(X, A, Q, C, mu, m0, P0):
    """Exact filter of one sequence (L = 1) on a grid: returns log p(x_t |
    x_<t) per row, the predictive probabilities of each row before it is
    seen, the filtered densities of the rows (one row each), the
    transition matrix and the probabilities at every grid point."""
    grid = _GRID
    pi_grid = _pi(grid[:, None] * np.ravel(C)[None, :] + mu)
    trans = np.exp(-0.5 * (grid[None, :] - A * grid[:, None]) ** 2 / Q)
    trans /= trans.sum(axis=1, keepdims=True)
    pred = np.exp(-0.5 * (grid - m0) ** 2 / P0)
    pred /= pred.sum()
    log_pred, proba, filtered = [], [], []
    for t, x in enumerate(X):
        if t > 0:
            pred = pred @ trans
        lik = multinomial.pmf(x, x.sum(), pi_grid)
        proba.append(pred @ pi_grid)
        p = pred @ lik
        log_pred.append(np.log(p))
        pred = pred * lik / p
        filtered.append(pred)
    return np.array(log_pred), np.array(proba), np.array(filtered), trans, pi_grid


# Two kept draws with different dynamics, noise and emissions: their
# likelihoods of the rows differ, so every mixture over draws shows.
_DRAWS = [(0.9, 0.3, [[1.5], [-1.0]], [0.3, -0.2], 1.2),
          (-0.5, 0.8, [[-0.8], [0.6]], [-0.4, 0.5], -0.7)]
_ROWS = np.array([[3, 0, 1], [2, 1, 1], [0, 1, 3], [1, 0, 3], [4, 0, 0]])


def _mixture(per_draw_log, per_draw_values):
    """Bayes' mixture over the draws with weights p_s(earlier rows)."""
    w = np.exp(per_draw_log - per_draw_log.max())
    return np.einsum("s,s...->...", w / w.sum(), per_draw_values)


def test_score_and_next_row_probabilities_match_the_grid_filter():
    # Oracle: the exact filter of each draw on a grid. score averages the
    # draws' likelihoods of the whole sequence (the log of the mean, not the
    # mean of the logs); predict_next_proba weighs each draw by its
    # likelihood of the rows *before* row t (not including row t).
    lds = _fitted_with_draws(_DRAWS)
    runs = [_grid_filter(_ROWS, A, Q, C, mu, 0.0, lds.initial_state_covariance_[0, 0])
            for A, Q, C, mu, _ in _DRAWS]
    per_draw = np.array([r[0].sum() for r in runs])
    expected = (np.logaddexp.reduce(per_draw) - np.log(2)) / _ROWS.sum()
    assert abs(lds.score(_ROWS) - expected) < 0.01, (lds.score(_ROWS), expected)
    before = np.array([np.concatenate(([0.0], np.cumsum(r[0])[:-1])) for r in runs])
    proba = np.array([r[1] for r in runs])
    expected_next = np.array([_mixture(before[:, t], proba[:, t]) for t in range(len(_ROWS))])
    np.testing.assert_allclose(lds.predict_next_proba(_ROWS), expected_next, atol=0.01)
    # Two sequences: each starts afresh, its draws weighed by its own rows.
    for rows, got in [(_ROWS[:2], lds.predict_next_proba(_ROWS, lengths=[2, 3])[:2]),
                      (_ROWS[2:], lds.predict_next_proba(_ROWS, lengths=[2, 3])[2:])]:
        runs = [_grid_filter(rows, A, Q, C, mu, 0.0, lds.initial_state_covariance_[0, 0])
                for A, Q, C, mu, _ in _DRAWS]
        before = np.array([np.concatenate(([0.0], np.cumsum(r[0])[:-1])) for r in runs])
        proba = np.array([r[1] for r in runs])
        np.testing.assert_allclose(
            got, [_mixture(before[:, t], proba[:, t]) for t in range(len(rows))], atol=0.01)


def test_continued_score_starts_one_step_after_the_training_end():
    # continue_training: the first row is predicted from A z_end + N(0, Q)
    # (z_end far from A z_end, Q far from the initial state covariance, and
    # the emission steep, so that either would show).
    draw = (0.3, 0.01, [[3.0], [-2.0]], [0.3, -0.2], 2.5)
    lds = _fitted_with_draws([draw])
    A, Q, C, mu, z_end = draw
    log_pred, proba = _grid_filter(_ROWS, A, Q, C, mu, A * z_end, Q)[:2]
    assert abs(lds.score(_ROWS, continue_training=True) - log_pred.sum() / _ROWS.sum()) < 0.01
    np.testing.assert_allclose(lds.predict_next_proba(_ROWS, continue_training=True), proba,
                               atol=0.01)


def test_forecast_matches_the_grid_filter():
    # Without X: each draw rolls z_end forward (z_h ~ N(A^h z_end, ...)),
    # draws averaged with equal weights. With X of two sequences: the last
    # sequence's filtered state is rolled forward, the draws weighed by
    # their likelihood of both sequences (the parameters are shared; the
    # weights once came from the last sequence alone, leaving the first
    # sequence out of the forecast).
    lds = _fitted_with_draws(_DRAWS)
    P0 = lds.initial_state_covariance_[0, 0]
    n_steps = 3
    without, with_x, weights_log = [], [], []
    for A, Q, C, mu, z_end in _DRAWS:
        log_pred, _, filtered, trans, pi_grid = _grid_filter(_ROWS[2:], A, Q, C, mu, 0.0, P0)
        post = filtered[-1]
        state = np.exp(-0.5 * (_GRID - A * z_end) ** 2 / Q)
        state /= state.sum()
        steps = [state @ pi_grid]
        for _ in range(n_steps - 1):
            state = state @ trans
            steps.append(state @ pi_grid)
        without.append(steps)
        steps, state = [], post
        for _ in range(n_steps):
            state = state @ trans
            steps.append(state @ pi_grid)
        with_x.append(steps)
        first = _grid_filter(_ROWS[:2], A, Q, C, mu, 0.0, P0)[0]
        weights_log.append(first.sum() + log_pred.sum())
    np.testing.assert_allclose(lds.forecast(n_steps), np.mean(without, axis=0), atol=0.01)
    np.testing.assert_allclose(lds.forecast(n_steps, _ROWS, lengths=[2, 3]),
                               _mixture(np.array(weights_log), np.array(with_x)), atol=0.01)


def _grid_smoother(X, A, Q, C, mu, m0, P0):
    """Exact smoothed probabilities E[pi_SB(C z_t + mu) | X] of one sequence
    (L = 1) on the grid: the filtered densities times backward messages."""
    _, _, filtered, trans, pi_grid = _grid_filter(X, A, Q, C, mu, m0, P0)
    smoothed, back = [], np.ones_like(_GRID)
    for t in range(len(X) - 1, -1, -1):
        post = filtered[t] * back
        smoothed.append(post / post.sum() @ pi_grid)
        back = trans @ (multinomial.pmf(X[t], X[t].sum(), pi_grid) * back)
        back /= back.max()
    return np.array(smoothed[::-1])


def test_smoothed_probabilities_average_over_the_state_posterior():
    # predict_proba is E[pi_SB(C z_t + mu) | X], the probabilities averaged
    # over the states' posterior; the probabilities at the posterior mean of
    # the states (pi_SB(C E[z_t | X] + mu)) were 0.08 off here and passed
    # every other test. Oracle: the exact smoother on the grid.
    draw = (0.9, 0.6, [[2.5], [-2.0]], [0.2, -0.3], 0.0)
    lds = _fitted_with_draws([draw]).set_params(n_infer_iter=4000)
    rows = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 1]])
    A, Q, C, mu, _ = draw
    expected = _grid_smoother(rows, A, Q, C, mu, lds.initial_state_mean_[0],
                              lds.initial_state_covariance_[0, 0])
    # Monte Carlo error <= 0.017 over three seeds of the helper's version.
    np.testing.assert_allclose(lds.predict_proba(rows), expected, atol=0.04)


def test_sample_follows_the_model():
    # Oracle: least squares of z_t on z_{t-1} over a long sampled sequence
    # recovers A (a non-symmetric one, so A' would show) and the residual
    # covariance Q; rows of many counts have the frequencies pi(C z_t + mu)
    # of their own states (offsets far from 0, so that they show).
    X, _, _ = _simulate(1, n_rows=60, n_counts=5)
    lds = MultinomialLDS(2, max_iter=2, random_state=0).fit(X)
    A = np.array([[0.8, 0.5], [-0.3, 0.6]])
    Q = np.array([[0.5, 0.2], [0.2, 0.3]])
    lds.dynamics_matrix_, lds.dynamics_covariance_ = A, Q
    lds.emission_offset_ = np.array([1.5, -1.0, 0.5, -2.0, 1.0])
    _, z = lds.sample(4000, random_state=0)
    fit = np.linalg.lstsq(z[:-1], z[1:], rcond=None)[0].T
    np.testing.assert_allclose(fit, A, atol=0.05)
    np.testing.assert_allclose(np.cov((z[1:] - z[:-1] @ A.T).T), Q, atol=0.05)
    counts, z = lds.sample(20, n_counts=100000, random_state=1)
    expected = np.empty((20, 6))
    expected[:, lds.category_order_] = _pi(z @ lds.emission_matrix_.T + lds.emission_offset_)
    np.testing.assert_allclose(counts / 100000, expected, atol=0.01)


def test_transform_of_rows_without_counts_is_the_prior_mean():
    # Rows without counts carry no information: each sweep's smoothed mean
    # is the prior mean of the states, 0 (not a draw around it).
    X, _, _ = _simulate(1, n_rows=60, n_counts=5)
    lds = MultinomialLDS(2, max_iter=4, n_infer_iter=4, random_state=0).fit(X)
    np.testing.assert_allclose(lds.transform(np.zeros((6, 6)), lengths=[4, 2]), 0.0,
                               atol=1e-12)


def test_offset_pseudo_count_may_be_a_python_integer(small_fit):
    # An integer beyond int64 (10**30, a valid real) overflowed when added to
    # the integer category counts ("Python int too large to convert to C long").
    X, _ = small_fit
    fits = [MultinomialLDS(2, max_iter=3, offset_pseudo_count=value, random_state=0).fit(X)
            for value in (10**30, 1e30)]
    np.testing.assert_array_equal(fits[0].emission_offset_, fits[1].emission_offset_)


def test_lds_sample_uses_the_estimator_random_state_by_default(small_fit):
    # MultinomialLDS documents random_state as the "seed of every random
    # draw"; GaussianMixture.sample() draws from the estimator's
    # random_state, so an int random_state repeats the sample. sample()
    # without random_state drew from fresh entropy on every call.
    _, lds = small_fit  # random_state=0
    first, states = lds.sample(8)
    again, _ = lds.sample(8)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, lds.sample(8, random_state=0)[0])
    assert states.shape == (8, 2)


def test_fit_names_itself_as_the_other_estimators_fit_does():
    # fit's errors and warnings named "MultinomialLDS" where every other
    # estimator's fit, and this one's other methods, say "<Name>.fit" /
    # "MultinomialLDS.transform"; the burn_in error named no estimator.
    X = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    negative = X.copy()
    negative[0, 0] = -1.0
    with pytest.raises(ValueError, match=r"passed to MultinomialLDS\.fit\.?$"):
        MultinomialLDS(2, max_iter=2).fit(negative)
    with pytest.raises(ValueError, match=r"^MultinomialLDS\.fit: X has no positive count"):
        MultinomialLDS(2, max_iter=2).fit(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"^MultinomialLDS\.fit: burn_in=6 must be smaller"):
        MultinomialLDS(2, max_iter=6, burn_in=6).fit(X)
    with pytest.raises(ValueError, match=r"^MultinomialLDS\.fit: lengths sum to"):
        MultinomialLDS(2, max_iter=2).fit(X, lengths=[3])
    with pytest.warns(UserWarning, match=r"^MultinomialLDS\.fit: 12 of the 12 nonzero"):
        MultinomialLDS(2, max_iter=2, n_particles=10, random_state=0).fit(X + 0.3)
