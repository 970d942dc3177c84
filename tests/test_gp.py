"""MultinomialGaussianProcess: every conditional against an independent oracle.

- the latent-function draw against dense Gaussian conditioning (moments, KS);
- predictions at new inputs and the marginal likelihood against dense linear
  algebra;
- the logistic-normal quadrature against numerical integration;
- Geweke tests of the joint sampler (fixed and sampled hyperparameters), and
  a corrupted sampler that the same test must reject;
- coverage of latent curves drawn from the model itself;
- scikit-learn behaviour on real (K >= 2) count data: invariances,
  reproducibility for any n_jobs, clear errors.
"""

import pickle
import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    Matern,
    PairwiseKernel,
    WhiteKernel,
)
from sklearn.utils._param_validation import InvalidParameterError

from _geweke_helpers import batch_means_se
from sklearn_pgtm import ColumnKernel, MultinomialGaussianProcess
from sklearn_pgtm._gp import (
    _StickGP,
    _expected_sigmoid,
    _latent_moments,
    kernel_matrix,
    prior_factor,
)
from sklearn_pgtm._kernels._gp import (
    draw_latent,
    latent_predictive_covariance,
    log_marginal,
)
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._stick_breaking import stick_breaking


def _tiny_problem():
    """4 inputs, 2 sticks; one input has no information on stick 1."""
    u = np.array([[0.0], [0.7], [1.5], [3.0]])
    kernel = ConstantKernel(1.3) * RBF(1.1)
    kmat = kernel_matrix(kernel, u, 0.0)
    precision = np.array([[0.8, 2.0], [1.7, 0.0], [0.3, 0.6], [2.5, 1.1]])
    information = np.array([[0.4, -1.0], [-0.9, 0.0], [0.2, 0.5], [1.3, -0.2]])
    return u, kernel, kmat, precision, information


def _dense_posterior(kmat, w, h):
    cov = np.linalg.inv(np.linalg.inv(kmat) + np.diag(w))
    return cov @ h, cov


def _draw_counts(rng, totals, psi):
    """Multinomial counts with probabilities pi_SB(psi) (rows), by NumPy."""
    pi = np.empty((psi.shape[0], psi.shape[1] + 1))
    stick_breaking(np.ascontiguousarray(psi), pi)
    pi /= pi.sum(axis=1, keepdims=True)
    return rng.multinomial(totals.astype(np.int64), pi).astype(float)


# ----------------------------------------------------------- conditionals
def test_latent_draw_matches_dense_gaussian_conditioning():
    _, _, kmat, precision, information = _tiny_problem()
    factor = prior_factor(kmat)
    states = make_streams(1, 2)
    n = 20000
    draws = np.empty((n, 4, 2))
    latent = np.empty((4, 2))
    for i in range(n):
        draw_latent(kmat, factor, precision, information, states, 0, 2, latent)
        draws[i] = latent
    for k in range(2):
        mean, cov = _dense_posterior(kmat, precision[:, k], information[:, k])
        x = draws[:, :, k]
        se = np.sqrt(np.diag(cov) / n)
        assert np.all(np.abs(x.mean(axis=0) - mean) < 4.5 * se)
        # Entry-wise standard error of a sample covariance: sqrt((s_ii s_jj + s_ij^2) / n).
        d = np.sqrt(np.diag(cov))
        cov_se = np.sqrt((np.outer(d, d) ** 2 + cov ** 2) / n)
        assert np.all(np.abs(np.cov(x.T) - cov) < 4.5 * cov_se)
        # Whitened draws are iid N(0, 1) in every coordinate.
        white = np.linalg.solve(np.linalg.cholesky(cov), (x - mean).T)
        for row in white:
            assert stats.kstest(row, "norm").pvalue > 1e-3


def test_prior_factor_of_singular_kernel_matrices():
    # Repeated inputs and a long length scale: singular to machine precision.
    u = np.r_[np.linspace(0, 1, 30), np.linspace(0, 1, 30)][:, None]
    for kernel in [RBF(50.0), Matern(3.0, nu=2.5), ConstantKernel(2.0) * RBF(0.3)]:
        kmat = kernel_matrix(kernel, u, 0.0)
        factor = prior_factor(kmat)
        assert factor.shape == kmat.shape
        np.testing.assert_allclose(factor @ factor.T, kmat, atol=1e-12 * len(u))


@pytest.mark.parametrize("new", [np.array([[-0.5], [0.7], [2.2], [5.0]]),
                                 # more inputs than one block of the solves (256)
                                 np.linspace(-1.0, 6.0, 300)[:, None]])
def test_predictive_moments_match_dense_formulas(new):
    u, kernel, kmat, precision, information = _tiny_problem()
    cross = kernel(new, u)
    prior_cov = kernel(new)
    mean, var = _latent_moments(kmat, np.ascontiguousarray(cross), np.diag(prior_cov).copy(),
                                precision, information, 1)
    kinv = np.linalg.inv(kmat)
    for k in range(2):
        m_train, c_train = _dense_posterior(kmat, precision[:, k], information[:, k])
        # f* | f is Gaussian with mean cross K^-1 f; integrate f over its posterior.
        a = cross @ kinv
        ref_mean = a @ m_train
        ref_cov = prior_cov - a @ cross.T + a @ c_train @ a.T
        np.testing.assert_allclose(mean[:, k], ref_mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(var[:, k], np.diag(ref_cov), rtol=1e-7, atol=1e-10)
        full_mean, full_cov = latent_predictive_covariance(
            kmat, np.ascontiguousarray(cross), prior_cov, precision, information, k)
        np.testing.assert_allclose(full_mean, ref_mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(full_cov, ref_cov, rtol=1e-7, atol=1e-10)


def test_log_marginal_matches_dense():
    _, _, kmat, precision, information = _tiny_problem()
    out = np.empty(2)
    log_marginal(kmat, precision, information, 0, 2, out)
    for k in range(2):
        keep = precision[:, k] > 0
        w = precision[keep, k]
        ref = stats.multivariate_normal(np.zeros(keep.sum()),
                                        kmat[np.ix_(keep, keep)] + np.diag(1 / w))
        np.testing.assert_allclose(out[k], ref.logpdf(information[keep, k] / w), rtol=1e-10)


@pytest.mark.parametrize("mean", [-12.0, -2.0, 0.0, 3.0])
@pytest.mark.parametrize("sd", [0.01, 1.0, 4.0, 10.0, 30.0, 100.0, 101.0, 1e3, 1e15])
def test_expected_sigmoid_matches_numerical_integration(mean, sd):
    # sd 30 and 100 (predictions far from the data): a fixed step of 0.1 sd
    # was off by 5e-4 and 1.4e-2 there. Above 100 the expansion in 1 / sd^2;
    # sd 1e15 (a jitter of 1e30) asked the rule for 1.8e16 nodes.
    got, got_rest = _expected_sigmoid(np.array([mean]), np.array([sd * sd]))
    ref = integrate.quad(lambda x: expit(x) * stats.norm.pdf(x, mean, sd),
                         mean - 12 * sd, mean + 12 * sd, points=[0.0], epsabs=0, epsrel=1e-11,
                         limit=500)[0]
    np.testing.assert_allclose(got[0], ref, rtol=1e-8)
    np.testing.assert_allclose(got[0] + got_rest[0], 1.0, rtol=1e-12)
    # Elementwise on arrays of any shape, whatever the other entries' sds.
    means = np.array([[mean, 0.5], [-1.0, 2.0]])
    both, _ = _expected_sigmoid(means, np.array([[sd * sd, 0.25], [1.0, 4.0]]))
    np.testing.assert_allclose(both[0, 0], ref, rtol=1e-8)
    for (i, j), s in zip([(0, 1), (1, 0), (1, 1)], [0.5, 1.0, 2.0]):
        alone, _ = _expected_sigmoid(np.array([means[i, j]]), np.array([s * s]))
        np.testing.assert_allclose(both[i, j], alone[0], rtol=1e-8)



def test_expected_sigmoid_of_extreme_means_is_finite_and_quiet():
    # z^3 of the wide branch's expansion overflowed to inf, times a density
    # of 0 (NaN), for means beyond 1e102 standard deviations; sd^4 near the
    # largest variance.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stick, rest = _expected_sigmoid(np.array([1e300, -1e300, 1e105, -40.0, 3.0]),
                                        np.array([4e4, 4e4, 1e4, 1e6, 1.7e308]))
    np.testing.assert_allclose(stick[:3], [1.0, 0.0, 1.0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(rest[:3], [0.0, 1.0, 0.0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(stick[3:] + rest[3:], 1.0, rtol=1e-15)
    np.testing.assert_allclose(stick[4], 0.5, rtol=1e-15)


# ---------------------------------------------------------------- Geweke
def _geweke(n_iter, sample_hyper=False, corrupt=None, seed=0):
    """Marginal-conditional vs successive-conditional draws of (theta, f, y).

    Returns the z-scores of the test functions (f, f^2, y, theta).
    """
    rng = np.random.default_rng(seed)
    u = np.array([[0.0], [0.8], [2.0]])
    totals = np.array([4.0, 3.0, 5.0])
    mu = np.array([0.3, -0.5])
    bounds = (0.5, 2.0)
    kernel = ConstantKernel(1.0, bounds) * RBF(1.0, bounds)

    def prior_thetas(size):
        if not sample_hyper:
            return np.tile(kernel.theta, (size, 1))
        return rng.uniform(np.log(bounds[0]), np.log(bounds[1]), size=(size, 2))

    def stats_of(theta, f, y):
        return np.concatenate([f.reshape(len(f), -1), (f ** 2).reshape(len(f), -1),
                               y[:, :, :2].reshape(len(f), -1), theta], axis=1)

    # Marginal-conditional draws, with the kernel written out in NumPy
    # (c exp(-d^2 / (2 l^2))) and batched Cholesky factors.
    thetas = prior_thetas(n_iter)
    c, length = np.exp(thetas).T
    d2 = (u - u.T) ** 2
    kmats = c[:, None, None] * np.exp(-0.5 * d2 / length[:, None, None] ** 2)
    fs = np.linalg.cholesky(kmats + 1e-10 * np.eye(3)) @ rng.standard_normal((n_iter, 3, 2))
    ys = _draw_counts(rng, np.tile(totals, n_iter), (fs + mu).reshape(-1, 2))
    marginal = stats_of(thetas, fs, ys.reshape(n_iter, 3, 3))

    start = kernel.clone_with_theta(prior_thetas(1)[0])
    state = _StickGP(u, np.zeros((3, 3)), mu, start, 0.0, "exact", 1, seed + 1, 1)
    state.latent = prior_factor(state.kmat) @ rng.standard_normal((3, 2))
    chain_f = np.empty((n_iter, 3, 2))
    chain_y = np.empty((n_iter, 3, 3))
    chain_theta = np.empty((n_iter, 2))
    for it in range(n_iter):
        state.counts = _draw_counts(rng, totals, state.latent + mu)
        state.draw_omega()
        if corrupt is not None:
            state.omega *= corrupt
            state.information = state.kappa - state.omega * mu
        if sample_hyper:
            state.metropolis(np.log(0.5), rng)
        state.draw_latent()
        chain_f[it], chain_y[it], chain_theta[it] = state.latent, state.counts, state.theta
    chain = stats_of(chain_theta, chain_f, chain_y)
    se = np.sqrt(marginal.var(axis=0) / n_iter + batch_means_se(chain) ** 2)
    keep = se > 0
    return (chain.mean(axis=0)[keep] - marginal.mean(axis=0)[keep]) / se[keep]


def test_geweke_joint_sampler_fixed_kernel():
    z = _geweke(20000)
    assert np.all(np.abs(z) < 4.0), z


def test_geweke_joint_sampler_sampled_hyperparameters():
    z = _geweke(10000, sample_hyper=True, seed=3)
    assert np.all(np.abs(z) < 4.0), z


def test_geweke_rejects_a_wrong_conditional():
    # Omega 40% too large makes f too concentrated: the test must notice.
    z = _geweke(20000, corrupt=1.4, seed=5)
    assert np.max(np.abs(z)) > 6.0, z


# -------------------------------------------------------------- recovery
def _draw_from_model(seed, n_inputs=40, n_categories=4, total=60, kernel=None, mu=0.5):
    """Counts at uniform inputs on [0, 10]; offsets linspace(-mu, mu)."""
    rng = np.random.default_rng(seed)
    u = np.sort(rng.uniform(0, 10, size=n_inputs))[:, None]
    kernel = kernel or ConstantKernel(1.5) * Matern(2.0, nu=2.5)
    kmat = kernel_matrix(kernel, u, 0.0)
    f = prior_factor(kmat) @ rng.standard_normal((n_inputs, n_categories - 1))
    mu = np.linspace(-mu, mu, n_categories - 1)
    y = _draw_counts(rng, np.full(n_inputs, total), f + mu)
    return u, y, f + mu, kernel


def test_latent_curves_within_bands_on_data_from_the_model():
    inside = []
    for seed in range(3):
        u, y, psi, kernel = _draw_from_model(seed)
        gp = MultinomialGaussianProcess(kernel, hyperparameters="fixed", max_iter=150,
                                        burn_in=30, random_state=seed).fit(u, y)
        mean, sd = gp.predict_latent(u, return_std=True)
        inside.append(np.abs(psi - mean) < 1.645 * sd)
    coverage = np.mean(inside)
    assert 0.80 <= coverage <= 0.97, coverage


def test_predict_recovers_probabilities_with_many_counts():
    u, y, psi, _ = _draw_from_model(7, total=5000)
    gp = MultinomialGaussianProcess(max_iter=60, burn_in=20, random_state=0).fit(u, y)
    truth = np.empty((u.shape[0], 4))
    stick_breaking(np.ascontiguousarray(psi), truth)
    assert np.max(np.abs(gp.predict(u) - truth)) < 0.03
    # ...and interpolates between inputs.
    mid = 0.5 * (u[:-1] + u[1:])
    between = 0.5 * (truth[:-1] + truth[1:])
    assert np.max(np.abs(gp.predict(mid) - between)) < 0.06


def test_empirical_hyperparameters_near_the_truth():
    thetas = []
    for seed in range(4):
        u, y, _, kernel = _draw_from_model(seed, n_inputs=60, n_categories=6, total=400)
        gp = MultinomialGaussianProcess(max_iter=2, burn_in=1, random_state=0).fit(u, y)
        thetas.append(np.exp(gp.kernel_.theta))
    variance, length = np.exp(np.mean(np.log(thetas), axis=0))
    assert 1.5 / 2 < variance < 1.5 * 2 and 2.0 / 2 < length < 2.0 * 2, (variance, length)


def test_auto_burn_in_is_a_quarter_of_max_iter():
    # 50 of the default 200 sweeps; a chain shortened with max_iter alone
    # keeps the proportion (a fixed 50 refused max_iter <= 50).
    u, y, _, _ = _draw_from_model(0, n_inputs=20, n_categories=4, total=60)
    assert MultinomialGaussianProcess().burn_in == "auto"
    assert MultinomialGaussianProcess()._burn_in() == 50
    auto = MultinomialGaussianProcess(max_iter=12, random_state=0).fit(u, y)
    fixed = MultinomialGaussianProcess(max_iter=12, burn_in=3, random_state=0).fit(u, y)
    np.testing.assert_array_equal(auto.predict(u), fixed.predict(u))
    with pytest.raises(ValueError, match="burn_in=12 must be smaller than max_iter=12"):
        MultinomialGaussianProcess(max_iter=12, burn_in=12).fit(u, y)


# ------------------------------------------------------ estimator behaviour
@pytest.fixture(scope="module")
def data():
    u, y, _, _ = _draw_from_model(11, n_inputs=25, n_categories=4, total=30)
    return u, y


def test_reproducible_for_any_n_jobs(data):
    u, y = data
    new = np.linspace(-1, 11, 7)[:, None]
    for mode in ["empirical", "sample"]:
        preds = [
            MultinomialGaussianProcess(hyperparameters=mode, max_iter=30, burn_in=10,
                                       random_state=3, n_jobs=n_jobs).fit(u, y).predict(new)
            for n_jobs in [1, 2, 1]
        ]
        np.testing.assert_array_equal(preds[0], preds[1])
        np.testing.assert_array_equal(preds[0], preds[2])
    other = MultinomialGaussianProcess(max_iter=30, burn_in=10, random_state=4).fit(u, y)
    assert not np.array_equal(other.predict(new), preds[0])


def test_prediction_invariances_and_pickle(data):
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=30, burn_in=10, random_state=0).fit(u, y)
    new = np.linspace(-1, 11, 9)[:, None]
    p = gp.predict(new)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(gp.predict(new), p)  # repeated calls
    np.testing.assert_allclose(gp.predict(new[::-1]), p[::-1], rtol=1e-12)  # order
    np.testing.assert_allclose(gp.predict(new[2:5]), p[2:5], rtol=1e-12)  # subsets
    np.testing.assert_allclose(gp.predict(new.astype(np.float32)), p, rtol=1e-6)
    again = pickle.loads(pickle.dumps(gp))
    np.testing.assert_array_equal(again.predict(new), p)
    mean, sd = gp.predict_latent(new, return_std=True)
    assert mean.shape == sd.shape == (9, 3) and np.all(sd > 0)
    # Far from the data the logits fall back to the prior: mean mu, variance ~ kernel variance.
    far = gp.predict_latent([[1e4]], return_std=True)
    np.testing.assert_allclose(far[0][0], gp.mean_, atol=1e-8)
    np.testing.assert_allclose(far[1][0] ** 2, gp.kernel_.diag(np.array([[1e4]]))[0], rtol=1e-6)
    assert np.isfinite(gp.score(u, y)) and gp.score(u, y) < 0


def test_sample_y_draws_agree_with_predict(data):
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=40, burn_in=10, random_state=0).fit(u, y)
    new = np.array([[2.0], [6.0]])
    draws = gp.sample_y(new, n_samples=3000, random_state=1)
    assert draws.shape == (2, 4, 3000)
    np.testing.assert_allclose(draws.sum(axis=1), 1.0)
    se = draws.std(axis=2) / np.sqrt(3000)
    assert np.all(np.abs(draws.mean(axis=2) - gp.predict(new)) < 4.5 * se + 1e-12)
    np.testing.assert_array_equal(draws, gp.sample_y(new, n_samples=3000, random_state=1))
    counts = gp.sample_y(new, n_samples=5, total_count=[10, 20])
    assert counts.dtype.kind == "i"
    np.testing.assert_array_equal(counts.sum(axis=1), [[10] * 5, [20] * 5])


def test_verbose_and_no_nan(data, capsys):
    u, y = data
    y = y.copy()
    y[3] = 0  # an input without observations
    gp = MultinomialGaussianProcess(max_iter=10, burn_in=5, verbose=1, random_state=0).fit(u, y)
    out = capsys.readouterr().out
    assert "sweep 10/10" in out and "done in" in out
    assert np.all(np.isfinite(gp.predict(u)))


def test_log_likelihood_trace_is_the_multinomial_likelihood_of_each_sweep(data, monkeypatch):
    # Oracle: the multinomial log-likelihood sum(y log pi) (NumPy) at the
    # stick-breaking probabilities of each sweep's latent values, recorded
    # as the sweep ends; and the trace lets diagnostics compare GP chains.
    from sklearn_pgtm import _gp
    from sklearn_pgtm.diagnostics import run_chains

    u, y = data
    latents = []
    draw_latent = _gp._StickGP.draw_latent

    def recording(state):
        draw_latent(state)
        latents.append(state.latent + state.mean)

    monkeypatch.setattr(_gp._StickGP, "draw_latent", recording)
    gp = MultinomialGaussianProcess(max_iter=6, burn_in=3, random_state=0).fit(u, y)
    assert gp.log_likelihood_trace_.shape == (6,) and len(latents) == 6
    for value, psi in zip(gp.log_likelihood_trace_, latents):
        pi = np.empty((psi.shape[0], psi.shape[1] + 1))
        stick_breaking(np.ascontiguousarray(psi), pi)
        assert value == pytest.approx(np.sum(y * np.log(pi)), rel=1e-10)
    monkeypatch.undo()
    chains = run_chains(MultinomialGaussianProcess(max_iter=20, burn_in=10), u, y,
                        n_chains=2, random_state=0)
    assert chains.summary().names == ["log_likelihood"]


def test_inputs_too_large_for_the_kernel_are_refused(data):
    """Far inputs give the prior (1e6); inputs so large that the default
    Matern kernel computes inf * 0 (about 1e155) are refused with a clear
    error instead of NaN predictions."""
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=6, burn_in=2, random_state=0).fit(u, y)
    assert np.all(np.isfinite(gp.predict([[1e6]])))
    for call in (gp.predict, gp.predict_latent, lambda X: gp.sample_y(X, 1),
                 lambda X: gp.score(X, np.ones((1, y.shape[1])))):
        with pytest.raises(ValueError, match="not finite at the inputs X"):
            call([[1e300]])


def test_one_category_and_rows_without_counts():
    u = np.arange(5.0)[:, None]
    gp = MultinomialGaussianProcess(max_iter=3, burn_in=1, random_state=0).fit(u, np.ones((5, 1)))
    np.testing.assert_array_equal(gp.predict(u), np.ones((5, 1)))
    assert gp.predict_latent(u).shape == (5, 0)


def test_refit_without_sampling_drops_the_sampled_hyperparameters(data):
    # They used to survive a refit with another setting, describing a chain
    # that kernel_ and the predictions no longer came from.
    u, y = data
    gp = MultinomialGaussianProcess(hyperparameters="sample", max_iter=6, burn_in=3,
                                    random_state=0).fit(u, y)
    assert gp.hyperparameter_samples_.shape == (3, gp.kernel_.n_dims)
    assert 0 <= gp.acceptance_rate_ <= 1
    for mode in ["empirical", "fixed"]:
        gp.set_params(hyperparameters="sample").fit(u, y)
        gp.set_params(hyperparameters=mode).fit(u, y)
        assert not hasattr(gp, "hyperparameter_samples_")
        assert not hasattr(gp, "acceptance_rate_")
    # "sample" with one category samples nothing either.
    gp.set_params(hyperparameters="sample").fit(u, y)
    gp.fit(u, y[:, :1])
    assert not hasattr(gp, "hyperparameter_samples_")


@pytest.mark.parametrize("mode", ["empirical", "sample"])
def test_nothing_to_fit_leaves_the_kernel_as_given(mode):
    # One category, or a kernel without free hyperparameters: no regression
    # is fitted (as documented for kernel_ and log_marginal_likelihood_value_).
    u = np.arange(6.0)[:, None]
    y = np.c_[np.arange(6.0), 6 - np.arange(6.0)]
    fixed = ConstantKernel(1.0, "fixed") * RBF(2.0, "fixed")
    for kernel, counts in [(ConstantKernel(1.0) * RBF(2.0), y[:, :1]), (fixed, y)]:
        gp = MultinomialGaussianProcess(kernel, hyperparameters=mode, max_iter=3, burn_in=1,
                                        random_state=0).fit(u, counts)
        assert gp.log_marginal_likelihood_value_ is None
        assert gp.kernel_ == kernel
        assert not hasattr(gp, "hyperparameter_samples_")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_column_kernel_products():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    year, place = ColumnKernel(Matern(2.0, nu=2.5), [0]), ColumnKernel(RBF(1.5), [1, 2])
    kernel = year * place
    ref = Matern(2.0, nu=2.5)(X[:, [0]]) * RBF(1.5)(X[:, [1, 2]])
    np.testing.assert_allclose(kernel(X), ref)
    np.testing.assert_allclose(kernel.diag(X), np.diag(ref))
    np.testing.assert_allclose(kernel(X[:2], X), ref[:2])
    # Gradient with respect to the log-hyperparameters, by finite differences.
    _, grad = kernel(X, eval_gradient=True)
    eps = 1e-6
    for j in range(kernel.n_dims):
        step = np.zeros(kernel.n_dims)
        step[j] = eps
        numeric = (kernel.clone_with_theta(kernel.theta + step)(X)
                   - kernel.clone_with_theta(kernel.theta - step)(X)) / (2 * eps)
        np.testing.assert_allclose(grad[:, :, j], numeric, atol=1e-7)
    assert [h.name for h in kernel.hyperparameters] == [
        "k1__kernel__length_scale", "k2__kernel__length_scale"]
    assert clone(kernel) == kernel and clone(kernel) is not kernel
    kernel.set_params(k1__kernel__length_scale=3.0)
    assert kernel.k1.kernel.length_scale == 3.0
    # scikit-learn's own GP regression accepts it (fits its hyperparameters).
    y = np.sin(X[:, 0])
    GaussianProcessRegressor(kernel + WhiteKernel(), random_state=0).fit(X, y)


def test_column_kernel_repr_shows_plain_indices():
    # np.flatnonzero(mask), as the docstring suggests, printed as
    # columns=[np.int64(0), np.int64(2)] under NumPy 2.
    kernel = ColumnKernel(RBF(1.0), np.flatnonzero([True, False, True]))
    assert repr(kernel) == "ColumnKernel(RBF(length_scale=1), columns=[0, 2])"
    assert repr(ColumnKernel(RBF(1.0), (1,))) == "ColumnKernel(RBF(length_scale=1), columns=[1])"
    # An invalid value is shown as given (fit says what is wrong with it).
    assert repr(ColumnKernel(RBF(1.0), "a")).endswith("columns='a')")


def test_product_kernel_over_columns_in_the_model():
    # Two groups (column 1) sharing a smooth trend in column 0.
    rng = np.random.default_rng(2)
    t = np.tile(np.linspace(0, 10, 15), 2)
    group = np.repeat([0.0, 1.0], 15)
    X = np.c_[t, group]
    psi = np.c_[np.sin(t / 2) + 0.5 * group, -0.3 + 0 * t]
    y = _draw_counts(rng, np.full(30, 80), psi)
    kernel = (ConstantKernel(1.0) * ColumnKernel(Matern(3.0, nu=2.5), [0])
              * ColumnKernel(RBF(1.0, (0.1, 10.0)), [1]))
    gp = MultinomialGaussianProcess(kernel, max_iter=60, burn_in=20, random_state=0).fit(X, y)
    assert isinstance(gp.kernel_.k2, ColumnKernel)
    truth = np.empty((30, 3))
    stick_breaking(np.ascontiguousarray(psi), truth)
    assert np.mean(np.abs(gp.predict(X) - truth)) < 0.05


# Other valid values of the parameters read at fit; n_jobs is read at each
# call (the threads of the predictions).
_OTHER_VALUES = {
    "kernel": [None, RBF(3.0)], "hyperparameters": ["empirical", "sample", "fixed"],
    "n_restarts_optimizer": [1], "pseudo_count": [1.0], "jitter": [0.5], "max_iter": [3],
    "burn_in": [1], "pg_method": ["exact", "gaussian"], "pg_terms": [2], "random_state": [7],
    "verbose": [1],
}


def _gp_outputs(gp, u, y):
    new = np.linspace(-1, 11, 5)[:, None]
    out = {"predict": gp.predict(new),
           "sample_y": gp.sample_y(new, n_samples=3, random_state=0),
           "sample_y_counts": gp.sample_y(new, n_samples=2, random_state=0, total_count=10),
           "score": gp.score(u, y)}
    out["latent_mean"], out["latent_std"] = gp.predict_latent(new, return_std=True)
    return out


@pytest.mark.parametrize("params", [
    {},
    # Kept kernels of sampled hyperparameters; nested kernel parameters.
    {"kernel": ConstantKernel(1.0) * RBF(2.0), "hyperparameters": "sample"},
], ids=["empirical", "sample"])
def test_set_params_after_fit_leaves_the_fitted_model_unchanged(data, params):
    # A fitted estimator behaves as fitted until it is fitted again
    # (scikit-learn's convention). Before, the predictions read jitter as set
    # now, conditioning on kept omega drawn under another kernel matrix.
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=8, burn_in=4, random_state=0, **params).fit(u, y)
    expected = _gp_outputs(gp, u, y)
    fitted = gp.get_params(deep=False)
    assert set(fitted) - {"n_jobs"} == set(_OTHER_VALUES)  # none forgotten
    others = [(name, value) for name, values in _OTHER_VALUES.items() for value in values
              if value is not fitted[name] and value != fitted[name]]
    # The given kernel's parameters, changed in place by set_params.
    nested = {name: value for name, value in gp.get_params().items()
              if name.endswith("__length_scale")}
    assert bool(nested) == ("kernel" in params)
    for param, value in others + [(name, 5.0) for name in nested]:
        gp.set_params(**{param: value})
        outputs = _gp_outputs(gp, u, y)
        for key, value_then in expected.items():
            np.testing.assert_array_equal(outputs[key], value_then, err_msg=f"{param}: {key}")
        gp.set_params(**{param: {**fitted, **nested}[param]})
    gp.set_params(**dict(others), n_jobs=2)  # n_jobs does not change the results
    outputs = _gp_outputs(gp, u, y)
    for key, value_then in expected.items():
        np.testing.assert_array_equal(outputs[key], value_then, err_msg=f"all changed: {key}")


@pytest.mark.parametrize(
    "params, y, match",
    [
        ({}, np.arange(6.0), "2-D array of counts"),
        ({}, -np.ones((6, 3)), "Negative values"),
        ({}, np.zeros((6, 3)), "no positive count"),
        ({"max_iter": 5, "burn_in": 5}, np.ones((6, 3)), "burn_in=5 must be smaller"),
        # A row total beyond float64's exact integers: it overflowed to inf and
        # the fit failed on "Input y contains NaN" (or, with fixed
        # hyperparameters, returned NaN traces and an infinite mean_).
        ({}, np.vstack([[0.0, 1e308, 1e308], np.ones((5, 3))]), "a row has inf counts"),
        ({"hyperparameters": "fixed"}, np.vstack([[0.0, 1e308, 1e308], np.ones((5, 3))]),
         "a row has inf counts"),
        ({}, np.vstack([[1e20, 0.0, 0.0], np.ones((5, 3))]), "a row has 1e\\+20 counts"),
    ],
)
def test_bad_input_raises_clear_errors(params, y, match):
    X = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match=match):
        MultinomialGaussianProcess(**params).fit(X, y)


@pytest.mark.parametrize("y", [np.ones((6, 3)), -np.ones((6, 3))])
def test_n_jobs_zero_is_refused_by_the_parameter_validation(y):
    # Refused up front, as by the topic models (N_JOBS_CONSTRAINT): it passed
    # the validation ([Integral, None]) and failed in fit, after the checks of
    # X and y (which reported bad y first), with a plain ValueError.
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        MultinomialGaussianProcess(n_jobs=0).fit(np.arange(6.0)[:, None], y)


@pytest.mark.parametrize("n_jobs", [0, 2.5])
def test_n_jobs_set_after_fit_is_validated_at_the_call(data, n_jobs):
    # Read at each call, and set_params does not validate: 2.5 was used as is.
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=4, burn_in=2, random_state=0).fit(u, y)
    gp.set_params(n_jobs=n_jobs)
    for method in (gp.predict, gp.predict_latent, gp.sample_y, lambda x: gp.score(x, y)):
        with pytest.raises(InvalidParameterError, match="n_jobs"):
            method(u)


def test_failed_fit_keeps_the_previous_model(data):
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=6, burn_in=3, random_state=0).fit(u, y)
    before = gp.predict(u)
    with pytest.raises(ValueError, match="no positive count"):
        gp.fit(np.c_[u, u], np.zeros((u.shape[0], 5)))
    assert gp.n_features_in_ == 1
    np.testing.assert_array_equal(gp.predict(u), before)


@pytest.mark.parametrize("columns, match", [
    ([5], r"columns \[5\] are out of range for inputs with 2 column"),
    (0, "sequence of integer column indices"),
    ([0.5], "sequence of integer column indices"),
    ([], "columns is empty"),
    # A boolean mask: True and False were read as the indices 1 and 0, so
    # [True, False] gave both columns swapped instead of column 0.
    ([True, False], "boolean mask"),
    ([np.True_, np.False_], "boolean mask"),
    (np.array([True, False]), "boolean mask"),
])
def test_column_kernel_checks_its_columns(columns, match):
    X = np.c_[np.arange(8.0), np.arange(8.0) % 2]
    kernel = ColumnKernel(RBF(), columns)
    with pytest.raises(ValueError, match=match):
        MultinomialGaussianProcess(kernel, max_iter=4, burn_in=2).fit(X, np.ones((8, 3)))


def test_column_kernel_prints_and_compares_whatever_its_columns():
    # repr and == called list(columns): an int column (refused by the calls
    # with a ValueError) made printing the kernel, or a model holding it, a
    # TypeError ("'int' object is not iterable").
    kernel = ColumnKernel(RBF(), 0)
    assert repr(kernel) == "ColumnKernel(RBF(length_scale=1), columns=0)"
    assert "columns=0" in repr(MultinomialGaussianProcess(kernel))
    assert kernel != ColumnKernel(RBF(), [0])
    assert ColumnKernel(RBF(), np.array([1])) == ColumnKernel(RBF(), [1])
    assert repr(ColumnKernel(RBF(), np.array([1]))).endswith("columns=[1])")


def test_column_kernel_takes_inputs_as_scikit_learn_kernels_do():
    # A 1-d array is one input (np.atleast_2d, like RBF); it was an
    # IndexError. Arrays of more dimensions are a ValueError naming the shape.
    X = np.array([[0.0, 5.0], [1.0, -3.0]])
    kernel = ColumnKernel(RBF(1.0), [1])
    np.testing.assert_allclose(kernel(X[0]), RBF(1.0)(X[:1, [1]]))
    np.testing.assert_allclose(kernel(X[0], X), RBF(1.0)(X[:1, [1]], X[:, [1]]))
    np.testing.assert_allclose(kernel.diag(X[0]), [1.0])
    with pytest.raises(ValueError, match=r"2-d array .* got shape \(1, 2, 2\)"):
        kernel(X[None])


def test_sample_y_arguments_are_checked(data):
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=4, burn_in=2, random_state=0).fit(u, y)
    for kwargs, match in [({"n_samples": -1}, "n_samples must be a positive integer"),
                          ({"total_count": -1}, "non-negative integers"),
                          ({"total_count": 2.5}, "non-negative integers"),
                          ({"total_count": [3, 4, 5]}, "one integer or 2 integers")]:
        with pytest.raises(ValueError, match=match):
            gp.sample_y(u[:2], **kwargs)
    counts = gp.sample_y(u[:2], n_samples=3, total_count=[3, 4])
    np.testing.assert_array_equal(counts.sum(axis=1), [[3, 3, 3], [4, 4, 4]])


def test_fractional_counts_warn():
    X = np.arange(6.0)[:, None]
    with pytest.warns(UserWarning, match="entries of y are not integers"):
        MultinomialGaussianProcess(max_iter=3, burn_in=1).fit(X, np.full((6, 3), 1.3))


def test_wrong_shapes_at_prediction(data):
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=3, burn_in=1, random_state=0).fit(u, y)
    with pytest.raises(ValueError, match="features"):
        gp.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="categories"):
        gp.score(u, y[:, :2])


def test_counts_beyond_float_precision_get_a_clear_error():
    # Counts times the kernel's variance near 1e17: the Cholesky factor of
    # I + W^1/2 K W^1/2 lost its identity term and numba raised a bare
    # LinAlgError ("Matrix is not positive definite") from inside a kernel.
    X = np.linspace(0.0, 1.0, 20)[:, None]
    Y = np.random.default_rng(0).multinomial(10**6, [0.2, 0.3, 0.5], size=20) * 1e8
    kernel = ConstantKernel(1000.0, "fixed") * RBF(1000.0, "fixed")
    gp = MultinomialGaussianProcess(kernel, max_iter=4, burn_in=2, random_state=0)
    with pytest.raises(ValueError, match="exceed float precision"):
        gp.fit(X, Y)


@pytest.mark.parametrize("hyperparameters", ["empirical", "fixed"])
@pytest.mark.parametrize("kernel", [
    PairwiseKernel(metric="sigmoid"),        # the sampler ran, with a wrong prior
    PairwiseKernel(metric="additive_chi2"),  # the error blamed the counts
    ConstantKernel(-1.0, "fixed") * RBF(1.0),
])
def test_kernel_not_positive_semidefinite_is_refused(kernel, hyperparameters):
    X = np.linspace(0.0, 10.0, 15)[:, None]
    Y = np.random.default_rng(0).multinomial(30, [0.2, 0.5, 0.3], size=15)
    gp = MultinomialGaussianProcess(kernel, hyperparameters=hyperparameters, max_iter=4,
                                    burn_in=2, random_state=0)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        gp.fit(X, Y)


def test_inputs_without_counts_do_not_enter_the_empirical_hyperparameters():
    # Rows of zeros (inputs without observations) entered the regression with
    # the logits of the pseudo-counts alone, as if observed there: with every
    # other input empty the kernel variance fell from 0.63**2 to 0.25**2, the
    # length scale rose from 1.5 to 18.5 and the error of the predicted
    # probabilities nearly tripled.
    rng = np.random.RandomState(0)
    X = np.linspace(0.0, 10.0, 40)[:, None]
    p = np.c_[np.sin(X[:, 0] / 2) ** 2 + 0.1, np.ones(40), np.full(40, 0.5)]
    Y = np.array([rng.multinomial(50, q / q.sum()) for q in p])
    Y[1::2] = 0
    kernel = ConstantKernel(1.0) * Matern(1.0, nu=2.5)
    params = dict(kernel=kernel, max_iter=4, burn_in=2, random_state=0)
    with_empty = MultinomialGaussianProcess(**params).fit(X, Y)
    observed = MultinomialGaussianProcess(**params).fit(X[::2], Y[::2])
    np.testing.assert_allclose(with_empty.kernel_.theta, observed.kernel_.theta, rtol=1e-6)
    assert with_empty.log_marginal_likelihood_value_ == pytest.approx(
        observed.log_marginal_likelihood_value_)


def test_jitter_is_a_nugget_as_a_white_noise_kernel_would_be(data):
    # Oracle: the jitter is documented as a nugget (independent variance of
    # each input's latent values), which is what adding WhiteKernel(jitter)
    # to the kernel means. Same kernel matrix at the training inputs, so the
    # same chain; at new inputs the nugget enters the prior variance but
    # not the covariance with the training inputs. Predictions and joint
    # draws at new inputs must then agree.
    u, y = data
    kernel = ConstantKernel(1.5) * Matern(2.0, nu=2.5)
    common = dict(hyperparameters="fixed", max_iter=12, burn_in=6, random_state=0)
    nugget = MultinomialGaussianProcess(kernel, jitter=0.3, **common).fit(u, y)
    white = MultinomialGaussianProcess(kernel + WhiteKernel(0.3, "fixed"), **common).fit(u, y)
    new = np.array([[2.5], [6.1], [9.3]])
    for a, b in zip(nugget.predict_latent(new, return_std=True),
                    white.predict_latent(new, return_std=True)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(nugget.predict(new), white.predict(new), rtol=1e-9)
    np.testing.assert_allclose(nugget.sample_y(new, n_samples=4), white.sample_y(new, n_samples=4),
                               rtol=1e-7, atol=1e-12)


def test_hyperparameter_metropolis_targets_their_marginal_posterior():
    # With the potentials (omega, h) fixed, the Metropolis update of the
    # log length scale must have the stationary density uniform prior x
    # prod_k N(h_k / w_k | 0, Kmat + W_k^-1), computed on a grid with SciPy.
    u = np.array([[0.0], [0.6], [1.1], [2.0], [2.4], [3.5]])
    bounds = (0.2, 5.0)
    kernel = ConstantKernel(1.0, "fixed") * RBF(1.0, bounds)
    precision = np.array([[2.0, 1.0], [3.0, 0.5], [1.5, 2.0], [2.5, 1.0], [2.0, 0.0],
                          [3.0, 1.5]])
    information = np.array([[1.0, -0.5], [1.8, 0.2], [1.2, 0.6], [-0.5, 0.4], [-1.2, 0.0],
                            [-0.3, -0.8]])
    state = _StickGP(u, np.zeros((6, 3)), np.zeros(2), kernel, 0.0, "exact", 1, 0, 1)
    state.omega, state.information = precision, information
    grid = np.linspace(np.log(bounds[0]), np.log(bounds[1]), 801)
    log_target = np.zeros_like(grid)
    for i, theta in enumerate(grid):
        kmat = kernel.clone_with_theta([theta])(u)
        for k in range(2):
            keep = precision[:, k] > 0
            w = precision[keep, k]
            log_target[i] += stats.multivariate_normal(
                np.zeros(keep.sum()), kmat[np.ix_(keep, keep)] + np.diag(1 / w)).logpdf(
                information[keep, k] / w)
    p = np.exp(log_target - log_target.max())
    p /= p.sum()
    mean = p @ grid
    sd = np.sqrt(p @ (grid - mean) ** 2)
    gen = np.random.default_rng(0)
    trace = np.empty(20000)
    for i in range(trace.size):
        state.metropolis(np.log(0.5), gen)
        trace[i] = state.theta[0]
    assert abs(trace.mean() - mean) < 4.5 * batch_means_se(trace), (trace.mean(), mean)
    assert abs(trace.std() / sd - 1) < 0.1, (trace.std(), sd)


# ------------------------------ post-fit outputs against per-sweep oracles
# With omega of each kept sweep fixed, the logits of stick 0 at new inputs are
# Gaussian: mean mu + K*(K + W^-1)^-1 (h / w), covariance K** - K*(K + W^-1)^-1
# K*^T (h = kappa - omega mu), with the kernel under which that sweep was
# drawn. Written out densely here; two categories, so that a drawn
# probability gives its logit back exactly.
def _two_category_fit(seed, total, hyperparameters, max_iter, burn_in, kernel, amplitude=1.0):
    rng = np.random.default_rng(seed)
    u = np.linspace(0.0, 6.0, 10)[:, None]
    p = expit(amplitude * np.sin(u[:, 0]))
    y = np.array([rng.multinomial(total, [q, 1 - q]) for q in p])
    return u, MultinomialGaussianProcess(kernel, hyperparameters=hyperparameters,
                                         max_iter=max_iter, burn_in=burn_in,
                                         random_state=seed).fit(u, y)


def _per_sweep_moments(gp, u, new):
    """Mean (n_sweeps, n_new) and covariance (n_sweeps, n_new, n_new) of f_0."""
    thetas = getattr(gp, "hyperparameter_samples_", [gp.kernel_.theta] * len(gp._omega))
    means, covs = [], []
    for theta, omega in zip(thetas, gp._omega):
        kernel = gp.kernel_.clone_with_theta(theta)
        w = omega[:, 0]
        h = gp._kappa[:, 0] - w * gp.mean_[0]
        gain = kernel(new, u) @ np.linalg.inv(kernel(u) + np.diag(1.0 / w))
        means.append(gain @ (h / w))
        covs.append(kernel(new) - gain @ kernel(new, u).T)
    return np.array(means), np.array(covs)


def _check_predict_latent(gp, u, new):
    # The sd is the law of total variance over the sweeps (dropping the
    # spread of the sweeps' means passed the coverage test).
    means, covs = _per_sweep_moments(gp, u, new)
    mean, sd = gp.predict_latent(new, return_std=True)
    np.testing.assert_allclose(mean[:, 0], gp.mean_[0] + means.mean(axis=0), rtol=1e-8,
                               atol=1e-10)
    variances = np.diagonal(covs, axis1=1, axis2=2)
    np.testing.assert_allclose(sd[:, 0], np.sqrt(variances.mean(axis=0) + means.var(axis=0)),
                               rtol=1e-6)


def _check_sample_y(gp, u, new, n=20000, seed=0):
    # The draws pick a kept sweep uniformly: the mixture's mean and
    # covariance (a transposed factor of the covariance passed the test
    # against predict, which sees means only).
    means, covs = _per_sweep_moments(gp, u, new)
    psi = logit(gp.sample_y(new, n_samples=n, random_state=seed)[:, 0, :]) - gp.mean_[0]
    mix_cov = covs.mean(axis=0) + np.cov(means.T, bias=True)
    sd = np.sqrt(np.diag(mix_cov))
    assert np.all(np.abs(psi.mean(axis=1) - means.mean(axis=0)) < 5 * sd / np.sqrt(n))
    se = np.sqrt((np.outer(sd, sd) ** 2 + mix_cov ** 2) / n)  # of a Gaussian's
    assert np.all(np.abs(np.cov(psi) - mix_cov) < 5 * se + 0.02 * sd.max() ** 2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_predict_latent_and_sample_y_against_the_kept_sweeps(seed):
    kernel = ConstantKernel(1.5) * RBF(1.2)
    new = np.array([[0.3], [2.9], [4.4], [8.0]])
    # Few counts: omega, hence each sweep's mean, varies between sweeps.
    u, gp = _two_category_fit(seed, 3, "fixed", 40, 10, kernel)
    _check_predict_latent(gp, u, new)
    # One kept sweep: one Gaussian.
    u, gp = _two_category_fit(seed, 20, "fixed", 6, 5, kernel)
    assert len(gp._omega) == 1
    _check_sample_y(gp, u, new, seed=seed + 10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_kernels_enter_the_predictions_of_their_own_sweeps(seed):
    # hyperparameters="sample": each kept sweep's omega was drawn under its
    # own kernel (kernel_ for every sweep passed the other tests).
    kernel = ConstantKernel(1.0, (0.05, 20.0)) * RBF(1.0, (0.2, 10.0))
    u, gp = _two_category_fit(seed, 8, "sample", 60, 20, kernel, amplitude=1.5)
    assert np.ptp(gp.hyperparameter_samples_, axis=0).max() > 0.1  # the kernels differ
    _check_predict_latent(gp, u, np.array([[0.3], [2.9], [4.4], [8.0]]))
    _check_sample_y(gp, u, np.array([[0.5], [3.0], [8.5]]), seed=seed)


def _inverse_stick_breaking(p):
    """psi_k = log p_k - log sum_{j > k} p_j, by NumPy (rows need not sum to 1)."""
    tail = np.cumsum(p[:, ::-1], axis=1)[:, ::-1]
    return np.log(p[:, :-1]) - np.log(tail[:, 1:])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_empirical_kernel_is_the_regression_on_the_logits_less_the_offsets(seed):
    # Oracle: scikit-learn's regressor (kernel + white noise) on the
    # empirical logits less mu, both computed here. With offsets of -2 and 2
    # the logits themselves inflate the fitted variance about twofold, which
    # the recovery test's factor-2 bounds accepted.
    u, y, _, _ = _draw_from_model(seed, n_inputs=40, n_categories=3, total=500, mu=2.0,
                                  kernel=ConstantKernel(1.5) * RBF(2.0))
    kernel = ConstantKernel(1.0) * Matern(1.0, nu=2.5)
    gp = MultinomialGaussianProcess(kernel, max_iter=2, burn_in=1, random_state=0).fit(u, y)
    mu = _inverse_stick_breaking(y.sum(axis=0, keepdims=True) + 0.1)[0]
    np.testing.assert_allclose(gp.mean_, mu, rtol=1e-10)
    oracle = GaussianProcessRegressor(kernel + WhiteKernel(1.0, (1e-5, 1e5)), random_state=0)
    oracle.fit(u, _inverse_stick_breaking(y + 0.1) - mu)
    np.testing.assert_allclose(gp.kernel_.theta, oracle.kernel_.k1.theta, rtol=1e-4, atol=1e-4)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        oracle.log_marginal_likelihood_value_, rel=1e-6)


def test_score_is_the_log_predictive_per_count(data):
    # sum Y log p / sum Y with p = predict (the docstring): unchanged when
    # every count doubles (a mean per input doubles; the tests before saw
    # only that the score is finite and negative).
    u, y = data
    gp = MultinomialGaussianProcess(max_iter=20, burn_in=10, random_state=0).fit(u, y)
    new = np.array([[0.5], [2.5], [4.0], [7.7]])
    y_new = np.array([[1, 0, 2, 0], [10, 25, 4, 3], [0, 3, 0, 0], [7, 1, 1, 9]], dtype=float)
    expected = np.sum(y_new * np.log(gp.predict(new))) / y_new.sum()
    assert gp.score(new, y_new) == pytest.approx(expected, rel=1e-10)
    assert gp.score(new, 2 * y_new) == pytest.approx(expected, rel=1e-10)


def test_gp_score_on_dataframe_does_not_warn_about_feature_names():
    # scikit-learn's check_dataframe_column_names_consistency: a model fitted
    # on a DataFrame scores a DataFrame with the same columns without the
    # "X does not have valid feature names" warning (GaussianProcessRegressor
    # gives none); score validated X and passed the bare array to predict.
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"year": np.linspace(0.0, 1.0, 12)})
    Y = np.random.default_rng(0).poisson(2.0, size=(12, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gp = MultinomialGaussianProcess(max_iter=4, burn_in=2, random_state=0).fit(X, Y)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="X does not have valid feature names")
        score = gp.score(X, Y)
    assert np.isfinite(score)
    assert score == pytest.approx(
        float(np.sum(Y[Y > 0] * np.log(gp.predict(X)[Y > 0])) / Y.sum()))


def test_fit_errors_name_the_estimator():
    # The burn_in error named no estimator (every other error of fit says
    # "MultinomialGaussianProcess.fit: ..."), and the empty-y error spelled
    # the class name out (a subclass was misnamed).
    u = np.linspace(0.0, 1.0, 6)[:, None]
    y = np.tile([1, 2, 0], (6, 1))
    with pytest.raises(ValueError, match=r"^MultinomialGaussianProcess\.fit: burn_in=4 must"):
        MultinomialGaussianProcess(max_iter=4, burn_in=4).fit(u, y)

    class Renamed(MultinomialGaussianProcess):
        pass

    with pytest.raises(ValueError, match=r"^Renamed\.fit: y has no positive count"):
        Renamed(max_iter=4).fit(u, np.zeros((6, 3)))
