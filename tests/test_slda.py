"""GibbsSLDAClassifier: the eta conditionals against NumPy references (binary,
and one class of the multinomial model against a least-squares formulation),
the multinomial topic conditional against a NumPy reference by a chi-square
test (the binary one is tested with every sweep in test_sweeps.py; here also
in the regime where its factorized weights underflow), the vectorized log,
Geweke tests of the binary and the multinomial sweeps, recovery from data
drawn from the binary and the multinomial models, multi-class, threads,
input errors, scikit-learn checks."""

import functools
import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.optimize import minimize
from scipy.special import gammaln, log_expit, logsumexp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import _geweke_helpers as helpers
from _geweke_helpers import batch_means_se, chain_at, geweke_z, redraw_words
from sklearn_pgtm import GibbsSLDAClassifier, _slda
from sklearn_pgtm._base import to_tokens
from sklearn_pgtm._chain import TopicChain
from sklearn_pgtm._parallel import balanced_cuts
from sklearn_pgtm._kernels._intrinsics import log_positive
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._polyagamma import PG_METHODS, pg_draw
from sklearn_pgtm._kernels._slda import (
    draw_augmentation,
    draw_class_augmentation,
    draw_eta,
    eta_conditional,
    response_terms,
)
from sklearn_pgtm._kernels._sweeps import (
    ALL_WORDS,
    BinaryResponse,
    SoftmaxResponse,
    TokenTopics,
    sample_softmax,
    sample_supervised,
)
from sklearn_pgtm.polyagamma import pg_mean, pg_var


def make_supervised_corpus(n_docs=200, n_words=40, n_topics=4, doc_length=60, seed=0):
    """LDA corpus whose label is 1 when topics 0/1 outweigh topics 2/3."""
    rng = np.random.RandomState(seed)
    phi = np.zeros((n_topics, n_words))
    block = n_words // n_topics
    for k in range(n_topics):
        phi[k, k * block:(k + 1) * block] = 1.0
    phi = (phi + 0.01) / (phi + 0.01).sum(axis=1, keepdims=True)
    theta = rng.dirichlet(np.full(n_topics, 0.5), size=n_docs)
    X = np.vstack([rng.multinomial(doc_length, t @ phi) for t in theta])
    y = (theta[:, :2].sum(axis=1) > 0.5).astype(int)
    return X, y


# ---------------------------------------------------------------- conditionals
def test_eta_conditional_matches_numpy_reference():
    rng = np.random.RandomState(0)
    zbar = rng.dirichlet(np.ones(5), size=30)
    lam = rng.gamma(2.0, 0.3, size=30)
    kappa = rng.choice([-2.0, 2.0], size=30)
    nu2 = 0.7
    cov = np.linalg.inv(np.eye(5) / nu2 + (zbar.T * lam) @ zbar)
    mean_ref = cov @ (zbar.T @ kappa)
    mean, chol = eta_conditional(zbar, lam, kappa, nu2)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-10)
    np.testing.assert_allclose(np.linalg.inv(chol @ chol.T), cov, rtol=1e-10)
    # Draws have that mean and covariance.
    gen = np.random.default_rng(1)
    draws = np.array([draw_eta(zbar, lam, kappa, nu2, gen) for _ in range(20000)])
    se = np.sqrt(np.diag(cov) / len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - mean_ref) < 4 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.05 * np.abs(cov).max())


def test_class_eta_conditional_matches_least_squares():
    # One class j of the multinomial model: its likelihood in eta_j is
    # exp(kappa_d psi_d - lambda_d psi_d^2 / 2), psi_d = eta_j . zbar_d - C_dj,
    # i.e. Gaussian pseudo-observations t_d = C_dj + kappa_d / lambda_d of
    # variance 1 / lambda_d: a weighted ridge regression, solved here by
    # least squares on the stacked system (no normal equations).
    rng = np.random.RandomState(4)
    n_docs, n_topics, nu2 = 40, 6, 2.0
    zbar = rng.dirichlet(np.ones(n_topics), size=n_docs)
    lam = rng.gamma(2.0, 0.4, size=n_docs)
    kappa = rng.choice([-3.0, 3.0], size=n_docs)
    offset = rng.normal(0.0, 2.0, size=n_docs)
    t = offset + kappa / lam
    design = np.vstack([zbar * np.sqrt(lam)[:, None], np.eye(n_topics) / np.sqrt(nu2)])
    target = np.concatenate([t * np.sqrt(lam), np.zeros(n_topics)])
    mean_ref = np.linalg.lstsq(design, target, rcond=None)[0]
    cov_ref = np.linalg.inv(design.T @ design)
    mean, chol = eta_conditional(zbar, lam, kappa, nu2, offset)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.linalg.inv(chol @ chol.T), cov_ref, rtol=1e-9)
    gen = np.random.default_rng(5)
    draws = np.array([draw_eta(zbar, lam, kappa, nu2, gen, offset) for _ in range(20000)])
    se = np.sqrt(np.diag(cov_ref) / len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - mean_ref) < 4 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov_ref, atol=0.05 * np.abs(cov_ref).max())


def test_class_offsets_match_scipy():
    # C_dj = log sum_{l != j} exp(omega_dl), also when one class dominates
    # by hundreds of nats (no cancellation) or the scores are huge (empty
    # documents: the offsets alone, no Polya-Gamma draw).
    rng = np.random.RandomState(6)
    omega = np.vstack([rng.normal(0.0, 3.0, (30, 5)),
                       [[800.0, -5.0, 0.0, 1.0, -900.0], [1e5, 1e5, -1e5, 3.0, 2.0]]])
    n_docs = len(omega)
    out, lam = np.empty(n_docs), np.empty(n_docs)
    for j in range(omega.shape[1]):
        draw_class_augmentation(omega, j, np.zeros(n_docs, dtype=np.int64), 1.0,
                                PG_METHODS["auto"], 8, make_streams(0, n_docs), 0, n_docs,
                                out, lam)
        np.testing.assert_allclose(out, logsumexp(np.delete(omega, j, axis=1), axis=1),
                                   rtol=1e-13)


def test_class_augmentation_is_the_offset_then_one_pg_draw_per_document():
    # The fused class step against its two parts done one after the other:
    # C_dj (against scipy), then lambda_dj ~ PG(c, omega_dj - C_dj) from
    # document d's stream (0 for an empty document); the same in blocks.
    rng = np.random.RandomState(7)
    omega = rng.normal(0.0, 2.0, (40, 4))
    lengths = rng.randint(0, 5, 40)
    method = PG_METHODS["auto"]
    for j, c in [(0, 1.0), (2, 25.0)]:
        states = make_streams(3, 40)
        reference_states = states.copy()
        offset, lam = np.empty(40), np.empty(40)
        draw_class_augmentation(omega, j, lengths, c, method, 8, states, 0, 15, offset, lam)
        draw_class_augmentation(omega, j, lengths, c, method, 8, states, 15, 40, offset, lam)
        np.testing.assert_allclose(offset, logsumexp(np.delete(omega, j, axis=1), axis=1),
                                   rtol=1e-13)
        expected = [0.0 if lengths[d] == 0 else
                    pg_draw(reference_states[d], c, omega[d, j] - offset[d], method, 8)
                    for d in range(40)]
        np.testing.assert_array_equal(lam, expected)
        assert np.all(lam[lengths > 0] > 0)
        np.testing.assert_array_equal(states, reference_states)


def test_binary_augmentation_has_the_polya_gamma_moments_of_the_mean_score():
    # lambda_d ~ PG(c, eta . zbar_d) with zbar_d = C_d / N_d: the draws of
    # each kind of document against the closed-form mean and variance (4
    # standard errors); an empty document gets 0. (Before, only a whole
    # fit's recovery of the label topics noticed omega not divided by N_d.)
    eta = np.array([1.5, -0.5, 2.0])
    kinds = np.array([[4, 0, 1], [0, 6, 0], [1, 1, 8], [0, 0, 0]], dtype=np.int32)
    n_rep = 4000
    doc_topic = np.repeat(kinds, n_rep, axis=0)
    lengths = doc_topic.sum(axis=1).astype(np.int64)
    c = 2.0
    out = np.full(len(doc_topic), np.nan)
    draw_augmentation(doc_topic, lengths, eta, c, PG_METHODS["exact"], 1,
                      make_streams(0, len(doc_topic)), 0, len(doc_topic), out)
    out = out.reshape(len(kinds), n_rep)
    np.testing.assert_array_equal(out[-1], 0.0)
    for kind, draws in zip(kinds[:-1], out[:-1]):
        omega = eta @ kind / kind.sum()
        assert abs(draws.mean() - pg_mean(c, omega)) < 4 * np.sqrt(pg_var(c, omega) / n_rep), kind


def test_response_terms_match_numpy():
    # Against NumPy (before, only the error of a fit at extreme c noticed
    # lambda_d / (2 N_d) for quad).
    rng = np.random.default_rng(0)
    doc_topic = rng.integers(0, 5, (6, 3)).astype(np.int32)
    doc_topic[2] = 0
    lengths = doc_topic.sum(axis=1).astype(np.int64)
    eta = rng.normal(size=3)
    kappa = rng.normal(size=6)
    lam = rng.uniform(0.1, 2.0, 6)
    response = BinaryResponse(eta, np.full(6, np.nan), np.full(6, np.nan), np.full(6, np.nan))
    response_terms(doc_topic, lengths, eta, kappa, lam, response)
    n = np.maximum(lengths, 1)
    np.testing.assert_allclose(response.linear, np.where(lengths > 0, kappa / n, 0.0))
    np.testing.assert_allclose(response.quad, np.where(lengths > 0, lam / (2 * n ** 2), 0.0))
    np.testing.assert_allclose(response.discriminant, doc_topic @ eta)


def test_log_positive_matches_numpy():
    x = np.concatenate([np.geomspace(1e-300, 1e300, 2001), 1.0 + np.linspace(-0.3, 0.3, 601),
                        np.random.RandomState(0).uniform(0.0, 10.0, 1000) + 1e-300])
    got = np.array([log_positive(v) for v in x])
    np.testing.assert_allclose(got, np.log(x), rtol=3e-16, atol=2e-16)


def _small_chain(n_topics, seed, n_docs=5, n_words=7):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, 10, n_docs)
    doc_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    word_ids = rng.integers(0, n_words, doc_ptr[-1]).astype(np.int32)
    return TopicChain.random(doc_ptr, word_ids, n_topics, n_words, seed)


def _lda_part(chain, i, d, alpha, beta):
    """LDA factors of token i's topics (counts without the token), and its topic."""
    t = chain.tokens
    w, old = t.word_ids[i], t.topics[i]
    doc = t.doc_topic[d].astype(float)
    word = chain.word_topic[w].astype(float)
    total = chain.topic_total.astype(float)
    doc[old] -= 1
    word[old] -= 1
    total[old] -= 1
    return (doc + alpha) * (word + beta) / (total + beta * chain.n_words), doc


def _draw_token(chain, i, d, sweep, n_draws=20000, seed=3):
    """Resample token i alone ``n_draws`` times (a one-token view of document
    d: the rest of the document stays in its counts), returning the counts of
    its topics; the conditional does not depend on the current topic, so the
    draws are i.i.d. from it."""
    t = chain.tokens
    one = TokenTopics(np.array([i, i + 1], dtype=np.int64), t.word_ids, t.topics,
                      t.doc_topic[d:d + 1])
    states = make_streams(seed, 1)
    counts = np.zeros(chain.n_topics, dtype=np.int64)
    for _ in range(n_draws):
        sweep(one, states)
        counts[t.topics[i]] += 1
    return counts


def _assert_chi_square(counts, p, pool_below=None):
    """Chi-square of ``counts`` against probabilities ``p`` (cells of
    probability ~0 must be empty); with ``pool_below``, the rarest cells are
    pooled into one so that it expects at least that many."""
    keep = p * counts.sum() > 1e-9
    assert np.all(counts[~keep] == 0), (counts, p)
    seen, expected = counts[keep], p[keep] * counts.sum()
    if pool_below is not None:
        order = np.argsort(expected)
        pooled = np.searchsorted(np.cumsum(expected[order]), pool_below)
        expected = np.append(expected[order][:pooled + 1].sum(), expected[order][pooled + 1:])
        seen = np.append(seen[order][:pooled + 1].sum(), seen[order][pooled + 1:])
    assert stats.chisquare(seen, expected).pvalue > 1e-4, (counts, p)


@pytest.mark.parametrize("n_topics", [4, 11])
@pytest.mark.parametrize("c", [1.0, 16.0])
def test_softmax_topic_conditional_is_exact(n_topics, c):
    n_classes = 3
    chain = _small_chain(n_topics, seed=n_topics)
    t = chain.tokens
    rng = np.random.default_rng(7)
    alpha = rng.uniform(0.1, 1.0, n_topics)
    beta = 0.2
    eta = rng.normal(0.0, 3.0, (n_classes, n_topics))
    labels = rng.integers(0, n_classes, chain.n_docs).astype(np.int64)
    lengths = chain.doc_lengths
    d = 1
    for i in (t.doc_ptr[d], t.doc_ptr[d + 1] - 1):
        lda, doc_rest = _lda_part(chain, i, d, alpha, beta)
        # softmax(eta zbar)_y^c with zbar the document's counts, token at k.
        scores = (doc_rest @ eta.T)[None, :] + eta.T  # (K, C)
        log_soft = scores / lengths[d]
        log_soft = log_soft - np.logaddexp.reduce(log_soft, axis=1, keepdims=True)
        p = lda * np.exp(c * log_soft[:, labels[d]] - c * log_soft[:, labels[d]].max())
        p /= p.sum()
        discriminant = (t.doc_topic @ eta.T).astype(float)
        response = SoftmaxResponse(eta, labels[d:d + 1], c, 1.0 / lengths[d:d + 1],
                                   discriminant[d:d + 1])
        counts = _draw_token(chain, i, d, lambda one, states: sample_softmax(
            one, chain.word_topic, chain.topic_total, alpha, beta, response, states,
            (0, 1, 0, ALL_WORDS)))
        _assert_chi_square(counts, p)
        # The discriminant follows the token.
        np.testing.assert_allclose(discriminant[d], t.doc_topic[d] @ eta.T)


def test_softmax_sweep_of_whole_documents_samples_the_exact_posterior():
    """Whole-document sweeps, where tokens of a repeated word reuse the
    response weights of the token before them while no token has moved:
    the states visited follow the enumerated posterior of the topics
    (collapsed LDA joint times softmax(eta zbar)_y^c), chi-square."""
    n_topics, n_classes, c, alpha, beta = 3, 3, 12.0, np.array([0.3, 0.5, 0.8]), 0.4
    word_ids = np.array([0, 0, 0, 1, 1, 2], dtype=np.int32)
    n_words, length = 3, len(word_ids)
    doc_ptr = np.array([0, length], dtype=np.int64)
    chain = TopicChain.random(doc_ptr, word_ids, n_topics, n_words, 0)
    t = chain.tokens
    eta = np.random.default_rng(1).normal(0.0, 2.0, (n_classes, n_topics))
    label = 2
    states = np.array(list(itertools.product(range(n_topics), repeat=length)))
    onehot = np.eye(n_topics)[states]  # (S, N, K)
    doc = onehot.sum(axis=1)
    word = np.stack([onehot[:, word_ids == w].sum(axis=1) for w in range(n_words)], axis=1)
    scores = doc @ eta.T / length
    log_p = (gammaln(doc + alpha).sum(axis=1) + gammaln(word + beta).sum(axis=(1, 2))
             - gammaln(doc + n_words * beta).sum(axis=1)
             + c * (scores[:, label] - logsumexp(scores, axis=1)))
    p = np.exp(log_p - logsumexp(log_p))
    response = SoftmaxResponse(eta, np.array([label]), c, np.array([1.0 / length]),
                               (t.doc_topic @ eta.T).astype(float))
    stream = make_streams(5, 1)
    index = (n_topics ** np.arange(length)[::-1])
    visits = np.zeros(len(states), dtype=np.int64)
    for sweep in range(20000):
        sample_softmax(t, chain.word_topic, chain.topic_total, alpha, beta, response, stream,
                       (0, 1, 0, ALL_WORDS))
        if sweep % 2 == 0:  # thinned: successive sweeps are correlated
            visits[t.topics @ index] += 1
    np.testing.assert_allclose(response.discriminant[0], t.doc_topic[0] @ eta.T)
    _assert_chi_square(visits, p, pool_below=5.0)


def test_binary_topic_conditional_exact_when_factorized_weights_underflow():
    # Weights eta far apart and a large lambda_d: the per-document weights
    # times the pair table underflow, and the sweep falls back to the direct
    # weights; the conditional must stay exact.
    n_topics = 5
    chain = _small_chain(n_topics, seed=2)
    t = chain.tokens
    alpha, beta = np.full(n_topics, 0.5), 0.3
    eta = np.array([-30.0, -2.0, 0.0, 1.0, 30.0])
    d = 0
    b_d = 20.0
    underflows = 0
    for i in (t.doc_ptr[d], t.doc_ptr[d + 1] - 1):
        lda, doc_rest = _lda_part(chain, i, d, alpha, beta)
        rest = doc_rest @ eta
        # The response factor, a concave quadratic in eta_k, then peaks at
        # eta_k = 1/2: topics 2 and 3 share the mass, the others get ~0.
        a_d = b_d * (1.0 + 2.0 * rest)
        log_r = a_d * eta - b_d * (eta ** 2 + 2 * eta * rest)
        p = lda * np.exp(log_r - log_r.max())
        p /= p.sum()
        # The factorized weights (each factor scaled to a largest 1, floored
        # at exp(-700) as the kernel's exponential is) underflow here.
        old = t.topics[i]
        doc_part = a_d * eta - b_d * eta ** 2 - 2 * b_d * (rest + eta[old]) * eta
        pair_part = 2 * b_d * eta[old] * eta
        factorized = (np.exp(np.maximum(doc_part - doc_part.max(), -700))
                      * np.exp(np.maximum(pair_part - pair_part.max(), -700)))
        underflows += factorized.sum() < 1e-250
        disc = np.array([float(t.doc_topic[d] @ eta)])
        response = BinaryResponse(eta, np.array([a_d]), np.array([b_d]), disc)
        counts = _draw_token(chain, i, d, lambda one, states: sample_supervised(
            one, chain.word_topic, chain.topic_total, alpha, beta, response, states,
            (0, 1, 0, ALL_WORDS)), n_draws=5000)
        _assert_chi_square(counts, p)
    assert underflows == 2


# ------------------------------------------------------------------ Geweke
def _geweke_corpus():
    """The Geweke tests' five documents of 2, 3, 1, 2 and 3 tokens:
    ``(lengths, n_docs, doc_ptr, doc_of_token, n_tokens)``."""
    lengths = np.array([2, 3, 1, 2, 3])
    doc_ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    return lengths, lengths.size, doc_ptr, np.repeat(np.arange(lengths.size), lengths), doc_ptr[-1]


def _frequencies(doc_of_token, lengths, n_topics, topics):
    """Topic frequencies zbar (n, D, K) of n draws of the tokens' topics (n, N)."""
    counts = np.zeros(topics.shape[:1] + (lengths.size, n_topics))
    np.add.at(counts, (np.arange(topics.shape[0])[:, None], doc_of_token, topics), 1)
    return counts / lengths[:, None]


def _geweke(c, n_iter, seed=0):
    """Geweke (2004) for binary Gibbs sLDA on a tiny corpus (5 documents of
    2, 3, 1, 2 and 3 tokens, K = 3, V = 4, alpha = 0.6, beta = 0.7, nu^2 = 4).

    The sampler's joint is p(eta) p(z) p(w | z) prod_d psi(y_d | omega_d),
    psi = exp(c y omega) / (1 + e^omega)^c, whose sum over y_d is Z(omega) =
    (1 + e^{c omega}) / (1 + e^omega)^c <= 1 (1 at c = 1). Marginal-conditional
    simulator: (eta, z) from the prior kept with probability prod_d
    Z(omega_d), then y_d ~ Bernoulli(sigmoid(c omega_d)) and words given z
    (phi ~ Dir(beta) drawn afresh), in NumPy; lambda_d ~ PG(c, omega_d) by its
    conditional mean c tanh(omega / 2) / (2 omega). Successive-conditional
    simulator: the estimator's own sweep (``_sweep_binary``: eta | z, lambda,
    y; z | rest with the response term; lambda | z, eta), new words given
    the topics after every sweep and new labels after every fourth. (With new
    labels after every sweep, the response term of the z conditional could be
    dropped unnoticed at c = 1: z | w, eta followed by fresh lambda and y is
    then a valid blocked draw of the three.) Returns the z-scores of the test
    functions' means (chain by batch means).
    """
    n_topics, n_words, alpha, beta, nu2, y_every = 3, 4, 0.6, 0.7, 4.0, 4
    lengths, n_docs, doc_ptr, doc_of_token, n_tokens = _geweke_corpus()
    rng = np.random.default_rng(seed)
    frequencies = functools.partial(_frequencies, doc_of_token, lengths, n_topics)

    def draw_prior(n):
        etas, kept = [], []
        while sum(map(len, etas)) < n:
            eta = rng.normal(0.0, np.sqrt(nu2), size=(n, n_topics))
            theta = rng.dirichlet(np.full(n_topics, alpha), size=(n, n_docs))[:, doc_of_token]
            u = rng.random((n, n_tokens, 1))
            topics = np.minimum((u > np.cumsum(theta, axis=2)).sum(axis=2), n_topics - 1)
            omega = np.einsum("ndk,nk->nd", frequencies(topics), eta)
            log_z = np.logaddexp(0, c * omega) - c * np.logaddexp(0, omega)
            keep = np.log(rng.random(n)) < log_z.sum(axis=1)
            etas.append(eta[keep])
            kept.append(topics[keep])
        eta, topics = np.concatenate(etas)[:n], np.concatenate(kept)[:n].astype(np.int32)
        omega = np.einsum("ndk,nk->nd", frequencies(topics), eta)
        y = (rng.random(omega.shape) < 1 / (1 + np.exp(-c * omega))).astype(np.int8)
        return eta, topics, y

    draw_words = functools.partial(helpers.draw_words, rng, n_topics=n_topics, n_words=n_words,
                                   beta=beta)

    def pg_mean(omega):
        safe = np.where(omega == 0, 1.0, omega)
        return np.where(omega == 0, c / 4, c * np.tanh(safe / 2) / (2 * safe))

    def test_functions(eta, topics, y, words, lam=None):
        zbar = frequencies(topics)
        omega = np.einsum("ndk,nk->nd", zbar, eta)
        lam = pg_mean(omega) if lam is None else lam
        sign = 2 * y - 1
        return np.column_stack([
            eta[:, 0], eta[:, -1], eta[:, 1] ** 2, eta[:, 0] * eta[:, 1],
            y.mean(axis=1), y[:, 1], (y * omega).mean(axis=1), (sign * zbar[..., 0]).mean(axis=1),
            (sign * (zbar[..., -1] - zbar[..., 1])).mean(axis=1),
            lam.mean(axis=1), lam[:, -1], (lam * omega ** 2).mean(axis=1),
            np.mean(topics == 0, axis=1), np.mean((topics == 0) & (words == 0), axis=1),
            np.mean(topics[:, 1:] == topics[:, :-1], axis=1),
        ])

    eta, topics, y = draw_prior(n_iter)
    marginal = test_functions(eta, topics, y, draw_words(topics))

    eta, topics, y = (v[0] for v in draw_prior(1))
    words = draw_words(topics[None])[0]
    X = sp.csr_matrix((np.ones(n_tokens), (doc_of_token, words)), shape=(n_docs, n_words))
    model = GibbsSLDAClassifier(n_topics, c=c, prior_variance=nu2, doc_topic_prior=alpha,
                                topic_word_prior=beta, split_merge=False, burn_in=10**9)
    model.burn_in_ = model.burn_in  # fit's step, which this test does by hand
    run = model._start_binary(X, doc_ptr, words.copy(), y, np.random.SeedSequence(seed + 1))
    chain = run.chain = chain_at(run.chain.tokens.word_ids, topics, doc_ptr, n_topics, n_words,
                                 seed + 2)
    run.lam[:] = pg_mean(frequencies(topics[None])[0] @ eta)
    tokens = chain.tokens
    saved = (np.empty((n_iter, n_topics)), np.empty((n_iter, n_tokens), np.int32),
             np.empty((n_iter, n_docs), np.int8), np.empty((n_iter, n_tokens), np.int32),
             np.empty((n_iter, n_docs)))
    for it in range(n_iter):
        model._sweep_binary(run, n_jobs=1)
        words = redraw_words(chain, rng, n_topics, n_words, beta)
        if it % y_every == 0:
            omega = tokens.doc_topic @ run.eta / lengths
            run.y[:] = rng.random(n_docs) < 1 / (1 + np.exp(-c * omega))
            run.kappa[:] = c * (run.y - 0.5)
        for out, value in zip(saved, (run.eta, tokens.topics, run.y, words, run.lam)):
            out[it] = value
    return geweke_z(marginal, test_functions(*saved))


@pytest.mark.parametrize("c", [1.0, 3.0])
def test_geweke_joint_distribution_of_the_binary_sweep(c):
    """The binary sweep -- eta | z, lambda, y (Gaussian); z | rest with the
    response term; lambda | z, eta ~ PG(c, omega) -- leaves the model's
    joint distribution invariant, for the standard model (c = 1) and for a
    regularization constant c = 3. Each of these wrong conditionals fails it
    (max |z| at 20,000 sweeps, seed 0, c = 1 / c = 3, measured by editing
    the code): no response term in z (11.4 / 34.6), its quadratic part only
    (23.1 / 62.5), that part doubled (22.2 / 73.4), PG(1, omega) for
    PG(c, omega) (c = 3: 825; the same draw at c = 1), PG(c, N_d omega)
    (87 / 547), half the PG part of eta's precision (33.3 / 64.9)."""
    z = _geweke(c, 20000)
    assert np.all(np.abs(z) < 4.0), np.round(z, 2)


def _response_dropped(*args):
    """The supervised factor's coefficients all zero: the z conditional
    without the response term."""
    response = args[-1]
    response_terms(*args)
    response.linear[:] = 0.0
    response.quad[:] = 0.0


def _pg_shape_one(doc_topic, doc_lengths, eta, c, *rest):
    """lambda_d ~ PG(1, omega_d) whatever c."""
    draw_augmentation(doc_topic, doc_lengths, eta, 1.0, *rest)


@pytest.mark.parametrize("c, name, wrong, n_iter", [
    (1.0, "response_terms", _response_dropped, 12000),
    (3.0, "draw_augmentation", _pg_shape_one, 3000),
])
def test_geweke_rejects_a_wrong_conditional(monkeypatch, c, name, wrong, n_iter):
    monkeypatch.setattr(_slda, name, wrong)
    z = _geweke(c, n_iter, seed=1)
    assert np.max(np.abs(z)) > 6.0, np.round(z, 2)


def _geweke_multinomial(c, n_iter, seed=0, n_batches=50):
    """Geweke (2004) for the multinomial model's sweep on a tiny corpus (5
    documents of 2, 3, 1, 2 and 3 tokens, K = 2 shared topics, C = 3
    classes, V = 4, alpha = 0.6, beta = 0.7, nu^2 = 4).

    The sampler's joint is p(eta) p(z) p(w | z) prod_d softmax(omega_d)_{y_d}^c
    with omega_dj = eta_j . zbar_d; its sum over y_d is Z(omega_d) =
    sum_j softmax(omega_d)_j^c <= 1 (1 at c = 1). Marginal-conditional
    simulator: (eta, z) from the prior kept with probability prod_d
    Z(omega_d), then y_d ~ softmax(c omega_d) and words given z (phi ~
    Dir(beta) drawn afresh), in NumPy. Successive-conditional simulator: the
    estimator's own sweep (``_sweep_softmax``: for each class j, lambda_j ~
    PG(c, omega_j - C_j) and eta_j | lambda_j, the other classes' offsets
    C_dj; then z | rest with the exact softmax factor), new words given the
    topics after every sweep and new labels after every fourth (with new
    labels after every sweep, a z conditional without the response term
    would be a valid blocked draw of (z, y) | eta at c = 1; see
    :func:`_geweke`). The augmentation is redrawn within the sweep, so it
    is not part of the state compared. Returns the z-scores of the test
    functions' means (chain by batch means).
    """
    n_topics, n_classes, n_words, alpha, beta, nu2, y_every = 2, 3, 4, 0.6, 0.7, 4.0, 4
    lengths, n_docs, doc_ptr, doc_of_token, n_tokens = _geweke_corpus()
    rng = np.random.default_rng(seed)
    frequencies = functools.partial(_frequencies, doc_of_token, lengths, n_topics)

    def scores(eta, topics):  # omega (n, D, C)
        return np.einsum("ndk,njk->ndj", frequencies(topics), eta)

    def draw_labels(omega):  # y_d ~ softmax(c omega_d)
        p = np.exp(c * omega - logsumexp(c * omega, axis=-1, keepdims=True))
        u = rng.random(omega.shape[:-1] + (1,))
        return np.minimum((u > np.cumsum(p, axis=-1)).sum(axis=-1), n_classes - 1)

    def draw_prior(n):
        etas, kept = [], []
        while sum(map(len, etas)) < n:
            eta = rng.normal(0.0, np.sqrt(nu2), size=(n, n_classes, n_topics))
            theta = rng.dirichlet(np.full(n_topics, alpha), size=(n, n_docs))[:, doc_of_token]
            u = rng.random((n, n_tokens, 1))
            topics = np.minimum((u > np.cumsum(theta, axis=2)).sum(axis=2), n_topics - 1)
            omega = scores(eta, topics)
            log_z = logsumexp(c * omega, axis=2) - c * logsumexp(omega, axis=2)
            keep = np.log(rng.random(n)) < log_z.sum(axis=1)
            etas.append(eta[keep])
            kept.append(topics[keep])
        eta, topics = np.concatenate(etas)[:n], np.concatenate(kept)[:n].astype(np.int32)
        return eta, topics, draw_labels(scores(eta, topics))

    draw_words = functools.partial(helpers.draw_words, rng, n_topics=n_topics, n_words=n_words,
                                   beta=beta)

    def test_functions(eta, topics, y, words):
        zbar = frequencies(topics)
        omega = scores(eta, topics)
        one_hot = y[..., None] == np.arange(n_classes)
        at_label = (omega * one_hot).sum(axis=2)
        return np.column_stack([
            eta[:, 0, 0], eta[:, 2, 1], eta[:, 1, 0] ** 2, eta[:, 0, 0] * eta[:, 1, 0],
            (eta[:, 0] - eta[:, 2]).sum(axis=1) ** 2,
            np.mean(y == 0, axis=1), np.mean(y == 2, axis=1), y[:, 1] == 1,
            at_label.mean(axis=1), (at_label - logsumexp(omega, axis=2)).mean(axis=1),
            at_label[:, 2], at_label[:, 2] - omega[:, 2].mean(axis=1),
            (one_hot[..., 0] * zbar[..., 0]).mean(axis=1),
            (one_hot[..., 1] * (zbar[..., 1] - zbar[..., 0])).mean(axis=1),
            np.mean(topics == 0, axis=1), np.mean((topics == 0) & (words == 0), axis=1),
            np.mean(topics[:, 1:] == topics[:, :-1], axis=1),
        ])

    eta, topics, y = draw_prior(n_iter)
    marginal = test_functions(eta, topics, y, draw_words(topics))

    eta, topics, y = (v[0] for v in draw_prior(1))
    words = draw_words(topics[None])[0]
    X = sp.csr_matrix((np.ones(n_tokens), (doc_of_token, words)), shape=(n_docs, n_words))
    model = GibbsSLDAClassifier(n_topics, c=c, prior_variance=nu2, doc_topic_prior=alpha,
                                topic_word_prior=beta, multi_class="multinomial",
                                split_merge=False, burn_in=10**9)
    model.classes_ = np.arange(n_classes)
    model.burn_in_ = model.burn_in  # fit's step, which this test does by hand
    run = model._start_softmax(X, doc_ptr, words.copy(), y.astype(np.int64),
                               np.random.SeedSequence(seed + 1))
    chain = run.chain = chain_at(run.chain.tokens.word_ids, topics, doc_ptr, n_topics, n_words,
                                 seed + 2)
    run.eta[:] = eta
    tokens = chain.tokens
    saved = (np.empty((n_iter, n_classes, n_topics)), np.empty((n_iter, n_tokens), np.int32),
             np.empty((n_iter, n_docs), np.int64), np.empty((n_iter, n_tokens), np.int32))
    for it in range(n_iter):
        model._sweep_softmax(run)
        words = redraw_words(chain, rng, n_topics, n_words, beta)
        if it % y_every == 0:
            run.labels[:] = draw_labels(tokens.doc_topic @ run.eta.T / lengths[:, None])
            run.kappa[:] = c * ((run.labels[:, None] == np.arange(n_classes)) - 0.5)
        for out, value in zip(saved, (run.eta, tokens.topics, run.labels, words)):
            out[it] = value
    return geweke_z(marginal, test_functions(*saved), n_batches)

def test_geweke_joint_distribution_of_the_multinomial_sweep():
    """The multinomial sweep -- for each class j, lambda_j ~ PG(c, omega_j -
    C_j) then eta_j | lambda_j, y, z with the other classes' offsets C_dj;
    then z | rest with the exact softmax factor -- leaves the model's joint
    distribution invariant (c = 1). Max |z| at 20,000 sweeps over seeds 0-4:
    2.13, 1.53, 1.81, 2.01, 1.48. (At c = 3 the class-by-class chain mixes
    slowly along the direction common to every eta_j, which the softmax
    ignores, and 20,000 sweeps' batch means understate its error: max |z|
    6.83 at seed 4, 2.66 at 60,000 sweeps; 2.51 and 1.41 at 100,000 sweeps,
    seeds 5 and 6, too slow for the suite.)"""
    z = _geweke_multinomial(1.0, 20000)
    assert np.all(np.abs(z) < 4.0), np.round(z, 2)


def _offset_without_a_class(omega, j, *rest):
    """C_dj = log sum_{l != j, j + 1} exp(omega_dl): the next class left out."""
    wrong = omega.copy()
    wrong[:, (j + 1) % omega.shape[1]] = -np.inf
    draw_class_augmentation(wrong, j, *rest)


def _softmax_sweep_without_response(self, alpha, beta, response, n_jobs=None):
    """The topic sweep with softmax^0: z | w without the response term."""
    sweep_softmax(self, alpha, beta, response._replace(c=0.0), n_jobs)


sweep_softmax = TopicChain.sweep_softmax


@pytest.mark.parametrize("owner, name, wrong", [
    (_slda, "draw_class_augmentation", _offset_without_a_class),
    (TopicChain, "sweep_softmax", _softmax_sweep_without_response),
])
def test_geweke_of_the_multinomial_sweep_rejects_a_wrong_conditional(monkeypatch, owner, name,
                                                                     wrong):
    # Max |z| at 5,000 sweeps, seeds 1 / 2 / 3: offset without a class 40.4 /
    # 34.3 / 41.1, no response term in z 13.1 / 12.8 / 14.8.
    monkeypatch.setattr(owner, name, wrong)
    z = _geweke_multinomial(1.0, 5000, seed=1)
    assert np.max(np.abs(z)) > 6.0, np.round(z, 2)


def _fixed_frequencies(n_docs, seed):
    """Two-topic frequencies (p, 1 - p) of ``n_docs`` documents, the first empty."""
    rng = np.random.RandomState(seed)
    p = rng.uniform(0.0, 1.0, n_docs)
    zbar = np.column_stack([p, 1.0 - p])
    lengths = rng.randint(5, 50, n_docs)
    zbar[0], lengths[0] = 0.0, 0
    return rng, p, zbar, lengths


def _one_thread(lengths):
    """Thread ranges of the documents of ``lengths``, all on one thread."""
    return balanced_cuts(np.concatenate(([0], np.cumsum(lengths))), 1)


def test_refit_draws_have_the_posterior_mean_of_the_weights(monkeypatch):
    # prediction="refit", binary: the weights' chain given fixed topic
    # frequencies against the posterior mean by quadrature on a grid (K = 2):
    # prior N(0, nu^2 I), likelihood prod_d exp(c y_d w_d) / (1 + exp(w_d))^c;
    # the empty document carries no information.
    rng, p, zbar, lengths = _fixed_frequencies(30, seed=0)
    y = (rng.uniform(size=30) < p).astype(float)
    c, nu2 = 2.0, 1.0
    grid = np.linspace(-8.0, 8.0, 801)
    e1, e2 = np.meshgrid(grid, grid, indexing="ij")
    omega = e1[..., None] * zbar[1:, 0] + e2[..., None] * zbar[1:, 1]
    log_post = (-(e1 ** 2 + e2 ** 2) / (2 * nu2)
                + (c * (y[1:] * omega + log_expit(-omega))).sum(axis=-1))
    weight = np.exp(log_post - log_post.max())
    weight /= weight.sum()
    mean = np.array([(weight * e1).sum(), (weight * e2).sum()])

    monkeypatch.setattr(_slda, "N_WEIGHT_DRAWS", 8000)
    clf = GibbsSLDAClassifier(c=c, prior_variance=nu2)
    kappa = np.where(lengths > 0, c * (y - 0.5), 0.0)
    draws = np.array(list(clf._binary_weights_draws(
        zbar, lengths, kappa, np.zeros(2), make_streams(1, 30), np.random.default_rng(2),
        _one_thread(lengths))))
    draws = draws[500:]
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 4 * batch_means_se(draws, 10) + 1e-3)


def test_refit_draws_of_the_multinomial_weights_have_the_posterior_mean(monkeypatch):
    # prediction="refit", multinomial (C = 3, K = 2): the class-by-class chain
    # given fixed topic frequencies against the posterior mean by importance
    # sampling (multivariate t around the mode): prior N(0, nu^2 I) on each
    # eta_j, likelihood prod_d softmax(eta zbar_d)_{y_d}^c.
    from scipy.stats import multivariate_t

    rng, p, zbar, lengths = _fixed_frequencies(40, seed=1)
    y = np.where(p > 0.66, 0, np.where(p > 0.33, 1, 2))
    noisy = rng.uniform(size=40) < 0.2
    y[noisy] = rng.randint(0, 3, noisy.sum())
    c, nu2, shape = 1.0, 1.0, (3, 2)

    def log_post(eta):  # eta (..., C, K)
        omega = np.einsum("...ck,dk->...dc", eta, zbar[1:])
        picked = np.take_along_axis(omega, np.broadcast_to(
            y[1:, None], omega.shape[:-1] + (1,)), axis=-1)[..., 0]
        return (c * (picked - logsumexp(omega, axis=-1)).sum(axis=-1)
                - (eta ** 2).sum(axis=(-1, -2)) / (2 * nu2))

    mode = minimize(lambda e: -log_post(e.reshape(shape)), np.zeros(6))
    proposal = multivariate_t(mode.x, 2.25 * mode.hess_inv, df=5, seed=0)
    sample = proposal.rvs(size=200_000)
    log_w = log_post(sample.reshape((-1,) + shape)) - proposal.logpdf(sample)
    weight = np.exp(log_w - log_w.max())
    mean = (weight[:, None] * sample).sum(axis=0).reshape(shape) / weight.sum()

    monkeypatch.setattr(_slda, "N_WEIGHT_DRAWS", 4000)
    clf = GibbsSLDAClassifier(c=c, prior_variance=nu2, multi_class="multinomial")
    one_hot = y[:, None] == np.arange(3)
    kappa = np.where(lengths[:, None] > 0, c * (one_hot - 0.5), 0.0)
    draws = np.array(list(clf._class_weights_draws(
        zbar, lengths, kappa, np.zeros(shape), make_streams(1, 40), np.random.default_rng(2),
        _one_thread(lengths))))
    draws = draws[500:]
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 4 * batch_means_se(draws, 10) + 1e-3)


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_expected_topic_frequencies_match_numpy_reference(multi_class):
    # prediction_topics="expected": zbar_dk = (1 / N_d) sum_n p(k | w_dn), with
    # p(k | w) proportional to topic k's probability of w (each model's own
    # topics), scored by coef_; an empty document scores 0.
    X, y = make_three_class()
    X = np.vstack([X, np.zeros((1, X.shape[1]), dtype=X.dtype)])
    y = np.append(y, 0)
    clf = GibbsSLDAClassifier(n_components=3, c=4.0, max_iter=12, burn_in=4, random_state=0,
                              multi_class=multi_class).fit(X[:-1], y[:-1])
    topics = clf.components_ / clf.components_.sum(axis=1, keepdims=True)  # (M K, V)
    scores = []
    for m in range(topics.shape[0] // 3):
        phi = topics[3 * m:3 * (m + 1)].T  # (V, K)
        zbar = (X @ (phi / phi.sum(axis=1, keepdims=True))) / np.maximum(X.sum(axis=1), 1)[:, None]
        scores.append(zbar @ clf.coef_.T if multi_class == "multinomial"
                      else zbar @ clf.coef_[m])
    expected = scores[0] if multi_class == "multinomial" else np.column_stack(scores)
    np.testing.assert_allclose(clf.decision_function(sp.csr_matrix(X)), expected, rtol=1e-10,
                               atol=1e-12)
    assert np.all(clf.decision_function(X[-1:]) == 0.0)
    # A document's scores do not depend on the others.
    np.testing.assert_allclose(clf.decision_function(X[5:9]), expected[5:9], rtol=1e-10,
                               atol=1e-12)


def test_expected_topic_frequencies_are_inference_with_a_flat_prior():
    # The expected frequencies are the limit of the inferred ones as the
    # document's prior alpha grows (each token's topic drawn from p(k | w),
    # independently of the document's other tokens): inference at alpha = 1e6
    # averaged over 1,000 sweeps agrees with them to its Monte Carlo error.
    # (prediction_topics is read at fit: a second fit, of the same chain.)
    X, y = make_supervised_corpus(n_docs=60)
    params = dict(n_components=4, c=2.5, max_iter=20, burn_in=10, random_state=3)
    clf = GibbsSLDAClassifier(**params).fit(X, y)
    doc_ptr, word_ids = clf._validated_tokens(X, "test")
    expected = clf._prediction_frequencies(doc_ptr, word_ids)[0]
    clf = GibbsSLDAClassifier(prediction_topics="inferred", **params).fit(X, y)
    clf.set_params(n_infer_iter=2000)
    clf.doc_topic_prior_ = 1e6
    inferred = clf._prediction_frequencies(doc_ptr, word_ids)[0]
    lengths = np.diff(doc_ptr)[:, None]
    # Per document and topic: the average of N_d x 1,000 draws of an indicator
    # of mean zbar_dk (independent draws: the flat prior ignores the others).
    se = np.sqrt(expected * (1 - expected) / (lengths * 1000))
    assert np.all(np.abs(inferred - expected) < 5 * se + 1e-9)
    assert np.abs(inferred - expected).max() > 0  # a sampled average, not the same numbers


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_prediction_settings_change_the_weights_and_nothing_else(multi_class):
    # The chain is the same whatever prediction and prediction_topics say: the
    # refit draws from its own stream after it; "average" is the mean of the
    # draws after the burn-in; the refit is reproducible and fits the training
    # frequencies of either kind (the weights differ, the topics do not).
    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, max_iter=12, burn_in=4, random_state=0,
                  multi_class=multi_class)
    settings = {"refit": {}, "average": dict(prediction="average"),
                "last": dict(prediction="last"), "inferred": dict(prediction_topics="inferred")}
    fits = {name: GibbsSLDAClassifier(**params, **extra).fit(X, y)
            for name, extra in settings.items()}
    refit = fits["refit"]
    for name in ("average", "last", "inferred"):
        np.testing.assert_array_equal(fits[name].components_, refit.components_)
        np.testing.assert_array_equal(fits[name].last_coef_, refit.last_coef_)
        np.testing.assert_array_equal(fits[name].trace_.coef, refit.trace_.coef)
        assert not np.allclose(fits[name].coef_, refit.coef_)
    np.testing.assert_allclose(fits["average"].coef_, refit.trace_.coef[4:].mean(axis=0))
    np.testing.assert_array_equal(fits["last"].coef_, refit.last_coef_)
    again = GibbsSLDAClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(again.coef_, refit.coef_)
    assert refit.score(X, y) > 0.9 and fits["inferred"].score(X, y) > 0.9


# ---------------------------------------------------------------- behaviour
def test_recovers_label_topics_from_model_data():
    X, y = make_supervised_corpus()
    X_test, y_test = make_supervised_corpus(seed=1)
    clf = GibbsSLDAClassifier(n_components=4, c=4.0, max_iter=60, burn_in=30, random_state=0)
    clf.fit(X[:150], y[:150])
    assert clf.score(X_test, y_test) > 0.85
    # The label topics (words 0-19) carry positive weights, the others negative.
    topics = clf.components_ / clf.components_.sum(axis=1, keepdims=True)
    label_mass = topics[:, :20].sum(axis=1)
    assert np.all(np.sign(clf.coef_[0]) == np.where(label_mass > 0.5, 1, -1))


def test_binary_outputs_and_reproducibility():
    X, y = make_supervised_corpus(n_docs=80)
    labels = np.array(["no", "yes"])[y]
    clf = GibbsSLDAClassifier(n_components=4, c=2.5, max_iter=20, burn_in=10, random_state=3)
    clf.fit(sp.csr_matrix(X), labels)
    assert list(clf.classes_) == ["no", "yes"]
    scores = clf.decision_function(X)
    proba = clf.predict_proba(X)
    assert scores.shape == (80,) and proba.shape == (80, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, "yes", "no"))
    assert clf.transform(X).shape == (80, 4)
    assert clf.components_.shape == (4, X.shape[1]) and clf.coef_.shape == (1, 4)
    assert clf.n_iter_ == 20
    # Repeated predictions and a refit with the same seed are identical.
    np.testing.assert_array_equal(scores, clf.decision_function(X))
    np.testing.assert_array_equal(clf.transform(X), clf.transform(X))
    again = GibbsSLDAClassifier(n_components=4, c=2.5, max_iter=20, burn_in=10, random_state=3)
    np.testing.assert_array_equal(again.fit(X, labels).decision_function(X), scores)


def make_three_class(seed=0):
    rng = np.random.RandomState(seed)
    centers = np.array([[8, 8, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 8, 8, 0.2, 0.2],
                        [0.2, 0.2, 0.2, 0.2, 8, 8]])
    y = np.repeat([0, 1, 2], 30)
    X = rng.poisson(centers[y])
    return X, y


def test_multiclass_one_vs_rest():
    X, y = make_three_class()
    clf = GibbsSLDAClassifier(n_components=3, c=4.0, max_iter=30, burn_in=10, random_state=0)
    clf.fit(X, y)
    assert clf.coef_.shape == (3, 3)
    assert clf.components_.shape == (9, 6)
    assert clf.doc_topic_prior_.shape == (3,) and clf.trace_.coef.shape == (30, 3, 3)
    assert clf.decision_function(X).shape == (90, 3)
    assert clf.transform(X).shape == (90, 9)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.9


def make_multinomial_corpus(eta, n_docs=300, n_words=40, doc_length=60, seed=0):
    """Corpus drawn from the multinomial model (c = 1): block topics, theta ~
    Dirichlet(0.5), topics z_dn, label y_d ~ softmax(eta zbar_d). Returns
    ``X, y, phi`` and the documents' true topic frequencies ``zbar``."""
    rng = np.random.RandomState(seed)
    n_topics = eta.shape[1]
    block = n_words // n_topics
    phi = np.full((n_topics, n_words), 0.01)
    for k in range(n_topics):
        phi[k, k * block:(k + 1) * block] = 1.0
    phi /= phi.sum(axis=1, keepdims=True)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    y = np.zeros(n_docs, dtype=np.int64)
    zbar = np.zeros((n_docs, n_topics))
    for d in range(n_docs):
        z_counts = rng.multinomial(doc_length, rng.dirichlet(np.full(n_topics, 0.5)))
        for k in range(n_topics):
            X[d] += rng.multinomial(z_counts[k], phi[k])
        zbar[d] = z_counts / doc_length
        scores = eta @ zbar[d]
        p = np.exp(scores - scores.max())
        y[d] = rng.choice(len(eta), p=p / p.sum())
    return X, y, phi, zbar


def test_multinomial_recovers_weights_from_model_data():
    from scipy.optimize import linear_sum_assignment

    eta = np.array([[6.0, -3.0, -3.0, 0.0], [-3.0, 6.0, 0.0, -3.0], [0.0, -3.0, 3.0, 3.0]])
    X, y, phi, _ = make_multinomial_corpus(eta)
    clf = GibbsSLDAClassifier(n_components=4, multi_class="multinomial", c=1.0,
                              prior_variance=25.0, max_iter=60, burn_in=30, random_state=0)
    clf.fit(X, y)
    assert clf.coef_.shape == (3, 4) and clf.components_.shape == (4, 40)
    topics = clf.components_ / clf.components_.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(-topics @ phi.T)  # fitted topic -> true topic
    assert np.all(np.abs(topics[rows] - phi[cols]).sum(axis=1) < 0.2)
    # Weights are identified up to a shift common to the classes (per topic).
    fitted = clf.coef_[:, rows[np.argsort(cols)]]
    fitted = fitted - fitted.mean(axis=0)
    true = eta - eta.mean(axis=0)
    assert np.corrcoef(fitted.ravel(), true.ravel())[0, 1] > 0.9
    # Accuracy on new documents close to the Bayes rule's: the true weights
    # scoring the true topic frequencies (0.807 here; the fit 0.803; with
    # seeds 2 and 3 of the test corpus 0.857 / 0.850 and 0.840 / 0.840).
    X_test, y_test, _, zbar = make_multinomial_corpus(eta, seed=1)
    bayes = np.mean(y_test == np.argmax(zbar @ eta.T, axis=1))
    assert clf.score(X_test, y_test) > bayes - 0.03


def test_multinomial_outputs_and_reproducibility():
    X, y = make_three_class()
    labels = np.array(["a", "b", "c"])[y]
    params = dict(n_components=3, c=4.0, multi_class="multinomial", max_iter=20, burn_in=8,
                  random_state=0)
    clf = GibbsSLDAClassifier(**params).fit(X, labels)
    assert clf.coef_.shape == (3, 3) and clf.last_coef_.shape == (3, 3)
    assert clf.components_.shape == (3, 6) and np.ndim(clf.doc_topic_prior_) == 0
    assert clf.trace_.coef.shape == (20, 3, 3) and clf.transform(X).shape == (90, 3)
    scores = clf.decision_function(X)
    assert scores.shape == (90, 3)
    # predict_proba is the softmax of the scores; predict their argmax.
    softmax = np.exp(scores - scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(clf.predict_proba(X), softmax / softmax.sum(axis=1,
                                                                            keepdims=True))
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(scores, axis=1)])
    assert clf.score(X, labels) > 0.9
    again = GibbsSLDAClassifier(**params).fit(X, labels)
    np.testing.assert_array_equal(again.coef_, clf.coef_)
    np.testing.assert_array_equal(again.decision_function(X), scores)
    # Two classes: the binary model whatever multi_class says.
    binary = GibbsSLDAClassifier(**params).fit(X[y < 2], y[y < 2])
    assert binary.coef_.shape == (1, 3)


def test_multinomial_warm_start_continues_the_chain():
    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, multi_class="multinomial", burn_in=4, random_state=0)
    once = GibbsSLDAClassifier(max_iter=10, **params).fit(X, y)
    twice = GibbsSLDAClassifier(max_iter=5, warm_start=True, **params).fit(X, y).fit(X, y)
    np.testing.assert_array_equal(twice.coef_, once.coef_)
    np.testing.assert_array_equal(twice.components_, once.components_)
    with pytest.raises(ValueError, match="other data"):  # same classes, other labels
        twice.fit(X, np.roll(y, 1))
    twice.set_params(multi_class="ovr")
    with pytest.raises(ValueError, match="multi_class"):
        twice.fit(X, y)


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_fitted_classifier_keeps_no_training_labels(multi_class):
    # The labels start the chains and fingerprint a warm start's data during
    # fit; every fitted model kept them (8 + n_classes bytes per training
    # document), so its pickle grew with the training set.
    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, max_iter=4, burn_in=2, multi_class=multi_class,
                  random_state=0)
    many_X, many_y = np.tile(X, (20, 1)), np.tile(y, 20)
    clf = GibbsSLDAClassifier(**params).fit(many_X, many_y)
    per_document = [name for name, value in vars(clf).items()
                    if any(np.ndim(v) and np.shape(v)[0] == many_X.shape[0]
                           for v in (value if isinstance(value, list) else [value]))]
    assert per_document == []
    small = GibbsSLDAClassifier(**params).fit(X, y)
    assert len(pickle.dumps(clf)) < 1.2 * len(pickle.dumps(small))
    # A warm start still tells other labels from the same.
    warm = GibbsSLDAClassifier(**params, warm_start=True).fit(X, y).fit(X, y)
    with pytest.raises(ValueError, match="other data"):
        warm.fit(X, np.roll(y, 1))


@pytest.mark.parametrize("c", [1.0, 3.0])
def test_multinomial_run_starts_with_the_models_coefficients(c):
    # kappa_dj = c (1[y_d = j] - 1/2) (MODELS.md 7), 0 for an empty document;
    # the Geweke test (c = 1) sets its own after redrawing the labels, so only
    # this sees a start without c (a fit at c != 1 would sample another
    # posterior), or a topic factor at c = 1 (which only a divergence test
    # happened to catch).
    from sklearn_pgtm._base import to_tokens

    X, y = make_three_class()
    X[4] = 0
    X = sp.csr_matrix(X)
    clf = GibbsSLDAClassifier(n_components=2, c=c, multi_class="multinomial")
    clf.classes_ = np.arange(3)
    run = clf._start_softmax(X, *to_tokens(X), y.astype(np.int64), np.random.SeedSequence(0))
    expected = np.array([[c * ((y[d] == j) - 0.5) if d != 4 else 0.0 for j in range(3)]
                         for d in range(len(y))])
    np.testing.assert_array_equal(run.kappa, expected)
    # The topic sweep's exact factor softmax(eta zbar_d)_{y_d}^c: its c, and
    # 1 / N_d (0 when empty).
    assert run.response.c == c
    lengths = np.diff(to_tokens(X)[0])
    np.testing.assert_array_equal(run.response.inv_length,
                                  np.where(lengths > 0, 1.0 / np.maximum(lengths, 1), 0.0))

def test_one_vs_rest_chains_in_threads_give_the_same_models():
    # Each class's chain has its own streams: running them side by side on
    # threads changes nothing.
    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, max_iter=10, burn_in=4, random_state=0)
    serial = GibbsSLDAClassifier(**params, n_jobs=1).fit(X, y)
    threaded = GibbsSLDAClassifier(**params, n_jobs=3).fit(X, y)
    np.testing.assert_array_equal(threaded.coef_, serial.coef_)
    np.testing.assert_array_equal(threaded.components_, serial.components_)
    np.testing.assert_array_equal(threaded.predict_proba(X), serial.predict_proba(X))


def test_one_vs_rest_trace_records_each_models_priors():
    # The "auto" priors of each binary model were recorded only in its own
    # run's trace, which one-vs-rest discarded: trace_.doc_topic_prior and
    # topic_word_prior were None (binary and multinomial fits had them), and
    # diagnostics.summary left the priors out. Now one column per model.
    from sklearn_pgtm.diagnostics import summary

    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, max_iter=10, burn_in=6, warm_start=True)
    chains = [GibbsSLDAClassifier(**params, random_state=seed).fit(X, y) for seed in (0, 1)]
    clf = chains[0]
    for name in ("doc_topic_prior", "topic_word_prior"):
        traced = getattr(clf.trace_, name)
        assert traced.shape == (10, 3)
        for m, run in enumerate(clf._run.runs):  # each model's own record
            np.testing.assert_array_equal(traced[:, m], getattr(run.trace, name))
        # Held at the fitted estimate after the burn-in.
        np.testing.assert_array_equal(traced[-1], getattr(clf, name + "_"))
    table = summary(chains, burn_in=2)
    names = set(table.names)
    assert {f"doc_topic_prior[{m}]" for m in range(3)} <= names
    assert {f"topic_word_prior[{m}]" for m in range(3)} <= names
    assert "left out" not in str(table)


@pytest.mark.parametrize("rate, warns", [(0.005, False), (0.02, True)])
def test_one_vs_rest_convergence_warning_judges_each_models_rise(monkeypatch, rate, warns):
    # Each model's log-likelihood rises by `rate` nats per token over the
    # second half of the chain: a one-vs-rest classifier warns as a binary
    # one does (the warning's least rise, MIN_RISE_PER_TOKEN = 0.01, is per
    # token of one model). The summed trace of three models rose by three
    # times as much, so 0.005 per model warned (20 Newsgroups, 20 classes,
    # 200 sweeps: 0.0063 per model, 0.126 summed).
    from sklearn.exceptions import ConvergenceWarning

    def rising(self, run):
        runs = _slda._model_runs(run)
        n_tokens = runs[0].chain.doc_lengths.sum()
        return len(runs) * rate * n_tokens * run.iteration / (self.max_iter / 2)

    monkeypatch.setattr(GibbsSLDAClassifier, "_log_likelihood", rising)
    X, y = make_three_class()
    for labels in (y, y == 0):  # one-vs-rest, binary
        clf = GibbsSLDAClassifier(n_components=3, c=4.0, max_iter=10, burn_in=4, random_state=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf.fit(X, labels)
        assert any(w.category is ConvergenceWarning for w in caught) is warns


def test_log_proba_is_finite_for_extreme_scores():
    X, y = make_supervised_corpus(n_docs=60)
    clf = GibbsSLDAClassifier(n_components=4, c=256.0, max_iter=10, burn_in=4,
                              random_state=0).fit(X, y)
    clf.coef_ = clf.coef_ * 1e4  # scores far beyond exp's range
    log_proba = clf.predict_log_proba(X)
    assert np.all(np.isfinite(log_proba)) and np.all(log_proba <= 0)
    np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)


def test_extreme_c_fails_with_an_error_naming_c():
    # c = 1e300 overflows the response term of the log-likelihood; the chain
    # stops with the package's divergence error, which names c (1e100 fits).
    from sklearn_pgtm.exceptions import ChainDivergenceError

    X, y = make_supervised_corpus(n_docs=40)
    with pytest.raises(ChainDivergenceError, match=r"Change c \(the regularization"):
        GibbsSLDAClassifier(n_components=2, c=1e300, max_iter=4, burn_in=2,
                            random_state=0).fit(X, y)
    clf = GibbsSLDAClassifier(n_components=2, c=1e100, max_iter=4, burn_in=2,
                              random_state=0).fit(X, y)
    assert np.all(np.isfinite(clf.predict_log_proba(X)))


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_integer_c_fits_as_the_float_and_compiles_nothing_new(multi_class):
    # c=10 went to the kernels as an int: a second compiled version of each
    # (47 s with an empty cache; a grid {"c": [1, 10, 100]} meets it).
    X, y = make_supervised_corpus(n_docs=40)
    y[:3] = 2  # three classes: the multinomial and one-vs-rest updates
    kernels = (_slda.draw_augmentation, _slda.draw_class_augmentation)
    fits, compiled = [], []
    for c in (10.0, 10):
        fits.append(GibbsSLDAClassifier(n_components=2, c=c, multi_class=multi_class,
                                        max_iter=4, burn_in=2, random_state=0).fit(X, y))
        compiled.append([len(k.signatures) for k in kernels])
    assert compiled[1] == compiled[0]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
@pytest.mark.parametrize("n_docs, setting", [(40, dict(c=1e20)),
                                             (6, dict(prior_variance=1e300))])
def test_weights_precision_lost_to_rounding_fails_naming_c_and_prior_variance(
        n_classes, multi_class, n_docs, setting):
    # The weights' precision I / nu^2 + sum_d lambda_d zbar_d zbar_d^T loses
    # the prior's term to rounding next to the Polya-Gamma terms at an extreme
    # c, or at an extreme nu^2 in the directions that fewer documents than
    # topics leave undetermined. Its Cholesky factorization failed with
    # numpy's bare "Matrix is not positive definite" (LinAlgError); now the
    # package's divergence error, naming both settings.
    from sklearn_pgtm.exceptions import ChainDivergenceError

    X, _ = make_supervised_corpus(n_docs=n_docs)
    y = np.arange(n_docs) % n_classes
    clf = GibbsSLDAClassifier(n_components=10, multi_class=multi_class, max_iter=4, burn_in=2,
                              random_state=0, **setting)
    with pytest.raises(ChainDivergenceError, match=r"Change c \(smaller\) or prior_variance"):
        clf.fit(X, y)
    assert not hasattr(clf, "coef_")


def test_empty_documents_are_allowed():
    X, y = make_supervised_corpus(n_docs=60)
    X[:5] = 0
    clf = GibbsSLDAClassifier(n_components=4, c=2.0, max_iter=10, burn_in=4,
                              random_state=0).fit(X, y)
    scores = clf.decision_function(X)
    assert np.all(np.isfinite(scores)) and np.all(scores[:5] == 0)
    assert np.all(np.isfinite(clf.coef_))


def test_bad_input_errors():
    X, y = make_supervised_corpus(n_docs=40)
    clf = GibbsSLDAClassifier(n_components=2, max_iter=4, burn_in=2)
    with pytest.raises(ValueError, match="only one class"):
        clf.fit(X, np.zeros(40))
    with pytest.raises(ValueError, match="Negative values"):
        clf.fit(-X, y)
    Xn = X.astype(float)
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xn, y)
    with pytest.raises(ValueError, match="empty"):
        clf.fit(np.zeros_like(X), y)
    clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :-1])
    with pytest.raises(ValueError, match="c"):
        GibbsSLDAClassifier(c=0.0).fit(X, y)


def test_pipeline_and_grid_search_over_c_and_n_components():
    docs = (["god belief faith church prayer"] * 15 + ["atheism reason evidence science"] * 15
            + ["faith science belief evidence"] * 4)
    y = [1] * 15 + [0] * 15 + [1, 0, 1, 0]
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("slda", GibbsSLDAClassifier(max_iter=10, burn_in=4, random_state=0))])
    grid = GridSearchCV(pipe, {"slda__c": [1.0, 4.0], "slda__n_components": [2, 3]}, cv=2)
    grid.fit(docs, y)
    assert set(grid.best_params_) == {"slda__c", "slda__n_components"}
    assert grid.score(docs, y) > 0.8


EXPECTED_FAILED_CHECKS = {
    "check_decision_proba_consistency": (
        "the check's blobs contain negative values, which are not word counts"
    ),
}


@parametrize_with_checks(
    [GibbsSLDAClassifier(n_components=3, max_iter=6, burn_in=2, n_infer_iter=5),
     GibbsSLDAClassifier(n_components=3, multi_class="multinomial", max_iter=6, burn_in=2,
                         n_infer_iter=5)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_binary_inference_uses_n_jobs_threads_on_the_documents(monkeypatch):
    # One model, so the models-in-threads split left one thread and the
    # documents ran on it whatever n_jobs (transform of 790 20 Newsgroups
    # messages, K = 20: 0.168 s with n_jobs=1 and 0.169 s with 2; after:
    # 0.101 s with 2). The documents now share the threads; their streams
    # are their own, so the result is the same.
    import sklearn_pgtm._slda as slda_module

    X, y = make_supervised_corpus(n_docs=60)
    clf = GibbsSLDAClassifier(n_components=3, max_iter=6, burn_in=2, random_state=0).fit(X, y)
    serial = clf.transform(X)
    seen = []
    real = slda_module.dirichlet_posterior

    def recording(*args, **kwargs):
        seen.append(args[7])
        return real(*args, **kwargs)

    monkeypatch.setattr(slda_module, "dirichlet_posterior", recording)
    threaded = clf.set_params(n_jobs=2).transform(X)
    assert seen == [2]
    np.testing.assert_array_equal(threaded, serial)


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_components_are_written_in_place_not_stacked(multi_class, monkeypatch):
    # components_ was a stack of one copy per model (held twice at the end
    # of fit: 480 MB more at K = 100, V = 200,000, three classes). Each
    # model's averaged counts are written straight into its rows of
    # components_, to the same values as the kept counts give.
    import sklearn_pgtm._base as base

    outs = []
    mean = base.transposed_mean
    monkeypatch.setattr(base, "transposed_mean",
                        lambda counts, n, out: outs.append(out) or mean(counts, n, out))
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(0.4, size=(30, 25)))
    y = np.arange(30) % 3
    model = GibbsSLDAClassifier(3, multi_class=multi_class, max_iter=4, burn_in=2,
                                n_infer_iter=2, random_state=0).fit(X, y)
    n_models = 3 if multi_class == "ovr" else 1
    assert model.components_.shape == (3 * n_models, 25)
    assert len(outs) == n_models
    assert all(np.shares_memory(out, model.components_) for out in outs)
    # Pseudo-counts of each model: its prior plus averaged counts of every token.
    betas = np.broadcast_to(model.topic_word_prior_, (n_models,))
    for m in range(n_models):
        np.testing.assert_allclose(model.components_[3 * m:3 * (m + 1)].sum(),
                                   X.sum() + 3 * 25 * betas[m])


@pytest.mark.parametrize("multi_class", ["binary", "ovr", "multinomial"])
def test_predict_proba_is_the_documented_function_of_the_scores(multi_class):
    # Oracle: the docstring's formulas applied here to decision_function:
    # logistic of the score (binary), each one-vs-rest logistic normalized
    # over the classes, the softmax of the class scores (multinomial).
    from scipy.special import expit, softmax

    X, y = make_three_class()
    if multi_class == "binary":
        y = (y == 0).astype(int)
    clf = GibbsSLDAClassifier(
        n_components=3, c=4.0, max_iter=8, burn_in=4, n_infer_iter=10, random_state=0,
        multi_class="multinomial" if multi_class == "multinomial" else "ovr").fit(X, y)
    scores = clf.decision_function(X[:20])
    if multi_class == "binary":
        expected = np.column_stack([expit(-scores), expit(scores)])
    elif multi_class == "ovr":
        expected = expit(scores) / expit(scores).sum(axis=1, keepdims=True)
    else:
        expected = softmax(scores, axis=1)
    np.testing.assert_allclose(clf.predict_proba(X[:20]), expected, rtol=1e-10)
    np.testing.assert_allclose(clf.predict_log_proba(X[:20]), np.log(expected), rtol=1e-10)


@pytest.mark.parametrize("c", [1.0, 25.0, 1024.0])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_refit_start_is_the_posterior_mode_of_a_weighted_logistic_regression(c, n_classes):
    # Oracle: scikit-learn's LogisticRegression without intercept minimizes
    # |w|^2 / 2 + C sum_d s_d loss_d; with C = nu^2 and s_d = c it is the
    # weights' negative log posterior times nu^2 (binary: one weight vector,
    # more classes: the multinomial model's softmax). Empty documents count
    # for nothing.
    from sklearn.linear_model import LogisticRegression

    rng, p, zbar, lengths = _fixed_frequencies(60, seed=3)
    zbar = np.column_stack([zbar, rng.dirichlet([0.5, 0.5], 60)]) / 2.0
    zbar[0] = 0.0
    labels = np.where(rng.uniform(size=60) < p, 0, rng.randint(1, n_classes, 60))
    has_tokens = (lengths > 0)[:, None]
    nu2 = 0.5
    if n_classes == 2:
        kappa = np.where(has_tokens[:, 0], c * (labels - 0.5), 0.0)
        start = np.zeros(4)
    else:
        kappa = np.where(has_tokens, c * (np.eye(n_classes)[labels] - 0.5), 0.0)
        start = np.zeros((n_classes, 4))
    mode = _slda._weights_mode(zbar, kappa, nu2, start)
    oracle = LogisticRegression(C=nu2, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(
        zbar[1:], labels[1:], sample_weight=np.full(59, c))
    expected = oracle.coef_[0] if n_classes == 2 else oracle.coef_
    np.testing.assert_allclose(mode, expected, atol=1e-5 * max(1.0, np.abs(expected).max()))


def test_refit_reaches_the_posterior_at_a_large_c():
    # Two word halves, one per class: the frequencies that prediction sees
    # separate the classes, and at c = 1,024 each Polya-Gamma update moves the
    # weights little. Started at the fit's average weights, the 100 draws of
    # the refit ended 5,794 nats of log posterior below the mode (coef_ 90.3 /
    # -60.2 against 8.8 / -8.6; found by a new-user probe, 2026-11-30); from
    # the mode they stay within the posterior's own spread (about K / 2 nats).
    rng = np.random.RandomState(0)
    y = rng.randint(2, size=100)
    X = np.zeros((100, 20), dtype=int)
    for d in range(100):
        X[d, y[d] * 10:(y[d] + 1) * 10] = rng.multinomial(30, np.full(10, 0.1))
    c = 1024.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = GibbsSLDAClassifier(2, c=c, max_iter=200, random_state=0).fit(X, y)
    zbar = clf._prediction_frequencies(*to_tokens(sp.csr_matrix(X)))[0]

    def neg_log_post(eta):
        omega = zbar @ eta
        return -(c * (y * log_expit(omega) + (1 - y) * log_expit(-omega))).sum() + eta @ eta / 2

    mode = minimize(neg_log_post, np.zeros(2), method="BFGS").x
    assert neg_log_post(clf.coef_[0]) - neg_log_post(mode) < 3.0


def test_refit_weights_average_exactly_the_draws_after_their_burn_in():
    draws = [np.full(2, float(i)) for i in range(_slda.WEIGHT_BURN_IN + 5)]
    np.testing.assert_array_equal(_slda._mean_after_burn_in(iter(draws)),
                                  np.mean(draws[_slda.WEIGHT_BURN_IN:], axis=0))


def test_last_prediction_scores_the_topic_of_the_last_inference_sweep():
    # prediction="last" with inferred topics scores the frequencies of the
    # last inference sweep: a one-token document's frequencies are then one
    # topic's indicator, and its score one of the weights exactly (an
    # average over sweeps would mix them).
    X, y = make_supervised_corpus(n_docs=40, n_words=12)
    clf = GibbsSLDAClassifier(n_components=4, c=2.0, max_iter=8, burn_in=4, n_infer_iter=10,
                              prediction="last", prediction_topics="inferred",
                              random_state=0).fit(X, y)
    scores = clf.decision_function(np.eye(12, dtype=int))
    np.testing.assert_array_equal(clf.coef_, clf.last_coef_)
    assert np.all(np.isin(scores, clf.coef_[0]))


def test_training_log_likelihood_is_the_collapsed_joint_plus_the_response():
    # Oracle: the last value of the trace written with gammaln from the
    # chain's final counts (fixed priors), plus c times the log-likelihood of
    # the labels, log psi(y | omega) = c (y omega - log(1 + e^omega)) for a
    # binary model, c log softmax(omega)_y for the multinomial one.
    X, y = make_three_class()
    X[0] = 0  # an empty document carries no response term
    alpha, beta, c = 0.5, 0.1, 3.0
    for multi_class, labels in (("ovr", (y == 0).astype(int)), ("multinomial", y)):
        clf = GibbsSLDAClassifier(n_components=3, c=c, doc_topic_prior=alpha,
                                  topic_word_prior=beta, max_iter=5, burn_in=2,
                                  multi_class=multi_class, warm_start=True,
                                  random_state=0).fit(X, labels)
        run = clf._run
        doc_topic = run.chain.tokens.doc_topic.astype(np.float64)
        word_topic = run.chain.word_topic.astype(np.float64)
        n_docs, n_topics = doc_topic.shape
        n_words = word_topic.shape[0]
        lengths = doc_topic.sum(axis=1)
        joint = (np.sum(gammaln(n_topics * alpha) - gammaln(lengths + n_topics * alpha))
                 + np.sum(gammaln(doc_topic + alpha) - gammaln(alpha))
                 + np.sum(gammaln(n_words * beta) - gammaln(word_topic.sum(axis=0)
                                                             + n_words * beta))
                 + np.sum(gammaln(word_topic + beta) - gammaln(beta)))
        has = lengths > 0
        zbar = doc_topic[has] / lengths[has, None]
        if multi_class == "ovr":
            omega = zbar @ run.eta
            response = c * np.sum(labels[has] * omega - np.logaddexp(0.0, omega))
        else:
            omega = zbar @ run.eta.T
            log_soft = omega - logsumexp(omega, axis=1, keepdims=True)
            response = c * np.sum(log_soft[np.arange(has.sum()), labels[has]])
        np.testing.assert_allclose(clf.log_likelihood_trace_[-1], joint + response,
                                   rtol=1e-10)


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_weights_are_drawn_given_each_documents_own_topic_frequencies(monkeypatch,
                                                                      multi_class):
    # The weights' conditional is given zbar_d = C_d / N_d (MODELS.md 1):
    # every draw sees rows that sum to 1 (0 for an empty document) and whose
    # multiples by the document's length are its integer topic counts, on a
    # corpus of documents of different lengths, one of them a single token
    # (a zbar of C_d / max(N_d, 2) passed the multinomial Geweke test).
    X, y = make_three_class()
    X[:, 0] *= np.arange(X.shape[0]) % 3  # lengths vary
    X[5] = 0
    X[6] = 0
    X[6, 2] = 1
    lengths = X.sum(axis=1)
    seen = []
    draw_eta = _slda.draw_eta

    def spy(zbar, *args):
        seen.append(zbar.copy())
        return draw_eta(zbar, *args)

    monkeypatch.setattr(_slda, "draw_eta", spy)
    labels = (y == 0).astype(int) if multi_class == "ovr" else y
    GibbsSLDAClassifier(n_components=3, c=2.0, max_iter=4, burn_in=2, prediction="average",
                        multi_class=multi_class, random_state=0).fit(X, labels)
    assert seen
    assert lengths[6] == 1
    for zbar in seen:
        np.testing.assert_allclose(zbar.sum(axis=1), (lengths > 0).astype(float))
        counts = zbar * lengths[:, None]
        np.testing.assert_allclose(counts, np.rint(counts), atol=1e-9)


# With one topic every document's topic frequencies are (1,), so the binary
# chain is the Polya-Gamma sampler of the one-dimensional posterior
# N(eta | 0, nu^2) prod_d exp(c y_d eta) / (1 + exp(eta))^c, whose mean a
# quadrature gives. This pins kappa_d = c (y_d - 1/2) with lambda_d ~ PG(c,
# omega_d): kappa = y - 1/2 passed the Geweke and recovery tests, caught only
# by an error-message test (mutation testing).
def _one_topic_posterior_moments(y, c, prior_variance):
    grid = np.linspace(-8.0, 8.0, 40001)
    n1, n = y.sum(), y.size
    log_post = (-0.5 * grid**2 / prior_variance
                + c * (n1 * log_expit(grid) + (n - n1) * log_expit(-grid)))
    w = np.exp(log_post - log_post.max())
    mean = np.sum(grid * w) / np.sum(w)
    sd = np.sqrt(np.sum((grid - mean) ** 2 * w) / np.sum(w))
    return mean, sd


@pytest.mark.parametrize("c, n_pos, n_docs", [(4.0, 15, 20), (1.0, 6, 20), (2.0, 9, 30)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_topic_weights_are_the_posterior_mean_of_the_c_powered_logistic(c, n_pos, n_docs,
                                                                          seed):
    rng = np.random.RandomState(seed)
    X = rng.poisson(3.0, size=(n_docs, 8)) + 1  # no empty document
    y = np.zeros(n_docs, dtype=int)
    y[rng.permutation(n_docs)[:n_pos]] = 1
    n_iter, burn_in = 3000, 200
    model = GibbsSLDAClassifier(n_components=1, c=c, prior_variance=1.0, max_iter=n_iter,
                                burn_in=burn_in, prediction="average", split_merge=False,
                                pg_method="exact", doc_topic_prior=1.0, topic_word_prior=0.1,
                                random_state=seed).fit(X, y)
    mean, sd = _one_topic_posterior_moments(y, c, 1.0)
    # Monte Carlo error of the mean of 2800 draws of a fast-mixing chain:
    # below 2 sd / sqrt(2800 / 4) = 0.076 sd (allowing an integrated
    # autocorrelation time of 4).
    assert abs(model.coef_.ravel()[0] - mean) < 0.2 * sd, (model.coef_, mean, sd)


def test_perplexity_docstring_does_not_define_it_by_the_accuracy():
    # The classifier inherited the topic models' perplexity docstring,
    # "exp(-score(X) / n_heldout) (see score)", and its score is the
    # accuracy. The value is document completion, averaged over the models.
    doc = GibbsSLDAClassifier.perplexity.__doc__
    assert "score(X)" not in doc and ":meth:`score`" not in doc
    assert "accuracy" in doc and "document completion" in doc.lower()
