"""top_words and topic_summary on arrays, estimators and pipelines."""

import sys
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from sklearn_pgtm.inspection import TopicSummary, top_words, topic_summary
from sklearn_pgtm.metrics import topic_coherence

DOCS = [
    "god bible jesus church faith", "church faith god prayer", "bible jesus god faith",
    "car engine wheel road", "engine road car speed", "wheel speed car engine",
    "god church car", "bible prayer faith jesus god",
] * 4
LABELS = np.array([0, 0, 0, 1, 1, 1, 0, 0] * 4)


@pytest.fixture(scope="module")
def fitted():
    vec = CountVectorizer()
    X = vec.fit_transform(DOCS)
    lda = LatentDirichletAllocation(n_components=2, random_state=0).fit(X)
    return vec, X, lda


def test_top_words_order_and_ties():
    topics = np.array([[1.0, 3.0, 3.0, 0.5], [0.0, 0.0, 0.0, 2.0]])
    names = ["a", "b", "c", "d"]
    assert top_words(topics, names, n_words=3) == [["b", "c", "a"], ["d", "a", "b"]]
    # More words than features: all of them.
    assert len(top_words(topics, names, n_words=10)[0]) == 4


def test_sparse_topics_are_read_as_arrays():
    # np.asarray of a sparse matrix failed with numpy's "setting an array
    # element with a sequence" in top_words, topic_summary and topic_coherence.
    import scipy.sparse as sp

    topics = np.array([[1.0, 3.0, 3.0, 0.5], [0.0, 0.0, 0.0, 2.0]])
    X = np.array([[1, 2, 0, 0], [0, 1, 1, 3], [2, 0, 1, 1]])
    names = ["a", "b", "c", "d"]
    for sparse in (sp.csr_matrix(topics), sp.csr_array(topics)):
        assert top_words(sparse, names, n_words=3) == top_words(topics, names, n_words=3)
        assert str(topic_summary(sparse, X, names, n_words=2)) == str(
            topic_summary(topics, X, names, n_words=2))
        np.testing.assert_array_equal(topic_coherence(sparse, X, top_n=2),
                                      topic_coherence(topics, X, top_n=2))


def test_feature_names_from_pipeline(fitted):
    vec, X, lda = fitted
    expected = top_words(lda, vec.get_feature_names_out(), n_words=4)
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("lda", LatentDirichletAllocation(n_components=2, random_state=0))])
    pipe.fit(DOCS)
    assert top_words(pipe, n_words=4) == expected
    # A classifier after the topic model: the topic step is the last with components_.
    pipe_clf = Pipeline([("counts", CountVectorizer()),
                         ("lda", LatentDirichletAllocation(n_components=2, random_state=0)),
                         ("clf", LogisticRegression())])
    pipe_clf.fit(DOCS, LABELS)
    assert top_words(pipe_clf, n_words=4) == expected
    # The explicit argument wins.
    names = [f"w{j}" for j in range(X.shape[1])]
    assert top_words(pipe, names, n_words=1)[0][0].startswith("w")


def test_feature_names_from_dataframe():
    pd = pytest.importorskip("pandas")
    vec = CountVectorizer()
    X = vec.fit_transform(DOCS)
    frame = pd.DataFrame(X.toarray(), columns=vec.get_feature_names_out())
    lda = LatentDirichletAllocation(n_components=2, random_state=0).fit(frame)
    assert top_words(lda, n_words=3) == top_words(lda, vec.get_feature_names_out(), n_words=3)


def test_errors_name_the_problem(fitted):
    vec, X, lda = fitted
    with pytest.raises(ValueError, match="No feature names"):
        top_words(lda)
    with pytest.raises(ValueError, match="feature_names has 3 entries"):
        top_words(lda, ["a", "b", "c"])
    # Unordered or not a sequence: said so, not "has 1 entries".
    names = vec.get_feature_names_out()
    for unordered in (set(names), dict.fromkeys(names), iter(names), " ".join(names)):
        with pytest.raises(ValueError, match="must be a sequence of names"):
            top_words(lda, unordered)
    with pytest.raises(ValueError, match="n_words"):
        top_words(lda, vec.get_feature_names_out(), n_words=0)
    with pytest.raises(ValueError, match="components_"):
        top_words(LatentDirichletAllocation(), ["a", "b"])
    pipe = Pipeline([("counts", CountVectorizer()), ("clf", LogisticRegression())])
    pipe.fit(DOCS, LABELS)
    with pytest.raises(ValueError, match="no fitted topic model"):
        top_words(pipe)
    with pytest.raises(ValueError, match="sort_by"):
        topic_summary(lda, X, vec.get_feature_names_out(), sort_by="words")
    with pytest.raises(ValueError, match="needs the prevalence"):
        topic_summary(lda, None, vec.get_feature_names_out(), sort_by="prevalence")
    with pytest.raises(ValueError, match="measure"):
        topic_summary(lda, X, vec.get_feature_names_out(), measure="c_v")


@pytest.mark.parametrize("topics", [[["x", "y", "z"]], [[1.0, 2.0, 3.0], [1.0, 2.0]],
                                    [[1j, 1.0, 1.0]], {"a": 1}])
def test_topics_that_are_not_numbers_are_named(topics):
    # np.asarray(topics, dtype=float64) let numpy speak alone ("could not
    # convert string to float: 'x'", "inhomogeneous shape", a TypeError).
    X = np.ones((4, 3))
    for call in (lambda: top_words(topics, ["a", "b", "c"]),
                 lambda: topic_summary(topics, X, ["a", "b", "c"]),
                 lambda: topic_coherence(topics, X, top_n=2)):
        with pytest.raises(ValueError, match=r"Topics \(components_\) must be a number or an "
                                             "array-like of numbers"):
            call()


def test_fitted_estimator_without_topics_is_not_told_to_fit(fitted):
    # A fitted MultinomialLDS used to get "has no components_: fit it first".
    from sklearn.exceptions import NotFittedError

    from sklearn_pgtm import MultinomialLDS

    X = np.eye(3, dtype=int)[np.random.RandomState(0).randint(0, 3, 20)]
    lds = MultinomialLDS(1, max_iter=2, random_state=0).fit(X)
    for call in (lambda: top_words(lds, ["a", "b", "c"]),
                 lambda: topic_summary(lds, None, ["a", "b", "c"])):
        with pytest.raises(ValueError, match="MultinomialLDS is fitted but has no "
                                             "components_: it is not a topic model"):
            call()
    with pytest.raises(NotFittedError, match="not fitted .* fit it first"):
        top_words(MultinomialLDS(), ["a", "b", "c"])


def test_summary_numbers_against_direct_computation(fitted):
    vec, X, lda = fitted
    names = vec.get_feature_names_out()
    summary = topic_summary(lda, X, names, n_words=4)
    theta = lda.transform(X)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    np.testing.assert_allclose(summary.prevalence, lengths @ theta / lengths.sum())
    np.testing.assert_allclose(summary.coherence, topic_coherence(lda, X, top_n=4))
    phi = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    for k, words in enumerate(summary.words):
        ids = [list(names).index(w) for w in words]
        np.testing.assert_allclose(summary.weights[k], phi[k, ids])
        assert np.all(np.diff(summary.weights[k]) <= 0)
    assert summary.coef is None
    text = str(summary)
    assert text.splitlines()[0].split() == ["topic", "prevalence", "npmi", "top", "words"]
    assert " ".join(summary.words[1]) in text.splitlines()[2]


def test_summary_sorting_and_pipeline_raw_documents(fitted):
    vec, X, lda = fitted
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("lda", LatentDirichletAllocation(n_components=2, random_state=0))])
    pipe.fit(DOCS)
    from_pipe = topic_summary(pipe, DOCS, n_words=4, sort_by="prevalence")
    direct = topic_summary(lda, X, vec.get_feature_names_out(), n_words=4)
    order = np.argsort(-direct.prevalence)
    np.testing.assert_array_equal(from_pipe.topics, order)
    np.testing.assert_allclose(from_pipe.prevalence, direct.prevalence[order])
    assert from_pipe.words == [direct.words[k] for k in order]
    by_coherence = topic_summary(lda, X, vec.get_feature_names_out(), sort_by="coherence",
                                 measure="umass")
    assert np.all(np.diff(by_coherence.coherence) <= 0)


def test_summary_of_supervised_multiclass_model():
    from sklearn_pgtm import GibbsSLDAClassifier

    vec = CountVectorizer()
    X = vec.fit_transform(DOCS)
    y = np.arange(len(DOCS)) % 3
    clf = GibbsSLDAClassifier(n_components=2, max_iter=5, n_infer_iter=5,
                              random_state=0).fit(X, y)
    summary = topic_summary(clf, X, vec.get_feature_names_out(), n_words=3)
    assert len(summary.words) == 6  # 3 one-vs-rest models x 2 topics
    # Each binary model's topics share its tokens.
    np.testing.assert_allclose(summary.prevalence.reshape(3, 2).sum(axis=1), 1.0)
    np.testing.assert_array_equal(summary.coef, clf.coef_.ravel())
    assert "coef" in str(summary).splitlines()[0]


def test_prevalence_from_trace_without_X():
    topics = np.array([[3.0, 1.0, 0.0], [0.0, 1.0, 3.0]])
    share = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]])
    model = SimpleNamespace(components_=topics, trace_=SimpleNamespace(topic_share=share))
    summary = topic_summary(model, feature_names=["a", "b", "c"], n_words=2)
    np.testing.assert_allclose(summary.prevalence, [0.35, 0.65])  # second half only
    assert summary.coherence is None
    plain = topic_summary(topics, feature_names=["a", "b", "c"], n_words=2)
    assert plain.prevalence is None and "prevalence" not in str(plain)


def test_to_frame_wide_and_long(fitted):
    pytest.importorskip("pandas")
    vec, X, lda = fitted
    summary = topic_summary(lda, X, vec.get_feature_names_out(), n_words=3)
    wide = summary.to_frame()
    assert list(wide.columns) == ["topic", "prevalence", "npmi", "top_words"]
    assert wide["top_words"].tolist() == [" ".join(w) for w in summary.words]
    long = summary.to_frame(long=True)
    assert list(long.columns) == ["topic", "rank", "word", "weight"]
    assert len(long) == 2 * 3
    np.testing.assert_allclose(long["weight"].to_numpy(), summary.weights.ravel())


def test_to_frame_without_pandas(monkeypatch):
    summary = TopicSummary(np.arange(1), [["a"]], np.ones((1, 1)))
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        summary.to_frame()
    assert "a" in str(summary)


# topic_summary(sort_by=...) reorders every column, the classifier weights
# included (coef left in the fitted order passed every test; mutation testing).
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sorted_summary_keeps_each_topic_with_its_classifier_weight(seed):
    rng = np.random.default_rng(seed)
    n_topics, n_features = 5, 8
    topics = rng.gamma(1.0, size=(n_topics, n_features))
    share = rng.dirichlet(np.ones(n_topics), size=6)  # trace of topic shares
    coef = rng.normal(size=(1, n_topics))             # one weight per topic
    model = SimpleNamespace(components_=topics, coef_=coef,
                            trace_=SimpleNamespace(topic_share=share))
    names = [f"w{j}" for j in range(n_features)]
    summary = topic_summary(model, feature_names=names, n_words=3, sort_by="prevalence")
    prevalence = share[share.shape[0] // 2:].mean(axis=0)  # the documented oracle
    order = np.argsort(-prevalence, kind="stable")
    assert not np.array_equal(order, np.arange(n_topics))  # the sort moves topics
    np.testing.assert_array_equal(summary.topics, order)
    np.testing.assert_allclose(summary.prevalence, prevalence[order])
    # Each row is one topic: its weight moves with it.
    np.testing.assert_array_equal(summary.coef, coef.ravel()[order])
    unsorted = topic_summary(model, feature_names=names, n_words=3)
    for row, k in enumerate(summary.topics):
        assert summary.words[row] == unsorted.words[k]
        assert summary.coef[row] == unsorted.coef[k]
