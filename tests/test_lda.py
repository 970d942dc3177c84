"""GibbsLDA: recovery of topics and priors from corpora drawn from LDA, the
"auto" priors, warm start, traces, threads, scikit-learn checks."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pgtm import CorrelatedTopicModel, GibbsLDA
from sklearn_pgtm import _base as base

from _corpora import lda_corpus


def _matched_l1(components, phi):
    est = components / components.sum(axis=1, keepdims=True)
    cost = np.abs(est[:, None] - phi[None]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    return cost[rows, cols]


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus(600, 300, 4, 60, 0.3, 0.1, seed=11)


def test_recovers_topics_and_priors(corpus):
    X, phi = corpus
    lda = GibbsLDA(4, random_state=0).fit(X)
    assert _matched_l1(lda.components_, phi).max() < 0.5
    assert abs(lda.doc_topic_prior_ / 0.3 - 1) < 0.15
    assert abs(lda.topic_word_prior_ / 0.1 - 1) < 0.15
    # The estimated priors are recorded along the burn-in.
    assert lda.trace_.doc_topic_prior.shape == (lda.n_iter_,)
    assert lda.trace_.topic_share.shape == (lda.n_iter_, 4)
    np.testing.assert_allclose(lda.trace_.topic_share.sum(axis=1), 1.0)


def test_fixed_priors_are_used_as_given(corpus):
    X, _ = corpus
    lda = GibbsLDA(4, doc_topic_prior=0.5, topic_word_prior=0.05, max_iter=20, burn_in=10,
                   random_state=0).fit(X)
    assert lda.doc_topic_prior_ == 0.5 and lda.topic_word_prior_ == 0.05
    assert lda.trace_.doc_topic_prior is None
    assert lda.components_.min() >= 0.05


def test_warm_start_equals_one_longer_run(corpus):
    X, _ = corpus
    X = X[:150]
    params = dict(n_components=4, burn_in=20, random_state=3)
    long = GibbsLDA(max_iter=50, **params).fit(X)
    warm = GibbsLDA(max_iter=15, warm_start=True, **params).fit(X)
    warm.fit(X)  # 30 sweeps: inside... and then past the burn-in
    warm.fit(X)
    warm.set_params(max_iter=5).fit(X)
    assert warm.n_iter_ == 50
    np.testing.assert_array_equal(warm.components_, long.components_)
    np.testing.assert_array_equal(warm.log_likelihood_trace_, long.log_likelihood_trace_)
    assert warm.doc_topic_prior_ == long.doc_topic_prior_
    np.testing.assert_array_equal(warm.transform(X[:5]), long.transform(X[:5]))
    with pytest.raises(ValueError, match="shape"):
        warm.fit(X[:100])
    # Other columns: the continuation's message, not that of a transform's
    # feature check ("X has 20 features, but GibbsLDA is expecting ...").
    with pytest.raises(ValueError, match=r"warm_start continues .* shape \(150, "):
        warm.fit(X[:, :20])
    with pytest.raises(ValueError, match=r"warm_start continues .* shape \(150, "):
        warm.fit(X[:, :20].tolist())  # nested lists too
    # Other counts of the same shape, or a parameter that defines the chain,
    # cannot continue it; threads and sweeps can change (the chain is kept).
    other = sp.csr_matrix(X, copy=True)
    other.data[0] += 1
    with pytest.raises(ValueError, match="other data"):
        warm.fit(other)
    with pytest.raises(ValueError, match=r"topic_word_prior='auto' -> 0.5"):
        warm.set_params(topic_word_prior=0.5).fit(X)
    warm.set_params(topic_word_prior="auto", max_iter=2, n_jobs=2).fit(X)
    assert warm.n_iter_ == 52
    # Without warm_start every fit starts anew.
    cold = GibbsLDA(max_iter=15, **params).fit(X).fit(X)
    assert cold.n_iter_ == 15


def test_n_jobs_reproducible_and_as_good(corpus):
    X, phi = corpus
    a = GibbsLDA(4, max_iter=60, burn_in=30, n_jobs=2, random_state=0).fit(X)
    b = GibbsLDA(4, max_iter=60, burn_in=30, n_jobs=2, random_state=0).fit(X)
    c = GibbsLDA(4, max_iter=60, burn_in=30, n_jobs=1, random_state=0).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert not np.array_equal(a.components_, c.components_)
    assert _matched_l1(a.components_, phi).max() < 0.5
    np.testing.assert_array_equal(a.transform(X[:20]),
                                  a.set_params(n_jobs=1).transform(X[:20]))


def test_sparse_method_samples_the_same_model(corpus):
    X, phi = corpus
    lda = GibbsLDA(4, method="sparse", random_state=0).fit(X)
    assert _matched_l1(lda.components_, phi).max() < 0.5
    assert abs(lda.topic_word_prior_ / 0.1 - 1) < 0.15


def test_convergence_warning_for_a_short_chain(corpus):
    X, _ = corpus
    with pytest.warns(ConvergenceWarning, match="max_iter") as record:
        GibbsLDA(4, max_iter=10, burn_in=4, doc_topic_prior=0.3, topic_word_prior=0.1,
                 random_state=0).fit(X)
    # Attributed to the caller's line, not to the package's.
    assert {w.filename for w in record if "max_iter" in str(w.message)} == {__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        GibbsLDA(4, random_state=0).fit(X)


def test_a_fit_shorter_than_the_burn_in_still_gives_a_model():
    # Nothing recorded after the burn-in: the priors are the chain's current
    # draw and the topics its last counts.
    X = np.random.default_rng(0).poisson(1.0, size=(20, 10))
    # It says so (it did not: GibbsLDA(max_iter=100) at the burn-in of 500,
    # then the default, returned one sweep's topics without a word).
    with pytest.warns(ConvergenceWarning, match=r"ended inside its burn-in \(5 sweeps, "
                                                r"burn-in 50\): no sweep was kept"):
        lda = GibbsLDA(2, max_iter=5, burn_in=50, random_state=0).fit(X)
    assert lda.doc_topic_prior_ > 0 and lda.topic_word_prior_ > 0
    np.testing.assert_allclose((lda.components_ - lda.topic_word_prior_).sum(), X.sum())
    # One sweep after the burn-in is kept: no such warning.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GibbsLDA(2, max_iter=6, burn_in=5, random_state=0).fit(X)
    assert not any("burn-in" in str(w.message) for w in caught)


def test_verbose_reports_progress_and_a_summary(capsys):
    GibbsLDA(2, max_iter=10, burn_in=4, verbose=1, random_state=0).fit(np.ones((6, 5)))
    out = capsys.readouterr().out
    assert "sweep 10/10" in out and "log_likelihood" in out and "done" in out


def test_verbose_summary_of_a_continued_fit_counts_its_own_sweeps(capsys):
    # The summary of a warm-start continuation said "done in 0.01s: 300
    # sweeps" after the 100 sweeps of that call (300 in the whole chain).
    lda = GibbsLDA(2, max_iter=20, burn_in=4, warm_start=True, random_state=0)
    lda.fit(np.ones((6, 5)))
    capsys.readouterr()
    lda.set_params(max_iter=5, verbose=1).fit(np.ones((6, 5)))
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary.endswith(f"5 sweeps (25 in the chain), log-likelihood "
                            f"{lda.log_likelihood_trace_[-1]:.6g}")
    assert lda.n_iter_ == 25
    GibbsLDA(2, max_iter=5, burn_in=4, verbose=1, random_state=0).fit(np.ones((6, 5)))
    assert ": 5 sweeps, log-likelihood" in capsys.readouterr().out.splitlines()[-1]


@parametrize_with_checks([GibbsLDA(3, max_iter=6, burn_in=2, n_infer_iter=4)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_user_guide_labels_cited_by_the_code_exist():
    # Every :ref: of the package's docstrings must name a label of doc/*.rst
    # (the docs build fails on an undefined label, but runs rarely).
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    labels = set()
    for page in (root / "doc").glob("*.rst"):
        labels.update(re.findall(r"^\.\. _([\w-]+):\s*$", page.read_text(encoding="utf-8"), re.M))
    cited = {}
    for source in (root / "sklearn_pgtm").rglob("*.py"):
        for ref in re.findall(r":ref:`([^`]+)`", source.read_text(encoding="utf-8")):
            # A reference may wrap over lines ("User\n    Guide <label>").
            label = re.sub(r"^.*<([^>]+)>$", r"\1", " ".join(ref.split()))
            cited.setdefault(label, source.name)
    assert {"lda", "dirichlet_priors", "seeded_topics", "collapsed_sweep"} <= set(cited)
    missing = {label: where for label, where in cited.items() if label not in labels}
    assert missing == {}


def test_docstring_states_the_default_of_every_parameter():
    # The measured defaults are cited in the docstring: it must name the
    # value the constructor actually uses.
    import inspect
    import re

    doc = GibbsLDA.__doc__
    for name, value in GibbsLDA().get_params().items():
        match = re.search(rf"^    {name} : .*default=([^\n]+)$", doc, re.M)
        assert match, name
        assert match.group(1).strip().strip('"') == str(value), (name, match.group(1), value)
    assert inspect.signature(GibbsLDA).parameters["n_infer_iter"].default == 100


@pytest.mark.parametrize("priors", [dict(doc_topic_prior=0.3, topic_word_prior=0.1),
                                    dict(doc_topic_prior="auto", topic_word_prior="auto")])
def test_components_average_exactly_the_sweeps_after_the_burn_in(priors):
    # Oracle: the same chain continued one sweep at a time (warm_start
    # equals one longer fit), its topic-word counts read after every sweep:
    # components_ is the prior plus their mean over sweeps burn_in + 1 ..
    # max_iter, no sweep more or fewer.
    X, _ = lda_corpus(40, 30, 3, 20, 0.3, 0.1, seed=5)
    burn_in, max_iter = 4, 9
    params = dict(n_components=3, burn_in=burn_in, random_state=0, **priors)
    warm = GibbsLDA(max_iter=1, warm_start=True, **params)
    counts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(max_iter):
            warm.fit(X)
            counts.append(warm._run.chain.word_topic.T.astype(np.float64))
        full = GibbsLDA(max_iter=max_iter, **params).fit(X)
    np.testing.assert_allclose(
        full.components_, warm.topic_word_prior_ + np.mean(counts[burn_in:], axis=0),
        rtol=1e-12)
    np.testing.assert_array_equal(full.components_, warm.components_)


def test_auto_burn_in_is_half_of_max_iter_and_a_continued_chain_keeps_it():
    # burn_in="auto" follows max_iter (a user who shortens the chain keeps a
    # burn-in of half of it, not the 500 of the default length); warm_start
    # continues the chain with the burn-in it started with.
    X, _ = lda_corpus(40, 30, 3, 20, 0.3, 0.1, seed=5)
    params = dict(n_components=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        auto = GibbsLDA(max_iter=9, **params).fit(X)
        fixed = GibbsLDA(max_iter=9, burn_in=4, **params).fit(X)
        assert GibbsLDA().burn_in == "auto" and auto.burn_in_ == fixed.burn_in_ == 4
        np.testing.assert_array_equal(auto.components_, fixed.components_)
        assert auto.doc_topic_prior_ == fixed.doc_topic_prior_
        warm = GibbsLDA(max_iter=9, warm_start=True, **params).fit(X)
        warm.set_params(max_iter=11).fit(X)
        longer = GibbsLDA(max_iter=20, burn_in=4, **params).fit(X)
    assert warm.burn_in_ == 4 and warm.n_iter_ == 20
    np.testing.assert_array_equal(warm.components_, longer.components_)
    # A burn-in of no sweep (max_iter=1) cannot estimate an "auto" prior.
    with pytest.raises(ValueError, match=r"burn_in='auto' at max_iter=1 \(a burn-in of 0"):
        GibbsLDA(max_iter=1, **params).fit(X)


def _catch_conditionals(monkeypatch):
    """The (shapes, rates) of every update of the "auto" priors, caught as
    the chain draws them."""
    from sklearn_pgtm import _priors

    seen = []
    conditionals = _priors.DirichletPriors.conditionals

    def spy(self, chain):
        shapes, rates = conditionals(self, chain)
        seen.append((shapes.copy(), rates.copy()))
        return shapes, rates

    monkeypatch.setattr(_priors.DirichletPriors, "conditionals", spy)
    return seen


def _rao_blackwell_argmax(caught):
    from sklearn_pgtm import _priors

    shapes, rates = (np.array(v) for v in zip(*caught))
    density = _priors.RaoBlackwellDensity(shapes, rates, _priors.DEFAULT_HYPERPRIOR)
    h_hat = density.argmax(shapes.mean(axis=0) / rates.mean(axis=0))
    # A local maximum of the density on a grid around it (not the optimizer's word alone).
    steps = np.exp(np.linspace(-0.05, 0.05, 11))
    grid = np.array([[a, b] for a in h_hat[0] * steps for b in h_hat[1] * steps])
    assert density.log_ratio(h_hat[None])[0] >= density.log_ratio(grid).max() - 1e-9
    return h_hat


def test_auto_priors_are_the_estimate_over_the_second_half_of_the_burn_in(monkeypatch):
    # Oracle: the Gamma conditionals of every update, caught as the chain
    # draws them; the fitted priors must be the maximizer of the
    # Rao-Blackwellized density of those of sweeps burn_in // 2 + 1 ..
    # burn_in (not of the whole burn-in, not a later draw), and the chain
    # must run on them after the burn-in.
    seen = _catch_conditionals(monkeypatch)
    X, _ = lda_corpus(40, 30, 3, 20, 0.3, 0.1, seed=5)
    burn_in = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lda = GibbsLDA(3, burn_in=burn_in, max_iter=14, random_state=0).fit(X)
    assert len(seen) == burn_in  # one update per burn-in sweep, none after
    h_hat = _rao_blackwell_argmax(seen[burn_in // 2:])
    np.testing.assert_allclose([lda.doc_topic_prior_, lda.topic_word_prior_], h_hat,
                               rtol=1e-5)
    # After the burn-in the chain runs on the estimate.
    np.testing.assert_allclose(lda.trace_.doc_topic_prior[burn_in:], lda.doc_topic_prior_)
    np.testing.assert_allclose(lda.trace_.topic_word_prior[burn_in:], lda.topic_word_prior_)


def test_a_fit_ending_inside_the_burn_in_reports_the_estimate_so_far(monkeypatch):
    # As above, over the sweeps recorded so far (burn_in // 2 + 1 .. max_iter).
    seen = _catch_conditionals(monkeypatch)
    X, _ = lda_corpus(40, 30, 3, 20, 0.3, 0.1, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lda = GibbsLDA(3, burn_in=20, max_iter=16, random_state=0).fit(X)
    assert len(seen) == 16
    h_hat = _rao_blackwell_argmax(seen[10:])
    np.testing.assert_allclose([lda.doc_topic_prior_, lda.topic_word_prior_], h_hat,
                               rtol=1e-5)


@pytest.mark.parametrize("estimator", [GibbsLDA(max_iter=200, random_state=0),
                                       CorrelatedTopicModel(max_iter=100, random_state=0)],
                         ids=["GibbsLDA", "CorrelatedTopicModel"])
@pytest.mark.parametrize("seed", [0, 1])
def test_grid_search_over_n_components_finds_the_true_number_of_topics(estimator, seed):
    # GridSearchCV with the estimator's own score (document completion):
    # on corpora drawn from LDA with 5 topics it picks 5 of (2, 5, 15). The
    # plug-in score before it (the documents' own words inferring and
    # scored) rose with every topic and picked the largest K offered.
    from sklearn.model_selection import GridSearchCV

    X, _ = lda_corpus(300, 200, 5, 50, 0.3, 0.05, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        grid = GridSearchCV(estimator, {"n_components": [2, 5, 15]}, cv=3).fit(X)
    assert grid.best_params_ == {"n_components": 5}


@pytest.mark.parametrize("n_infer_iter", [1, 2, 9, 24])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_transform_averages_exactly_the_documented_sweeps(monkeypatch, n_infer_iter, seed):
    # The inference sweeps' counts recorded by a spy, averaged with NumPy
    # over the last averaged_sweeps(n_infer_iter) of them, plus alpha. One
    # sweep fewer (still divided by the window's length) passed every test
    # of GibbsLDA (mutation testing).
    X, _ = lda_corpus(60, 40, 3, 30, 0.3, 0.2, seed=seed)
    model = GibbsLDA(3, max_iter=40, burn_in=20, n_infer_iter=n_infer_iter,
                     random_state=seed).fit(X)
    recorded = []
    original = base.infer_topics

    def spy(tokens, *args, **kwargs):
        original(tokens, *args, **kwargs)
        recorded.append(tokens.doc_topic.copy())

    monkeypatch.setattr(base, "infer_topics", spy)
    theta = model.transform(X[:10])
    assert len(recorded) == n_infer_iter
    n_average = base.averaged_sweeps(n_infer_iter)
    expected = np.mean(recorded[n_infer_iter - n_average:], axis=0) + model.doc_topic_prior_
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(theta, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auto_priors_are_redrawn_at_every_sweep_of_the_burn_in(seed):
    # One data-augmentation update of the 'auto' priors per burn-in sweep (a
    # continuous Gamma draw: two values of the trace in a row are equal with
    # probability 0), the estimate set at the last burn-in sweep and held
    # after it. Recording the second half's conditionals at a prior frozen at
    # mid-burn-in passed the accuracy tests (mutation testing).
    X = lda_corpus(80, 60, 3, 30, 0.3, 0.1, seed=seed)[0]
    burn_in = 20
    lda = GibbsLDA(3, max_iter=26, burn_in=burn_in, split_merge=False,
                   random_state=seed).fit(X)
    for trace in (lda.trace_.doc_topic_prior, lda.trace_.topic_word_prior):
        assert trace.shape == (26,)
        assert np.all(np.diff(trace[:burn_in - 1]) != 0.0), trace
        assert np.all(trace[burn_in - 1:] == trace[burn_in - 1])


@pytest.mark.parametrize("n_topics, has_moves", [(2, False), (3, True), (4, True)])
def test_split_merge_moves_from_three_topics_on(n_topics, has_moves):
    # A merge of two topics and a split of a third need three (the
    # docstring); requiring four passed every test (mutation testing).
    X = lda_corpus(60, 40, 3, 20, 0.2, 0.1, seed=1)[0]
    model = GibbsLDA(n_topics, max_iter=40, burn_in=30, warm_start=True, random_state=0).fit(X)
    assert (model._run.split_merge is not None) == has_moves
