"""Pólya-Gamma draws and moments for numba kernels.

``pg_draw(state, b, c, method, n_terms)`` is the one entry point the model
kernels call; :func:`pg_draw_fast` is the same draw with the O(1)
approximations inlined in the caller, and :func:`pg_draw_many` fills an
array. Method codes (the user guide, doc/polyagamma.rst, has the equations):

- ``PG_EXACT``: Devroye's method for PG(1, c) (Polson, Scott & Windle 2013)
  summed over the integer part of ``b`` (sum rule), plus the alternate method
  (:func:`pg_alternate`) for a non-integer remainder. Cost O(b). Above
  ``EXACT_MAX_B`` the sum would take more than about 0.04 s per draw and the
  three-moment gamma approximation (below) is drawn instead; its Kolmogorov
  distance to PG(b, c) there is below 1e-8 (benchmarks/pg_samplers.py).
- ``PG_TRUNCATED``: the first ``n_terms`` terms of the gamma series, rescaled
  so that the mean is exact.
- ``PG_PG1``: ``n_terms`` exact PG(1, c) draws combined to match the mean and
  the variance of PG(b, c).
- ``PG_GAUSSIAN``: moment-matched normal, redrawn while not positive.
- ``PG_AUTO``: exact for ``b < AUTO_EXACT_MAX_B`` (5); from there on the
  three-moment gamma approximation ``PG_SHIFTED_GAMMA``: ``s + theta G`` with
  ``G ~ Gamma(k)`` and (s, theta, k) matching the mean, variance and third
  cumulant of PG(b, c), O(1) in ``b``. The switch point is the measurement of
  benchmarks/pg_samplers.py (section pg_samplers of benchmarks/RESULTS.md).
  ``PG_SHIFTED_GAMMA`` is an internal code (not in ``PG_METHODS``).

Every method is total: for every finite ``b > 0`` and every finite ``c`` it
returns a finite value >= 0 in bounded time. Each rejection loop stops after
``_MAX_PROPOSALS`` (10^6) proposals, and at the cap returns the mean of what
it draws; the acceptance rates are bounded below on the whole domain (above
0.99 for Devroye's envelope, about 0.5 for its proposals, and at worst about
3e-4, for the tilt of the alternate method's left piece with parts near
h = 4 and |c| near 8), so a loop reaches the cap with probability below
e^-300. Alternating series stop when their terms have underflowed to 0 (at
most a few dozen terms). Off
the domain: ``b <= 0`` gives 0 (PG(0, c) is the point mass at 0); ``c = +-inf``
gives 0 (the limit); NaN ``b`` or ``c`` and ``b = +inf`` give NaN. Draws for
tiny ``b`` (about 1e-150 and below) underflow to 0.
"""

import math

import numpy as np
from numba import njit
from scipy.special import zeta

from ._config import CACHE
from ._random import standard_exponential, standard_gamma, standard_normal, uniform

PG_EXACT = 0
PG_TRUNCATED = 1
PG_PG1 = 2
PG_GAUSSIAN = 3
PG_AUTO = 4
PG_SHIFTED_GAMMA = 5

# Most terms of the "truncated" and "pg1" series: it bounds the cost of a
# draw (3.5 ms with "truncated" at 10^5 terms); a larger number is a mistake,
# not a finer series.
MAX_PG_TERMS = 10**5

PG_METHODS = {
    "exact": PG_EXACT,
    "truncated": PG_TRUNCATED,
    "pg1": PG_PG1,
    "gaussian": PG_GAUSSIAN,
    "auto": PG_AUTO,
}

# ``PG_AUTO``: exact draws below this b, the three-moment shifted gamma from it
# on. Measured (benchmarks/pg_samplers.py, section pg_samplers of
# benchmarks/RESULTS.md): the Kolmogorov distance of the shifted gamma to
# PG(b, c) falls like 1 / b and is largest near |c| = 7; from b = 5 on it is
# at most 0.0105 / b, below 0.5 sqrt(2 / n) at n = 10^5 draws, 27 times the
# draws a default chain makes per (b, c) cell (1,250 sweeps x 3 sub-iterations
# of the logistic-normal link). Two-sample KS tests at a chain's 10^4 draws
# reject at the nominal rate from b = 2 on. The switch was 14 (the same rule
# at 10^6 draws) until 2026-11-29: exact draws cost about 40 ns per unit of
# b, and on documents of 5-13 tokens, where every draw of the logistic-normal
# link was exact, its fit took 4.4 times as long (4,000 messages of 8-12
# tokens, K = 20: 19.5 against 4.4 s of CPU for 250 sweeps).
AUTO_EXACT_MAX_B = 5.0

# ``PG_EXACT``: the Devroye sum costs about 40 ns per unit of b; above this b
# (0.04 s per draw) the three-moment shifted gamma is drawn instead (see the
# module docstring).
EXACT_MAX_B = 1048576.0

_PI = math.pi
_PI2 = math.pi * math.pi
_LAMBDA0 = 0.125 * _PI2  # pi^2 / 8
_LOG2 = math.log(2.0)
_LOG_HALF_PI = math.log(0.5 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_TRUNC = 0.64  # Devroye's switch point between the two series envelopes
_MAX_PROPOSALS = 1_000_000
_MAX_SERIES_TERMS = 200
_TINY = 1e-300


# ------------------------------------------------------------------ moments
@njit(cache=CACHE, nogil=True)
def pg_mean(b, c):
    """E[PG(b, c)] = b / (2c) tanh(c / 2), stable near c = 0 (0 at c = +-inf)."""
    x = 0.5 * abs(c)
    if x < 1e-4:
        return 0.25 * b * (1.0 - x * x / 3.0)
    return 0.25 * b * math.tanh(x) / x


@njit(cache=CACHE, nogil=True)
def pg_var(b, c):
    """Var[PG(b, c)], written as b (2 tanh(c/2) - c sech^2(c/2)) / (4 c^3).

    That form cannot overflow for large |c|; near 0 a Taylor series avoids the
    cancellation (Var = b/24 - b c^2 / 120 + O(c^4)).
    """
    c = abs(c)
    if c < 1e-2:
        c2 = c * c
        return b * (1.0 / 24.0 - c2 / 120.0 + 17.0 * c2 * c2 / 13440.0)
    x = 0.5 * c
    if x >= 350.0:
        # sech^2(x) < 4e-304: the second term is below the first's rounding.
        return b * (0.5 / (c * c * c))
    sech = 1.0 / math.cosh(x)
    return b * ((2.0 * math.tanh(x) - c * sech * sech) / (4.0 * c * c * c))


def _cumulant_series(order, n_terms):
    """Taylor coefficients in c^2 of the ``order``-th cumulant of PG(1, c).

    kappa_j = (j - 1)! sum_k d_k^-j with d_k = 2 pi^2 (k - 1/2)^2 + c^2 / 2
    (the gamma series); expanding in c^2 leaves the sums
    sum_k (2 pi^2 (k - 1/2)^2)^-n = (2^(2n) - 1) zeta(2n) / (2 pi^2)^n.
    The series converges for |c| < pi.
    """
    def power_sum(n):
        return (4.0**n - 1.0) * zeta(2.0 * n) / (2.0 * _PI2) ** n

    return np.array([math.factorial(order - 1) * (-1) ** m * math.comb(order + m - 1, m)
                     * power_sum(order + m) / 2.0**m for m in range(n_terms)])


# |c| < 0.5: terms fall by c^2 / pi^2 < 0.026 each, 10 terms reach 1e-16.
_SERIES_MAX_C = 0.5
_KAPPA1_SERIES = _cumulant_series(1, 10)
_KAPPA2_SERIES = _cumulant_series(2, 10)
_KAPPA3_SERIES = _cumulant_series(3, 10)


@njit(cache=CACHE, nogil=True, inline="always")
def _horner(coefficients, x):
    total = 0.0
    for i in range(coefficients.shape[0] - 1, -1, -1):
        total = total * x + coefficients[i]
    return total


@njit(cache=CACHE, nogil=True)
def _cumulant_ratios(c):
    """(kappa1, kappa2 / kappa1, kappa3 / kappa2) of PG(1, c); the ratios do
    not depend on b (kappa_j of PG(b, c) is b times that of PG(1, c)).

    With r = |c| / 2, e = exp(-2r) and g = 2r / sinh(2r) = 4 r e / (1 - e^2):
    kappa1 = tanh(r) / (4r), kappa2 / kappa1 = (1 - g) / (4 r^2) and
    kappa3 / kappa2 = 3 / (4 r^2) - sech^2(r) / (2 (1 - g)); near c = 0 the
    differences cancel and the Taylor series of :func:`_cumulant_series` is
    used instead. For |c| above about 1e154 the ratios underflow to 0.
    """
    c = abs(c)
    if c < _SERIES_MAX_C:
        c2 = c * c
        k1 = _horner(_KAPPA1_SERIES, c2)
        k2 = _horner(_KAPPA2_SERIES, c2)
        return k1, k2 / k1, _horner(_KAPPA3_SERIES, c2) / k2
    r = 0.5 * c
    e = math.exp(-2.0 * r)
    tanh = (1.0 - e) / (1.0 + e)
    one_minus_g = 1.0 - 4.0 * r * e / (1.0 - e * e)
    sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e))
    inv_4r2 = 0.25 / r / r
    return (0.25 * tanh / r, one_minus_g * inv_4r2,
            3.0 * inv_4r2 - 0.5 * sech2 / one_minus_g)


# ------------------------------------------------- normal and inverse Gaussian
@njit(cache=CACHE, nogil=True)
def _log_normal_tail_scaled(a):
    """log Phi(-a) + a^2 / 2 for a >= 0 (asymptotic series from a = 37 on,
    where Phi(-a) < 1e-299; its next term is below 1e-10 there)."""
    if a < 37.0:
        return math.log(0.5 * math.erfc(a * _SQRT_HALF)) + 0.5 * a * a
    inv = 1.0 / (a * a)
    # Phi(-a) = phi(a) / a (1 - 1/a^2 + 3/a^4 - 15/a^6 + ...).
    return -math.log(a) - _LOG_SQRT_2PI + math.log1p(-inv * (1.0 - 3.0 * inv * (1.0 - 5.0 * inv)))


@njit(cache=CACHE, nogil=True)
def _log_normal_cdf(x):
    """log Phi(x) for every x."""
    if x >= 0.0:
        return math.log1p(-0.5 * math.erfc(x * _SQRT_HALF))
    return _log_normal_tail_scaled(-x) - 0.5 * x * x


@njit(cache=CACHE, nogil=True)
def _log_inverse_gaussian_cdf(s, ratio):
    """log P(IG(mu, lam) <= x) given s = sqrt(lam / x) > 0 and ratio = x / mu
    (0 for mu = +inf, the Lévy law), both formed by the caller without
    dividing by mu (which may underflow).

    P = Phi(s (r - 1)) + exp(2 lam / mu) Phi(-a) with r = ratio and
    a = s (r + 1). Since 2 lam / mu - a^2 / 2 = -(s (r - 1))^2 / 2, the second
    term is exp(-(s (r - 1))^2 / 2 + log Phi(-a) + a^2 / 2): no factor
    overflows, whatever the sizes of lam / mu and a.
    """
    log_a = _log_normal_cdf(s * (ratio - 1.0))
    d = s * (ratio - 1.0)
    log_b = -0.5 * d * d + _log_normal_tail_scaled(s * (ratio + 1.0))
    top = max(log_a, log_b)
    return top + math.log(math.exp(log_a - top) + math.exp(log_b - top))


@njit(cache=CACHE, nogil=True)
def _truncated_inverse_gaussian(state, z, t):
    """IG(1/z, 1) truncated to (0, t), z >= 0 (Devroye's proposal for small x).

    mean > t (z t < 1): 1 / chi-square(1) truncated to (0, t), accepted with
    probability exp(-z^2 x / 2) >= exp(-z^2 t / 2). The truncated 1 / chi-square
    comes from Devroye's exponential method (acceptance E[exp(-t E^2 / 2)],
    above 0.51 for t < 2.5) or, for larger t, from plain draws 1 / N^2 kept
    below t (acceptance P(chi-square(1) > 1/t), above 0.52). mean <= t: the inverse
    Gaussian of Michael, Schucany & Haas in standard form, IG(mu, 1) =
    mu IG(1, 1/mu), kept when below t (probability >= 1/2, the median of an
    inverse Gaussian is below its mean).
    """
    if z == 0.0 or z * t < 1.0:
        half_z2 = 0.5 * z * z
        for _ in range(_MAX_PROPOSALS):
            if t < 2.5:
                e1 = standard_exponential(state)
                e2 = standard_exponential(state)
                if e1 * e1 > 2.0 * e2 / t:
                    continue
                x = 1.0 + e1 * t
                x = t / (x * x)
            else:
                y = standard_normal(state)
                y = y * y
                if y == 0.0 or y * t <= 1.0:
                    continue
                x = 1.0 / y
            if half_z2 == 0.0 or uniform(state) <= math.exp(-half_z2 * x):
                return x
        return t
    mu = 1.0 / z
    for _ in range(_MAX_PROPOSALS):
        y = standard_normal(state)
        a = 0.5 * y * y * mu
        # Smaller root of the quadratic, in the form without cancellation
        # (a <= y^2 t / 2: no overflow).
        x = 1.0 / (1.0 + a + math.sqrt(a * (a + 2.0)))
        if uniform(state) * (1.0 + x) > 1.0:
            x = 1.0 / x
        x *= mu
        if x <= t:
            return x
    return mu


# ------------------------------------------------------ Devroye: PG(1, c)
# From z = 12 on the right piece's probability is below 7.7e-18, under the
# smallest value uniform() returns (2^-54): it is never chosen, and setting it
# to 0 changes no draw.
_DEVROYE_RIGHT_MAX_Z = 12.0
_SQRT_TRUNC_INV = 1.0 / math.sqrt(_TRUNC)


@njit(cache=CACHE, nogil=True)
def _devroye_constants(z):
    """(f(z), probability of the right envelope piece) for PG(1, 2z), z >= 0.

    The two pieces of Devroye's envelope have masses
    p = pi / (2 f(z)) exp(-f(z) t) (right, truncated exponential) and
    q = 2 exp(-z) P(IG(1/z, 1) <= t) (left), with
    P(IG(1/z, 1) <= t) = Phi(s (t z - 1)) + exp(2z) Phi(-s (t z + 1)),
    s = 1 / sqrt(t). The probability is 1 / (1 + q / p),
    q / p = (4 f(z) / pi) exp(f(z) t) (exp(-z) Phi(a1) + exp(z) Phi(-a2)),
    finite below z = 12 (no factor exceeds 1e30 there).
    """
    fz = _LAMBDA0 + 0.5 * z * z
    if z >= _DEVROYE_RIGHT_MAX_Z:
        return fz, 0.0
    ez = math.exp(z)
    tz = _TRUNC * z
    left_cdf = (0.5 * math.erfc(-_SQRT_HALF * _SQRT_TRUNC_INV * (tz - 1.0)) / ez
                + 0.5 * math.erfc(_SQRT_HALF * _SQRT_TRUNC_INV * (tz + 1.0)) * ez)
    ratio = (4.0 / _PI) * fz * math.exp(fz * _TRUNC) * left_cdf
    return fz, 1.0 / (1.0 + ratio)


# a_1(x) / a_0(x) is 3 exp(-pi^2 x) right of the switch point and 3 exp(-4 / x)
# left of it; both are at most their value at the switch point, so a uniform
# below 1 - _FIRST_STEP_SQUEEZE accepts without computing either (>99 % of
# draws).
_FIRST_STEP_SQUEEZE = 3.0 * max(math.exp(-_PI2 * _TRUNC), math.exp(-4.0 / _TRUNC))


@njit(cache=CACHE, nogil=True)
def _devroye_accepts(x, u):
    """Decide u <= f(x) / a_0(x) by the alternating series of J*(1).

    With r_n = a_n / a_0 = (2n + 1) exp(-n (n + 1) rate), rate = pi^2 x / 2
    right of the switch point and 2 / x left of it (rate >= 3.1 on both
    sides): r_n underflows to 0 by n = 27, after which the partial sums stop
    moving and the next step decides.
    """
    if x > _TRUNC:
        rate = 0.5 * _PI2 * x
    elif x > 0.0:
        rate = 2.0 / x
    else:
        return True
    s = 1.0
    for n in range(1, _MAX_SERIES_TERMS):
        term = (2.0 * n + 1.0) * math.exp(-n * (n + 1.0) * rate)
        if n % 2 == 1:
            s -= term
            if u <= s:
                return True
        else:
            s += term
            if u > s:
                return False
    return True


@njit(cache=CACHE, nogil=True, inline="always")
def _devroye_draw(state, z, fz, right_probability):
    """One exact PG(1, 2z) draw given the constants of :func:`_devroye_constants`.

    Inlined (the hot path: uniform, exponential, squeeze); the rarely taken
    left envelope piece and the series test are calls, which cut the compile
    time of every inlined copy and change no draw.
    """
    for _ in range(_MAX_PROPOSALS):
        u = uniform(state)
        if u < right_probability:
            x = _TRUNC + standard_exponential(state) / fz
            # u / p is again uniform on (0, 1) and independent of the choice.
            u = u / right_probability
        else:
            x = _truncated_inverse_gaussian(state, z, _TRUNC)
            u = (u - right_probability) / (1.0 - right_probability)
        if u <= 1.0 - _FIRST_STEP_SQUEEZE or _devroye_accepts(x, u):
            return 0.25 * x
    return pg_mean(1.0, 2.0 * z)


# ---------------------------------------------------------------------------
# Exact J*(h, z) for any real h > 0: the "alternate" method of Windle, Polson
# & Scott (2014, Section 4), with envelopes derived below. PG(h, c) equals
# J*(h, |c| / 2) / 4.
#
# Density of J*(h) (Laplace transform cosh(sqrt(2 s))^-h), for every h > 0:
#     f(x | h) = sum_n (-1)^n a_n(x),
#     a_n(x) = 2^h Gamma(n + h) / (Gamma(h) n!) (2n + h) / sqrt(2 pi x^3)
#              exp(-(2n + h)^2 / (2x))
# (binomial series of (1 + e^-2w)^-h and the Lévy kernel). Tilting by z
# multiplies it by cosh(z)^h exp(-z^2 x / 2).
#
# Alternating-series test: if a_m is non-increasing for every m >= N, each
# partial sum S_n with n >= N - 1 brackets f (S_n >= f for even n, <= for
# odd n), so accept/reject decisions taken only from such S_n are exact. From
# a_{m+1} / a_m = (m + h) / (m + 1) (2m + 2 + h) / (2m + h) exp(-2 (2m + 1 + h) / x)
# and log(1 + y) <= y, a_m is non-increasing for every m >= N as soon as
#     h <= 1:  x <= (2N + h) (2N + h + 1),
#     h >= 1:  (h - 1) / (N + 1) + 2 / (2N + h) <= 2 (2N + h + 1) / x
# (both sides monotone in N). :func:`_alternating_start` returns that N.
#
# Envelope k >= f (untilted; the tilt exp(-z^2 x / 2) multiplies both):
# - x <= t: k = a_0 = S_0 (valid since N <= 1 there for the t used, t < 6).
#   Tilted, it is 2^h e^-hz times the inverse Gaussian IG(h / z, h^2).
# - x > t: k = C x^(h-1) exp(-pi^2 x / 8), a truncated Gamma(h, pi^2/8 + z^2/2)
#   once tilted. With G(x) = f(x | h) exp(pi^2 x / 8) x^(1-h):
#   * h >= 1: J*(h) = Y + R with Y ~ Gamma(h, pi^2 / 8) (first term of the
#     gamma series) and R >= 0 independent, E[exp(pi^2 R / 8)] = (4 / pi)^h,
#     and (x - r)^(h-1) <= x^(h-1); so G <= C = (pi / 2)^h / Gamma(h).
#     The envelope's mass grows like (4 / pi)^h relative to f's, so its
#     acceptance rate falls like (pi / 4)^h (measured in
#     benchmarks/pg_samplers.py); :func:`pg_alternate` therefore splits
#     h above _ALTERNATE_MAX_PART into equal parts by the sum rule.
#   * h < 1: no closed bound; G(x) tends to G(inf) = (pi/2)^h / Gamma(h) from
#     above (the expansion at the branch point s = -pi^2/8 gives
#     G(x) = G(inf) (1 + 2h (1 - h) / (pi^2 x) + O(x^-2))) and, on a fine grid
#     of h in (0, 1) and x in [t, 12], never exceeds max(G(t), G(inf)) by more
#     than 0.16 % (the bump sits at h ~ 0.99 where the e^{-pi^2 x} term of the
#     h = 1 density still shows). C = 1.01 max(G(t), G(inf)); the grid check
#     is tests/test_polyagamma.py::test_alternate_envelope_bounds_density.
# ---------------------------------------------------------------------------

_ENVELOPE_SLACK = 1.01  # G(x) exceeds max(G(t), G(inf)) by < 0.2 % (h near 1)
# Largest part of pg_alternate's sum rule (measured in benchmarks/pg_samplers.py).
_ALTERNATE_MAX_PART = 4.0


@njit(cache=CACHE, nogil=True)
def _upper_gamma_q(a, x):
    """Regularized upper incomplete gamma Q(a, x), a > 0, x >= 0 (may be inf)."""
    if x <= 0.0:
        return 1.0
    if x == math.inf:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        # Series for P(a, x).
        term = 1.0 / a
        total = term
        ap = a
        for _ in range(1000):
            ap += 1.0
            term *= x / ap
            total += term
            if term < total * 1e-17:
                break
        return max(1.0 - total * math.exp(log_front), 0.0)
    # Continued fraction for Q(a, x) (modified Lentz).
    b = x + 1.0 - a
    cc = 1.0 / 1e-300
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < 1e-300:
            d = 1e-300
        cc = b + an / cc
        if abs(cc) < 1e-300:
            cc = 1e-300
        d = 1.0 / d
        delta = d * cc
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h


@njit(cache=CACHE, nogil=True)
def _alternating_start(h, x):
    """Smallest N such that a_m(x | h) is non-increasing for all m >= N."""
    for n in range(_MAX_PROPOSALS):
        k = 2.0 * n + h
        if h <= 1.0:
            if x <= k * (k + 1.0):
                return n
        elif (h - 1.0) / (n + 1.0) + 2.0 / k <= 2.0 * (k + 1.0) / x:
            return n
    return _MAX_PROPOSALS


@njit(cache=CACHE, nogil=True)
def _jstar_density_ratio_test(h, x, target):
    """Decide ``target <= f(x | h) / a_0(x | h)`` exactly by the alternating series.

    Terms are scaled by a_0: r_n = a_n / a_0
    = prod_{m<n} (m + h) / (m + 1) * (2n + h) / h * exp(-2n (n + h) / x).
    """
    n_start = _alternating_start(h, x)
    if n_start > 0:
        n_start -= 1
    s = 1.0
    w = 1.0  # Gamma(n + h) / (Gamma(h) n!)
    for n in range(n_start + _MAX_SERIES_TERMS):
        if n >= n_start:
            if n % 2 == 1:
                if target <= s:
                    return True
            elif target > s:
                return False
        w *= (n + h) / (n + 1.0)
        term = w * (2.0 * n + 2.0 + h) / h * math.exp(-2.0 * (n + 1.0) * (n + 1.0 + h) / x)
        if n % 2 == 0:
            s -= term
        else:
            s += term
    # Terms fall like exp(-2 n^2 / x) once past n_start: they have underflowed.
    return target <= s


@njit(cache=CACHE, nogil=True)
def _jstar_density(h, x, n_max):
    """f(x | h) of J*(h) from ``n_max`` terms of the alternating series (x small)."""
    total = 0.0
    w = 1.0
    log_front = h * _LOG2 - _LOG_SQRT_2PI - 1.5 * math.log(x)
    for n in range(n_max):
        k = 2.0 * n + h
        term = w * k * math.exp(log_front - 0.5 * k * k / x)
        total += term if n % 2 == 0 else -term
        w *= (n + h) / (n + 1.0)
    return total


@njit(cache=CACHE, nogil=True)
def _alternate_truncation(h):
    """Switch point t between the two envelope pieces (in (0.6, 1.5), below 6)."""
    if h < 1.0:
        return 0.6 + 0.1 * h
    return min(0.6 + 0.1 * h, 1.5)


@njit(cache=CACHE, nogil=True)
def _alternate_constants(h, z):
    """(t, log C, probability of the left piece, lambda_z) for J*(h, z), z >= 0."""
    t = _alternate_truncation(h)
    lgh = math.lgamma(h)
    if h < 1.0:
        g_t = _jstar_density(h, t, 40) * math.exp(_LAMBDA0 * t) * t ** (1.0 - h)
        g_inf = math.exp(h * math.log(0.5 * _PI) - lgh)
        log_c = math.log(max(g_t, g_inf) * _ENVELOPE_SLACK)
    else:
        log_c = h * math.log(0.5 * _PI) - lgh
    lam_z = _LAMBDA0 + 0.5 * z * z
    # Left mass: 2^h e^{-hz} P(IG(h/z, h^2) <= t).
    log_left = (h * _LOG2 - h * z
                + _log_inverse_gaussian_cdf(h / math.sqrt(t), t * z / h))
    # Right mass: C Gamma(h) lam_z^-h Q(h, lam_z t).
    q = _upper_gamma_q(h, lam_z * t)
    if q <= 0.0:
        return t, log_c, 1.0, lam_z
    log_right = log_c + lgh - h * math.log(lam_z) + math.log(q)
    return t, log_c, 1.0 / (1.0 + math.exp(log_right - log_left)), lam_z


@njit(cache=CACHE, nogil=True)
def _truncated_gamma_right(state, h, s):
    """Gamma(h, 1) truncated to (s, inf), s > 0 (acceptance rates above 0.3)."""
    if h >= 1.0 and s <= h:
        for _ in range(_MAX_PROPOSALS):
            y = standard_gamma(state, h)
            if y > s:
                return y
        return max(h, s)
    if h <= 1.0:
        # s + Exp(1), accepted with (y / s)^(h - 1) <= 1.
        for _ in range(_MAX_PROPOSALS):
            y = s + standard_exponential(state)
            if uniform(state) <= (y / s) ** (h - 1.0):
                return y
        return s + 1.0
    # h > 1, s > h: s + Exp(rate r), r = 1 - (h - 1) / s puts the maximum of
    # y^(h-1) e^{-(1-r) y} at y = s.
    r = 1.0 - (h - 1.0) / s
    for _ in range(_MAX_PROPOSALS):
        y = s + standard_exponential(state) / r
        log_acc = (h - 1.0) * math.log(y / s) - (1.0 - r) * (y - s)
        if math.log(uniform(state)) <= log_acc:
            return y
    return s + 1.0 / r


@njit(cache=CACHE, nogil=True)
def _jstar_alternate(state, h, z, t, log_c, left, lam_z):
    """One exact J*(h, z) draw (any h > 0) given :func:`_alternate_constants`."""
    # h^2 and t / h^2 are formed as h * h and t / h / h: for tiny h (below
    # 1e-154) they underflow or overflow instead of dividing by 0, and the
    # draw underflows to 0, the nearest double to J*(h, z) there.
    h2 = h * h
    for _ in range(_MAX_PROPOSALS):
        if uniform(state) < left:
            # IG(h/z, h^2) truncated to (0, t) = h^2 IG(1/(hz), 1) truncated to (0, t/h^2).
            x = h2 * _truncated_inverse_gaussian(state, h * z, t / h / h)
            envelope_ratio = 1.0  # k / a_0
        else:
            x = _truncated_gamma_right(state, h, lam_z * t) / lam_z
            # k / a_0 = C x^(h-1) e^{-pi^2 x / 8} / (2^h h / sqrt(2 pi x^3) e^{-h^2 / (2x)})
            envelope_ratio = math.exp(
                log_c + (h - 1.0) * math.log(x) - _LAMBDA0 * x
                - (h * _LOG2 + math.log(h) - _LOG_SQRT_2PI - 1.5 * math.log(x)
                   - 0.5 * h2 / x))
        if x <= 0.0:
            return 0.0
        if _jstar_density_ratio_test(h, x, uniform(state) * envelope_ratio):
            return x
    return h * math.tanh(z) / z if z > 0.0 else h


@njit(cache=CACHE, nogil=True)
def pg_alternate(state, h, c):
    """Exact PG(h, c) for any real h > 0 by the alternate method (one draw).

    Above ``_ALTERNATE_MAX_PART`` the envelope's acceptance rate has fallen
    (like (pi/4)^h), so h is split into equal parts no larger than that, each
    drawn by the alternate method and summed (sum rule): cost O(h).
    """
    if not (h > 0.0 and h < math.inf and abs(c) < math.inf):
        return _pg_limit(h, c)
    if h * h == 0.0:
        # h below 1.6e-162: the draw, near h^2 / 4, underflows to 0.
        return 0.0
    if h > EXACT_MAX_B:
        return _pg_shifted_gamma_call(state, h, c)
    z = 0.5 * abs(c)
    n_parts = 1 if h <= _ALTERNATE_MAX_PART else int(math.ceil(h / _ALTERNATE_MAX_PART))
    part = h / n_parts
    t, log_c, left, lam_z = _alternate_constants(part, z)
    x = 0.0
    for _ in range(n_parts):
        x += _jstar_alternate(state, part, z, t, log_c, left, lam_z)
    return 0.25 * x


# ------------------------------------------------------------ approximations
@njit(cache=CACHE, nogil=True)
def _pg_gamma_series(state, b, c, n_terms):
    """First ``n_terms`` terms of the gamma series, scaled to the exact mean.

    X = E[X] sum_k w_k (g_k / b) / sum_k w_k, g_k ~ Gamma(b), with the weights
    w_k = 1 / ((k - 1/2)^2 + d), d = c^2 / (4 pi^2), taken relative to w_1
    (in (0, 1], finite for every c, where c^2 may overflow).
    """
    d = (c / (2.0 * _PI)) ** 2
    weighted = 0.0
    total_weight = 0.0
    for k in range(1, n_terms + 1):
        w = 1.0 / (1.0 + ((k - 0.5) ** 2 - 0.25) / (0.25 + d))
        weighted += standard_gamma(state, b) / b * w
        total_weight += w
    return pg_mean(b, c) * weighted / total_weight


@njit(cache=CACHE, nogil=True)
def _pg_sum_of_pg1(state, b, c, n_terms):
    """b E1 + sqrt(b / M) sum_m (X_m - E1) over M exact PG(1, c) draws X_m,
    redrawn while not positive (exact draws when b <= M)."""
    if b <= n_terms:
        return pg_exact(state, b, c)
    m = pg_mean(b, c)
    e1 = pg_mean(1.0, c)
    scale = math.sqrt(b / n_terms)
    z = 0.5 * abs(c)
    fz, right = _devroye_constants(z)
    for _ in range(100):
        acc = 0.0
        for _ in range(n_terms):
            acc += _pg_exact_with_call(state, 1.0, c, z, fz, right) - e1
        x = m + scale * acc
        if x > 0.0:
            return x
    return m


@njit(cache=CACHE, nogil=True, inline="always")
def _pg_gaussian(state, b, c):
    """N(E[X], Var[X]) redrawn while not positive; mean and variance share one tanh."""
    c = abs(c)
    if c < 1e-2:
        m = pg_mean(b, c)
        var = pg_var(b, c)
    else:
        x = 0.5 * c
        t = math.tanh(x)
        m = 0.5 * b * t / c
        # sech^2 = 1 - tanh^2: no cosh needed; b multiplies last (b near the
        # largest double).
        var = b * ((2.0 * t - c * (1.0 - t * t)) / (4.0 * c * c * c))
    sd = math.sqrt(var)
    for _ in range(100):
        draw = m + sd * standard_normal(state)
        if draw > 0.0:
            return draw
    return m


@njit(cache=CACHE, nogil=True, inline="always")
def _pg_shifted_gamma(state, b, c):
    """Three-moment approximation s + theta Gamma(k) of PG(b, c), b >= 1.

    k = 4 kappa2^3 / kappa3^2, theta = kappa3 / (2 kappa2) and
    s = kappa1 - k theta match mean, variance and third cumulant; s lies
    between kappa1 / 6 (c = 0) and kappa1 / 3 (|c| large), so draws are > 0.
    When k exceeds 1e30 the skewness (2 / sqrt(k)) is below double precision
    and a normal draw is used; for |c| above about 1e75, where the coefficient
    of variation of PG(b, c), sqrt(2 / (b |c|)), is below 1e-37, the mean is
    returned.
    """
    k1, q2, q3 = _cumulant_ratios(c)
    mean = b * k1
    var = mean * q2
    if not q3 > 1e-150:
        return mean
    shape = 4.0 * var / (q3 * q3)
    if shape > 1e30:
        return max(mean + math.sqrt(var) * standard_normal(state), 0.0)
    theta = 0.5 * q3
    return (mean - shape * theta) + theta * standard_gamma(state, shape)


@njit(cache=CACHE, nogil=True)
def _pg_shifted_gamma_call(state, b, c):
    """:func:`_pg_shifted_gamma` as a call (for the rare b > ``EXACT_MAX_B``)."""
    return _pg_shifted_gamma(state, b, c)


# -------------------------------------------------------------- dispatch
@njit(cache=CACHE, nogil=True)
def _pg_limit(b, c):
    """The value off the domain (b <= 0, b or c not finite); see the module docstring."""
    if b <= 0.0:
        return 0.0
    if b != b or c != c or b == math.inf:
        return math.nan
    return 0.0  # |c| = inf: PG(b, c) tends to the point mass at 0


@njit(cache=CACHE, nogil=True, inline="always")
def _pg_exact_with(state, b, c, z, fz, right):
    """Exact PG(b, c) given the Devroye constants of c (sum rule over int(b)).

    Inlined into :func:`pg_draw_many` only; :func:`pg_exact` (for b other
    than 1) and the "pg1" method call the compiled copy
    :func:`_pg_exact_with_call`. Both callers that draw b = 1 often,
    :func:`pg_draw_many` and :func:`pg_exact`, inline :func:`_devroye_draw`
    for it before coming here (the early return is worth about 5 ns of a
    35 ns PG(1, c) draw in :func:`pg_draw_many`). Each inlined copy of
    :func:`_devroye_draw` costs about 1.5 s of compile time, so it appears
    once here.
    """
    if b > EXACT_MAX_B:
        return _pg_shifted_gamma_call(state, b, c)
    n = int(b)
    r = b - n
    x = 0.0
    for _ in range(n):
        x += _devroye_draw(state, z, fz, right)
    if r > 0.0:
        x += pg_alternate(state, r, c)
    return x


@njit(cache=CACHE, nogil=True)
def _pg_exact_with_call(state, b, c, z, fz, right):
    """:func:`_pg_exact_with` as a call (one compiled copy for :func:`pg_exact`
    and the "pg1" method)."""
    return _pg_exact_with(state, b, c, z, fz, right)


@njit(cache=CACHE, nogil=True)
def pg_exact(state, b, c):
    """Exact PG(b, c) for finite b > 0 and finite c (see ``EXACT_MAX_B``)."""
    # The envelope constants depend on c only: computed once for the sum.
    z = 0.5 * abs(c)
    fz, right = _devroye_constants(z)
    if b == 1.0:  # the common case of the model kernels: one inlined Devroye draw
        return _devroye_draw(state, z, fz, right)
    return _pg_exact_with_call(state, b, c, z, fz, right)


@njit(cache=CACHE, nogil=True)
def pg_draw(state, b, c, method, n_terms):
    """One PG(b, c) draw with the chosen ``method`` code (module docstring)."""
    if not (b > 0.0 and b < math.inf and abs(c) < math.inf):
        return _pg_limit(b, c)
    if method == PG_AUTO:
        method = PG_EXACT if b < AUTO_EXACT_MAX_B else PG_SHIFTED_GAMMA
    if method == PG_EXACT:
        return pg_exact(state, b, c)
    if method == PG_TRUNCATED:
        return _pg_gamma_series(state, b, c, max(n_terms, 1))
    if method == PG_PG1:
        return _pg_sum_of_pg1(state, b, c, max(n_terms, 1))
    if method == PG_GAUSSIAN:
        return _pg_gaussian(state, b, c)
    return _pg_shifted_gamma(state, b, c)


@njit(cache=CACHE, nogil=True, inline="always")
def pg_draw_fast(state, b, c, method, n_terms):
    """:func:`pg_draw` with the O(1) approximations inlined in the caller (the
    correlated model draws K of them per document and sub-iteration, where a
    call costs as much as the draw)."""
    if b < math.inf and abs(c) < math.inf:
        if method == PG_GAUSSIAN and b > 0.0:
            return _pg_gaussian(state, b, c)
        if method == PG_AUTO and b >= AUTO_EXACT_MAX_B:
            return _pg_shifted_gamma(state, b, c)
    return pg_draw(state, b, c, method, n_terms)


@njit(cache=CACHE, nogil=True)
def pg_draw_many(states, b, c, method, n_terms, out):
    """Fill ``out[i]`` with PG(b[i], c[i]) using stream ``states[i % n]``.

    For exact draws (also those of ``PG_AUTO`` below its switch point),
    Devroye's envelope constants are reused while ``c`` repeats (they cost
    more than a PG(1, c) draw itself).
    """
    n_streams = states.shape[0]
    last_c = math.nan
    z = fz = right = 0.0
    state = states[0]
    for i in range(out.shape[0]):
        if n_streams > 1:
            state = states[i % n_streams]
        bi = b[i]
        ci = c[i]
        if ((method == PG_EXACT or (method == PG_AUTO and bi < AUTO_EXACT_MAX_B))
                and bi > 0.0 and bi < math.inf):
            if ci != last_c:  # always true for NaN
                if not abs(ci) < math.inf:
                    out[i] = _pg_limit(bi, ci)
                    continue
                z = 0.5 * abs(ci)
                fz, right = _devroye_constants(z)
                last_c = ci
            if bi == 1.0:  # the hot case: one inlined Devroye draw
                out[i] = _devroye_draw(state, z, fz, right)
            else:
                out[i] = _pg_exact_with(state, bi, ci, z, fz, right)
        else:
            out[i] = pg_draw(state, bi, ci, method, n_terms)
