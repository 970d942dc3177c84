"""Linear-Gaussian state-space kernels in information form.

A sequence of states ``z_0 .. z_{T-1}`` in R^L with

    z_0 ~ N_info(J_init, h_init),   z_t | z_{t-1} ~ N(A z_{t-1}, Q),

and one Gaussian *potential* per step, ``exp(-z_t' J_t z_t / 2 + h_t' z_t)``
(for the Pólya-Gamma models: ``J_t = C' diag(omega_t) C`` and ``h_t = C'(kappa_t
- omega_t * mu)``). ``N_info(J, h)`` is the Gaussian with precision ``J`` and
mean ``J^{-1} h``.

Forward filtering keeps ``(J_{t|t}, h_{t|t})``; with ``Lam = Q^{-1}`` the
prediction step marginalizes ``z_t`` out of the pair ``(z_t, z_{t+1})``:

    M_t = J_{t|t} + A' Lam A = R_t R_t'           (Cholesky)
    B_t = R_t^{-1} A' Lam
    J_{t+1|t} = Lam - B_t' B_t,    h_{t+1|t} = B_t' R_t^{-1} h_{t|t}.

The same factor ``R_t`` serves the backward pass: ``z_t | z_{t+1}`` is
``N_info(M_t, h_{t|t} + A' Lam z_{t+1})`` (its sample is ``R_t'^{-1}(R_t^{-1}
h + eps)``, its mean the same without ``eps``), so backward sampling costs two
triangular solves per step. All loops are bounded by T and L.
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE
from ._random import standard_normal


@njit(cache=CACHE, nogil=True)
def cholesky_lower(a, out):
    """Lower Cholesky factor of the symmetric matrix ``a`` into ``out``.

    Reads the lower triangle of ``a`` only. Returns False (and leaves ``out``
    partly written) if ``a`` is not numerically positive definite.
    """
    n = a.shape[0]
    for j in range(n):
        s = a[j, j]
        for k in range(j):
            s -= out[j, k] * out[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        out[j, j] = d
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s -= out[i, k] * out[j, k]
            out[i, j] = s / d
        for i in range(j):
            out[i, j] = 0.0
    return True


@njit(cache=CACHE, nogil=True)
def solve_lower(chol, b):
    """``b <- chol^{-1} b`` for a lower-triangular ``chol`` (b a vector)."""
    n = chol.shape[0]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= chol[i, k] * b[k]
        b[i] = s / chol[i, i]


@njit(cache=CACHE, nogil=True)
def solve_lower_transpose(chol, b):
    """``b <- chol'^{-1} b`` for a lower-triangular ``chol`` (b a vector)."""
    n = chol.shape[0]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= chol[k, i] * b[k]
        b[i] = s / chol[i, i]


@njit(cache=CACHE, nogil=True)
def factor_precision(precision, chol):
    """Cholesky factor of a precision matrix, with a jitter fallback.

    Precisions built from sums of potentials can lose definiteness by
    rounding when a direction is nearly unconstrained; a diagonal jitter of
    growing size (1e-12 of the mean diagonal, doubled at each of at most 30
    tries: up to 2^29 1e-12, about 5e-4, of it) is then added. Returns False
    only if even that fails.
    """
    if cholesky_lower(precision, chol):
        return True
    n = precision.shape[0]
    scale = 0.0
    for i in range(n):
        scale += abs(precision[i, i])
    scale = max(scale / max(n, 1), 1e-300)
    work = precision.copy()
    jitter = 1e-12 * scale
    for _ in range(30):
        for i in range(n):
            work[i, i] = precision[i, i] + jitter
        if cholesky_lower(work, chol):
            return True
        jitter *= 2.0
    return False


@njit(cache=CACHE, nogil=True)
def sample_information(chol, h, state, out):
    """``out ~ N_info(J, h)`` given the lower Cholesky factor ``chol`` of J."""
    n = h.shape[0]
    for i in range(n):
        out[i] = h[i]
    solve_lower(chol, out)
    for i in range(n):
        out[i] += standard_normal(state)
    solve_lower_transpose(chol, out)


@njit(cache=CACHE, nogil=True)
def information_mean(chol, h, out):
    """``out = J^{-1} h`` given the lower Cholesky factor ``chol`` of J."""
    for i in range(h.shape[0]):
        out[i] = h[i]
    solve_lower(chol, out)
    solve_lower_transpose(chol, out)


@njit(cache=CACHE, nogil=True)
def information_filter(J_init, h_init, A, Q_inv, J_obs, h_obs, chol, h_filt):
    """Forward pass of the information filter over one sequence.

    Fills ``chol[t]`` with the Cholesky factor of ``J_{t|t} + A' Q^{-1} A``
    for t < T - 1 and of ``J_{T-1|T-1}`` for the last step, and ``h_filt[t]``
    with ``h_{t|t}`` (shapes (T, L, L) and (T, L)). Returns False if a
    precision was not positive definite.
    """
    n_steps, dim = h_obs.shape
    at_q_inv = A.T @ Q_inv
    at_q_inv_a = at_q_inv @ A
    J_pred = J_init.copy()
    h_pred = h_init.copy()
    work = np.empty((dim, dim))
    proj = np.empty((dim, dim))
    col = np.empty(dim)
    h_tmp = np.empty(dim)
    for t in range(n_steps):
        last = t == n_steps - 1
        for i in range(dim):
            h_filt[t, i] = h_pred[i] + h_obs[t, i]
            for j in range(dim):
                work[i, j] = J_pred[i, j] + J_obs[t, i, j]
                if not last:
                    work[i, j] += at_q_inv_a[i, j]
        if not factor_precision(work, chol[t]):
            return False
        if last:
            break
        # proj = R^{-1} A' Q^{-1}, column by column.
        for j in range(dim):
            for i in range(dim):
                col[i] = at_q_inv[i, j]
            solve_lower(chol[t], col)
            for i in range(dim):
                proj[i, j] = col[i]
        for i in range(dim):
            h_tmp[i] = h_filt[t, i]
        solve_lower(chol[t], h_tmp)
        for i in range(dim):
            s = 0.0
            for k in range(dim):
                s += proj[k, i] * h_tmp[k]
            h_pred[i] = s
            for j in range(i + 1):
                s = 0.0
                for k in range(dim):
                    s += proj[k, i] * proj[k, j]
                value = 0.5 * (Q_inv[i, j] + Q_inv[j, i]) - s
                J_pred[i, j] = value
                J_pred[j, i] = value
    return True


@njit(cache=CACHE, nogil=True)
def backward_sample(chol, h_filt, A, Q_inv, state, z):
    """Backward pass: draw ``z`` (T, L) from the smoothing distribution."""
    n_steps, dim = h_filt.shape
    at_q_inv = A.T @ Q_inv
    h = np.empty(dim)
    sample_information(chol[n_steps - 1], h_filt[n_steps - 1], state, z[n_steps - 1])
    for t in range(n_steps - 2, -1, -1):
        for i in range(dim):
            s = h_filt[t, i]
            for k in range(dim):
                s += at_q_inv[i, k] * z[t + 1, k]
            h[i] = s
        sample_information(chol[t], h, state, z[t])


@njit(cache=CACHE, nogil=True)
def backward_mean(chol, h_filt, A, Q_inv, mean):
    """Backward pass: smoothed means ``E[z_t | all potentials]`` into ``mean``.

    The mean of ``z_t`` given ``z_{t+1}`` is affine in ``z_{t+1}``, so the
    smoothed mean follows by passing the smoothed mean of ``z_{t+1}`` back.
    """
    n_steps, dim = h_filt.shape
    at_q_inv = A.T @ Q_inv
    h = np.empty(dim)
    information_mean(chol[n_steps - 1], h_filt[n_steps - 1], mean[n_steps - 1])
    for t in range(n_steps - 2, -1, -1):
        for i in range(dim):
            s = h_filt[t, i]
            for k in range(dim):
                s += at_q_inv[i, k] * mean[t + 1, k]
            h[i] = s
        information_mean(chol[t], h, mean[t])


@njit(cache=CACHE, nogil=True)
def ffbs(J_init, h_init, A, Q_inv, J_obs, h_obs, state, z):
    """Forward-filtering backward-sampling of one sequence (info form).

    Draws ``z`` (T, L) from ``p(z | potentials)``; returns False (z
    untouched) if a precision was not positive definite.
    """
    n_steps, dim = h_obs.shape
    if n_steps == 0:
        return True
    chol = np.empty((n_steps, dim, dim))
    h_filt = np.empty((n_steps, dim))
    if not information_filter(J_init, h_init, A, Q_inv, J_obs, h_obs, chol, h_filt):
        return False
    backward_sample(chol, h_filt, A, Q_inv, state, z)
    return True


@njit(cache=CACHE, nogil=True)
def ffbs_with_mean(J_init, h_init, A, Q_inv, J_obs, h_obs, state, z, mean):
    """:func:`ffbs` that also writes the smoothed means (one forward pass)."""
    n_steps, dim = h_obs.shape
    if n_steps == 0:
        return True
    chol = np.empty((n_steps, dim, dim))
    h_filt = np.empty((n_steps, dim))
    if not information_filter(J_init, h_init, A, Q_inv, J_obs, h_obs, chol, h_filt):
        return False
    backward_sample(chol, h_filt, A, Q_inv, state, z)
    backward_mean(chol, h_filt, A, Q_inv, mean)
    return True


# ---- scalar FFBS (dynamic topic model) ----


@njit(cache=CACHE, nogil=True)
def scalar_ffbs(precision, linear, prior_mean, prior_var, step_var, state,
                filt_prec, filt_lin, out):
    """Draw a scalar Gaussian random walk given Gaussian potentials, in place.

    The walk is ``x_0 ~ N(prior_mean, prior_var)``, ``x_t = x_{t-1} +
    N(0, step_var)`` for ``t = 1 .. T-1``, and each ``x_t`` carries the
    potential ``exp(linear[t] x_t - precision[t] x_t^2 / 2)`` (``precision[t]
    >= 0``; 0 means no observation at ``t``). Writes one exact draw of
    ``x_0 .. x_{T-1}`` from their joint conditional into ``out``.

    The filter runs in information form (precision ``J`` and linear term
    ``h = J m``), one division per step: predict ``r = 1 / (1 + step_var
    J)``, ``J <- r J``, ``h <- r h``; update ``J <- J + precision[t]``, ``h <-
    h + linear[t]``. Backward sampler: ``x_{T-1} ~ N(h / J, 1 / J)`` and
    ``x_t | x_t+1 ~ N((h_t + x_t+1 / step_var) / lam, 1 / lam)`` with
    ``lam = J_t + 1 / step_var``. ``filt_prec`` and ``filt_lin`` (length T)
    are work space for the filtered ``J_t`` and ``h_t``; ``state`` is the
    xoshiro stream drawn from.
    """
    n_steps = precision.shape[0]
    if n_steps == 0:
        return
    prec = 1.0 / prior_var
    lin = prior_mean * prec
    for t in range(n_steps):
        if t > 0:
            shrink = 1.0 / (1.0 + step_var * prec)
            prec *= shrink
            lin *= shrink
        prec += precision[t]
        lin += linear[t]
        filt_prec[t] = prec
        filt_lin[t] = lin
    scale = 1.0 / math.sqrt(prec)
    x = lin * scale * scale + scale * standard_normal(state)
    out[n_steps - 1] = x
    inv_step = 1.0 / step_var
    for t in range(n_steps - 2, -1, -1):
        scale = 1.0 / math.sqrt(filt_prec[t] + inv_step)
        x = (filt_lin[t] + x * inv_step) * scale * scale + scale * standard_normal(state)
        out[t] = x
