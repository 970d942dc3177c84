"""The Dirichlet-prior machinery shared by every model: histograms, the
augmentation and HMC updates of h, the log joint and its gradient, the
Rao-Blackwellized estimate, and "auto" priors inside a chain.

Oracles: sums written directly from the count matrices (NumPy / SciPy),
finite differences, grid quadrature of p(h | z), scipy's digamma and binomial
law, recovery of known priors from corpora drawn from LDA.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import digamma as sp_digamma
from scipy.special import gammaln

from sklearn_pgtm import _priors as priors_module
from sklearn_pgtm._base import to_tokens
from sklearn_pgtm._chain import TopicChain
from sklearn_pgtm._kernels._dirichlet import (
    alpha_rate,
    alpha_shapes,
    beta_augmentation,
    binomial,
    count_histograms,
    digamma,
    doc_length_log_q,
    empty_histograms,
    gamma_draw,
    hmc_update,
    log_doc_joint,
    log_doc_topic_joint,
    log_posterior_grad,
    log_rising,
    log_word_joint,
    log_word_joint_seeded,
)
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._priors import DirichletPriors, RaoBlackwellDensity

from _corpora import lda_corpus


def test_digamma_matches_scipy():
    x = np.concatenate([np.logspace(-4, 4, 200), [0.5, 1.0, 5.9999, 6.0, 123.4]])
    ours = np.array([digamma(v) for v in x])
    np.testing.assert_allclose(ours, sp_digamma(x), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n, p", [(7, 0.3), (2000, 0.37), (100000, 0.001)])
def test_binomial_distribution(n, p):
    state = make_streams(3, 1)[0]
    draws = np.array([binomial(state, n, p) for _ in range(20000)])
    mean, var = n * p, n * p * (1 - p)
    se = np.sqrt(var / draws.size)
    assert abs(draws.mean() - mean) < 5 * se
    assert abs(draws.var() / var - 1) < 0.06
    lo, hi = stats.binom.ppf([0.001, 0.999], n, p).astype(int)
    values = np.arange(lo, hi + 1)
    observed = np.array([(draws == v).sum() for v in values])
    expected = stats.binom.pmf(values, n, p) * draws.size
    keep = expected > 5
    chi = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi, keep.sum() - 1) > 1e-4


def _random_counts(seed, n_docs=30, n_words=25, n_topics=3):
    rng = np.random.RandomState(seed)
    doc_topic = rng.poisson(2.0, size=(n_docs, n_topics)).astype(np.int32)
    doc_topic[rng.rand(n_docs, n_topics) < 0.4] = 0
    word_topic = np.zeros((n_words, n_topics), dtype=np.int32)
    for t in range(n_topics):
        total = doc_topic[:, t].sum()
        word_topic[:, t] = rng.multinomial(total, rng.dirichlet(np.full(n_words, 0.3)))
    return doc_topic, word_topic


def _histograms(doc_topic, word_topic, words=None):
    hist = empty_histograms(doc_topic.sum(axis=1), doc_topic.shape[1], word_topic.max())
    if words is None:
        words = np.arange(word_topic.shape[0])
    count_histograms(doc_topic, word_topic, words, hist)
    return hist


def test_word_histogram_over_the_present_words_is_the_full_one():
    # The rows of words without tokens are 0: counting the others only (as
    # the chains do) gives the histogram of the full matrix.
    doc_topic, word_topic = _random_counts(0, 30, 40, 5)
    wide = np.zeros((400, 5), dtype=np.int32)
    wide[::10] = word_topic
    present = np.flatnonzero(wide.sum(axis=1))
    full, sparse = _histograms(doc_topic, wide), _histograms(doc_topic, wide, present)
    top = full.word_top[0]
    assert top == sparse.word_top[0] == word_topic.max()
    np.testing.assert_array_equal(full.word_counts[:top + 1], sparse.word_counts[:top + 1])
    np.testing.assert_array_equal(full.word_counts[1:top + 1],
                                  np.bincount(word_topic.ravel(), minlength=top + 1)[1:])


def _log_joint_reference(doc_topic, word_topic, alpha, beta):
    """Dirichlet-multinomial terms written directly from the counts (NumPy)."""
    alpha = np.asarray(alpha, dtype=float)
    n_d = doc_topic.sum(axis=1)
    n_d = n_d[n_d > 0]
    doc = np.sum(gammaln(alpha.sum()) - gammaln(n_d + alpha.sum())) + np.sum(
        gammaln(doc_topic + alpha) - gammaln(alpha))
    V = word_topic.shape[0]
    m_t = word_topic.sum(axis=0)
    word = np.sum(gammaln(V * beta) - gammaln(m_t + V * beta)) + np.sum(
        gammaln(word_topic + beta) - gammaln(beta))
    return doc, word


def test_histograms_and_log_joint_match_direct_sums():
    doc_topic, word_topic = _random_counts(0)
    doc_topic[3] = 0  # an empty document
    hist = _histograms(doc_topic, word_topic)
    assert hist.doc_counts[:hist.doc_ptr[-1]].sum() == np.count_nonzero(doc_topic)
    for t in range(3):
        values = hist.doc_values[hist.doc_ptr[t]:hist.doc_ptr[t + 1]]
        np.testing.assert_array_equal(values, np.unique(doc_topic[:, t][doc_topic[:, t] > 0]))
    assert hist.word_counts[1:].sum() == np.count_nonzero(word_topic)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    for alpha, beta in [(np.array([0.2, 0.7, 1.5]), 0.05), (np.full(3, 0.3), 1.2)]:
        doc_ref, word_ref = _log_joint_reference(doc_topic, word_topic, alpha, beta)
        np.testing.assert_allclose(log_doc_joint(alpha, hist), doc_ref, rtol=1e-10)
        np.testing.assert_allclose(log_word_joint(beta, hist, topic_total, word_topic.shape[0]),
                                   word_ref, rtol=1e-10)


def _log_rising_by_sum(x, n):
    """log(x (x + 1) ... (x + n - 1)) summed term by term (no cancellation)."""
    return math.fsum(math.log(x + i) for i in range(int(n)))


@pytest.mark.parametrize("x", [0.3, 7.0, 99.5, 100.0, 2e3, 1e8, 1e16, 1e100])
def test_log_rising_matches_the_sum_of_logs(x):
    for n in [0, 1, 2, 3, 10, 250]:
        np.testing.assert_allclose(log_rising(x, n, math.lgamma(x)),
                                   _log_rising_by_sum(x, n), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("alpha, beta", [(1e8, 1e12), (1e16, 1e16), (0.2, 1e300)])
def test_log_joint_at_huge_priors_is_accurate(alpha, beta):
    """The log joint was lgamma(c + h) - lgamma(h) per count, which loses the
    digits of lgamma(h): at h = 1e16 its error was in the hundreds of nats
    (GibbsLDA's log_likelihood_trace_ -3755 where the exact value is -1122).
    Reference: the rising factorials summed log by log."""
    doc_topic, word_topic = _random_counts(4)
    hist = _histograms(doc_topic, word_topic)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    n_words, n_topics = word_topic.shape
    lengths = doc_topic.sum(axis=1)
    doc_ref = (-sum(_log_rising_by_sum(n_topics * alpha, n) for n in lengths if n)
               + sum(_log_rising_by_sum(alpha, c) for c in doc_topic.ravel()))
    word_ref = (-sum(_log_rising_by_sum(n_words * beta, m) for m in topic_total)
                + sum(_log_rising_by_sum(beta, c) for c in word_topic.ravel()))
    np.testing.assert_allclose(log_doc_joint(np.full(n_topics, alpha), hist), doc_ref,
                               rtol=1e-12)
    np.testing.assert_allclose(log_word_joint(beta, hist, topic_total, n_words), word_ref,
                               rtol=1e-12)
    seeded = log_word_joint_seeded(np.full((n_words, n_topics), beta), word_topic, topic_total)
    np.testing.assert_allclose(seeded, word_ref, rtol=1e-12)
    dense = log_doc_topic_joint(doc_topic, np.full(n_topics, alpha))
    np.testing.assert_allclose(dense, doc_ref, rtol=1e-12)


def test_log_doc_topic_joint_matches_the_histogram_sum():
    doc_topic, word_topic = _random_counts(5)
    doc_topic[3] = 0  # an empty document adds nothing
    hist = _histograms(doc_topic, word_topic)
    alpha = np.array([0.2, 0.7, 1.5])
    doc_ref, _ = _log_joint_reference(doc_topic, word_topic, alpha, 0.1)
    np.testing.assert_allclose(log_doc_topic_joint(doc_topic, alpha), doc_ref, rtol=1e-12)
    np.testing.assert_allclose(log_doc_joint(alpha, hist), doc_ref, rtol=1e-12)


def test_histograms_of_many_topics_match_numpy():
    # 37 topics, every one of them checked (the test above checks three).
    doc_topic, word_topic = _random_counts(3, n_docs=50, n_words=40, n_topics=37)
    doc_topic[7] = 0
    hist = _histograms(doc_topic, word_topic)
    for t in range(37):
        column = doc_topic[:, t]
        values, counts = np.unique(column[column > 0], return_counts=True)
        lo, hi = hist.doc_ptr[t], hist.doc_ptr[t + 1]
        np.testing.assert_array_equal(hist.doc_values[lo:hi], values)
        np.testing.assert_array_equal(hist.doc_counts[lo:hi], counts)
    top = word_topic.max()
    np.testing.assert_array_equal(hist.word_counts[1:top + 1],
                                  np.bincount(word_topic.ravel(), minlength=top + 1)[1:])
    assert hist.word_top[0] == top


@pytest.mark.parametrize("n_threads", [2, 3, 4])
def test_histograms_and_augmentation_on_several_threads_equal_one_thread(n_threads,
                                                                         monkeypatch):
    # The priors count the histograms on the threads of the chain's last
    # sweep (document side on one, word slices on the others; here whatever
    # the size of the counts).
    monkeypatch.setattr(priors_module, "_THREADED_HISTOGRAM_CELLS", 0)
    X, _ = lda_corpus(60, 50, 7, 40, 0.2, 0.1, seed=5)
    doc_ptr, word_ids = to_tokens(sp.csr_matrix(X))
    chain = TopicChain.random(doc_ptr, word_ids, 7, X.shape[1], 0)
    alpha = np.full(7, 0.2)
    serial = DirichletPriors.for_chain(chain, "auto", "auto", 0)
    threaded = DirichletPriors.for_chain(chain, "auto", "auto", 0)
    for _ in range(2):
        chain.sweep_lda(alpha, 0.1, n_jobs=1)
        chain.n_threads = 1
        one = serial._count(chain)
        chain.n_threads = n_threads
        several = threaded._count(chain)
        for name in one._fields:
            np.testing.assert_array_equal(getattr(several, name), getattr(one, name),
                                          err_msg=name)
        # The augmentation's three families of draws run side by side too.
        chain.n_threads = 1
        expected = serial.conditionals(chain)
        chain.n_threads = n_threads
        for got, want in zip(threaded.conditionals(chain), expected):
            np.testing.assert_array_equal(got, want)


def test_histogram_memory_does_not_grow_with_the_longest_document():
    # One 10^6-token document, K = 200: the histograms hold the distinct
    # values, not K x (longest document + 1) bins.
    lengths = np.array([10**6, 5, 7])
    hist = empty_histograms(lengths, 200, 10**6)
    doc_side = hist.doc_values.nbytes + hist.doc_counts.nbytes + hist.scratch.nbytes
    assert doc_side < 20 * 10**6  # bytes; the dense histogram would take 1.6 GB


@pytest.mark.parametrize("symmetric", [True, False])
def test_log_posterior_gradient_finite_differences(symmetric):
    doc_topic, word_topic = _random_counts(1)
    hist = _histograms(doc_topic, word_topic)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    u = np.log(np.array([0.4, 0.15])) if symmetric else np.log(np.array([0.2, 0.5, 0.9, 0.15]))
    args = (symmetric, hist, topic_total, word_topic.shape[0], 1.0, 0.01)
    grad = np.empty_like(u)
    log_posterior_grad(u, *args, grad)
    numeric = np.empty_like(u)
    scratch = np.empty_like(u)
    for j in range(u.size):
        e = np.zeros_like(u)
        e[j] = 1e-6
        numeric[j] = (log_posterior_grad(u + e, *args, scratch)
                      - log_posterior_grad(u - e, *args, scratch)) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-5)


def _posterior_means_by_quadrature(hist, topic_total, n_words, n_topics, prior_shape,
                                   prior_rate):
    """Posterior means of alpha (symmetric) and beta given z, by grid quadrature."""
    grid = np.linspace(1e-3, 5.0, 20000)
    log_a = np.array([log_doc_joint(np.full(n_topics, a), hist) for a in grid])
    log_b = np.array([log_word_joint(b, hist, topic_total, n_words) for b in grid])
    means = []
    for lp in (log_a, log_b):
        lp = lp + (prior_shape - 1) * np.log(grid) - prior_rate * grid
        w = np.exp(lp - lp.max())
        means.append(np.sum(w * grid) / np.sum(w))
    return np.array(means)


@pytest.mark.parametrize("sampler", ["augmentation", "hmc"])
def test_h_update_targets_conditional_posterior(sampler):
    """With z fixed, the h-update must leave p(h | z) invariant (quadrature oracle)."""
    doc_topic, word_topic = _random_counts(2, n_docs=40, n_words=20, n_topics=3)
    hist = _histograms(doc_topic, word_topic)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    a, b = 1.0, 0.5
    expected = _posterior_means_by_quadrature(hist, topic_total, 20, 3, a, b)
    states = make_streams(7, 4)
    alpha = np.full(3, 0.5)
    beta = 0.5
    shape_buf = np.empty(1)
    draws = []
    u = np.log(np.array([0.5, 0.5]))
    inv_mass = np.ones(2)
    for it in range(6000):
        if sampler == "augmentation":
            alpha_shapes(alpha, True, hist, a, states[1], shape_buf)
            rate = alpha_rate(alpha, True, b, doc_length_log_q(alpha, hist, states[0]))
            b_shape, b_rate = beta_augmentation(beta, hist, topic_total, 20, a, b, states[2])
            alpha[:] = gamma_draw(states[3], shape_buf[0], rate)
            beta = gamma_draw(states[3], b_shape, b_rate)
            h = (alpha[0], beta)
        else:
            hmc_update(u, inv_mass, 0.3, 3, True, hist, topic_total, 20, a, b, states[3])
            h = tuple(np.exp(u))
        if it >= 500:
            draws.append(h)
    draws = np.array(draws)
    np.testing.assert_allclose(draws.mean(axis=0), expected, rtol=0.05)


@pytest.mark.parametrize("h", [1e-17, 1e-300])
def test_augmentation_at_tiny_priors_counts_every_first_token(h):
    """The first token of a count is a new table with probability h / (h + 0)
    = 1 at every h > 0: with every count 1, the shapes are exact. The
    probability was computed as h / ((h + 1) - 1.0), which rounds to 0 / 0
    (ZeroDivisionError inside the kernel) below about 1e-16: an HMC or
    augmentation chain of EmpiricalBayesLDA reached such priors."""
    doc_topic = np.zeros((12, 3), dtype=np.int32)
    doc_topic[np.arange(12), np.arange(12) % 3] = 1
    doc_topic[::4, (np.arange(12)[::4] + 1) % 3] = 1
    word_topic = np.zeros((20, 3), dtype=np.int32)
    word_topic[np.arange(15), np.arange(15) % 3] = 1
    hist = _histograms(doc_topic, word_topic)
    topic_total = word_topic.sum(axis=0).astype(np.int32)
    states = make_streams(0, 2)
    shape = np.empty(3)
    for _ in range(20):
        alpha_shapes(np.full(3, h), False, hist, 0.5, states[0], shape)
        np.testing.assert_array_equal(shape, 0.5 + np.count_nonzero(doc_topic, axis=0))
        alpha_shapes(np.full(3, h), True, hist, 0.5, states[0], shape)
        assert shape[0] == 0.5 + np.count_nonzero(doc_topic)
        b_shape, _ = beta_augmentation(h, hist, topic_total, 20, 0.5, 1.0, states[1])
        assert b_shape == 0.5 + np.count_nonzero(word_topic)


def test_rao_blackwell_density_argmax_and_ratio():
    # One recorded sweep with Gamma(shape, rate) conditionals and a flat-ish
    # prior: the ratio is maximal at the conditional's mode.
    shapes = np.array([[30.0, 12.0]])
    rates = np.array([[100.0, 40.0]])
    density = RaoBlackwellDensity(shapes, rates, (1.0, 1e-9))
    h_hat = density.argmax([0.5, 0.5])
    np.testing.assert_allclose(h_hat, (shapes[0] - 1) / rates[0], rtol=1e-5)
    grid = h_hat * np.array([[1.0, 1.0], [1.2, 1.0], [1.0, 0.8]])
    values = density.log_ratio(grid)
    assert values[0] > values[1] and values[0] > values[2]


@pytest.mark.parametrize("estimate", [(True, True), (False, True), (True, False)])
def test_auto_priors_inside_a_chain_recover_the_true_values(estimate):
    # Corpus drawn from LDA with alpha = 0.3, beta = 0.1 (the one of
    # EmpiricalBayesLDA's recovery test): 150 sweeps with the augmentation
    # update, the estimate over the second half.
    X, _ = lda_corpus(600, 300, 4, 60, 0.3, 0.1, seed=11)
    doc_ptr = np.r_[0, np.cumsum(X.sum(axis=1))].astype(np.int64)
    word_ids = np.repeat(np.tile(np.arange(300, dtype=np.int32), 600), X.ravel())
    chain = TopicChain.random(doc_ptr, word_ids, 4, 300, 0)
    priors = DirichletPriors.for_chain(chain, "auto" if estimate[0] else 0.3,
                                       "auto" if estimate[1] else 0.1, 1)
    for it in range(150):
        chain.sweep_lda(priors.alpha, priors.beta)
        priors.update(chain, record=it >= 75)
    h_hat = priors.estimate()
    priors.set_estimated(h_hat)
    assert h_hat.shape == (sum(estimate),)
    truth = np.array([0.3, 0.1])[list(estimate)]
    np.testing.assert_allclose(h_hat, truth, rtol=0.15)
    np.testing.assert_allclose(priors.estimated_values(), h_hat)


@pytest.mark.parametrize("name", ["GibbsLDA", "GibbsSLDAClassifier", "CorrelatedTopicModel"])
def test_auto_prior_needs_a_burn_in(name):
    """'auto' priors are estimated during the burn-in; with burn_in=0 they
    stayed at their start 1 / n_components and were reported as the
    estimate, without a word."""
    import sklearn_pgtm

    X = np.random.RandomState(0).poisson(1.0, size=(12, 8))
    y = np.arange(12) % 2
    estimator = getattr(sklearn_pgtm, name)(3, burn_in=0, max_iter=2, random_state=0)
    with pytest.raises(ValueError, match="burn_in=0 leaves no sweep"):
        estimator.fit(X, y)
    # Fixed priors need no burn-in.
    fixed = {"topic_word_prior": 0.1}
    if name != "CorrelatedTopicModel":
        fixed["doc_topic_prior"] = 0.1
    estimator.set_params(**fixed).fit(X, y)
    assert estimator.topic_word_prior_ == 0.1


def test_dynamic_model_auto_prior_needs_two_sweeps():
    # Its burn-in is the first max_iter - max(max_iter // 2, 1) sweeps: none
    # at max_iter=1, where the prior stayed at 1 / n_components, reported as
    # the estimate.
    from sklearn_pgtm import DynamicTopicModel

    X = np.random.RandomState(0).poisson(1.0, size=(12, 8))
    model = DynamicTopicModel(3, max_iter=1, warm_start_iter=2, n_init=1, random_state=0)
    with pytest.raises(ValueError, match="max_iter=1 leaves no sweep"):
        model.fit(X)
    assert model.set_params(doc_topic_prior=0.1).fit(X).doc_topic_prior_ == 0.1


def test_rao_blackwell_ratio_and_argmax_match_scipy_with_an_informative_hyperprior():
    # Oracle: log nu_hat(h) - log prior(h) written with scipy.stats.gamma,
    # nu_hat the mean over recorded sweeps of the product of the components'
    # Gamma conditionals; its maximizer found by Nelder-Mead on log h. The
    # hyperprior Gamma(2, 3) is far from flat, so dividing it out matters.
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    rng = np.random.default_rng(0)
    shapes = rng.uniform(20.0, 40.0, size=(6, 2))
    rates = shapes / rng.uniform(0.35, 0.45, size=(6, 2))
    hyperprior = (2.0, 3.0)
    density = RaoBlackwellDensity(shapes, rates, hyperprior)

    def reference(h, hyperprior=hyperprior):
        h = np.atleast_2d(h)
        terms = stats.gamma.logpdf(h[:, None, :], shapes[None], scale=1.0 / rates[None])
        log_nu = logsumexp(terms.sum(axis=2), axis=1) - np.log(shapes.shape[0])
        prior = stats.gamma.logpdf(h, hyperprior[0], scale=1.0 / hyperprior[1]).sum(axis=1)
        return log_nu - prior

    points = rng.uniform(0.1, 1.0, size=(20, 2))
    np.testing.assert_allclose(density.log_ratio(points), reference(points), rtol=1e-10)
    # The hyperprior's normalizing constant too: log Gamma(2) = 0 hid a
    # log_gamma_pdf without -gammaln(shape) (mutation testing).
    for other in [(3.5, 0.7), (0.5, 2.0), (7.0, 10.0)]:
        np.testing.assert_allclose(RaoBlackwellDensity(shapes, rates, other).log_ratio(points),
                                   reference(points, other), rtol=1e-10)
    # Started from every sweep's conditional mean; the best local maximum.
    best = min((minimize(lambda u: -reference(np.exp(u))[0], np.log(start),
                         method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12})
                for start in shapes / rates), key=lambda res: res.fun)
    np.testing.assert_allclose(density.argmax([0.4, 0.4]), np.exp(best.x), rtol=1e-4)


def test_auto_priors_start_at_one_over_k_and_fixed_ones_as_given():
    # The documented start of an estimated prior (scikit-learn's default
    # 1 / K for both); a fixed prior is held at its value.
    X, _ = lda_corpus(10, 12, 4, 8, 0.3, 0.1, seed=0)
    doc_ptr = np.r_[0, np.cumsum(X.sum(axis=1))].astype(np.int64)
    word_ids = np.repeat(np.tile(np.arange(12, dtype=np.int32), 10), X.ravel())
    chain = TopicChain.random(doc_ptr, word_ids, 4, 12, 0)
    auto = DirichletPriors.for_chain(chain, "auto", "auto", 1)
    np.testing.assert_array_equal(auto.alpha, np.full(4, 0.25))
    assert auto.beta == 0.25 and auto.estimate_alpha and auto.estimate_beta
    fixed = DirichletPriors.for_chain(chain, 0.7, 0.05, 1)
    np.testing.assert_array_equal(fixed.alpha, np.full(4, 0.7))
    assert fixed.beta == 0.05 and not fixed.estimated


def test_set_estimated_puts_each_topics_alpha_in_its_place():
    # h = (alpha_1 .. alpha_K, beta), alpha first: one alpha per topic in
    # topic order, beta last; estimated_values gives h back.
    X, _ = lda_corpus(10, 12, 4, 8, 0.3, 0.1, seed=0)
    doc_ptr = np.r_[0, np.cumsum(X.sum(axis=1))].astype(np.int64)
    word_ids = np.repeat(np.tile(np.arange(12, dtype=np.int32), 10), X.ravel())
    chain = TopicChain.random(doc_ptr, word_ids, 4, 12, 0)
    priors = DirichletPriors.for_chain(chain, "auto", "auto", 1, symmetric_alpha=False)
    h = np.array([0.1, 0.2, 0.3, 0.4, 0.05])
    priors.set_estimated(h)
    np.testing.assert_array_equal(priors.alpha, h[:4])
    assert priors.beta == 0.05
    np.testing.assert_array_equal(priors.estimated_values(), h)


def test_asymmetric_alpha_update_targets_conditional_posterior():
    """Asymmetric alpha (K = 2, z fixed): the augmentation's draws against the
    posterior means of p(alpha | z) by quadrature on a 2-D grid (the test
    above covers the symmetric case only; a rate of prior_rate - K sum log Q
    for every component passed every test of this file)."""
    doc_topic, word_topic = _random_counts(4, n_docs=40, n_words=20, n_topics=2)
    hist = _histograms(doc_topic, word_topic)
    a, b = 1.0, 0.5
    grid = np.linspace(1e-3, 20.0, 1000)  # mass beyond 20: below 1e-9
    a0, a1 = np.meshgrid(grid, grid, indexing="ij")
    log_p = (a - 1) * (np.log(a0) + np.log(a1)) - b * (a0 + a1)
    for row in doc_topic[doc_topic.sum(axis=1) > 0]:
        log_p += (gammaln(a0 + a1) - gammaln(row.sum() + a0 + a1) + gammaln(row[0] + a0)
                  - gammaln(a0) + gammaln(row[1] + a1) - gammaln(a1))
    w = np.exp(log_p - log_p.max())
    expected = np.array([np.sum(w * a0), np.sum(w * a1)]) / w.sum()
    states = make_streams(8, 3)
    alpha = np.array([0.5, 0.5])
    shape = np.empty(2)
    draws = []
    for it in range(20000):
        alpha_shapes(alpha, False, hist, a, states[1], shape)
        rate = alpha_rate(alpha, False, b, doc_length_log_q(alpha, hist, states[0]))
        alpha = np.array([gamma_draw(states[2], shape[t], rate) for t in range(2)])
        if it >= 500:
            draws.append(alpha)
    np.testing.assert_allclose(np.mean(draws, axis=0), expected, rtol=0.05)
