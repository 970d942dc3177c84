"""Document completion metrics against a direct NumPy computation."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.decomposition import LatentDirichletAllocation

from sklearn_pgtm.metrics import (
    document_completion_perplexity,
    heldout_perplexity,
    split_document_completion,
)


def test_split_preserves_counts_and_halves_them():
    rng = np.random.RandomState(0)
    X = sp.csr_matrix(rng.poisson(3.0, size=(200, 30)))
    observed, heldout = split_document_completion(X, random_state=1)
    np.testing.assert_array_equal((observed + heldout).toarray(), X.toarray())
    assert observed.min() >= 0 and heldout.min() >= 0
    n = X.sum()
    # Binomial(n, 1/2) in total: within 4 standard deviations of n / 2.
    assert abs(observed.sum() - n / 2) < 4 * np.sqrt(n / 4)
    again, _ = split_document_completion(X, random_state=1)
    np.testing.assert_array_equal(again.toarray(), observed.toarray())


def test_split_is_binomial_per_count():
    # Oracle: each count n splits as Binomial(n, 1/2) (chi-square against
    # its pmf over many cells of 12 and of 3). A split that sent whole cells
    # to one side or the other kept the totals of the test above.
    from scipy import stats

    for n in (12, 3):
        X = sp.csr_matrix(np.full((400, 10), n))
        observed, _ = split_document_completion(X, random_state=0)
        seen = np.bincount(observed.toarray().ravel(), minlength=n + 1)
        expected = stats.binom.pmf(np.arange(n + 1), n, 0.5) * X.nnz
        keep = expected >= 5  # the chi-square's cells
        statistic = np.sum((seen[keep] - expected[keep]) ** 2 / expected[keep])
        assert stats.chi2.sf(statistic, keep.sum() - 1) > 1e-3


def test_duplicate_entries_are_summed_before_rounding():
    # A CSR matrix may store one cell in several entries (its value is their
    # sum); the metrics rounded each entry, so halves 1.5 + 1.5 of a count 3
    # counted 4 and halves 0.5 + 0.5 of a count 1 counted 0.
    X = np.array([[3, 1, 0], [0, 2, 5]])
    halves = sp.csr_matrix((np.repeat(X[X > 0] / 2, 2), np.repeat(np.nonzero(X)[1], 2),
                            np.array([0, 4, 8])), shape=X.shape)
    theta = np.array([[0.7, 0.3], [0.2, 0.8]])
    phi = np.array([[0.5, 0.3, 0.2], [0.1, 0.2, 0.7]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cells are integers: no rounding warning
        assert heldout_perplexity(theta, phi, halves) == heldout_perplexity(theta, phi, X)
        observed, heldout = split_document_completion(halves, random_state=0)
    np.testing.assert_array_equal((observed + heldout).toarray(), X)


def test_heldout_perplexity_matches_loop_reference():
    rng = np.random.RandomState(0)
    theta = rng.dirichlet(np.ones(3), size=5)
    phi = rng.dirichlet(np.ones(7), size=3)
    X = rng.poisson(1.5, size=(5, 7))
    log_lik = 0.0
    for d in range(5):
        for w in range(7):
            log_lik += X[d, w] * np.log(theta[d] @ phi[:, w])
    expected = np.exp(-log_lik / X.sum())
    # Unnormalized inputs are renormalized.
    assert np.isclose(heldout_perplexity(theta * 3.0, phi * 2.0, X), expected)


def test_heldout_perplexity_gathers_in_chunks_with_the_same_result(monkeypatch):
    # The nonzeros' proportions and topic weights are gathered a bounded
    # number of entries at a time (at once they took nnz x K x 16 bytes):
    # chunks of one nonzero, of a few and all at once give one value.
    from sklearn_pgtm import metrics

    rng = np.random.RandomState(1)
    theta = rng.dirichlet(np.ones(4), size=30)
    phi = rng.dirichlet(np.ones(50), size=4)
    X = rng.poisson(0.3, size=(30, 50))
    values = []
    for entries in (1, 4 * 7, 2**21):
        monkeypatch.setattr(metrics, "_GATHER_ENTRIES", entries)
        values.append(heldout_perplexity(theta, phi, X))
    assert values[0] == values[1] == values[2]


class _Fixed(BaseEstimator):
    """A 'fitted' model with known topics and a transform that ignores X."""

    def __init__(self, theta=None, phi=None):
        self.theta, self.phi = theta, phi
        self.components_ = phi

    def fit(self, X=None):
        return self

    def transform(self, X):
        return self.theta


def test_document_completion_uses_transform_and_components():
    rng = np.random.RandomState(2)
    theta = rng.dirichlet(np.ones(2), size=4)
    phi = rng.dirichlet(np.ones(6), size=2)
    X = rng.poisson(4.0, size=(4, 6))
    _, heldout = split_document_completion(X, random_state=3)
    expected = heldout_perplexity(theta, phi, heldout)
    assert np.isclose(document_completion_perplexity(_Fixed(theta, phi), X, random_state=3),
                      expected)


def test_works_with_sklearn_lda_and_prefers_the_true_topics():
    rng = np.random.RandomState(0)
    phi = np.zeros((2, 10))
    phi[0, :5] = phi[1, 5:] = 0.2
    theta = rng.dirichlet([0.3, 0.3], size=120)
    X = np.vstack([rng.multinomial(60, t @ phi) for t in theta])
    lda = LatentDirichletAllocation(n_components=2, random_state=0).fit(X[:100])
    good = document_completion_perplexity(lda, X[100:], random_state=0)
    bad = LatentDirichletAllocation(n_components=2, max_iter=1, random_state=0)
    bad.fit(rng.poisson(1.0, size=(100, 10)))
    assert good < document_completion_perplexity(bad, X[100:], random_state=0)
    assert good < 10  # a uniform model over 10 words has perplexity 10


def test_errors():
    with pytest.raises(ValueError, match="Negative"):
        split_document_completion(np.array([[1, -1]]))
    with pytest.raises(ValueError, match="no token"):
        heldout_perplexity(np.ones((1, 2)), np.ones((2, 2)), np.zeros((1, 2)))


def test_pandas_nullable_counts_are_read_as_counts():
    # scipy's constructor read a pandas.NA cell with pandas' "boolean value of
    # NA is ambiguous" TypeError; a nullable frame without NA is plain counts.
    pd = pytest.importorskip("pandas")
    from sklearn_pgtm.metrics import topic_coherence

    counts = np.array([[2, 0, 1], [0, 3, 1]])
    frame = pd.DataFrame(counts).astype("Int64")
    observed, heldout = split_document_completion(frame, random_state=0)
    np.testing.assert_array_equal((observed + heldout).toarray(), counts)
    frame.iloc[0, 0] = pd.NA
    topics = np.array([[1.0, 0.5, 0.1], [0.1, 0.5, 1.0]])
    for call in (lambda: split_document_completion(frame),
                 lambda: topic_coherence(topics, frame, top_n=2),
                 lambda: heldout_perplexity(np.ones((2, 2)), topics, frame)):
        with pytest.raises(ValueError, match="NaN"):
            call()


def _bad(array, index, value):
    array = array.copy()
    array[index] = value
    return array


@pytest.mark.parametrize("args, match", [
    # A row-count mismatch used to be accepted (more proportions than
    # documents) or an IndexError (fewer); so was a vocabulary mismatch.
    (lambda t, p, X: (t[:2], p, X), "doc_topic has 2 rows but X_heldout has 3"),
    (lambda t, p, X: (np.vstack([t, t]), p, X), "doc_topic has 6 rows but X_heldout has 3"),
    (lambda t, p, X: (t, p[:, :3], X), "topic_word has 3 features .* X_heldout has 4"),
    (lambda t, p, X: (t, p, X[:, :3]), "topic_word has 4 features .* X_heldout has 3"),
    (lambda t, p, X: (t[:, :1], p, X), "doc_topic has 1 topics .* topic_word has 2"),
    (lambda t, p, X: (t[0], p, X), "doc_topic must be a 2-d array"),
    # These gave nan or a number that is no perplexity.
    (lambda t, p, X: (_bad(t, 1, 0.0), p, X), "row 1 of doc_topic is all zero"),
    (lambda t, p, X: (_bad(t, (0, 0), -1.0), p, X), "doc_topic contains negative"),
    (lambda t, p, X: (_bad(t, (0, 0), np.nan), p, X), "doc_topic contains NaN"),
    (lambda t, p, X: (_bad(t, (0, 0), np.inf), p, X), "doc_topic contains NaN or infinity"),
    (lambda t, p, X: (t, _bad(p, 0, 0.0), X), "row 0 of topic_word is all zero"),
    (lambda t, p, X: (t, _bad(p, (1, 2), -0.5), X), "topic_word contains negative"),
    (lambda t, p, X: (t, _bad(p, (1, 2), np.nan), X), "topic_word contains NaN"),
    (lambda t, p, X: ([["a", "b"]] * 3, p, X), "doc_topic must be a number or an array-like of numbers"),
])
def test_heldout_perplexity_rejects_inconsistent_input(args, match):
    theta = np.array([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    phi = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    X = np.array([[1, 0, 2, 0], [0, 3, 0, 1], [1, 1, 1, 1]])
    with pytest.raises(ValueError, match=match):
        heldout_perplexity(*args(theta, phi, X))


def test_heldout_perplexity_reads_sparse_proportions_and_topics():
    # np.asarray of a sparse matrix failed: "doc_topic must be an array of
    # numbers (setting an array element with a sequence.)".
    theta = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    phi = np.array([[0.4, 0.3, 0.2, 0.1], [0.0, 0.2, 0.3, 0.5]])
    X = np.array([[1, 0, 2, 0], [0, 3, 0, 1], [1, 1, 1, 1]])
    expected = heldout_perplexity(theta, phi, X)
    for to_sparse in (sp.csr_matrix, sp.csc_array):
        assert heldout_perplexity(to_sparse(theta), to_sparse(phi), X) == expected
    with pytest.raises(ValueError, match="doc_topic contains negative"):
        heldout_perplexity(sp.csr_matrix(-theta), phi, X)


def test_heldout_perplexity_of_an_impossible_count_is_infinite():
    # log(0) was clipped at 1e-300: a finite perplexity set by the clip
    # (here exp(690.8 / 2), about 1e150).
    theta = np.array([[1.0, 0.0]])
    phi = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    with pytest.warns(UserWarning, match=r"heldout_perplexity: 1 held-out count\(s\) have "
                                         "probability 0 under doc_topic and topic_word; the "
                                         "perplexity is infinite"):
        assert heldout_perplexity(theta, phi, np.array([[1, 0, 1]])) == np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert heldout_perplexity(theta, phi, np.array([[1, 1, 0]])) == pytest.approx(2.0)


def test_fractional_counts_warn_as_in_the_estimators():
    # TF-IDF-like input was rounded to counts (mostly 0) without a word by
    # the metrics, where the estimators warn.
    from sklearn_pgtm.inspection import topic_summary
    from sklearn_pgtm.metrics import topic_coherence

    rng = np.random.default_rng(0)
    tfidf = rng.uniform(0.1, 2.0, size=(6, 4))
    theta = np.full((6, 2), 0.5)
    phi = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    calls = {
        "split_document_completion": lambda: split_document_completion(tfidf, random_state=0),
        "heldout_perplexity": lambda: heldout_perplexity(theta, phi, tfidf),
        "document_completion_perplexity": lambda: document_completion_perplexity(
            _Fixed(theta, phi), tfidf, random_state=0),
        "topic_coherence": lambda: topic_coherence(phi, tfidf, top_n=2),
        "topic_summary": lambda: topic_summary(_Fixed(theta, phi), tfidf, list("abcd"),
                                               n_words=2),
    }
    for whom, call in calls.items():
        with pytest.warns(UserWarning, match="are not integers") as record:
            call()
        fractional = [str(w.message) for w in record if "are not integers" in str(w.message)]
        assert len(fractional) == 1 and fractional[0].startswith(f"{whom}: 24 of the 24"), \
            fractional
    name = "X_heldout"
    with pytest.warns(UserWarning, match=f"nonzero entries of {name} are not integers"):
        heldout_perplexity(theta, phi, tfidf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        heldout_perplexity(theta, phi, np.rint(tfidf) + 1)


def test_dataframe_counts_do_not_warn_about_feature_names():
    # X was converted to a sparse matrix before the model's transform, which
    # then warned "X does not have valid feature names, but ... was fitted
    # with feature names" for the very DataFrame it was fitted on.
    pd = pytest.importorskip("pandas")
    from sklearn_pgtm.inspection import topic_summary

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.poisson(1.0, size=(20, 6)), columns=list("abcdef"))
    lda = LatentDirichletAllocation(n_components=2, max_iter=5, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = document_completion_perplexity(lda, X, random_state=0)
        summary = topic_summary(lda, X, n_words=2)
    with pytest.warns(UserWarning, match="feature names"):
        # An array to a model fitted on a DataFrame: scikit-learn's warning.
        assert value == document_completion_perplexity(lda, X.to_numpy(), random_state=0)
    lengths = X.to_numpy().sum(axis=1)
    np.testing.assert_allclose(summary.prevalence,
                               lengths @ lda.transform(X) / lengths.sum())
    # Other columns still get it.
    with pytest.warns(UserWarning, match="feature names"):
        document_completion_perplexity(lda, X.rename(columns={"a": "z"}), random_state=0)


def test_heldout_perplexity_ignores_zero_rows_without_heldout_counts():
    # An empty document is never scored: its proportions do not matter.
    theta = np.array([[0.5, 0.5], [0.0, 0.0]])
    phi = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    X = np.array([[1, 1, 2], [0, 0, 0]])
    assert np.isclose(heldout_perplexity(theta, phi, X),
                      heldout_perplexity(theta[:1], phi, X[:1]))


def test_document_completion_names_the_estimator_output():
    theta = np.array([[0.5, 0.5], [0.0, 0.0]])
    phi = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match=r"row 1 of _Fixed.transform\(X\) is all zero"):
        document_completion_perplexity(_Fixed(theta, phi), np.full((2, 3), 4), random_state=0)


def test_heldout_perplexity_is_public():
    import sklearn_pgtm.metrics as metrics

    assert "heldout_perplexity" in metrics.__all__


def test_document_completion_infers_the_proportions_from_the_observed_half_only():
    # The proportions come from transform of the observed half; the held-out
    # half is only scored (inferring from it would score words the model
    # has seen).
    class _Recording(_Fixed):
        def transform(self, X):
            self.seen_ = sp.csr_matrix(X).toarray()
            return self.theta

    rng = np.random.RandomState(2)
    theta = rng.dirichlet(np.ones(2), size=4)
    phi = rng.dirichlet(np.ones(6), size=2)
    X = rng.poisson(4.0, size=(4, 6))
    observed, _ = split_document_completion(X, random_state=3)
    model = _Recording(theta, phi)
    document_completion_perplexity(model, X, random_state=3)
    np.testing.assert_array_equal(model.seen_, observed.toarray())
