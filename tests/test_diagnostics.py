"""R-hat and ESS on known cases and against ArviZ; run_chains and summary on
a fake topic-model chain that follows the trace contract of the estimators."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.exceptions import NotFittedError

from sklearn_pgtm.diagnostics import (
    Chains,
    ess_bulk,
    ess_tail,
    rhat,
    run_chains,
    summary,
)


def ar1(rho, n_chains, n_draws, seed, scale=1.0):
    """Stationary AR(1) chains x_t = rho x_{t-1} + e_t (e ~ N(0, scale^2))."""
    rng = np.random.default_rng(seed)
    x = np.empty((n_chains, n_draws))
    x[:, 0] = rng.normal(size=n_chains) * scale / np.sqrt(1 - rho ** 2)
    noise = rng.normal(size=(n_chains, n_draws)) * scale
    for t in range(1, n_draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x


# -- R-hat and ESS on known cases ---------------------------------------------
def test_rhat_of_independent_draws_is_one():
    draws = np.random.default_rng(0).normal(size=(4, 2000))
    assert abs(rhat(draws) - 1.0) < 0.005


def test_rhat_detects_different_means_and_different_spreads():
    rng = np.random.default_rng(1)
    shifted = rng.normal(size=(4, 1000)) + np.array([0.0, 0.0, 0.0, 2.0])[:, None]
    assert rhat(shifted) > 1.2
    # Same mean, one chain three times wider: the folded (tail) R-hat sees it.
    wide = rng.normal(size=(4, 1000)) * np.array([1.0, 1.0, 1.0, 3.0])[:, None]
    assert rhat(wide) > 1.05
    # A single drifting chain: its halves differ.
    assert rhat(np.linspace(0, 1, 400) + 0.01 * rng.normal(size=400)) > 1.5


def test_rhat_is_invariant_under_monotone_transforms():
    draws = ar1(0.7, 4, 500, seed=2)
    assert rhat(np.exp(draws)) == pytest.approx(rhat(draws), abs=1e-12)
    assert ess_bulk(np.exp(draws)) == pytest.approx(ess_bulk(draws), rel=1e-12)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8, -0.5])
def test_ess_of_ar1_matches_theory(rho):
    # For AR(1) the integrated autocorrelation time is (1 + rho) / (1 - rho).
    n_chains, n_draws = 4, 20_000
    draws = ar1(rho, n_chains, n_draws, seed=3)
    expected = n_chains * n_draws * (1 - rho) / (1 + rho)
    assert ess_bulk(draws) == pytest.approx(expected, rel=0.12)


def test_ess_tail_of_independent_draws():
    draws = np.random.default_rng(4).normal(size=(4, 5000))
    assert ess_tail(draws) == pytest.approx(20_000, rel=0.15)
    # Correlated draws have fewer effective tail draws.
    assert ess_tail(ar1(0.9, 4, 5000, seed=5)) < 0.2 * 20_000


def test_constant_and_degenerate_draws():
    assert rhat(np.ones((4, 10))) == 1.0
    assert rhat(np.repeat([[0.0], [1.0]], 10, axis=1)) == np.inf
    assert ess_bulk(np.ones((4, 10))) == 40
    with pytest.raises(ValueError, match="at least 4 draws"):
        rhat(np.ones((4, 3)))
    with pytest.raises(ValueError, match="NaN"):
        ess_bulk(np.array([[1.0, np.nan, 2.0, 3.0]]))
    with pytest.raises(ValueError, match="shape"):
        ess_tail(np.ones((2, 3, 4)))
    # numpy's "inhomogeneous shape" error before, naming no argument.
    for diagnostic in (rhat, ess_bulk, ess_tail):
        with pytest.raises(ValueError, match=f"{diagnostic.__name__}: draws must be numbers "
                                             "of shape .n_chains, n_draws., every chain as long"):
            diagnostic([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0]])
        with pytest.raises(ValueError, match="draws must be numbers"):
            diagnostic([["a", "b", "c", "d"]])


@pytest.mark.parametrize("case", ["iid", "ar", "shift", "scale", "cauchy", "discrete",
                                  "odd", "short", "anti"])
def test_equal_to_arviz(case):
    az = pytest.importorskip("arviz")
    rng = np.random.default_rng(6)
    draws = {
        "iid": lambda: rng.normal(size=(4, 1000)),
        "ar": lambda: ar1(0.9, 4, 1000, seed=7),
        "shift": lambda: rng.normal(size=(4, 500)) + np.array([0, 0, 0, 0.5])[:, None],
        "scale": lambda: rng.normal(size=(4, 400)) * np.array([1, 1, 1, 3])[:, None],
        "cauchy": lambda: rng.standard_cauchy(size=(3, 600)),
        "discrete": lambda: rng.poisson(2.0, size=(4, 300)).astype(float),
        "odd": lambda: ar1(0.5, 3, 777, seed=8),
        "short": lambda: rng.normal(size=(2, 9)),
        "anti": lambda: ar1(-0.6, 4, 500, seed=9),
    }[case]()
    dataset = az.convert_to_dataset(draws)
    assert rhat(draws) == pytest.approx(az.rhat(dataset)["x"].item(), abs=1e-9)
    assert ess_bulk(draws) == pytest.approx(az.ess(dataset, method="bulk")["x"].item(),
                                            rel=1e-9)
    assert ess_tail(draws) == pytest.approx(az.ess(dataset, method="tail")["x"].item(),
                                            rel=1e-9)


# -- a fake topic-model chain with the estimators' trace contract --------------
BASE_TOPICS = np.random.default_rng(100).dirichlet(np.full(30, 0.2), size=3)
TRUE_SHARE = np.array([0.5, 0.3, 0.2])
# Classes of the fake multinomial classifier: its weights are the binary
# ones scaled per class.
CLASS_SCALES = np.array([1.0, -2.0, 0.5])


class FakeTopicChain(BaseEstimator):
    """Draws a trace like a topic-model Gibbs chain: an AR(1) log-likelihood
    and topic shares around fixed values, after a transient from a
    chain-specific start that decays with time constant ``relax`` sweeps;
    the topics come out in a random order (label switching). ``n_classes``
    (with ``supervised``): weights of a multinomial classifier, one row per
    class over the shared topics."""

    def __init__(self, max_iter=2000, relax=5.0, rho=0.5, supervised=False, n_classes=None,
                 random_state=None):
        self.max_iter = max_iter
        self.relax = relax
        self.rho = rho
        self.supervised = supervised
        self.n_classes = n_classes
        self.random_state = random_state

    def fit(self, X, y=None):
        rng = check_random_state(self.random_state)
        n = self.max_iter
        order = rng.permutation(3)  # this chain's topic j is base topic order[j]
        transient = np.exp(-np.arange(n) / self.relax)
        noise = ar1(self.rho, 4, n, seed=rng.randint(2 ** 31))
        log_likelihood = -1000.0 + 200.0 * rng.normal() * transient + 5.0 * noise[0]
        share = TRUE_SHARE + 0.3 * rng.uniform(-1, 1, size=3) * transient[:, None]
        share = np.clip(share + 0.01 * noise[1:].T, 1e-3, None)
        share /= share.sum(axis=1, keepdims=True)
        coef = np.array([2.0, -1.0, 0.5]) + 0.1 * noise[1:].T
        coef = coef[:, None, order]
        if self.n_classes:
            coef = coef * CLASS_SCALES[:self.n_classes, None]
        self.components_ = 1000.0 * BASE_TOPICS[order] + rng.uniform(0, 0.1, size=(3, 30))
        self.trace_ = SimpleNamespace(
            log_likelihood=log_likelihood,
            topic_share=share[:, order],
            coef=coef if self.supervised else None,
            doc_topic_prior=None,
            topic_word_prior=np.full(n, 0.01),  # fixed prior: constant, left out
            mean=None,
        )
        self.log_likelihood_trace_ = log_likelihood
        self.n_iter_ = n
        self.order_ = order
        return self


X_FAKE = np.ones((5, 30))


def test_run_chains_seeds_and_reproducibility():
    chains = run_chains(FakeTopicChain(max_iter=50), X_FAKE, n_chains=3, random_state=0)
    assert isinstance(chains, Chains) and len(chains) == 3
    assert len(set(chains.random_states_)) == 3
    assert [c.random_state for c in chains.estimators_] == chains.random_states_
    again = run_chains(FakeTopicChain(max_iter=50), X_FAKE, n_chains=3, random_state=0,
                       n_jobs=2)
    for a, b in zip(chains.estimators_, again.estimators_):
        np.testing.assert_array_equal(a.log_likelihood_trace_, b.log_likelihood_trace_)
    other = run_chains(FakeTopicChain(max_iter=50), X_FAKE, n_chains=3, random_state=1)
    assert other.random_states_ != chains.random_states_


def test_run_chains_sets_random_state_inside_pipelines():
    docs = ["apple banana fruit", "car engine road", "fruit apple salad", "road car wheel"] * 3
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("lda", LatentDirichletAllocation(n_components=2, max_iter=3))])
    chains = run_chains(pipe, docs, n_chains=2, random_state=0)
    seeds = [p.named_steps["lda"].random_state for p in chains.estimators_]
    assert seeds == chains.random_states_
    with pytest.raises(ValueError, match="no random_state"):
        run_chains(CountVectorizer(), docs)
    with pytest.raises(ValueError, match="n_chains"):
        run_chains(pipe, docs, n_chains=0)
    with pytest.raises(ValueError, match="n_jobs"):
        run_chains(pipe, docs, n_jobs=0)
    # Truncated by int() before: 1.5 ran as 1, 0.5 was refused as "n_jobs == 0".
    for n_jobs in (1.5, 0.5, "2", True):
        with pytest.raises(ValueError, match=f"n_jobs must be None or an integer .*got "
                                             f"{n_jobs!r}"):
            run_chains(pipe, docs, n_jobs=n_jobs)


def test_long_chains_agree_after_topic_alignment():
    chains = run_chains(FakeTopicChain(max_iter=2000, supervised=True), X_FAKE,
                        random_state=0)
    assert len({tuple(c.order_) for c in chains.estimators_}) > 1  # labels do switch
    result = chains.summary()
    assert result.agree, result.message
    assert "agree" in result.message and "NOT" not in result.message
    assert result.names[0] == "log_likelihood"
    assert {"topic_share[0]", "coef[2]"} <= set(result.names)
    assert "topic_word_prior" not in result.names  # constant
    assert "topic_word_prior is constant" in result.message
    assert result.n_draws == 1000 and result.burn_in == 1000
    # The aligned topic shares are the reference chain's, whatever the labels.
    reference = chains.estimators_[0].order_
    i = result.names.index("topic_share[0]")
    assert result.mean[i] == pytest.approx(TRUE_SHARE[reference[0]], abs=0.01)
    assert np.all(result.alignment_distance < 0.01)
    assert np.all(result.rhat < 1.01) and np.all(result.ess_bulk > 400)


def test_traces_are_aligned_to_the_first_chain():
    chains = run_chains(FakeTopicChain(max_iter=300, supervised=True), X_FAKE,
                        random_state=0)
    traces = chains.traces()
    assert traces["log_likelihood"].shape == (4, 300)
    reference = chains.estimators_[0].order_
    for k in range(3):
        late = traces[f"topic_share[{k}]"][:, 150:].mean(axis=1)
        np.testing.assert_allclose(late, TRUE_SHARE[reference[k]], atol=0.01)
        late_coef = traces[f"coef[{k}]"][:, 150:].mean(axis=1)
        np.testing.assert_allclose(late_coef, np.array([2.0, -1.0, 0.5])[reference[k]],
                                   atol=0.05)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_multinomial_classifier_weights_are_aligned_over_shared_topics(n_classes):
    # A multinomial classifier traces one row of weights per class over one
    # set of topics: (n_iter, n_classes, n_topics), not one block of topics
    # per row as one-vs-rest. The rows were taken for blocks: 2 classes over
    # 3 topics raised "3 topics cannot be cut into 2 models", and 3 classes
    # cut the topics into blocks of one, so no chain was relabelled.
    chains = run_chains(FakeTopicChain(max_iter=2000, supervised=True, n_classes=n_classes),
                        X_FAKE, random_state=0)
    assert len({tuple(c.order_) for c in chains.estimators_}) > 1
    result = chains.summary()
    assert result.agree, result.message
    assert {f"coef[{c}, {k}]" for c in range(n_classes) for k in range(3)} <= set(
        result.names)
    reference = chains.estimators_[0].order_
    i = result.names.index(f"coef[{n_classes - 1}, 0]")
    expected = CLASS_SCALES[n_classes - 1] * np.array([2.0, -1.0, 0.5])[reference[0]]
    assert result.mean[i] == pytest.approx(expected, abs=0.05)


def test_summary_of_multinomial_classifier_chains():
    from sklearn_pgtm import GibbsSLDAClassifier

    X, _ = lda_corpus(n_docs=30, n_words=20, n_topics=2, length=20)
    y = np.arange(30) % 3
    model = GibbsSLDAClassifier(n_components=2, multi_class="multinomial", max_iter=12,
                                burn_in=6, n_infer_iter=2)
    result = run_chains(model, X, y, n_chains=2, random_state=0).summary()
    assert {f"coef[{c}, {k}]" for c in range(3) for k in range(2)} <= set(result.names)


def test_without_alignment_the_shares_disagree():
    # The same chains compared label by label, without matching: per-topic
    # R-hat is large whenever the labels differ, which is what the alignment fixes.
    chains = run_chains(FakeTopicChain(max_iter=2000), X_FAKE, random_state=0)
    shares = np.stack([c.trace_.topic_share[1000:, 0] for c in chains.estimators_])
    assert rhat(shares) > 1.5


def test_too_short_run_is_flagged():
    # The transient lasts ~5 x 40 sweeps; 60 sweeps in all is far too short.
    short = run_chains(FakeTopicChain(max_iter=60, relax=40.0), X_FAKE, random_state=0)
    result = summary(short)
    assert not result.agree
    assert "do NOT agree" in result.message
    assert "Run longer (larger max_iter)" in result.message
    assert result.rhat[0] > 1.05
    long = run_chains(FakeTopicChain(max_iter=3000, relax=40.0), X_FAKE, random_state=0)
    assert summary(long).agree


def test_low_ess_alone_is_reported():
    # Chains that agree, judged against a demand for more draws than they have.
    chains = run_chains(FakeTopicChain(max_iter=2000), X_FAKE, random_state=0)
    result = summary(chains, burn_in=0.25, ess_threshold=50_000)
    assert not result.agree
    assert "too few effective draws" in result.message
    assert "R-hat >=" not in result.message
    assert result.burn_in == 500
    # Strong autocorrelation in a short run: both problems.
    sticky = summary(run_chains(FakeTopicChain(max_iter=400, rho=0.98), X_FAKE,
                                random_state=0))
    assert not sticky.agree and "too few effective draws" in sticky.message


def test_summary_of_hand_fitted_chains_and_text():
    pd = pytest.importorskip("pandas")
    fitted = [FakeTopicChain(max_iter=500, random_state=s).fit(X_FAKE) for s in range(4)]
    result = summary(fitted, burn_in=100)
    assert result.burn_in == 100 and result.n_draws == 400
    text = str(result)
    assert text.startswith("The 4 chains")
    assert "log_likelihood" in text and "R-hat" in text
    frame = result.to_frame()
    assert list(frame.columns) == ["quantity", "rhat", "ess_bulk", "ess_tail", "mean", "sd"]
    assert len(frame) == len(result.names)


def test_summary_errors():
    fitted = [FakeTopicChain(max_iter=10, random_state=s).fit(X_FAKE) for s in range(2)]
    with pytest.raises(ValueError, match="Only 2 sweeps per chain left .* at least 4"):
        summary(fitted, burn_in=8)
    with pytest.raises(ValueError, match="Only 1 sweep per chain left"):
        summary(fitted, burn_in=9)
    with pytest.raises(ValueError, match="burn_in"):
        summary(fitted, burn_in=1.5)
    with pytest.raises(ValueError, match="burn_in"):
        summary(fitted, burn_in=10)
    lda = LatentDirichletAllocation(n_components=2, max_iter=2).fit(X_FAKE)
    with pytest.raises(ValueError, match="log_likelihood_trace_"):
        summary([lda, lda])
    with pytest.raises(ValueError, match="No chains"):
        summary([])
    # An unfitted chain was told it "does not record its chain".
    unfitted = [fitted[0], FakeTopicChain(max_iter=10)]
    for call in (lambda: summary(unfitted), lambda: Chains(unfitted, [0, 1]).traces()):
        with pytest.raises(NotFittedError, match=r"Chain 1 \(FakeTopicChain\) is not fitted"):
            call()
    with pytest.raises(ValueError, match="several fitted chains"):
        summary(fitted[0])


def test_run_chains_passes_fit_params():
    # MultinomialLDS with several sequences needs fit(X, lengths=...), which
    # run_chains had no way to pass.
    from sklearn_pgtm import MultinomialLDS

    X = np.random.default_rng(0).poisson(2.0, size=(40, 5))
    lds = MultinomialLDS(2, max_iter=6, n_samples=2, n_particles=10)
    chains = run_chains(lds, X, n_chains=2, random_state=0, params={"lengths": [25, 15]})
    seed = chains.random_states_[0]
    alone = lds.set_params(random_state=seed).fit(X, lengths=[25, 15])
    one_sequence = clone(lds).fit(X)
    assert np.array_equal(chains.estimators_[0].emission_matrix_, alone.emission_matrix_)
    assert not np.array_equal(alone.emission_matrix_, one_sequence.emission_matrix_)
    with pytest.raises(ValueError, match="params must be a dict"):
        run_chains(lds, X, n_chains=2, params=[("lengths", [25, 15])])


def test_traces_of_different_lengths_use_the_common_part():
    fitted = [FakeTopicChain(max_iter=n, random_state=s).fit(X_FAKE)
              for s, n in enumerate([300, 400])]
    result = summary(fitted)
    assert result.burn_in == 150 and result.n_draws == 150


# -- the package's estimators, once they record their chains ------------------
def lda_corpus(seed=0, n_docs=500, n_words=500, n_topics=10, length=100):
    """Documents drawn from LDA (alpha 0.2, eta 0.05), and a label from theta.

    A corpus of a realistic shape (hundreds of documents and words, ten
    topics): on the 60-document, 30-word corpus of the tests above, chains of
    GibbsLDA's default length reach R-hat 1.07 only (tiny corpora mix more
    slowly; said in the docstring of ``max_iter``)."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.2), size=n_docs)
    X = np.stack([rng.multinomial(length, t @ phi) for t in theta])
    return X, (theta[:, 0] > np.median(theta[:, 0])).astype(int)


@pytest.mark.parametrize(
    "name", ["GibbsLDA", "EmpiricalBayesLDA", "GibbsSLDAClassifier", "CorrelatedTopicModel"])
def test_chains_of_default_length_agree_on_lda_corpus(name):
    # The target: on a corpus drawn from LDA, 4 chains of the default
    # length give R-hat < 1.05 for the log-likelihood, and a deliberately short
    # run is flagged.
    import sklearn_pgtm

    cls = getattr(sklearn_pgtm, name)
    X, y = lda_corpus()
    supervised = name == "GibbsSLDAClassifier"
    chains = run_chains(cls(n_components=10), X, y if supervised else None, random_state=0)
    result = chains.summary()
    assert result.rhat[result.names.index("log_likelihood")] < 1.05, result.message
    if "max_iter" in cls().get_params():
        short = run_chains(cls(n_components=10, max_iter=8), X, y if supervised else None,
                           random_state=0)
        assert not summary(short).agree


def test_advice_names_the_length_parameters_the_estimator_has():
    # EmpiricalBayesLDA has no max_iter: its chains lengthen with burn_in and
    # n_samples (the verdict said "larger max_iter").
    from sklearn_pgtm import EmpiricalBayesLDA

    X, _ = lda_corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        short = run_chains(EmpiricalBayesLDA(3, burn_in=6, n_samples=16, n_final_iter=4),
                           X[:60], random_state=0)
    result = summary(short)
    assert not result.agree
    assert "larger burn_in and n_samples" in result.message
    assert "max_iter" not in result.message


def test_hellinger_distance_of_the_topic_alignment_is_its_definition():
    # H(p, q) = sqrt(1 - sum_w sqrt(p_w q_w)) for every pair of rows.
    from sklearn_pgtm.diagnostics import _hellinger

    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(7), size=3)
    q = rng.dirichlet(np.ones(7), size=4)
    expected = np.array([[np.sqrt(1.0 - np.sum(np.sqrt(a * b))) for b in q] for a in p])
    np.testing.assert_allclose(_hellinger(p, q), expected, rtol=1e-12, atol=1e-15)


def test_summary_tells_chains_in_separate_modes_from_chains_still_moving():
    # Chains that each settled, at levels far apart (the embedded religion
    # corpus: four GibbsLDA chains as far apart after 4,000 sweeps as after
    # 1,000): the verdict says so instead of advising a longer run, which
    # stays the advice for chains that still drift.
    rng = np.random.default_rng(0)
    levels = np.array([0.0, 8.0, -6.0, 3.0])
    settled = [SimpleNamespace(log_likelihood_trace_=level + rng.normal(0.0, 1.0, 1000))
               for level in levels]
    modes = summary(settled)
    assert not modes.agree
    assert "different modes" in modes.message
    assert "Run longer (larger" not in modes.message
    assert "4 of the 4 chains are each stable" in modes.message
    drifting = [SimpleNamespace(log_likelihood_trace_=np.linspace(0.0, 40.0 * (k + 1), 1000)
                                + rng.normal(0.0, 1.0, 1000)) for k in range(4)]
    moving = summary(drifting)
    assert not moving.agree
    assert "Run longer (larger max_iter)" in moving.message
    assert "different modes" not in moving.message
    # One settled chain among drifting ones is no mode of its own.
    mixed = summary(settled[:1] + drifting[1:])
    assert "different modes" not in mixed.message
