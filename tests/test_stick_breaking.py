"""The stick-breaking map, its inverse and the stick counts against NumPy."""

import numpy as np
from scipy.special import expit
from scipy.stats import binom, multinomial

from sklearn_pgtm._kernels._stick_breaking import (
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
