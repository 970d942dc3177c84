"""Tests of EmpiricalBayesLDA (its kernels: tests/test_priors.py)."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.stats import chi2
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm import _base as base
from sklearn_pgtm._eblda import _disagreement_threshold, _pooled_covariance
from sklearn_pgtm._priors import ConsensusDensity, RaoBlackwellDensity

from _corpora import lda_corpus
from test_priors import _log_joint_reference


# ---------------------------------------------------------------- estimator


@pytest.mark.parametrize("sampler", ["augmentation", "hmc"])
def test_recovery_symmetric(sampler):
    X, _ = lda_corpus(600, 300, 4, 60, 0.3, 0.1, seed=11)
    model = EmpiricalBayesLDA(4, sampler=sampler, n_samples=200, burn_in=100,
                              random_state=0).fit(X)
    assert abs(model.doc_topic_prior_ / 0.3 - 1) < 0.15
    assert abs(model.topic_word_prior_ / 0.1 - 1) < 0.10
    assert isinstance(model.doc_topic_prior_, float)
    assert model.hyperparameter_covariance_.shape == (2, 2)
    if sampler == "hmc":
        assert 0.3 < model.acceptance_rate_ <= 1.0


def test_recovery_asymmetric_with_alignment():
    alpha = np.array([0.2, 0.5, 1.0])
    X, phi = lda_corpus(800, 300, 3, 60, alpha, 0.3, seed=5)
    model = EmpiricalBayesLDA(3, symmetric_alpha=False, n_samples=200, burn_in=100,
                              random_state=1).fit(X)
    est = model.components_ / model.components_.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(np.abs(est[:, None] - phi[None]).sum(axis=2))
    a_hat = np.empty(3)
    a_hat[cols] = model.doc_topic_prior_[rows]
    np.testing.assert_allclose(a_hat, alpha, rtol=0.2)
    assert abs(model.topic_word_prior_ / 0.3 - 1) < 0.10
    assert model.hyperparameter_covariance_.shape == (4, 4)
    assert model.hyperparameter_samples_.shape == (200, 4)


def test_topic_share_trace_in_the_labels_of_components():
    """With one alpha per topic the final chain's topics are moved to the
    reference labels of components_; its trace of topic shares was left in
    its own labels, so topic_summary(model) without X gave each topic the
    prevalence of another (0.708 for a topic of 6.5 % of the tokens)."""
    X, _ = lda_corpus(300, 50, 3, 80, np.array([0.1, 0.5, 1.5]), 0.1, seed=4)
    # random_state=1: the final chain (3 of 4) has other labels than the
    # reference ones (with 0 the first chain is the final one).
    model = EmpiricalBayesLDA(3, symmetric_alpha=False, n_samples=40, burn_in=40,
                              n_final_iter=40, random_state=1).fit(X)
    assert model.final_chain_ != 0
    tokens = model.components_.sum(axis=1) - X.shape[1] * model.topic_word_prior_
    last = model.trace_.topic_share[-20:]
    np.testing.assert_allclose(np.mean(last, axis=0), tokens / tokens.sum(), atol=0.01)
    np.testing.assert_allclose(model.trace_.doc_topic_prior[-1], model.doc_topic_prior_)


@pytest.fixture(scope="module")
def fitted():
    X, _ = lda_corpus(200, 80, 3, 40, 0.3, 0.2, seed=3)
    model = EmpiricalBayesLDA(3, n_samples=100, burn_in=50, random_state=0).fit(X)
    return model, X


def test_marginal_likelihood_surface_and_region(fitted):
    model, _ = fitted
    a, e = model.doc_topic_prior_, model.topic_word_prior_
    best = model.log_marginal_likelihood(a, e)
    assert isinstance(best, float)
    grid_a, grid_e = np.meshgrid(a * np.linspace(0.7, 1.3, 9), e * np.linspace(0.7, 1.3, 11))
    surface = model.log_marginal_likelihood(grid_a, grid_e)
    assert surface.shape == grid_a.shape
    assert np.all(surface <= best + 1e-6)
    assert model.in_confidence_region(a, e)
    assert not model.in_confidence_region(2 * a, 2 * e)
    cov = model.hyperparameter_covariance_
    assert np.all(np.linalg.eigvalsh(cov) >= 0)
    sd = np.sqrt(np.diag(cov))
    assert np.all(sd > 0) and np.all(sd < 0.2 * np.array([a, e]))


def test_transform_score_perplexity(fitted):
    model, X = fitted
    theta = model.transform(X[:20])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_array_equal(theta, model.transform(X[:20]))
    # Document completion: about half of the tokens are held out.
    n_heldout = -model.score(X[:20]) / np.log(model.perplexity(X[:20]))
    assert 0.4 * X[:20].sum() < n_heldout < 0.6 * X[:20].sum()
    # Better than a uniform model over the vocabulary.
    assert model.perplexity(X) < X.shape[1]
    # each of the 4 default chains keeps 100 / 4 iterations
    assert model.n_iter_ == 50 + 25 + model.n_final_iter
    assert model.hyperparameter_samples_.shape == (100, 2)
    assert model.components_.min() >= model.topic_word_prior_ - 1e-12


def test_reproducible_and_sparse_equivalent(fitted):
    _, X = fitted
    params = dict(n_components=3, n_samples=30, burn_in=10, random_state=42)
    m1 = EmpiricalBayesLDA(**params).fit(X)
    m2 = EmpiricalBayesLDA(**params).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(m1.components_, m2.components_)
    assert m1.doc_topic_prior_ == m2.doc_topic_prior_
    m3 = EmpiricalBayesLDA(**{**params, "random_state": 43}).fit(X)
    assert not np.array_equal(m1.hyperparameter_samples_, m3.hyperparameter_samples_)


def test_input_validation(fitted):
    model, X = fitted
    with pytest.raises(ValueError, match="Negative values"):
        EmpiricalBayesLDA(2).fit(-np.ones((3, 4)))
    with pytest.raises(ValueError, match="NaN"):
        EmpiricalBayesLDA(2).fit(np.full((3, 4), np.nan))
    with pytest.raises(ValueError, match="empty"):
        EmpiricalBayesLDA(2).fit(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((2, X.shape[1] + 1)))
    with pytest.raises(ValueError, match="hyperprior"):
        EmpiricalBayesLDA(2, hyperprior=(1.0, -1.0)).fit(X)
    # One alpha per topic (symmetric_alpha=False at fit: set_params after fit
    # does not change the fitted model) takes n_components values.
    per_topic = EmpiricalBayesLDA(3, symmetric_alpha=False, n_samples=8, burn_in=4,
                                  n_final_iter=2, random_state=0)
    _warnings_of(per_topic, X)
    # Its trace holds every topic's alpha (it held topic 0's alone), in the
    # labels of components_: the last entry is the estimate.
    assert per_topic.trace_.doc_topic_prior.shape == (per_topic.n_iter_, 3)
    np.testing.assert_array_equal(per_topic.trace_.doc_topic_prior[-1],
                                  per_topic.doc_topic_prior_)
    with pytest.raises(ValueError, match="last dimension"):
        per_topic.log_marginal_likelihood([0.1, 0.2], 0.1)


@pytest.mark.parametrize("value", ["a", None, True, 1j, {"a": 1}, [0.1, "b"],
                                   [[0.1], [0.1, 0.2]]])
def test_hyperparameter_points_must_be_numbers(fitted, value):
    # np.asarray(value, dtype=float64) let numpy speak ("could not convert
    # string to float: 'a'", a TypeError from float(), "inhomogeneous shape")
    # and read True as 1.0.
    model, _ = fitted
    h = (model.doc_topic_prior_, model.topic_word_prior_)
    for method in (model.log_marginal_likelihood, model.in_confidence_region):
        with pytest.raises(ValueError, match="doc_topic_prior must be a number or an "
                                             "array-like of numbers"):
            method(value, h[1])
        with pytest.raises(ValueError, match="topic_word_prior must be a number"):
            method(h[0], value)
    assert np.isfinite(model.log_marginal_likelihood(np.int64(1), 1))
    assert (model.log_marginal_likelihood(Fraction(1, 2), 1)
            == model.log_marginal_likelihood(0.5, 1.0))


def test_verbose_prints(capsys, fitted):
    _, X = fitted
    EmpiricalBayesLDA(2, n_samples=10, burn_in=0, n_final_iter=2, n_chains=1, verbose=1,
                      random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "sweep 10/" in out and "log_likelihood" in out and "done" in out


@parametrize_with_checks(
    [
        EmpiricalBayesLDA(2, n_samples=8, burn_in=2, n_final_iter=2, n_infer_iter=4,
                          random_state=0),
        EmpiricalBayesLDA(2, sampler="hmc", symmetric_alpha=False, n_samples=8, burn_in=4,
                          n_final_iter=2, n_infer_iter=4, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fixed_hmc_step_and_batches(fitted):
    _, X = fitted
    model = EmpiricalBayesLDA(3, sampler="hmc", hmc_step_size=0.01, n_batches=3, n_samples=30,
                              burn_in=10, random_state=0).fit(X)
    assert model.hmc_step_size_ == 0.01
    # a tiny step on the unit-mass scale is almost always accepted
    assert model.acceptance_rate_ > 0.9
    assert np.isnan(EmpiricalBayesLDA(3, n_samples=10, burn_in=0).fit(X).acceptance_rate_)


@pytest.mark.parametrize("sampler, n_components, X, hyperprior", [
    ("hmc", 1, np.random.RandomState(0).poisson(1.0, size=(20, 15)), (0.01, 0.01)),
    ("augmentation", 3, np.full((6, 1), 3), (0.001, 0.001)),
])
def test_priors_that_wander_below_float_resolution_fit(sampler, n_components, X, hyperprior):
    """alpha is not identified with one topic, nor beta with one word, and a
    vague hyperprior lets the chain take it below 1e-16; the augmentation's
    first-token probability then raised ZeroDivisionError from inside the
    kernel (test_priors: test_augmentation_at_tiny_priors_counts_every_first_token)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = EmpiricalBayesLDA(n_components, sampler=sampler, hyperprior=hyperprior,
                                  n_samples=200, burn_in=50, n_final_iter=4, n_infer_iter=3,
                                  random_state=1).fit(X)
    assert np.all(np.isfinite(model.hyperparameter_samples_))
    assert np.all(np.isfinite(model.transform(X)))


def test_stuck_hmc_warns(fitted):
    _, X = fitted
    with pytest.warns(ConvergenceWarning, match="accepted 0 %.* of its proposals"):
        model = EmpiricalBayesLDA(3, sampler="hmc", hmc_step_size=5.0, n_samples=30,
                                  burn_in=10, random_state=0).fit(X)
    assert model.acceptance_rate_ < 0.1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned = EmpiricalBayesLDA(3, sampler="hmc", n_samples=100, burn_in=50,
                                  random_state=0).fit(X)
    assert tuned.acceptance_rate_ > 0.3
    assert not any("proposals" in str(w.message) for w in caught)


# ------------------------------------------------- honest uncertainty, warnings


def test_pooled_covariance_oracle():
    """Chains whose estimates scatter with the within-chain covariance W have a
    between-chain ratio of mean 1 (tr(W^-1 B) / p has expectation 1 for known W)
    and exceed the warning threshold 1% of the time; scattering 3 times wider
    (9 W) is seen as a ratio near 9, and the covariance is then the sample
    covariance of the estimates over m (W / m below a ratio of 1)."""
    rng = np.random.RandomState(0)
    W = np.array([[4.0, 1.0], [1.0, 2.0]]) * 1e-4
    L = np.linalg.cholesky(W)
    m, p, n_reps = 4, 2, 1500
    threshold = _disagreement_threshold(p, m)
    np.testing.assert_allclose(threshold, chi2.ppf(0.99, p * (m - 1)) / (p * (m - 1)))
    for scale, mean_ratio in ((1.0, 1.0), (3.0, 9.0)):
        ratios = []
        for _ in range(n_reps):
            estimates = 0.3 + scale * rng.standard_normal((m, p)) @ L.T
            pooled = _pooled_covariance(estimates, W)
            ratio = pooled.ratio
            if ratio > 1:
                np.testing.assert_allclose(pooled.covariance, np.cov(estimates.T) / m)
                assert pooled.form == "between chains" and pooled.dof == m - 1
            else:
                np.testing.assert_allclose(pooled.covariance, W / m)
                assert pooled.form == "batch means" and np.isinf(pooled.dof)
            ratios.append(ratio)
        ratios = np.array(ratios)
        # sd of the mean ratio: sqrt(2 / (p (m - 1)) / n_reps) * mean_ratio ~ 0.015 * mean
        assert abs(ratios.mean() / mean_ratio - 1) < 0.06
        if scale == 1.0:
            # 1% expected; binomial sd 0.26%
            assert 0.002 < np.mean(ratios > threshold) < 0.02
        else:
            assert np.mean(ratios > threshold) > 0.8
    pooled = _pooled_covariance(np.array([[0.3, 0.1]]), W)
    np.testing.assert_array_equal(pooled.covariance, W)
    assert np.isnan(pooled.ratio) and np.isinf(pooled.dof)
    # more parameters than chains: B is singular, W is scaled by the ratio
    W3 = np.diag([4.0, 2.0, 1.0]) * 1e-4
    estimates = 0.3 + 3.0 * rng.standard_normal((3, 3)) * np.sqrt(np.diag(W3))
    pooled = _pooled_covariance(estimates, W3)
    assert pooled.form == "scaled batch means" and pooled.dof == 3 * 2
    np.testing.assert_allclose(pooled.covariance, pooled.ratio * W3 / 3)


def test_regions_cover_at_their_level():
    """The region's bound matches how the covariance was estimated. Chains
    scattering 3 times wider than their batch means (covariance 9 W): the
    covariance is the sample covariance of the m estimates over m, and the
    mean of the estimates lies in the region around the true centre with
    probability exactly ``level`` under Hotelling's bound (and far less
    often under the chi2_p bound of a known covariance). With more
    parameters than chains (p >= m) the scaled batch means and the
    p F(p, p (m - 1)) bound: exact again when the scatter has W's shape."""
    rng = np.random.RandomState(1)
    n_reps = 4000
    for p, m in ((2, 4), (2, 8), (3, 3)):
        W = np.diag(np.linspace(4.0, 1.0, p)) * 1e-4 + 0.5e-4
        L = np.linalg.cholesky(W)
        centre = np.linspace(0.3, 0.1, p)
        inside, inside_chi2, forms = [], [], set()
        for _ in range(n_reps):
            estimates = centre + 3.0 * rng.standard_normal((m, p)) @ L.T
            pooled = _pooled_covariance(estimates, W)
            diff = estimates.mean(axis=0) - centre
            stat = diff @ np.linalg.solve(pooled.covariance, diff)
            if pooled.form != "batch means":
                forms.add(pooled.form)
                inside.append(stat <= pooled.bound(0.95))
                inside_chi2.append(stat <= chi2.ppf(0.95, p))
        assert forms == {"between chains" if p < m else "scaled batch means"}
        assert len(inside) > 0.97 * n_reps
        # binomial sd of the coverage: sqrt(.95 * .05 / 4000) = 0.0034
        assert abs(np.mean(inside) - 0.95) < 0.012, (p, m, np.mean(inside))
        assert np.mean(inside_chi2) < 0.9


def test_consensus_density_maximizer_closed_form():
    """Chains each with one recorded Gamma(a_c, r_c) conditional per
    component: the mean of their log densities over the Gamma(1, b)
    hyperprior is maximized at h = mean(a_c - 1) / (mean(r_c) - b); one
    chain's own maximizer is (a_c - 1) / (r_c - b), and equal chains give
    the single chain's maximizer."""
    hyperprior = (1.0, 0.01)
    shapes = np.array([[30.0, 80.0], [50.0, 60.0], [41.0, 100.0]])
    rates = np.array([[200.0, 900.0], [300.0, 1000.0], [260.0, 1500.0]])
    densities = [RaoBlackwellDensity(a[None], r[None], hyperprior)
                 for a, r in zip(shapes, rates)]
    consensus = ConsensusDensity(densities)
    expected = (shapes - 1).mean(axis=0) / (rates.mean(axis=0) - hyperprior[1])
    np.testing.assert_allclose(consensus.argmax(np.array([0.1, 0.1])), expected, rtol=1e-6)
    np.testing.assert_allclose(densities[0].argmax(np.array([0.1, 0.1])),
                               (shapes[0] - 1) / (rates[0] - hyperprior[1]), rtol=1e-6)
    same = ConsensusDensity([densities[1]] * 3)
    np.testing.assert_allclose(same.argmax(np.array([0.1, 0.1])),
                               densities[1].argmax(np.array([0.1, 0.1])), rtol=1e-8)
    h = np.array([[0.1, 0.05], [0.2, 0.07]])
    np.testing.assert_allclose(consensus.log_ratio(h),
                               np.mean([d.log_ratio(h) for d in densities], axis=0))


def _warnings_of(model, X):
    with __import__("warnings").catch_warnings(record=True) as caught:
        __import__("warnings").simplefilter("always")
        model.fit(X)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_far_start_warns():
    """Started at alpha = beta = 1e4 (issue 17: the chain ended at a uniform
    model with no warning), the chains of h are still falling over their kept
    draws: the drift warning. (Each chain's estimate is its own density's
    maximizer from its own draws; the three then scatter 3.0 times as much as
    their batch means imply, just under the 3.3 at which the progress report
    notes that they disagree: test_disagreeing_chains_are_a_note is its
    test.)"""
    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=3)
    model = EmpiricalBayesLDA(3, n_samples=120, burn_in=60, n_final_iter=10, n_chains=3,
                              doc_topic_prior=1e4, topic_word_prior=1e4, random_state=0)
    messages = _warnings_of(model, X)
    assert any("still moving" in m for m in messages)
    assert model.between_chain_ratio_ > 1
    # and the estimate is indeed far from the truth
    assert model.doc_topic_prior_ > 10 * 0.3


def test_disagreeing_chains_are_a_note(monkeypatch, capsys):
    """Chains that disagree about h (here every fit's: the 99 % point is set to
    0) widen the region and are a note of the verbose report, not a
    ConvergenceWarning: on real corpora nearly every fit's chains do."""
    import sklearn_pgtm._eblda as eblda

    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=3)
    params = dict(n_samples=60, burn_in=30, n_final_iter=4, random_state=0)
    quiet = EmpiricalBayesLDA(3, **params)
    _warnings_of(quiet, X)
    monkeypatch.setattr(eblda, "_disagreement_threshold", lambda p, m: 0.0)
    model = EmpiricalBayesLDA(3, verbose=1, **params)
    messages = _warnings_of(model, X)
    assert not any("spread" in m for m in messages), messages
    assert "times as spread as their batch means imply" in capsys.readouterr().out
    # the note changes nothing of the fit
    np.testing.assert_array_equal(model.hyperparameter_covariance_,
                                  quiet.hyperparameter_covariance_)
    np.testing.assert_array_equal(model.components_, quiet.components_)


@pytest.mark.parametrize("sampler, start, step", [("augmentation", 1e4, "auto"),
                                                 ("hmc", 30.0, 0.01)])
def test_burn_in_grows_while_the_chains_drift(sampler, start, step):
    """Started far from the estimate, the kept draws of the first window
    drift: they become burn-in and as many are drawn again, at most until
    the burn-in is MAX_BURN_IN_FACTOR times burn_in; the fit's record
    (iterations, trace, kept draws, acceptance) follows the longer burn-in.
    Started at the default, the burn-in stays as given. (The far starts move
    slowly, the augmentation's from 1e4 and HMC's with a small fixed step, so
    that the first window drifts whatever the chains' luck: from a start of
    30 the augmentation chains, and from 1e4 tuned HMC, can arrive within the
    burn-in on one processor and not on another.)"""
    from sklearn_pgtm._eblda import MAX_BURN_IN_FACTOR

    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=3)
    params = dict(n_samples=120, burn_in=60, n_final_iter=10, n_chains=3, sampler=sampler,
                  random_state=0)
    far = EmpiricalBayesLDA(3, doc_topic_prior=start, topic_word_prior=start,
                            hmc_step_size=step, **params)
    _warnings_of(far, X)
    n_kept = 40
    assert far.burn_in_ > 60 and (far.burn_in_ - 60) % n_kept == 0
    assert far.burn_in_ <= MAX_BURN_IN_FACTOR * 60
    assert far.n_iter_ == far.burn_in_ + n_kept + 10 == far.log_likelihood_trace_.shape[0]
    assert far.hyperparameter_samples_.shape == (3 * n_kept, 2)
    if sampler == "hmc":
        assert 0.0 <= far.acceptance_rate_ <= 1.0
    near = EmpiricalBayesLDA(3, **params).fit(X)
    assert near.burn_in_ == 60 and near.n_iter_ == 60 + n_kept + 10


def test_far_apart_chains_warn_and_extend_the_burn_in(monkeypatch):
    """A chain of h that never moves (its updates skipped: a stuck chain)
    while the others reach the estimate: the drift test, combined over the
    chains, may not see it, but the chains' estimates lie far apart, so the
    burn-in is extended to its limit and the fit warns."""
    from sklearn_pgtm._eblda import MAX_BURN_IN_FACTOR

    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=3)
    update = EmpiricalBayesLDA._update_h

    def first_chain_stuck(self, run, hc, kept):
        if hc is not run.h_chains[0]:
            return update(self, run, hc, kept)
        if kept:  # record the unmoved h as its draw
            hc.priors.record(*hc.priors.conditionals(hc.chain))
            hc.samples.append(hc.priors.estimated_values())

    monkeypatch.setattr(EmpiricalBayesLDA, "_update_h", first_chain_stuck)
    model = EmpiricalBayesLDA(3, doc_topic_prior=5.0, n_samples=120, burn_in=60,
                              n_final_iter=10, n_chains=3, random_state=0)
    messages = _warnings_of(model, X)
    assert any("more than a factor of 2 apart (doc_topic_prior from" in m
               for m in messages), messages
    assert model.burn_in_ == MAX_BURN_IN_FACTOR * 60
    assert model.chain_estimates_[0, 0] > 2 * model.chain_estimates_[1:, 0].max()


def test_far_apart_components():
    """The factor is taken on alpha (its sum when there is one per topic)
    and on beta, largest over smallest; one chain has nothing to compare."""
    from sklearn_pgtm._eblda import FAR_APART_FACTOR

    def informed(model):  # as fit sets it on a corpus with documents of 2+ tokens
        model._alpha_informed = True
        return model

    near = np.array([[0.30, 0.20], [0.33, 0.21], [0.31, 0.19]])
    assert informed(EmpiricalBayesLDA(3))._far_apart_components(near) == []
    far = near.copy()
    far[1, 0] = 0.30 * FAR_APART_FACTOR * 1.01
    assert informed(EmpiricalBayesLDA(3))._far_apart_components(far) == [
        ("doc_topic_prior", 0.30, far[1, 0])]
    per_topic = np.array([[0.01, 0.5, 0.2], [0.05, 0.46, 0.2]])  # sums 0.51, 0.51
    per_topic_model = informed(EmpiricalBayesLDA(2, symmetric_alpha=False))
    assert per_topic_model._far_apart_components(per_topic) == []
    assert informed(EmpiricalBayesLDA(3))._far_apart_components(near[:1]) == []


def test_one_stuck_chain_warns():
    """The HMC stuck test looks at each chain: one chain that accepted
    nothing is enough, whatever the mean acceptance."""
    from types import SimpleNamespace

    model = EmpiricalBayesLDA(3, sampler="hmc", n_samples=120, n_chains=3)
    n_kept = model._n_kept_per_chain()
    run = SimpleNamespace(h_chains=[SimpleNamespace(hmc=SimpleNamespace(accept_sum=a * n_kept))
                                    for a in (0.9, 0.0, 0.8)])
    with pytest.warns(ConvergenceWarning, match="accepted 0 % of its proposals after the "
                                                "burn-in in 1 of the 3 chains"):
        model._warn_if_stuck(run)
    run.h_chains[1].hmc.accept_sum = 0.5 * n_kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model._warn_if_stuck(run)


def test_chains_agree_on_lda_corpus():
    """From the default start on a corpus drawn from LDA, the chains agree: no
    warning about h, pooled draws of every chain, per-chain estimates near the
    pooled one and a covariance that is the pooled one."""
    X, _ = lda_corpus(300, 80, 3, 50, 0.3, 0.2, seed=4)
    model = EmpiricalBayesLDA(3, n_samples=400, burn_in=100, n_final_iter=10,
                              random_state=0)
    messages = _warnings_of(model, X)
    assert not any("hyperparameter" in m for m in messages), messages
    assert model.chain_estimates_.shape == (4, 2)
    assert model.hyperparameter_samples_.shape == (400, 2)
    assert np.isfinite(model.between_chain_ratio_)
    assert model.between_chain_ratio_ < _disagreement_threshold(2, 4)
    h_hat = np.array([model.doc_topic_prior_, model.topic_word_prior_])
    sd = np.sqrt(np.diag(model.hyperparameter_covariance_))
    # every chain's own estimate within a few sd of one chain (2 sd of the pool)
    assert np.all(np.abs(model.chain_estimates_ - h_hat) < 4 * 2 * sd)
    np.testing.assert_allclose(h_hat, [0.3, 0.2], rtol=0.2)


@pytest.mark.parametrize("symmetric_alpha", [True, False])
def test_final_sweeps_continue_the_chain_with_the_highest_log_joint(monkeypatch,
                                                                   symmetric_alpha):
    """At the estimate, every chain's collapsed log joint at h_hat (in its own
    topic labels) matches NumPy sums over its counts, and the final sweeps
    continue the chain with the highest, whose topics give components_."""
    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=8)
    seen = {}
    original = EmpiricalBayesLDA._continue_best_chain

    def spy(self, run):
        seen["counts"] = [(hc.chain.tokens.doc_topic.copy(), hc.chain.word_topic.copy(),
                           hc.perm.copy()) for hc in run.h_chains]
        seen["h_hat"] = run.h_hat.copy()
        original(self, run)
        seen["continued"] = run.chain is run.h_chains[run.final_chain].chain

    monkeypatch.setattr(EmpiricalBayesLDA, "_continue_best_chain", spy)
    model = EmpiricalBayesLDA(3, symmetric_alpha=symmetric_alpha, n_samples=40, burn_in=20,
                              n_final_iter=10, random_state=1).fit(X)
    h_hat = seen["h_hat"]
    expected = [sum(_log_joint_reference(doc_topic, word_topic, h_hat[:-1][perm]
                                         if not symmetric_alpha else np.full(3, h_hat[0]),
                                         h_hat[-1]))
                for doc_topic, word_topic, perm in seen["counts"]]
    np.testing.assert_allclose(model.chain_log_likelihoods_, expected, rtol=1e-10)
    assert model.final_chain_ == int(np.argmax(expected))
    assert model.final_chain_ != 0  # the test would not see a pick of the first chain
    assert seen["continued"]


def test_trend_warning_judges_the_final_sweeps(monkeypatch):
    """The trace moves from the first chain to the final one when the final
    sweeps start; the log-likelihood warning judges those sweeps only, and
    names n_final_iter without warm_start (the estimator has none)."""
    judged = {}

    def record(trace, whom, setting="max_iter", n_tokens=None, can_continue=True, note=""):
        judged.update(trace=np.array(trace), setting=setting, can_continue=can_continue)

    monkeypatch.setattr(base, "warn_if_trending", record)
    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=8)
    model = EmpiricalBayesLDA(3, n_samples=40, burn_in=20, n_final_iter=10,
                              random_state=1).fit(X)
    assert model.final_chain_ != 0
    n_chain = model.burn_in_ + 10  # the burn-in used + n_samples / n_chains
    np.testing.assert_array_equal(judged["trace"], model.log_likelihood_trace_[n_chain:])
    assert judged["trace"].shape == (10,)
    assert judged["setting"] == "n_final_iter" and not judged["can_continue"]


def test_covariance_matches_spread_across_fits():
    """On a corpus drawn from LDA, the spread of the estimates of independent
    fits matches the covariance the fits report (the 95% region of a fit holds
    the estimates of the others often; one chain per fit reported too small a
    covariance on real corpora, issue 17)."""
    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=3)
    models = [EmpiricalBayesLDA(3, n_samples=120, burn_in=60, n_final_iter=4, n_chains=3,
                                random_state=seed).fit(X) for seed in range(8)]
    h = np.array([[m.doc_topic_prior_, m.topic_word_prior_] for m in models])
    reported = np.sqrt(np.mean([np.diag(m.hyperparameter_covariance_) for m in models], axis=0))
    ratio = h.std(axis=0, ddof=1) / reported
    # 8 fits: the sd across fits has about 27% relative error
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio
    pairs = np.mean([models[i].in_confidence_region(*h[j])
                     for i in range(8) for j in range(8) if i != j])
    assert pairs > 0.4, pairs


def test_confidence_region_bound_matches_in_confidence_region():
    """The region's bound (for drawing it) is the one in_confidence_region
    uses: a point just inside the ellipse along the first axis is in, one just
    outside is not; chi2_p with one chain, wider with several that disagree."""
    X, _ = lda_corpus(120, 40, 3, 30, 0.3, 0.2, seed=5)
    for n_chains in (1, 3):
        model = EmpiricalBayesLDA(3, n_samples=60, burn_in=30, n_final_iter=4,
                                  n_chains=n_chains, random_state=0)
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            model.fit(X)
        bound = model.confidence_region_bound(0.9)
        if np.isinf(model.hyperparameter_covariance_dof_):
            assert bound == pytest.approx(chi2.ppf(0.9, 2))
        else:
            assert bound > chi2.ppf(0.9, 2)
        centre = np.array([model.doc_topic_prior_, model.topic_word_prior_])
        values, vectors = np.linalg.eigh(model.hyperparameter_covariance_)
        step = vectors[:, 0] * np.sqrt(values[0] * bound)
        assert model.in_confidence_region(*(centre + 0.99 * step), level=0.9)
        assert not model.in_confidence_region(*(centre + 1.01 * step), level=0.9)
    with pytest.raises(ValueError, match="level"):
        model.confidence_region_bound(1.5)
    # Not numbers: a string raised "TypeError: '<' not supported ...".
    for level in ("0.9", None, [0.9]):
        with pytest.raises(ValueError, match="level must lie in"):
            model.confidence_region_bound(level)
        with pytest.raises(ValueError, match="level must lie in"):
            model.in_confidence_region(model.doc_topic_prior_, model.topic_word_prior_,
                                       level=level)


@pytest.mark.parametrize("symmetric_alpha", [True, False])
def test_one_topic_judges_the_chains_of_beta_alone(symmetric_alpha):
    # With one topic alpha does not enter the likelihood: its chains draw
    # from the hyperprior and lie far apart on every corpus, so a fit at the
    # defaults extended its burn-in (here from 200 to 575 iterations) and
    # warned (doc_topic_prior from 0.44 to 2.1) however well beta, the one
    # hyperparameter the corpus informs, had settled.
    X, _ = lda_corpus(150, 50, 3, 60, 0.3, 0.1, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = EmpiricalBayesLDA(1, symmetric_alpha=symmetric_alpha,
                                  random_state=0).fit(X)
    assert model.burn_in_ == model.burn_in
    beta = model.chain_estimates_[:, -1]
    assert beta.max() < 2 * beta.min()
    _assert_judges_beta_alone(model)


def _assert_judges_beta_alone(model):
    """The post-fit methods of a fit whose corpus says nothing of alpha: the
    log marginal likelihood is flat in alpha (it differed by 40,130 nats
    between alpha and 100 alpha, an estimate from draws that only followed
    the hyperprior), the region unbounded in it, bounded in beta."""
    alpha, beta = model.doc_topic_prior_, model.topic_word_prior_
    assert not model._alpha_identified()
    for factor in (0.01, 100.0):
        assert (model.log_marginal_likelihood(factor * np.asarray(alpha), beta)
                == model.log_marginal_likelihood(alpha, beta))
        assert model.in_confidence_region(factor * np.asarray(alpha), beta)
    assert model.log_marginal_likelihood(alpha, 100 * beta) < model.log_marginal_likelihood(
        alpha, beta)
    assert not model.in_confidence_region(alpha, 100 * beta)


def test_one_token_documents_say_nothing_of_alpha():
    # p(z_d | alpha) = 1 / K for a document of one token: as with one topic,
    # alpha's chains followed the hyperprior (estimates 68 / 39 / 75 / 213),
    # the burn-in was extended to 6,000 and the fit advised a longer one.
    rng = np.random.RandomState(0)
    X = np.eye(15, dtype=int)[rng.randint(15, size=300)]
    with pytest.warns(UserWarning, match="no document has two or more tokens"):
        model = EmpiricalBayesLDA(3, n_samples=100, burn_in=50, n_final_iter=4,
                                  n_infer_iter=3, random_state=0).fit(X)
    _assert_judges_beta_alone(model)
    # One document of two tokens is enough to inform it.
    X[0, (X[0].argmax() + 1) % 15] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)  # checked first
        informed = EmpiricalBayesLDA(3, n_samples=100, burn_in=50, n_final_iter=4,
                                     n_infer_iter=3, random_state=0).fit(X)
    assert informed._alpha_identified()


def test_singular_within_covariance_is_not_inverted_at_its_rounding():
    """With one alpha per topic the batch means of the chains span at most
    n_chains * (n_batches - 1) directions: at the defaults with K = 20, 16 of
    p = 21. pinv inverted the rounding left in the other five (1e-12 of the
    largest singular value), and the between-chain ratio came to 1e13, the
    reported sd of an alpha of 0.2 to 22,000."""
    rng = np.random.RandomState(0)
    p, m, rank = 6, 4, 3
    basis = np.linalg.qr(rng.normal(size=(p, p)))[0]
    scales = np.r_[1.0, 0.5, 0.2, 1e-12, 3e-13, 1e-13]  # rounding after the third
    within = 1e-4 * (basis * scales) @ basis.T
    # chains that scatter three times as much as W says in its directions, and
    # somewhat in the others too
    estimates = (0.2 + rng.normal(size=(m, rank)) * np.sqrt(3e-4 * scales[:rank])
                 @ basis[:, :rank].T + 1e-3 * rng.normal(size=(m, p)))
    pooled = _pooled_covariance(estimates, within)
    assert pooled.form == "scaled batch means"
    assert 0.1 < pooled.ratio < 100
    assert np.all(np.sqrt(np.diag(pooled.covariance)) < 0.1)
    assert pooled.rank() == rank


def test_singular_covariance_warns_and_its_region_is_flat():
    """A region whose covariance lacks some directions (here: one chain, two
    batches, four hyperparameters) held every point along them, however far
    (beta 2.5 times the estimate with log m 68 below its maximum); now such
    points are outside, and the fit warns, naming n_batches."""
    X, _ = lda_corpus(100, 60, 3, 50, 0.3, 0.1, seed=0)
    model = EmpiricalBayesLDA(3, symmetric_alpha=False, n_samples=8, burn_in=20, n_final_iter=2,
                              n_chains=1, random_state=0)
    messages = _warnings_of(model, X)
    values, vectors = np.linalg.eigh(model.hyperparameter_covariance_)
    assert values[0] < 1e-12 * values[-1]
    h_hat = np.r_[model.doc_topic_prior_, model.topic_word_prior_]
    assert model.in_confidence_region(h_hat[:-1], h_hat[-1])
    null = vectors[:, 0] * np.sign(vectors[-1, 0])
    for step in (0.01, 0.1):
        h = h_hat + step * null
        assert not model.in_confidence_region(h[:-1], h[-1])
    assert any("has rank 2 for 4 hyperparameters" in m and "n_batches to at least 5" in m
               for m in messages)
    # Following the advice gives a covariance of full rank and no warning.
    model.set_params(n_samples=10, n_batches=5)
    assert not any("has rank" in m for m in _warnings_of(model, X))
    assert np.linalg.matrix_rank(model.hyperparameter_covariance_) == 4


@pytest.mark.parametrize("params", [dict(sampler="hmc", hmc_step_size=1e-4),
                                    dict(hyperprior=(1e10, 1e10))])
def test_estimate_outside_the_draws_warns(params):
    """Chains of h that cannot leave their start (a tiny fixed HMC step: every
    proposal accepted) or are held by an informative hyperprior put the
    estimate where they never drew: beta 0.196 from draws at 0.3315-0.3339
    (the tuned step gives 0.088), with no warning; the maximizer of the
    marginal likelihood is extrapolated there."""
    X, _ = lda_corpus(200, 100, 3, 50, 0.3, 0.1, seed=0)
    model = EmpiricalBayesLDA(3, n_samples=40, burn_in=20, n_final_iter=2, random_state=0,
                              **params)
    messages = _warnings_of(model, X)
    draws = model.hyperparameter_samples_
    assert not draws[:, 1].min() <= model.topic_word_prior_ <= draws[:, 1].max()
    assert any("lies outside the values the chains drew" in m and "topic_word_prior" in m
               for m in messages)
    # A tuned step reaches it: no such warning.
    model.set_params(sampler="hmc", hmc_step_size="auto", hyperprior=(1.0, 0.01))
    assert not any("outside the values" in m for m in _warnings_of(model, X))


def test_points_that_do_not_broadcast_name_both_parameters(fitted):
    # numpy's message spoke of "arg 0" and "arg 1".
    model, _ = fitted
    for method in (model.log_marginal_likelihood, model.in_confidence_region):
        with pytest.raises(ValueError, match=r"doc_topic_prior of shape \(2,\) and "
                                             r"topic_word_prior of shape \(3,\)"):
            method([0.1, 0.2], [0.1, 0.2, 0.3])
    assert model.log_marginal_likelihood([[0.1], [0.2]], [0.1, 0.2, 0.3]).shape == (2, 3)


def test_stuck_tuned_hmc_advises_a_longer_burn_in(fitted):
    """A tuned step that accepts nothing was tuned over too short a burn-in;
    the warning told the user to use hmc_step_size='auto', the setting in
    use."""
    _, X = fitted
    model = EmpiricalBayesLDA(3, sampler="hmc", n_samples=8, burn_in=1, n_final_iter=2,
                              random_state=0)
    stuck = [m for m in _warnings_of(model, X) if "proposals" in m]
    assert stuck and "use a longer burn_in" in stuck[0]
    assert "Use hmc_step_size='auto'" not in stuck[0]


def test_huge_points_are_outside_without_runtime_warnings(fitted):
    """rate * h overflowed from h of about 1e305: a RuntimeWarning from
    log_marginal_likelihood (and NaN, -inf - -inf, with a hyperprior rate of
    1e6), and the region's norms overflowed from 1e200."""
    model, _ = fitted
    beta = model.topic_word_prior_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.log_marginal_likelihood(1e306, beta) == -np.inf
        assert not model.in_confidence_region(1e200, beta)
        assert not model.in_confidence_region(1e306, beta)
    density = RaoBlackwellDensity(np.full((3, 2), 5.0), np.full((3, 2), 2e6), (1.0, 1e6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert density.log_ratio(np.array([[1e306, 1.0]]))[0] == -np.inf


def test_batch_means_covariance_oracle():
    # Batches whose recorded sweeps repeat one (shape, rate) row: each
    # batch's maximizer is then the mode (shape - 1) / rate of a Gamma
    # (flat hyperprior), and the covariance is by hand m / (J - 1) sum_j
    # (h_j - h)(h_j - h)^T / n. 14 sweeps in J = 3 batches of m = 4: the first
    # two (far off) are left out.
    from sklearn_pgtm._eblda import _batch_means_covariance

    batch_shapes = np.array([[31.0, 11.0], [41.0, 9.0], [26.0, 13.0]])
    batch_rates = np.array([[100.0, 100.0], [110.0, 90.0], [95.0, 105.0]])
    shapes = np.vstack([np.full((2, 2), 500.0), np.repeat(batch_shapes, 4, axis=0)])
    rates = np.vstack([np.full((2, 2), 10.0), np.repeat(batch_rates, 4, axis=0)])
    h_hat = np.array([0.32, 0.11])
    modes = (batch_shapes - 1.0) / batch_rates
    diff = modes - h_hat
    expected = 4 / (3 - 1) * diff.T @ diff / 14
    got = _batch_means_covariance(shapes, rates, (1.0, 1e-12), h_hat, 3)
    np.testing.assert_allclose(got, expected, rtol=1e-4)


@pytest.mark.parametrize("n_final_iter", [10, 7])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_components_average_the_second_half_of_the_final_sweeps(monkeypatch, n_final_iter,
                                                                seed):
    # The docstring: the topics are averaged over the second half of the
    # final sweeps, max(n_final_iter // 2, 1) of them; a spy records each
    # kept sweep's counts (one sweep fewer passed every test; mutation testing).
    X, _ = lda_corpus(150, 60, 3, 40, 0.3, 0.2, seed=8)
    recorded = []
    original = base.GibbsRun.keep_counts

    def spy(self):
        recorded.append(self.chain.word_topic.copy())
        original(self)

    monkeypatch.setattr(base.GibbsRun, "keep_counts", spy)
    model = EmpiricalBayesLDA(3, n_samples=40, burn_in=20, n_final_iter=n_final_iter,
                              random_state=seed).fit(X)
    assert len(recorded) == max(n_final_iter // 2, 1)
    expected = np.mean(recorded, axis=0).T + model.topic_word_prior_
    # components_ holds the final chain's topics in the reference labels.
    cost = np.abs(model.components_[:, None, :] - expected[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    assert cost[rows, cols].max() < 1e-9


# With one topic the corpus says nothing of alpha, and in_confidence_region
# judges beta by its own marginal, beta_hat +- sqrt(C_beta,beta q), q the chi2_1
# quantile for a batch-means covariance (the marginal taken at C[0, 0],
# alpha's variance, passed every test; mutation testing).
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beta_interval_of_a_one_topic_fit_is_its_own_marginal(seed):
    X, _ = lda_corpus(80, 40, 1, 40, 1.0, 0.1, seed)
    model = EmpiricalBayesLDA(1, n_samples=60, burn_in=30, n_final_iter=4, n_chains=1,
                              random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    assert np.isinf(model.hyperparameter_covariance_dof_)  # one chain: batch means
    cov = model.hyperparameter_covariance_
    alpha, beta = model.doc_topic_prior_, model.topic_word_prior_
    for level in (0.9, 0.95):
        half = np.sqrt(cov[-1, -1] * chi2.ppf(level, 1))
        assert half < 0.5 * beta
        for sign in (-1.0, 1.0):
            for a in (alpha, 0.01 * alpha, 100.0 * alpha):  # unbounded in alpha
                assert model.in_confidence_region(a, beta + sign * 0.98 * half, level=level)
                assert not model.in_confidence_region(a, beta + sign * 1.02 * half,
                                                      level=level)


@pytest.mark.parametrize("hyperprior", [(1.0,), (1.0, -0.1), (1.0, "x")])
def test_a_bad_hyperprior_is_refused_naming_the_estimator(hyperprior):
    # Named by the estimator as the family's other parameter errors are
    # ("GibbsLDA: doc_topic_prior=...", "EmpiricalBayesLDA: topic_word_prior ...").
    X = np.random.default_rng(0).poisson(1.0, (6, 5))
    with pytest.raises(ValueError, match=r"^EmpiricalBayesLDA: hyperprior must be a pair"):
        EmpiricalBayesLDA(2, hyperprior=hyperprior).fit(X)
