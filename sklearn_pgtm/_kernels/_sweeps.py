"""The collapsed Gibbs topic sweep shared by every model.

Tokens are stored document by document in flat arrays (as in the ``lda``
package): ``doc_ptr`` (D + 1 offsets), ``word_ids`` and ``topics`` (one entry
per token). Counts: ``doc_topic`` (D, K), ``word_topic`` (V, K, word-major so
that a token reads one contiguous row) and ``topic_total`` (K).

One kernel serves all three models; what differs is the document factor and
an optional supervised factor of the conditional

    p(z_dn = k | rest) ∝ doc_factor(d, k) · word_factor(w, k) · sup(d, k)

- doc_factor: ``C_dk¬n + alpha_k`` (LDA, sLDA), or a fixed weight
  ``doc_weight[d, k]`` (the correlated topic model's softmax / stick-breaking
  proportions) when ``doc_weight`` has rows.
- word_factor: ``(C_kw¬n + beta) / (C_k¬n + V beta)`` (collapsed), or a fixed
  ``phi[w, k]`` when ``phi`` has rows (inference on new documents; the
  topic-word counts are then left untouched).
- sup: ``exp(a_d eta_k - b_d (eta_k^2 + 2 eta_k Lambda_dn))`` when ``eta`` is
  non-empty (Gibbs sLDA, Zhu et al. 2013), with ``a_d = kappa_d / N_d``,
  ``b_d = lambda_d / (2 N_d^2)`` and ``Lambda_dn`` the discriminant of the other
  tokens, kept in ``discriminant[d] = sum_n eta_{z_dn}``.

Each document draws from its own random stream ``states[d]``, so a sweep is
reproducible whatever the order or partition of documents.
"""

import math

import numpy as np
from numba import njit

from ._intrinsics import PREFETCH_DISTANCE, exp_nonpositive, prefetch_row
from ._random import uniform

# From this many topics on, the search for the new topic visits topics in
# decreasing order of the document's factor (worth an argsort per document).
ORDERED_MIN_TOPICS = 50


@njit(cache=True, nogil=True, fastmath=True)
def _sum(values, n):
    """sum(values[:n]), vectorized (summation order free)."""
    total = 0.0
    for k in range(n):
        total += values[k]
    return total


@njit(cache=True, nogil=True)
def sample_document(
    d,
    doc_ptr,
    word_ids,
    topics,
    doc_topic,
    word_topic,
    topic_total,
    alpha,
    beta,
    beta_sum,
    doc_weight,
    phi,
    eta,
    resp_linear,
    resp_quad,
    discriminant,
    state,
    weights,
    order,
    sup_weight,
    sup_base,
    inv_total,
):
    """Resample the topics of the tokens of document ``d`` in place.

    ``inv_total[k] = 1 / (topic_total[k] + beta_sum)`` is kept up to date here
    so that the inner loop multiplies instead of dividing.
    """
    n_topics = alpha.shape[0]
    fixed_doc = doc_weight.shape[0] > 0
    fixed_words = phi.shape[0] > 0
    supervised = eta.shape[0] > 0
    a_d = 0.0
    b_d = 0.0
    if supervised:
        a_d = resp_linear[d]
        b_d = resp_quad[d]
        # The part of the exponent that is constant over the document:
        # a_d eta_k - b_d eta_k^2 (kept in sup_base).
        for k in range(n_topics):
            e = eta[k]
            sup_base[k] = a_d * e - b_d * e * e
    if n_topics >= ORDERED_MIN_TOPICS:
        # Search the topics in decreasing order of the document's factor: the
        # search then usually stops within its few main topics. Any fixed
        # order samples the same conditional.
        if fixed_doc:
            order[:] = np.argsort(-doc_weight[d])
        else:
            order[:] = np.argsort(-doc_topic[d])
    n_tokens = word_ids.shape[0]
    for i in range(doc_ptr[d], doc_ptr[d + 1]):
        # The word row of a token ahead is usually a cache miss: ask for it now.
        if i + PREFETCH_DISTANCE < n_tokens:
            if fixed_words:
                prefetch_row(phi, word_ids[i + PREFETCH_DISTANCE])
            else:
                prefetch_row(word_topic, word_ids[i + PREFETCH_DISTANCE])
        w = word_ids[i]
        old = topics[i]
        doc_topic[d, old] -= 1
        if not fixed_words:
            word_topic[w, old] -= 1
            topic_total[old] -= 1
            inv_total[old] = 1.0 / (topic_total[old] + beta_sum)
        if supervised:
            rest = discriminant[d] - eta[old]
            slope = -2.0 * b_d * rest
            s_max = -math.inf
            for k in range(n_topics):
                s = sup_base[k] + slope * eta[k]
                sup_weight[k] = s
                s_max = max(s_max, s)
            # Scaled so that the largest factor is 1; a branch-free exp so
            # that this loop vectorizes (the sweep's main cost otherwise).
            for k in range(n_topics):
                sup_weight[k] = exp_nonpositive(sup_weight[k] - s_max)
        # Weights of every topic (a loop without dependencies: it vectorizes),
        # their total by a vectorized reduction, then a linear search.
        for k in range(n_topics):
            if fixed_doc:
                p = doc_weight[d, k]
            else:
                p = doc_topic[d, k] + alpha[k]
            if fixed_words:
                p *= phi[w, k]
            else:
                p *= (word_topic[w, k] + beta) * inv_total[k]
            if supervised:
                p *= sup_weight[k]
            weights[k] = p
        u = uniform(state) * _sum(weights, n_topics)
        acc = 0.0
        # If rounding of the reordered total leaves the search short, the
        # last topic searched is taken (a probability of order 1e-16).
        new = order[n_topics - 1]
        for j in range(n_topics):
            k = order[j]
            acc += weights[k]
            if acc > u:
                new = k
                break
        topics[i] = new
        doc_topic[d, new] += 1
        if not fixed_words:
            word_topic[w, new] += 1
            topic_total[new] += 1
            inv_total[new] = 1.0 / (topic_total[new] + beta_sum)
        if supervised:
            discriminant[d] = rest + eta[new]


@njit(cache=True, nogil=True)
def sample_topics(
    doc_ptr,
    word_ids,
    topics,
    doc_topic,
    word_topic,
    topic_total,
    alpha,
    beta,
    beta_sum,
    doc_weight,
    phi,
    eta,
    resp_linear,
    resp_quad,
    discriminant,
    states,
):
    """One Gibbs sweep over every token of every document (see module doc)."""
    n_topics = alpha.shape[0]
    weights = np.empty(n_topics)
    order = np.arange(n_topics)
    sup_weight = np.empty(n_topics)
    sup_base = np.empty(n_topics)
    inv_total = np.empty(n_topics)
    for k in range(n_topics):
        inv_total[k] = 1.0 / (topic_total[k] + beta_sum) if phi.shape[0] == 0 else 0.0
    for d in range(doc_ptr.shape[0] - 1):
        sample_document(
            d, doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total,
            alpha, beta, beta_sum, doc_weight, phi, eta, resp_linear, resp_quad,
            discriminant, states[d], weights, order, sup_weight, sup_base, inv_total,
        )


@njit(cache=True)
def initialize_topics(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, states):
    """Uniformly random initial topics and the count matrices they imply."""
    n_topics = doc_topic.shape[1]
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = min(int(uniform(state) * n_topics), n_topics - 1)
            topics[i] = k
            doc_topic[d, k] += 1
            word_topic[word_ids[i], k] += 1
            topic_total[k] += 1


@njit(cache=True)
def count_matrices(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total):
    """Recompute the count matrices from token topics (all arrays zeroed first)."""
    doc_topic[:] = 0
    word_topic[:] = 0
    topic_total[:] = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = topics[i]
            doc_topic[d, k] += 1
            word_topic[word_ids[i], k] += 1
            topic_total[k] += 1
