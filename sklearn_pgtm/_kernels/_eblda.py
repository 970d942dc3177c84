"""Hyperparameter updates of the fully-Bayes empirical Bayes LDA chain.

Xia & Doss (2020). The chain alternates a collapsed Gibbs sweep on the topics
``z`` (the shared :func:`~sklearn_pgtm._kernels._sweeps.sample_topics`) and
an update of ``h = (alpha, eta)`` given ``z``. Nothing here passes over
tokens: every quantity needs only histograms of the counts,

- ``alpha_hist[t, c]``: number of documents with ``n_dt = c`` (topic ``t``);
- ``len_hist[c]``: number of documents with ``n_d = c`` (fixed over the chain);
- ``eta_hist[c]``: number of (topic, word) cells with ``m_tv = c``;
- ``topic_total[t] = m_t``,

built in one pass over the (D, K) and (V, K) count matrices.

The augmentation step draws ``Q_d ~ Beta(sum alpha, n_d)`` and
``I_dt = sum_{l=1}^{n_dt} Bernoulli(alpha_t / (alpha_t + l - 1))``. Summed
over documents, ``sum_d I_dt = sum_l Binomial(S_t(l), alpha_t / (alpha_t + l - 1))``
with ``S_t(l)`` the number of documents with ``n_dt >= l`` (a survival
count of the histogram), so one binomial draw per distinct count level
replaces one Bernoulli per token. Same for ``eta`` with ``R_t`` and ``J_tv``.

The log joint ``log p(w, z | h)`` and its gradient with respect to ``log h``
(for the HMC update) are sums over the histogram bins.

Random numbers come from xoshiro streams (rows of a ``make_streams`` array)
given by the caller: one row per chunk of the update.
"""

import math

import numpy as np
from numba import njit

from ._random import beta, standard_gamma, standard_normal, uniform

# --------------------------------------------------------------------------
# special functions and random variates
# --------------------------------------------------------------------------


@njit(cache=True)
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


@njit(cache=True)
def log_gamma_variate(state, shape):
    """``log X`` with ``X ~ Gamma(shape, 1)``, accurate for tiny shapes."""
    if shape < 1.0:
        return math.log(standard_gamma(state, shape + 1.0)) + math.log(uniform(state)) / shape
    return math.log(standard_gamma(state, shape))


@njit(cache=True)
def log_beta_variate(state, a, b):
    """``log Q`` with ``Q ~ Beta(a, b)``, computed in log space (no underflow)."""
    lx = log_gamma_variate(state, a)
    ly = log_gamma_variate(state, b)
    m = max(lx, ly)
    return lx - (m + math.log(math.exp(lx - m) + math.exp(ly - m)))


@njit(cache=True)
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
        u = beta(state, float(a), float(b))
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


# --------------------------------------------------------------------------
# histograms
# --------------------------------------------------------------------------


@njit(cache=True)
def count_histograms(doc_topic, word_topic, alpha_hist, eta_hist, alpha_max, eta_max):
    """Fill ``alpha_hist`` (K, C) and ``eta_hist`` (M,) from the count matrices.

    ``alpha_max[t]`` receives the largest ``n_dt`` and ``eta_max[0]`` the
    largest ``m_tv`` (the loops over bins stop there). Zero counts are not
    recorded (they contribute nothing).
    """
    n_docs, n_topics = doc_topic.shape
    for t in range(n_topics):
        for c in range(alpha_max[t] + 1):
            alpha_hist[t, c] = 0
        alpha_max[t] = 0
    for c in range(eta_max[0] + 1):
        eta_hist[c] = 0
    eta_max[0] = 0
    for d in range(n_docs):
        for t in range(n_topics):
            c = doc_topic[d, t]
            if c > 0:
                alpha_hist[t, c] += 1
                if c > alpha_max[t]:
                    alpha_max[t] = c
    n_words = word_topic.shape[0]
    top = 0
    for v in range(n_words):
        for t in range(n_topics):
            c = word_topic[v, t]
            if c > 0:
                eta_hist[c] += 1
                if c > top:
                    top = c
    eta_max[0] = top


# --------------------------------------------------------------------------
# data-augmentation step (update A) and the Gamma parameters for the
# Rao-Blackwellized density
# --------------------------------------------------------------------------


@njit(cache=True)
def _survival_binomials(state, hist, top, x):
    """sum_{l=1}^{top} Binomial(#{c >= l}, x / (x + l - 1)) for one histogram row."""
    total = 0
    survival = 0
    for level in range(top, 0, -1):
        survival += hist[level]
        if survival > 0:
            total += binomial(state, survival, x / (x + level - 1.0))
    return total


@njit(cache=True)
def augmentation_parameters(
    alpha,
    eta,
    symmetric,
    alpha_hist,
    alpha_max,
    doc_lengths,
    eta_hist,
    eta_max,
    topic_total,
    n_words,
    prior_shape,
    prior_rate,
    states,
    alpha_shape,
):
    """Draw the auxiliaries given (z, h) and return the Gamma parameters of h.

    ``alpha`` holds the K current values (all equal when ``symmetric``).
    Fills ``alpha_shape`` (K values, or 1 when ``symmetric``) and returns
    ``(alpha_rate, eta_shape, eta_rate)``: the full conditionals are
    ``alpha_t ~ Gamma(alpha_shape[t], alpha_rate)`` and
    ``eta ~ Gamma(eta_shape, eta_rate)`` (shape / rate).
    ``states`` has three rows: Q_d, I_dt, and R_t / J_tv draws.
    """
    n_topics = alpha.shape[0]
    alpha_sum = 0.0
    for t in range(n_topics):
        alpha_sum += alpha[t]
    # Q_d ~ Beta(sum alpha, n_d): sum_d log Q_d.
    sum_log_q = 0.0
    for d in range(doc_lengths.shape[0]):
        n_d = doc_lengths[d]
        if n_d > 0:
            sum_log_q += log_beta_variate(states[0], alpha_sum, float(n_d))
    if symmetric:
        count = 0
        for t in range(n_topics):
            count += _survival_binomials(states[1], alpha_hist[t], alpha_max[t], alpha[0])
        alpha_shape[0] = prior_shape + count
        alpha_rate = prior_rate - n_topics * sum_log_q
    else:
        for t in range(n_topics):
            alpha_shape[t] = prior_shape + _survival_binomials(
                states[1], alpha_hist[t], alpha_max[t], alpha[t]
            )
        alpha_rate = prior_rate - sum_log_q
    # R_t ~ Beta(V eta, m_t), J_tv pooled over topics and words.
    sum_log_r = 0.0
    for t in range(n_topics):
        if topic_total[t] > 0:
            sum_log_r += log_beta_variate(states[2], n_words * eta, float(topic_total[t]))
    count_eta = _survival_binomials(states[2], eta_hist, eta_max[0], eta)
    eta_shape = prior_shape + count_eta
    eta_rate = prior_rate - n_words * sum_log_r
    return alpha_rate, eta_shape, eta_rate


@njit(cache=True)
def gamma_draw(state, shape, rate):
    """Gamma(shape, rate) draw, kept strictly positive."""
    return max(standard_gamma(state, shape) / rate, 1e-300)


# --------------------------------------------------------------------------
# log p(w, z | h) from histograms, gradient in log h, HMC update (update B)
# --------------------------------------------------------------------------


@njit(cache=True)
def log_joint(alpha, eta, alpha_hist, alpha_max, len_values, len_counts, eta_hist, eta_max,
              topic_total, n_words):
    """log p(z | alpha) + log p(w | z, eta) from the histograms (exact)."""
    n_topics = alpha.shape[0]
    alpha_sum = 0.0
    for t in range(n_topics):
        alpha_sum += alpha[t]
    total = 0.0
    lg_sum = math.lgamma(alpha_sum)
    for i in range(len_values.shape[0]):
        total += len_counts[i] * (lg_sum - math.lgamma(len_values[i] + alpha_sum))
    for t in range(n_topics):
        lg_a = math.lgamma(alpha[t])
        for c in range(1, alpha_max[t] + 1):
            k = alpha_hist[t, c]
            if k > 0:
                total += k * (math.lgamma(c + alpha[t]) - lg_a)
    veta = n_words * eta
    lg_veta = math.lgamma(veta)
    for t in range(n_topics):
        total += lg_veta - math.lgamma(topic_total[t] + veta)
    lg_eta = math.lgamma(eta)
    for c in range(1, eta_max[0] + 1):
        k = eta_hist[c]
        if k > 0:
            total += k * (math.lgamma(c + eta) - lg_eta)
    return total


@njit(cache=True)
def log_posterior_grad(u, symmetric, alpha_hist, alpha_max, len_values, len_counts, eta_hist,
                       eta_max, topic_total, n_words, prior_shape, prior_rate, grad):
    """log density of ``u = log h`` given z (joint + Gamma prior + Jacobian) and its gradient.

    ``u`` has 2 entries (symmetric: log alpha, log eta) or K + 1 entries
    (log alpha_1..K, log eta). ``grad`` is filled in place.
    """
    n_topics = alpha_hist.shape[0]
    p = u.shape[0]
    alpha = np.empty(n_topics)
    for t in range(n_topics):
        alpha[t] = math.exp(u[0]) if symmetric else math.exp(u[t])
    eta = math.exp(u[p - 1])
    value = log_joint(alpha, eta, alpha_hist, alpha_max, len_values, len_counts, eta_hist,
                      eta_max, topic_total, n_words)
    # d/d alpha_t
    alpha_sum = 0.0
    for t in range(n_topics):
        alpha_sum += alpha[t]
    psi_sum = digamma(alpha_sum)
    common = 0.0
    for i in range(len_values.shape[0]):
        common += len_counts[i] * (psi_sum - digamma(len_values[i] + alpha_sum))
    for j in range(p):
        grad[j] = 0.0
    for t in range(n_topics):
        psi_a = digamma(alpha[t])
        g = common
        for c in range(1, alpha_max[t] + 1):
            k = alpha_hist[t, c]
            if k > 0:
                g += k * (digamma(c + alpha[t]) - psi_a)
        if symmetric:
            grad[0] += g * alpha[t]
        else:
            grad[t] = g * alpha[t]
    veta = n_words * eta
    psi_veta = digamma(veta)
    g = 0.0
    for t in range(n_topics):
        g += n_words * (psi_veta - digamma(topic_total[t] + veta))
    psi_eta = digamma(eta)
    for c in range(1, eta_max[0] + 1):
        k = eta_hist[c]
        if k > 0:
            g += k * (digamma(c + eta) - psi_eta)
    grad[p - 1] = g * eta
    # Gamma(a, b) prior on h plus the log-Jacobian u: a u - b exp(u).
    for j in range(p):
        h = math.exp(u[j])
        value += prior_shape * u[j] - prior_rate * h
        grad[j] += prior_shape - prior_rate * h
    return value


@njit(cache=True)
def hmc_update(u, inv_mass, step_size, n_steps, symmetric, alpha_hist, alpha_max, len_values,
               len_counts, eta_hist, eta_max, topic_total, n_words, prior_shape, prior_rate,
               state):
    """One HMC transition of ``u = log h`` (leapfrog, diagonal mass); ``u`` updated in place.

    Returns the acceptance probability of the proposal.
    """
    p = u.shape[0]
    grad = np.empty(p)
    momentum = np.empty(p)
    for j in range(p):
        momentum[j] = standard_normal(state) / math.sqrt(inv_mass[j])
    current = log_posterior_grad(u, symmetric, alpha_hist, alpha_max, len_values, len_counts,
                                 eta_hist, eta_max, topic_total, n_words, prior_shape,
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
        value = log_posterior_grad(proposal, symmetric, alpha_hist, alpha_max, len_values,
                                   len_counts, eta_hist, eta_max, topic_total, n_words,
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


@njit(cache=True)
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
