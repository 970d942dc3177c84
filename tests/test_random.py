"""The numba random streams against SciPy's distributions (KS tests)."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from sklearn_pgtm._kernels import _random as R

N = 20_000
ALPHA = 1e-3  # per-test significance; a failure is not noise


# Not cached: a cached test kernel inlines the package's and is keyed on
# this file alone, so an edit of _random.py would not reach it.
@njit
def _draw(states, kind, p1, p2, out):
    state = states[0]
    for i in range(out.shape[0]):
        if kind == 0:
            out[i] = R.uniform(state)
        elif kind == 1:
            out[i] = R.standard_normal(state)
        elif kind == 2:
            out[i] = R.standard_gamma(state, p1)
        elif kind == 3:
            out[i] = R.beta(state, p1, p2)
        else:
            out[i] = R.standard_exponential(state)


def draws(kind, p1=0.0, p2=0.0, seed=0):
    out = np.empty(N)
    _draw(R.make_streams(seed, 1), kind, p1, p2, out)
    return out


@pytest.mark.parametrize(
    "kind, p1, p2, dist",
    [
        (0, 0, 0, stats.uniform()),
        (1, 0, 0, stats.norm()),
        (2, 0.3, 0, stats.gamma(0.3)),
        (2, 1.0, 0, stats.gamma(1.0)),
        (2, 7.5, 0, stats.gamma(7.5)),
        (3, 0.5, 2.0, stats.beta(0.5, 2.0)),
        (3, 20.0, 300.0, stats.beta(20.0, 300.0)),
        (4, 0, 0, stats.expon()),
    ],
)
def test_distributions_match_scipy(kind, p1, p2, dist):
    x = draws(kind, p1, p2)
    assert np.all(np.isfinite(x))
    assert stats.kstest(x, dist.cdf).pvalue > ALPHA


def test_uniform_is_open_interval_and_streams_differ():
    x = draws(0)
    assert x.min() > 0.0 and x.max() < 1.0
    assert not np.array_equal(draws(0, seed=0), draws(0, seed=1))
    np.testing.assert_array_equal(draws(0, seed=5), draws(0, seed=5))


def test_streams_are_independent_rows():
    states = R.make_streams(3, 4)
    assert states.shape == (4, 4) and states.dtype == np.uint64
    assert len({tuple(row) for row in states}) == 4
    # Two rows drawn side by side are uncorrelated.
    a = np.empty(N)
    b = np.empty(N)
    _draw(states[0:1], 0, 0, 0, a)
    _draw(states[1:2], 0, 0, 0, b)
    assert abs(np.corrcoef(a, b)[0, 1]) < 4 / np.sqrt(N)


@njit  # not cached (see _draw)
def _categorical_counts(states, weights, n_draws):
    cumulative = np.cumsum(weights)
    counts = np.zeros(weights.shape[0], dtype=np.int64)
    for _ in range(n_draws):
        counts[R.categorical(states[0], cumulative, weights.shape[0])] += 1
    return counts


def test_categorical_frequencies():
    weights = np.array([0.5, 0.0, 3.0, 1.5, 0.01])
    counts = _categorical_counts(R.make_streams(7, 1), weights, N)
    assert counts[1] == 0
    expected = weights / weights.sum() * N
    keep = expected > 0
    assert stats.chisquare(counts[keep], expected[keep]).pvalue > ALPHA


@pytest.mark.parametrize("kind, dist, cuts", [
    (1, stats.norm(), [-3.9, -3.0, -1.0, 0.0, 0.5, 2.0, 3.66, 4.2]),
    (4, stats.expon(), [0.01, 0.5, 2.0, 6.0, 7.7, 9.0]),
])
def test_ziggurat_layers_and_tails(kind, dist, cuts):
    # KS barely sees the tails and the wedges of the ziggurat: compare the
    # mass beyond cut points (around the tail start r) with the truth, with a
    # large sample (binomial standard errors).
    n = 2_000_000
    out = np.empty(n)
    _draw(R.make_streams(9, 1), kind, 0.0, 0.0, out)
    for cut in cuts:
        p = dist.sf(cut)
        observed = np.mean(out > cut)
        assert abs(observed - p) < 5 * np.sqrt(p * (1 - p) / n) + 1e-7, (cut, observed, p)
    # Moments up to the fourth (wedge errors shift them).
    for k in range(1, 5):
        assert abs(np.mean(out ** k) - dist.moment(k)) < 5 * np.sqrt(
            (dist.moment(2 * k) - dist.moment(k) ** 2) / n), k


def test_dirichlet_rows_have_beta_marginals_and_row_streams():
    # out[d] ~ Dirichlet(counts[d] + alpha): component k is Beta(a_k, A - a_k)
    # with a = counts[d] + alpha, A its sum (KS); asymmetric alpha and a zero
    # count, so that every shape matters. Row d draws from states[d]: a
    # sub-range of rows gives the same rows. (sample_transform's draws were
    # only compared with their mean: alpha[0] for every alpha_k, or every row
    # drawing from the first row's stream, passed every test.)
    alpha = np.array([0.3, 1.7, 0.05, 4.0])
    counts = np.tile(np.array([[2, 0, 5, 1]], dtype=np.int32), (20_000, 1))
    out = np.empty((20_000, 4))
    R.dirichlet_rows(counts, alpha, R.make_streams(4, 20_000), 0, 20_000, out)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    a = counts[0] + alpha
    for k in range(4):
        dist = stats.beta(a[k], a.sum() - a[k])
        assert stats.kstest(out[:, k], dist.cdf).pvalue > ALPHA, k
    part = np.zeros((20_000, 4))
    R.dirichlet_rows(counts, alpha, R.make_streams(4, 20_000), 100, 110, part)
    np.testing.assert_array_equal(part[100:110], out[100:110])


@njit
def _normal_tail_draws(states, n, r, out):
    """The first out.shape[0] of n standard normal draws beyond r in absolute value."""
    state = states[0]
    m = 0
    for _ in range(n):
        x = abs(R.standard_normal(state))
        if x > r and m < out.shape[0]:
            out[m] = x
            m += 1
    return m


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_normal_tail_beyond_r_is_the_truncated_normal(seed):
    # The ziggurat's tail beyond r = 3.654 (Marsaglia's method): the test
    # above sees about 250 draws there; an acceptance exp(-e^2) instead of
    # exp(-e^2 / 2), a thinner tail, passed it (mutation testing). About
    # 20,000 tail draws against scipy's truncated normal.
    r = 3.6541528853610088
    out = np.empty(40_000)
    m = _normal_tail_draws(R.make_streams(seed, 1), 80_000_000, r, out)
    expected = 80_000_000 * 2 * stats.norm.sf(r)
    assert abs(m - expected) < 5 * np.sqrt(expected)
    assert stats.kstest(out[:m], stats.truncnorm(r, np.inf).cdf).pvalue > ALPHA


@pytest.mark.parametrize("a, b", [(1e-5, 2e-5), (2e-5, 1e-5), (1e-3, 2e-3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beta_at_tiny_shapes_puts_the_right_mass_on_each_side(a, b, seed):
    # Both gammas underflow to 0 and beta falls back to a vertex, 1 with
    # probability a / (a + b); choosing it by b / (a + b) passed every test
    # (shapes >= 0.5 only; mutation testing). Beta(a, b) puts sf(1/2) above
    # 1/2: about 1/3 at (1e-5, 2e-5).
    out = draws(3, a, b, seed=seed)
    assert np.all((out >= 0.0) & (out <= 1.0))
    p = stats.beta(a, b).sf(0.5)
    assert abs(np.mean(out > 0.5) - p) < 5.0 * np.sqrt(p * (1.0 - p) / N)
