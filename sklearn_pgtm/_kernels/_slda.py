"""Kernels of Gibbs supervised LDA (Zhu et al. 2013) beyond the topic sweep.

The topic sweep with the supervised factor is
:func:`sklearn_pgtm._kernels._sweeps.sample_supervised` (binary; its
per-document coefficients, a
:class:`~sklearn_pgtm._kernels._sweeps.BinaryResponse`, are filled by
:func:`response_terms`) or :func:`~sklearn_pgtm._kernels._sweeps.sample_softmax`
(multinomial). The weights are Gaussian given the Pólya-Gamma variables
(:func:`eta_conditional`; for one class of the multinomial model with the
offset ``C_dj`` of the other classes). User guide: :ref:`slda`.
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


@njit(cache=CACHE, inline="always")
def _log_sum_exp_others(omega, d, j):
    """``log sum_{l != j} exp(omega[d, l])``, shifted by the largest term."""
    n_classes = omega.shape[1]
    top = -np.inf
    for l in range(n_classes):
        if l != j:
            top = max(top, omega[d, l])
    total = 0.0
    for l in range(n_classes):
        if l != j:
            total += np.exp(omega[d, l] - top)
    return top + np.log(total)


@njit(cache=CACHE, nogil=True)
def draw_class_augmentation(omega, j, doc_lengths, c, method, n_terms, states, lo, hi, offset,
                            out):
    """For class ``j`` of the multinomial model and documents ``lo:hi``: the
    offsets ``offset[d] = C_dj = log sum_{l != j} exp(omega[d, l])`` and
    ``out[d] = lambda_dj ~ PG(c, omega_dj - C_dj)``; 0 for empty documents.

    One pass over the documents for both, one threaded call per class.
    Document ``d`` draws from its own stream ``states[d]`` (one draw per
    class, classes in order), so the draws do not depend on the thread
    partition.
    """
    for d in range(lo, hi):
        offset[d] = _log_sum_exp_others(omega, d, j)
        if doc_lengths[d] == 0:
            out[d] = 0.0
        else:
            out[d] = pg_draw(states[d], c, omega[d, j] - offset[d], method, n_terms)


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


def eta_conditional(zbar, lam, kappa, prior_variance, offset=None):
    """Mean and Cholesky factor of the precision of eta | Z, lambda.

    Precision ``P = I / nu^2 + sum_d lambda_d zbar_d zbar_d^T`` and mean
    ``mu = P^{-1} sum_d (kappa_d + lambda_d offset_d) zbar_d`` (user guide,
    :ref:`slda`): the likelihood of each document is
    ``exp(kappa_d psi_d - lambda_d psi_d^2 / 2)`` in ``psi_d = eta . zbar_d -
    offset_d``; ``offset`` is None (zero) in the binary model and ``C_dj`` for
    class ``j`` of the multinomial one.
    """
    n_topics = zbar.shape[1]
    precision = (zbar.T * lam) @ zbar
    precision[np.diag_indices(n_topics)] += 1.0 / prior_variance
    chol = np.linalg.cholesky(precision)
    rhs = zbar.T @ (kappa if offset is None else kappa + lam * offset)
    mean = np.linalg.solve(chol.T, np.linalg.solve(chol, rhs))
    return mean, chol


def draw_eta(zbar, lam, kappa, prior_variance, rng, offset=None):
    """One draw of eta from its Gaussian conditional (Cholesky of the precision)."""
    mean, chol = eta_conditional(zbar, lam, kappa, prior_variance, offset)
    noise = rng.standard_normal(zbar.shape[1])
    return mean + np.linalg.solve(chol.T, noise)
