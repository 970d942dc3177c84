"""The post-fit contract shared by every topic model of the package.

One test per promise, parametrized over every estimator: output shapes, the
meaning of ``components_`` (scikit-learn's: unnormalized pseudo-counts, the
prior plus averaged counts), empty documents, errors, feature names,
pickling, repeated calls, posterior draws, a failed fit leaving the previous
state intact, set_params after fit leaving the fitted model as it is.
"""

import copy
import pickle

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_pgtm import (
    CorrelatedTopicModel,
    EmpiricalBayesLDA,
    GibbsLDA,
    GibbsSLDAClassifier,
)

from _corpora import lda_corpus

X, _ = lda_corpus(60, 25, 3, 30, 0.3, 0.2, seed=0)
Y = (X[:, :12].sum(axis=1) > X[:, 12:].sum(axis=1)).astype(int)
Y3 = np.argmax(np.add.reduceat(X, [0, 8, 16], axis=1), axis=1)

FACTORIES = {
    "GibbsLDA": lambda: GibbsLDA(3, max_iter=12, burn_in=6, n_infer_iter=20, random_state=0),
    "EmpiricalBayesLDA": lambda: EmpiricalBayesLDA(3, n_samples=8, burn_in=4, n_final_iter=4,
                                                   n_infer_iter=20, random_state=0),
    "EmpiricalBayesLDA-asymmetric": lambda: EmpiricalBayesLDA(
        3, symmetric_alpha=False, n_samples=8, burn_in=4, n_final_iter=4, n_infer_iter=20,
        random_state=0),
    "CorrelatedTopicModel": lambda: CorrelatedTopicModel(3, max_iter=10, burn_in=4,
                                                         n_infer_iter=20, random_state=0),
    "CorrelatedTopicModel-sb": lambda: CorrelatedTopicModel(3, link="stick_breaking",
                                                            max_iter=10, burn_in=4,
                                                            n_infer_iter=20, random_state=0),
    "GibbsSLDAClassifier": lambda: GibbsSLDAClassifier(3, c=2.0, max_iter=10, burn_in=4,
                                                       n_infer_iter=20, random_state=0),
    "GibbsSLDAClassifier-ovr": lambda: GibbsSLDAClassifier(3, c=2.0, max_iter=10, burn_in=4,
                                                           n_infer_iter=20, random_state=0),
    "GibbsSLDAClassifier-multinomial": lambda: GibbsSLDAClassifier(
        3, c=2.0, multi_class="multinomial", max_iter=10, burn_in=4, n_infer_iter=20,
        random_state=0),
}


def _fit(name):
    return _fit_with(FACTORIES[name](), name)


def _fit_with(est, name):
    """``est`` fitted on the data of factory ``name``."""
    if name.startswith("GibbsSLDA"):
        return est.fit(X, Y if name == "GibbsSLDAClassifier" else Y3)
    return est.fit(X)


@pytest.fixture(scope="module", params=list(FACTORIES))
def fitted(request):
    return request.param, _fit(request.param)


def _n_models(est):
    """Topic models side by side in ``components_`` (one per one-vs-rest class)."""
    return est.components_.shape[0] // est.n_components


def test_shapes_and_proportions(fitted):
    _, est = fitted
    n_out = est.components_.shape[0]
    assert est.components_.shape == (n_out, X.shape[1])
    theta = est.transform(X[:7])
    assert theta.shape == (7, n_out)
    blocks = theta.reshape(7, _n_models(est), -1)
    np.testing.assert_allclose(blocks.sum(axis=2), 1.0)
    assert est.log_likelihood_trace_.shape == (est.n_iter_,)
    assert np.all(np.isfinite(est.log_likelihood_trace_))


def test_components_are_pseudo_counts(fitted):
    # Like LatentDirichletAllocation.components_: the topic-word prior plus
    # (averaged) topic-word counts; over all topics of a model the counts add
    # up to the corpus's tokens.
    _, est = fitted
    beta = np.broadcast_to(est.topic_word_prior_, (_n_models(est),))
    counts = est.components_.reshape(_n_models(est), -1, X.shape[1]) - beta[:, None, None]
    assert np.all(counts > -1e-9)
    np.testing.assert_allclose(counts.sum(axis=(1, 2)), X.sum())


def test_empty_documents(fitted):
    _, est = fitted
    empty = np.zeros((2, X.shape[1]))
    theta = est.transform(np.vstack([empty, X[:1]]))
    assert np.all(np.isfinite(theta))
    np.testing.assert_allclose(theta[0], theta[1])  # both get the prior
    if not isinstance(est, CorrelatedTopicModel):  # its prior mean is a Monte Carlo one
        n_models = _n_models(est)
        k = est.components_.shape[0] // n_models
        alphas = ([np.full(k, a) for a in np.broadcast_to(est.doc_topic_prior_, (n_models,))]
                  if n_models > 1 else [np.broadcast_to(est.doc_topic_prior_, (k,))])
        np.testing.assert_allclose(theta[0], np.concatenate([a / a.sum() for a in alphas]),
                                   rtol=1e-12)
    assert is_classifier(est) or est.score(empty) == 0.0
    with pytest.raises(ValueError, match="no token"):
        est.perplexity(empty)


def test_errors(fitted):
    name, _ = fitted
    fresh = FACTORIES[name]()
    with pytest.raises(NotFittedError):
        fresh.transform(X)
    est = fitted[1]
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :-1])
    with pytest.raises(ValueError, match="Negative"):
        est.transform(-X)


def test_feature_names_out(fitted):
    _, est = fitted
    names = est.get_feature_names_out()
    assert len(names) == est.components_.shape[0]
    assert names[0] == type(est).__name__.lower() + "0"


def test_pickle_round_trip_and_repeated_transform_are_identical(fitted):
    _, est = fitted
    first = est.transform(X[:10])
    np.testing.assert_array_equal(first, est.transform(X[:10]))
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(first, clone.transform(X[:10]))
    # A document's result does not depend on the rest of the batch.
    np.testing.assert_array_equal(first[3:4], est.transform(X[3:4]))


def test_sample_transform(fitted):
    _, est = fitted
    draws = est.sample_transform(X[:4], n_samples=30)
    assert draws.shape == (30, 4, est.components_.shape[0])
    np.testing.assert_allclose(draws.reshape(30, 4, _n_models(est), -1).sum(axis=3), 1.0)
    np.testing.assert_array_equal(draws, est.sample_transform(X[:4], n_samples=30))
    # The draws scatter around the posterior mean (two finite stretches of one
    # chain: on average close, though a pair of similar topics mixes slowly).
    assert np.abs(draws.mean(axis=0) - est.transform(X[:4])).mean() < 0.05
    with pytest.raises(ValueError, match="n_samples"):
        est.sample_transform(X[:4], n_samples=0)


def test_perplexity_is_exp_of_minus_score_per_held_out_token(fitted):
    _, est = fitted
    if is_classifier(est):
        pytest.skip("a classifier's score is its accuracy")
    _, held = _completion_halves(est, X[:10])
    np.testing.assert_allclose(est.perplexity(X[:10]), np.exp(-est.score(X[:10]) / held.sum()))
    assert 0 < held.sum() < X[:10].sum()


@pytest.mark.parametrize("name", list(FACTORIES))
def test_failed_fit_keeps_the_previous_state(name):
    est = _fit(name)
    before = est.transform(X[:5])
    components = est.components_.copy()
    bad = -X
    with pytest.raises(ValueError):
        est.fit(bad, Y) if name.startswith("GibbsSLDA") else est.fit(bad)
    with pytest.raises(ValueError):
        est.fit(X[:, :-2] * 0.0, Y) if name.startswith("GibbsSLDA") else est.fit(X[:, :-2] * 0)
    np.testing.assert_array_equal(est.components_, components)
    assert est.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(est.transform(X[:5]), before)


def test_interrupted_fit_keeps_the_previous_state(monkeypatch):
    est = _fit("GibbsLDA")
    before = est.transform(X[:5])
    calls = []

    def interrupt(run):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(est, "_sweep", interrupt)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X[:30])
    monkeypatch.undo()
    np.testing.assert_array_equal(est.transform(X[:5]), before)


def test_set_output_pandas(fitted):
    pd = pytest.importorskip("pandas")
    name, est = fitted
    est = pickle.loads(pickle.dumps(est)).set_output(transform="pandas")
    out = est.transform(X[:3])
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(est.get_feature_names_out())


# ------------------------------------------------- set_params after fit
# Parameters that the post-fit methods read at each call: they tune the
# inference of new documents only (documented in the user guide).
LIVE_PARAMS = {"n_infer_iter", "n_jobs"}
# Other valid values of the parameters read at fit; each one that differs from
# the fitted value is set in turn.
OTHER_VALUES = {
    "n_components": [2, 5],
    "link": ["logistic_normal", "stick_breaking"],
    "symmetric_alpha": [True, False],
    "multi_class": ["ovr", "multinomial"],
    "prediction": ["refit", "average", "last"],
    "prediction_topics": ["expected", "inferred"],
    "pg_method": ["exact", "gaussian"],
    "pg_terms": [2],
    "n_subiter": [1],
    "prior_strength": [0.5],
    "c": [7.0],
    "prior_variance": [3.0],
    "doc_topic_prior": [0.7],
    "topic_word_prior": [0.4],
    "split_merge": [True, False],
    "method": ["sparse"],
    "sampler": ["augmentation", "hmc"],
    "n_samples": [4],
    "n_final_iter": [1],
    "hmc_n_steps": [5],
    "hmc_step_size": [0.3],
    "n_batches": [3],
    "n_chains": [1],
    "hyperprior": [(2.0, 1.0)],
    "max_iter": [2],
    "burn_in": [1],
    "warm_start": [True, False],
    "random_state": [7],
    "verbose": [0, 1],
}


def _post_fit_outputs(est):
    """What the fitted estimator's post-fit methods return on a few documents."""
    out = {"transform": est.transform(X[:5]),
           "sample_transform": est.sample_transform(X[:3], n_samples=3),
           "feature_names": est.get_feature_names_out()}
    if is_classifier(est):
        for method in ("decision_function", "predict", "predict_proba", "predict_log_proba"):
            out[method] = getattr(est, method)(X[:5])
        out["score"] = est.score(X[:5], est.classes_[np.arange(5) % len(est.classes_)])
    else:
        out["score"] = est.score(X[:5])
        out["perplexity"] = est.perplexity(X[:5])
    if isinstance(est, EmpiricalBayesLDA):
        h = (est.doc_topic_prior_, est.topic_word_prior_)
        out["log_marginal_likelihood"] = est.log_marginal_likelihood(*h)
        out["in_confidence_region"] = est.in_confidence_region(*h)
        out["confidence_region_bound"] = est.confidence_region_bound()
    return out


def _assert_same_outputs(est, expected, setting):
    outputs = _post_fit_outputs(est)
    assert outputs.keys() == expected.keys()
    for key, value in expected.items():
        np.testing.assert_array_equal(outputs[key], value, err_msg=f"{setting}: {key}")


def _other_values(est):
    """(parameter, value) pairs of OTHER_VALUES that differ from the fitted values."""
    params = est.get_params()
    return [(name, value) for name, values in OTHER_VALUES.items() if name in params
            for value in values if value != params[name]]


def test_set_params_after_fit_leaves_the_fitted_model_unchanged(fitted):
    # scikit-learn's convention: a fitted estimator behaves as fitted until it
    # is fitted again. Before, the post-fit methods read n_components, link,
    # symmetric_alpha, ... as set now: shape errors, silently other results or
    # (CorrelatedTopicModel) kernels given arrays of other widths.
    name, est = fitted
    est = copy.deepcopy(est)
    expected = _post_fit_outputs(est)
    params = est.get_params()
    assert set(params) - LIVE_PARAMS <= set(OTHER_VALUES)  # none forgotten
    others = _other_values(est)
    for param, value in others:
        est.set_params(**{param: value})
        _assert_same_outputs(est, expected, f"{name}, {param}={value!r}")
        est.set_params(**{param: params[param]})
    # All at once (e.g. a link and a number of topics of another model).
    est.set_params(**dict(others))
    _assert_same_outputs(est, expected, f"{name}, all changed")


def test_inference_settings_are_read_at_each_call(fitted):
    # n_infer_iter and n_jobs tune the inference of new documents only: set
    # after fit, they apply at the next call (threads do not change results).
    _, est = fitted
    est = copy.deepcopy(est)
    expected = est.transform(X[:5])
    est.set_params(n_jobs=2)
    np.testing.assert_array_equal(est.transform(X[:5]), expected)
    est.set_params(n_infer_iter=3)
    theta = est.transform(X[:5])
    assert theta.shape == expected.shape and np.all(np.isfinite(theta))
    assert not np.array_equal(theta, expected)


def test_transform_averages_by_the_one_shared_rule(fitted, monkeypatch):
    # Every model's inference averages the sweeps after the first
    # n_infer_iter // INFER_BURN_IN_DIVISOR (one rule, in _base): changing it
    # changes every model's transform.
    import sklearn_pgtm._base as base

    _, est = fitted
    expected = est.transform(X[:5])
    monkeypatch.setattr(base, "INFER_BURN_IN_DIVISOR", 2)
    assert not np.allclose(est.transform(X[:5]), expected)


@pytest.mark.parametrize("setting", [{"n_infer_iter": 0}, {"n_infer_iter": -1},
                                     {"n_infer_iter": 2.5}, {"n_jobs": 0}])
def test_inference_settings_set_after_fit_are_validated_at_the_call(fitted, setting):
    # set_params does not validate: n_infer_iter=0 made transform return NaN
    # (no sweep averaged), 2.5 a TypeError from range, n_jobs=0 a bare error
    # from the thread pool.
    _, est = fitted
    est = copy.deepcopy(est).set_params(**setting)
    name = next(iter(setting))
    methods = [est.transform, est.perplexity, lambda Z: est.sample_transform(Z, n_samples=2)]
    if is_classifier(est):
        methods += [est.predict_proba, est.decision_function, lambda Z: est.score(Z, Y[:5])]
    else:
        methods.append(est.score)
    for method in methods:
        with pytest.raises(InvalidParameterError, match=name):
            method(X[:5])


@pytest.mark.parametrize("name", ["GibbsLDA", "CorrelatedTopicModel", "GibbsSLDAClassifier-ovr"])
def test_interrupted_continuation_leaves_the_chain_as_it_was(name, monkeypatch):
    # The sweeps change the kept run in place: before, an interrupted warm
    # start left it advanced by the sweeps done (n_iter_ 12 but the chain at
    # sweep 15), and the next continuation differed from the longer fit.
    est = FACTORIES[name]().set_params(warm_start=True)
    first = _fit_with(est, name)
    n_iter, trace = first.n_iter_, first.log_likelihood_trace_.copy()
    before = first.transform(X[:5])
    sweep, calls = first._sweep, []

    def interrupted(run):
        calls.append(1)
        if len(calls) > 3:
            raise KeyboardInterrupt
        sweep(run)

    monkeypatch.setattr(first, "_sweep", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _fit_with(first, name)
    monkeypatch.undo()
    assert first.n_iter_ == first._run.iteration == n_iter
    np.testing.assert_array_equal(first.log_likelihood_trace_, trace)
    np.testing.assert_array_equal(first.transform(X[:5]), before)
    word_ids = first._run.chains()[0].tokens.word_ids
    continued = _fit_with(first, name)  # the same chain, max_iter more sweeps
    assert continued._run.chains()[0].tokens.word_ids is word_ids  # a copy shares the tokens
    longer = _fit_with(FACTORIES[name]().set_params(max_iter=2 * n_iter), name)
    assert continued.n_iter_ == longer.n_iter_ == 2 * n_iter
    np.testing.assert_array_equal(continued.log_likelihood_trace_, longer.log_likelihood_trace_)
    np.testing.assert_array_equal(continued.components_, longer.components_)
    np.testing.assert_array_equal(continued.transform(X[:5]), longer.transform(X[:5]))


def _completion_halves(est, docs):
    """The two halves of document completion as count matrices, built here
    from the package's token split (the coin of every token) alone."""
    from sklearn_pgtm._base import to_tokens
    from sklearn_pgtm._kernels._random import document_streams, split_tokens_in_half

    doc_ptr, word_ids = to_tokens(sp.csr_matrix(docs))
    observed = np.empty(word_ids.shape[0], dtype=np.uint8)
    split_tokens_in_half(doc_ptr, document_streams(est._split_seed, doc_ptr, word_ids),
                         observed)
    doc_ids = np.repeat(np.arange(docs.shape[0]), np.diff(doc_ptr))
    halves = [sp.csr_matrix((np.ones(int(np.sum(observed == keep))),
                             (doc_ids[observed == keep], word_ids[observed == keep])),
                            shape=docs.shape) for keep in (1, 0)]
    return tuple(halves)


def test_score_is_numpys_document_completion(fitted):
    # Oracle: sum_d sum_w h_dw log(theta_d . phi_w) computed here over the
    # held-out half h, theta from transform of the observed half alone and
    # phi the row-normalized components_ (of each model of a one-vs-rest
    # classifier, whose log-likelihoods are averaged).
    _, est = fitted
    docs = X[:10]
    observed, held = _completion_halves(est, docs)
    assert (observed + held != sp.csr_matrix(docs)).nnz == 0
    theta = est.transform(observed)
    n_models = _n_models(est)
    k = est.components_.shape[0] // n_models
    values = []
    for m in range(n_models):
        phi = est.components_[m * k:(m + 1) * k]
        phi = phi / phi.sum(axis=1, keepdims=True)
        values.append(np.sum(held.toarray() * np.log(theta[:, m * k:(m + 1) * k] @ phi)))
    expected = np.mean(values)
    if not is_classifier(est):
        np.testing.assert_allclose(est.score(docs), expected, rtol=1e-10)
        assert est.score(docs) == est.score(docs)
    np.testing.assert_allclose(est.perplexity(docs), np.exp(-expected / held.sum()),
                               rtol=1e-10)


def _one_word_topic_probabilities(est):
    """For each topic model in ``est`` (one-vs-rest: one per class): its
    columns of ``transform``, its alpha (K,) and p(z = k) of the token of a
    one-word document, (V, K) ∝ phi_kw alpha_k."""
    n_models = _n_models(est)
    k = est.components_.shape[0] // n_models
    alphas = np.broadcast_to(est.doc_topic_prior_, (n_models,)) if n_models > 1 else [
        np.broadcast_to(est.doc_topic_prior_, (k,))]
    for m in range(n_models):
        alpha = np.broadcast_to(alphas[m], (k,))
        phi = est.components_[m * k:(m + 1) * k]
        p = (phi / phi.sum(axis=1, keepdims=True)).T * alpha
        yield slice(m * k, (m + 1) * k), alpha, p / p.sum(axis=1, keepdims=True)


def test_transform_of_one_word_documents_is_the_exact_posterior_mean(fitted):
    # Oracle, for the Dirichlet models: a document of one token of word w
    # has p(z = k) = phi_wk alpha_k / sum_j phi_wj alpha_j and posterior mean
    # proportions sum_k p(z = k) (alpha + e_k) / (sum alpha + 1); every
    # inference sweep draws its topic afresh from p(z), so the average over
    # 4,000 sweeps is within 0.01 (4 standard errors).
    name, est = fitted
    if name.startswith("CorrelatedTopicModel"):
        pytest.skip("a logistic-normal prior has no closed-form posterior mean")
    est = copy.deepcopy(est).set_params(n_infer_iter=8000)
    n_words = X.shape[1]
    theta = est.transform(np.eye(n_words, dtype=int))
    for columns, alpha, p in _one_word_topic_probabilities(est):
        expected = (p + alpha) / (alpha.sum() + 1.0)
        np.testing.assert_allclose(theta[:, columns], expected, atol=0.01)


def test_sample_transform_of_one_word_documents_has_the_exact_posterior_moments(fitted):
    # Oracle, for the Dirichlet models: the posterior of a one-token
    # document's proportions is the mixture sum_k p(z = k) Dir(alpha + e_k)
    # (p(z = k) as above); its first and second moments are closed forms.
    # Each draw follows a fresh draw of the token's topic, so the 3,000 draws
    # are independent: within 0.02 (over 4 standard errors).
    name, est = fitted
    if name.startswith("CorrelatedTopicModel"):
        pytest.skip("a logistic-normal prior has no closed-form posterior")
    n_words = X.shape[1]
    draws = est.sample_transform(np.eye(n_words, dtype=int), n_samples=3000)
    for columns, alpha, p in _one_word_topic_probabilities(est):
        total = alpha.sum() + 1.0
        mean = (p + alpha) / total
        # E[theta_k^2] under Dir(a): a_k (a_k + 1) / (A (A + 1)), mixed over z.
        second = (alpha * (alpha + 1) * (1 - p) + (alpha + 1) * (alpha + 2) * p) / (
            total * (total + 1))
        block = draws[:, :, columns]
        np.testing.assert_allclose(block.mean(axis=0), mean, atol=0.02)
        np.testing.assert_allclose((block ** 2).mean(axis=0), second, atol=0.02)
