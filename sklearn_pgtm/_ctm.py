"""Correlated topic model fitted by Pólya-Gamma Gibbs sampling.

Logistic-normal link: Chen, Zhu, Wang, Zheng, Zhang (2013), "Scalable
inference for logistic-normal topic models". Stick-breaking link: Linderman,
Johnson, Adams (2015), "Dependent multinomial models made easy". Equations:
MODELS.md sections 2a and 2b.
"""

import contextlib
from numbers import Integral, Real

import numba
import numpy as np
from scipy.stats import invwishart
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
    log_likelihood_per_token,
    random_topic_state,
    to_tokens,
)
from ._kernels._stick_breaking import stick_breaking
from ._kernels._ctm import (
    logistic_normal_update,
    logistic_normal_update_parallel,
    softmax_rows,
    stick_breaking_update,
    stick_breaking_update_parallel,
)
from ._kernels._likelihood import log_topic_word_likelihood
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import document_streams, make_streams, seed_from
from ._kernels._sweeps import sample_topics

_EMPTY_1D = np.zeros(0)
_EMPTY_2D = np.zeros((0, 0))
# |eta - mu| beyond this is a run-off chain (the failure mode of approximate
# PG samplers reported by Chen et al.), not a plausible log-odds.
_DIVERGENCE_BOUND = 1e4
_WARMUP_SWEEPS = 20


@contextlib.contextmanager
def _numba_threads(n_jobs):
    """Run numba parallel kernels on ``n_jobs`` threads (restored afterwards)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n_jobs, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def _n_threads(n_jobs):
    import os

    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, int(n_jobs))


def _niw_posterior_draw(x, mean0, kappa0, psi0, nu0, rng):
    """Draw (mu, Sigma) from the Normal-Inverse-Wishart posterior given rows x."""
    n = x.shape[0]
    xbar = x.mean(axis=0)
    centered = x - xbar
    scatter = centered.T @ centered
    kappa_n = kappa0 + n
    nu_n = nu0 + n
    mean_n = (kappa0 * mean0 + n * xbar) / kappa_n
    diff = xbar - mean0
    psi_n = psi0 + scatter + (kappa0 * n / kappa_n) * np.outer(diff, diff)
    psi_n = 0.5 * (psi_n + psi_n.T)
    sigma = np.atleast_2d(invwishart.rvs(df=nu_n, scale=psi_n, random_state=rng))
    sigma = 0.5 * (sigma + sigma.T)
    mu = rng.multivariate_normal(mean_n, sigma / kappa_n, method="cholesky")
    return mu, sigma


class CorrelatedTopicModel(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Correlated topic model with Pólya-Gamma Gibbs sampling.

    Documents' topic proportions are a transformation of a Gaussian vector
    with a learned mean and covariance, so topics that tend to co-occur (or
    to exclude each other) are modelled as such. Two links are available:

    - ``"logistic_normal"``: ``theta_d = softmax(eta_d)``, ``eta_d ~ N(mu,
      Sigma)`` in R^K, fitted by single-site Gibbs updates of each
      ``eta_dk`` with one Pólya-Gamma variable ``PG(N_d, rho_dk)`` (Chen et
      al. [1]_).
    - ``"stick_breaking"``: ``theta_d = pi(psi_d)``, ``psi_d ~ N(mu, Sigma)``
      in R^(K-1), ``pi_k = sigmoid(psi_k) prod_{j<k} (1 - sigmoid(psi_j))``;
      the multinomial becomes a product of binomials, and with
      ``omega_dk ~ PG(N_dk, psi_dk)`` the whole vector ``psi_d`` is drawn from
      one Gaussian (Linderman et al. [2]_).

    The topic-word distributions are integrated out (collapsed Gibbs over the
    tokens' topics, the sweep shared with every model of the package), and
    ``(mu, Sigma)`` are drawn every sweep from their Normal-Inverse-Wishart
    posterior.

    Read more in the :ref:`User Guide <ctm>`.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (K). With ``K = 1`` the model degenerates to a
        unigram model (every proportion is 1; ``mean_`` and ``covariance_``
        keep their prior values).

    link : {"logistic_normal", "stick_breaking"}, default="logistic_normal"
        How the Gaussian vector maps to topic proportions.

    pg_method : {"exact", "gaussian", "pg1", "truncated"}, default="exact"
        Pólya-Gamma sampler of the augmentation variables (see
        :mod:`sklearn_pgtm.polyagamma`). Approximate samplers are faster for
        long documents; if the chain diverges with one, fitting stops with a
        ``FloatingPointError`` naming it.

    pg_terms : int, default=8
        Number of terms M of the ``"truncated"`` and ``"pg1"`` samplers.

    n_subiter : int, default=8
        Sub-iterations S of the (lambda, eta) updates per document and sweep
        (logistic-normal link; the paper's default is 8).

    prior_strength : float, default=0.01
        Pseudo-observations of the Normal-Inverse-Wishart prior on (mu,
        Sigma), as a fraction of the number of documents (the paper's
        ``a = 0.01 D``): ``kappa0 = a``, ``nu0 = K + 1 + a``, prior mean 0 and
        prior expected covariance the identity.

    topic_word_prior : float, default=0.01
        Symmetric Dirichlet prior (beta) of the topic-word distributions.

    max_iter : int, default=100
        Number of Gibbs sweeps in training. The first ``min(20, max_iter //
        5)`` are plain LDA sweeps with a Dirichlet(1) prior (a warm start that
        keeps co-occurring topics apart).

    n_infer_iter : int, default=30
        Gibbs sweeps over a new document's topics and Gaussian vector (topics
        and (mu, Sigma) fixed) in :meth:`transform`; the returned proportions
        are averaged over the second half.

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw.

    n_jobs : int, default=None
        Threads for the per-document Gaussian and Pólya-Gamma updates
        (documents have their own random streams, so results do not depend
        on ``n_jobs``). ``-1`` uses all cores.

    verbose : int, default=0
        Print iteration, log-likelihood and time.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Topic-word distributions (rows sum to 1): the posterior mean
        ``(C_kw + beta) / (C_k + V beta)`` at the last sweep.

    mean_ : ndarray of shape (n_components,) or (n_components - 1,)
        Mean ``mu`` of the Gaussian vector (posterior mean over the second
        half of the correlated sweeps).

    covariance_ : ndarray of shape (n_components, n_components) or (n_components - 1, n_components - 1)
        Covariance ``Sigma`` of the Gaussian vector (posterior mean over the
        second half of the correlated sweeps).

    topic_correlation_ : ndarray of shape (n_components, n_components)
        Correlation between topics, for both links that of the centred log
        proportions ``log theta_k - mean_j log theta_j`` under ``N(mean_,
        covariance_)`` (the identifiable part: softmax ignores a shift of
        eta). Logistic-normal link: exactly from ``C Sigma C``, ``C = I -
        11^T / K``. Stick-breaking link (whose Gaussian lives in K-1 stick
        coordinates): estimated from 20,000 Monte Carlo draws.

    n_iter_ : int
        Number of sweeps run.

    n_features_in_ : int
        Number of words seen in :meth:`fit`.

    See Also
    --------
    EmpiricalBayesLDA : LDA with empirical-Bayes Dirichlet hyperparameters.
    sklearn.decomposition.LatentDirichletAllocation : Variational LDA.

    References
    ----------
    .. [1] J. Chen, J. Zhu, Z. Wang, X. Zheng, B. Zhang, "Scalable inference
       for logistic-normal topic models", NIPS 2013.
    .. [2] S. Linderman, M. Johnson, R. Adams, "Dependent multinomial models
       made easy: stick-breaking with the Pólya-gamma augmentation",
       NIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import CorrelatedTopicModel
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(1.0, size=(30, 20))
    >>> ctm = CorrelatedTopicModel(n_components=3, max_iter=10, random_state=0).fit(X)
    >>> ctm.transform(X[:2]).shape
    (2, 3)
    >>> ctm.topic_correlation_.shape
    (3, 3)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "link": [StrOptions({"logistic_normal", "stick_breaking"})],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": [Interval(Integral, 1, None, closed="left")],
        "n_subiter": [Interval(Integral, 1, None, closed="left")],
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        "topic_word_prior": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_infer_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=10,
        *,
        link="logistic_normal",
        pg_method="exact",
        pg_terms=8,
        n_subiter=8,
        prior_strength=0.01,
        topic_word_prior=0.01,
        max_iter=100,
        n_infer_iter=30,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.link = link
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.n_subiter = n_subiter
        self.prior_strength = prior_strength
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.n_infer_iter = n_infer_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # --------------------------------------------------------------- helpers
    def _dim(self):
        return self.n_components - 1 if self.link == "stick_breaking" else self.n_components

    def _proportions(self, gauss, out):
        if self.n_components == 1:
            out[:] = 1.0
        elif self.link == "stick_breaking":
            stick_breaking(gauss, out)
        else:
            softmax_rows(gauss, out)

    def _update_gaussian(self, doc_topic, lengths, gauss, mu, sigma, states, n_subiter):
        """Per-document PG-augmented update of the Gaussian vectors, in place."""
        if self.n_components == 1:
            return  # one topic: nothing to correlate, theta = 1
        precision = np.linalg.inv(sigma)
        precision = 0.5 * (precision + precision.T)
        method = PG_METHODS[self.pg_method]
        threads = _n_threads(self.n_jobs)
        if self.link == "stick_breaking":
            kernel = stick_breaking_update_parallel if threads > 1 else stick_breaking_update
            args = (doc_topic, lengths, gauss, precision, precision @ mu, method,
                    self.pg_terms, states)
        else:
            kernel = logistic_normal_update_parallel if threads > 1 else logistic_normal_update
            args = (doc_topic, lengths, gauss, mu, precision, n_subiter, method,
                    self.pg_terms, states)
        if threads > 1:
            with _numba_threads(threads):
                kernel(*args)
        else:
            kernel(*args)
        deviation = np.abs(gauss - mu)
        if not np.all(np.isfinite(gauss)) or deviation.max(initial=0.0) > _DIVERGENCE_BOUND:
            raise FloatingPointError(
                f"CorrelatedTopicModel diverged: the documents' Gaussian vectors ran off "
                f"(max |eta - mu| = {deviation.max(initial=np.inf):.3g}) with "
                f"pg_method={self.pg_method!r}. Use pg_method='exact' or more pg_terms."
            )

    # ------------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model by Gibbs sampling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X = check_counts(self, X, reset=True)
        check_nonempty_corpus(X, type(self).__name__)
        rng = check_random_state(self.random_state)
        seeds = np.random.SeedSequence(seed_from(rng)).spawn(3)
        self._infer_seed = seed_from(rng)
        doc_ptr, word_ids = to_tokens(X)
        n_docs, n_words = X.shape
        n_topics = self.n_components
        dim = self._dim()
        beta = float(self.topic_word_prior)

        topics, doc_topic, word_topic, topic_total = random_topic_state(
            doc_ptr, word_ids, n_topics, n_words, seeds[0]
        )
        states = make_streams(seeds[1], n_docs)
        gen = np.random.default_rng(seeds[2])
        lengths = np.diff(doc_ptr)
        a = self.prior_strength * n_docs
        mean0, kappa0, nu0, psi0 = np.zeros(dim), a, dim + 1.0 + a, a * np.eye(dim)
        mu, sigma = np.zeros(dim), np.eye(dim)
        gauss = np.zeros((n_docs, dim))
        weights = np.empty((n_docs, n_topics))
        alpha_warmup = np.ones(n_topics)
        reporter = ProgressReporter(type(self).__name__, self.verbose)
        # Warm start: the first sweeps are plain LDA sweeps with a smooth
        # Dirichlet(1) prior, which separates co-occurring topics before the
        # (more peaked) correlated proportions take over.
        n_warmup = min(_WARMUP_SWEEPS, self.max_iter // 5)
        # (mu, Sigma) are estimated by their posterior mean over the second
        # half of the correlated sweeps: one draw is too noisy for K x K.
        n_average = max((self.max_iter - n_warmup) // 2, 1)
        mu_sum, sigma_sum = np.zeros(dim), np.zeros((dim, dim))
        for it in range(self.max_iter):
            if it < n_warmup:
                doc_weight = _EMPTY_2D
            else:
                self._update_gaussian(doc_topic, lengths, gauss, mu, sigma, states,
                                      self.n_subiter)
                if n_topics > 1:
                    mu, sigma = _niw_posterior_draw(gauss, mean0, kappa0, psi0, nu0, gen)
                self._proportions(gauss, weights)
                doc_weight = weights
            sample_topics(
                doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, alpha_warmup,
                beta, beta * n_words, doc_weight, _EMPTY_2D, _EMPTY_1D, _EMPTY_1D, _EMPTY_1D,
                _EMPTY_1D, states,
            )
            if it >= self.max_iter - n_average:
                mu_sum += mu
                sigma_sum += sigma
            if reporter.due(it, self.max_iter):
                ll = log_topic_word_likelihood(word_topic, topic_total, beta)
                reporter.report(it, self.max_iter, log_likelihood=ll)
        self.components_ = ((word_topic + beta) / (topic_total + beta * n_words)).T.copy()
        self.mean_ = mu_sum / n_average
        self.covariance_ = sigma_sum / n_average
        self.topic_correlation_ = self._topic_correlation(self.mean_, self.covariance_)
        self.n_iter_ = self.max_iter
        reporter.summary(
            f"{self.max_iter} sweeps, {word_ids.shape[0]} tokens, link={self.link}, "
            f"pg_method={self.pg_method}"
        )
        return self

    def _topic_correlation(self, mu, sigma):
        """Correlation of the centred log proportions log theta_k - mean_j log theta_j.

        Softmax is unchanged by adding a constant to eta, so only the centred
        vector is identified: for the logistic-normal link its covariance is
        ``C Sigma C`` with ``C = I - 11^T / K`` exactly; for the stick-breaking
        link it is estimated from 20,000 draws of N(mu, Sigma).
        """
        n_topics = self.n_components
        if n_topics == 1:
            return np.ones((1, 1))
        if self.link == "logistic_normal":
            centring = np.eye(n_topics) - 1.0 / n_topics
            cov = centring @ sigma @ centring
        else:
            gen = np.random.default_rng(self._infer_seed)
            draws = gen.multivariate_normal(mu, sigma, size=20000, method="cholesky")
            props = np.empty((draws.shape[0], n_topics))
            stick_breaking(draws, props)
            logp = np.log(np.maximum(props, 1e-300))
            cov = np.cov((logp - logp.mean(axis=1, keepdims=True)).T)
        sd = np.sqrt(np.maximum(np.diag(cov), 1e-300))
        corr = cov / np.outer(sd, sd)
        np.fill_diagonal(corr, 1.0)
        return corr

    # ------------------------------------------------------------- inference
    def _infer(self, X, whom):
        check_is_fitted(self)
        X = check_counts(self, X, reset=False, whom=whom)
        doc_ptr, word_ids = to_tokens(X)
        n_docs = X.shape[0]
        n_topics = self.n_components
        phi = np.ascontiguousarray(self.components_.T)
        states = document_streams(self._infer_seed, doc_ptr, word_ids)
        # Start from the most likely topic of each word, as for LDA.
        topics = (np.argmax(phi[word_ids], axis=1).astype(np.int32)
                  if word_ids.size else np.zeros(0, dtype=np.int32))
        doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
        np.add.at(doc_topic, (np.repeat(np.arange(n_docs), np.diff(doc_ptr)), topics), 1)
        lengths = np.diff(doc_ptr)
        gauss = np.tile(self.mean_, (n_docs, 1))
        weights = np.empty((n_docs, n_topics))
        theta = np.zeros((n_docs, n_topics))
        n_iter = self.n_infer_iter
        n_average = max(n_iter // 2, 1)
        no_words = np.zeros((0, n_topics), dtype=np.int32)
        no_total = np.zeros(n_topics, dtype=np.int32)
        for it in range(n_iter):
            self._update_gaussian(doc_topic, lengths, gauss, self.mean_, self.covariance_,
                                  states, self.n_subiter)
            self._proportions(gauss, weights)
            sample_topics(
                doc_ptr, word_ids, topics, doc_topic, no_words, no_total, np.ones(n_topics),
                0.0, 0.0, weights, phi, _EMPTY_1D, _EMPTY_1D, _EMPTY_1D, _EMPTY_1D, states,
            )
            if it >= n_iter - n_average:
                theta += weights
        theta /= n_average
        theta /= theta.sum(axis=1, keepdims=True)
        return theta, doc_ptr, word_ids

    def transform(self, X):
        """Topic proportions of documents, with topics and (mu, Sigma) fixed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        doc_topic : ndarray of shape (n_samples, n_components)
            Posterior mean topic proportions (rows sum to 1), averaged over the
            second half of ``n_infer_iter`` sweeps; identical on repeated calls.
        """
        return self._infer(X, f"{type(self).__name__}.transform")[0]

    def score(self, X, y=None):
        """Log-likelihood of X under its inferred proportions and the topics.

        ``sum_d sum_n log(theta_d . phi_{w_dn})`` with ``theta`` from
        :meth:`transform` (the documents' own words are used to infer their
        proportions; for held-out evaluation see
        :func:`sklearn_pgtm.metrics.document_completion_perplexity`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        score : float
            Log-likelihood (higher is better).
        """
        theta, doc_ptr, word_ids = self._infer(X, f"{type(self).__name__}.score")
        phi = np.ascontiguousarray(self.components_.T)
        return log_likelihood_per_token(doc_ptr, word_ids, theta, phi) * word_ids.shape[0]

    def perplexity(self, X):
        """Perplexity ``exp(-score(X) / n_tokens)`` of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        perplexity : float
            Lower is better.
        """
        theta, doc_ptr, word_ids = self._infer(X, f"{type(self).__name__}.perplexity")
        phi = np.ascontiguousarray(self.components_.T)
        return float(np.exp(-log_likelihood_per_token(doc_ptr, word_ids, theta, phi)))

    @property
    def _n_features_out(self):
        return self.n_components

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags
