"""Information-form FFBS against dense Gaussian conditioning on tiny problems.

The joint density of ``z_0 .. z_{T-1}`` under the prior, the dynamics and the
potentials is one Gaussian in R^(T L) whose precision and linear term can be
written down directly (a block-tridiagonal matrix); its mean and covariance,
computed with dense NumPy linear algebra, are the oracle.
"""

import numpy as np
import pytest
from scipy import stats

from sklearn_pgtm._kernels._linear_gaussian import (
    backward_mean,
    cholesky_lower,
    factor_precision,
    ffbs,
    ffbs_with_mean,
    information_filter,
    sample_information,
)
from sklearn_pgtm._kernels._random import make_streams


def _random_spd(rng, dim, scale=1.0):
    m = rng.normal(size=(dim, dim))
    return scale * (m @ m.T / dim + 0.5 * np.eye(dim))


def _problem(seed, n_steps=5, dim=3):
    rng = np.random.default_rng(seed)
    A = 0.9 * rng.normal(size=(dim, dim)) / np.sqrt(dim)
    Q = _random_spd(rng, dim, 0.5)
    P0 = _random_spd(rng, dim)
    m0 = rng.normal(size=dim)
    J_obs = np.stack([_random_spd(rng, dim, 2.0) * (t % 2 == 0) for t in range(n_steps)])
    h_obs = rng.normal(size=(n_steps, dim))
    return A, Q, P0, m0, J_obs, h_obs


def _dense_posterior(A, Q, P0, m0, J_obs, h_obs):
    """Mean and covariance of z_{0:T} from the dense joint precision."""
    n_steps, dim = h_obs.shape
    Qi = np.linalg.inv(Q)
    P0i = np.linalg.inv(P0)
    n = n_steps * dim
    J = np.zeros((n, n))
    h = np.zeros(n)

    def blk(t):
        return slice(t * dim, (t + 1) * dim)

    J[blk(0), blk(0)] += P0i
    h[blk(0)] += P0i @ m0
    for t in range(1, n_steps):
        # -log N(z_t | A z_{t-1}, Q) = 1/2 (z_t - A z_{t-1})' Qi (z_t - A z_{t-1})
        J[blk(t), blk(t)] += Qi
        J[blk(t - 1), blk(t - 1)] += A.T @ Qi @ A
        J[blk(t), blk(t - 1)] -= Qi @ A
        J[blk(t - 1), blk(t)] -= A.T @ Qi
    for t in range(n_steps):
        J[blk(t), blk(t)] += J_obs[t]
        h[blk(t)] += h_obs[t]
    cov = np.linalg.inv(J)
    return cov @ h, cov, J


def test_cholesky_and_information_sampling_helpers():
    rng = np.random.default_rng(0)
    a = _random_spd(rng, 4)
    out = np.empty((4, 4))
    assert cholesky_lower(a, out)
    np.testing.assert_allclose(out, np.linalg.cholesky(a), rtol=1e-12, atol=1e-14)
    assert not cholesky_lower(-a, out)
    # A semidefinite matrix is factored after a tiny jitter.
    v = rng.normal(size=(4, 1))
    assert factor_precision(v @ v.T, out)
    assert np.all(np.isfinite(out))
    # N_info(J, h): sample mean and covariance against J^{-1} h and J^{-1}.
    h = rng.normal(size=4)
    assert cholesky_lower(a, out)
    states = make_streams(1, 1)
    draws = np.empty((20000, 4))
    for i in range(draws.shape[0]):
        sample_information(out, h, states[0], draws[i])
    cov = np.linalg.inv(a)
    se = np.sqrt(np.diag(cov) / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - cov @ h) < 4.5 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.06 * np.abs(cov).max())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smoothed_mean_equals_dense_conditioning(seed):
    A, Q, P0, m0, J_obs, h_obs = _problem(seed)
    mean_dense, _, _ = _dense_posterior(A, Q, P0, m0, J_obs, h_obs)
    n_steps, dim = h_obs.shape
    P0i = np.linalg.inv(P0)
    chol = np.empty((n_steps, dim, dim))
    h_filt = np.empty((n_steps, dim))
    assert information_filter(P0i, P0i @ m0, A, np.linalg.inv(Q), J_obs, h_obs, chol, h_filt)
    mean = np.empty((n_steps, dim))
    backward_mean(chol, h_filt, A, np.linalg.inv(Q), mean)
    np.testing.assert_allclose(mean.ravel(), mean_dense, rtol=1e-9, atol=1e-10)


def test_filter_matches_covariance_form_kalman_filter():
    # The last filtered precision J_{T|T} is the inverse of the Kalman
    # filter's covariance (P_pred = A P A' + Q; P = (P_pred^{-1} + J_t)^{-1}).
    A, Q, P0, m0, J_obs, h_obs = _problem(3, n_steps=6)
    n_steps, dim = h_obs.shape
    P_pred, m_pred = P0, m0
    for t in range(n_steps):
        J = np.linalg.inv(P_pred) + J_obs[t]
        P = np.linalg.inv(J)
        m = P @ (np.linalg.solve(P_pred, m_pred) + h_obs[t])
        P_pred, m_pred = A @ P @ A.T + Q, A @ m
    P0i = np.linalg.inv(P0)
    chol = np.empty((n_steps, dim, dim))
    h_filt = np.empty((n_steps, dim))
    information_filter(P0i, P0i @ m0, A, np.linalg.inv(Q), J_obs, h_obs, chol, h_filt)
    J_last = chol[-1] @ chol[-1].T
    np.testing.assert_allclose(J_last, np.linalg.inv(P), rtol=1e-9)
    np.testing.assert_allclose(np.linalg.solve(J_last, h_filt[-1]), m, rtol=1e-9, atol=1e-12)


def test_ffbs_draws_have_the_dense_posterior_distribution():
    A, Q, P0, m0, J_obs, h_obs = _problem(4, n_steps=4, dim=2)
    mean_dense, cov_dense, J_dense = _dense_posterior(A, Q, P0, m0, J_obs, h_obs)
    n_steps, dim = h_obs.shape
    P0i = np.linalg.inv(P0)
    Qi = np.linalg.inv(Q)
    states = make_streams(7, 1)
    n_draws = 20000
    draws = np.empty((n_draws, n_steps * dim))
    z = np.empty((n_steps, dim))
    for i in range(n_draws):
        assert ffbs(P0i, P0i @ m0, A, Qi, J_obs, h_obs, states[0], z)
        draws[i] = z.ravel()
    se = np.sqrt(np.diag(cov_dense) / n_draws)
    assert np.all(np.abs(draws.mean(axis=0) - mean_dense) < 4.5 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov_dense, atol=0.05 * np.abs(cov_dense).max())
    # Squared Mahalanobis distances of exact draws are chi-square(T L).
    centred = draws - mean_dense
    d2 = np.einsum("ij,jk,ik->i", centred, J_dense, centred)
    assert stats.kstest(d2, stats.chi2(n_steps * dim).cdf).pvalue > 1e-3


def test_ffbs_with_mean_is_the_same_draw_plus_the_mean():
    A, Q, P0, m0, J_obs, h_obs = _problem(5)
    n_steps, dim = h_obs.shape
    P0i = np.linalg.inv(P0)
    Qi = np.linalg.inv(Q)
    z1 = np.empty((n_steps, dim))
    z2 = np.empty((n_steps, dim))
    mean = np.empty((n_steps, dim))
    ffbs(P0i, P0i @ m0, A, Qi, J_obs, h_obs, make_streams(3, 1)[0], z1)
    ffbs_with_mean(P0i, P0i @ m0, A, Qi, J_obs, h_obs, make_streams(3, 1)[0], z2, mean)
    np.testing.assert_array_equal(z1, z2)
    np.testing.assert_allclose(mean.ravel(), _dense_posterior(A, Q, P0, m0, J_obs, h_obs)[0],
                               rtol=1e-9, atol=1e-10)


def test_single_step_and_empty_sequences():
    A, Q, P0, m0, J_obs, h_obs = _problem(6, n_steps=1)
    P0i = np.linalg.inv(P0)
    mean = np.empty((1, 3))
    z = np.empty((1, 3))
    assert ffbs_with_mean(P0i, P0i @ m0, A, np.linalg.inv(Q), J_obs, h_obs,
                          make_streams(0, 1)[0], z, mean)
    np.testing.assert_allclose(mean[0], np.linalg.solve(P0i + J_obs[0], P0i @ m0 + h_obs[0]))
    empty = np.empty((0, 3))
    assert ffbs(P0i, P0i @ m0, A, np.linalg.inv(Q), np.empty((0, 3, 3)), empty,
                make_streams(0, 1)[0], empty)


def test_factor_precision_doubles_its_jitter_until_the_factor_exists():
    # A precision that lost definiteness by rounding (smallest eigenvalue
    # -1e-9, mean diagonal ~0.9): the first jitter (1e-12 of the mean
    # diagonal) is too small, doubling reaches a sufficient one within the
    # 30 tries, and the factor then reproduces the matrix up to that jitter
    # (at most twice the one needed). An eigenvalue of -1e-2 is beyond the
    # largest jitter tried (2^29 1e-12 of the mean diagonal) and refused.
    basis = np.linalg.qr(np.random.default_rng(4).normal(size=(4, 4)))[0]
    out = np.empty((4, 4))
    for smallest, factored in [(-1e-9, True), (-1e-2, False)]:
        a = (basis * np.array([smallest, 0.5, 1.0, 2.0])) @ basis.T
        a = 0.5 * (a + a.T)
        assert not cholesky_lower(a, out)
        assert factor_precision(a, out) == factored
        if factored:
            np.testing.assert_allclose(out @ out.T, a, rtol=0, atol=5e-9)
