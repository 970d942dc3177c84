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


def chain_at(word_ids, topics, doc_ptr, n_topics, n_words, seed):
    """A :class:`~sklearn_pgtm._chain.TopicChain` whose tokens (``word_ids``,
    used as they are; documents cut by ``doc_ptr``) sit at the given
    ``topics``, with counts to match and per-document streams from ``seed``
    (the Geweke tests start the estimators' sweeps from a draw of the
    joint)."""
    from sklearn_pgtm._chain import TopicChain
    from sklearn_pgtm._kernels._random import make_streams
    from sklearn_pgtm._kernels._sweeps import TokenTopics

    n_docs = doc_ptr.shape[0] - 1
    doc_of_token = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
    np.add.at(doc_topic, (doc_of_token, topics), 1)
    word_topic = np.zeros((n_words, n_topics), np.int32)
    np.add.at(word_topic, (word_ids, topics), 1)
    return TopicChain(
        TokenTopics(doc_ptr, word_ids, topics.copy(), doc_topic),
        word_topic, np.bincount(topics, minlength=n_topics).astype(np.int32),
        make_streams(seed, n_docs))
