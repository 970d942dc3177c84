"""Pólya-Gamma draws and moments for numba kernels.

``pg_draw(state, b, c, method, n_terms)`` is the one entry point the model
kernels call. Methods (codes below) follow Chen et al. (2013, Table 1):

- ``PG_EXACT``: Devroye's method for PG(1, c) (Polson, Scott & Windle 2013),
  summed over the integer part of ``b``; the fractional part is handled by
  :func:`_pg_fractional`.
- ``PG_TRUNCATED``: the first ``n_terms`` terms of the gamma series, rescaled
  so that the mean is exact.
- ``PG_PG1``: ``n_terms`` exact PG(1, c) draws combined to match the mean and
  the variance of PG(b, c).
- ``PG_GAUSSIAN``: moment-matched normal, redrawn while not positive.

Every method returns a finite value > 0 for b > 0 (0 for b <= 0).
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE
from ._random import standard_exponential, standard_gamma, standard_normal, uniform

PG_EXACT = 0
PG_TRUNCATED = 1
PG_PG1 = 2
PG_GAUSSIAN = 3
PG_AUTO = 4

PG_METHODS = {
    "exact": PG_EXACT,
    "truncated": PG_TRUNCATED,
    "pg1": PG_PG1,
    "gaussian": PG_GAUSSIAN,
    "auto": PG_AUTO,
}

# ``PG_AUTO``: exact draws below this b, the moment-matched normal from it on.
# PROVISIONAL value, to be replaced by the KS measurement of
# benchmarks/pg_samplers.py (issue 12).
AUTO_GAUSSIAN_MIN_B = 64.0

_PI = math.pi
_PI2 = math.pi * math.pi
_TRUNC = 0.64  # Devroye's switch point between the two series envelopes
_TINY = 1e-300


@njit(cache=CACHE)
def pg_mean(b, c):
    """E[PG(b, c)] = b / (2c) tanh(c / 2), stable near c = 0."""
    x = 0.5 * abs(c)
    if x < 1e-4:
        return 0.25 * b * (1.0 - x * x / 3.0)
    return 0.25 * b * math.tanh(x) / x


@njit(cache=CACHE)
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
    sech = 1.0 / math.cosh(x) if x < 350.0 else 0.0
    return b * (2.0 * math.tanh(x) - c * sech * sech) / (4.0 * c * c * c)


@njit(cache=CACHE)
def _normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@njit(cache=CACHE)
def _inverse_gaussian_cdf(x, mu, lam):
    """CDF at x of the inverse Gaussian IG(mu, lam); mu may be +inf."""
    s = math.sqrt(lam / x)
    a = _normal_cdf(s * (x / mu - 1.0))
    log_b = 2.0 * lam / mu + math.log(max(_normal_cdf(-s * (x / mu + 1.0)), _TINY))
    return a + math.exp(log_b)


@njit(cache=CACHE, inline="always")
def _truncated_inverse_gaussian(state, z, t):
    """IG(1/z, 1) truncated to (0, t) (Devroye's proposal for small x)."""
    mu = 1.0 / z if z > 0.0 else math.inf
    if mu > t:
        half_z2 = 0.5 * z * z
        while True:
            # 1 / chi-square(1) truncated to (0, t), then accept by exp(-z^2 x / 2).
            e1 = standard_exponential(state)
            e2 = standard_exponential(state)
            while e1 * e1 > 2.0 * e2 / t:
                e1 = standard_exponential(state)
                e2 = standard_exponential(state)
            x = 1.0 + e1 * t
            x = t / (x * x)
            if half_z2 == 0.0 or uniform(state) <= math.exp(-half_z2 * x):
                return x
    half_mu = 0.5 * mu
    while True:
        y = standard_normal(state)
        y = y * y
        x = mu + half_mu * mu * y - half_mu * math.sqrt(4.0 * mu * y + (mu * y) ** 2)
        if uniform(state) > mu / (mu + x):
            x = mu * mu / x
        if x <= t:
            return x


@njit(cache=CACHE)
def _series_coefficient(n, x):
    """Devroye's piecewise coefficient a_n(x) for J*(1)."""
    k = n + 0.5
    if x > _TRUNC:
        return _PI * k * math.exp(-0.5 * k * k * _PI2 * x)
    u = 2.0 / (_PI * x)
    return u * math.sqrt(u) * _PI * k * math.exp(-2.0 * k * k / x)


@njit(cache=CACHE)
def _devroye_constants(c):
    """(z, f(z), probability of the right envelope piece) of Devroye's sampler."""
    z = 0.5 * abs(c)
    fz = 0.125 * _PI2 + 0.5 * z * z
    # Mixture weights of the two envelope pieces (right: truncated exponential,
    # left: truncated inverse Gaussian).
    p = 0.5 * _PI * math.exp(-fz * _TRUNC) / fz
    q = 2.0 * math.exp(-z) * _inverse_gaussian_cdf(_TRUNC, 1.0 / z if z > 0 else math.inf, 1.0)
    return z, fz, p / (p + q)


# a_1(x) / a_0(x) is 3 exp(-pi^2 x) right of the switch point and 3 exp(-4 / x)
# left of it; both are at most their value at the switch point, so a uniform
# below 1 - _FIRST_STEP_SQUEEZE accepts without computing either (>99 % of
# draws).
_FIRST_STEP_SQUEEZE = 3.0 * max(math.exp(-_PI2 * _TRUNC), math.exp(-4.0 / _TRUNC))


@njit(cache=CACHE, inline="always")
def _devroye_draw(state, z, fz, right_probability):
    """One exact PG(1, 2z) draw given the constants of :func:`_devroye_constants`."""
    left_probability = 1.0 - right_probability
    while True:
        u = uniform(state)
        if u < right_probability:
            x = _TRUNC + standard_exponential(state) / fz
            # u / p is again uniform on (0, 1) and independent of the choice.
            u = u / right_probability
        else:
            x = _truncated_inverse_gaussian(state, z, _TRUNC)
            u = (u - right_probability) / left_probability
        # First step of the alternating series in ratio form: accept when
        # u <= 1 - a_1(x) / a_0(x).
        if u <= 1.0 - _FIRST_STEP_SQUEEZE:
            return 0.25 * x
        if x > _TRUNC:
            ratio = 3.0 * math.exp(-_PI2 * x)
        else:
            ratio = 3.0 * math.exp(-4.0 / x)
        if u <= 1.0 - ratio:
            return 0.25 * x
        s = _series_coefficient(0, x)
        y = u * s
        n = 0
        while True:
            n += 1
            if n % 2 == 1:
                s -= _series_coefficient(n, x)
                if y <= s:
                    return 0.25 * x
            else:
                s += _series_coefficient(n, x)
                if y > s:
                    break


@njit(cache=CACHE)
def pg1_devroye(state, c):
    """Exact PG(1, c) draw by Devroye's alternating-series method."""
    z, fz, right = _devroye_constants(c)
    return _devroye_draw(state, z, fz, right)


@njit(cache=CACHE)
def _pg_gamma_series(state, b, c, n_terms):
    """First ``n_terms`` terms of the gamma series, scaled to the exact mean."""
    d = c * c / (4.0 * _PI2)
    total = 0.0
    mean_part = 0.0
    for k in range(1, n_terms + 1):
        w = 1.0 / ((k - 0.5) ** 2 + d)
        total += standard_gamma(state, b) * w
        mean_part += w
    mean_part *= b / (2.0 * _PI2)
    return (total / (2.0 * _PI2)) * (pg_mean(b, c) / mean_part)


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
#   * h < 1: no closed bound; G(x) tends to G(inf) = (pi/2)^h / Gamma(h) from
#     above (the expansion at the branch point s = -pi^2/8 gives
#     G(x) = G(inf) (1 + 2h (1 - h) / (pi^2 x) + O(x^-2))) and, on a fine grid
#     of h in (0, 1) and x in [t, 12], never exceeds max(G(t), G(inf)) by more
#     than 0.16 % (the bump sits at h ~ 0.99 where the e^{-pi^2 x} term of the
#     h = 1 density still shows). C = 1.01 max(G(t), G(inf)); the grid check
#     is tests/test_polyagamma.py::test_alternate_envelope_bounds_density.
# ---------------------------------------------------------------------------

_LAMBDA0 = 0.125 * _PI2  # pi^2 / 8
_LOG2 = math.log(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_ENVELOPE_SLACK = 1.01  # G(x) exceeds max(G(t), G(inf)) by < 0.2 % (h near 1)


@njit(cache=CACHE)
def _upper_gamma_q(a, x):
    """Regularized upper incomplete gamma Q(a, x), a > 0, x >= 0."""
    if x <= 0.0:
        return 1.0
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


@njit(cache=CACHE)
def _alternating_start(h, x):
    """Smallest N such that a_m(x | h) is non-increasing for all m >= N."""
    n = 0
    while True:
        k = 2.0 * n + h
        if h <= 1.0:
            if x <= k * (k + 1.0):
                return n
        elif (h - 1.0) / (n + 1.0) + 2.0 / k <= 2.0 * (k + 1.0) / x:
            return n
        n += 1


@njit(cache=CACHE)
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
    term = 1.0
    n = 0
    while True:
        if n >= n_start:
            if n % 2 == 1:
                if target <= s:
                    return True
            elif target > s:
                return False
        w *= (n + h) / (n + 1.0)
        term = w * (2.0 * n + 2.0 + h) / h * math.exp(-2.0 * (n + 1.0) * (n + 1.0 + h) / x)
        n += 1
        if n % 2 == 1:
            s -= term
        else:
            s += term
        if n > 100000:  # unreachable: terms vanish like exp(-2 n^2 / x)
            return target <= s


@njit(cache=CACHE)
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


@njit(cache=CACHE)
def _alternate_truncation(h):
    """Switch point t between the two envelope pieces (in (0.6, 1.5), below 6)."""
    if h < 1.0:
        return 0.6 + 0.1 * h
    return min(0.6 + 0.1 * h, 1.5)


@njit(cache=CACHE)
def _alternate_constants(h, z):
    """(t, log C, probability of the left piece, lambda_z) for J*(h, z)."""
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
    mu = h / z if z > 0.0 else math.inf
    cdf = _inverse_gaussian_cdf(t, mu, h * h)
    log_left = h * _LOG2 - h * z + math.log(max(cdf, _TINY))
    # Right mass: C Gamma(h) lam_z^-h Q(h, lam_z t).
    q = _upper_gamma_q(h, lam_z * t)
    log_right = log_c + lgh - h * math.log(lam_z) + math.log(max(q, _TINY))
    if q <= 0.0:
        left = 1.0
    else:
        left = 1.0 / (1.0 + math.exp(min(log_right - log_left, 700.0)))
    return t, log_c, left, lam_z


@njit(cache=CACHE)
def _truncated_gamma_right(state, h, s):
    """Gamma(h, 1) truncated to (s, inf)."""
    if h >= 1.0 and s <= h:
        while True:
            y = standard_gamma(state, h)
            if y > s:
                return y
    if h <= 1.0:
        # s + Exp(1), accepted with (y / s)^(h - 1) <= 1.
        while True:
            y = s + standard_exponential(state)
            if uniform(state) <= (y / s) ** (h - 1.0):
                return y
    # h > 1, s > h: s + Exp(rate r), r = 1 - (h - 1) / s puts the maximum of
    # y^(h-1) e^{-(1-r) y} at y = s.
    r = 1.0 - (h - 1.0) / s
    while True:
        y = s + standard_exponential(state) / r
        log_acc = (h - 1.0) * math.log(y / s) - (1.0 - r) * (y - s)
        if math.log(uniform(state)) <= log_acc:
            return y


@njit(cache=CACHE)
def _jstar_alternate(state, h, z, t, log_c, left, lam_z):
    """One exact J*(h, z) draw (any h > 0) given :func:`_alternate_constants`."""
    h2 = h * h
    while True:
        if uniform(state) < left:
            # IG(h/z, h^2) truncated to (0, t) = h^2 IG(1/(hz), 1) truncated to (0, t/h^2).
            x = h2 * _truncated_inverse_gaussian(state, h * z, t / h2)
            envelope_ratio = 1.0  # k / a_0
        else:
            x = _truncated_gamma_right(state, h, lam_z * t) / lam_z
            # k / a_0 = C x^(h-1) e^{-pi^2 x / 8} / (2^h h / sqrt(2 pi x^3) e^{-h^2 / (2x)})
            envelope_ratio = math.exp(
                log_c + (h - 1.0) * math.log(x) - _LAMBDA0 * x
                - (h * _LOG2 + math.log(h) - _LOG_SQRT_2PI - 1.5 * math.log(x)
                   - 0.5 * h2 / x))
        if x <= 0.0:
            continue
        if _jstar_density_ratio_test(h, x, uniform(state) * envelope_ratio):
            return x


@njit(cache=CACHE)
def pg_alternate(state, h, c):
    """Exact PG(h, c) for any real h > 0 by the alternate method (one draw)."""
    z = 0.5 * abs(c)
    t, log_c, left, lam_z = _alternate_constants(h, z)
    return 0.25 * _jstar_alternate(state, h, z, t, log_c, left, lam_z)


@njit(cache=CACHE)
def _pg_fractional(state, r, c):
    """Exact PG(r, c) for 0 < r < 1 by the alternate method (:func:`pg_alternate`).

    Windle, Polson & Scott (2014)'s alternating-series sampler for J*(r, |c|/2),
    with the envelopes derived in the comment block above :func:`pg_alternate`
    (valid for every real r > 0); PG(r, c) = J*(r, |c|/2) / 4.
    """
    return pg_alternate(state, r, c)


@njit(cache=CACHE)
def _pg_exact_with(state, b, c, z, fz, right):
    """Exact PG(b, c) given the Devroye constants of c (sum rule over int(b))."""
    n = int(b)
    r = b - n
    x = 0.0
    for _ in range(n):
        x += _devroye_draw(state, z, fz, right)
    if r > 1e-12:
        x += _pg_fractional(state, r, c)
    return x


@njit(cache=CACHE)
def pg_exact(state, b, c):
    # The envelope constants depend on c only: computed once for the sum.
    z, fz, right = _devroye_constants(c)
    return _pg_exact_with(state, b, c, z, fz, right)


@njit(cache=CACHE)
def pg_draw(state, b, c, method, n_terms):
    """One PG(b, c) draw with the chosen ``method`` code; 0 for b <= 0."""
    if b <= 0.0:
        return 0.0
    if method == PG_AUTO:
        method = PG_GAUSSIAN if b >= AUTO_GAUSSIAN_MIN_B else PG_EXACT
    if method == PG_EXACT:
        return pg_exact(state, b, c)
    if method == PG_TRUNCATED:
        return _pg_gamma_series(state, b, c, max(n_terms, 1))
    m = pg_mean(b, c)
    if method == PG_PG1:
        n_terms = max(n_terms, 1)
        if b <= n_terms:
            return pg_exact(state, b, c)
        e1 = pg_mean(1.0, c)
        scale = math.sqrt(b / n_terms)
        z, fz, right = _devroye_constants(c)
        for _ in range(100):
            acc = 0.0
            for _ in range(n_terms):
                acc += _devroye_draw(state, z, fz, right) - e1
            x = m + scale * acc
            if x > 0.0:
                return x
        return m
    # Gaussian: moment matched, redrawn while not positive.
    return _pg_gaussian(state, b, c)


@njit(cache=CACHE, inline="always")
def pg_draw_fast(state, b, c, method, n_terms):
    """:func:`pg_draw` with the Gaussian method inlined in the caller (the
    correlated model draws K of them per document and sub-iteration, where a
    call costs as much as the draw)."""
    if b > 0.0 and (method == PG_GAUSSIAN
                    or (method == PG_AUTO and b >= AUTO_GAUSSIAN_MIN_B)):
        return _pg_gaussian(state, b, c)
    return pg_draw(state, b, c, method, n_terms)


@njit(cache=CACHE, inline="always")
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
        # sech^2 = 1 - tanh^2: no cosh needed.
        var = b * (2.0 * t - c * (1.0 - t * t)) / (4.0 * c * c * c)
    sd = math.sqrt(var)
    for _ in range(100):
        draw = m + sd * standard_normal(state)
        if draw > 0.0:
            return draw
    return m


@njit(cache=CACHE)
def pg_draw_many(states, b, c, method, n_terms, out):
    """Fill ``out[i]`` with PG(b[i], c[i]) using stream ``states[i % n]``.

    For the exact method, Devroye's envelope constants are reused while
    ``c`` repeats (they cost more than a PG(1, c) draw itself).
    """
    n_streams = states.shape[0]
    last_c = math.nan
    z = fz = right = 0.0
    state = states[0]
    for i in range(out.shape[0]):
        if n_streams > 1:
            state = states[i % n_streams]
        if method == PG_EXACT and b[i] > 0.0:
            if c[i] != last_c:
                z, fz, right = _devroye_constants(c[i])
                last_c = c[i]
            if b[i] == 1.0:
                out[i] = _devroye_draw(state, z, fz, right)
            else:
                out[i] = _pg_exact_with(state, b[i], c[i], z, fz, right)
        else:
            out[i] = pg_draw(state, b[i], c[i], method, n_terms)
