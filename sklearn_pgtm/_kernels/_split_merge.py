"""Split-merge moves between the topics of a collapsed LDA chain.

A move merges two topics ``i`` and ``j`` into ``i`` and splits a third topic
``k`` in two, the second part taking the freed slot ``j``; the number of
topics stays K. Its effect on the collapsed log joint ``log p(w, z | alpha,
beta)`` (symmetric priors) is a sum of terms of one form,

    s(a, b; c) = log Γ(a + c) + log Γ(b + c) - log Γ(a + b + c) - log Γ(c),

the log-joint gain of holding counts ``a`` and ``b`` in two topics rather
than ``a + b`` in one (with the other topic empty). For two groups of tokens
the gain of keeping them apart is

    Σ_d s(n_d1, n_d2; alpha) + Σ_w s(n_w1, n_w2; beta) - s(n_1, n_2; V beta)

(documents, words, topic totals). The split of a topic is found by a few
restricted Gibbs scans over its tokens between the two parts, from a random
start (Jain & Neal 2004). User guide: :ref:`split_merge`.
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE
from ._dirichlet import log_rising
from ._random import uniform


@njit(cache=CACHE, inline="always")
def _apart(a, b, prior, log_gamma_prior):
    """``s(a, b; prior)``: the log-joint gain of counts ``a`` and ``b`` kept
    apart, ``lgamma(a + prior) + lgamma(b + prior) - lgamma(a + b + prior) -
    lgamma(prior)``, as rising factorials (:func:`log_rising`: the lgamma
    differences lost every digit at a prior of 1e16, and moves were chosen
    by rounding noise)."""
    if a == 0 or b == 0:
        return 0.0
    return (log_rising(prior, a, log_gamma_prior) + log_rising(prior, b, log_gamma_prior)
            - log_rising(prior, a + b, log_gamma_prior))


@njit(cache=CACHE, nogil=True)
def topic_members(doc_ptr, word_ids, topics, n_topics):
    """Tokens grouped by topic: ``members[offsets[k]:offsets[k + 1]]`` are
    the indices of the tokens of topic ``k`` (in corpus order), and
    ``member_doc`` / ``member_word`` their documents and words (gathered once,
    so that the scans over a topic's tokens read memory in order)."""
    n_tokens = topics.shape[0]
    offsets = np.zeros(n_topics + 1, dtype=np.int64)
    for i in range(n_tokens):
        offsets[topics[i] + 1] += 1
    for k in range(n_topics):
        offsets[k + 1] += offsets[k]
    fill = offsets[:-1].copy()
    members = np.empty(n_tokens, dtype=np.int64)
    member_doc = np.empty(n_tokens, dtype=np.int64)
    member_word = np.empty(n_tokens, dtype=np.int64)
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = topics[i]
            members[fill[k]] = i
            member_doc[fill[k]] = d
            member_word[fill[k]] = word_ids[i]
            fill[k] += 1
    return members, offsets, member_doc, member_word


@njit(cache=CACHE, nogil=True)
def _add_row_separations(counts, prior, nonzero, out):
    """Add to ``out[a, b]`` the rows' terms ``s(counts[r, a], counts[r, b]; prior)``."""
    log_gamma_prior = math.lgamma(prior)
    for r in range(counts.shape[0]):
        m = 0
        for k in range(counts.shape[1]):
            if counts[r, k] > 0:
                nonzero[m] = k
                m += 1
        for a in range(m):
            ka = nonzero[a]
            for b in range(a + 1, m):
                kb = nonzero[b]
                out[ka, kb] += _apart(counts[r, ka], counts[r, kb], prior, log_gamma_prior)


@njit(cache=CACHE, nogil=True)
def pair_separations(doc_topic, word_topic, topic_total, alpha, beta):
    """``out[i, j]``: the log-joint gain of topics ``i`` and ``j`` kept apart
    rather than merged (symmetric, 0 on the diagonal)."""
    n_topics = topic_total.shape[0]
    out = np.zeros((n_topics, n_topics))
    nonzero = np.empty(n_topics, dtype=np.int64)
    _add_row_separations(doc_topic, alpha, nonzero, out)
    _add_row_separations(word_topic, beta, nonzero, out)
    total_prior = word_topic.shape[0] * beta
    log_gamma_total = math.lgamma(total_prior)
    for a in range(n_topics):
        for b in range(a + 1, n_topics):
            out[a, b] -= _apart(topic_total[a], topic_total[b], total_prior, log_gamma_total)
            out[b, a] = out[a, b]
    return out


@njit(cache=CACHE, nogil=True)
def split_topic(docs, words, doc_topic, word_topic, k, alpha, beta, n_scans, state, part,
                doc_part, word_part):
    """Split topic ``k`` (its tokens' documents ``docs`` and words ``words``)
    in two by ``n_scans`` restricted Gibbs scans from a random start;
    ``part[m]`` (0 or 1) receives the part of token ``m``. Returns the
    log-joint gain of the two parts kept apart.

    ``doc_part`` (D) and ``word_part`` (V) are zero work arrays (the counts of
    part 1), left at zero.
    """
    n = docs.shape[0]
    total_prior = word_topic.shape[0] * beta
    # The topic's count of each token's document and word, gathered once
    # (word_topic is read at random otherwise, every scan).
    doc_count = np.empty(n, dtype=np.int32)
    word_count = np.empty(n, dtype=np.int32)
    n_one = 0
    for m in range(n):
        doc_count[m] = doc_topic[docs[m], k] - 1
        word_count[m] = word_topic[words[m], k] - 1
        part[m] = 1 if uniform(state) < 0.5 else 0
        if part[m]:
            doc_part[docs[m]] += 1
            word_part[words[m]] += 1
            n_one += 1
    for _ in range(n_scans):
        for m in range(n):
            d, w = docs[m], words[m]
            if part[m]:
                doc_part[d] -= 1
                word_part[w] -= 1
                n_one -= 1
            d1, w1 = doc_part[d], word_part[w]
            d0, w0 = doc_count[m] - d1, word_count[m] - w1
            p1 = (d1 + alpha) * (w1 + beta) / (n_one + total_prior)
            p0 = (d0 + alpha) * (w0 + beta) / (n - 1 - n_one + total_prior)
            part[m] = 1 if uniform(state) * (p0 + p1) < p1 else 0
            if part[m]:
                doc_part[d] += 1
                word_part[w] += 1
                n_one += 1
    # Each document and word once: its part-1 count is set to -1 once counted.
    gain = -_apart(n_one, n - n_one, total_prior, math.lgamma(total_prior))
    log_gamma_alpha, log_gamma_beta = math.lgamma(alpha), math.lgamma(beta)
    for m in range(n):
        d, w = docs[m], words[m]
        if doc_part[d] >= 0:
            gain += _apart(doc_part[d], doc_topic[d, k] - doc_part[d], alpha, log_gamma_alpha)
            doc_part[d] = -1
        if word_part[w] >= 0:
            gain += _apart(word_part[w], word_topic[w, k] - word_part[w], beta, log_gamma_beta)
            word_part[w] = -1
    for m in range(n):
        doc_part[docs[m]] = 0
        word_part[words[m]] = 0
    return gain


@njit(cache=CACHE, nogil=True)
def split_every_topic(offsets, member_doc, member_word, doc_topic, word_topic, alpha, beta,
                      n_scans, state):
    """:func:`split_topic` for every topic: the gains (K) and the parts of
    the tokens, aligned with the members of :func:`topic_members`."""
    n_topics = offsets.shape[0] - 1
    gains = np.zeros(n_topics)
    parts = np.zeros(member_doc.shape[0], dtype=np.uint8)
    doc_part = np.zeros(doc_topic.shape[0], dtype=np.int32)
    word_part = np.zeros(word_topic.shape[0], dtype=np.int32)
    for k in range(n_topics):
        lo, hi = offsets[k], offsets[k + 1]
        if hi - lo > 1:
            gains[k] = split_topic(member_doc[lo:hi], member_word[lo:hi], doc_topic, word_topic,
                                   k, alpha, beta, n_scans, state, parts[lo:hi], doc_part,
                                   word_part)
    return gains, parts


@njit(cache=CACHE, nogil=True)
def move_tokens(indices, docs, words, topics, doc_topic, word_topic, topic_total, new):
    """Give the tokens ``indices`` (of documents ``docs``, words ``words``)
    the topic ``new``, with their counts."""
    for m in range(indices.shape[0]):
        i, d, w = indices[m], docs[m], words[m]
        old = topics[i]
        topics[i] = new
        doc_topic[d, old] -= 1
        doc_topic[d, new] += 1
        word_topic[w, old] -= 1
        word_topic[w, new] += 1
        topic_total[old] -= 1
        topic_total[new] += 1
