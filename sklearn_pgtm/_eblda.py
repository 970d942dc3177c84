"""Empirical Bayes LDA: Dirichlet hyperparameters from the marginal likelihood,
with their Monte Carlo uncertainty.

The fully-Bayes empirical Bayes method of Xia & Doss (2020), user guide
:ref:`eblda`: a Markov chain on the topics ``z`` and the hyperparameters
``h = (alpha, beta)`` under a flat-ish Gamma prior; the Rao-Blackwellized
estimate of the posterior density of ``h`` divided by the prior estimates the
marginal likelihood ``m(h)`` up to a constant, whose maximizer is the
estimate. :class:`EmpiricalBayesLDA` is :class:`~sklearn_pgtm.GibbsLDA` whose
chain runs longer with ``h`` moving, plus what only it has: the HMC update of
``h``, one alpha per topic with label alignment, the batch-means covariance
and confidence region of the estimate, and the estimated marginal-likelihood
surface.
"""

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy.stats import chi2
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import N_JOBS_CONSTRAINT, GibbsRun
from ._chain import TopicChain
from ._kernels._dirichlet import align_topics, gamma_draw, hmc_update
from ._lda import GibbsLDA
from ._priors import DirichletPriors, RaoBlackwellDensity


@dataclass
class _HMCTuner:
    """Step size (and diagonal mass) of the HMC update of ``log h``, tuned
    during the burn-in: dual averaging first, then a diagonal mass matrix from
    the first half's draws and Robbins-Monro on the log step, whose last value
    is kept (near the leapfrog stability limit the acceptance drops steeply,
    so an average of oscillating steps would overshoot 0.65)."""

    step: float
    inv_mass: np.ndarray
    adapt: bool
    burn_in: int
    dual: object = None
    window: list = field(default_factory=list)
    accept_sum: float = 0.0

    def __post_init__(self):
        if self.adapt:
            self.dual = _DualAveraging(self.step)

    def after(self, it, accept, u):
        """Adapt after the HMC step of iteration ``it`` (accepted with ``accept``)."""
        if it >= self.burn_in:
            self.accept_sum += accept
            return
        if not self.adapt:
            return
        self.step = self.dual.update(accept)
        mass_at = max(self.burn_in // 2, 1)
        if it >= mass_at // 2:
            self.window.append(u.copy())
        if it + 1 == mass_at and len(self.window) >= 5:
            var = np.var(np.array(self.window), axis=0)
            restart = self.dual.final()
            if np.all(var > 0) and np.all(np.isfinite(var)):
                self.inv_mass = var
                restart = 1.0  # about one posterior sd per step
            self.dual = _RobbinsMonro(restart)
        if it + 1 == self.burn_in:
            self.step = self.dual.final()


@dataclass
class _EBRun(GibbsRun):
    """A :class:`~sklearn_pgtm._base.GibbsRun` with the estimator's extra state."""

    hmc: _HMCTuner = None
    perm: np.ndarray = None  # reference label of each current topic
    reference: np.ndarray = None
    samples: list = field(default_factory=list)
    h_hat: np.ndarray = None
    covariance: np.ndarray = None
    density: RaoBlackwellDensity = None


class EmpiricalBayesLDA(GibbsLDA):
    """Latent Dirichlet allocation with empirical Bayes Dirichlet hyperparameters.

    Estimates the document-topic prior ``alpha`` and the topic-word prior
    ``beta`` by maximizing the marginal likelihood of the corpus with the
    fully-Bayes Markov chain of Xia & Doss (2020), reports a 95% confidence
    region for the estimate, and then is an ordinary LDA fitted at the
    estimated hyperparameters. (:class:`~sklearn_pgtm.GibbsLDA` with
    ``"auto"`` priors computes the same estimate inside a shorter chain; this
    estimator adds the Monte Carlo uncertainty of the estimate, one alpha per
    topic, HMC and the marginal-likelihood surface.)

    Read more in the :ref:`User Guide <eblda>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics ``T``.

    sampler : {"augmentation", "hmc"}, default="augmentation"
        Update of ``h`` given the topics: ``"augmentation"`` is the augmented
        collapsed Gibbs step (conjugate Gamma draws after beta / Bernoulli
        auxiliaries; no tuning), ``"hmc"`` is Hamiltonian Monte Carlo on
        ``log h`` whose step size (and diagonal mass) are tuned during the
        burn-in to an acceptance rate near 0.65.

    symmetric_alpha : bool, default=True
        One ``alpha`` shared by all topics, or one per topic (with topics
        aligned to a reference sample against label switching).

    n_samples : int, default=500
        Iterations of the chain kept after the burn-in for the estimate.

    burn_in : int, default=200
        Iterations discarded at the start (the HMC sampler tunes there).
        The chain runs ``burn_in + n_samples`` topic sweeps.

    n_final_iter : int, default=100
        Topic sweeps with ``h`` fixed at the estimate after the chain; the
        topic-word counts of their second half give ``components_`` (fewer
        averaged sweeps give noisier topics: on 20 Newsgroups subsets, 20
        instead of 100 raised held-out perplexity by about 0.5%).

    hmc_n_steps : int, default=2
        Leapfrog steps per HMC transition (``sampler="hmc"``).

    hmc_step_size : "auto" or float, default="auto"
        Leapfrog step in ``log h``. ``"auto"`` tunes it during the burn-in
        (dual averaging, then a diagonal mass matrix and Robbins-Monro); a
        float is used as is with a unit mass matrix.

    n_batches : int, default=None
        Number of batches for the batch-means covariance of the estimate.
        ``None`` means ``max(2, floor(n_samples ** (1/3)))``: fewer, longer
        batches than the paper's ``sqrt(n_samples)``, because the slow
        mixing of the topics makes short batches underestimate the
        covariance (see the coverage benchmark).

    hyperprior : tuple of two floats, default=(1.0, 0.01)
        Shape ``a`` and rate ``b`` of the Gamma prior put on each component
        of ``h`` for the chain. It only guides the chain: the estimate
        divides it out.

    doc_topic_prior : float, default=None
        Starting value of ``alpha`` in the chain (scikit-learn's name);
        ``None`` means ``1 / n_components``.

    topic_word_prior : float, default=None
        Starting value of ``beta`` in the chain; ``None`` means
        ``1 / n_components``.

    n_infer_iter : int, default=50
        Gibbs sweeps used by :meth:`transform` to infer document topics
        with the topics fixed.

    n_jobs : int, default=None
        Threads of the topic sweep and of inference (user guide,
        :ref:`threads`). Results depend only on ``random_state`` and
        ``n_jobs``.

    random_state : int, RandomState instance or None, default=None
        Seeds the chain; ``transform`` is deterministic given the fit.

    verbose : int, default=0
        Print progress and a summary.

    Attributes
    ----------
    doc_topic_prior_ : float or ndarray of shape (n_components,)
        Empirical Bayes estimate of ``alpha`` (a float when
        ``symmetric_alpha``; else one value per topic, in the order of
        ``components_``).

    topic_word_prior_ : float
        Empirical Bayes estimate of ``beta``.

    hyperparameter_covariance_ : ndarray of shape (p, p)
        Batch-means estimate of the Monte Carlo covariance of the estimate
        ``(alpha..., beta)`` (p = 2, or ``n_components + 1``).

    hyperparameter_samples_ : ndarray of shape (n_samples, p)
        The chain's draws of ``(alpha..., beta)`` (topics aligned).

    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts at the estimate: ``topic_word_prior_`` plus
        the topic-word counts averaged over the second half of the final
        sweeps. Row-normalized, the posterior mean topic-word distributions.

    log_likelihood_trace_ : ndarray of shape (n_iter_,)
        ``log p(w, z | alpha, beta)`` after each sweep.

    trace_ : ChainTrace
        Per-sweep record of the chain (log-likelihood, topic shares, ``h``).

    n_iter_ : int
        Topic sweeps done by ``fit`` (``burn_in + n_samples + n_final_iter``).

    acceptance_rate_ : float
        Mean HMC acceptance probability after the burn-in (NaN for the
        augmentation sampler).

    hmc_step_size_ : float
        Step size used after the burn-in (NaN for the augmentation sampler).

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    GibbsLDA : LDA whose "auto" priors are this estimate, from a shorter chain.
    sklearn.decomposition.LatentDirichletAllocation : variational LDA with
        fixed (or online-updated) priors.

    Notes
    -----
    The estimate is ``argmax_h nu_hat(h) / prior(h)`` where ``nu_hat`` is the
    Rao-Blackwellized density ``(1/n) sum_i prod_j Gamma(h_j | shape_ij,
    rate_ij)`` built from the conditional Gamma parameters of the
    augmentation step at each retained iteration (for the HMC chain the
    auxiliaries are drawn from each ``z_i`` for this purpose). The
    hyperparameter updates use histograms of the count matrices only and
    never pass over tokens. The covariance is a Monte Carlo error (how much
    the estimate would move with another chain), not a sampling error of the
    corpus.

    References
    ----------
    .. [1] Xia, W. and Doss, H. (2020). "Scalable Hyperparameter Selection
       for Latent Dirichlet Allocation". Journal of Computational and
       Graphical Statistics, 29(4), 875-895.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import EmpiricalBayesLDA
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(40, 30))
    >>> model = EmpiricalBayesLDA(n_components=3, n_samples=50, burn_in=20,
    ...                           random_state=0).fit(X)
    >>> model.components_.shape
    (3, 30)
    >>> model.transform(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "sampler": [StrOptions({"augmentation", "hmc"})],
        "symmetric_alpha": ["boolean"],
        "n_samples": [Interval(Integral, 4, None, closed="left")],
        "burn_in": [Interval(Integral, 0, None, closed="left")],
        "n_final_iter": [Interval(Integral, 1, None, closed="left")],
        "hmc_n_steps": [Interval(Integral, 1, None, closed="left")],
        "hmc_step_size": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "n_batches": [None, Interval(Integral, 2, None, closed="left")],
        "hyperprior": [tuple, list],
        "doc_topic_prior": [None, Interval(Real, 0, None, closed="neither")],
        "topic_word_prior": [None, Interval(Real, 0, None, closed="neither")],
        "n_infer_iter": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _iterations_parameter = "burn_in and n_samples"
    method = "auto"
    warm_start = False

    def __init__(
        self,
        n_components=10,
        *,
        sampler="augmentation",
        symmetric_alpha=True,
        n_samples=500,
        burn_in=200,
        n_final_iter=100,
        hmc_n_steps=2,
        hmc_step_size="auto",
        n_batches=None,
        hyperprior=(1.0, 0.01),
        doc_topic_prior=None,
        topic_word_prior=None,
        n_infer_iter=50,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.sampler = sampler
        self.symmetric_alpha = symmetric_alpha
        self.n_samples = n_samples
        self.burn_in = burn_in
        self.n_final_iter = n_final_iter
        self.hmc_n_steps = hmc_n_steps
        self.hmc_step_size = hmc_step_size
        self.n_batches = n_batches
        self.hyperprior = hyperprior
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.n_infer_iter = n_infer_iter
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        self._hyperprior = self._check_hyperprior()

    def _check_hyperprior(self):
        try:
            a, b = (float(x) for x in self.hyperprior)
        except (TypeError, ValueError):
            raise ValueError("hyperprior must be a pair (shape, rate) of positive floats; "
                             f"got {self.hyperprior!r}.") from None
        if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
            raise ValueError("hyperprior must be a pair (shape, rate) of positive floats; "
                             f"got {self.hyperprior!r}.")
        return a, b

    def _n_sweeps_per_fit(self):
        return self.burn_in + self.n_samples + self.n_final_iter

    # ------------------------------------------------------- the model's steps
    def _start_run(self, X, doc_ptr, word_ids, seed):
        chain_seed, prior_seed = np.random.SeedSequence(seed).spawn(2)
        n_topics = self.n_components
        chain = TopicChain.random(doc_ptr, word_ids, n_topics, X.shape[1], chain_seed)
        start = tuple(1.0 / n_topics if v is None else float(v)
                      for v in (self.doc_topic_prior, self.topic_word_prior))
        priors = DirichletPriors.for_chain(chain, "auto", "auto", prior_seed,
                                           symmetric_alpha=self.symmetric_alpha,
                                           hyperprior=self._hyperprior, start=start)
        hmc = None
        if self.sampler == "hmc":
            adapt = self.hmc_step_size == "auto"
            hmc = _HMCTuner(0.05 if adapt else float(self.hmc_step_size),
                            np.ones(priors.n_estimated), adapt, self.burn_in)
        return _EBRun(chain, priors, hmc=hmc, perm=np.arange(n_topics, dtype=np.int64))

    def _sweep(self, run):
        it = run.iteration
        chain, priors = run.chain, run.priors
        chain.sweep_lda(priors.alpha, priors.beta, self.n_jobs, self.method)
        n_chain = self.burn_in + self.n_samples
        if it < n_chain:
            self._update_h(run, kept=it >= self.burn_in)
            run.trace.record(doc_topic_prior=priors.alpha[0], topic_word_prior=priors.beta)
            if it + 1 == n_chain:
                self._estimate(run)
        else:
            run.trace.record(doc_topic_prior=priors.alpha[0], topic_word_prior=priors.beta)
            if it >= n_chain + self.n_final_iter - max(self.n_final_iter // 2, 1):
                run.keep_counts()

    def _update_h(self, run, kept):
        """One update of h given the topics (augmentation or HMC), recording
        the Gamma parameters of the Rao-Blackwellized density (topics aligned
        to a reference sample when alpha is per topic) after the burn-in."""
        chain, priors = run.chain, run.priors
        if run.hmc is None:
            shapes, rates = priors.conditionals(chain)
            priors.set_estimated([gamma_draw(priors.states[2], s, r)
                                  for s, r in zip(shapes, rates)])
        else:
            u = np.log(priors.estimated_values())
            accept = hmc_update(u, run.hmc.inv_mass, run.hmc.step, self.hmc_n_steps,
                                priors.symmetric_alpha, priors._count(chain), chain.topic_total,
                                priors.n_words, *self._hyperprior, priors.states[2])
            run.hmc.after(run.iteration, accept, u)
            priors.set_estimated(np.exp(u))
            shapes, rates = priors.conditionals(chain) if kept else (None, None)
        if not (np.all(np.isfinite(priors.alpha)) and np.all(priors.alpha > 0)
                and math.isfinite(priors.beta) and priors.beta > 0):
            from .exceptions import ChainDivergenceError

            raise ChainDivergenceError(
                f"{type(self).__name__}.fit: the hyperparameter chain diverged at iteration "
                f"{run.iteration + 1} (alpha={priors.alpha}, beta={priors.beta}); try a "
                "different hyperprior or sampler.")
        if not kept:
            return
        values = priors.estimated_values()
        if not priors.symmetric_alpha:
            # Current topic t is reference topic perm[t]: store alpha_t and its
            # shape there (the rates of the alphas are all equal).
            if run.reference is None:
                run.reference = _column_normalize(chain.word_topic)
            align_topics(chain.word_topic, chain.topic_total, run.reference, run.perm)
            shapes, values = _aligned(shapes, run.perm), _aligned(values, run.perm)
        priors.record(shapes, rates)
        run.samples.append(values)

    def _estimate(self, run):
        """h_hat, its batch-means covariance, and h fixed at h_hat (in the
        current topic labels) for the final sweeps."""
        priors = run.priors
        shapes, rates = priors.recorded()
        if not (np.all(np.isfinite(shapes)) and np.all(np.isfinite(rates))
                and np.all(rates > 0)):
            from .exceptions import ChainDivergenceError

            raise ChainDivergenceError(f"{type(self).__name__}.fit: the chain produced "
                                       "non-finite Gamma parameters; try another hyperprior.")
        run.density = priors.density()
        samples = np.array(run.samples)
        run.h_hat = run.density.argmax(np.exp(np.log(samples).mean(axis=0)))
        n_batches = self.n_batches or max(2, int(np.floor(self.n_samples ** (1.0 / 3.0) + 1e-9)))
        n_batches = min(n_batches, self.n_samples // 2)
        run.covariance = _batch_means_covariance(shapes, rates, self._hyperprior, run.h_hat,
                                                 n_batches)
        if priors.symmetric_alpha:
            priors.set_estimated(run.h_hat)
        else:
            priors.alpha[:] = run.h_hat[:-1][run.perm]
            priors.beta = float(run.h_hat[-1])

    def _finish(self, run):
        if run.h_hat is None:
            raise ValueError(f"{type(self).__name__}: the chain ended before the estimate "
                             "(burn_in + n_samples sweeps).")
        symmetric = self.symmetric_alpha
        h_hat = run.h_hat
        self._density = run.density
        self.hyperparameter_samples_ = np.array(run.samples)
        self.hyperparameter_covariance_ = run.covariance
        self.doc_topic_prior_ = float(h_hat[0]) if symmetric else h_hat[:-1].copy()
        self.topic_word_prior_ = float(h_hat[-1])
        hmc = run.hmc is not None
        self.acceptance_rate_ = run.hmc.accept_sum / self.n_samples if hmc else float("nan")
        self.hmc_step_size_ = float(run.hmc.step) if hmc else float("nan")
        components = np.empty((self.n_components, run.chain.n_words))
        components[run.perm] = run.mean_counts()
        self.components_ = components + self.topic_word_prior_

    def _alpha_vector(self):
        return np.broadcast_to(np.asarray(self.doc_topic_prior_, dtype=np.float64),
                               (self.n_components,)).copy()

    # ---------------------------------------------------------- post-fit
    def _h_points(self, doc_topic_prior, topic_word_prior):
        check_is_fitted(self)
        alpha = np.asarray(doc_topic_prior, dtype=np.float64)
        beta = np.asarray(topic_word_prior, dtype=np.float64)
        if self.symmetric_alpha:
            alpha, beta = np.broadcast_arrays(alpha, beta)
            shape = alpha.shape
            h = np.stack([alpha.ravel(), beta.ravel()], axis=1)
        else:
            if alpha.shape[-1:] != (self.n_components,):
                raise ValueError(
                    f"doc_topic_prior must have a last dimension of {self.n_components} "
                    f"(one alpha per topic); got shape {alpha.shape}.")
            shape = np.broadcast_shapes(alpha.shape[:-1], beta.shape)
            alpha = np.broadcast_to(alpha, shape + (self.n_components,))
            beta = np.broadcast_to(beta, shape)
            h = np.concatenate([alpha.reshape(-1, self.n_components), beta.reshape(-1, 1)],
                               axis=1)
        if not np.all(h > 0) or not np.all(np.isfinite(h)):
            raise ValueError("hyperparameters must be positive and finite.")
        return h, shape

    def log_marginal_likelihood(self, doc_topic_prior, topic_word_prior):
        """Estimated log marginal likelihood ``log m(h)`` up to an additive constant.

        Parameters
        ----------
        doc_topic_prior : float or array-like
            ``alpha`` values (symmetric) or arrays whose last dimension has
            ``n_components`` entries (``symmetric_alpha=False``).

        topic_word_prior : float or array-like
            ``beta`` values, broadcast against ``doc_topic_prior``.

        Returns
        -------
        log_m : ndarray or float
            ``log nu_hat(h) - log prior(h)``; the maximum is at
            ``(doc_topic_prior_, topic_word_prior_)``.
        """
        h, shape = self._h_points(doc_topic_prior, topic_word_prior)
        out = self._density.log_ratio(h).reshape(shape)
        return float(out) if out.ndim == 0 else out

    def in_confidence_region(self, doc_topic_prior, topic_word_prior, level=0.95):
        """Whether ``h`` lies in the ``level`` confidence ellipsoid of the estimate.

        The ellipsoid is ``(h_hat - h)^T C^{-1} (h_hat - h) <= chi2_{p, level}``
        with ``C = hyperparameter_covariance_`` (batch means).

        Parameters
        ----------
        doc_topic_prior : float or array-like
            Value(s) of alpha (scalar, or one value per topic when
            ``symmetric_alpha=False``); broadcast against ``topic_word_prior``.
        topic_word_prior : float or array-like
            Value(s) of beta.
        level : float, default=0.95
            Confidence level of the ellipsoid.

        Returns
        -------
        inside : bool or ndarray of bool
            Whether each point lies in the region.
        """
        h, shape = self._h_points(doc_topic_prior, topic_word_prior)
        h_hat = np.r_[np.atleast_1d(self.doc_topic_prior_), self.topic_word_prior_]
        diff = h - h_hat
        prec = np.linalg.pinv(self.hyperparameter_covariance_)
        stat = np.einsum("ij,jk,ik->i", diff, prec, diff)
        inside = (stat <= chi2.ppf(level, h.shape[1])).reshape(shape)
        return bool(inside) if inside.ndim == 0 else inside


def _aligned(h, perm):
    """``h = (alpha_1..K, beta)`` with the alphas moved to their reference labels."""
    out = h.copy()
    out[perm] = h[:-1]
    return out


def _column_normalize(word_topic):
    totals = word_topic.sum(axis=0).astype(np.float64)
    totals[totals == 0] = 1.0
    return np.ascontiguousarray(word_topic / totals)


def _batch_means_covariance(shapes, rates, hyperprior, h_hat, n_batches):
    """Covariance of the estimate by batch means with J = ``n_batches`` batches.

    Sigma = m / (J - 1) sum_j (h_j - h)(h_j - h)^T estimates the asymptotic
    covariance of sqrt(n) (h_hat - h*); returned divided by n.
    """
    n = shapes.shape[0]
    m = n // n_batches
    offset = n - m * n_batches
    estimates = []
    for j in range(n_batches):
        sl = slice(offset + j * m, offset + (j + 1) * m)
        estimates.append(RaoBlackwellDensity(shapes[sl], rates[sl], hyperprior).argmax(h_hat))
    diff = np.array(estimates) - h_hat
    sigma = m / (n_batches - 1) * diff.T @ diff
    return sigma / n


class _RobbinsMonro:
    """Stochastic approximation of log step towards acceptance ``target``."""

    def __init__(self, step, target=0.65, t0=10.0, kappa=0.6):
        self.log_step = math.log(step)
        self.target, self.t0, self.kappa = target, t0, kappa
        self.count = 0

    def update(self, accept):
        self.count += 1
        self.log_step += (accept - self.target) / (self.count + self.t0) ** self.kappa
        return math.exp(self.log_step)

    def final(self):
        return math.exp(self.log_step)


class _DualAveraging:
    """Step-size adaptation of Hoffman & Gelman (2014) towards acceptance 0.65."""

    def __init__(self, step, target=0.65, gamma=0.05, t0=10.0, kappa=0.75):
        self.mu = math.log(10.0 * step)
        self.target, self.gamma, self.t0, self.kappa = target, gamma, t0, kappa
        self.h_bar = 0.0
        self.log_step_bar = math.log(step)
        self.count = 0

    def update(self, accept):
        self.count += 1
        c = self.count
        eta = 1.0 / (c + self.t0)
        self.h_bar = (1.0 - eta) * self.h_bar + eta * (self.target - accept)
        log_step = self.mu - math.sqrt(c) / self.gamma * self.h_bar
        w = c ** (-self.kappa)
        self.log_step_bar = w * log_step + (1.0 - w) * self.log_step_bar
        return math.exp(log_step)

    def final(self):
        return math.exp(self.log_step_bar)
