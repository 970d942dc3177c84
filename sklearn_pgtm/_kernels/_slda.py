"""Kernels of Gibbs supervised LDA (Zhu et al. 2013) beyond the topic sweep.

The topic sweep with the supervised factor is
:func:`sklearn_pgtm._kernels._sweeps.sample_supervised`; its per-document
coefficients (a :class:`~sklearn_pgtm._kernels._sweeps.BinaryResponse`) are
filled by :func:`response_terms`. User guide: :ref:`slda`.
"""

import numpy as np
from numba import njit

from ._config import CACHE
from ._polyagamma import pg_draw


@njit(cache=CACHE, nogil=True)
def draw_augmentation(doc_topic, doc_lengths, eta, c, method, n_terms, states, lo, hi, out):
    """lambda_d ~ PG(c, omega_d), omega_d = eta . zbar_d, for documents ``lo:hi``.

    Document ``d`` draws from its own stream ``states[d]``. Documents without
    tokens carry no response information and get ``lambda_d = 0`` (their zbar
    is the zero vector).
    """
    n_topics = doc_topic.shape[1]
    for d in range(lo, hi):
        n_d = doc_lengths[d]
        if n_d == 0:
            out[d] = 0.0
            continue
        omega = 0.0
        for k in range(n_topics):
            omega += eta[k] * doc_topic[d, k]
        out[d] = pg_draw(states[d], c, omega / n_d, method, n_terms)


@njit(cache=CACHE, nogil=True)
def response_terms(doc_topic, doc_lengths, eta, kappa, lam, response):
    """Fill the per-document coefficients of the supervised factor.

    ``response.linear = kappa_d / N_d``, ``response.quad = lambda_d / (2 N_d^2)``
    and ``response.discriminant = sum_n eta_{z_dn}`` (zero for empty documents).
    """
    n_docs, n_topics = doc_topic.shape
    for d in range(n_docs):
        n_d = doc_lengths[d]
        s = 0.0
        for k in range(n_topics):
            s += eta[k] * doc_topic[d, k]
        response.discriminant[d] = s
        if n_d == 0:
            response.linear[d] = 0.0
            response.quad[d] = 0.0
        else:
            response.linear[d] = kappa[d] / n_d
            response.quad[d] = lam[d] / (2.0 * n_d * n_d)


def eta_conditional(zbar, lam, kappa, prior_variance):
    """Mean and Cholesky factor of the precision of eta | Z, lambda.

    Precision ``P = I / nu^2 + sum_d lambda_d zbar_d zbar_d^T`` and mean
    ``mu = P^{-1} sum_d kappa_d zbar_d`` (user guide, :ref:`slda`).
    """
    n_topics = zbar.shape[1]
    precision = (zbar.T * lam) @ zbar
    precision[np.diag_indices(n_topics)] += 1.0 / prior_variance
    chol = np.linalg.cholesky(precision)
    rhs = zbar.T @ kappa
    mean = np.linalg.solve(chol.T, np.linalg.solve(chol, rhs))
    return mean, chol


def draw_eta(zbar, lam, kappa, prior_variance, rng):
    """One draw of eta from its Gaussian conditional (Cholesky of the precision)."""
    mean, chol = eta_conditional(zbar, lam, kappa, prior_variance)
    noise = rng.standard_normal(zbar.shape[1])
    return mean + np.linalg.solve(chol.T, noise)
