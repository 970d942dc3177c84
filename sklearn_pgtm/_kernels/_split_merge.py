"""Topic-level split-merge moves for a collapsed chain during its burn-in.

Collapsed Gibbs moves one token at a time. When two topics nearly always
occur together, a chain started from random topics often gives them one
topic early on, and spends the topic it saved on a fragment of another one;
leaving that state takes a coordinated move of thousands of tokens, which
single-token updates never make (user guide :ref:`ctm`, "Merged topics").
A compound move does it at once: merge two topics ``i`` and ``j`` into ``i``
and split a third topic ``k`` into ``k`` and the freed ``j``.

The proposals are scored by the collapsed LDA joint ``log p(w, z | alpha,
beta)`` (symmetric ``alpha``), which is a sum over topics of a document part
and a word part, so the change of a move touching the topics ``{i, j, k}``
is the change of a merge of ``(i, j)`` plus the change of a split of ``k``:

- :func:`merge_gains` gives the change of merging every pair, from the
  pairs of topics that share a document or a word;
- :func:`split_scan` runs restricted Gibbs scans that split every topic into
  two halves at once (each token keeps its topic and draws a half; the halves
  have their own collapsed counts) and :func:`split_gains` gives the change
  of each split;
- :func:`apply_moves` relabels the tokens of the chosen moves and updates
  the counts.

The driver :func:`split_merge` applies, greedily, every move (on disjoint
topics) that raises the joint. Such moves are used only during the burn-in
(they are a search for a good starting state, not part of the kept chain),
so they need no Metropolis-Hastings correction.
"""

import math
import os
MODE = os.environ.get('SM_MODE', 'like')

import numpy as np
from numba import njit

from ._random import uniform


@njit(cache=True, nogil=True)
def _pair_gain(a, b, prior):
    """Change of ``sum log Gamma(n + prior)`` when counts ``a`` and ``b`` of
    two topics are merged into one (the other left at 0)."""
    return (math.lgamma(a + b + prior) - math.lgamma(a + prior) - math.lgamma(b + prior)
            + math.lgamma(prior))


@njit(cache=True, nogil=True)
def _merge_gain_rows(rows, prior, out):
    """Add to ``out[i, j]`` (i < j) the merge changes of the rows' terms."""
    nonzero = np.empty(rows.shape[1], dtype=np.int64)
    for r in range(rows.shape[0]):
        n = 0
        for k in range(rows.shape[1]):
            if rows[r, k] > 0:
                nonzero[n] = k
                n += 1
        for a in range(n):
            i = nonzero[a]
            for b in range(a + 1, n):
                j = nonzero[b]
                out[i, j] += _pair_gain(rows[r, i], rows[r, j], prior)


@njit(cache=True, nogil=True)
def merge_gains(doc_topic, word_topic, topic_total, alpha, beta, out):
    """``out[i, j]``: change of the collapsed joint if topics ``i`` and ``j``
    were merged (symmetric; the diagonal is left at ``-inf``).

    A document (word) contributes only where both topics have a positive
    count, so the cost is the sum over documents and words of the squared
    number of their topics.
    """
    n_topics = topic_total.shape[0]
    out[:, :] = 0.0
    _merge_gain_rows(doc_topic, alpha, out)
    _merge_gain_rows(word_topic, beta, out)
    beta_sum = beta * word_topic.shape[0]
    for i in range(n_topics):
        out[i, i] = -np.inf
        for j in range(i + 1, n_topics):
            out[i, j] -= _pair_gain(topic_total[i], topic_total[j], beta_sum)
            out[j, i] = out[i, j]


@njit(cache=True, nogil=True)
def _profile_products(tokens, v, dots, scale, proj):
    """For every (document, topic) with n = C_dk >= 2 tokens: the product of
    its word profile with ``v`` minus the topic's mean profile product,
    ``s_dk = (n - 1) (y_dk . v[:, k] / n - pbar_k . v[:, k])``, into
    ``dots``; returns nothing (``proj`` holds ``pbar_k . v[:, k]``, computed
    here from the same products). ``scale[k]`` is ``sum_d (C_dk - 1)^+``."""
    doc_ptr = tokens.doc_ptr
    doc_topic = tokens.doc_topic
    n_topics = doc_topic.shape[1]
    dots[:, :] = 0.0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = tokens.topics[i]
            dots[d, k] += v[tokens.word_ids[i], k]
    proj[:] = 0.0
    for d in range(doc_topic.shape[0]):
        for k in range(n_topics):
            n = doc_topic[d, k]
            if n >= 2:
                dots[d, k] /= n
                proj[k] += (n - 1) * dots[d, k]
    for k in range(n_topics):
        if scale[k] > 0:
            proj[k] /= scale[k]
    for d in range(doc_topic.shape[0]):
        for k in range(n_topics):
            n = doc_topic[d, k]
            dots[d, k] = (n - 1) * (dots[d, k] - proj[k]) if n >= 2 else 0.0


@njit(cache=True, nogil=True)
def principal_halves(tokens, word_topic, topic_total, n_iter, state, half):
    """Split every topic's words in two by the leading axis of the variation
    of its documents' word profiles beyond sampling noise.

    For topic ``k`` the profile of document ``d`` is ``p_dk = y_dk / n_dk``
    (``y_dk`` its words in topic ``k``, ``n_dk = C_dk >= 2`` of them,
    weight ``n_dk - 1``). When a topic holds two topics that co-occur, the
    share of one of them varies between documents, and the profiles spread
    along the difference of the two word distributions. Their weighted
    covariance ``M = sum_d (n_dk - 1) (p_dk - pbar)(p_dk - pbar)^T`` also holds
    the multinomial noise of each profile, ``(diag(pbar) - pbar pbar^T) /
    n_dk``, largest on the commonest words; without removing it the leading
    axis is often that noise. The axis used is the leading eigenvector of
    ``S = M - W (diag(pbar) - pbar pbar^T)``, ``W = sum_d (n_dk - 1) / n_dk``
    (``pbar`` approximated by the topic's word distribution), found by
    ``n_iter`` power iterations on ``S + W max(pbar) I`` (positive
    semi-definite) from a random start (``state``), for all topics at once,
    two passes over the tokens each. ``half[i]`` is 1 where the token's word
    has a positive coordinate in its topic's vector: every token of a word in
    a topic lands in the same half.
    """
    n_words, n_topics = word_topic.shape
    n_docs = tokens.doc_topic.shape[0]
    doc_ptr = tokens.doc_ptr
    doc_topic = tokens.doc_topic
    scale = np.zeros(n_topics)
    noise = np.zeros(n_topics)
    for d in range(n_docs):
        for k in range(n_topics):
            n = doc_topic[d, k]
            if n >= 2:
                scale[k] += n - 1
                noise[k] += (n - 1) / n
    shift = np.zeros(n_topics)
    for w in range(n_words):
        for k in range(n_topics):
            if topic_total[k] > 0:
                shift[k] = max(shift[k], noise[k] * word_topic[w, k] / topic_total[k])
    v = np.empty((n_words, n_topics), dtype=np.float32)
    for w in range(n_words):
        for k in range(n_topics):
            v[w, k] = uniform(state) - 0.5 if word_topic[w, k] > 0 else 0.0
    new = np.empty_like(v)
    dots = np.empty((n_docs, n_topics))
    proj = np.empty(n_topics)
    total = np.empty(n_topics)
    pbar_v = np.empty(n_topics)
    norm = np.empty(n_topics)
    for _ in range(n_iter):
        _profile_products(tokens, v, dots, scale, proj)
        # M v = sum_d s_dk (y_dk / n_dk - pbar_k), pbar_k = sum_d (n_dk - 1) p_dk / scale_k
        total[:] = 0.0
        for d in range(n_docs):
            for k in range(n_topics):
                total[k] += dots[d, k]
        # - W (diag(p) v - p (p . v)) + shift v, p the topic's word distribution
        pbar_v[:] = 0.0
        for w in range(n_words):
            for k in range(n_topics):
                if topic_total[k] > 0:
                    pbar_v[k] += word_topic[w, k] / topic_total[k] * v[w, k]
        for w in range(n_words):
            for k in range(n_topics):
                p = word_topic[w, k] / topic_total[k] if topic_total[k] > 0 else 0.0
                new[w, k] = shift[k] * v[w, k] - noise[k] * p * (v[w, k] - pbar_v[k])
        for d in range(n_docs):
            for i in range(doc_ptr[d], doc_ptr[d + 1]):
                k = tokens.topics[i]
                n = doc_topic[d, k]
                if n >= 2:
                    coef = dots[d, k]
                    if scale[k] > 0:
                        coef -= (n - 1) * total[k] / scale[k]
                    new[tokens.word_ids[i], k] += coef / n
        norm[:] = 0.0
        for w in range(n_words):
            for k in range(n_topics):
                norm[k] += new[w, k] * new[w, k]
        for k in range(n_topics):
            norm[k] = 1.0 / math.sqrt(norm[k]) if norm[k] > 0.0 else 0.0
        for w in range(n_words):
            for k in range(n_topics):
                v[w, k] = new[w, k] * norm[k]
    for i in range(tokens.word_ids.shape[0]):
        half[i] = 1 if v[tokens.word_ids[i], tokens.topics[i]] > 0.0 else 0


@njit(cache=True, nogil=True)
def half_counts(tokens, half, doc_half, word_half, half_total):
    """Counts of the half-1 tokens per (document, topic), (word, topic), topic."""
    doc_ptr = tokens.doc_ptr
    doc_half[:, :] = 0
    word_half[:, :] = 0
    half_total[:] = 0
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if half[i]:
                k = tokens.topics[i]
                doc_half[d, k] += 1
                word_half[tokens.word_ids[i], k] += 1
                half_total[k] += 1


@njit(cache=True, nogil=True)
def split_scan(tokens, half, doc_half, word_half, half_total, word_topic, topic_total, alpha,
               beta, states):
    """One restricted Gibbs scan: every token redraws its half given the
    others, ``p(h) ∝ (C_dkh + alpha) (n_wkh + beta) / (n_kh + V beta)`` (the
    counts of half 0 are the topic's counts minus those of half 1); document
    ``d`` draws from ``states[d]``."""
    doc_ptr = tokens.doc_ptr
    word_ids = tokens.word_ids
    topics = tokens.topics
    doc_topic = tokens.doc_topic
    beta_sum = beta * word_topic.shape[0]
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = topics[i]
            w = word_ids[i]
            h = half[i]
            d1 = doc_half[d, k] - h
            w1 = word_half[w, k] - h
            t1 = half_total[k] - h
            d0 = doc_topic[d, k] - 1 - d1
            w0 = word_topic[w, k] - 1 - w1
            t0 = topic_total[k] - 1 - t1
            p1 = (d1 + alpha) * (w1 + beta) / (t1 + beta_sum)
            p0 = (d0 + alpha) * (w0 + beta) / (t0 + beta_sum)
            new = 1 if uniform(state) * (p0 + p1) < p1 else 0
            if new != h:
                step = new - h
                doc_half[d, k] += step
                word_half[w, k] += step
                half_total[k] += step
                half[i] = new


@njit(cache=True, nogil=True)
def _split_gain_rows(rows, half_rows, prior, out):
    for r in range(rows.shape[0]):
        for k in range(rows.shape[1]):
            n = rows[r, k]
            if n > 0:
                m = half_rows[r, k]
                out[k] -= _pair_gain(m, n - m, prior)


@njit(cache=True, nogil=True)
def split_gains(doc_topic, doc_half, word_topic, word_half, topic_total, half_total, alpha,
                beta, out):
    """``out[k]``: change of the collapsed joint if topic ``k`` were split
    into its two halves (the negative of merging them back)."""
    out[:] = 0.0
    _split_gain_rows(doc_topic, doc_half, alpha, out)
    _split_gain_rows(word_topic, word_half, beta, out)
    beta_sum = beta * word_topic.shape[0]
    for k in range(topic_total.shape[0]):
        out[k] += _pair_gain(half_total[k], topic_total[k] - half_total[k], beta_sum)


@njit(cache=True, nogil=True)
def apply_moves(tokens, word_topic, topic_total, half, union_half, plan):
    """Relabel the tokens by ``plan`` (K, 4) and update the counts.

    Row ``t`` of ``plan`` says where topic ``t``'s tokens go (-1: not used):
    ``plan[t, 0]``: all of them (a merge); else ``plan[t, 1]``: those with
    ``half`` 1 (a split); else ``plan[t, 2]`` / ``plan[t, 3]``: those with
    ``union_half`` 0 / 1 (a re-split of a pair).
    """
    doc_ptr = tokens.doc_ptr
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            old = tokens.topics[i]
            new = old
            if plan[old, 0] >= 0:
                new = plan[old, 0]
            elif plan[old, 1] >= 0:
                if half[i] == 1:
                    new = plan[old, 1]
            elif plan[old, 2] >= 0:
                new = plan[old, 2] if union_half[i] == 0 else plan[old, 3]
            if new != old:
                w = tokens.word_ids[i]
                tokens.topics[i] = new
                tokens.doc_topic[d, old] -= 1
                tokens.doc_topic[d, new] += 1
                word_topic[w, old] -= 1
                word_topic[w, new] += 1
                topic_total[old] -= 1
                topic_total[new] += 1


def merge_pairs(merge):
    """Disjoint pairs of topics in decreasing order of their merge gain
    (greedy: the best pair, then the best among the remaining topics, ...)."""
    n_topics = merge.shape[0]
    order = np.argsort(-merge, axis=None, kind="stable")
    used = np.zeros(n_topics, dtype=bool)
    pairs = []
    for flat in order:
        i, j = divmod(int(flat), n_topics)
        if i >= j or used[i] or used[j] or not np.isfinite(merge[i, j]):
            continue
        pairs.append((i, j))
        used[i] = used[j] = True
    return pairs


def merged_view(tokens, word_topic, topic_total, pairs):
    """The counts with topic ``j`` of every pair ``(i, j)`` merged into ``i``:
    a :class:`TokenTopics` with new ``topics`` and ``doc_topic``, and the new
    ``word_topic`` and ``topic_total`` (copies; the chain is untouched)."""
    target = np.arange(topic_total.shape[0], dtype=np.int32)
    doc_topic = tokens.doc_topic.copy()
    word_topic = word_topic.copy()
    topic_total = topic_total.copy()
    for i, j in pairs:
        target[j] = i
        for counts in (doc_topic, word_topic):
            counts[:, i] += counts[:, j]
            counts[:, j] = 0
        topic_total[i] += topic_total[j]
        topic_total[j] = 0
    view = type(tokens)(tokens.doc_ptr, tokens.word_ids, target[tokens.topics], doc_topic)
    return view, word_topic, topic_total


def principal_split_gains(tokens, word_topic, topic_total, alpha, beta, state, states, n_iter,
                          n_scans):
    """Split every topic by :func:`principal_halves` then ``n_scans``
    restricted Gibbs scans (:func:`split_scan`, document streams
    ``states``); returns the halves and the change of the joint of each
    split (:func:`split_gains`)."""
    n_topics = topic_total.shape[0]
    half = np.empty(tokens.word_ids.shape[0], dtype=np.int8)
    principal_halves(tokens, word_topic, topic_total, n_iter, state, half)
    doc_half = np.empty_like(tokens.doc_topic)
    word_half = np.empty_like(word_topic)
    half_total = np.empty_like(topic_total)
    half_counts(tokens, half, doc_half, word_half, half_total)
    for _ in range(n_scans):
        split_scan(tokens, half, doc_half, word_half, half_total, word_topic, topic_total,
                   alpha, beta, states)
    gains = np.empty(n_topics)
    split_gains(tokens.doc_topic, doc_half, word_topic, word_half, topic_total, half_total,
                alpha, beta, gains)
    return half, gains


def choose_moves(merge, pairs, union_split, split, sizes):
    """Moves on disjoint topics, for each pair ``(i, j)`` in the order given.

    Both sides of a move are scored alike, by the gain of a principal split:

    - a compound move merges ``i`` and ``j`` and splits the best unused
      topic ``k``, when ``k`` gains more from a split than the union of
      ``i`` and ``j`` does (``split[k] > union_split[i]``: the pair is one
      topic spent twice, ``k`` two topics in one) and the joint rises;
    - otherwise, when the pair is worse than its union as one topic
      (``merge[i, j] > 0``) and the principal split of the union is better
      still (``union_split[i] > 0``), a re-split replaces the pair by that
      split: two topics that share two real ones without separating them.

    Returns ``("compound", k, i, j)`` (``j``, the smaller by ``sizes``, is
    freed and receives half of ``k``) and ``("resplit", i, j)`` tuples.
    """
    n_topics = split.shape[0]
    used = np.zeros(n_topics, dtype=bool)
    order = np.argsort(-split, kind="stable")
    moves = []
    for i, j in pairs:
        if used[i] or used[j]:
            continue
        k = next((int(k) for k in order if not used[k] and k != i and k != j), None)
        if (k is not None and (MODE == "joint" or split[k] > union_split[i])
                and split[k] + merge[i, j] > 0.0):
            if sizes[j] > sizes[i]:
                i, j = j, i
            moves.append(("compound", k, int(i), int(j)))
            used[[k, i, j]] = True
        elif (merge[i, j] + union_split[i] > 0.0) if MODE == "joint" else (merge[i, j] > 0.0 and union_split[i] > 0.0):
            moves.append(("resplit", int(i), int(j)))
            used[[i, j]] = True
    return moves


def split_merge(chain, alpha, beta, state, n_iter=30, n_scans=5):
    """One round of split-merge moves on ``chain`` (a
    :class:`~sklearn_pgtm._chain.TopicChain`) scored by the LDA joint with a
    symmetric ``alpha`` (float) and ``beta``; ``state`` is the stream of the
    power iterations (``n_iter`` of them). Returns the moves applied (see
    :func:`choose_moves`) and the change of the joint."""
    tokens = chain.tokens
    n_topics = chain.n_topics
    if n_topics < 2:
        return [], 0.0
    alpha, beta = float(alpha), float(beta)
    merge = np.empty((n_topics, n_topics))
    merge_gains(tokens.doc_topic, chain.word_topic, chain.topic_total, alpha, beta, merge)
    pairs = merge_pairs(merge)
    half, split = principal_split_gains(tokens, chain.word_topic, chain.topic_total, alpha,
                                        beta, state, chain.states, n_iter, n_scans)
    view = merged_view(tokens, chain.word_topic, chain.topic_total, pairs)
    union_half, union_split = principal_split_gains(*view, alpha, beta, state, chain.states,
                                                    n_iter, n_scans)
    moves = choose_moves(merge, pairs, union_split, split, chain.topic_total)
    if not moves:
        return [], 0.0
    plan = np.full((n_topics, 4), -1, dtype=np.int32)
    gain = 0.0
    for move in moves:
        if move[0] == "compound":
            _, k, i, j = move
            plan[j, 0] = i
            plan[k, 1] = j
            gain += split[k] + merge[i, j]
        else:
            _, i, j = move
            plan[i, 2:] = plan[j, 2:] = (i, j)
            gain += merge[i, j] + union_split[i]
    apply_moves(tokens, chain.word_topic, chain.topic_total, half, union_half, plan)
    return moves, gain
