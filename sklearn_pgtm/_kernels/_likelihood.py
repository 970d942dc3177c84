"""Log-likelihoods of the collapsed models and predictive scores."""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def log_dirichlet_multinomial_rows(counts, prior):
    """sum_r [lnG(sum prior) - lnG(n_r + sum prior) + sum_c lnG(counts_rc + prior_c) - lnG(prior_c)].

    ``counts`` is (R, C) and ``prior`` (C,): the log marginal likelihood of the
    rows of ``counts`` under independent Dirichlet(prior)-multinomials. Zero
    counts contribute nothing and are skipped.
    """
    n_rows, n_cols = counts.shape
    prior_sum = 0.0
    lg_prior = np.empty(n_cols)
    for c in range(n_cols):
        prior_sum += prior[c]
        lg_prior[c] = math.lgamma(prior[c])
    lg_prior_sum = math.lgamma(prior_sum)
    total = 0.0
    for r in range(n_rows):
        n_r = 0
        for c in range(n_cols):
            x = counts[r, c]
            if x > 0:
                n_r += x
                total += math.lgamma(x + prior[c]) - lg_prior[c]
        total += lg_prior_sum - math.lgamma(n_r + prior_sum)
    return total


@njit(cache=True)
def log_topic_word_likelihood(word_topic, topic_total, beta):
    """log p(w | z, beta) with the topic-word distributions integrated out.

    ``word_topic`` is (V, K): the Dirichlet-multinomial of each topic's column.
    """
    n_words, n_topics = word_topic.shape
    lg_beta = math.lgamma(beta)
    beta_sum = beta * n_words
    total = n_topics * math.lgamma(beta_sum)
    for k in range(n_topics):
        total -= math.lgamma(topic_total[k] + beta_sum)
    for w in range(n_words):
        for k in range(n_topics):
            x = word_topic[w, k]
            if x > 0:
                total += math.lgamma(x + beta) - lg_beta
    return total


@njit(cache=True)
def log_predictive(doc_ptr, word_ids, theta, phi):
    """sum over tokens of log(theta_d . phi[w]) with ``phi`` (V, K)."""
    total = 0.0
    n_topics = theta.shape[1]
    for d in range(doc_ptr.shape[0] - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            w = word_ids[i]
            p = 0.0
            for k in range(n_topics):
                p += theta[d, k] * phi[w, k]
            total += math.log(max(p, 1e-300))
    return total
