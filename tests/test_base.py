"""Input validation, token conversion and inference shared by the estimators."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.base import BaseEstimator, clone

from sklearn_pgtm._base import (
    averaged_sweeps,
    check_counts,
    check_nonempty_corpus,
    completion_halves,
    dirichlet_posterior,
    initial_topics,
    posterior_mean,
    to_tokens,
    trend_z_score,
    warn_if_trending,
)

from sklearn_pgtm._chain import infer_topics
from sklearn_pgtm._kernels._random import document_streams


class _Dummy(BaseEstimator):
    pass


def test_to_tokens_roundtrip():
    X = check_counts(_Dummy(), sp.csr_matrix(np.array([[0, 2, 1], [0, 0, 0], [3, 0, 1]])),
                     reset=True)
    doc_ptr, word_ids = to_tokens(X)
    np.testing.assert_array_equal(doc_ptr, [0, 3, 3, 7])
    np.testing.assert_array_equal(word_ids, [1, 1, 2, 0, 0, 0, 2])
    assert word_ids.dtype == np.int32 and doc_ptr.dtype == np.int64


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_check_counts_rounds_and_accepts_formats(make):
    X = make(np.array([[0.4, 1.6], [2.0, 0.0]]))
    with pytest.warns(UserWarning, match="not integers"):  # 2 of 3 nonzeros fractional
        out = check_counts(_Dummy(), X, reset=True)
    assert sp.issparse(out) and out.format == "csr"
    np.testing.assert_array_equal(out.toarray(), [[0, 2], [2, 0]])


def test_check_counts_sums_duplicate_entries_before_rounding():
    # A CSR matrix may store one cell in several entries; its value is their
    # sum. [[3, 1], [0, 5]] stored as halves was rounded half by half (1.5 +
    # 1.5 -> 2 + 2, 0.5 + 0.5 -> 0 + 0) and a cell stored as -1 + 3 refused.
    X = sp.csr_matrix((np.array([1.5, 1.5, 0.5, 0.5, -1.0, 6.0]),
                       np.array([0, 0, 1, 1, 1, 1]), np.array([0, 4, 6])), shape=(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cells are integers: no rounding warning
        out = check_counts(_Dummy(), X, reset=True)
    np.testing.assert_array_equal(out.toarray(), [[3, 1], [0, 5]])
    assert X.nnz == 6  # the caller's matrix is left as it was


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


def test_counts_too_large_for_tokens_raise_a_clear_error():
    with pytest.raises(ValueError, match="tokens"):
        check_counts(_Dummy(), np.array([[1e20, 1.0]]), reset=True)


def test_a_training_corpus_too_large_for_the_topic_totals_raises_a_clear_error():
    # Each document fits in int32, but the topics' totals (int32) would wrap
    # around once a topic holds more than 2**31 - 1 of the corpus's tokens.
    X = np.array([[1.5e9, 0.0], [0.0, 1.5e9]])
    with pytest.raises(ValueError, match="the corpus has 3e\\+09 tokens"):
        check_counts(_Dummy(), X, reset=True)
    est = _Dummy()
    check_counts(est, np.ones((1, 2)), reset=True)
    # Inference has no topic totals: a batch that large is not refused.
    assert check_counts(est, X, reset=False).sum() == 3e9


def test_tfidf_like_input_warns():
    X = np.random.default_rng(0).random((5, 6))
    with pytest.warns(UserWarning, match="should hold counts"):
        check_counts(_Dummy(), X, reset=True)


def test_dirichlet_posterior_recovers_obvious_mixtures():
    # Two topics with disjoint vocabularies: proportions follow the word counts.
    phi = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 0.5], [0.0, 0.5]]) + 1e-9
    X = check_counts(_Dummy(), np.array([[40, 40, 0, 0], [0, 0, 10, 70], [20, 0, 0, 60]]),
                     reset=True)
    doc_ptr, word_ids = to_tokens(X)
    alpha = np.full(2, 0.1)
    counts, draws = dirichlet_posterior(doc_ptr, word_ids, word_ids, phi, alpha, 20, seed=0,
                                        n_samples=50)
    expected = np.array([[80, 0], [0, 80], [20, 60]]) + 0.1
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(posterior_mean(counts, alpha), expected, atol=1e-6)
    # Draws theta ~ Dir(C_d + alpha): their mean is the posterior mean.
    assert draws.shape == (50, 3, 2)
    np.testing.assert_allclose(draws.mean(axis=0), expected, atol=0.03)
    again = dirichlet_posterior(doc_ptr, word_ids, word_ids, phi, alpha, 20, seed=0,
                                n_samples=50)
    np.testing.assert_array_equal(counts, again[0])
    np.testing.assert_array_equal(draws, again[1])


def test_inference_averages_all_sweeps_but_the_first_eighth_and_at_least_five():
    n_sweeps = (1, 2, 3, 7, 10, 16, 40, 48, 100, 400)
    assert [averaged_sweeps(n) for n in n_sweeps] == [1, 1, 2, 4, 5, 11, 35, 42, 88, 350]
    assert [averaged_sweeps(n, 2) for n in n_sweeps] == [n - n // 2 for n in n_sweeps]
    # The same sweeps replayed one by one (same streams, same start): the mean
    # is that of sweeps 7-48 of 48 (16: sweeps 6-16), not of the second half
    # (the rule before).
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(4), size=12)
    X = check_counts(_Dummy(), rng.poisson(2.0, size=(5, 12)), reset=True)
    doc_ptr, word_ids = to_tokens(X)
    alpha = np.full(4, 0.3)
    states = document_streams(3, doc_ptr, word_ids)
    tokens = initial_topics(doc_ptr, word_ids, phi)
    sweeps = []
    for _ in range(48):
        infer_topics(tokens, phi, states, None, alpha=alpha)
        sweeps.append(tokens.doc_topic.copy())
    for n_iter, first in [(48, 6), (16, 5)]:
        mean_counts, _ = dirichlet_posterior(doc_ptr, word_ids, word_ids, phi, alpha, n_iter,
                                             seed=3)
        np.testing.assert_allclose(mean_counts, np.mean(sweeps[first:n_iter], axis=0))
        assert not np.allclose(mean_counts, np.mean(sweeps[n_iter // 2:n_iter], axis=0))


def test_trend_z_score():
    rng = np.random.default_rng(0)
    flat = rng.normal(size=300)
    rising = flat + np.linspace(0, 10, 300)
    assert abs(trend_z_score(flat)) < 3
    assert trend_z_score(rising) > 10


def test_trend_z_score_does_not_depend_on_the_scale_of_the_trace():
    # A classifier with c = 1e300 has a trace near -1e300: the sums of
    # squares overflowed and its ConvergenceWarning read "z-score nan".
    import warnings

    values = np.random.default_rng(0).normal(size=50) + np.linspace(0, 3, 50)
    expected = trend_z_score(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for scale, shift in ((1e300, -1e300), (1e-300, 0.0), (1.0, 1e6)):
            assert trend_z_score(values * scale + shift) == pytest.approx(expected, rel=1e-6)


def test_trend_warning_needs_a_material_rise():
    # The second half rises by 10 nats in all (z >> 4): material for 100
    # tokens (0.1 nat per token), immaterial for 100,000 (1e-4 per token).
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    trace = np.concatenate([np.zeros(300), rng.normal(size=300) * 0.1
                            + np.linspace(0, 10, 300)])
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        warn_if_trending(trace, "M", n_tokens=100)
    with pytest.warns(ConvergenceWarning):
        warn_if_trending(trace, "M")              # no token count: the z-score alone
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warn_if_trending(trace, "M", n_tokens=100_000)
        warn_if_trending(trace, "M", n_tokens=1_250)  # 0.008 per token: below 0.01
        warn_if_trending(-trace, "M", n_tokens=100)   # falling: never a warning
    # The advice names warm_start only for estimators that have it.
    with pytest.warns(ConvergenceWarning, match=r"Increase max_iter \(or continue the chain: "
                      r"with warm_start=True a fit keeps it"):
        warn_if_trending(trace, "M")
    with pytest.warns(ConvergenceWarning, match=r"Increase n_final_iter\.$"):
        warn_if_trending(trace, "M", "n_final_iter", can_continue=False)
    # A model's note about its own rises ends the message.
    with pytest.warns(ConvergenceWarning, match=r"continues it\)\. Its own note\.$"):
        warn_if_trending(trace, "M", note="Its own note.")


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 130), (200, 7), (129, 65)])
def test_transposed_mean_is_numpys(shape, dtype):
    from sklearn_pgtm._kernels._counts import transposed_mean

    total = np.random.default_rng(0).integers(0, 1000, size=shape).astype(dtype)
    out = np.empty(shape[::-1])
    transposed_mean(total, 7, out)
    np.testing.assert_array_equal(out, (total / 7).T)  # bit for bit


def _small_run():
    from sklearn_pgtm._base import GibbsRun
    from sklearn_pgtm._chain import TopicChain

    X = check_counts(_Dummy(), sp.csr_matrix(np.array([[0, 5, 1], [2, 0, 1], [3, 3, 0]])),
                     reset=True)
    doc_ptr, word_ids = to_tokens(X)
    return GibbsRun(TopicChain.random(doc_ptr, word_ids, 4, 3, 0), None)


def test_components_average_the_kept_counts_and_add_the_prior():
    run = _small_run()
    np.testing.assert_array_equal(run.components(0.5), run.chain.word_topic.T + 0.5)
    kept = []
    for seed in range(3):
        run.chain.word_topic[:] = np.random.default_rng(seed).integers(0, 4, size=(3, 4))
        kept.append(run.chain.word_topic.copy())
        run.keep_counts()
    prior = np.arange(12.0).reshape(4, 3)  # an (n_topics, n_words) prior
    out = run.components(prior)
    assert out.flags.c_contiguous and out.dtype == np.float64
    np.testing.assert_allclose(out, np.mean(kept, axis=0).T + prior, rtol=1e-15)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_kept_counts_sum_the_rows_of_the_words_with_tokens(n_threads):
    # Most columns empty (a hashed or borrowed vocabulary): the sum reads the
    # present rows only and equals the whole sum, the empty rows staying 0.
    from sklearn_pgtm._base import GibbsRun
    from sklearn_pgtm._chain import TopicChain

    rng = np.random.default_rng(0)
    dense = np.zeros((5, 40), dtype=np.int64)
    dense[:, [3, 4, 17, 30, 39]] = rng.integers(0, 4, size=(5, 5))
    X = check_counts(_Dummy(), sp.csr_matrix(dense), reset=True)
    doc_ptr, word_ids = to_tokens(X)
    chain = TopicChain.random(doc_ptr, word_ids, 3, 40, 0)
    chain.n_threads = n_threads
    run = GibbsRun(chain, None)
    kept = []
    for seed in range(3):
        sweep_rng = np.random.default_rng(seed)
        for w in run.chain.present_words:  # counts that a sweep could leave
            run.chain.word_topic[w] = sweep_rng.multinomial(
                run.chain.word_frequencies[w], np.ones(3) / 3)
        kept.append(run.chain.word_topic.copy())
        run.keep_counts()
    np.testing.assert_array_equal(run.word_topic_sum, np.sum(kept, axis=0))
    absent = np.setdiff1d(np.arange(40), [3, 4, 17, 30, 39])
    assert not run.word_topic_sum[absent].any()


def test_kept_counts_move_to_int64_before_int32_could_overflow():
    run = _small_run()
    run.keep_counts()
    assert run.word_topic_sum.dtype == np.int32
    largest = int(np.bincount(run.chain.tokens.word_ids).max())
    # Pretend many sweeps were kept: one more could pass int32's maximum.
    run.n_kept = np.iinfo(np.int32).max // largest
    before = run.word_topic_sum.copy()
    run.keep_counts()
    assert run.word_topic_sum.dtype == np.int64
    np.testing.assert_array_equal(run.word_topic_sum, before + run.chain.word_topic)


def test_warnings_point_at_the_users_call():
    # Not at the package's own lines (a fixed stacklevel pointed into
    # _base.py), also through a scikit-learn Pipeline; the ConvergenceWarning
    # of the chain: tests/test_lda.py.
    from sklearn.pipeline import make_pipeline

    from sklearn_pgtm import GibbsLDA

    X = np.array([[0.4, 1.6, 2.5], [2.2, 0.0, 1.3], [1.7, 2.6, 0.0]] * 5)
    for model in (GibbsLDA(2, max_iter=4, burn_in=2, random_state=0),
                  make_pipeline(GibbsLDA(2, max_iter=4, burn_in=2, random_state=0))):
        with pytest.warns(UserWarning, match="not integers") as record:
            model.fit(X)
        assert {w.filename for w in record if "not integers" in str(w.message)} == {__file__}


@pytest.mark.parametrize("name, param", [
    ("GibbsLDA", "doc_topic_prior"), ("GibbsLDA", "topic_word_prior"),
    ("EmpiricalBayesLDA", "doc_topic_prior"), ("EmpiricalBayesLDA", "topic_word_prior"),
    ("GibbsSLDAClassifier", "doc_topic_prior"), ("CorrelatedTopicModel", "topic_word_prior"),
    ("DynamicTopicModel", "doc_topic_prior"), ("DynamicTopicModel", "topic_word_prior"),
])
def test_priors_below_the_family_bound_are_rejected_by_name(name, param):
    # Below 1e-10 the augmentation of an estimated prior and the dynamic
    # model's first logits underflowed (ZeroDivisionError inside a kernel).
    import sklearn_pgtm

    X = np.random.default_rng(0).poisson(1.0, (10, 8))
    y = np.arange(10) % 2
    estimator = getattr(sklearn_pgtm, name)(2, **{param: 1e-20})
    with pytest.raises(ValueError, match=f"'{param}' parameter of {name}.*1e-10"):
        estimator.fit(X, y)


def test_present_words_index_the_words_of_the_tokens():
    from sklearn_pgtm._base import present_words

    words, rows = present_words(np.array([7, 2, 7, 9, 2], dtype=np.int32), 12)
    np.testing.assert_array_equal(words, [2, 7, 9])
    np.testing.assert_array_equal(words[rows], [7, 2, 7, 9, 2])
    assert rows.dtype == np.int32
    words, rows = present_words(np.zeros(0, dtype=np.int32), 5)
    assert words.size == 0 and rows.size == 0


def _full_topic_results(model, X):
    """What the post-fit methods returned when they built the whole (V, K)
    topic matrix: the oracle of the restricted computation."""
    import sklearn_pgtm._base as base

    restricted = base.present_words
    base.present_words = lambda word_ids, n_words: (np.arange(n_words),
                                                    word_ids.astype(np.int32))
    try:
        return _post_fit_results(model, X)
    finally:
        base.present_words = restricted


def _post_fit_results(model, X):
    out = [model.transform(X), model.sample_transform(X, n_samples=2), model.perplexity(X)]
    if hasattr(model, "predict_proba"):
        out += [model.decision_function(X), model.predict_proba(X)]
    return out


@pytest.mark.parametrize("name", ["lda", "ctm", "slda_ovr", "slda_multinomial",
                                  "slda_refit_topics"])
def test_post_fit_methods_take_the_topics_of_the_present_words_only(name, monkeypatch):
    # transform / score / predict built the normalized (V, K) topic matrix
    # of every word at each call (0.27 s and 320 MB for one document at
    # K = 100, V = 200,000); they take the rows of the words of X only, to
    # the same results.
    from sklearn_pgtm import CorrelatedTopicModel, GibbsLDA, GibbsSLDAClassifier

    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(0.3, size=(40, 60)))
    y = np.arange(40) % 3
    kw = dict(n_components=3, max_iter=6, burn_in=2, n_infer_iter=4, random_state=0)
    model = {
        "lda": lambda: GibbsLDA(**kw).fit(X),
        "ctm": lambda: CorrelatedTopicModel(**kw).fit(X),
        "slda_ovr": lambda: GibbsSLDAClassifier(**kw).fit(X, y),
        "slda_multinomial": lambda: GibbsSLDAClassifier(multi_class="multinomial",
                                                        **kw).fit(X, y),
        "slda_refit_topics": lambda: GibbsSLDAClassifier(prediction_topics="inferred",
                                                         **kw).fit(X, y),
    }[name]()
    new = sp.csr_matrix(np.zeros((3, 60)))
    new[0, 5], new[0, 40], new[1, 40], new[2, 59] = 2, 1, 3, 1
    sizes = []
    import sklearn_pgtm._base as base

    present = base.present_words

    def recording(word_ids, n_words):
        words, rows = present(word_ids, n_words)
        sizes.append(len(words))
        return words, rows

    monkeypatch.setattr(base, "present_words", recording)
    restricted = _post_fit_results(model, new)
    # Words 5, 40, 59 (or those of a half of each document: perplexity
    # infers from one half), never the whole vocabulary.
    assert sizes and max(sizes) == 3
    for got, want in zip(restricted, _full_topic_results(model, new)):
        np.testing.assert_array_equal(got, want)


def test_trend_warning_judges_only_the_second_half_of_the_chain():
    # A chain that rose over its first half (the burn-in) and is flat after
    # it has converged: no warning, however steep the early rise.
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    trace = np.concatenate([np.linspace(-100, 0, 300), rng.normal(size=300) * 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warn_if_trending(trace, "M", n_tokens=100)
    with pytest.warns(ConvergenceWarning):  # the same rise in the second half warns
        warn_if_trending(trace[::-1] * -1, "M", n_tokens=100)


def test_log_predictive_is_the_sum_of_the_tokens_log_mixtures():
    # Against NumPy, with an empty document (score and perplexity only
    # compared the kernel with itself: dropping each document's first token
    # passed every test).
    from sklearn_pgtm._kernels._likelihood import log_predictive

    rng = np.random.default_rng(1)
    doc_ptr = np.array([0, 3, 3, 8, 9], dtype=np.int64)
    word_ids = rng.integers(0, 6, 9).astype(np.int32)
    theta = rng.dirichlet(np.ones(4), size=4)
    phi = rng.dirichlet(np.ones(6), size=4).T.copy()  # (V, K)
    docs = np.repeat(np.arange(4), np.diff(doc_ptr))
    expected = np.log(np.einsum("nk,nk->n", theta[docs], phi[word_ids])).sum()
    np.testing.assert_allclose(log_predictive(doc_ptr, word_ids, theta, phi), expected,
                               rtol=1e-13)


@pytest.mark.parametrize("name", ["GibbsLDA", "EmpiricalBayesLDA", "CorrelatedTopicModel",
                                  "GibbsSLDAClassifier"])
def test_fit_warns_when_many_columns_are_empty(name):
    # A HashingVectorizer's columns: the prior over words spreads over the
    # empty ones (held-out perplexity +5-7 % with 56 % of them empty, section
    # priors_empty_columns). 30 of 100 columns empty warns, 20 does not; the
    # count is of training columns, after rounding.
    import sklearn_pgtm

    rng = np.random.default_rng(0)
    y = np.arange(40) % 2
    params = dict(n_components=2, random_state=0)
    if name != "EmpiricalBayesLDA":
        params.update(max_iter=6, burn_in=3)
    else:
        params.update(burn_in=3, n_samples=4, n_final_iter=4, n_batches=2)
    for n_empty, warns in ((30, True), (20, False)):
        X = rng.poisson(2.0, size=(40, 100)).astype(float)
        X[:, :n_empty] = 0.3  # rounds to 0: empty after rounding
        model = getattr(sklearn_pgtm, name)(**params)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            model.fit(X, y) if name == "GibbsSLDAClassifier" else model.fit(X)
        messages = [str(w.message) for w in record if "have no count" in str(w.message)]
        assert len(messages) == int(warns), (n_empty, messages)
        if warns:
            assert f"{n_empty} of the 100 columns" in messages[0]
            assert "VarianceThreshold" in messages[0]
            assert {w.filename for w in record if "have no count" in str(w.message)} == {
                __file__}


def test_seeded_topic_word_prior_does_not_warn_of_empty_columns():
    # The array prior sets each (topic, word) pseudo-count: the empty columns'
    # share of the prior is the user's choice.
    from sklearn_pgtm import GibbsLDA

    X = np.random.default_rng(1).poisson(2.0, size=(30, 50))
    X[:, :40] = 0
    beta = np.full((2, 50), 0.01)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        GibbsLDA(2, topic_word_prior=beta, max_iter=4, burn_in=2, random_state=0).fit(X)
    assert not [w for w in record if "have no count" in str(w.message)]


def test_hashed_pipeline_warns_and_variance_threshold_silences_it():
    # The user guide's remedy (lda_empty_columns) as written there.
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.pipeline import make_pipeline

    from sklearn_pgtm import GibbsLDA

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    docs = [" ".join(rng.choice(words, size=30)) for _ in range(25)]
    lda = GibbsLDA(n_components=3, max_iter=6, burn_in=3, random_state=0)
    hashed = make_pipeline(HashingVectorizer(alternate_sign=False, norm=None), lda)
    with pytest.warns(UserWarning, match="have no count"):
        hashed.fit(docs)
    remedied = make_pipeline(HashingVectorizer(alternate_sign=False, norm=None),
                             VarianceThreshold(), clone(lda))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        remedied.fit(docs)
    assert not [w for w in record if "have no count" in str(w.message)]
    assert remedied[-1].components_.shape == (3, 60)
    assert remedied.transform(docs[:2]).shape == (2, 3)


# Document completion's split: each token observed with probability 1/2,
# independently, a document's stream keyed on all of its tokens. The metrics
# tests compared held-out scores on the same split, which a split observing
# 60 % of the tokens, or streams ignoring a document's first word, passed
# (mutation testing).
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_token_is_observed_with_probability_one_half(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 60, 800)
    doc_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    word_ids = rng.integers(0, 500, doc_ptr[-1]).astype(np.int32)
    rows = np.arange(word_ids.shape[0])
    (obs_ptr, obs_words, obs_rows), (held_ptr, held_words, held_rows) = completion_halves(
        doc_ptr, word_ids, rows, seed)
    n = word_ids.shape[0]
    assert obs_rows.shape[0] + held_rows.shape[0] == n
    np.testing.assert_array_equal(np.sort(np.concatenate([obs_rows, held_rows])), rows)
    np.testing.assert_array_equal(obs_ptr + held_ptr, doc_ptr)
    # Binomial(n, 1/2) for the observed count (n ~ 24,000: sd ~ 77 tokens).
    assert stats.binomtest(obs_rows.shape[0], n, 0.5).pvalue > 1e-4
    # And per document: observed counts Binomial(length, 1/2): chi-square of
    # the standardized sum over documents.
    observed = np.diff(obs_ptr)
    z = (observed - 0.5 * lengths) / np.sqrt(0.25 * lengths)
    assert abs(z.mean()) * np.sqrt(z.size) < 4.0
    assert abs(z.var() - 1.0) < 0.2


def test_a_documents_stream_depends_on_every_token():
    base = np.array([3, 1, 4, 1, 5, 9], dtype=np.int32)
    docs = [base]
    for pos in range(base.size):  # change one token at a time, first to last
        changed = base.copy()
        changed[pos] = 7
        docs.append(changed)
    word_ids = np.concatenate(docs)
    doc_ptr = np.arange(len(docs) + 1, dtype=np.int64) * base.size
    states = document_streams(0, doc_ptr, word_ids)
    assert len({tuple(row) for row in states.tolist()}) == len(docs)


def _tiny_topic_model(name):
    """A small fitted topic model of the family and its ``times`` keyword
    (``{}`` but for the dynamic model)."""
    import sklearn_pgtm

    X = np.random.default_rng(0).poisson(1.0, (12, 8))
    y = np.arange(12) % 2
    params = dict(n_components=2, n_infer_iter=4, random_state=0)
    if name == "EmpiricalBayesLDA":
        params.update(burn_in=2, n_samples=4, n_final_iter=2, n_chains=1)
    elif name == "DynamicTopicModel":
        params.update(max_iter=4, warm_start_iter=2, n_init=1)
    else:
        params.update(max_iter=4, burn_in=2)
    model = getattr(sklearn_pgtm, name)(**params)
    if name == "GibbsSLDAClassifier":
        return model.fit(X, y), {}
    if name == "DynamicTopicModel":
        return model.fit(X, times=y), {"times": np.zeros(3)}
    return model.fit(X), {}


@pytest.mark.parametrize("name", ["GibbsLDA", "EmpiricalBayesLDA", "GibbsSLDAClassifier",
                                  "CorrelatedTopicModel", "DynamicTopicModel"])
def test_perplexity_of_documents_without_tokens_raises_the_same_error(name):
    # Every topic model's perplexity: the same ValueError, naming the
    # estimator and why nothing was held out. The dynamic model's message
    # stopped at "contain no token.".
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chains this short may warn
        model, times = _tiny_topic_model(name)
    match = (rf"^{name}\.perplexity: the held-out halves of X contain no token \(X has no "
             r"token, or so few that every coin kept them for inference\); the perplexity "
             r"is undefined\.$")
    with pytest.raises(ValueError, match=match):
        model.perplexity(np.zeros((3, 8)), **times)


@pytest.mark.parametrize("name", ["GibbsLDA", "EmpiricalBayesLDA", "GibbsSLDAClassifier",
                                  "CorrelatedTopicModel", "DynamicTopicModel"])
def test_inherited_method_docstrings_name_only_the_estimators_parameters(name):
    # The post-fit layer and fit are written once in the base; their
    # docstrings, read on each model, named warm_start on EmpiricalBayesLDA,
    # which has none.
    import inspect
    import re

    import sklearn_pgtm

    cls = getattr(sklearn_pgtm, name)
    family = set()
    for other in ("GibbsLDA", "EmpiricalBayesLDA", "GibbsSLDAClassifier",
                  "CorrelatedTopicModel", "DynamicTopicModel"):
        family |= set(inspect.signature(getattr(sklearn_pgtm, other).__init__).parameters)
    own = set(inspect.signature(cls.__init__).parameters)
    for method in ("fit", "transform", "sample_transform", "score", "perplexity"):
        function = getattr(cls, method)
        arguments = set(inspect.signature(function).parameters)  # n_samples of a method
        named = set(re.findall(r"``(\w+)(?:=\w+)?``", function.__doc__)) & family
        assert named - arguments <= own, (method, named - arguments - own)
