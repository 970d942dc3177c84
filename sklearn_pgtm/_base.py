"""Shared plumbing of the estimators: input validation, token arrays, random
streams, inference of document topics with fixed topics, progress reports.

Every estimator of the package converts a document-term count matrix once
into flat token arrays (``doc_ptr``, ``word_ids``) and runs the numba
kernels of :mod:`sklearn_pgtm._kernels` on them.
"""

import time

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_non_negative, validate_data

from ._kernels._likelihood import log_predictive
from ._kernels._random import document_streams, make_streams
from ._kernels._sweeps import initialize_topics, sample_topics

_EMPTY_2D = np.zeros((0, 0))
_EMPTY_1D = np.zeros(0)


def check_counts(estimator, X, *, reset, whom=None):
    """Validate a document-term count matrix and return it as CSR int counts.

    - sparse or dense input; NaN and infinite values raise ``ValueError``
      (from :func:`~sklearn.utils.validation.validate_data`);
    - negative values raise ``ValueError("Negative values in data passed
      to ...")``;
    - non-integer values are rounded to the nearest integer (documented
      behaviour: topic models count tokens);
    - at predict / transform time a wrong number of features raises
      ``ValueError`` naming both numbers.

    Returns a ``scipy.sparse.csr_matrix`` of ``int64`` with explicit zeros
    removed.
    """
    whom = whom or f"{type(estimator).__name__}"
    X = validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse="csr",
        dtype=[np.float64, np.float32],
    )
    check_non_negative(X, whom)
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.data = np.rint(X.data)
    X.eliminate_zeros()
    X = X.astype(np.int64)
    X.sort_indices()
    return X


def check_nonempty_corpus(X, whom):
    """Raise a clear error when a training corpus has no token at all."""
    if X.shape[0] == 0 or X.nnz == 0:
        raise ValueError(
            f"{whom}: the corpus is empty (no document has a positive count "
            "after rounding counts to integers); nothing to fit."
        )


def to_tokens(X):
    """Flat token arrays of a CSR count matrix.

    Returns ``doc_ptr`` (int64, D + 1 offsets) and ``word_ids`` (int32, one
    entry per token, grouped by document, words in column order).
    """
    counts = X.data.astype(np.int64)
    word_ids = np.repeat(X.indices.astype(np.int32), counts)
    doc_lengths = np.asarray(X.sum(axis=1)).ravel().astype(np.int64)
    doc_ptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(doc_lengths, out=doc_ptr[1:])
    return doc_ptr, word_ids


def random_topic_state(doc_ptr, word_ids, n_topics, n_words, seed):
    """Random initial topics and counts; returns (topics, doc_topic, word_topic, topic_total)."""
    n_docs = doc_ptr.shape[0] - 1
    topics = np.zeros(word_ids.shape[0], dtype=np.int32)
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
    word_topic = np.zeros((n_words, n_topics), dtype=np.int32)
    topic_total = np.zeros(n_topics, dtype=np.int32)
    states = make_streams(seed, n_docs)
    initialize_topics(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, states)
    return topics, doc_topic, word_topic, topic_total


def infer_doc_topics(doc_ptr, word_ids, phi, alpha, n_iter, seed, n_average=None,
                     empirical=False):
    """Topic proportions of documents under fixed topics ``phi`` (V, K).

    Collapsed Gibbs over the tokens' topics with ``p(z = k) ∝ phi[w, k]
    (C_dk¬n + alpha_k)``; the returned proportions are the posterior mean
    ``(C_dk + alpha_k) / (N_d + sum alpha)`` averaged over the last
    ``n_average`` sweeps (default: the second half). Deterministic for a
    given ``seed``, and a document's result depends only on its own words
    (its random stream is derived from them), not on the rest of the batch.
    Documents without tokens get the prior mean.

    With ``empirical=True`` the average of the empirical topic frequencies
    ``C_dk / N_d`` (the z-bar of supervised LDA) is returned instead; rows of
    documents without tokens are then zero.
    """
    n_docs = doc_ptr.shape[0] - 1
    n_topics = phi.shape[1]
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.ndim == 0:
        alpha = np.full(n_topics, float(alpha))
    n_iter = max(int(n_iter), 1)
    if n_average is None:
        n_average = max(n_iter // 2, 1)
    n_average = min(n_average, n_iter)
    states = document_streams(seed, doc_ptr, word_ids)
    topics = np.zeros(word_ids.shape[0], dtype=np.int32)
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int32)
    dummy_word_topic = np.zeros((0, n_topics), dtype=np.int32)
    dummy_total = np.zeros(n_topics, dtype=np.int32)
    # Initialize from the most likely topic of each word: fewer sweeps needed.
    topics[:] = np.argmax(phi, axis=1).astype(np.int32)[word_ids] if word_ids.size else 0
    doc_ids = np.repeat(np.arange(n_docs), np.diff(doc_ptr))
    np.add.at(doc_topic, (doc_ids, topics), 1)
    theta_sum = np.zeros((n_docs, n_topics))
    for it in range(n_iter):
        sample_topics(
            doc_ptr, word_ids, topics, doc_topic, dummy_word_topic, dummy_total,
            alpha, 0.0, 0.0, _EMPTY_2D, phi, _EMPTY_1D, _EMPTY_1D, _EMPTY_1D,
            _EMPTY_1D, states,
        )
        if it >= n_iter - n_average:
            theta_sum += doc_topic
    if empirical:
        lengths = np.diff(doc_ptr).astype(np.float64)
        return theta_sum / (n_average * np.maximum(lengths, 1.0))[:, None]
    theta = theta_sum / n_average + alpha
    theta /= theta.sum(axis=1, keepdims=True)
    return theta


def log_likelihood_per_token(doc_ptr, word_ids, theta, phi):
    """Mean plug-in log-likelihood per token, ``log(theta_d . phi[:, w])``."""
    n_tokens = word_ids.shape[0]
    if n_tokens == 0:
        return 0.0
    return log_predictive(doc_ptr, word_ids, theta, phi) / n_tokens


class ProgressReporter:
    """Prints iteration, log-likelihood and elapsed time when ``verbose`` is set."""

    def __init__(self, name, verbose, every=None):
        self.name = name
        self.verbose = int(verbose or 0)
        self.every = every
        self.start = time.perf_counter()

    def due(self, iteration, n_iter):
        if not self.verbose:
            return False
        every = self.every or max(n_iter // 10, 1)
        if self.verbose > 1:
            every = 1
        return (iteration + 1) % every == 0 or iteration + 1 == n_iter

    def report(self, iteration, n_iter, **values):
        parts = " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())
        print(
            f"[{self.name}] iteration {iteration + 1}/{n_iter} {parts} "
            f"time={time.perf_counter() - self.start:.2f}s",
            flush=True,
        )

    def summary(self, message):
        if self.verbose:
            print(
                f"[{self.name}] done in {time.perf_counter() - self.start:.2f}s: {message}",
                flush=True,
            )
