"""Gibbs supervised LDA with a logistic likelihood and regularization constant c.

Zhu, Zheng, Zhang (2013), "Improved Bayesian logistic supervised topic models
with data augmentation" ("gSLDA"). Equations: MODELS.md section 1.
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from ._base import (
    ProgressReporter,
    check_counts,
    check_nonempty_corpus,
    infer_doc_topics,
    random_topic_state,
    to_tokens,
)
from ._kernels._likelihood import log_topic_word_likelihood
from ._kernels._polyagamma import PG_METHODS
from ._kernels._random import make_streams, seed_from
from ._kernels._slda import draw_augmentation, draw_eta, response_terms
from ._kernels._sweeps import sample_topics

_EMPTY_2D = np.zeros((0, 0))


def _fit_binary(doc_ptr, word_ids, y, n_words, params, seed, name):
    """Run the gSLDA Gibbs chain for one binary response ``y`` in {0, 1}.

    Returns a dict with the topic-word distributions ``phi`` (V, K), the last
    draw of ``eta`` and the mean of its last ``n_average`` draws, and the
    training log-likelihood trace. A module-level function of arrays, so that
    joblib (and a dask cluster behind it) can ship it to workers.
    """
    n_topics = params["n_components"]
    c = params["c"]
    alpha = np.full(n_topics, params["doc_topic_prior"])
    beta = params["topic_word_prior"]
    max_iter = params["max_iter"]
    n_average = min(params["n_average"], max_iter)
    method = PG_METHODS[params["pg_method"]]
    n_docs = doc_ptr.shape[0] - 1

    seeds = np.random.SeedSequence(seed).spawn(3)
    topics, doc_topic, word_topic, topic_total = random_topic_state(
        doc_ptr, word_ids, n_topics, n_words, seeds[0]
    )
    token_streams = make_streams(seeds[1], n_docs)
    pg_streams = make_streams(seeds[2].spawn(1)[0], n_docs)
    eta_rng = np.random.default_rng(seeds[2])

    lengths = np.diff(doc_ptr)
    safe_lengths = np.maximum(lengths, 1).astype(np.float64)
    kappa = c * (y.astype(np.float64) - 0.5)
    kappa[lengths == 0] = 0.0
    lam = np.where(lengths > 0, 1.0, 0.0)  # paper: lambda initialized to 1
    resp_linear = np.empty(n_docs)
    resp_quad = np.empty(n_docs)
    discriminant = np.empty(n_docs)
    eta_sum = np.zeros(n_topics)
    reporter = ProgressReporter(name, params["verbose"])
    log_likelihood = np.nan
    for it in range(max_iter):
        zbar = doc_topic / safe_lengths[:, None]
        eta = draw_eta(zbar, lam, kappa, params["prior_variance"], eta_rng)
        if not np.all(np.isfinite(eta)):
            raise FloatingPointError(
                f"{name}: the classifier weights became non-finite at iteration "
                f"{it + 1}; try a smaller c or prior_variance."
            )
        response_terms(doc_topic, lengths, eta, kappa, lam, resp_linear, resp_quad, discriminant)
        sample_topics(
            doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, alpha,
            beta, beta * n_words, _EMPTY_2D, _EMPTY_2D, eta, resp_linear, resp_quad,
            discriminant, token_streams,
        )
        draw_augmentation(doc_topic, lengths, eta, c, method, params["pg_terms"], pg_streams, lam)
        if it >= max_iter - n_average:
            eta_sum += eta
        if reporter.due(it, max_iter):
            log_likelihood = log_topic_word_likelihood(word_topic, topic_total, beta)
            zbar = doc_topic / safe_lengths[:, None]
            accuracy = np.mean(((zbar @ eta) > 0) == (y == 1))
            reporter.report(it, max_iter, log_likelihood=log_likelihood, train_accuracy=accuracy)
    phi = (word_topic + beta) / (topic_total + beta * n_words)
    reporter.summary(f"{max_iter} sweeps over {word_ids.shape[0]} tokens")
    return {"phi": phi, "eta_last": eta, "eta_mean": eta_sum / n_average}


class GibbsSLDAClassifier(ClassifierMixin, TransformerMixin, BaseEstimator):
    """Supervised LDA with a logistic likelihood, fitted by Pólya-Gamma Gibbs sampling.

    The generalized logistic supervised topic model ("gSLDA") of Zhu et al.
    [1]_: LDA topics for the words and, for the label, the pseudo-likelihood
    ``exp(c y omega) / (1 + exp(omega))^c`` with ``omega = eta . zbar`` where
    ``zbar`` are the document's empirical topic frequencies. The
    regularization constant ``c`` balances the response against the words.
    Pólya-Gamma augmentation makes every conditional simple: the topics are
    resampled by a collapsed Gibbs sweep, the classifier weights ``eta`` from a
    Gaussian, and one ``lambda_d ~ PG(c, omega_d)`` per document, drawn exactly
    for any real ``c > 0``.

    Multi-class targets are handled one-vs-rest, as in the paper: one binary
    model (its own topics and weights) per class, trained in parallel with
    ``n_jobs`` through joblib (so ``joblib.parallel_backend("dask")`` spreads
    them over a dask cluster). The predicted class has the highest score.

    Read more in the :ref:`User Guide <slda>`.

    Parameters
    ----------
    n_components : int, default=20
        Number of topics (K) of each binary model.

    c : float, default=1.0
        Regularization constant of the response likelihood (``c = 1`` is the
        standard logistic sLDA; the paper uses 25 for binary and 256 for
        one-vs-all 20-class problems). Any positive real; tune it (for
        example with ``GridSearchCV``): too large a value fits the labels of
        the training documents through their topic assignments.

    prior_variance : float, default=1.0
        Variance (nu^2) of the Gaussian prior on the classifier weights eta.

    doc_topic_prior : float, default=1.0
        Symmetric Dirichlet prior (alpha) of the document-topic proportions.

    topic_word_prior : float, default=0.01
        Symmetric Dirichlet prior (beta) of the topic-word distributions.

    max_iter : int, default=100
        Number of Gibbs sweeps in training.

    n_infer_iter : int, default=50
        Gibbs sweeps over a new document's topics (topics fixed) when
        predicting or transforming.

    n_average : int, default=20
        Number of final training draws of eta averaged for
        ``prediction="average"``.

    prediction : {"average", "last"}, default="average"
        ``"last"``: the paper's rule, the last draw of eta and the new
        documents' topic frequencies of the last inference sweep.
        ``"average"``: eta averaged over its last ``n_average`` draws and the
        topic frequencies over the second half of the inference sweeps
        (better and more stable in our benchmarks, see
        ``benchmarks/RESULTS.md``).

    pg_method : {"exact", "truncated", "pg1", "gaussian"}, default="exact"
        Pólya-Gamma sampler of the augmentation variables (see
        :mod:`sklearn_pgtm.polyagamma`).

    pg_terms : int, default=8
        Number of terms of the ``"truncated"`` and ``"pg1"`` samplers.

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw; the same value gives the same fit and the
        same predictions.

    n_jobs : int, default=None
        Number of one-vs-rest models trained in parallel (joblib). A binary
        problem runs a single chain on one thread.

    verbose : int, default=0
        Print iteration, log-likelihood, training accuracy and time.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.

    components_ : ndarray of shape (n_models * n_components, n_features)
        Topic-word distributions (rows sum to 1); ``n_models`` is 1 for a
        binary problem and ``n_classes`` otherwise, the topics of model ``m``
        being rows ``m * n_components`` to ``(m + 1) * n_components``.

    topic_word_per_model_ : list of ndarray of shape (n_components, n_features)
        The same topics, one array per binary model.

    coef_ : ndarray of shape (n_models, n_components)
        Classifier weights eta of each binary model (the posterior mean of the
        last ``n_average`` draws for ``prediction="average"``, else the last
        draw).

    last_coef_ : ndarray of shape (n_models, n_components)
        The last draw of eta of each binary model (equal to ``coef_`` when
        ``prediction="last"``).

    n_features_in_ : int
        Number of words (features) seen in :meth:`fit`.

    n_iter_ : int
        Number of Gibbs sweeps run by each binary model.

    See Also
    --------
    sklearn.decomposition.LatentDirichletAllocation : Unsupervised LDA.
    EmpiricalBayesLDA : LDA with empirical-Bayes hyperparameters.

    Notes
    -----
    Counts are rounded to the nearest integer. Documents without tokens are
    allowed: they do not inform the classifier during training (their
    ``zbar`` is zero) and their score at prediction time is 0 (probability
    1/2 in a binary problem).

    References
    ----------
    .. [1] J. Zhu, X. Zheng, B. Zhang, "Improved Bayesian logistic supervised
       topic models with data augmentation", ACL 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm import GibbsSLDAClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.poisson([6, 6, 0.2, 0.2], size=(20, 4)),
    ...                rng.poisson([0.2, 0.2, 6, 6], size=(20, 4))])
    >>> y = np.repeat([0, 1], 20)
    >>> clf = GibbsSLDAClassifier(n_components=2, c=4.0, max_iter=30,
    ...                           random_state=0).fit(X, y)
    >>> clf.score(X, y)
    1.0
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "c": [Interval(Real, 0, None, closed="neither")],
        "prior_variance": [Interval(Real, 0, None, closed="neither")],
        "doc_topic_prior": [Interval(Real, 0, None, closed="neither")],
        "topic_word_prior": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_infer_iter": [Interval(Integral, 1, None, closed="left")],
        "n_average": [Interval(Integral, 1, None, closed="left")],
        "prediction": [StrOptions({"average", "last"})],
        "pg_method": [StrOptions(set(PG_METHODS))],
        "pg_terms": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_components=20,
        *,
        c=1.0,
        prior_variance=1.0,
        doc_topic_prior=1.0,
        topic_word_prior=0.01,
        max_iter=100,
        n_infer_iter=50,
        n_average=20,
        prediction="average",
        pg_method="exact",
        pg_terms=8,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.c = c
        self.prior_variance = prior_variance
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.n_infer_iter = n_infer_iter
        self.n_average = n_average
        self.prediction = prediction
        self.pg_method = pg_method
        self.pg_terms = pg_terms
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model: one Gibbs chain per binary (one-vs-rest) problem.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts (non-negative; rounded to integers).

        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X = check_counts(self, X, reset=True)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        check_classification_targets(y)
        encoder = LabelEncoder()
        y_index = encoder.fit_transform(y)
        self.classes_ = encoder.classes_
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                "GibbsSLDAClassifier needs samples of at least 2 classes in the data, "
                f"but the data contains only one class: {self.classes_[0]!r}."
            )
        check_nonempty_corpus(X, type(self).__name__)
        doc_ptr, word_ids = to_tokens(X)
        rng = check_random_state(self.random_state)
        targets = [y_index == 1] if n_classes == 2 else [y_index == k for k in range(n_classes)]
        seeds = [seed_from(rng) for _ in targets]
        self._infer_seed = seed_from(rng)
        params = {
            name: getattr(self, name)
            for name in (
                "n_components", "c", "prior_variance", "doc_topic_prior", "topic_word_prior",
                "max_iter", "n_average", "pg_method", "pg_terms", "verbose",
            )
        }
        names = (
            ["GibbsSLDA"]
            if n_classes == 2
            else [f"GibbsSLDA[{cls}]" for cls in self.classes_]
        )
        n_jobs = 1 if len(targets) == 1 else self.n_jobs
        results = Parallel(n_jobs=n_jobs)(
            delayed(_fit_binary)(
                doc_ptr, word_ids, target.astype(np.int8), X.shape[1], params, seed, name
            )
            for target, seed, name in zip(targets, seeds, names)
        )
        self.topic_word_per_model_ = [r["phi"].T.copy() for r in results]
        self.components_ = np.vstack(self.topic_word_per_model_)
        key = "eta_mean" if self.prediction == "average" else "eta_last"
        self.coef_ = np.vstack([r[key] for r in results])
        self.last_coef_ = np.vstack([r["eta_last"] for r in results])
        self.n_iter_ = self.max_iter
        return self

    def _infer_per_model(self, X, whom, empirical):
        """Inferred topics of new documents, one array per binary model.

        ``empirical=True``: topic frequencies zbar (what the classifier
        scores); ``False``: posterior mean proportions (what transform gives).
        """
        check_is_fitted(self)
        X = check_counts(self, X, reset=False, whom=whom)
        doc_ptr, word_ids = to_tokens(X)
        n_average = 1 if empirical and self.prediction == "last" else None
        # One inference per binary model, in threads (the sweep releases the
        # GIL); each has its own seed, so the result does not depend on n_jobs.
        n_models = len(self.topic_word_per_model_)
        return Parallel(n_jobs=min(effective_n_jobs(self.n_jobs), n_models), prefer="threads")(
            delayed(infer_doc_topics)(
                doc_ptr, word_ids, np.ascontiguousarray(phi.T), self.doc_topic_prior,
                self.n_infer_iter, self._infer_seed + m, n_average=n_average,
                empirical=empirical,
            )
            for m, phi in enumerate(self.topic_word_per_model_)
        )

    def decision_function(self, X):
        """Scores eta . zbar of each binary model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For a binary problem the score of ``classes_[1]`` (positive means
            that class), else one column per class.
        """
        zbars = self._infer_per_model(X, f"{type(self).__name__}.decision_function",
                                      empirical=True)
        scores = np.column_stack([z @ eta for z, eta in zip(zbars, self.coef_)])
        return scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """Class with the highest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities: the logistic of the scores, normalized over classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``; rows sum to 1.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = 1.0 / (1.0 + np.exp(-scores))
            return np.column_stack([1.0 - p, p])
        p = 1.0 / (1.0 + np.exp(-scores))
        return p / p.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probabilities in the order of ``classes_``.
        """
        return np.log(self.predict_proba(X))

    def transform(self, X):
        """Topic proportions of documents, inferred with the topics fixed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term counts.

        Returns
        -------
        doc_topic : ndarray of shape (n_samples, n_models * n_components)
            Posterior mean topic proportions under each binary model's topics
            (blocks of ``n_components`` columns, one per model; each block
            sums to 1).
        """
        return np.hstack(
            self._infer_per_model(X, f"{type(self).__name__}.transform", empirical=False)
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        # A topic model of 2-5 "words" cannot separate the checks' Gaussian
        # blobs as well as a linear model on the raw features.
        tags.classifier_tags.poor_score = True
        return tags
