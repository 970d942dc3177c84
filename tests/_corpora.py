"""Corpora drawn from the models themselves (known truth), shared by the tests."""

import numpy as np


def lda_corpus(n_docs, n_words, n_topics, doc_length, alpha, beta, seed):
    """Documents drawn from LDA with priors ``alpha`` (scalar or per topic) and
    ``beta``; returns the counts (D, V) and the true topics (K, V)."""
    rng = np.random.RandomState(seed)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    phi = rng.dirichlet(np.full(n_words, beta), size=n_topics)
    theta = rng.dirichlet(alpha, size=n_docs)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    for d in range(n_docs):
        z = rng.multinomial(doc_length, theta[d])
        for t in np.flatnonzero(z):
            X[d] += rng.multinomial(z[t], phi[t])
    return X, phi

