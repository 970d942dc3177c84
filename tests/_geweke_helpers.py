"""What the Geweke tests share: batch-means standard errors, the z-scores of
two simulators' means, words drawn given topics with the topics' word
distributions integrated out, and a topic chain started at given topics."""

import numpy as np


def batch_means_se(x, n_batches=50):
    """Standard error of the mean of a (possibly autocorrelated) chain along
    its first axis, by batch means (a remainder of draws is left out)."""
    x = np.asarray(x, dtype=float)
    n = (x.shape[0] // n_batches) * n_batches
    means = x[:n].reshape(n_batches, -1, *x.shape[1:]).mean(axis=1)
    return means.std(axis=0, ddof=1) / np.sqrt(n_batches)


def geweke_z(marginal, successive, n_batches=50):
    """z-scores of the difference of the test functions' means: independent
    draws of the marginal-conditional simulator against the chain of the
    successive-conditional one (batch means)."""
    se = np.sqrt(marginal.var(axis=0) / marginal.shape[0]
                 + batch_means_se(successive, n_batches) ** 2)
    return (successive.mean(axis=0) - marginal.mean(axis=0)) / se


def draw_words(rng, topics, n_topics, n_words, beta):
    """Words (n, N) of n draws of the tokens' topics (n, N): each draw with
    its own topics phi ~ Dir(beta), which integrates them out of p(w | z)."""
    phi = rng.dirichlet(np.full(n_words, beta), size=(topics.shape[0], n_topics))
    cum = np.cumsum(phi[np.arange(topics.shape[0])[:, None], topics], axis=2)
    u = rng.random(topics.shape)[..., None]
    return np.minimum((u > cum).sum(axis=2), n_words - 1).astype(np.int32)


def redraw_words(chain, rng, n_topics, n_words, beta):
    """The Gibbs step of the words given the topics: new words for ``chain``'s
    tokens (:func:`draw_words`), its word-topic counts recounted. Returns them."""
    tokens = chain.tokens
    tokens.word_ids[:] = words = draw_words(rng, tokens.topics[None], n_topics, n_words,
                                            beta)[0]
    chain.word_topic[:] = 0
    np.add.at(chain.word_topic, (words, tokens.topics), 1)
    return words


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
