"""Evaluation of topic models: held-out document completion.

The protocol (Wallach et al. 2009; MODELS.md, "Evaluation protocols"): every
word count of every held-out document is split binomially in half; the
topic proportions of each document are inferred from the first half with the
estimator's ``transform``, and the perplexity of the second half is computed
under those proportions and the estimator's topics (``components_``,
row-normalized). Works for any fitted estimator with ``transform`` and
``components_``: this package's and scikit-learn's
:class:`~sklearn.decomposition.LatentDirichletAllocation` alike.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, check_non_negative

__all__ = ["split_document_completion", "document_completion_perplexity"]


def _as_count_csr(X, whom):
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    if X.data.size and not np.all(np.isfinite(X.data)):
        raise ValueError(f"Input X passed to {whom} contains NaN or infinity.")
    check_non_negative(X, whom)
    X.data = np.rint(X.data)
    X.eliminate_zeros()
    return X.astype(np.int64)


def split_document_completion(X, *, random_state=None):
    """Split every word count of every document binomially in half.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Document-term counts (non-negative; rounded to integers).

    random_state : int, RandomState instance or None, default=None
        Seed of the binomial split.

    Returns
    -------
    X_observed : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        ``Binomial(n, 1/2)`` of each count ``n``: the part used to infer the
        documents' topic proportions.

    X_heldout : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The rest (``X - X_observed``): the part whose perplexity is measured.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pgtm.metrics import split_document_completion
    >>> X = np.array([[4, 0, 2], [1, 3, 0]])
    >>> observed, heldout = split_document_completion(X, random_state=0)
    >>> bool(((observed + heldout).toarray() == X).all())
    True
    """
    X = _as_count_csr(X, "split_document_completion")
    rng = check_random_state(random_state)
    observed = X.copy()
    observed.data = rng.binomial(X.data, 0.5).astype(np.int64)
    heldout = X.copy()
    heldout.data = X.data - observed.data
    observed.eliminate_zeros()
    heldout.eliminate_zeros()
    return observed, heldout


def heldout_perplexity(doc_topic, topic_word, X_heldout):
    """Perplexity of held-out counts under given proportions and topics.

    Parameters
    ----------
    doc_topic : ndarray of shape (n_samples, n_components)
        Topic proportions of the documents (rows are renormalized).

    topic_word : ndarray of shape (n_components, n_features)
        Topics (rows are renormalized, e.g. ``components_``).

    X_heldout : {array-like, sparse matrix} of shape (n_samples, n_features)
        Held-out counts.

    Returns
    -------
    perplexity : float
        ``exp(-sum n_dw log(theta_d . phi_w) / sum n_dw)``.
    """
    X = _as_count_csr(X_heldout, "heldout_perplexity")
    theta = np.asarray(doc_topic, dtype=np.float64)
    theta = theta / theta.sum(axis=1, keepdims=True)
    phi = np.asarray(topic_word, dtype=np.float64)
    phi = phi / phi.sum(axis=1, keepdims=True)
    n_total = X.sum()
    if n_total == 0:
        raise ValueError("The held-out part contains no token.")
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    # theta_d . phi_w for every nonzero (d, w) only: never a dense D x V matrix.
    prob = np.einsum("ik,ik->i", theta[rows], phi[:, X.indices].T)
    log_lik = np.sum(X.data * np.log(np.maximum(prob, 1e-300)))
    return float(np.exp(-log_lik / n_total))


def document_completion_perplexity(estimator, X, *, random_state=None):
    """Held-out document completion perplexity of a fitted topic model.

    Parameters
    ----------
    estimator : estimator
        A fitted topic model with ``transform`` (topic proportions of
        documents) and ``components_`` (topics as rows over the features).

    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Held-out documents (not used in fitting ``estimator``).

    random_state : int, RandomState instance or None, default=None
        Seed of the binomial split of the counts
        (:func:`split_document_completion`).

    Returns
    -------
    perplexity : float
        Perplexity of the second halves given topic proportions inferred
        from the first halves; lower is better.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import LatentDirichletAllocation
    >>> from sklearn_pgtm.metrics import document_completion_perplexity
    >>> rng = np.random.RandomState(0)
    >>> X = rng.poisson(2.0, size=(40, 12))
    >>> lda = LatentDirichletAllocation(n_components=3, random_state=0).fit(X[:30])
    >>> float(document_completion_perplexity(lda, X[30:], random_state=0)) > 1
    True
    """
    check_is_fitted(estimator)
    observed, heldout = split_document_completion(X, random_state=random_state)
    theta = np.asarray(estimator.transform(observed), dtype=np.float64)
    return heldout_perplexity(theta, estimator.components_, heldout)
