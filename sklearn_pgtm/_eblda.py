"""Empirical Bayes LDA: Dirichlet hyperparameters from the marginal likelihood.

The fully-Bayes empirical Bayes method of Xia & Doss (2020): a Markov chain
on the topics ``z`` and the hyperparameters ``h = (alpha, eta)`` under a
flat-ish Gamma prior; the Rao-Blackwellized estimate of the posterior
density of ``h`` divided by the prior estimates the marginal likelihood
``m(h)`` up to a constant, whose maximizer is the empirical Bayes estimate.
"""

import math
import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp
from scipy.stats import chi2
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import (
    ProgressReporter,
    check_counts,
    check_nonempty_corpus,
    infer_doc_topics,
    log_likelihood_per_token,
    random_topic_state,
    to_tokens,
)
from ._kernels._eblda import (
    align_topics,
    augmentation_parameters,
    count_histograms,
    gamma_draw,
    hmc_update,
    log_joint,
)
from ._kernels._random import make_streams, seed_from
from ._kernels._fast_sweeps import lda_sweep


def _lda_sweep(chain, alpha, eta, n_jobs=None):
    """One collapsed Gibbs sweep of the chain's topics at fixed (alpha, eta).

    ``lda_sweep`` picks the dense or the sparse (SparseLDA) kernel by the
    number of topics; ``n_jobs > 1`` runs the document x vocabulary
    partitioned sweep in threads.
    """
    lda_sweep(
        chain["doc_ptr"], chain["word_ids"], chain["topics"], chain["doc_topic"],
        chain["word_topic"], chain["topic_total"], alpha, float(eta),
        chain["states"], n_jobs=n_jobs, method="auto",
    )


def _log_gamma_pdf(h, shape, rate):
    """log Gamma(shape, rate) density; broadcasts."""
    return shape * np.log(rate) - gammaln(shape) + (shape - 1.0) * np.log(h) - rate * h


class _RBDensity:
    """Rao-Blackwellized estimate of the posterior density of h and of log m(h).

    ``shapes`` is (n, p) and ``rates`` (n, p): the Gamma parameters of the
    full conditional of each component of h at each retained iteration.
    """

    def __init__(self, shapes, rates, prior_shape, prior_rate):
        self.shapes = np.asarray(shapes, dtype=np.float64)
        self.rates = np.asarray(rates, dtype=np.float64)
        self.prior_shape = prior_shape
        self.prior_rate = prior_rate
        self.const = self.shapes * np.log(self.rates) - gammaln(self.shapes)

    def log_ratio(self, h):
        """log nu_hat(h) - log prior(h) for points ``h`` of shape (G, p)."""
        h = np.atleast_2d(h)
        log_h = np.log(h)
        out = np.empty(h.shape[0])
        chunk = max(1, 2_000_000 // max(self.shapes.size, 1))
        for start in range(0, h.shape[0], chunk):
            lh = log_h[start:start + chunk, None, :]
            hh = h[start:start + chunk, None, :]
            terms = self.const[None] + (self.shapes[None] - 1.0) * lh - self.rates[None] * hh
            out[start:start + chunk] = logsumexp(terms.sum(axis=2), axis=1)
        out -= np.log(self.shapes.shape[0])
        prior = _log_gamma_pdf(h, self.prior_shape, self.prior_rate).sum(axis=1)
        return out - prior

    def _objective(self, u):
        h = np.exp(u)
        terms = self.const + (self.shapes - 1.0) * u - self.rates * h
        log_terms = terms.sum(axis=1)
        value = logsumexp(log_terms)
        w = np.exp(log_terms - value)
        grad = w @ ((self.shapes - 1.0) - self.rates * h)
        value -= np.sum((self.prior_shape - 1.0) * u - self.prior_rate * h)
        grad -= (self.prior_shape - 1.0) - self.prior_rate * h
        return -value, -grad

    def argmax(self, start):
        """Maximize log nu_hat(h) - log prior(h) over log h from ``start`` (an h)."""
        u0 = np.log(np.asarray(start, dtype=np.float64))
        res = minimize(self._objective, u0, jac=True, method="L-BFGS-B",
                       options={"maxiter": 500, "gtol": 1e-9})
        return np.exp(res.x)


class EmpiricalBayesLDA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Latent Dirichlet allocation with empirical Bayes Dirichlet hyperparameters.

    Estimates the document-topic prior ``alpha`` and the topic-word prior
    ``eta`` by maximizing the marginal likelihood of the corpus with the
    fully-Bayes Markov chain of Xia & Doss (2020), reports a 95% confidence
    region for the estimate, and then is an ordinary LDA fitted at the
    estimated hyperparameters.

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
        Leapfrog step in ``log h``. ``"auto"`` tunes it (dual averaging)
        during the burn-in (first half: dual averaging; then a diagonal mass
        matrix from the first half's draws and Robbins-Monro on the log step,
        whose last value is kept); a float is used as is with a unit mass
        matrix.

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
        Starting value of ``eta`` in the chain; ``None`` means
        ``1 / n_components``.

    n_infer_iter : int, default=50
        Gibbs sweeps used by :meth:`transform` to infer document topics
        with the topics fixed.

    n_jobs : int, default=None
        Number of threads of the topic sweep. ``None`` or 1 runs the exact
        serial collapsed Gibbs sweep; ``n_jobs > 1`` splits the documents
        and the vocabulary into ``n_jobs`` blocks each and sweeps them in
        ``n_jobs`` rounds of threads that never share a count row; only the
        K topic totals are seen with a delay of one round (an approximation
        of the serial chain, far smaller than AD-LDA's). Negative values
        count from the number of CPUs (-1: all). Results depend only on
        ``random_state`` and ``n_jobs``.

    random_state : int, RandomState instance or None, default=None
        Seeds the chain; ``transform`` is deterministic given the fit.

    verbose : int, default=0
        Print iteration, ``log p(w, z | h)``, current ``h`` and time.

    Attributes
    ----------
    doc_topic_prior_ : float or ndarray of shape (n_components,)
        Empirical Bayes estimate of ``alpha`` (a float when
        ``symmetric_alpha``).

    topic_word_prior_ : float
        Empirical Bayes estimate of ``eta``.

    hyperparameter_covariance_ : ndarray of shape (p, p)
        Batch-means estimate of the Monte Carlo covariance of the estimate
        ``(alpha..., eta)`` (p = 2, or ``n_components + 1``).

    hyperparameter_samples_ : ndarray of shape (n_samples, p)
        The chain's draws of ``(alpha..., eta)`` (topics aligned).

    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts at the estimate: ``topic_word_prior_`` plus
        the topic-word counts averaged over the second half of the final
        sweeps. Row-normalized, the posterior mean topic-word distributions.

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
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

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

    # ------------------------------------------------------------------ fit

    def _check_hyperprior(self):
        try:
            a, b = (float(x) for x in self.hyperprior)
        except (TypeError, ValueError):
            raise ValueError(
                f"hyperprior must be a pair (shape, rate) of positive floats; got {self.hyperprior!r}."
            ) from None
        if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
            raise ValueError(
                f"hyperprior must be a pair (shape, rate) of positive floats; got {self.hyperprior!r}."
            )
        return a, b

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Run the chain, estimate (alpha, eta) and fit LDA at the estimate.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-integer values are rounded).

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        whom = f"{type(self).__name__}.fit"
        prior_shape, prior_rate = self._check_hyperprior()
        X = check_counts(self, X, reset=True, whom=whom)
        check_nonempty_corpus(X, whom)
        rng = check_random_state(self.random_state)
        seed_init, seed_z, seed_h, seed_final = (seed_from(rng) for _ in range(4))
        self._transform_seed = seed_from(rng)

        n_topics = self.n_components
        n_docs, n_words = X.shape
        symmetric = bool(self.symmetric_alpha)
        doc_ptr, word_ids = to_tokens(X)
        topics, doc_topic, word_topic, topic_total = random_topic_state(
            doc_ptr, word_ids, n_topics, n_words, seed_init
        )
        chain = {
            "doc_ptr": doc_ptr, "word_ids": word_ids, "topics": topics,
            "doc_topic": doc_topic, "word_topic": word_topic, "topic_total": topic_total,
            "n_words": n_words, "states": make_streams(seed_z, n_docs),
        }
        doc_lengths = np.diff(doc_ptr).astype(np.int64)
        len_values, len_counts = np.unique(doc_lengths[doc_lengths > 0], return_counts=True)
        len_values = len_values.astype(np.float64)
        len_counts = len_counts.astype(np.float64)
        word_freq = np.asarray(X.sum(axis=0)).ravel()
        alpha_hist = np.zeros((n_topics, int(doc_lengths.max()) + 1), dtype=np.int64)
        alpha_max = np.full(n_topics, alpha_hist.shape[1] - 1, dtype=np.int64)
        eta_hist = np.zeros(int(word_freq.max()) + 1, dtype=np.int64)
        eta_max = np.array([eta_hist.shape[0] - 1], dtype=np.int64)
        h_states = make_streams(seed_h, 4)

        alpha0 = self.doc_topic_prior if self.doc_topic_prior is not None else 1.0 / n_topics
        eta0 = self.topic_word_prior if self.topic_word_prior is not None else 1.0 / n_topics
        alpha = np.full(n_topics, float(alpha0))
        eta = float(eta0)
        n_alpha = 1 if symmetric else n_topics
        p = n_alpha + 1
        n_total = self.burn_in + self.n_samples

        shapes = np.empty((self.n_samples, p))
        rates = np.empty((self.n_samples, p))
        samples = np.empty((self.n_samples, p))
        alpha_shape = np.empty(n_alpha)
        perm = np.arange(n_topics, dtype=np.int64)
        reference = None

        hmc = self.sampler == "hmc"
        adapt = hmc and self.hmc_step_size == "auto"
        step = 0.05 if self.hmc_step_size == "auto" else float(self.hmc_step_size)
        inv_mass = np.ones(p)
        accept_sum = 0.0
        if adapt:
            dual = _DualAveraging(step)
            window = []
            mass_at = max(self.burn_in // 2, 1)

        reporter = ProgressReporter(type(self).__name__, self.verbose)
        time_sweep = time_h = 0.0
        for it in range(n_total):
            tic = time.perf_counter()
            _lda_sweep(chain, alpha, eta, self.n_jobs)
            toc = time.perf_counter()
            time_sweep += toc - tic
            count_histograms(doc_topic, word_topic, alpha_hist, eta_hist, alpha_max, eta_max)
            if hmc:
                u = np.log(np.r_[alpha[:n_alpha], eta])
                acc = hmc_update(
                    u, inv_mass, step, self.hmc_n_steps, symmetric, alpha_hist, alpha_max,
                    len_values, len_counts, eta_hist, eta_max, topic_total, n_words,
                    prior_shape, prior_rate, h_states[3],
                )
                h_new = np.exp(u)
                alpha[:] = h_new[:n_alpha] if not symmetric else h_new[0]
                eta = float(h_new[-1])
                if it < self.burn_in:
                    if adapt:
                        step = dual.update(acc)
                        if it >= mass_at // 2:
                            window.append(u.copy())
                        if it + 1 == mass_at and len(window) >= 5:
                            var = np.var(np.array(window), axis=0)
                            restart = dual.final()
                            if np.all(var > 0) and np.all(np.isfinite(var)):
                                inv_mass = var
                                restart = 1.0  # about one posterior sd per step
                            # second phase: Robbins-Monro on log step, whose last
                            # iterate (not an average) is kept: near the leapfrog
                            # stability limit the acceptance drops steeply, so an
                            # average of oscillating steps would overshoot 0.65.
                            dual = _RobbinsMonro(restart)
                        if it + 1 == self.burn_in:
                            step = dual.final()
                else:
                    accept_sum += acc
                # Gamma parameters of the conditionals for the RB density.
                alpha_rate, eta_shape, eta_rate = augmentation_parameters(
                    alpha, eta, symmetric, alpha_hist, alpha_max, doc_lengths, eta_hist,
                    eta_max, topic_total, n_words, prior_shape, prior_rate,
                    h_states[:3], alpha_shape,
                )
            else:
                alpha_rate, eta_shape, eta_rate = augmentation_parameters(
                    alpha, eta, symmetric, alpha_hist, alpha_max, doc_lengths, eta_hist,
                    eta_max, topic_total, n_words, prior_shape, prior_rate,
                    h_states[:3], alpha_shape,
                )
                if symmetric:
                    alpha[:] = gamma_draw(h_states[3], alpha_shape[0], alpha_rate)
                else:
                    for t in range(n_topics):
                        alpha[t] = gamma_draw(h_states[3], alpha_shape[t], alpha_rate)
                eta = gamma_draw(h_states[3], eta_shape, eta_rate)
            if not (np.all(np.isfinite(alpha)) and math.isfinite(eta) and eta > 0
                    and np.all(alpha > 0)):
                raise RuntimeError(
                    f"{whom}: the hyperparameter chain diverged at iteration {it + 1} "
                    f"(alpha={alpha}, eta={eta}); try a different hyperprior or sampler."
                )
            if it >= self.burn_in:
                i = it - self.burn_in
                if not symmetric:
                    if reference is None:
                        reference = _column_normalize(word_topic)
                    align_topics(word_topic, topic_total, reference, perm)
                    shapes[i, perm] = alpha_shape
                    samples[i, perm] = alpha
                else:
                    shapes[i, 0] = alpha_shape[0]
                    samples[i, 0] = alpha[0]
                shapes[i, -1] = eta_shape
                rates[i, :-1] = alpha_rate
                rates[i, -1] = eta_rate
                samples[i, -1] = eta
            time_h += time.perf_counter() - toc
            if reporter.due(it, n_total):
                ll = log_joint(alpha, eta, alpha_hist, alpha_max, len_values, len_counts,
                               eta_hist, eta_max, topic_total, n_words)
                reporter.report(it, n_total, log_joint=float(ll),
                                alpha=float(np.mean(alpha)), eta=eta)

        # Seconds per iteration of the topic sweep and of the h-update
        # (histograms, auxiliaries, h draw or HMC, alignment, storage).
        self._timings = {"sweep": time_sweep / n_total, "h_update": time_h / n_total}
        if not (np.all(np.isfinite(shapes)) and np.all(np.isfinite(rates)) and np.all(rates > 0)):
            raise RuntimeError(f"{whom}: the chain produced non-finite Gamma parameters.")

        # ---- the estimate and its batch-means covariance
        density = _RBDensity(shapes, rates, prior_shape, prior_rate)
        start = np.exp(np.log(samples).mean(axis=0))
        h_hat = density.argmax(start)
        n_batches = self.n_batches
        if n_batches is None:
            n_batches = max(2, int(np.floor(self.n_samples ** (1.0 / 3.0) + 1e-9)))
        n_batches = min(n_batches, self.n_samples // 2)
        cov = _batch_means_covariance(shapes, rates, prior_shape, prior_rate, h_hat, n_batches)
        if not np.all(np.isfinite(h_hat)):
            raise RuntimeError(f"{whom}: the marginal likelihood estimate has no finite maximizer.")
        self._density = density
        self.hyperparameter_samples_ = samples
        self.hyperparameter_covariance_ = cov
        self.doc_topic_prior_ = float(h_hat[0]) if symmetric else h_hat[:-1].copy()
        self.topic_word_prior_ = float(h_hat[-1])
        self.acceptance_rate_ = accept_sum / self.n_samples if hmc else float("nan")
        self.hmc_step_size_ = float(step) if hmc else float("nan")

        # ---- ordinary LDA at the estimate: a few sweeps with h fixed
        if symmetric:
            alpha_fixed = np.full(n_topics, h_hat[0])
        else:
            alpha_fixed = np.ascontiguousarray(h_hat[:-1][perm])  # current label k <- ref perm[k]
        eta_fixed = float(h_hat[-1])
        chain["states"] = make_streams(seed_final, n_docs)
        n_avg = max(self.n_final_iter // 2, 1)
        acc_counts = np.zeros(word_topic.shape, dtype=np.float64)
        for it in range(self.n_final_iter):
            _lda_sweep(chain, alpha_fixed, eta_fixed, self.n_jobs)
            if it >= self.n_final_iter - n_avg:
                acc_counts += word_topic
        components = np.empty((n_topics, n_words))
        components[perm] = (acc_counts / n_avg).T
        components += eta_fixed
        self.components_ = components
        self._alpha_vector = np.full(n_topics, h_hat[0]) if symmetric else h_hat[:-1].copy()
        self._phi = np.ascontiguousarray((components / components.sum(axis=1, keepdims=True)).T)
        self.n_iter_ = n_total + self.n_final_iter
        if not np.all(np.isfinite(self.components_)):
            raise RuntimeError(f"{whom}: non-finite topic-word estimates.")
        reporter.summary(
            f"alpha={np.round(h_hat[:-1], 5).tolist()} eta={h_hat[-1]:.5g}"
            + (f" acceptance={self.acceptance_rate_:.3f}" if hmc else "")
        )
        return self

    # ---------------------------------------------------------- post-fit

    def _h_points(self, doc_topic_prior, topic_word_prior):
        check_is_fitted(self)
        alpha = np.asarray(doc_topic_prior, dtype=np.float64)
        eta = np.asarray(topic_word_prior, dtype=np.float64)
        if self.symmetric_alpha:
            alpha, eta = np.broadcast_arrays(alpha, eta)
            shape = alpha.shape
            h = np.stack([alpha.ravel(), eta.ravel()], axis=1)
        else:
            if alpha.shape[-1:] != (self.n_components,):
                raise ValueError(
                    f"doc_topic_prior must have a last dimension of {self.n_components} "
                    f"(one alpha per topic); got shape {alpha.shape}."
                )
            shape = np.broadcast_shapes(alpha.shape[:-1], eta.shape)
            alpha = np.broadcast_to(alpha, shape + (self.n_components,))
            eta = np.broadcast_to(eta, shape)
            h = np.concatenate([alpha.reshape(-1, self.n_components), eta.reshape(-1, 1)], axis=1)
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
            ``eta`` values, broadcast against ``doc_topic_prior``.

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
            Value(s) of eta.
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

    def _tokens(self, X, whom):
        check_is_fitted(self)
        X = check_counts(self, X, reset=False, whom=whom)
        return to_tokens(X)

    def transform(self, X):
        """Document-topic distributions at the estimated hyperparameters.

        Collapsed Gibbs on the tokens' topics with the topics fixed at the
        normalized ``components_``; deterministic given the fit.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        doc_topic_distr : ndarray of shape (n_samples, n_components)
            Rows sum to one.
        """
        doc_ptr, word_ids = self._tokens(X, f"{type(self).__name__}.transform")
        return infer_doc_topics(doc_ptr, word_ids, self._phi, self._alpha_vector,
                                self.n_infer_iter, self._transform_seed)

    def score(self, X, y=None):
        """Plug-in log-likelihood ``sum log(theta_d . phi_w)`` of the tokens of ``X``.

        ``theta`` comes from :meth:`transform` of the same documents.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        y : Ignored

        Returns
        -------
        score : float
        """
        doc_ptr, word_ids = self._tokens(X, f"{type(self).__name__}.score")
        theta = infer_doc_topics(doc_ptr, word_ids, self._phi, self._alpha_vector,
                                 self.n_infer_iter, self._transform_seed)
        return float(log_likelihood_per_token(doc_ptr, word_ids, theta, self._phi)
                     * word_ids.shape[0])

    def perplexity(self, X):
        """``exp(-score(X) / number of tokens)`` (plug-in, documents seen whole).

        For held-out evaluation use
        :func:`sklearn_pgtm.metrics.document_completion_perplexity`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        perplexity : float
            Lower is better.
        """
        doc_ptr, word_ids = self._tokens(X, f"{type(self).__name__}.perplexity")
        if word_ids.shape[0] == 0:
            raise ValueError("perplexity is undefined for documents without tokens.")
        theta = infer_doc_topics(doc_ptr, word_ids, self._phi, self._alpha_vector,
                                 self.n_infer_iter, self._transform_seed)
        return float(np.exp(-log_likelihood_per_token(doc_ptr, word_ids, theta, self._phi)))

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


def _column_normalize(word_topic):
    totals = word_topic.sum(axis=0).astype(np.float64)
    totals[totals == 0] = 1.0
    return np.ascontiguousarray(word_topic / totals)


def _batch_means_covariance(shapes, rates, prior_shape, prior_rate, h_hat, n_batches):
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
        dens = _RBDensity(shapes[sl], rates[sl], prior_shape, prior_rate)
        estimates.append(dens.argmax(h_hat))
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
