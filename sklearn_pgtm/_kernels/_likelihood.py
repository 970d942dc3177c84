"""Predictive log-likelihood of tokens under given proportions and topics."""

import math

from numba import njit

from ._config import CACHE


@njit(cache=CACHE, nogil=True)
def log_predictive(doc_ptr, word_ids, theta, phi):
    """sum over tokens of log(theta_d . phi[w]) with ``phi`` (V, K)."""
    total = 0.0
    n_topics = theta.shape[1]
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = word_ids[i]
            p = 0.0
            for k in range(n_topics):
                p += theta[d, k] * phi[w, k]
            total += math.log(max(p, 1e-300))
    return total
