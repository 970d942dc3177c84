"""Collapsed Gibbs sweeps over the topics of the tokens, for every topic model.

Tokens are stored document by document in flat arrays, as in the ``lda``
package, bundled in a :class:`TokenTopics` named tuple: ``doc_ptr`` (D + 1
offsets), ``word_ids`` and ``topics`` (one entry per token) and the
document-topic counts ``doc_topic`` (D, K). Collapsed models also keep the
topic-word counts ``word_topic`` (V, K, word-major so that a token reads one
contiguous row) and the topic totals ``topic_total`` (K).

Every model resamples a token's topic from a product of three factors
(user guide, :ref:`collapsed_sweep`):

    p(z_dn = k | rest) ∝ doc(d, k) · word(w_dn, k) · response(d, k)

- doc: ``C_dk¬n + alpha_k`` (:class:`DocPrior`, a collapsed Dirichlet) or a
  fixed weight ``weights[d, k]`` (:class:`DocWeights`, the correlated topic
  model's proportions);
- word: ``(C_kw¬n + beta_wk) / (C_k¬n + sum_w beta_wk)`` (:class:`CollapsedWords`;
  ``beta`` a float, or a (V, K) array for seeded topics) or a
  fixed ``phi[w, k]`` (:class:`FixedWords`: inference with fixed topics, the
  dynamic topic model's slices);
- response: 1 (:class:`NoResponse`) or the supervised factor of Gibbs sLDA,
  binary (:class:`BinaryResponse`) or multinomial (:class:`SoftmaxResponse`).

One core, :func:`_sweep_tokens`, does the token loop for every combination
(compiled without reference counting; :func:`_sweep_block` allocates its
work arrays and the documents' search orders);
the factors are small named tuples whose behaviour is chosen at compile time
(numba ``overload`` on their types), so each entry point compiles to a loop
with only its own arithmetic. (Most overloads are left to LLVM to inline:
numba 0.68's IR-level ``inline="always"`` loses writes to arrays held in a
named tuple built inside the caller; tests/test_sweeps.py checks the counts.
The two per-token response overloads are IR-inlined: LLVM kept them as
calls, and the core receives the response tuple as an argument, where the
writes hold; see :func:`response_weights`.) The entry points are the uses:
:func:`sample_lda`, :func:`sample_supervised`, :func:`sample_softmax`,
:func:`sample_weighted`
(collapsed words, fixed document weights), :func:`sample_fixed_topics` and
:func:`sample_fixed_topics_weighted` (topics fixed), and the SparseLDA sweep
:func:`sample_lda_sparse` (LDA only, a different search over the same count
updates).

Every entry point sweeps the documents ``block[0]:block[1]`` and, among their
tokens, only those whose word lies in ``block[2]:block[3]``: the partitioned
multi-threaded driver (:mod:`sklearn_pgtm._chain`) gives each thread its own
block of documents and slice of the vocabulary, and a thread-local copy of
``topic_total``. Document ``d`` draws from its own random stream
``states[d]``, so a sweep is reproducible whatever the partition.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ._config import CACHE
from ._intrinsics import (
    PREFETCH_DISTANCE,
    exp_nonpositive,
    log_positive,
    maxnum,
    prefetch,
    prefetch_row,
    prefetch_span,
)
from ._random import categorical, search_cumulative, uniform

# From this many topics on, the search for the new topic visits topics in
# decreasing order of the document's factor: it then usually stops within the
# document's few main topics instead of after K / 2 topics (worth sorting
# each document's topics, :func:`search_order`; benchmarks/throughput.py).
# Any fixed order samples the same conditional.
ORDERED_MIN_TOPICS = 50

# Upper end of the word range that selects every word.
ALL_WORDS = 2**62

TokenTopics = namedtuple("TokenTopics", ["doc_ptr", "word_ids", "topics", "doc_topic"])
TokenTopics.__doc__ = """Tokens of a corpus and their topics (see the module docstring)."""

DocPrior = namedtuple("DocPrior", ["alpha"])
DocWeights = namedtuple("DocWeights", ["weights"])
CollapsedWords = namedtuple("CollapsedWords",
                            ["word_topic", "topic_total", "inv_total", "beta", "beta_sum"])
FixedWords = namedtuple("FixedWords", ["phi"])
NoResponse = namedtuple("NoResponse", [])
BinaryResponse = namedtuple("BinaryResponse", ["eta", "linear", "quad", "discriminant"])
BinaryResponse.__doc__ = """Supervised factor of Gibbs sLDA (Zhu et al. 2013).

``exp(a_d eta_k - b_d (eta_k^2 + 2 eta_k Lambda_dn))`` with ``a_d =
linear[d] = kappa_d / N_d``, ``b_d = quad[d] = lambda_d / (2 N_d^2)`` and
``Lambda_dn`` the discriminant of the document's other tokens, kept in
``discriminant[d] = sum_n eta_{z_dn}`` (updated by the sweep)."""
# The same with a thread's work arrays (built by :func:`sample_supervised`):
# ``quadratic[k] = a_d eta_k - b_d eta_k^2``, ``doc_weight`` and the rows of
# ``pair_table`` computed so far for the current document (``row_ready``).
BinaryFactor = namedtuple("BinaryFactor", ["eta", "linear", "quad", "discriminant", "quadratic",
                                           "doc_weight", "pair_table", "row_ready"])
SoftmaxResponse = namedtuple("SoftmaxResponse",
                             ["eta", "labels", "c", "inv_length", "discriminant"])
SoftmaxResponse.__doc__ = """Supervised factor of multinomial Gibbs sLDA (one
model, C classes): ``softmax(eta zbar_d)_{y_d}^c`` for the token's candidate
topic, exactly (no augmentation), with ``eta`` (C, K), ``labels[d]`` the
class index of document ``d``, ``inv_length[d] = 1 / N_d`` (0 when empty)
and ``discriminant[d, l] = sum_n eta_{l, z_dn}`` (D, C; updated by the
sweep)."""
# The same with a thread's work arrays (built by :func:`sample_softmax`).
# ``weights_of[0]``: the topic whose leaving token the work row of weights was
# last computed for, or -1 (a new document, or a token moved since).
SoftmaxFactor = namedtuple("SoftmaxFactor", ["eta", "labels", "c", "inv_length", "discriminant",
                                             "class_topic", "class_weight", "column_top",
                                             "weights_of"])


def _is(side, cls):
    return isinstance(side, types.BaseTuple) and getattr(side, "instance_class", None) is cls


# --------------------------------------------------------------------------
# The factors. Each function below is a compile-time switch on the type of
# its first argument; the chosen body is compiled into the core.
# --------------------------------------------------------------------------


def doc_factor(docs, doc_topic, d, k):
    """Document factor of topic ``k`` for document ``d`` (token removed)."""


@overload(doc_factor)
def _doc_factor(docs, doc_topic, d, k):
    if _is(docs, DocPrior):
        return lambda docs, doc_topic, d, k: doc_topic[d, k] + docs.alpha[k]
    if _is(docs, DocWeights):
        return lambda docs, doc_topic, d, k: docs.weights[d, k]


def search_keys(docs, doc_topic):
    """The (D, K) array whose row ``d`` in decreasing order is the search
    order of document ``d``."""


@overload(search_keys)
def _search_keys(docs, doc_topic):
    if _is(docs, DocPrior):
        return lambda docs, doc_topic: doc_topic
    if _is(docs, DocWeights):
        return lambda docs, doc_topic: docs.weights


# A document with at most this many topics present gets its search order by
# insertion (:func:`_count_order`), one with more by np.argsort.
_INSERTION_MAX_TOPICS = 64


def search_order(docs, key_row, out):
    """Fill ``out`` with the topics in decreasing order of ``key_row`` (a
    row of :func:`search_keys`): the document's search order."""


@njit(cache=CACHE, nogil=True)
def _count_order(counts, out):
    """The topics present (``counts > 0``) by decreasing count, sorted by
    insertion, then the absent ones in topic order; np.argsort for a
    document with more than ``_INSERTION_MAX_TOPICS`` topics present. On
    all of 20 Newsgroups at K = 100 (median 18 topics present, at most 64)
    the orders of a sweep took 15 ms against 47 ms for np.argsort of every
    row, whose sweep takes about 400 ms."""
    n_topics = counts.shape[0]
    n = 0
    for k in range(n_topics):
        c = counts[k]
        if c > 0:
            if n == _INSERTION_MAX_TOPICS:
                out[:] = np.argsort(-counts)
                return
            i = n
            while i > 0 and counts[out[i - 1]] < c:
                out[i] = out[i - 1]
                i -= 1
            out[i] = k
            n += 1
    for k in range(n_topics):
        if counts[k] == 0:
            out[n] = k
            n += 1


@overload(search_order)
def _search_order(docs, key_row, out):
    if _is(docs, DocPrior):
        return lambda docs, key_row, out: _count_order(key_row, out)
    if _is(docs, DocWeights):
        def impl(docs, key_row, out):
            out[:] = np.argsort(-key_row)
        return impl


def topic_scale(words, k):
    """Factor of topic ``k`` shared by every word: ``1 / (C_k + V beta)`` or 1."""


@overload(topic_scale)
def _topic_scale(words, k):
    if _is(words, CollapsedWords):
        return lambda words, k: words.inv_total[k]
    if _is(words, FixedWords):
        return lambda words, k: 1.0


def prior_of(beta, w, k):
    """The topic-word prior of (word ``w``, topic ``k``): ``beta`` itself when
    it is a float (symmetric prior), ``beta[w, k]`` when it is a (V, K) array
    (seeded or asymmetric prior)."""


@overload(prior_of)
def _prior_of(beta, w, k):
    if isinstance(beta, types.Array):
        return lambda beta, w, k: beta[w, k]
    return lambda beta, w, k: beta


def prior_total(beta_sum, k):
    """``sum_w beta_wk`` of topic ``k`` from ``beta_sum`` (a float or (K,) array)."""


@overload(prior_total)
def _prior_total(beta_sum, k):
    if isinstance(beta_sum, types.Array):
        return lambda beta_sum, k: beta_sum[k]
    return lambda beta_sum, k: beta_sum


def prior_sums(beta, n_words):
    """``sum_w beta_wk`` for every topic: ``V beta`` for a float, column sums
    of a (V, K) array."""


@overload(prior_sums)
def _prior_sums(beta, n_words):
    if isinstance(beta, types.Array):
        def impl(beta, n_words):
            out = np.zeros(beta.shape[1])
            for w in range(beta.shape[0]):
                for k in range(beta.shape[1]):
                    out[k] += beta[w, k]
            return out
        return impl
    return lambda beta, n_words: beta * n_words


def word_factor(words, w, k):
    """Word factor of topic ``k`` for word ``w`` up to :func:`topic_scale`."""


@overload(word_factor)
def _word_factor(words, w, k):
    if _is(words, CollapsedWords):
        return lambda words, w, k: words.word_topic[w, k] + prior_of(words.beta, w, k)
    if _is(words, FixedWords):
        return lambda words, w, k: words.phi[w, k]


def prefetch_word(words, w):
    """Ask for the word row that a token ahead will read (a cache miss otherwise)."""


def prefetch_prior(beta, w):
    """Prefetch the prior's row of word ``w`` when the prior is a (V, K) array."""


@overload(prefetch_prior)
def _prefetch_prior(beta, w):
    if isinstance(beta, types.Array):
        return lambda beta, w: prefetch_row(beta, w)
    return lambda beta, w: None


@overload(prefetch_word)
def _prefetch_word(words, w):
    if _is(words, CollapsedWords):
        def impl(words, w):
            prefetch_row(words.word_topic, w)
            prefetch_prior(words.beta, w)
        return impl
    if _is(words, FixedWords):
        return lambda words, w: prefetch_row(words.phi, w)


def start_topic_scale(words):
    """Fill the cached ``1 / (C_k + V beta)`` from the topic totals."""


@overload(start_topic_scale)
def _start_topic_scale(words):
    if _is(words, CollapsedWords):
        def impl(words):
            for k in range(words.topic_total.shape[0]):
                words.inv_total[k] = 1.0 / (words.topic_total[k]
                                            + prior_total(words.beta_sum, k))
        return impl
    if _is(words, FixedWords):
        return lambda words: None


@njit(cache=CACHE, nogil=True, inline="always")
def move_word_count(word_topic, topic_total, inv_total, beta_sum, w, k, step):
    """Add ``step`` (+1 or -1) tokens of word ``w`` to topic ``k`` and refresh
    the cached ``1 / (C_k + sum_w beta_wk)``: the one count update of every
    collapsed sweep (the core's and SparseLDA's)."""
    word_topic[w, k] += step
    topic_total[k] += step
    inv_total[k] = 1.0 / (topic_total[k] + prior_total(beta_sum, k))


def move_word(words, w, k, step):
    """Count update of the word side (nothing when the topics are fixed)."""


@overload(move_word)
def _move_word(words, w, k, step):
    if _is(words, CollapsedWords):
        return lambda words, w, k, step: move_word_count(
            words.word_topic, words.topic_total, words.inv_total, words.beta_sum, w, k, step)
    if _is(words, FixedWords):
        return lambda words, w, k, step: None


# --------------------------------------------------------------------------
# The response factors. A model passes its parameters (a BinaryResponse or a
# SoftmaxResponse) to its entry point, which adds the thread-local work
# arrays (a BinaryFactor or a SoftmaxFactor) before calling the core.
# --------------------------------------------------------------------------

# Below this total the products of the factorized binary weights may have
# lost their precision to underflow: the weights are then computed directly.
_TINY_TOTAL = 1e-250


@njit(cache=CACHE, nogil=True)
def _largest(values):
    """The largest entry of a non-empty 1-D array (a vectorized reduction)."""
    top = values[0]
    for k in range(1, values.shape[0]):
        top = maxnum(top, values[k])
    return top


@njit(cache=CACHE, nogil=True)
def _exp_scaled(values):
    """``values <- exp(values - max(values))`` in place: the largest is 1."""
    top = _largest(values)
    for k in range(values.shape[0]):
        values[k] = exp_nonpositive(values[k] - top)


@njit(cache=CACHE, nogil=True)
def _scaled_exp_line(out, intercept, x, slope):
    """``out[k] = exp(intercept[k] - slope x[k])`` scaled so that the largest
    is 1. The binary factor's ``doc_weight[k] ∝ exp(a_d eta_k - b_d eta_k^2 -
    2 b_d Lambda_d eta_k)`` for the document's current discriminant
    ``Lambda_d`` is ``_scaled_exp_line(doc_weight, quadratic, eta, 2 b_d
    Lambda_d)``. (Plain arrays: it runs once per moved token, where passing
    the factor tuple cost a call with its eight arrays.)"""
    for k in range(out.shape[0]):
        out[k] = intercept[k] - slope * x[k]
    _exp_scaled(out)


@njit(cache=CACHE, nogil=True)
def _binary_pair_row(pair_table, row_ready, eta, slope, j):
    """Row ``j`` of ``pair_table[j, k] ∝ exp(slope eta_k)`` with ``slope = 2
    b_d eta_j`` (largest 1). (Indexed in 2-D: a row view would cost reference
    counting per token.)"""
    top = slope * eta[0]
    for k in range(pair_table.shape[1]):
        pair_table[j, k] = slope * eta[k]
        top = maxnum(top, pair_table[j, k])
    for k in range(pair_table.shape[1]):
        pair_table[j, k] = exp_nonpositive(pair_table[j, k] - top)
    row_ready[j] = True


@njit(cache=CACHE, nogil=True)
def _softmax_doc_start(factor, d, base):
    """Per document: ``class_topic[l, k] = exp(eta_lk / N_d - m_k)`` with
    ``m_k = max_l eta_lk / N_d``, and ``base[k] = c log class_topic[y_d, k]``."""
    inv_length = factor.inv_length[d]
    label = factor.labels[d]
    eta = factor.eta
    n_classes, n_topics = eta.shape
    column_top = factor.column_top
    for k in range(n_topics):
        column_top[k] = eta[0, k] * inv_length
    for l in range(1, n_classes):
        for k in range(n_topics):
            column_top[k] = maxnum(column_top[k], eta[l, k] * inv_length)
    for l in range(n_classes):
        for k in range(n_topics):
            factor.class_topic[l, k] = exp_nonpositive(eta[l, k] * inv_length - column_top[k])
    for k in range(n_topics):
        base[k] = factor.c * (eta[label, k] * inv_length - column_top[k])
    factor.weights_of[0] = -1


@njit(cache=CACHE, nogil=True)
def _softmax_weights(factor, d, old, base, out):
    """``out[k] ∝ softmax(omega_d¬n + eta_{., k} / N_d)_{y_d}^c`` (largest 1).

    With ``g_l ∝ exp(omega_dl¬n)`` (the document's scores without the token)
    the class probabilities of candidate ``k`` are ``g_l class_topic[l, k] /
    S_k``, ``S_k = sum_l g_l class_topic[l, k]``: one multiply-add per class
    and topic, then one logarithm and one exponential per topic.

    They depend on the document only through its scores, which change only
    when a token moves: while none has, a token leaving the same topic as
    the last one finds ``out`` already holding its weights (the same
    numbers; tokens of a repeated word are consecutive and mostly share a
    topic). Measured on all of 20 Newsgroups' training set (1.9M tokens, K =
    50, C = 20, c = 256, 40 sweeps, two threads): a fit of 27.8 s before,
    19.8 s with the reuse, every draw the same.
    """
    if factor.weights_of[0] == old:
        return
    factor.weights_of[0] = old
    inv_length = factor.inv_length[d]
    eta = factor.eta
    n_classes, n_topics = eta.shape
    rest = factor.class_weight
    for l in range(n_classes):
        rest[l] = (factor.discriminant[d, l] - eta[l, old]) * inv_length
    _exp_scaled(rest)
    for k in range(n_topics):
        out[k] = 0.0
    for l in range(n_classes):
        g = rest[l]
        for k in range(n_topics):
            out[k] += g * factor.class_topic[l, k]
    c = factor.c
    for k in range(n_topics):
        out[k] = base[k] - c * log_positive(out[k])
    _exp_scaled(out)


def response_start(response, d, base):
    """Per-document part of the response factor (``base``: a work row of K)."""


@overload(response_start)
def _response_start(response, d, base):
    if _is(response, NoResponse):
        return lambda response, d, base: None
    if _is(response, BinaryFactor):
        def impl(response, d, base):
            a_d = response.linear[d]
            b_d = response.quad[d]
            for k in range(base.shape[0]):
                e = response.eta[k]
                response.quadratic[k] = a_d * e - b_d * e * e
                response.row_ready[k] = False
            _scaled_exp_line(response.doc_weight, response.quadratic, response.eta,
                             2.0 * b_d * response.discriminant[d])
        return impl
    if _is(response, SoftmaxFactor):
        return lambda response, d, base: _softmax_doc_start(response, d, base)


def response_weights(response, d, old, base, out):
    """Response factors of every topic for the token leaving topic ``old``."""


# inline="always" (IR level) for this overload and response_move's: left to
# LLVM, both stayed calls taking the binary factor's eight arrays, once per
# token (supervised sweep, K = 20, 857 documents of alt.atheism +
# talk.religion.misc: 255-300 ns per token against 65-75 for the LDA sweep
# of the same chain; inlined, with the helpers below taking plain arrays:
# 195-215 ns; with the core compiled without reference counting, see
# _sweep_tokens: 110-117 ns; the whole fit's rate is in
# benchmarks/RESULTS.md, section slda). The tuple is an argument of the
# core here, so its arrays' writes are kept (tests/test_sweeps.py checks the
# discriminant and the counts).
@overload(response_weights, inline="always")
def _response_weights(response, d, old, base, out):
    if _is(response, NoResponse):
        return lambda response, d, old, base, out: None
    if _is(response, BinaryFactor):
        def impl(response, d, old, base, out):
            # exp(a eta_k - b (eta_k^2 + 2 eta_k (Lambda_d - eta_old))) =
            # doc_weight[k] * pair_table[old, k] (up to a constant): one
            # multiplication per topic; exponentials only for a new row of
            # the table (once per topic present in the document) and when a
            # token moves. Measured: one binary model, K = 50, all of 20
            # Newsgroups' training set (1.9M tokens), sweeps 3-6, one thread:
            # 2.2 s per sweep against 2.6 s with K exponentials per token
            # (one run each, loaded 2-core machine).
            # (The helpers take plain arrays, not the factor: a call site
            # that passes the tuple costs 40 ns per token even when not taken.)
            if not response.row_ready[old]:
                _binary_pair_row(response.pair_table, response.row_ready, response.eta,
                                 2.0 * response.quad[d] * response.eta[old], old)
            table = response.pair_table
            total = 0.0
            for k in range(out.shape[0]):
                out[k] = response.doc_weight[k] * table[old, k]
                total += out[k]
            if total < _TINY_TOTAL:
                # The products may have lost their precision: term by term.
                _scaled_exp_line(out, response.quadratic, response.eta, 2.0 * response.quad[d]
                                 * (response.discriminant[d] - response.eta[old]))
        return impl
    if _is(response, SoftmaxFactor):
        return lambda response, d, old, base, out: _softmax_weights(response, d, old, base,
                                                                    out)


def response_factor(response, weights, k):
    """The response factor of topic ``k`` computed by :func:`response_weights`."""


@overload(response_factor)
def _response_factor(response, weights, k):
    if _is(response, NoResponse):
        return lambda response, weights, k: 1.0
    if _is(response, BinaryFactor) or _is(response, SoftmaxFactor):
        return lambda response, weights, k: weights[k]


def response_move(response, d, old, new):
    """Update the response's running state when a token moves topic."""


@overload(response_move, inline="always")  # see response_weights
def _response_move(response, d, old, new):
    if _is(response, NoResponse):
        return lambda response, d, old, new: None
    if _is(response, BinaryFactor):
        def impl(response, d, old, new):
            if new != old:
                response.discriminant[d] += response.eta[new] - response.eta[old]
                _scaled_exp_line(response.doc_weight, response.quadratic, response.eta,
                                 2.0 * response.quad[d] * response.discriminant[d])
        return impl
    if _is(response, SoftmaxFactor):
        def impl(response, d, old, new):
            if new != old:
                for l in range(response.eta.shape[0]):
                    response.discriminant[d, l] += response.eta[l, new] - response.eta[l, old]
                response.weights_of[0] = -1
        return impl


# --------------------------------------------------------------------------
# The core
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True, fastmath=True)
def _weight_total(coef, words, response, response_w, w, n_topics):
    """sum_k coef[k] word(w, k) response(k), by a vectorized reduction
    (summation order free)."""
    total = 0.0
    for k in range(n_topics):
        total += coef[k] * word_factor(words, w, k) * response_factor(response, response_w, k)
    return total


# Documents whose search orders are computed together before their sweep.
_ORDER_CHUNK = 256


@njit(cache=CACHE, nogil=True)
def _sweep_block(tokens, docs, words, response, states, block):
    """Resample the topics of the tokens of ``block`` (see the module doc):
    the work arrays and search orders for :func:`_sweep_tokens`, which may
    not allocate. The orders of a chunk of documents are computed before
    its sweep, which is the same as at each document's start: a document's
    key row only changes while that document is swept."""
    doc_lo, doc_hi, w_lo, w_hi = block
    n_topics = tokens.doc_topic.shape[1]
    coef = np.empty(n_topics)
    response_base = np.empty(n_topics)
    response_w = np.empty(n_topics)
    ordered = n_topics >= ORDERED_MIN_TOPICS
    # Below ORDERED_MIN_TOPICS the core searches in topic order and reads no order.
    n_rows = min(_ORDER_CHUNK, max(doc_hi - doc_lo, 1)) if ordered else 1
    orders = np.empty((n_rows, n_topics), dtype=np.int64)
    keys = search_keys(docs, tokens.doc_topic)
    for start in range(doc_lo, doc_hi, _ORDER_CHUNK):
        stop = min(start + _ORDER_CHUNK, doc_hi)
        if ordered:
            for d in range(start, stop):
                search_order(docs, keys[d], orders[d - start])
        _sweep_tokens(tokens, docs, words, response, states, (start, stop, w_lo, w_hi),
                      coef, response_base, response_w, orders)


# Compiled without numba's reference counting (``_nrt=False``, which also
# applies to everything it calls: nothing here allocates). With it, reading
# the factors' arrays out of their named tuples inside the token loop left
# atomic increments and decrements of the arrays' reference counts that the
# refcount pruning could not remove: 35 % of the binary supervised sweep's
# time (perf; K = 20, alt.atheism + talk.religion.misc: 188-196 ns per token
# before, 110-117 after); the multinomial sweep (all of 20 Newsgroups, K =
# 50, C = 20): 945 -> 794 ns per token; the LDA sweep: unchanged, and every
# draw is the same as before.
@njit(cache=CACHE, nogil=True, _nrt=False)
def _sweep_tokens(tokens, docs, words, response, states, block, coef, response_base,
                  response_w, orders):
    """Resample the topics of the tokens of ``block`` (see the module doc),
    document ``d`` searching its topics in the order ``orders[d - block[0]]``
    when there are at least ``ORDERED_MIN_TOPICS`` topics, in topic order
    0, ..., K - 1 otherwise (without the order's indirection: 12-19 % more
    token-sweeps per second for LDA at K = 20 on 20 Newsgroups, measured
    against the same search through an identity order in one process).

    Keeps ``coef[k] = doc(d, k) * topic_scale(k)`` for the current document
    (two entries change per token), so that a topic's weight is one or two
    multiplications; the total comes from a vectorized reduction, the topic
    from a linear search of the running sum in the document's search order
    (if rounding of the reordered total leaves the search short, the last
    topic searched is taken: a probability of order 1e-16).
    """
    doc_ptr = tokens.doc_ptr
    word_ids = tokens.word_ids
    topics = tokens.topics
    doc_topic = tokens.doc_topic
    doc_lo, doc_hi, w_lo, w_hi = block
    n_topics = doc_topic.shape[1]
    ordered = n_topics >= ORDERED_MIN_TOPICS
    start_topic_scale(words)
    last_token = doc_ptr[doc_hi]
    for d in range(doc_lo, doc_hi):
        state = states[d]
        for k in range(n_topics):
            coef[k] = doc_factor(docs, doc_topic, d, k) * topic_scale(words, k)
        order = orders[d - doc_lo if ordered else 0]
        response_start(response, d, response_base)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            if i + PREFETCH_DISTANCE < last_token:
                w_ahead = word_ids[i + PREFETCH_DISTANCE]
                if w_lo <= w_ahead < w_hi:
                    prefetch_word(words, w_ahead)
            w = word_ids[i]
            if w < w_lo or w >= w_hi:
                continue
            old = topics[i]
            doc_topic[d, old] -= 1
            move_word(words, w, old, -1)
            coef[old] = doc_factor(docs, doc_topic, d, old) * topic_scale(words, old)
            response_weights(response, d, old, response_base, response_w)
            u = uniform(state) * _weight_total(coef, words, response, response_w, w, n_topics)
            acc = 0.0
            # Two loops: one loop reading ``order[j] if ordered else j`` ran
            # 10-17 % slower at K = 20 (not unswitched by the compiler).
            if ordered:
                new = order[n_topics - 1]
                for j in range(n_topics):
                    k = order[j]
                    acc += (coef[k] * word_factor(words, w, k)
                            * response_factor(response, response_w, k))
                    if acc > u:
                        new = k
                        break
            else:
                new = n_topics - 1
                for k in range(n_topics):
                    acc += (coef[k] * word_factor(words, w, k)
                            * response_factor(response, response_w, k))
                    if acc > u:
                        new = k
                        break
            topics[i] = new
            doc_topic[d, new] += 1
            move_word(words, w, new, 1)
            coef[new] = doc_factor(docs, doc_topic, d, new) * topic_scale(words, new)
            response_move(response, d, old, new)


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True)
def sample_lda(tokens, word_topic, topic_total, alpha, beta, states, block):
    """LDA sweep of ``block``: prior ``alpha`` (K,), collapsed words with ``beta``
    (a float, or a (V, K) array)."""
    words = CollapsedWords(word_topic, topic_total, np.empty(alpha.shape[0]), beta,
                           prior_sums(beta, word_topic.shape[0]))
    _sweep_block(tokens, DocPrior(alpha), words, NoResponse(), states, block)


@njit(cache=CACHE, nogil=True)
def sample_supervised(tokens, word_topic, topic_total, alpha, beta, response, states, block):
    """Gibbs sLDA sweep of ``block``: LDA factors times a :class:`BinaryResponse`."""
    n_topics = alpha.shape[0]
    words = CollapsedWords(word_topic, topic_total, np.empty(n_topics), beta,
                           prior_sums(beta, word_topic.shape[0]))
    factor = BinaryFactor(response.eta, response.linear, response.quad, response.discriminant,
                          np.empty(n_topics), np.empty(n_topics), np.empty((n_topics, n_topics)),
                          np.zeros(n_topics, dtype=np.bool_))
    _sweep_block(tokens, DocPrior(alpha), words, factor, states, block)


@njit(cache=CACHE, nogil=True)
def sample_softmax(tokens, word_topic, topic_total, alpha, beta, response, states, block):
    """Multinomial Gibbs sLDA sweep of ``block``: LDA factors times a
    :class:`SoftmaxResponse`."""
    n_classes, n_topics = response.eta.shape
    words = CollapsedWords(word_topic, topic_total, np.empty(n_topics), beta,
                           prior_sums(beta, word_topic.shape[0]))
    factor = SoftmaxFactor(response.eta, response.labels, response.c, response.inv_length,
                           response.discriminant, np.empty((n_classes, n_topics)),
                           np.empty(n_classes), np.empty(n_topics),
                           np.full(1, -1, dtype=np.int64))
    _sweep_block(tokens, DocPrior(alpha), words, factor, states, block)


@njit(cache=CACHE, nogil=True)
def sample_weighted(tokens, word_topic, topic_total, weights, beta, states, block):
    """Sweep of ``block`` with fixed document weights ``weights`` (D, K) and
    collapsed words (the correlated topic model)."""
    words = CollapsedWords(word_topic, topic_total, np.empty(weights.shape[1]), beta,
                           prior_sums(beta, word_topic.shape[0]))
    _sweep_block(tokens, DocWeights(weights), words, NoResponse(), states, block)


@njit(cache=CACHE, nogil=True)
def sample_fixed_topics(tokens, phi, alpha, states, block):
    """Sweep of ``block`` with the topics fixed at ``phi`` (V, K) and a
    collapsed Dirichlet ``alpha`` on the documents (inference of new
    documents; the dynamic topic model's slices)."""
    _sweep_block(tokens, DocPrior(alpha), FixedWords(phi), NoResponse(), states, block)


@njit(cache=CACHE, nogil=True)
def sample_fixed_topics_weighted(tokens, phi, weights, states, block):
    """Sweep of ``block`` with the topics fixed at ``phi`` (V, K) and fixed
    document weights ``weights`` (D, K) (the correlated topic model's
    inference)."""
    _sweep_block(tokens, DocWeights(weights), FixedWords(phi), NoResponse(), states, block)


# --------------------------------------------------------------------------
# SparseLDA
# --------------------------------------------------------------------------


def word_topic_lists(word_topic, word_frequencies):
    """Nonzero-topic lists of every word for :func:`sample_lda_sparse`.

    Returns ``(ptr, lists, length)``: the topics of word ``w`` with a positive
    count are ``lists[ptr[w]:ptr[w] + length[w]]``; a word's capacity is
    ``min(K, word_frequencies[w])`` (its corpus frequency, the sum of its row
    of ``word_topic``). :func:`fill_word_topic_lists` refills them.
    """
    n_words, n_topics = word_topic.shape
    ptr = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(np.minimum(word_frequencies, n_topics), out=ptr[1:])
    lists = np.empty(max(int(ptr[-1]), 1), dtype=np.int32)
    length = np.zeros(n_words, dtype=np.int64)
    fill_word_topic_lists(word_topic, (ptr, lists, length), 0, n_words)
    return ptr, lists, length


@njit(cache=CACHE, nogil=True)
def fill_word_topic_lists(word_topic, word_lists, lo, hi):
    """Write the nonzero topics of words ``lo:hi`` into ``word_lists`` (from
    :func:`word_topic_lists`; one pass over their rows of ``word_topic``)."""
    ptr, lists, length = word_lists
    for w in range(lo, hi):
        n = 0
        for k in range(word_topic.shape[1]):
            if word_topic[w, k] > 0:
                lists[ptr[w] + n] = k
                n += 1
        length[w] = n


@njit(cache=CACHE, nogil=True)
def sample_lda_sparse(tokens, word_topic, topic_total, alpha, beta, states, block, word_lists):
    """SparseLDA sweep of ``block`` (Yao, Mimno & McCallum 2009); ``beta`` a float.

    Exact Gibbs for LDA, the conditional split into three buckets:

        (C_dk + a_k)(C_kw + b) / (C_k + Vb)
          = a_k b / (C_k + Vb)                 "s": all topics, kept as a sum
          + C_dk b / (C_k + Vb)                "r": topics of the document
          + (C_dk + a_k) C_kw / (C_k + Vb)     "q": topics of the word

    ``s`` and ``r`` are updated in O(1) per count change, ``q`` is summed over
    the nonzero topics of the word (``word_lists`` from
    :func:`word_topic_lists`, updated in place; a thread only touches the
    lists of its own words). Per-token cost grows with the topics of the
    document and of the word, not with K. Same conditional as
    :func:`sample_lda`; the chains differ draw by draw (a uniform maps to a
    topic in another order) but not in distribution (tests/test_sweeps.py).
    """
    doc_ptr = tokens.doc_ptr
    word_ids = tokens.word_ids
    topics = tokens.topics
    doc_topic = tokens.doc_topic
    doc_lo, doc_hi, w_lo, w_hi = block
    wptr, wlist, wlen = word_lists
    n_topics = alpha.shape[0]
    beta_sum = beta * word_topic.shape[0]
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
            move_word_count(word_topic, topic_total, inv, beta_sum, w, t, -1)
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
            r_sum = max(r_sum, 0.0)
            s_sum = max(s_sum, 0.0)
            u = uniform(state) * (s_sum + r_sum + q_sum)
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
            move_word_count(word_topic, topic_total, inv, beta_sum, w, new, 1)
            s_sum += alpha[new] * beta * inv[new]
            cdn = doc_topic[d, new]
            r_sum += cdn * beta * inv[new]
            coef[new] = (cdn + alpha[new]) * inv[new]
        # Reset the coefficients of the document's topics.
        for j in range(nd):
            k = dlist[j]
            coef[k] = alpha[k] * inv[k]
            dpos[k] = -1


# --------------------------------------------------------------------------
# Initial state
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True)
def _place_token(tokens, word_topic, topic_total, d, i, k):
    """Give token ``i`` of document ``d`` the initial topic ``k`` (counts at 0 before)."""
    tokens.topics[i] = k
    tokens.doc_topic[d, k] += 1
    word_topic[tokens.word_ids[i], k] += 1
    topic_total[k] += 1


@njit(cache=CACHE, nogil=True)
def initialize_topics_from_factors(tokens, word_topic, topic_total, doc_weight, topic_weight,
                                   states):
    """Topics drawn with ``p(z = k) ∝ doc_weight[d, k] topic_weight[k, w]``
    (a nonnegative factorization of the counts; or, with ``doc_weight`` all
    ones, a (K, V) topic-word prior, so that a seed word starts in the topic
    it seeds; uniform where the products are all 0), and the counts they
    imply (which must start at 0)."""
    doc_ptr = tokens.doc_ptr
    n_topics = doc_weight.shape[1]
    cumulative = np.empty(n_topics)
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = tokens.word_ids[i]
            total = 0.0
            for k in range(n_topics):
                total += doc_weight[d, k] * topic_weight[k, w]
                cumulative[k] = total
            if total > 0.0:
                new = categorical(state, cumulative, n_topics)
            else:
                new = min(int(uniform(state) * n_topics), n_topics - 1)
            _place_token(tokens, word_topic, topic_total, d, i, new)


@njit(cache=CACHE, nogil=True)
def initialize_topics(tokens, word_topic, topic_total, states):
    """Uniformly random topics for every token, and the counts they imply
    (``doc_topic``, ``word_topic`` and ``topic_total`` must start at 0)."""
    doc_ptr = tokens.doc_ptr
    n_topics = tokens.doc_topic.shape[1]
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = min(int(uniform(state) * n_topics), n_topics - 1)
            _place_token(tokens, word_topic, topic_total, d, i, k)
