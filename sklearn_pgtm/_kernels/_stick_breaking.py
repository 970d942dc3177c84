"""The stick-breaking map of Linderman, Johnson & Adams (2015).

K category probabilities ``pi`` are written with K - 1 real logits ``psi``:

    pi_k = sigmoid(psi_k) prod_{j<k} (1 - sigmoid(psi_j))   (k < K - 1)
    pi_{K-1} = prod_{j<K-1} (1 - sigmoid(psi_j))

so that a multinomial count vector ``x`` (total N) factors into K - 1
binomials ``Bin(x_k | N_k, sigmoid(psi_k))`` with the *stick counts*
``N_k = N - sum_{j<k} x_j``. With ``omega_k ~ PG(N_k, psi_k)`` each binomial
becomes a Gaussian factor of ``psi_k`` with precision ``omega_k`` and linear
term ``kappa_k = x_k - N_k / 2`` (Pólya-Gamma augmentation). Every model of
the package built on this link (the correlated topic model's stick-breaking
link, the dynamic topic model, the multinomial LDS and GP) uses these
functions; see the user guide, :ref:`stick_breaking`.

All functions work on rows (the last axis is the category axis) and write
into ``out``.
"""

import math

from numba import njit

from ._config import CACHE
from ._polyagamma import pg_draw


@njit(cache=CACHE, nogil=True, inline="always")
def log_sigmoid_pair(x):
    """``(log sigmoid(x), log(1 - sigmoid(x)))`` without overflow."""
    if x >= 0.0:
        log_sig = -math.log1p(math.exp(-x))
        return log_sig, log_sig - x
    log_one_minus = -math.log1p(math.exp(x))
    return x + log_one_minus, log_one_minus


@njit(cache=CACHE, nogil=True)
def stick_breaking(psi, out):
    """``out[i] = pi(psi[i])``: (n, K - 1) logits to (n, K) probabilities."""
    n_rows, n_sticks = psi.shape
    for i in range(n_rows):
        log_rest = 0.0
        for k in range(n_sticks):
            log_sig, log_one_minus = log_sigmoid_pair(psi[i, k])
            out[i, k] = math.exp(log_rest + log_sig)
            log_rest += log_one_minus
        out[i, n_sticks] = math.exp(log_rest)


@njit(cache=CACHE, nogil=True)
def inverse_stick_breaking(pi, out):
    """``out[i] = psi`` with ``pi(psi) = pi[i]``: (n, K) to (n, K - 1).

    Entries must be positive (add a pseudo-count first); rows need not be
    normalized. ``psi_k = log pi_k - log(sum_{j>k} pi_j)``.
    """
    n_rows, n_categories = pi.shape
    for i in range(n_rows):
        # Mass beyond category k - 1, accumulated from the end so that small
        # tails keep their digits (the normalization cancels in each ratio).
        rest = 0.0
        for k in range(n_categories - 1, 0, -1):
            rest += pi[i, k]
            out[i, k - 1] = math.log(pi[i, k - 1]) - math.log(rest)


@njit(cache=CACHE, nogil=True)
def stick_counts(counts, out):
    """Stick counts ``out[i, k] = N_ik = sum_{j>=k} counts[i, j]`` for k < K - 1.

    ``counts`` is (n, K) (any integer or float dtype), ``out`` (n, K - 1).
    """
    n_rows, n_categories = counts.shape
    for i in range(n_rows):
        rest = 0.0
        for k in range(n_categories - 1, 0, -1):
            rest += counts[i, k]
            out[i, k - 1] = rest + counts[i, k - 1]


@njit(cache=CACHE, nogil=True)
def draw_stick_augmentation(counts, psi, method, n_terms, states, lo, hi, omega, kappa):
    """Pólya-Gamma augmentation of rows ``lo:hi`` of a stick-breaking multinomial.

    For each row ``i`` with counts ``counts[i]`` (K categories) and logits
    ``psi[i]`` (K - 1), fills ``kappa[i, k] = x_ik - N_ik / 2`` and draws
    ``omega[i, k] ~ PG(N_ik, psi_ik)`` (0 where the stick count ``N_ik`` is 0)
    from the row's own stream ``states[i]``. ``method`` / ``n_terms`` select
    the PG sampler (:data:`~sklearn_pgtm._kernels._polyagamma.PG_METHODS`).
    """
    n_categories = counts.shape[1]
    for i in range(lo, hi):
        state = states[i]
        rest = 0.0
        for k in range(n_categories):
            rest += counts[i, k]
        for k in range(n_categories - 1):
            x = float(counts[i, k])
            kappa[i, k] = x - 0.5 * rest
            omega[i, k] = pg_draw(state, rest, psi[i, k], method, n_terms) if rest > 0 else 0.0
            rest -= x
