"""Updates of the Dirichlet hyperparameters of a collapsed topic model.

Xia & Doss (2020); user guide :ref:`dirichlet_priors`. A chain on the topics
``z`` and ``h = (alpha, beta)`` alternates a topic sweep and an update of
``h`` given ``z``. Nothing here passes over tokens: every quantity needs only
histograms of the counts, held in a :class:`CountHistograms`:

- document side, per topic ``t``: the distinct positive values of ``n_dt``
  over documents, ascending, with their multiplicities (``doc_values`` and
  ``doc_counts``, topic ``t`` in ``doc_ptr[t]:doc_ptr[t + 1]``). Memory is
  at most the number of nonzero document-topic counts, never K times the
  longest document;
- word side: ``word_counts[c]``, the number of (topic, word) cells with
  ``m_tv = c``, up to ``word_top[0]`` (at most the corpus frequency of the
  commonest word);
- the distinct document lengths and their multiplicities (fixed).

The augmentation step draws ``Q_d ~ Beta(sum alpha, n_d)`` and
``I_dt = sum_{l=1}^{n_dt} Bernoulli(alpha_t / (alpha_t + l - 1))``; summed over
documents, ``sum_d I_dt = sum_l Binomial(S_t(l), alpha_t / (alpha_t + l - 1))``
with ``S_t(l)`` the number of documents with ``n_dt >= l`` (a survival count
of the histogram), one binomial draw per count level instead of one Bernoulli
per token. The same holds for ``beta`` with ``R_t`` and ``J_tv``.

The log joint ``log p(w, z | h)`` and its gradient in ``log h`` (for HMC) are
sums over the histograms' bins.
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ._config import CACHE
from ._random import beta as beta_variate
from ._random import standard_gamma, standard_normal, uniform

CountHistograms = namedtuple("CountHistograms", [
    "doc_ptr", "doc_values", "doc_counts", "word_counts", "word_top", "len_values",
    "len_counts", "scratch",
])
CountHistograms.__doc__ = """Histograms of a chain's counts (see the module docstring);
``scratch`` is a work array of length ``longest document + 1``."""


def empty_histograms(doc_lengths, n_topics, n_words_tokens_max):
    """Histogram arrays for a corpus (filled by :func:`count_histograms`).

    ``doc_lengths`` are the documents' token counts and
    ``n_words_tokens_max`` the largest corpus frequency of a word (the
    largest possible ``m_tv``).
    """
    doc_lengths = np.asarray(doc_lengths, dtype=np.int64)
    nonempty = doc_lengths[doc_lengths > 0]
    len_values, len_counts = np.unique(nonempty, return_counts=True)
    longest = int(nonempty.max()) if nonempty.size else 0
    # Distinct values of topic t: at most min(D, longest) of them, and at
    # most one per token over all topics.
    capacity = max(1, min(n_topics * min(nonempty.size, longest), int(nonempty.sum())))
    return CountHistograms(
        np.zeros(n_topics + 1, dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
        np.zeros(int(n_words_tokens_max) + 1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        len_values.astype(np.float64),
        len_counts.astype(np.float64),
        np.zeros(longest + 1, dtype=np.int64),
    )


# --------------------------------------------------------------------------
# special functions and random variates
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True)
def digamma(x):
    """Digamma function for ``x > 0`` (recurrence then asymptotic series)."""
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    result += (
        math.log(x)
        - 0.5 * inv
        - inv2 * (1.0 / 12.0 - inv2 * (1.0 / 120.0 - inv2 * (1.0 / 252.0 - inv2 * (1.0 / 240.0 - inv2 / 132.0))))
    )
    return result


@njit(cache=CACHE, nogil=True)
def log_gamma_variate(state, shape):
    """``log X`` with ``X ~ Gamma(shape, 1)``, accurate for tiny shapes."""
    if shape < 1.0:
        return math.log(standard_gamma(state, shape + 1.0)) + math.log(uniform(state)) / shape
    return math.log(standard_gamma(state, shape))


@njit(cache=CACHE, nogil=True)
def log_beta_variate(state, a, b):
    """``log Q`` with ``Q ~ Beta(a, b)``, computed in log space (no underflow)."""
    lx = log_gamma_variate(state, a)
    ly = log_gamma_variate(state, b)
    m = max(lx, ly)
    return lx - (m + math.log(math.exp(lx - m) + math.exp(ly - m)))


@njit(cache=CACHE, nogil=True)
def binomial(state, n, p):
    """Exact Binomial(n, p) draw.

    Knuth's beta splitting (the a-th smallest of n uniforms is Beta(a, n + 1 - a))
    reduces ``n`` geometrically; small ``n`` are summed as Bernoulli draws.
    """
    if p >= 1.0:
        return n
    if p <= 0.0 or n <= 0:
        return 0
    x = 0
    while n > 32:
        a = n // 2 + 1
        b = n + 1 - a
        u = beta_variate(state, float(a), float(b))
        if u >= p:
            n = a - 1
            p = p / u
        else:
            x += a
            n = b - 1
            p = (p - u) / (1.0 - u)
        if p >= 1.0:
            return x + n
        if p <= 0.0:
            return x
    for _ in range(n):
        if uniform(state) < p:
            x += 1
    return x


@njit(cache=CACHE, nogil=True)
def gamma_draw(state, shape, rate):
    """Gamma(shape, rate) draw, kept strictly positive."""
    return max(standard_gamma(state, shape) / rate, 1e-300)


# --------------------------------------------------------------------------
# histograms
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True)
def count_histograms(doc_topic, word_topic, words, hist):
    """Fill ``hist`` (a :class:`CountHistograms`) from the count matrices
    in this thread (a threaded fit runs the document side and slices of the
    word side on its threads: ``sklearn_pgtm._priors._count_histograms``).
    ``words``: the rows of ``word_topic`` that can hold counts (the others
    are 0 and add nothing)."""
    count_doc_histograms(doc_topic, hist)
    clear_word_histogram(hist)
    hist.word_top[0] = count_word_histogram(word_topic, words, hist.word_counts)


@njit(cache=CACHE, nogil=True)
def count_doc_histograms(doc_topic, hist):
    """Fill the document side of ``hist`` from ``doc_topic``."""
    n_docs, n_topics = doc_topic.shape
    scratch = hist.scratch
    values = np.empty(max(min(n_docs, scratch.shape[0]), 1), dtype=np.int64)
    pos = 0
    for t in range(n_topics):
        hist.doc_ptr[t] = pos
        n_values = 0
        for d in range(n_docs):
            c = doc_topic[d, t]
            if c > 0:
                if scratch[c] == 0:
                    values[n_values] = c
                    n_values += 1
                scratch[c] += 1
        sorted_values = np.sort(values[:n_values])
        for j in range(n_values):
            c = sorted_values[j]
            hist.doc_values[pos] = c
            hist.doc_counts[pos] = scratch[c]
            scratch[c] = 0
            pos += 1
    hist.doc_ptr[n_topics] = pos


@njit(cache=CACHE, nogil=True)
def clear_word_histogram(hist):
    """Zero the word side of ``hist`` (up to its last largest count)."""
    for c in range(hist.word_top[0] + 1):
        hist.word_counts[c] = 0
    hist.word_top[0] = 0


@njit(cache=CACHE, nogil=True)
def count_word_histogram(word_topic, words, word_counts):
    """Add to ``word_counts[c]`` the cells of the rows ``words`` with count
    ``c > 0``; returns their largest count (0 if none)."""
    top = 0
    for v in words:
        for t in range(word_topic.shape[1]):
            c = word_topic[v, t]
            if c > 0:
                word_counts[c] += 1
                top = max(top, c)
    return top


# --------------------------------------------------------------------------
# data-augmentation step and the Gamma parameters of the Rao-Blackwellized
# density
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True, inline="always")
def _new_table_probability(x, level):
    """``x / (x + level - 1)``, and 1 where the denominator rounds to 0 (level
    1 with ``x`` below about 1e-16: a prior the data do not determine can
    wander there under a vague hyperprior, and the division by zero stopped
    the fit inside the kernel). The grouping ``(x + level) - 1`` is kept:
    ``x + (level - 1)``, exact at level 1, would change the draws of every
    chain with "auto" priors."""
    denominator = x + level - 1.0
    return x / denominator if denominator > 0.0 else 1.0


@njit(cache=CACHE, nogil=True)
def _doc_survival_binomials(state, hist, t, x):
    """sum_l Binomial(#{d: n_dt >= l}, x / (x + l - 1)) over the levels of topic t."""
    lo = hist.doc_ptr[t]
    j = hist.doc_ptr[t + 1] - 1
    if j < lo:
        return 0
    total = 0
    survival = 0
    for level in range(hist.doc_values[j], 0, -1):
        while j >= lo and hist.doc_values[j] >= level:
            survival += hist.doc_counts[j]
            j -= 1
        total += binomial(state, survival, _new_table_probability(x, level))
    return total


@njit(cache=CACHE, nogil=True)
def _word_survival_binomials(state, hist, x):
    """The same sum over the levels of the word-side histogram."""
    total = 0
    survival = 0
    for level in range(hist.word_top[0], 0, -1):
        survival += hist.word_counts[level]
        if survival > 0:
            total += binomial(state, survival, _new_table_probability(x, level))
    return total


@njit(cache=CACHE, nogil=True)
def doc_length_log_q(alpha, hist, state):
    """``sum_d log Q_d`` with ``Q_d ~ Beta(sum alpha, n_d)``, one per
    nonempty document (drawn grouped by length): with :func:`alpha_shapes`
    (the I_dt, from another stream) and :func:`alpha_rate`, the auxiliaries
    of the document side given (z, alpha). The full conditional of
    ``alpha_t`` is then ``Gamma(shape_out[t], rate)`` (one shape when alpha
    is symmetric: K equal values whose common value has that conditional)."""
    alpha_sum = 0.0
    for t in range(alpha.shape[0]):
        alpha_sum += alpha[t]
    sum_log_q = 0.0
    for i in range(hist.len_values.shape[0]):
        for _ in range(int(hist.len_counts[i])):
            sum_log_q += log_beta_variate(state, alpha_sum, hist.len_values[i])
    return sum_log_q


@njit(cache=CACHE, nogil=True)
def alpha_shapes(alpha, symmetric, hist, prior_shape, state, shape_out):
    """Shapes of alpha's Gamma conditionals: ``prior_shape + sum_d I_dt``
    per topic (summed over topics when ``symmetric``, into ``shape_out[0]``)."""
    if symmetric:
        count = 0
        for t in range(alpha.shape[0]):
            count += _doc_survival_binomials(state, hist, t, alpha[t])
        shape_out[0] = prior_shape + count
        return
    for t in range(alpha.shape[0]):
        shape_out[t] = prior_shape + _doc_survival_binomials(state, hist, t, alpha[t])


@njit(cache=CACHE, nogil=True)
def alpha_rate(alpha, symmetric, prior_rate, sum_log_q):
    """Rate of alpha's Gamma conditionals given ``sum_d log Q_d`` (a
    symmetric alpha stands for K equal components)."""
    return prior_rate - (alpha.shape[0] if symmetric else 1) * sum_log_q


@njit(cache=CACHE, nogil=True)
def beta_augmentation(beta, hist, topic_total, n_words, prior_shape, prior_rate, state):
    """Auxiliaries of the word side given (z, beta); returns the (shape, rate)
    of the full conditional ``Gamma(shape, rate)`` of ``beta``."""
    sum_log_r = 0.0
    for t in range(topic_total.shape[0]):
        if topic_total[t] > 0:
            sum_log_r += log_beta_variate(state, n_words * beta, float(topic_total[t]))
    shape = prior_shape + _word_survival_binomials(state, hist, beta)
    return shape, prior_rate - n_words * sum_log_r


# --------------------------------------------------------------------------
# log p(w, z | h) from histograms, gradient in log h, HMC update
# --------------------------------------------------------------------------


# From this x on, log_rising takes the difference of Stirling's series: the
# terms left out are below 1 / (1680 x^7), 6e-18 here, while the direct
# difference loses about eps * lgamma(x) (8e-14 at x = 100, 64 at x = 1e16).
_STIRLING_FROM = 100.0


@njit(cache=CACHE, nogil=True, inline="always")
def _stirling_tail(z):
    """``lgamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2)`` for large z."""
    inv = 1.0 / z
    inv2 = inv * inv
    return inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 / 1260.0))


@njit(cache=CACHE, nogil=True)
def log_rising(x, n, lgamma_x):
    """``lgamma(x + n) - lgamma(x)`` for ``x > 0``, ``n >= 0`` (``lgamma_x``
    is ``lgamma(x)``, computed once by the caller), accurate for large
    ``x``: the direct difference cancels the digits of ``lgamma(x)`` (a
    prior of 1e16 left nothing of a count's term), so from ``x = 100`` on
    the difference of Stirling's series is taken instead, ``(x - 1/2)
    log1p(n / x) + n (log(x + n) - 1)`` plus the difference of its tails."""
    if n == 0:
        return 0.0
    if x < _STIRLING_FROM:
        return math.lgamma(x + n) - lgamma_x
    z = x + n
    return ((x - 0.5) * math.log1p(n / x) + n * (math.log(z) - 1.0)
            + (_stirling_tail(z) - _stirling_tail(x)))


@njit(cache=CACHE, nogil=True)
def log_doc_joint(alpha, hist):
    """log p(z | alpha) from the histograms (exact; accurate for large alpha
    too, :func:`log_rising`)."""
    n_topics = alpha.shape[0]
    alpha_sum = 0.0
    for t in range(n_topics):
        alpha_sum += alpha[t]
    total = 0.0
    lg_sum = math.lgamma(alpha_sum)
    for i in range(hist.len_values.shape[0]):
        total -= hist.len_counts[i] * log_rising(alpha_sum, hist.len_values[i], lg_sum)
    for t in range(n_topics):
        lg_a = math.lgamma(alpha[t])
        for j in range(hist.doc_ptr[t], hist.doc_ptr[t + 1]):
            total += hist.doc_counts[j] * log_rising(alpha[t], hist.doc_values[j], lg_a)
    return total


@njit(cache=CACHE, nogil=True)
def log_doc_topic_joint(doc_topic, alpha):
    """log p(z | alpha) from a dense (D, K) matrix of document-topic counts
    (the same sum as :func:`log_doc_joint`, without histograms)."""
    n_docs, n_topics = doc_topic.shape
    alpha_sum = 0.0
    lg_alpha = np.empty(n_topics)
    for t in range(n_topics):
        alpha_sum += alpha[t]
        lg_alpha[t] = math.lgamma(alpha[t])
    lg_sum = math.lgamma(alpha_sum)
    total = 0.0
    for d in range(n_docs):
        length = 0
        for t in range(n_topics):
            length += doc_topic[d, t]
            total += log_rising(alpha[t], doc_topic[d, t], lg_alpha[t])
        total -= log_rising(alpha_sum, length, lg_sum)
    return total


@njit(cache=CACHE, nogil=True)
def log_word_joint(beta, hist, topic_total, n_words):
    """log p(w | z, beta) (topic-word distributions integrated out; accurate
    for large beta too, :func:`log_rising`)."""
    veta = n_words * beta
    lg_veta = math.lgamma(veta)
    total = 0.0
    for t in range(topic_total.shape[0]):
        total -= log_rising(veta, topic_total[t], lg_veta)
    lg_beta = math.lgamma(beta)
    for c in range(1, hist.word_top[0] + 1):
        k = hist.word_counts[c]
        if k > 0:
            total += k * log_rising(beta, c, lg_beta)
    return total


@njit(cache=CACHE, nogil=True)
def log_word_joint_seeded(beta, word_topic, topic_total):
    """log p(w | z, beta) for a (V, K) prior ``beta`` (seeded topics): the
    Dirichlet-multinomial of each topic, over the nonzero counts only."""
    n_words, n_topics = word_topic.shape
    beta_sum = np.zeros(n_topics)
    for w in range(n_words):
        for k in range(n_topics):
            beta_sum[k] += beta[w, k]
    total = 0.0
    for k in range(n_topics):
        total -= log_rising(beta_sum[k], topic_total[k], math.lgamma(beta_sum[k]))
    for w in range(n_words):
        for k in range(n_topics):
            c = word_topic[w, k]
            if c > 0:
                total += log_rising(beta[w, k], c, math.lgamma(beta[w, k]))
    return total


@njit(cache=CACHE, nogil=True)
def log_posterior_grad(u, symmetric, hist, topic_total, n_words, prior_shape, prior_rate, grad):
    """log density of ``u = log h`` given z (joint + Gamma prior + Jacobian) and its gradient.

    ``u`` has 2 entries (symmetric: log alpha, log beta) or K + 1 entries
    (log alpha_1..K, log beta). ``grad`` is filled in place.
    """
    n_topics = topic_total.shape[0]
    p = u.shape[0]
    alpha = np.empty(n_topics)
    for t in range(n_topics):
        alpha[t] = math.exp(u[0]) if symmetric else math.exp(u[t])
    beta = math.exp(u[p - 1])
    value = log_doc_joint(alpha, hist) + log_word_joint(beta, hist, topic_total, n_words)
    alpha_sum = 0.0
    for t in range(n_topics):
        alpha_sum += alpha[t]
    psi_sum = digamma(alpha_sum)
    common = 0.0
    for i in range(hist.len_values.shape[0]):
        common += hist.len_counts[i] * (psi_sum - digamma(hist.len_values[i] + alpha_sum))
    for j in range(p):
        grad[j] = 0.0
    for t in range(n_topics):
        psi_a = digamma(alpha[t])
        g = common
        for j in range(hist.doc_ptr[t], hist.doc_ptr[t + 1]):
            g += hist.doc_counts[j] * (digamma(hist.doc_values[j] + alpha[t]) - psi_a)
        if symmetric:
            grad[0] += g * alpha[t]
        else:
            grad[t] = g * alpha[t]
    veta = n_words * beta
    psi_veta = digamma(veta)
    g = 0.0
    for t in range(n_topics):
        g += n_words * (psi_veta - digamma(topic_total[t] + veta))
    psi_beta = digamma(beta)
    for c in range(1, hist.word_top[0] + 1):
        k = hist.word_counts[c]
        if k > 0:
            g += k * (digamma(c + beta) - psi_beta)
    grad[p - 1] = g * beta
    # Gamma(a, b) prior on h plus the log-Jacobian u: a u - b exp(u).
    for j in range(p):
        h = math.exp(u[j])
        value += prior_shape * u[j] - prior_rate * h
        grad[j] += prior_shape - prior_rate * h
    return value


@njit(cache=CACHE, nogil=True)
def hmc_update(u, inv_mass, step_size, n_steps, symmetric, hist, topic_total, n_words,
               prior_shape, prior_rate, state):
    """One HMC transition of ``u = log h`` (leapfrog, diagonal mass); ``u`` updated in place.

    Returns the acceptance probability of the proposal.
    """
    p = u.shape[0]
    grad = np.empty(p)
    momentum = np.empty(p)
    for j in range(p):
        momentum[j] = standard_normal(state) / math.sqrt(inv_mass[j])
    current = log_posterior_grad(u, symmetric, hist, topic_total, n_words, prior_shape,
                                 prior_rate, grad)
    kinetic0 = 0.0
    for j in range(p):
        kinetic0 += 0.5 * momentum[j] * momentum[j] * inv_mass[j]
    proposal = u.copy()
    for j in range(p):
        momentum[j] += 0.5 * step_size * grad[j]
    value = current
    for step in range(n_steps):
        for j in range(p):
            proposal[j] += step_size * inv_mass[j] * momentum[j]
            if proposal[j] > 700.0 or proposal[j] < -700.0:
                return 0.0
        value = log_posterior_grad(proposal, symmetric, hist, topic_total, n_words,
                                   prior_shape, prior_rate, grad)
        scale = 1.0 if step < n_steps - 1 else 0.5
        for j in range(p):
            momentum[j] += scale * step_size * grad[j]
    kinetic1 = 0.0
    for j in range(p):
        kinetic1 += 0.5 * momentum[j] * momentum[j] * inv_mass[j]
    log_ratio = value - kinetic1 - current + kinetic0
    if not math.isfinite(log_ratio):
        return 0.0
    accept = 1.0 if log_ratio >= 0.0 else math.exp(log_ratio)
    if uniform(state) < accept:
        for j in range(p):
            u[j] = proposal[j]
    return accept


# --------------------------------------------------------------------------
# label switching: greedy matching of topics to a reference
# --------------------------------------------------------------------------


@njit(cache=CACHE, nogil=True)
def align_topics(word_topic, topic_total, reference, perm):
    """Greedy matching of current topics to the reference topic-word distributions.

    ``reference`` is (V, K) column-normalized. ``perm[k]`` receives the
    reference label of current topic ``k``: pairs are matched by increasing
    L1 distance between normalized columns.
    """
    n_words, n_topics = word_topic.shape
    cost = np.zeros((n_topics, n_topics))
    inv = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / topic_total[k] if topic_total[k] > 0 else 0.0
    for v in range(n_words):
        for k in range(n_topics):
            x = word_topic[v, k] * inv[k]
            for j in range(n_topics):
                cost[k, j] += abs(x - reference[v, j])
    used_row = np.zeros(n_topics, dtype=np.bool_)
    used_col = np.zeros(n_topics, dtype=np.bool_)
    for _ in range(n_topics):
        best = math.inf
        bk = 0
        bj = 0
        for k in range(n_topics):
            if used_row[k]:
                continue
            for j in range(n_topics):
                if not used_col[j] and cost[k, j] < best:
                    best = cost[k, j]
                    bk = k
                    bj = j
        used_row[bk] = True
        used_col[bj] = True
        perm[bk] = bj
