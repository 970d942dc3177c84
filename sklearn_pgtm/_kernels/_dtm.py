"""Kernels of the dynamic topic model (user guide ``doc/dtm.rst``).

Layouts (S time slices, K topics, V words in stick order, most frequent
first):

- ``counts`` (K, V, S) int32: ``n_{s,k,v}``, tokens of word v with topic k in
  slice s; the slice axis is last so that one (topic, word) cell reads its
  time series contiguously.
- ``psi`` (K, V - 1, S) float64: the stick-breaking logits of every topic in
  every slice, ``beta_{s,k} = pi_SB(psi[k, :, s])``.
- ``phi`` (S, V, K) float64: ``beta_{s,k,v}`` word-major per slice, the
  layout of the shared topic sweep's fixed topic-word weights.

A *cell* is one (topic k, stick v) pair, flat index ``c = k (V - 1) + v``; the
cell kernel works on a range ``lo:hi`` of cells and each cell draws from its
own stream ``states[c]``, so a sweep's result does not depend on how the cells
are cut into blocks for threads.
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE
from ._linear_gaussian import scalar_ffbs
from ._polyagamma import pg_draw_fast


@njit(cache=CACHE, nogil=True)
def count_slice_topic_words(doc_ptr, word_ids, topics, slice_ptr, counts):
    """Fill ``counts[k, v, s]`` from the tokens' topics (``counts`` zeroed first).

    Documents are sorted by slice: slice ``s`` holds documents
    ``slice_ptr[s]:slice_ptr[s + 1]``.
    """
    counts[:] = 0
    for s in range(slice_ptr.shape[0] - 1):
        for i in range(doc_ptr[slice_ptr[s]], doc_ptr[slice_ptr[s + 1]]):
            counts[topics[i], word_ids[i], s] += 1


@njit(cache=CACHE, nogil=True)
def sample_topic_word_logits(counts, psi, prior_mean, prior_var, chain_var, method,
                             n_terms, states, lo, hi):
    """Gibbs update of the logits of cells ``lo:hi`` given the counts, in place.

    Cell ``k * n_sticks + v`` is stick ``v`` of topic ``k``, ``n_sticks =
    psi.shape[1]``: the words' sticks (``n_words - 1`` of them), or, when
    only the first ``n_words`` words in stick order have tokens (the others,
    whose sticks no count ever reaches, kept out), one per word with tokens.
    For each cell (k, v): the stick counts ``N_s = sum_{v' >= v} n_{s,k,v'}``,
    ``kappa_s = n_{s,k,v} - N_s / 2`` and ``omega_s ~ PG(N_s, psi[k, v, s])``
    (0 when ``N_s = 0``) for every slice, then ``psi[k, v, :]`` is redrawn by
    scalar FFBS: random walk with step variance ``chain_var`` started at
    ``N(prior_mean[v], prior_var[v])``, potentials (``omega_s``,
    ``kappa_s``). Marginally over omega this is an exact draw of the block
    ``psi[k, v, :]`` from its conditional given the counts and the other
    sticks (the binomial factorization of the multinomial).
    """
    n_topics, n_words, n_slices = counts.shape
    n_sticks = psi.shape[1]
    if n_sticks <= 0 or hi <= lo:
        return
    rest = np.zeros(n_slices)
    omega = np.empty(n_slices)
    kappa = np.empty(n_slices)
    filt_prec = np.empty(n_slices)
    filt_lin = np.empty(n_slices)
    cell = lo
    # Each pass handles the cells of one topic inside the block, from the
    # last stick to the first, so that the stick counts accumulate as a
    # suffix sum; the tokens of the words after the block's last stick are
    # summed first. Bounded: every pass advances `cell` by >= 1.
    while cell < hi:
        k = cell // n_sticks
        v_first = cell - k * n_sticks
        v_end = min(n_sticks, v_first + (hi - cell))
        for s in range(n_slices):
            rest[s] = 0.0
        for w in range(n_words - 1, v_end - 1, -1):
            for s in range(n_slices):
                rest[s] += counts[k, w, s]
        for v in range(v_end - 1, v_first - 1, -1):
            state = states[k * n_sticks + v]
            logits = psi[k, v]
            for s in range(n_slices):
                x = float(counts[k, v, s])
                rest[s] += x
                total = rest[s]
                kappa[s] = x - 0.5 * total
                omega[s] = (pg_draw_fast(state, total, logits[s], method, n_terms) if total > 0.0
                            else 0.0)
            scalar_ffbs(omega, kappa, prior_mean[v], prior_var[v], chain_var, state,
                        filt_prec, filt_lin, logits)
        cell += v_end - v_first


@njit(cache=CACHE, nogil=True)
def topic_word_probabilities(psi, lo, hi, phi):
    """``phi[s, :, k] = pi_SB(psi[k, :, s])`` for the topics ``k`` in ``lo:hi``.

    ``phi[s, n_sticks, k]`` is what the sticks leave: the last word's
    probability, or that of all the words whose sticks are kept out (see
    :func:`sample_topic_word_logits`).

    One exponential per logit: ``sigmoid(x)`` and ``1 - sigmoid(x)`` both from
    ``exp(-|x|)``, so neither overflows.
    """
    n_topics, n_sticks, n_slices = psi.shape
    rest = np.empty(n_slices)
    for k in range(lo, hi):
        for s in range(n_slices):
            rest[s] = 1.0
        for v in range(n_sticks):
            for s in range(n_slices):
                x = psi[k, v, s]
                e = math.exp(-abs(x))
                inv = 1.0 / (1.0 + e)
                if x >= 0.0:
                    take = inv
                    keep = e * inv
                else:
                    take = e * inv
                    keep = inv
                phi[s, v, k] = rest[s] * take
                rest[s] *= keep
        for s in range(n_slices):
            phi[s, n_sticks, k] = rest[s]


@njit(cache=CACHE, nogil=True)
def sum_squared_steps(psi):
    """``sum_{k, v, s >= 1} (psi[k, v, s] - psi[k, v, s - 1])^2`` (the
    sufficient statistic of the random walk's step variance)."""
    n_topics, n_sticks, n_slices = psi.shape
    total = 0.0
    for k in range(n_topics):
        for v in range(n_sticks):
            for s in range(1, n_slices):
                d = psi[k, v, s] - psi[k, v, s - 1]
                total += d * d
    return total


@njit(cache=CACHE, nogil=True)
def log_words_given_topics(counts, phi):
    """``log p(w | z, beta) = sum_{s, k, v} n_{s,k,v} log beta_{s,k,v}`` from
    the counts ``counts[k, v, s]`` and the topics ``phi[s, v, k]`` (cells
    without tokens skipped, so a zero probability there costs nothing)."""
    n_topics, n_words, n_slices = counts.shape
    total = 0.0
    for k in range(n_topics):
        for v in range(n_words):
            for s in range(n_slices):
                n = counts[k, v, s]
                if n > 0:
                    total += n * math.log(phi[s, v, k])
    return total
