"""Kernels of the stick-breaking multinomial linear dynamical system.

Rows ``t`` are time steps (of one or several sequences, concatenated); the
categories are in *stick order* (the estimator sorts them). Row ``t`` only
involves the sticks ``k < n_t``, where ``n_t`` is one more than its last
non-zero category (capped at K - 1): beyond it the stick count ``N_tk`` is 0,
so the binomial factor and its Pólya-Gamma variable vanish. For one-hot text
rows with the vocabulary sorted by frequency, ``n_t`` is the rank of the word
(about 130 on average for a 1,000-word vocabulary), not K - 1. The per-row
quantities live in ragged arrays indexed by ``stick_ptr`` (``stick_ptr[t] +
k`` for stick k of row t):

- ``totals``: stick counts ``N_tk = sum_{j>=k} x_tj`` (all > 0);
- ``kappa``: ``x_tk - N_tk / 2``;
- ``omega``: the Pólya-Gamma variables ``omega_tk ~ PG(N_tk, psi_tk)``.

with ``psi_t = C z_t + mu`` (``emission`` C: (K - 1, L), ``offset`` mu).
Every kernel works on a ``lo, hi`` range of units (rows, sequences, sticks
or particle clouds) and draws from the unit's own stream.
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE
from ._linear_gaussian import factor_precision, ffbs, ffbs_with_mean, sample_information
from ._polyagamma import pg_draw
from ._random import standard_normal, uniform
from ._stick_breaking import log_sigmoid_pair

# ----------------------------------------------------------------- layout


@njit(cache=CACHE, nogil=True)
def fill_stick_rows(indptr, indices, data, stick_ptr, totals, kappa):
    """Stick counts and ``kappa`` of CSR count rows (columns in stick order,
    sorted indices) into the ragged arrays laid out by ``stick_ptr``."""
    for t in range(indptr.shape[0] - 1):
        rest = 0.0
        for p in range(indptr[t], indptr[t + 1]):
            rest += data[p]
        p = indptr[t]
        for j in range(stick_ptr[t], stick_ptr[t + 1]):
            k = j - stick_ptr[t]
            x = 0.0
            if p < indptr[t + 1] and indices[p] == k:
                x = float(data[p])
                p += 1
            totals[j] = rest
            kappa[j] = x - 0.5 * rest
            rest -= x


@njit(cache=CACHE, nogil=True, inline="always")
def _logit(emission, offset, k, z):
    s = offset[k]
    for a in range(z.shape[0]):
        s += emission[k, a] * z[a]
    return s


@njit(cache=CACHE, nogil=True, inline="always")
def _log1p_exp(x):
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


# ------------------------------------------------------------ Gibbs sweep


@njit(cache=CACHE, nogil=True)
def draw_omega(stick_ptr, totals, emission, offset, z, method, n_terms, states, lo, hi, omega):
    """``omega_tk ~ PG(N_tk, c_k . z_t + mu_k)`` for rows ``lo:hi`` (stream of row t)."""
    for t in range(lo, hi):
        state = states[t]
        base = stick_ptr[t]
        for j in range(base, stick_ptr[t + 1]):
            psi = _logit(emission, offset, j - base, z[t])
            omega[j] = pg_draw(state, totals[j], psi, method, n_terms)


@njit(cache=CACHE, nogil=True)
def observation_potentials(stick_ptr, omega, kappa, emission, offset, lo, hi, J_obs, h_obs):
    """Gaussian potentials of the states of rows ``lo:hi``:
    ``J_t = C' diag(omega_t) C``, ``h_t = C' (kappa_t - omega_t * mu)``."""
    dim = emission.shape[1]
    for t in range(lo, hi):
        J = J_obs[t]
        h = h_obs[t]
        J[:, :] = 0.0
        h[:] = 0.0
        base = stick_ptr[t]
        for j in range(base, stick_ptr[t + 1]):
            k = j - base
            w = omega[j]
            r = kappa[j] - w * offset[k]
            for a in range(dim):
                ca = emission[k, a]
                h[a] += r * ca
                wa = w * ca
                for b in range(a + 1):
                    J[a, b] += wa * emission[k, b]
        for a in range(dim):
            for b in range(a):
                J[b, a] = J[a, b]


@njit(cache=CACHE, nogil=True)
def sample_states(seq_ptr, J_init, h_init, dynamics, noise_precision, J_obs, h_obs,
                  states, lo, hi, z):
    """FFBS draw of the states of sequences ``lo:hi`` (stream of sequence s).

    Returns False if a precision was not positive definite."""
    ok = True
    for s in range(lo, hi):
        a, b = seq_ptr[s], seq_ptr[s + 1]
        ok &= ffbs(J_init, h_init, dynamics, noise_precision, J_obs[a:b], h_obs[a:b],
                   states[s], z[a:b])
    return ok


@njit(cache=CACHE, nogil=True)
def sample_states_and_means(seq_ptr, J_init, h_init, dynamics, noise_precision, J_obs, h_obs,
                            states, lo, hi, z, mean):
    """:func:`sample_states` that also writes the smoothed means of the states."""
    ok = True
    for s in range(lo, hi):
        a, b = seq_ptr[s], seq_ptr[s + 1]
        ok &= ffbs_with_mean(J_init, h_init, dynamics, noise_precision, J_obs[a:b],
                             h_obs[a:b], states[s], z[a:b], mean[a:b])
    return ok


@njit(cache=CACHE, nogil=True)
def emission_statistics(stick_ptr, omega, kappa, z, lo, hi, gram, moment):
    """Sufficient statistics of the emission rows ``lo:hi`` with ``u_t = (z_t, 1)``:
    ``gram[k] = sum_t omega_tk u_t u_t'`` and ``moment[k] = sum_t kappa_tk u_t``
    over the rows t in which stick k is active."""
    dim = z.shape[1]
    gram[lo:hi] = 0.0
    moment[lo:hi] = 0.0
    for t in range(z.shape[0]):
        base = stick_ptr[t]
        stop = min(hi, stick_ptr[t + 1] - base)
        zt = z[t]
        for k in range(lo, stop):
            w = omega[base + k]
            r = kappa[base + k]
            g = gram[k]
            m = moment[k]
            for a in range(dim):
                wa = w * zt[a]
                m[a] += r * zt[a]
                for b in range(a + 1):
                    g[a, b] += wa * zt[b]
                g[dim, a] += wa
            g[dim, dim] += w
            m[dim] += r


@njit(cache=CACHE, nogil=True)
def draw_emission_rows(gram, moment, emission_precision, offset_mean, offset_precision,
                       states, lo, hi, emission, offset):
    """Draw rows ``lo:hi`` of the emission matrix (and offsets) from their
    Gaussian conditionals (stream of stick k).

    Prior: ``c_k ~ N(0, I / emission_precision)``, ``mu_k ~ N(offset_mean[k],
    1 / offset_precision)`` independently; ``offset_precision = inf`` keeps
    ``mu`` fixed (only ``c_k`` is drawn, with ``mu_k`` moved to the linear
    term). Returns False if a precision was not positive definite.
    """
    dim = emission.shape[1]
    fixed = offset_precision == math.inf
    n = dim if fixed else dim + 1
    precision = np.empty((n, n))
    chol = np.empty((n, n))
    h = np.empty(n)
    draw = np.empty(n)
    ok = True
    for k in range(lo, hi):
        g = gram[k]
        for a in range(n):
            for b in range(a + 1):
                precision[a, b] = g[a, b]
                precision[b, a] = g[a, b]
            h[a] = moment[k, a]
        for a in range(dim):
            precision[a, a] += emission_precision
        if fixed:
            for a in range(dim):
                h[a] -= offset[k] * g[dim, a]
        else:
            precision[dim, dim] += offset_precision
            h[dim] += offset_precision * offset_mean[k]
        if not factor_precision(precision, chol):
            ok = False
            continue
        sample_information(chol, h, states[k], draw)
        for a in range(dim):
            emission[k, a] = draw[a]
        if not fixed:
            offset[k] = draw[dim]
    return ok


@njit(cache=CACHE, nogil=True)
def _solve_offset(scaled_rest, shift, target, lo, hi, start):
    """The ``m`` in ``[lo, hi]`` with ``sum_t scaled_rest[t] sigmoid(shift[t] + m)
    = target`` (the sum increases with m): Newton steps on the log of the
    sum from ``start`` (the midpoint when it lies outside the bracket), kept
    inside a shrinking bracket (bisection when a step leaves it); at most
    100 iterations. A row's sigmoid and its complement come from one
    exponential, ``e = exp(-x)``: ``sigmoid(x) = 1 / (1 + e)``, and ``1 -
    sigmoid(x)`` as ``e sigmoid(x)`` where sigmoid(x) >= 1/2, as ``1 -
    sigmoid(x)`` below (no cancellation either way; e overflowing to inf
    gives 0 and 1). The log-domain pair cost four transcendental calls per
    row and step: the calibration took 4.2 of the 9.6 s of MultinomialLDS's
    default fit on the text of ``benchmarks/lds.py``, 1.2 of 6.7 s now."""
    log_target = math.log(target)
    m = start if lo < start < hi else 0.5 * (lo + hi)
    for _ in range(100):
        g = 0.0
        slope = 0.0
        for t in range(shift.shape[0]):
            e = math.exp(-(shift[t] + m))
            sig = 1.0 / (1.0 + e)
            s = scaled_rest[t] * sig
            g += s
            slope += s * (e * sig if e <= 1.0 else 1.0 - sig)
        if g <= 0.0:
            lo = m
            m = 0.5 * (lo + hi)
            continue
        gap = math.log(g) - log_target
        if gap > 0.0:
            hi = m
        else:
            lo = m
        if abs(gap) < 1e-12 or hi - lo < 1e-12:
            break
        step = m - gap * g / slope if slope > 0.0 else 0.5 * (lo + hi)
        m = step if lo < step < hi else 0.5 * (lo + hi)
    return m


@njit(cache=CACHE, nogil=True)
def calibrate_offsets(emission, z, row_weight, target, offset):
    """Offsets ``mu`` with ``sum_t w_t pi(C z_t + mu) = target`` (all K entries).

    ``offset`` holds the starting values on entry (the previous calibration:
    a few Newton steps then suffice) and the solution on exit.

    ``row_weight`` w_t (the row totals N_t) weighs the rows; ``target`` (K,)
    are the expected counts to match (sum: ``sum_t w_t``). The stick-breaking
    map fixes the offsets one stick at a time: given ``mu_0 .. mu_{k-1}``,
    the mass ``R_tk`` left at stick k in row t is known and ``mu_k`` solves
    ``sum_t w_t R_tk sigmoid(c_k . z_t + mu_k) = target_k``, a monotone
    equation in one unknown (:func:`_solve_offset`); the last category then
    receives the rest. Costs O(T K L) for T rows, K categories and state
    dimension L. The solution is bracketed by ``logit(target_k / M_k) -
    max_t c_k . z_t`` and ``logit(target_k / M_k) - min_t c_k . z_t`` with
    ``M_k = sum_t w_t R_tk``.
    """
    n_rows, dim = z.shape
    n_sticks = emission.shape[0]
    log_rest = np.zeros(n_rows)
    shift = np.empty(n_rows)
    scaled_rest = np.empty(n_rows)
    for k in range(n_sticks):
        total = 0.0
        low = math.inf
        high = -math.inf
        for t in range(n_rows):
            s = 0.0
            for a in range(dim):
                s += emission[k, a] * z[t, a]
            shift[t] = s
            low = min(low, s)
            high = max(high, s)
            scaled_rest[t] = row_weight[t] * math.exp(log_rest[t])
            total += scaled_rest[t]
        if not (total > 0.0 and target[k] > 0.0):
            continue
        share = min(max(target[k] / total, 1e-300), 1.0 - 1e-12)
        base = math.log(share) - math.log1p(-share)
        offset[k] = _solve_offset(scaled_rest, shift, target[k], base - high - 1e-9,
                                  base - low + 1e-9, offset[k])
        for t in range(n_rows):
            log_rest[t] += log_sigmoid_pair(shift[t] + offset[k])[1]


@njit(cache=CACHE, nogil=True)
def row_log_likelihood(stick_ptr, totals, kappa, row_log_coef, emission, offset, z, lo, hi,
                       out):
    """``out[t] = log Mult(x_t | N_t, pi(C z_t + mu))`` for rows ``lo:hi``."""
    for t in range(lo, hi):
        total = row_log_coef[t]
        base = stick_ptr[t]
        for j in range(base, stick_ptr[t + 1]):
            psi = _logit(emission, offset, j - base, z[t])
            x = kappa[j] + 0.5 * totals[j]
            total += x * psi - totals[j] * _log1p_exp(psi)
        out[t] = total


@njit(cache=CACHE, nogil=True, inline="always")
def _add_probabilities(emission, offset, z, weight, out):
    """``out += weight * pi(C z + mu)`` (K categories)."""
    n_sticks = emission.shape[0]
    log_rest = 0.0
    for k in range(n_sticks):
        log_sig, log_one_minus = log_sigmoid_pair(_logit(emission, offset, k, z))
        out[k] += weight * math.exp(log_rest + log_sig)
        log_rest += log_one_minus
    out[n_sticks] += weight * math.exp(log_rest)


@njit(cache=CACHE, nogil=True)
def add_probabilities(emission, offset, z, lo, hi, proba_sum):
    """``proba_sum[t] += pi(C z_t + mu)`` for rows ``lo:hi``."""
    for t in range(lo, hi):
        _add_probabilities(emission, offset, z[t], 1.0, proba_sum[t])


# ------------------------------------------------------ particle filtering


@njit(cache=CACHE, nogil=True, inline="always")
def _draw_gaussian(mean, chol, state, out):
    """``out = mean + chol @ eps`` (chol lower triangular)."""
    dim = mean.shape[0]
    eps = np.empty(dim)
    for a in range(dim):
        eps[a] = standard_normal(state)
    for a in range(dim):
        s = mean[a]
        for b in range(a + 1):
            s += chol[a, b] * eps[b]
        out[a] = s


@njit(cache=CACHE, nogil=True, inline="always")
def _propagate(particles, dynamics, noise_chol, state):
    """``z <- A z + N(0, Q)`` for every particle."""
    n_particles, dim = particles.shape
    moved = np.empty(dim)
    for i in range(n_particles):
        for a in range(dim):
            s = 0.0
            for b in range(dim):
                s += dynamics[a, b] * particles[i, b]
            moved[a] = s
        _draw_gaussian(moved, noise_chol, state, particles[i])


@njit(cache=CACHE, nogil=True, inline="always")
def _weigh_and_resample(stick_ptr, totals, kappa, t, emission, offset, state, particles,
                        log_weight):
    """Log of the mean likelihood of row t over the particles, then systematic
    resampling of the particles by those likelihoods."""
    n_particles, dim = particles.shape
    base = stick_ptr[t]
    stop = stick_ptr[t + 1]
    if stop == base:
        return 0.0
    top = -math.inf
    for i in range(n_particles):
        s = 0.0
        for j in range(base, stop):
            psi = _logit(emission, offset, j - base, particles[i])
            s += (kappa[j] + 0.5 * totals[j]) * psi - totals[j] * _log1p_exp(psi)
        log_weight[i] = s
        top = max(top, s)
    total = 0.0
    for i in range(n_particles):
        log_weight[i] = math.exp(log_weight[i] - top)
        total += log_weight[i]
    # Systematic resampling: one uniform, n_particles evenly spaced points.
    old = particles.copy()
    step = total / n_particles
    u = uniform(state) * step
    acc = log_weight[0]
    src = 0
    for i in range(n_particles):
        while acc < u and src < n_particles - 1:
            src += 1
            acc += log_weight[src]
        for a in range(dim):
            particles[i, a] = old[src, a]
        u += step
    return top + math.log(total / n_particles)


@njit(cache=CACHE, nogil=True)
def particle_log_predictive(stick_ptr, totals, kappa, row_log_coef, lo, hi, start_mean,
                            start_chol, dynamics, noise_chol, emission, offset, state,
                            particles, log_pred):
    """Bootstrap particle filter over rows ``lo:hi`` (one sequence).

    The particles start as draws of ``N(start_mean, start_chol start_chol')``
    (the state of row ``lo``), move with the dynamics between rows, and are
    resampled by each row's multinomial likelihood. ``log_pred[t - lo]``
    receives the estimate of ``log p(x_t | x_{lo:t})`` (the log mean
    likelihood over the particles, multinomial coefficient included);
    ``particles`` holds the filtered cloud of the last row on return.
    """
    n_particles = particles.shape[0]
    for i in range(n_particles):
        _draw_gaussian(start_mean, start_chol, state, particles[i])
    log_weight = np.empty(n_particles)
    for t in range(lo, hi):
        if t > lo:
            _propagate(particles, dynamics, noise_chol, state)
        log_pred[t - lo] = row_log_coef[t] + _weigh_and_resample(
            stick_ptr, totals, kappa, t, emission, offset, state, particles, log_weight)


@njit(cache=CACHE, nogil=True)
def particle_predictive_proba(stick_ptr, totals, kappa, row_log_coef, lo, hi, start_mean,
                              start_chol, dynamics, noise_chol, emission, offset, state,
                              particles, log_pred, proba):
    """:func:`particle_log_predictive` that also writes the one-step predictive
    category probabilities ``proba[t - lo] = E[pi(C z_t + mu) | x_{lo:t}]``
    (before row t is seen)."""
    n_particles = particles.shape[0]
    for i in range(n_particles):
        _draw_gaussian(start_mean, start_chol, state, particles[i])
    log_weight = np.empty(n_particles)
    weight = 1.0 / n_particles
    for t in range(lo, hi):
        if t > lo:
            _propagate(particles, dynamics, noise_chol, state)
        proba[t - lo] = 0.0
        for i in range(n_particles):
            _add_probabilities(emission, offset, particles[i], weight, proba[t - lo])
        log_pred[t - lo] = row_log_coef[t] + _weigh_and_resample(
            stick_ptr, totals, kappa, t, emission, offset, state, particles, log_weight)


@njit(cache=CACHE, nogil=True)
def forecast_proba(particles, dynamics, noise_chol, emission, offset, state, proba):
    """Roll the particle cloud forward ``proba.shape[0]`` steps and write the
    mean category probabilities of each step into ``proba``."""
    n_particles = particles.shape[0]
    weight = 1.0 / n_particles
    for h in range(proba.shape[0]):
        _propagate(particles, dynamics, noise_chol, state)
        proba[h] = 0.0
        for i in range(n_particles):
            _add_probabilities(emission, offset, particles[i], weight, proba[h])
