"""Input validation and token conversion shared by the estimators."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from sklearn_pgtm._base import (
    check_counts,
    check_nonempty_corpus,
    infer_doc_topics,
    to_tokens,
)


class _Dummy(BaseEstimator):
    pass


def test_to_tokens_roundtrip():
    X = sp.csr_matrix(np.array([[0, 2, 1], [0, 0, 0], [3, 0, 1]]))
    doc_ptr, word_ids = to_tokens(X)
    np.testing.assert_array_equal(doc_ptr, [0, 3, 3, 7])
    np.testing.assert_array_equal(word_ids, [1, 1, 2, 0, 0, 0, 2])
    assert word_ids.dtype == np.int32 and doc_ptr.dtype == np.int64


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_check_counts_rounds_and_accepts_formats(make):
    X = make(np.array([[0.4, 1.6], [2.0, 0.0]]))
    out = check_counts(_Dummy(), X, reset=True)
    assert sp.issparse(out) and out.format == "csr"
    np.testing.assert_array_equal(out.toarray(), [[0, 2], [2, 0]])


def test_check_counts_errors():
    est = _Dummy()
    with pytest.raises(ValueError, match="Negative values"):
        check_counts(est, np.array([[1.0, -1.0]]), reset=True)
    with pytest.raises(ValueError, match="NaN"):
        check_counts(est, np.array([[1.0, np.nan]]), reset=True)
    check_counts(est, np.ones((2, 3)), reset=True)
    with pytest.raises(ValueError, match="3 features"):
        check_counts(est, np.ones((2, 4)), reset=False)
    with pytest.raises(ValueError, match="empty"):
        check_nonempty_corpus(sp.csr_matrix((3, 4)), "Dummy")


def test_infer_doc_topics_recovers_obvious_mixtures():
    # Two topics with disjoint vocabularies: proportions follow the word counts.
    phi = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 0.5], [0.0, 0.5]]) + 1e-9
    X = sp.csr_matrix(np.array([[40, 40, 0, 0], [0, 0, 10, 70], [20, 0, 0, 60]]))
    doc_ptr, word_ids = to_tokens(X)
    theta = infer_doc_topics(doc_ptr, word_ids, phi, 0.1, n_iter=20, seed=0)
    expected = np.array([[80, 0], [0, 80], [20, 60]]) + 0.1
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(theta, expected, atol=1e-6)
    again = infer_doc_topics(doc_ptr, word_ids, phi, 0.1, n_iter=20, seed=0)
    np.testing.assert_array_equal(theta, again)
