"""Fast and multi-threaded collapsed Gibbs sweeps for plain LDA.

These kernels sample exactly the LDA case of the shared sweep
:func:`sklearn_pgtm._kernels._sweeps.sample_topics` (document factor
``C_dk¬n + alpha_k`` with a vector ``alpha``, collapsed word factor
``(C_kw¬n + beta) / (C_k¬n + V beta)``, no supervision), on the same token
layout (``doc_ptr``, ``word_ids``, ``topics``, ``doc_topic`` (D, K) int32,
``word_topic`` (V, K) int32, ``topic_total`` (K) int32) and with the same
per-document random streams ``states[d]`` (one uniform per token).

Methods
-------
``"plain"``
    The shared O(K)-per-token sweep ``sample_topics`` itself.
``"dense"``
    O(K) per token, LDA only: caches ``(C_dk + alpha_k) / (C_k + V beta)``
    for the current document so that the inner loop has no division; from
    ``ORDERED_MIN_TOPICS`` topics on, the linear search visits topics in
    decreasing order of the document's counts (it then usually stops after a
    few topics instead of K / 2).
``"sparse"``
    SparseLDA (Yao, Mimno and McCallum, 2009). The conditional is split as

        (C_dk + a_k)(C_kw + b) / (C_k + Vb)
          = a_k b / (C_k + Vb)                 "s": all topics, kept as a sum
          + C_dk b / (C_k + Vb)                "r": topics of the document
          + (C_dk + a_k) C_kw / (C_k + Vb)     "q": topics of the word

    ``s`` and ``r`` are updated in O(1) per count change, ``q`` is summed over
    the nonzero topics of the word using cached coefficients
    ``(C_dk + a_k) / (C_k + Vb)``. Per-token cost grows with the number of
    topics of the document and of the word, not with K. This is exact Gibbs
    sampling (same conditional as the plain sweep; the chains differ draw by
    draw because a uniform is mapped to a topic in a different order, but
    they are equal in distribution; see tests/test_sweeps.py).
``"auto"``
    ``"dense"`` when K < ``SPARSE_MIN_TOPICS`` and ``"sparse"`` otherwise
    (benchmarks/throughput.py on 20 Newsgroups: dense is faster at K = 20
    and 100, sparse about twice as fast at K = 1000; the threshold lies
    between the measured points).

Multi-threading (``n_jobs > 1``, P threads): the documents are cut into P
contiguous blocks and the vocabulary into P contiguous slices, both of about
equal numbers of tokens. A sweep is P sub-rounds; in sub-round r, thread p
resamples the tokens of document block p whose word lies in slice
(p + r) mod P. Threads therefore never share a row of ``doc_topic`` or of
``word_topic``: those counts are always exact (no copies, no merge). Only the
topic totals ``topic_total`` are shared: each thread works on its own copy
within a sub-round (it does not see the other threads' changes to the totals
until the sub-round ends, when the copies are merged). That staleness of K
numbers, each of order N / K, is the whole approximation (much smaller than
AD-LDA's stale topic-word counts; the partitioned scheme of Yan, Xu and Qi
(2009), also tomotopy's default). Each document keeps its random stream, so the
result depends only on the input state, the streams and ``n_jobs``; with
``n_jobs=1`` the sweep is exactly the serial one. The threads run ``nogil``
numba kernels. ``plain`` always runs serially.

Driver
------
``lda_sweep(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total,
alpha, beta, states, n_jobs=1, method="auto")`` performs one sweep in place;
``alpha`` is a float64 vector of length K, ``beta`` a float.
"""

import weakref

import numpy as np
from numba import njit

from .._parallel import balanced_cuts, effective_n_jobs, thread_pool
from ._intrinsics import PREFETCH_DISTANCE, prefetch, prefetch_row, prefetch_span
from ._random import search_cumulative, uniform
from ._sweeps import ORDERED_MIN_TOPICS, sample_topics

SPARSE_MIN_TOPICS = 300
METHODS = ("auto", "plain", "dense", "sparse")

_EMPTY_2D = np.zeros((0, 0))
_ALL_WORDS = 2**62  # default upper end of the word range: every word
_NO_ORDERS = np.zeros((0, 0), dtype=np.int64)
_EMPTY_1D = np.zeros(0)


@njit(cache=True, nogil=True, fastmath=True)
def _dot_shifted(coef, row, beta, n):
    """sum_k coef[k] (row[k] + beta), vectorized (summation order free)."""
    total = 0.0
    for k in range(n):
        total += coef[k] * (row[k] + beta)
    return total


@njit(cache=True, nogil=True)
def dense_sweep(doc_lo, doc_hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                topic_total, alpha, beta, beta_sum, states, ordered=False, w_lo=0,
                w_hi=_ALL_WORDS, saved_orders=_NO_ORDERS, order_saved=False):
    """O(K) LDA sweep of documents ``doc_lo:doc_hi``.

    Keeps ``coef[k] = (C_dk + alpha_k) / (C_k + V beta)`` for the current
    document (two entries change per token), so that the inner loop is one
    multiply-add per topic: the total comes from a vectorized reduction, the
    topic from a linear search of the running sum (if rounding of the
    reordered total leaves the search short, the last topic searched is taken:
    a probability of order 1e-16).

    ``ordered``: search the topics in decreasing order of the document's
    counts at the start of the document instead of 0..K-1. Any fixed order
    samples the same conditional; this one usually stops within the
    document's few main topics (worth its argsort from K of about 50 on).

    Only tokens whose word lies in ``w_lo:w_hi`` are resampled (the
    multi-threaded driver gives each thread its own slice of the vocabulary).
    The driver visits a document once per slice: ``saved_orders`` (D, K),
    when given, keeps each document's search order from the first visit
    (``order_saved=False``: compute and store) for the next ones
    (``order_saved=True``: reuse), one argsort per document and sweep.
    """
    n_topics = alpha.shape[0]
    inv = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / (topic_total[k] + beta_sum)
    coef = np.empty(n_topics)
    order = np.arange(n_topics)
    last_token = doc_ptr[doc_hi]
    for d in range(doc_lo, doc_hi):
        state = states[d]
        for k in range(n_topics):
            coef[k] = (doc_topic[d, k] + alpha[k]) * inv[k]
        if ordered:
            if order_saved:
                order = saved_orders[d]
            else:
                order = np.argsort(-doc_topic[d])
                if saved_orders.shape[0] > 0:
                    saved_orders[d] = order
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if i + PREFETCH_DISTANCE < last_token:
                w_ahead = word_ids[i + PREFETCH_DISTANCE]
                if w_lo <= w_ahead < w_hi:
                    prefetch_row(word_topic, w_ahead)
            w = word_ids[i]
            if w < w_lo or w >= w_hi:
                continue
            old = topics[i]
            doc_topic[d, old] -= 1
            word_topic[w, old] -= 1
            topic_total[old] -= 1
            inv[old] = 1.0 / (topic_total[old] + beta_sum)
            coef[old] = (doc_topic[d, old] + alpha[old]) * inv[old]
            row = word_topic[w]
            # Total by a vectorized reduction, then a linear search.
            u = uniform(state) * _dot_shifted(coef, row, beta, n_topics)
            acc = 0.0
            if ordered:
                new = order[n_topics - 1]
                for j in range(n_topics):
                    k = order[j]
                    acc += coef[k] * (row[k] + beta)
                    if acc > u:
                        new = k
                        break
            else:
                new = n_topics - 1
                for k in range(n_topics):
                    acc += coef[k] * (row[k] + beta)
                    if acc > u:
                        new = k
                        break
            topics[i] = new
            doc_topic[d, new] += 1
            word_topic[w, new] += 1
            topic_total[new] += 1
            inv[new] = 1.0 / (topic_total[new] + beta_sum)
            coef[new] = (doc_topic[d, new] + alpha[new]) * inv[new]


@njit(cache=True, nogil=True)
def _word_lists(word_topic):
    """Nonzero-topic lists of every word, capacity min(K, word frequency)."""
    n_words, n_topics = word_topic.shape
    freq = np.zeros(n_words, dtype=np.int64)
    for w in range(n_words):
        f = 0
        for k in range(n_topics):
            f += word_topic[w, k]
        freq[w] = f
    ptr = np.zeros(n_words + 1, dtype=np.int64)
    for w in range(n_words):
        ptr[w + 1] = ptr[w] + min(freq[w], n_topics)
    lists = np.empty(max(ptr[n_words], 1), dtype=np.int32)
    length = np.zeros(n_words, dtype=np.int64)
    for w in range(n_words):
        n = 0
        base = ptr[w]
        for k in range(n_topics):
            if word_topic[w, k] > 0:
                lists[base + n] = k
                n += 1
        length[w] = n
    return ptr, lists, length


@njit(cache=True, nogil=True)
def sparse_sweep(doc_lo, doc_hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                 topic_total, alpha, beta, beta_sum, states):
    """SparseLDA sweep of documents ``doc_lo:doc_hi`` (see module doc)."""
    wptr, wlist, wlen = _word_lists(word_topic)
    sparse_sweep_words(doc_lo, doc_hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                       topic_total, alpha, beta, beta_sum, states, wptr, wlist, wlen, 0,
                       _ALL_WORDS)


@njit(cache=True, nogil=True)
def sparse_sweep_words(doc_lo, doc_hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                       topic_total, alpha, beta, beta_sum, states, wptr, wlist, wlen, w_lo,
                       w_hi):
    """SparseLDA sweep of the tokens of documents ``doc_lo:doc_hi`` whose word
    lies in ``w_lo:w_hi``, given the words' nonzero-topic lists (updated in
    place; a thread only touches the lists of its own words)."""
    n_topics = alpha.shape[0]
    inv = np.empty(n_topics)
    coef = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / (topic_total[k] + beta_sum)
        coef[k] = alpha[k] * inv[k]
    dlist = np.empty(n_topics, dtype=np.int32)
    dpos = np.full(n_topics, -1, dtype=np.int64)
    qcum = np.empty(n_topics)
    scum = np.empty(n_topics)
    last_token = doc_ptr[doc_hi]
    for d in range(doc_lo, doc_hi):
        state = states[d]
        start = doc_ptr[d]
        stop = doc_ptr[d + 1]
        if stop == start:
            continue
        # s bucket recomputed per document (bounds floating drift).
        s_sum = 0.0
        for k in range(n_topics):
            s_sum += alpha[k] * beta * inv[k]
        # Document's nonzero topics, r bucket and coefficients.
        nd = 0
        r_sum = 0.0
        for k in range(n_topics):
            c = doc_topic[d, k]
            if c > 0:
                dlist[nd] = k
                dpos[k] = nd
                nd += 1
                r_sum += c * beta * inv[k]
                coef[k] = (c + alpha[k]) * inv[k]
        for i in range(start, stop):
            # Prefetch the topic list of a word ahead, and the counts of the
            # topics of a nearer word (whose list is in cache by now).
            if i + PREFETCH_DISTANCE < last_token:
                w_ahead = word_ids[i + PREFETCH_DISTANCE]
                if w_lo <= w_ahead < w_hi:
                    prefetch_span(wlist, wptr[w_ahead], wptr[w_ahead] + wlen[w_ahead])
            if i + 2 < last_token:
                w_ahead = word_ids[i + 2]
                if w_lo <= w_ahead < w_hi:
                    for j in range(wptr[w_ahead], wptr[w_ahead] + wlen[w_ahead]):
                        prefetch(word_topic, w_ahead, wlist[j])
            w = word_ids[i]
            if w < w_lo or w >= w_hi:
                continue
            t = topics[i]
            # Remove the token.
            s_sum -= alpha[t] * beta * inv[t]
            r_sum -= doc_topic[d, t] * beta * inv[t]
            doc_topic[d, t] -= 1
            word_topic[w, t] -= 1
            topic_total[t] -= 1
            inv[t] = 1.0 / (topic_total[t] + beta_sum)
            s_sum += alpha[t] * beta * inv[t]
            cdt = doc_topic[d, t]
            r_sum += cdt * beta * inv[t]
            coef[t] = (cdt + alpha[t]) * inv[t]
            if cdt == 0:
                p = dpos[t]
                last = dlist[nd - 1]
                dlist[p] = last
                dpos[last] = p
                dpos[t] = -1
                nd -= 1
            base = wptr[w]
            nw = wlen[w]
            if word_topic[w, t] == 0:
                for j in range(nw):
                    if wlist[base + j] == t:
                        wlist[base + j] = wlist[base + nw - 1]
                        break
                nw -= 1
                wlen[w] = nw
            # q bucket over the word's topics.
            q_sum = 0.0
            for j in range(nw):
                k = wlist[base + j]
                q_sum += coef[k] * word_topic[w, k]
                qcum[j] = q_sum
            if r_sum < 0.0:
                r_sum = 0.0
            if s_sum < 0.0:
                s_sum = 0.0
            u = uniform(state) * (s_sum + r_sum + q_sum)
            new = -1
            if u < q_sum and nw > 0:
                new = wlist[base + search_cumulative(qcum, nw, u)]
            else:
                u -= q_sum
                if u < r_sum and nd > 0:
                    acc = 0.0
                    new = dlist[nd - 1]
                    for j in range(nd):
                        k = dlist[j]
                        acc += doc_topic[d, k] * beta * inv[k]
                        if acc > u:
                            new = k
                            break
                else:
                    u -= r_sum
                    total = 0.0
                    for k in range(n_topics):
                        total += alpha[k] * beta * inv[k]
                        scum[k] = total
                    new = search_cumulative(scum, n_topics, min(u, total))
            # Add the token back with its new topic.
            topics[i] = new
            s_sum -= alpha[new] * beta * inv[new]
            r_sum -= doc_topic[d, new] * beta * inv[new]
            if doc_topic[d, new] == 0:
                dlist[nd] = new
                dpos[new] = nd
                nd += 1
            if word_topic[w, new] == 0:
                wlist[base + nw] = new
                wlen[w] = nw + 1
            doc_topic[d, new] += 1
            word_topic[w, new] += 1
            topic_total[new] += 1
            inv[new] = 1.0 / (topic_total[new] + beta_sum)
            s_sum += alpha[new] * beta * inv[new]
            cdn = doc_topic[d, new]
            r_sum += cdn * beta * inv[new]
            coef[new] = (cdn + alpha[new]) * inv[new]
        # Reset the coefficients of the document's topics.
        for j in range(nd):
            k = dlist[j]
            coef[k] = alpha[k] * inv[k]
            dpos[k] = -1
        nd = 0


def resolve_method(method, n_topics):
    """The concrete kernel name for ``method`` at ``n_topics`` topics."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    if method == "auto":
        return "sparse" if n_topics >= SPARSE_MIN_TOPICS else "dense"
    return method


def _serial(method, lo, hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
            topic_total, alpha, beta, beta_sum, states):
    if method == "sparse":
        sparse_sweep(lo, hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                     topic_total, alpha, beta, beta_sum, states)
    elif method == "dense":
        dense_sweep(lo, hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                    topic_total, alpha, beta, beta_sum, states,
                    alpha.shape[0] >= ORDERED_MIN_TOPICS)
    else:
        sample_topics(
            doc_ptr[lo:hi + 1], word_ids, topics, doc_topic[lo:hi], word_topic,
            topic_total, alpha, beta, beta_sum, _EMPTY_2D, _EMPTY_2D, _EMPTY_1D,
            _EMPTY_1D, _EMPTY_1D, _EMPTY_1D, states[lo:hi],
        )


def partition_documents(doc_ptr, n_parts):
    """Boundaries (n_parts + 1) cutting documents into contiguous blocks of
    about equal numbers of tokens."""
    return balanced_cuts(doc_ptr, n_parts)


_WORD_BOUNDS_CACHE = {}


def _word_bounds(word_ids, n_words, n_parts):
    """:func:`partition_words`, remembered for the token arrays of the last
    calls (a chain sweeps the same tokens many times; the bincount costs 5 %
    of a two-thread sweep). An entry holds a weak reference to its array, so
    a new array that reuses a freed array's id never gets its cuts (the cuts
    decide the sweep order, hence the random streams' use)."""
    key = (id(word_ids), word_ids.shape[0], n_words, n_parts)
    entry = _WORD_BOUNDS_CACHE.get(key)
    if entry is not None and entry[0]() is word_ids:
        return entry[1]
    if len(_WORD_BOUNDS_CACHE) > 8:
        _WORD_BOUNDS_CACHE.clear()
    bounds = partition_words(word_ids, n_words, n_parts)
    _WORD_BOUNDS_CACHE[key] = (weakref.ref(word_ids), bounds)
    return bounds


def partition_words(word_ids, n_words, n_parts):
    """Boundaries (n_parts + 1) cutting the vocabulary into contiguous slices
    of about equal numbers of tokens."""
    cumulative = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(np.bincount(word_ids, minlength=n_words), out=cumulative[1:])
    return balanced_cuts(cumulative, n_parts)


def lda_sweep(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total,
              alpha, beta, states, n_jobs=1, method="auto"):
    """One collapsed Gibbs sweep of plain LDA, in place (see module doc).

    ``n_jobs > 1`` runs the document x vocabulary partitioned sweep in
    threads (``dense`` and ``sparse``; ``plain`` always runs serially);
    ``n_jobs`` of ``None`` or 1 is the exact serial sweep.
    """
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    beta = float(beta)
    beta_sum = beta * word_topic.shape[0]
    method = resolve_method(method, alpha.shape[0])
    n_jobs = effective_n_jobs(n_jobs)
    n_docs = doc_ptr.shape[0] - 1
    n_words = word_topic.shape[0]
    n_parts = min(n_jobs, n_docs, n_words)
    if n_parts <= 1 or method == "plain":
        _serial(method, 0, n_docs, doc_ptr, word_ids, topics, doc_topic, word_topic,
                topic_total, alpha, beta, beta_sum, states)
        return
    doc_bounds = partition_documents(doc_ptr, n_parts)
    word_bounds = _word_bounds(word_ids, n_words, n_parts)
    ordered = alpha.shape[0] >= ORDERED_MIN_TOPICS
    saved_orders = _NO_ORDERS
    if ordered and method == "dense":
        saved_orders = np.empty((n_docs, alpha.shape[0]), dtype=np.int64)
    if method == "sparse":
        wptr, wlist, wlen = _word_lists(word_topic)

    def run(p, r, local_total):
        # Sub-round r: documents of block p, words of slice (p + r) mod P.
        g = (p + r) % n_parts
        lo, hi = doc_bounds[p], doc_bounds[p + 1]
        w_lo, w_hi = word_bounds[g], word_bounds[g + 1]
        if method == "sparse":
            sparse_sweep_words(lo, hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                               local_total, alpha, beta, beta_sum, states, wptr, wlist, wlen,
                               w_lo, w_hi)
        else:
            dense_sweep(lo, hi, doc_ptr, word_ids, topics, doc_topic, word_topic,
                        local_total, alpha, beta, beta_sum, states, ordered, w_lo, w_hi,
                        saved_orders, r > 0)

    pool = thread_pool(n_parts)
    for r in range(n_parts):
        local_totals = [topic_total.copy() for _ in range(n_parts)]
        list(pool.map(run, range(n_parts), [r] * n_parts, local_totals))
        # Each thread saw its own updates of the topic totals only (the shared
        # totals are untouched during the sub-round): add up their changes.
        topic_total += sum(t - topic_total for t in local_totals)


