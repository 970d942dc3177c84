"""Seeded topics: an (n_components, n_features) topic_word_prior steers topic
t towards its seed words (corpus drawn from LDA with known topics)."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from sklearn_pgtm import GibbsLDA
from sklearn_pgtm._chain import TopicChain
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._sweeps import ALL_WORDS, TokenTopics, sample_lda
from sklearn_pgtm.priors import seeded_topic_word_prior

from _corpora import lda_corpus


def test_seeded_prior_builder():
    vocab = np.array(["a", "b", "c", "d"])
    prior = seeded_topic_word_prior({0: ["a"], 2: ["b", "a"]}, vocab, 3, prior=0.1,
                                    seed_prior=2.0, other_prior=0.001)
    np.testing.assert_allclose(prior[:, 0], [2.0, 0.001, 2.0])
    np.testing.assert_allclose(prior[:, 1], [0.001, 0.001, 2.0])
    np.testing.assert_allclose(prior[:, 2:], 0.1)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        seeded_topic_word_prior({0: ["z"]}, vocab, 3)
    with pytest.raises(ValueError, match="topic 5"):
        seeded_topic_word_prior({5: ["a"]}, vocab, 3)
    with pytest.raises(ValueError, match="seed_prior"):
        seeded_topic_word_prior({0: ["a"]}, vocab, 3, seed_prior=0.0)


def test_sweep_with_an_array_prior_samples_the_exact_conditional():
    # One token resampled many times vs the conditional written in NumPy:
    # (C_dk + alpha_k)(C_kw + beta_wk) / (C_k + sum_w beta_wk).
    rng = np.random.default_rng(0)
    K, V = 4, 6
    doc_ptr = np.array([0, 7, 12], dtype=np.int64)
    word_ids = rng.integers(0, V, 12).astype(np.int32)
    chain = TopicChain.random(doc_ptr, word_ids, K, V, 1)
    alpha = np.full(K, 0.3)
    beta = rng.uniform(0.01, 2.0, size=(V, K))
    t = chain.tokens
    i, d = 3, 0
    w, old = word_ids[i], t.topics[i]
    dt = t.doc_topic[d].astype(float)
    wt = chain.word_topic[w].astype(float)
    tt = chain.topic_total.astype(float)
    dt[old] -= 1
    wt[old] -= 1
    tt[old] -= 1
    p = (dt + alpha) * (wt + beta[w]) / (tt + beta.sum(axis=0))
    p /= p.sum()
    one = TokenTopics(np.array([i, i + 1], dtype=np.int64), word_ids, t.topics,
                      t.doc_topic[d:d + 1])
    states = make_streams(5, 1)
    counts = np.zeros(K)
    for _ in range(20000):
        sample_lda(one, chain.word_topic, chain.topic_total, alpha, beta, states,
                   (0, 1, 0, ALL_WORDS))
        counts[t.topics[i]] += 1
    assert chisquare(counts, p * counts.sum()).pvalue > 1e-4


def test_seeded_topics_attract_their_words_where_plain_lda_does_not():
    X, phi = lda_corpus(400, 120, 4, 60, 0.3, 0.05, seed=4)
    vocabulary = np.array([f"w{j}" for j in range(120)])
    # Seed each of topics 0..3 with the 3 most probable words of a true topic,
    # in a shuffled order of the true topics.
    order = [2, 0, 3, 1]
    seeds = {t: list(vocabulary[np.argsort(-phi[k])[:3]]) for t, k in enumerate(order)}
    prior = seeded_topic_word_prior(seeds, vocabulary, 4)
    seeded = GibbsLDA(4, topic_word_prior=prior, random_state=0).fit(X)
    plain = GibbsLDA(4, topic_word_prior=0.01, random_state=0).fit(X)

    def ranks_seeds(model):
        top = np.argsort(-model.components_, axis=1)[:, :10]
        return [set(seeds[t]) <= set(vocabulary[top[t]]) for t in range(4)]

    assert all(ranks_seeds(seeded))
    assert not all(ranks_seeds(plain))
    # Topic t of the seeded model is the true topic of its seeds.
    est = seeded.components_ / seeded.components_.sum(axis=1, keepdims=True)
    for t, k in enumerate(order):
        assert np.abs(est[t] - phi[k]).sum() < 0.5
    np.testing.assert_array_equal(seeded.topic_word_prior_, prior)


def test_array_prior_errors():
    X = np.ones((5, 4))
    with pytest.raises(ValueError, match="shape"):
        GibbsLDA(2, topic_word_prior=np.ones((3, 4))).fit(X)
    with pytest.raises(ValueError, match="positive"):
        GibbsLDA(2, topic_word_prior=np.zeros((2, 4))).fit(X)


@pytest.mark.parametrize("prior, match", [
    # Ragged rows raised numpy's "inhomogeneous shape" alone (from np.ndim);
    # strings of numbers were parsed, and True was read as 1.0.
    ([[0.1, 0.2, 0.1, 0.1], [0.1]], "its rows differ in length .*inhomogeneous"),
    (np.full((2, 4), "0.5"), r"got array\(\[\['0.5'"),
    (np.ones((2, 4), dtype=bool), r"got array\(\[\[ True"),
])
def test_array_prior_must_be_numbers(prior, match):
    X = np.ones((5, 4))
    with pytest.raises(ValueError, match="GibbsLDA: topic_word_prior must be a number or an "
                                         f"array-like of numbers; {match}"):
        GibbsLDA(2, max_iter=2, burn_in=1, topic_word_prior=prior).fit(X)
    # Integers and real-number objects are numbers.
    for numbers in (np.ones((2, 4), dtype=int), [[Fraction(1, 2)] * 4] * 2):
        fitted = GibbsLDA(2, max_iter=2, burn_in=1, topic_word_prior=numbers).fit(X)
        np.testing.assert_array_equal(fitted.topic_word_prior_, np.asarray(numbers, float))


@pytest.mark.parametrize("prior", [np.array(-0.1), np.array(0.0), np.array(np.nan),
                                   np.array(1e-300)])
def test_a_0d_array_prior_is_held_to_the_float_range(prior):
    # A 0-d array passed the "array-like" constraint and skipped the float's
    # range: np.array(-0.1) ran the chain with a negative prior (components_
    # with negative entries), np.array(0.0) ended in a ChainDivergenceError.
    X = np.ones((5, 4))
    with pytest.raises(ValueError, match=r"topic_word_prior as a number must be at least "
                                         r"1e-10 and finite; got array\("):
        GibbsLDA(2, max_iter=2, burn_in=1, topic_word_prior=prior).fit(X)
    fitted = GibbsLDA(2, max_iter=2, burn_in=1, topic_word_prior=np.array(0.5)).fit(X)
    assert fitted.topic_word_prior_ == 0.5 and fitted.components_.min() >= 0.5


def test_warm_start_sees_a_prior_array_changed_in_place():
    # The warm start kept the user's array itself as the setting of its
    # chain: changed in place, it still equalled itself, and the next fit
    # continued the chain with the old prior while the parameter showed the
    # new one.
    X = np.random.RandomState(0).poisson(1.0, size=(20, 6))
    prior = np.full((2, 6), 0.1)
    warm = GibbsLDA(2, doc_topic_prior=0.1, topic_word_prior=prior, max_iter=3, burn_in=1,
                    warm_start=True, random_state=0).fit(X)
    prior[:] = 7.0
    with pytest.raises(ValueError, match=r"other parameters \(topic_word_prior=array"):
        warm.fit(X)
    assert warm.n_iter_ == 3
    # An equal array or list (a new object) is the same setting.
    for same in (np.full((2, 6), 0.1), np.full((2, 6), 0.1).tolist()):
        warm.set_params(topic_word_prior=same).fit(X)
    assert warm.n_iter_ == 9


@pytest.mark.parametrize("words", [None, 5])
def test_seed_words_of_a_topic_must_be_words(words):
    # {0: None} raised Python's TypeError "'NoneType' object is not iterable",
    # naming neither seed_words nor the topic.
    with pytest.raises(ValueError, match=r"seed_words: the seed words of topic 0 must be a "
                                         rf"list of words; got {words!r}\."):
        seeded_topic_word_prior({0: words}, ["a", "b"], 2)


def test_seed_words_given_as_one_string_are_one_word():
    # seeded_topic_word_prior takes a topic's seed words as a list, or one
    # word as a string; without the string case "ab" seeded "a" and "b"
    # (passed every test; mutation testing).
    vocabulary = ["a", "b", "ab", "c"]
    one = seeded_topic_word_prior({0: "ab"}, vocabulary, 2)
    np.testing.assert_array_equal(one, seeded_topic_word_prior({0: ["ab"]}, vocabulary, 2))
    np.testing.assert_array_equal(one[:, 2], [1.0, 0.0001])
    np.testing.assert_array_equal(one[:, [0, 1, 3]], 0.01)
