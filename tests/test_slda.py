"""GibbsSLDAClassifier: conditionals against NumPy references, recovery from
data drawn from the model, multi-class, dask, input errors, scikit-learn checks."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_pgtm import GibbsSLDAClassifier
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._slda import draw_eta, eta_conditional
from sklearn_pgtm._kernels._sweeps import sample_topics


def make_supervised_corpus(n_docs=200, n_words=40, n_topics=4, doc_length=60, seed=0):
    """LDA corpus whose label is 1 when topics 0/1 outweigh topics 2/3."""
    rng = np.random.RandomState(seed)
    phi = np.zeros((n_topics, n_words))
    block = n_words // n_topics
    for k in range(n_topics):
        phi[k, k * block:(k + 1) * block] = 1.0
    phi = (phi + 0.01) / (phi + 0.01).sum(axis=1, keepdims=True)
    theta = rng.dirichlet(np.full(n_topics, 0.5), size=n_docs)
    X = np.vstack([rng.multinomial(doc_length, t @ phi) for t in theta])
    y = (theta[:, :2].sum(axis=1) > 0.5).astype(int)
    return X, y


# ---------------------------------------------------------------- conditionals
def test_eta_conditional_matches_numpy_reference():
    rng = np.random.RandomState(0)
    zbar = rng.dirichlet(np.ones(5), size=30)
    lam = rng.gamma(2.0, 0.3, size=30)
    kappa = rng.choice([-2.0, 2.0], size=30)
    nu2 = 0.7
    cov = np.linalg.inv(np.eye(5) / nu2 + (zbar.T * lam) @ zbar)
    mean_ref = cov @ (zbar.T @ kappa)
    mean, chol = eta_conditional(zbar, lam, kappa, nu2)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-10)
    np.testing.assert_allclose(np.linalg.inv(chol @ chol.T), cov, rtol=1e-10)
    # Draws have that mean and covariance.
    gen = np.random.default_rng(1)
    draws = np.array([draw_eta(zbar, lam, kappa, nu2, gen) for _ in range(20000)])
    se = np.sqrt(np.diag(cov) / len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - mean_ref) < 4 * se)
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.05 * np.abs(cov).max())


def test_supervised_sweep_conditional_matches_numpy_reference():
    """First token of a one-document corpus: the sweep's draw vs the exact conditional."""
    n_topics, n_words = 3, 4
    word_ids = np.array([2, 0, 1, 2, 3, 3], dtype=np.int32)
    topics0 = np.array([0, 1, 2, 2, 1, 0], dtype=np.int32)
    doc_ptr = np.array([0, 6], dtype=np.int64)
    alpha = np.array([0.5, 0.5, 0.5])
    beta = 0.3
    eta = np.array([1.5, -0.7, 0.4])
    kappa, lam = 2.0, 0.8
    n_d = 6
    doc_topic0 = np.bincount(topics0, minlength=n_topics).astype(np.int32)[None, :]
    word_topic0 = np.zeros((n_words, n_topics), dtype=np.int32)
    np.add.at(word_topic0, (word_ids, topics0), 1)
    # Another document's counts in the topic-word matrix make it less trivial.
    word_topic0[1, 0] += 3
    word_topic0[2, 1] += 2
    topic_total0 = word_topic0.sum(axis=0).astype(np.int32)
    # Reference conditional of token 0 (word 2, current topic 0).
    cdk = doc_topic0[0].astype(float)
    ckw = word_topic0[2].astype(float)
    ck = topic_total0.astype(float)
    cdk[0] -= 1
    ckw[0] -= 1
    ck[0] -= 1
    rest = eta @ doc_topic0[0] - eta[0]
    sup = np.exp(kappa * eta / n_d - lam * (eta**2 + 2 * eta * rest) / (2 * n_d**2))
    p = (cdk + alpha) * (ckw + beta) / (ck + n_words * beta) * sup
    p /= p.sum()

    n_rep = 6000
    states = make_streams(11, n_rep)
    counts = np.zeros(n_topics)
    for r in range(n_rep):
        topics = topics0.copy()
        doc_topic = doc_topic0.copy()
        word_topic = word_topic0.copy()
        topic_total = topic_total0.copy()
        disc = np.array([eta @ doc_topic0[0]])
        sample_topics(
            doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total, alpha, beta,
            beta * n_words, np.zeros((0, 0)), np.zeros((0, 0)), eta,
            np.array([kappa / n_d]), np.array([lam / (2 * n_d**2)]), disc, states[r:r + 1],
        )
        counts[topics[0]] += 1
        # Counts and discriminant stay consistent with the topics.
        assert np.array_equal(doc_topic[0], np.bincount(topics, minlength=n_topics))
        assert np.isclose(disc[0], eta[topics].sum())
    assert stats.chisquare(counts, p * n_rep).pvalue > 1e-3


# ---------------------------------------------------------------- behaviour
def test_recovers_label_topics_from_model_data():
    X, y = make_supervised_corpus()
    X_test, y_test = make_supervised_corpus(seed=1)
    clf = GibbsSLDAClassifier(n_components=4, c=4.0, max_iter=60, random_state=0)
    clf.fit(X[:150], y[:150])
    assert clf.score(X_test, y_test) > 0.85
    # The label topics (words 0-19) carry positive weights, the others negative.
    label_mass = clf.components_[:, :20].sum(axis=1)
    assert np.all(np.sign(clf.coef_[0]) == np.where(label_mass > 0.5, 1, -1))


def test_binary_outputs_and_reproducibility():
    X, y = make_supervised_corpus(n_docs=80)
    labels = np.array(["no", "yes"])[y]
    clf = GibbsSLDAClassifier(n_components=4, c=2.5, max_iter=20, random_state=3)
    clf.fit(sp.csr_matrix(X), labels)
    assert list(clf.classes_) == ["no", "yes"]
    scores = clf.decision_function(X)
    proba = clf.predict_proba(X)
    assert scores.shape == (80,) and proba.shape == (80, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, "yes", "no"))
    assert clf.transform(X).shape == (80, 4)
    assert clf.components_.shape == (4, X.shape[1]) and clf.coef_.shape == (1, 4)
    assert clf.n_iter_ == 20
    # Repeated predictions and a refit with the same seed are identical.
    np.testing.assert_array_equal(scores, clf.decision_function(X))
    np.testing.assert_array_equal(clf.transform(X), clf.transform(X))
    again = GibbsSLDAClassifier(n_components=4, c=2.5, max_iter=20, random_state=3)
    np.testing.assert_array_equal(again.fit(X, labels).decision_function(X), scores)


def make_three_class(seed=0):
    rng = np.random.RandomState(seed)
    centers = np.array([[8, 8, 0.2, 0.2, 0.2, 0.2], [0.2, 0.2, 8, 8, 0.2, 0.2],
                        [0.2, 0.2, 0.2, 0.2, 8, 8]])
    y = np.repeat([0, 1, 2], 30)
    X = rng.poisson(centers[y])
    return X, y


def test_multiclass_one_vs_rest():
    X, y = make_three_class()
    clf = GibbsSLDAClassifier(n_components=3, c=4.0, max_iter=30, random_state=0)
    clf.fit(X, y)
    assert clf.coef_.shape == (3, 3)
    assert clf.components_.shape == (9, 6) and len(clf.topic_word_per_model_) == 3
    assert clf.decision_function(X).shape == (90, 3)
    assert clf.transform(X).shape == (90, 9)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.9


def test_dask_backend_gives_the_same_models():
    distributed = pytest.importorskip("dask.distributed")
    from joblib import parallel_backend

    X, y = make_three_class()
    params = dict(n_components=3, c=4.0, max_iter=10, random_state=0)
    serial = GibbsSLDAClassifier(**params, n_jobs=1).fit(X, y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            with parallel_backend("dask"):
                parallel = GibbsSLDAClassifier(**params, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(parallel.coef_, serial.coef_)
    np.testing.assert_array_equal(parallel.predict(X), serial.predict(X))


def test_empty_documents_are_allowed():
    X, y = make_supervised_corpus(n_docs=60)
    X[:5] = 0
    clf = GibbsSLDAClassifier(n_components=4, c=2.0, max_iter=10, random_state=0).fit(X, y)
    scores = clf.decision_function(X)
    assert np.all(np.isfinite(scores)) and np.all(scores[:5] == 0)
    assert np.all(np.isfinite(clf.coef_))


def test_bad_input_errors():
    X, y = make_supervised_corpus(n_docs=40)
    clf = GibbsSLDAClassifier(n_components=2, max_iter=2)
    with pytest.raises(ValueError, match="only one class"):
        clf.fit(X, np.zeros(40))
    with pytest.raises(ValueError, match="Negative values"):
        clf.fit(-X, y)
    Xn = X.astype(float)
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xn, y)
    with pytest.raises(ValueError, match="empty"):
        clf.fit(np.zeros_like(X), y)
    clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :-1])
    with pytest.raises(ValueError, match="c"):
        GibbsSLDAClassifier(c=0.0).fit(X, y)


def test_pipeline_and_grid_search_over_c_and_n_components():
    docs = (["god belief faith church prayer"] * 15 + ["atheism reason evidence science"] * 15
            + ["faith science belief evidence"] * 4)
    y = [1] * 15 + [0] * 15 + [1, 0, 1, 0]
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("slda", GibbsSLDAClassifier(max_iter=10, random_state=0))])
    grid = GridSearchCV(pipe, {"slda__c": [1.0, 4.0], "slda__n_components": [2, 3]}, cv=2)
    grid.fit(docs, y)
    assert set(grid.best_params_) == {"slda__c", "slda__n_components"}
    assert grid.score(docs, y) > 0.8


EXPECTED_FAILED_CHECKS = {
    "check_decision_proba_consistency": (
        "the check's blobs contain negative values, which are not word counts"
    ),
}


@parametrize_with_checks(
    [GibbsSLDAClassifier(n_components=3, max_iter=5, n_infer_iter=5)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
