"""Pólya-Gamma samplers against polyagamma's CDF (KS) and the closed-form moments."""

import itertools

import numpy as np
import pytest
from polyagamma import polyagamma_cdf
from polyagamma import random_polyagamma as polyagamma_random
from scipy import stats

from sklearn_pgtm.polyagamma import pg_mean, pg_var, random_polyagamma

B_VALUES = [1.0, 2.5, 7.3, 25.0, 100.0, 1000.0]
C_VALUES = [0.0, 0.5, 2.0, 10.0]
CASES = list(itertools.product(B_VALUES, C_VALUES))
N = 20_000
# Bonferroni over the KS cases of the exact sampler.
KS_LEVEL = 0.01 / len(CASES)


def series_moments(b, c, n_terms=2_000_000):
    """Mean and variance from the gamma-series representation (independent
    oracle); the mean's tail beyond n_terms (about 1 / (2 pi^2 n_terms)) is
    added as the integral of its terms (midpoint rule)."""
    k = np.arange(1, n_terms + 1)
    denom = 2 * np.pi**2 * ((k - 0.5) ** 2 + c**2 / (4 * np.pi**2))
    a = abs(c) / (2 * np.pi)
    tail = (1 / n_terms if a == 0 else (np.pi / 2 - np.arctan(n_terms / a)) / a) / (2 * np.pi**2)
    return b * (np.sum(1 / denom) + tail), b * np.sum(1 / denom**2)


@pytest.mark.parametrize("b, c", [(1, 0), (2.5, 1e-8), (7.3, 1e-3), (1, 0.005), (1, 0.0099),
                                  (1, 0.05), (1, 0.5), (3, 2), (25, 10), (1000, 50)])
def test_moments_match_series(b, c):
    mean, var = series_moments(b, c)
    assert np.isclose(pg_mean(b, c), mean, rtol=1e-5)
    assert np.isclose(pg_var(b, c), var, rtol=1e-8)


def test_moments_are_stable_at_extremes():
    c = np.array([0.0, 1e-12, 1e-6, 1e-3, 0.999e-2, 1.001e-2, 5.0, 700.0, 1e5, -1e5])
    m, v = pg_mean(2.0, c), pg_var(2.0, c)
    assert np.all(np.isfinite(m)) and np.all(np.isfinite(v))
    assert np.all(m > 0) and np.all(v > 0)
    # Continuity across the switch to the Taylor series.
    assert np.isclose(pg_var(1.0, 0.999e-2), pg_var(1.0, 1.001e-2), rtol=1e-6)
    # Large |c|: E = b / (2|c|), Var = b / (2|c|^3) asymptotically.
    assert np.isclose(pg_mean(2.0, 1e5), 1e-5, rtol=1e-6)
    assert np.isclose(pg_var(2.0, 1e5), 2.0 / (2 * 1e15), rtol=1e-4)


def check_mean_var(x, b, c, n_se=4.0):
    mean, var = pg_mean(b, c), pg_var(b, c)
    assert abs(x.mean() - mean) < n_se * np.sqrt(var / len(x)), (x.mean(), mean)
    # Standard error of the sample variance from the 4th moment.
    se_var = np.sqrt(max(np.var((x - x.mean()) ** 2), 1e-300) / len(x))
    assert abs(x.var() - var) < n_se * se_var, (x.var(), var)


@pytest.mark.parametrize("b, c", CASES)
def test_exact_sampler_ks_and_moments(b, c):
    x = random_polyagamma(b, c, method="exact", size=N, random_state=int(b * 10 + c))
    assert np.all(np.isfinite(x)) and np.all(x > 0)
    if b <= 50:
        pvalue = stats.kstest(x, lambda t: polyagamma_cdf(t, b, c)).pvalue
    else:
        # polyagamma_cdf (2.0.2) overflows for large b (values far above 1 at
        # b = 100): compare with polyagamma's own Devroye sampler instead,
        # exact for integer b and independent of ours.
        ref = polyagamma_random(b, c, size=N, method="devroye", random_state=7)
        pvalue = stats.ks_2samp(x, ref).pvalue
    assert pvalue > KS_LEVEL
    check_mean_var(x, b, c)


def test_exact_sampler_below_one():
    for b, c in [(0.3, 0.0), (0.3, 3.0), (0.05, 1.0)]:
        x = random_polyagamma(b, c, size=N, random_state=1)
        assert np.all(np.isfinite(x)) and np.all(x > 0)
        assert stats.kstest(x, lambda t: polyagamma_cdf(t, b, c)).pvalue > 1e-3
        check_mean_var(x, b, c)


@pytest.mark.parametrize("method", ["pg1", "gaussian"])
@pytest.mark.parametrize("b, c", [(25.0, 0.0), (100.0, 2.0), (1000.0, 10.0), (7.3, 0.5)])
def test_approximations_match_mean_and_variance(method, b, c):
    x = random_polyagamma(b, c, method=method, n_terms=4, size=N, random_state=2)
    assert np.all(np.isfinite(x)) and np.all(x > 0)
    check_mean_var(x, b, c)


@pytest.mark.parametrize("b, c", [(3.0, 2.0), (2.5, 0.0), (4.0, -10.0)])
def test_pg1_is_exact_up_to_n_terms(b, c):
    # pg1 with b <= n_terms draws exactly (its approximation starts above).
    x = random_polyagamma(b, c, method="pg1", n_terms=4, size=N, random_state=4)
    assert stats.kstest(x, lambda t: polyagamma_cdf(t, b, c)).pvalue > KS_LEVEL


@pytest.mark.parametrize("b, c", [(1.0, 0.0), (25.0, 2.0), (1000.0, 10.0), (2.5, 0.5)])
def test_truncated_matches_mean(b, c):
    x = random_polyagamma(b, c, method="truncated", n_terms=4, size=N, random_state=3)
    assert np.all(np.isfinite(x)) and np.all(x > 0)
    assert abs(x.mean() - pg_mean(b, c)) < 4 * np.sqrt(pg_var(b, c) / N)


B_EXTREMES = [1e-300, 1e-6, 0.3, 1.0, 2.5, 13.0, 14.0, 63.0, 1e4, 1e8, 1e300]
C_EXTREMES = [0.0, 1e-300, -1e-8, 0.5, 7.0, 1490.0, 1500.0, -5000.0, 1e5, 1e154, -1e155,
              1e300, -1.7e308]


@pytest.mark.parametrize("method", ["exact", "truncated", "pg1", "gaussian", "auto"])
def test_every_method_is_total(method):
    # Every finite b > 0 and finite c gives finite draws >= 0 (the hang and
    # crash cases of this grid also run under a timeout in test_reliability).
    b, c = np.meshgrid(B_EXTREMES, C_EXTREMES)
    x = random_polyagamma(b, c, method=method, n_terms=2, size=(5,) + b.shape,
                          random_state=0)
    assert np.all(np.isfinite(x)) and np.all(x >= 0), method
    # Underflow to 0 is the only departure from positivity allowed, and only
    # where PG(b, c) lives below the smallest double (b tiny or |c| huge); the
    # truncated series also returns 0 where its Gamma(b) terms underflow
    # (most Gamma(1e-6) draws are below 1e-300).
    positive = pg_mean(b, c) > 1e-280
    if method == "truncated":
        positive &= b > 0.1
    assert np.all(x[:, positive] > 0), method


def test_moments_are_total():
    c = np.array(C_EXTREMES + [np.finfo(float).max])
    for b in [1e-300, 1.0, 1e300]:
        m, v = pg_mean(b, c), pg_var(b, c)
        assert np.all(np.isfinite(m)) and np.all(np.isfinite(v))
        assert np.all(m >= 0) and np.all(v >= 0)
    # Kernel versions, also at c = +-inf (the limit, 0).
    from sklearn_pgtm._kernels._polyagamma import pg_mean as kernel_mean
    from sklearn_pgtm._kernels._polyagamma import pg_var as kernel_var

    for value in c:
        assert np.isclose(kernel_mean(2.0, value), pg_mean(2.0, value), rtol=1e-14, atol=0)
        assert np.isclose(kernel_var(2.0, value), pg_var(2.0, value), rtol=1e-12, atol=0)
    assert kernel_mean(2.0, np.inf) == 0.0 and kernel_var(2.0, -np.inf) == 0.0


@pytest.mark.parametrize("method, b, c", [
    ("exact", 1.0, 1500.0), ("exact", 2.5, -1e5), ("pg1", 50.0, 5000.0),
    ("auto", 3.0, 1e4), ("auto", 200.0, -1e4), ("gaussian", 200.0, 3e3),
    ("exact", 0.4, 2e3)])
def test_moments_at_large_c(method, b, c):
    x = random_polyagamma(b, c, method=method, n_terms=8, size=N, random_state=5)
    check_mean_var(x, b, c)


@pytest.mark.parametrize("method", ["exact", "pg1", "gaussian", "auto"])
@pytest.mark.parametrize("b", [0.5, 1.0, 3.0, 50.0])
def test_huge_c_is_a_point_mass_at_the_mean(method, b):
    # PG(b, c) has coefficient of variation sqrt(2 / (b |c|)) for large |c|:
    # 1e-150 at c = 1e300, so every draw is the mean to double precision.
    for c in [1e300, -1e300]:
        x = random_polyagamma(b, c, method=method, size=200, random_state=0)
        np.testing.assert_allclose(x, pg_mean(b, c), rtol=1e-12)


def test_truncated_mean_at_huge_c():
    x = random_polyagamma(3.0, 1e300, method="truncated", n_terms=4, size=N, random_state=0)
    assert abs(x.mean() / pg_mean(3.0, 1e300) - 1.0) < 4 / np.sqrt(3.0 * 4 * N)


@pytest.mark.parametrize("c", [0.0, 3.0, -40.0])
def test_tiny_b_matches_levy_limit(c):
    # For h -> 0 the first term a_0 of J*(h)'s density carries all but O(h)
    # of the mass: 4 PG(h, c) tends to the Lévy law of scale h^2 (the tilt
    # exp(-c^2 x / 8) is 1 - O(h^2) there). An oracle independent of the
    # sampler's envelopes.
    h = 1e-6
    x = random_polyagamma(h, c, size=N, random_state=2)
    assert stats.kstest(4 * x, stats.levy(scale=h * h).cdf).pvalue > 1e-3
    # Below 1e-154, h^2 underflows: the draws are the nearest double, 0.
    assert np.all(random_polyagamma(1e-200, c, size=100, random_state=0) == 0.0)


@pytest.mark.parametrize("b, c", [(4.0, 7.0), (4.5, 2.0), (4.99, -7.0), (5.0, 7.0),
                                  (5.01, 0.0), (8.0, -6.0), (13.0, 7.0), (20.0, 0.0),
                                  (30.0, -5.0)])
def test_auto_matches_cdf(b, c):
    # Below b = 5 auto draws exactly; from b = 5 on the three-moment shifted
    # gamma, whose Kolmogorov distance to PG(b, c) (2.1e-3 at most, at b = 5
    # near |c| = 7) is invisible here. Cases on both sides of the switch.
    x = random_polyagamma(b, c, method="auto", size=N, random_state=8)
    assert stats.kstest(x, lambda t: polyagamma_cdf(t, b, c)).pvalue > KS_LEVEL
    check_mean_var(x, b, c)


def test_auto_switches_to_the_shifted_gamma_at_b_5():
    # The switch point of the measured rule (benchmarks/pg_samplers.py):
    # exact draws below b = 5, the shifted gamma from there on, draw for draw.
    from sklearn_pgtm._kernels._polyagamma import (
        PG_AUTO, PG_EXACT, PG_SHIFTED_GAMMA, pg_draw_many)
    from sklearn_pgtm._kernels._random import make_streams

    for b, expected in [(4.99, PG_EXACT), (5.0, PG_SHIFTED_GAMMA), (13.0, PG_SHIFTED_GAMMA)]:
        draws = {}
        for method in (PG_AUTO, expected):
            draws[method] = np.empty(50)
            pg_draw_many(make_streams(4, 1), np.full(50, b), np.full(50, 1.5), method, 1,
                         draws[method])
        np.testing.assert_array_equal(draws[PG_AUTO], draws[expected])


def test_auto_matches_exact_draws_for_large_b():
    for b, c in [(300.0, 3.0), (5000.0, -8.0)]:
        x = random_polyagamma(b, c, method="auto", size=5000, random_state=9)
        ref = polyagamma_random(b, c, size=5000, method="devroye", random_state=10)
        assert stats.ks_2samp(x, ref).pvalue > 1e-3


def series_third_cumulant(b, c, n_terms=200_000):
    k = np.arange(1, n_terms + 1)
    d = 2 * np.pi**2 * (k - 0.5) ** 2 + c**2 / 2
    return 2 * b * np.sum(d**-3.0)


@pytest.mark.parametrize("b, c", [(14.0, 0.0), (50.0, 7.0), (1000.0, 2.0), (3e6, 1.0),
                                  (20.0, 400.0)])
def test_shifted_gamma_matches_three_cumulants(b, c):
    # The approximation behind auto (and behind exact above EXACT_MAX_B):
    # mean, variance and third cumulant of PG(b, c), the latter from the
    # gamma series (independent of the closed forms in the kernel).
    from sklearn_pgtm._kernels._polyagamma import EXACT_MAX_B, PG_SHIFTED_GAMMA, pg_draw_many
    from sklearn_pgtm._kernels._random import make_streams

    n = 200_000
    x = np.empty(n)
    pg_draw_many(make_streams(3, 1), np.full(n, b), np.full(n, c), PG_SHIFTED_GAMMA, 1, x)
    check_mean_var(x, b, c)
    k3 = series_third_cumulant(b, c)
    centred = (x - x.mean()) ** 3
    assert abs(centred.mean() - k3) < 4 * centred.std() / np.sqrt(n), (centred.mean(), k3)
    assert np.all(x > 0)
    if b > EXACT_MAX_B:
        # The exact method draws this approximation above EXACT_MAX_B.
        check_mean_var(random_polyagamma(b, c, method="exact", size=N, random_state=4), b, c)


@pytest.mark.parametrize("c", [0.0, 1e-8, 0.3, 0.4999, 0.5, 0.7, 2.0, 7.0, 30.0, 300.0])
def test_cumulant_ratios_match_series(c):
    from sklearn_pgtm._kernels._polyagamma import _cumulant_ratios

    k1, k2 = series_moments(1.0, c)
    k3 = series_third_cumulant(1.0, c)
    r1, r2, r3 = _cumulant_ratios(c)
    assert np.isclose(r1, pg_mean(1.0, c), rtol=1e-14)
    assert np.isclose(r1, k1, rtol=1e-10)
    assert np.isclose(r1 * r2, pg_var(1.0, c), rtol=1e-10)
    assert np.isclose(r3, k3 / k2, rtol=1e-9)


def test_devroye_right_piece_probability():
    # Probability of the right piece of Devroye's envelope against the masses
    # computed with scipy's inverse Gaussian; 0 from z = 12 on, where the true
    # value is below the smallest uniform (2^-54).
    from sklearn_pgtm._kernels._polyagamma import _TRUNC, _devroye_constants

    t = _TRUNC
    for z in [0.0, 1e-9, 0.3, 1.0, 3.0, 8.0, 11.9, 12.0, 40.0, 1e200]:
        fz = np.pi**2 / 8 + z * z / 2 if z < 1e150 else np.inf
        with np.errstate(all="ignore"):
            log_p = np.log(np.pi / (2 * fz)) - fz * t
        ig_cdf = (stats.invgauss.cdf(t, 1 / z, scale=1.0) if z > 0
                  else stats.levy.cdf(t, scale=1.0))
        log_q = np.log(2.0) - z + np.log(ig_cdf)
        expected = 1 / (1 + np.exp(min(log_q - log_p, 700.0)))
        got = _devroye_constants(z)[1]
        if z < 12:
            assert np.isclose(got, expected, rtol=1e-10), z
        else:
            assert got == 0.0 and expected < 2.0**-54, z


def test_log_normal_cdf():
    from scipy.special import log_ndtr

    from sklearn_pgtm._kernels._polyagamma import _log_normal_cdf

    for x in [5.0, 0.0, -5.0, -36.9, -37.0, -37.1, -100.0, -1e5, -1e150]:
        assert np.isclose(_log_normal_cdf(x), log_ndtr(x), rtol=1e-12, atol=1e-300), x


def test_pg_draw_fast_equals_pg_draw():
    # The inlined path of the correlated model and the general entry point
    # make the same draws from the same stream.
    from numba import njit

    from sklearn_pgtm._kernels._polyagamma import PG_AUTO, PG_GAUSSIAN, pg_draw, pg_draw_fast
    from sklearn_pgtm._kernels._random import make_streams

    @njit
    def both(states, b, c, method):
        first = states[0].copy()
        fast = np.empty(20)
        slow = np.empty(20)
        for i in range(20):
            fast[i] = pg_draw_fast(states[0], b, c, method, 4)
        states[0][:] = first
        for i in range(20):
            slow[i] = pg_draw(states[0], b, c, method, 4)
        return fast, slow

    for method in [PG_AUTO, PG_GAUSSIAN]:
        for b in [3.0, 14.0, 100.0]:
            for c in [0.0, -5.0, 1e300]:
                fast, slow = both(make_streams(1, 1), b, c, method)
                np.testing.assert_array_equal(fast, slow)


def test_interface():
    x = random_polyagamma([1.0, 2.0], [[0.0], [1.0], [2.0]], random_state=0)
    assert x.shape == (3, 2)
    assert isinstance(random_polyagamma(1.0, random_state=0), float)
    np.testing.assert_array_equal(random_polyagamma(3.0, 1.0, size=10, random_state=4),
                                  random_polyagamma(3.0, 1.0, size=10, random_state=4))
    assert random_polyagamma(0.0, 1.0, random_state=0) == 0.0
    with pytest.raises(ValueError, match="finite"):
        random_polyagamma(np.nan, 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        random_polyagamma(-1.0, 1.0)
    with pytest.raises(ValueError, match="method"):
        random_polyagamma(1.0, method="hybrid")


@pytest.mark.parametrize("b, c", [(0.1, 0.5), (0.5, 2.0), (0.9, 0.0), (0.99, 10.0),
                                  (1.5, 2.0), (3.7, 0.5)])
def test_fractional_part_by_sum_rule(b, c):
    # PG(r, c) + PG(1 - r, c) ~ PG(1, c): the non-integer parts, drawn by the
    # alternate method, against Devroye's sampler alone (independent oracle,
    # no CDF needed).
    r = b - np.floor(b)
    x = (random_polyagamma(b, c, size=N, random_state=11)
         + random_polyagamma(1.0 - r, c, size=N, random_state=12))
    ref = random_polyagamma(np.floor(b) + 1.0, c, size=N, random_state=13)
    assert stats.ks_2samp(x, ref).pvalue > 1e-3


def test_alternate_envelope_bounds_density():
    # For b < 1 the right envelope constant of the alternate method rests on a
    # bound checked numerically: G(x) = f(x | h) e^{pi^2 x / 8} x^{1 - h} stays
    # below C / 1.01 on x >= t (f from the alternating series, enough terms).
    from sklearn_pgtm._kernels._polyagamma import (
        _LAMBDA0, _alternate_constants, _alternate_truncation, _jstar_density)

    for h in np.concatenate([np.linspace(0.01, 0.99, 50), [0.995, 0.999]]):
        t = _alternate_truncation(h)
        log_c = _alternate_constants(h, 0.0)[1]
        for x in np.linspace(t, 12.0, 300):
            g = _jstar_density(h, x, 200) * np.exp(_LAMBDA0 * x) * x ** (1.0 - h)
            assert np.log(g) < log_c - np.log(1.005), (h, x)


@pytest.mark.parametrize("b", [1.0, 2.0, 3.3, 4.0, 9.5])
def test_alternate_method_matches_cdf_above_one(b):
    # The alternate sampler is exact for every b > 0; above 1 the package sums
    # Devroye draws instead, but the general sampler is checked here too (one
    # envelope up to 4, above that the sum over equal parts).
    from numba import njit

    from sklearn_pgtm._kernels._polyagamma import pg_alternate
    from sklearn_pgtm._kernels._random import make_streams

    @njit
    def draw(states, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = pg_alternate(states[0], b, 2.0)
        return out

    x = draw(make_streams(5, 1), N)
    assert stats.kstest(x, lambda t: polyagamma_cdf(t, b, 2.0)).pvalue > 1e-3


# The truncated sampler is rescaled to the exact mean for any number of terms,
# so only its variance shows how many terms it keeps: with weights
# w_k = 1 / ((k - 1/2)^2 + c^2 / (4 pi^2)), k = 1..M, and g_k ~ Gamma(b, 1),
# Var = E[PG(b, c)]^2 sum w_k^2 / (b (sum w_k)^2). (M - 1 terms, or c / pi in
# the weights, passed the tests of the mean; found by mutation testing.)
_N_TRUNCATED = 200_000


def _truncated_variance(b, c, n_terms):
    k = np.arange(1, n_terms + 1)
    w = 1.0 / ((k - 0.5) ** 2 + c**2 / (4 * np.pi**2))
    return pg_mean(b, c) ** 2 * np.sum(w**2) / (b * np.sum(w) ** 2)


@pytest.mark.parametrize("b, c, n_terms", [(1.0, 0.0, 1), (1.0, 0.0, 2), (2.5, 3.0, 2),
                                           (25.0, 10.0, 4), (4.0, 1.0, 3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_truncated_variance_is_that_of_n_terms(b, c, n_terms, seed):
    x = random_polyagamma(b, c, method="truncated", n_terms=n_terms, size=_N_TRUNCATED,
                          random_state=seed)
    assert np.all(np.isfinite(x)) and np.all(x > 0)
    var = _truncated_variance(b, c, n_terms)
    # Standard error of the sample variance from the sample's fourth central moment.
    centred = x - x.mean()
    se = np.sqrt(max(np.mean(centred**4) - np.var(x) ** 2, 0.0) / _N_TRUNCATED)
    assert abs(np.var(x) - var) < 5 * se, (np.var(x), var, se)
    # And the variance for one term fewer is far outside that band (the test
    # can tell n_terms from n_terms - 1).
    if n_terms > 1:
        assert abs(_truncated_variance(b, c, n_terms - 1) - var) > 10 * se


# pg_mean and pg_var between their switch points, against the closed forms
# where those are accurate in double precision (moving pg_mean's Taylor switch
# from x = 1e-4 to 0.1, error 1.3e-5, or pg_var's series switch from c = 1e-2
# to 0.1, error 4e-9, passed every test; mutation testing).
@pytest.mark.parametrize("b", [0.5, 1.0, 7.3])
def test_pg_mean_is_the_closed_form_between_the_switch_points(b):
    c = np.concatenate([np.geomspace(1e-3, 2.0, 60), -np.geomspace(1e-3, 2.0, 7)])
    expected = b / (2.0 * np.abs(c)) * np.tanh(np.abs(c) / 2.0)
    np.testing.assert_allclose(pg_mean(b, c), expected, rtol=1e-13, atol=0)
    # Below the switch, tanh(x) / x = 1 - x^2 / 3 + 2 x^4 / 15 - ...
    c = np.geomspace(1e-8, 1.9e-4, 20)
    x = c / 2.0
    expected = 0.25 * (1.0 - x ** 2 / 3.0 + 2.0 * x ** 4 / 15.0)
    np.testing.assert_allclose(pg_mean(1.0, c), expected, rtol=1e-15)
    assert pg_mean(2.0, 0.0) == 0.5


def test_pg_var_is_the_closed_form_above_its_series():
    # b (sinh c - c) / (4 c^3 cosh^2(c / 2)), accurate in double for c >= 0.05.
    c = np.geomspace(0.05, 20.0, 40)
    expected = 3.0 * (np.sinh(c) - c) / (4.0 * c ** 3 * np.cosh(c / 2.0) ** 2)
    np.testing.assert_allclose(pg_var(3.0, c), expected, rtol=1e-11)
