"""The stick-breaking map, its inverse and the stick counts against NumPy."""

import numpy as np
from scipy.special import expit
from scipy.stats import binom, multinomial

from sklearn_pgtm._kernels._stick_breaking import (
    draw_stick_augmentation,
    inverse_stick_breaking,
    stick_breaking,
    stick_counts,
)


def _reference_pi(psi):
    sig = expit(psi)
    rest = np.cumprod(np.c_[np.ones(len(psi)), 1 - sig], axis=1)
    return np.c_[sig * rest[:, :-1], rest[:, -1]]


def test_stick_breaking_matches_numpy_and_inverts():
    rng = np.random.default_rng(0)
    psi = rng.normal(scale=3.0, size=(50, 6))
    pi = np.empty((50, 7))
    stick_breaking(psi, pi)
    np.testing.assert_allclose(pi, _reference_pi(psi), rtol=1e-12)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0)
    back = np.empty_like(psi)
    inverse_stick_breaking(pi, back)
    np.testing.assert_allclose(back, psi, rtol=1e-9, atol=1e-9)
    # Unnormalized rows give the same logits.
    inverse_stick_breaking(3.0 * pi, back)
    np.testing.assert_allclose(back, psi, rtol=1e-9, atol=1e-9)


def test_stick_breaking_extreme_logits_stay_finite():
    psi = np.array([[800.0, -800.0], [-800.0, 800.0], [0.0, 0.0]])
    pi = np.empty((3, 3))
    stick_breaking(psi, pi)
    assert np.all(np.isfinite(pi))
    np.testing.assert_allclose(pi, [[1, 0, 0], [0, 1, 0], [0.5, 0.25, 0.25]])


def test_stick_counts_and_binomial_factorization():
    counts = np.array([[3, 0, 2, 5], [0, 0, 0, 4]], dtype=np.int32)
    out = np.empty((2, 3))
    stick_counts(counts, out)
    np.testing.assert_array_equal(out, [[10, 7, 7], [4, 4, 4]])
    # The multinomial equals the product of binomials Bin(x_k | N_k, sigmoid(psi_k)).
    psi = np.array([[0.3, -1.2, 2.0]])
    pi = np.empty((1, 4))
    stick_breaking(psi, pi)
    x = counts[0]
    lhs = multinomial.logpmf(x, x.sum(), pi[0])
    rhs = binom.logpmf(x[:3], out[0], expit(psi[0])).sum()
    np.testing.assert_allclose(lhs, rhs)


def test_stick_augmentation_moments_and_row_streams():
    from sklearn_pgtm._kernels._polyagamma import PG_EXACT
    from sklearn_pgtm._kernels._random import make_streams
    from sklearn_pgtm.polyagamma import pg_mean

    counts = np.tile(np.array([[2, 0, 3, 1]], dtype=np.int64), (4000, 1))
    psi = np.tile(np.array([[0.5, -1.0, 2.0]]), (4000, 1))
    omega = np.empty((4000, 3))
    kappa = np.empty((4000, 3))
    states = make_streams(0, 4000)
    draw_stick_augmentation(counts, psi, PG_EXACT, 1, states, 0, 4000, omega, kappa)
    np.testing.assert_array_equal(kappa[0], [2 - 3, 0 - 2, 3 - 2])
    stick = np.array([6.0, 4.0, 4.0])
    expected = [pg_mean(b, c) for b, c in zip(stick, psi[0])]
    se = omega.std(axis=0) / np.sqrt(4000)
    assert np.all(np.abs(omega.mean(axis=0) - expected) < 4 * se)
    # A row's draws come from its own stream: a sub-range gives the same rows.
    again = np.zeros_like(omega)
    draw_stick_augmentation(counts, psi, PG_EXACT, 1, make_streams(0, 4000), 10, 20, again,
                            kappa)
    np.testing.assert_array_equal(again[10:20], omega[10:20])
    # A zero stick count (nothing left after the first category) gives omega = 0.
    one_omega = np.empty((1, 2))
    one_kappa = np.empty((1, 2))
    draw_stick_augmentation(np.array([[5, 0, 0]]), np.zeros((1, 2)), PG_EXACT, 1,
                            make_streams(1, 1), 0, 1, one_omega, one_kappa)
    assert one_omega[0, 0] > 0 and one_omega[0, 1] == 0.0
    np.testing.assert_array_equal(one_kappa[0], [2.5, 0.0])
