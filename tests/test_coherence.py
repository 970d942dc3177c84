"""topic_coherence against references written from the definitions, and gensim."""

import itertools
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline

from sklearn_pgtm._coherence import (count_window_cooccurrences, document_cooccurrence,
                                     flatten_texts, pair_adjacency, score_topics,
                                     top_word_ids, topic_pairs, window_cooccurrence)
from sklearn_pgtm.metrics import topic_coherence

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "20newsgroups"
EPS = 1e-12


# -- references from the definitions (sets and loops, no shared code) ---------
def windows_of(text, width):
    """Every window of a text as a set of words (a short text is one window)."""
    if len(text) <= width:
        return [set(text)]
    return [set(text[s:s + width]) for s in range(len(text) - width + 1)]


def reference_coherence(topic, contexts, measure):
    """Coherence of one topic (word ids, heaviest first) from a list of word sets."""
    n = len(contexts)

    def p(*words):
        return sum(all(w in c for w in words) for c in contexts) / n

    def npmi(a, b):
        joint = p(a, b)
        return np.log((joint + EPS) / (p(a) * p(b))) / -np.log(joint + EPS)

    if measure == "umass":
        terms = [np.log((p(topic[i], topic[j]) + EPS) / p(topic[j]))
                 for i in range(1, len(topic)) for j in range(i)]
    elif measure == "npmi":
        terms = [npmi(a, b) for a, b in itertools.permutations(topic, 2)]
    else:
        vectors = np.array([[npmi(a, b) for b in topic] for a in topic])
        total = vectors.sum(axis=0)
        terms = [v @ total / (np.linalg.norm(v) * np.linalg.norm(total)) for v in vectors]
    return float(np.mean(terms))


def random_corpus(seed, n_docs=60, n_words=25, max_len=40):
    """Token sequences with many repeated words, and their count matrix."""
    rng = np.random.RandomState(seed)
    weights = rng.dirichlet(np.full(n_words, 0.3))
    texts = [list(rng.choice(n_words, size=rng.randint(0, max_len), p=weights))
             for _ in range(n_docs)]
    X = np.zeros((n_docs, n_words), dtype=int)
    for d, text in enumerate(texts):
        np.add.at(X[d], text, 1)
    return texts, X


def random_topics(seed, X, n_topics):
    """Random topics over the words that occur in X (missing words are tested apart)."""
    rng = np.random.RandomState(seed)
    return rng.gamma(0.5, size=(n_topics, X.shape[1])) * (X.sum(axis=0) > 0)


@pytest.mark.parametrize("measure", ["umass", "npmi", "cv"])
def test_document_coherence_matches_reference(measure):
    texts, X = random_corpus(0)
    topics = random_topics(1, X, 4)
    top = np.argsort(-topics, axis=1, kind="stable")[:, :6]
    docs = [set(t) for t in texts]
    expected = [reference_coherence(list(t), docs, measure) for t in top]
    got = topic_coherence(topics, sp.csr_matrix(X), measure=measure, top_n=6)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("measure", ["npmi", "cv"])
@pytest.mark.parametrize("width", [1, 3, 7, 100, None])
def test_window_coherence_matches_reference(measure, width):
    # width None: the default, Roeder et al.'s 10 tokens for NPMI and 110 for
    # C_V (documented; the two swapped passed every test: mutation testing).
    texts, X = random_corpus(2)
    topics = random_topics(3, X, 3)
    top = np.argsort(-topics, axis=1, kind="stable")[:, :5]
    given = {} if width is None else {"window_size": width}
    width = width or {"npmi": 10, "cv": 110}[measure]
    windows = [w for t in texts for w in windows_of(t, width)]
    expected = [reference_coherence(list(t), windows, measure) for t in top]
    got = topic_coherence(topics, X, measure=measure, top_n=5, texts=texts, **given)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def all_pairs(n_words):
    """Every pair of distinct words, as the adjacency the window kernel takes."""
    first, second = np.triu_indices(n_words, k=1)
    first, second = first.astype(np.int64), second.astype(np.int64)
    return first, second, pair_adjacency(first, second, n_words)


def test_window_counts_match_brute_force():
    # The run-overlap counting against every window listed explicitly, with
    # out-of-vocabulary tokens (-1) taking places in the windows.
    rng = np.random.RandomState(4)
    n_words = 6
    texts = [rng.randint(-1, n_words, size=rng.randint(0, 30)) for _ in range(40)]
    text_ptr = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64)
    tokens = np.concatenate(texts).astype(np.int64)
    first, second, adjacency = all_pairs(n_words)
    for width in (1, 2, 5, 13, 40):
        occ = np.zeros(n_words, dtype=np.int64)
        co = np.zeros(first.shape[0], dtype=np.int64)
        n_windows = count_window_cooccurrences(text_ptr, tokens, width, 0, len(texts),
                                               *adjacency, occ, co)
        windows = [w - {-1} for t in texts for w in windows_of(list(t), width)]
        assert n_windows == len(windows)
        for a in range(n_words):
            assert occ[a] == sum(a in w for w in windows)
        for p, (a, b) in enumerate(zip(first, second)):
            assert co[p] == sum(a in w and b in w for w in windows)


def test_window_counts_split_over_text_ranges_add_up():
    # The kernel takes a range of texts: two halves add up to the whole.
    texts, _ = random_corpus(5)
    text_ptr = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64)
    tokens = np.concatenate([np.asarray(t, dtype=np.int64) for t in texts])
    n = 25
    first, _, adjacency = all_pairs(n)
    n_pairs = first.shape[0]
    occ, co = np.zeros(n, np.int64), np.zeros(n_pairs, np.int64)
    total = count_window_cooccurrences(text_ptr, tokens, 4, 0, len(texts), *adjacency, occ, co)
    occ2, co2 = np.zeros(n, np.int64), np.zeros(n_pairs, np.int64)
    half = len(texts) // 2
    parts = (count_window_cooccurrences(text_ptr, tokens, 4, 0, half, *adjacency, occ2, co2)
             + count_window_cooccurrences(text_ptr, tokens, 4, half, len(texts), *adjacency,
                                          occ2, co2))
    assert parts == total
    np.testing.assert_array_equal(occ, occ2)
    np.testing.assert_array_equal(co, co2)


@pytest.mark.parametrize("many_topics", [False, True])
def test_pair_counts_match_dense_reference(many_topics):
    # Only the pairs of words sharing a topic are counted, one count per
    # distinct pair; each equals the entry of the dense word-by-word count
    # matrix computed with NumPy (documents: B.T @ B of the binarized
    # columns; windows: every window listed). Two topics of the most frequent
    # words leave most pairs uncounted, and the window kernel loops over a
    # word's few partners; 40 topics over 30 words make words share several
    # topics, and the kernel loops over the words in the window instead.
    texts, X = random_corpus(8, n_words=30)
    if many_topics:
        rng = np.random.RandomState(9)
        top = np.array([rng.permutation(30)[:6] for _ in range(40)])
    else:
        top = np.argsort(-X.sum(axis=0), kind="stable")[:6].reshape(2, 3)
    n_topics, top_n = top.shape
    word_ids, local = np.unique(top, return_inverse=True)
    local = local.reshape(top.shape)
    first, second, pair_of = topic_pairs(local)
    needed = {tuple(sorted(p)) for row in local for p in itertools.combinations(row, 2)}
    assert list(zip(first, second)) == sorted(needed)
    for k in range(n_topics):
        for i, j in itertools.permutations(range(top_n), 2):
            p = pair_of[k, i, j]
            assert {first[p], second[p]} == {local[k, i], local[k, j]}

    B = (X[:, word_ids] > 0).astype(np.int64)
    dense = B.T @ B
    occ, pair_counts, n = document_cooccurrence(sp.csr_matrix(X), word_ids, first, second)
    assert pair_counts.shape == (len(needed),) and n == X.shape[0]
    np.testing.assert_array_equal(occ, np.diag(dense))
    np.testing.assert_array_equal(pair_counts, dense[first, second])

    text_ptr, tokens = flatten_texts(texts, X.shape[1])
    for width in (3, 12):
        windows = [w for t in texts for w in windows_of(t, width)]
        W = np.array([[word in w for word in word_ids] for w in windows], dtype=np.int64)
        dense = W.T @ W
        occ, pair_counts, n = window_cooccurrence(text_ptr, tokens, word_ids, X.shape[1],
                                                  width, first, second)
        assert pair_counts.shape == (len(needed),) and n == len(windows)
        np.testing.assert_array_equal(occ, np.diag(dense))
        np.testing.assert_array_equal(pair_counts, dense[first, second])


@pytest.mark.parametrize("windows", [False, True])
def test_memory_does_not_grow_with_distinct_words_squared(windows):
    # 300 topics with disjoint top words: R = 3,000 distinct words, but only
    # 300 * 45 pairs are needed. A dense R x R count matrix would take 72 MB
    # (int64); the per-pair counts take well under 1 MB. The bound, R * R
    # bytes (9 MB), fails for any R x R array of 8-byte entries.
    n_topics, top_n, n_docs, length = 300, 10, 200, 40
    n_words = n_topics * top_n
    top = np.arange(n_words).reshape(n_topics, top_n)
    rng = np.random.RandomState(10)
    texts = [rng.randint(-1, n_words, size=length) for _ in range(n_docs)]
    X = np.zeros((n_docs, n_words))
    for d, text in enumerate(texts):
        np.add.at(X[d], text[text >= 0], 1)
    X = sp.csr_matrix(X)
    flat = flatten_texts(texts, n_words) if windows else None
    score_topics("npmi", top[:2, :3], n_words, X=X, texts=flat, window_size=5)  # compile
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # words that never occur
            got = score_topics("npmi", top, n_words, X=X, texts=flat, window_size=5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.shape == (n_topics,) and np.all(np.isfinite(got))
    assert peak < n_words * n_words, peak


def test_top_word_ids_match_stable_argsort():
    # Heaviest first, ties by lower id: the ids of a stable argsort, also with
    # many ties (small integers, mostly zeros, signed zeros), top_n up to and
    # beyond the number of features, and topics taken one or a few at a time.
    rng = np.random.RandomState(11)
    for n_topics, n_features in [(1, 2), (4, 7), (30, 60), (3, 2000)]:
        shape = (n_topics, n_features)
        signed = rng.gamma(0.3, size=shape)
        signed[signed < 0.2] = -0.0
        for components in (rng.gamma(0.3, size=shape), rng.randint(0, 3, size=shape) * 1.0,
                           rng.gamma(0.3, size=shape) * (rng.rand(*shape) < 0.05),
                           np.zeros(shape), signed):
            for top_n in (1, 2, 10, n_features, n_features + 3):
                expected = np.argsort(-components, axis=1, kind="stable")[:, :top_n]
                for chunk_size in (1, 50, 2 ** 17):
                    got = top_word_ids(components, top_n, chunk_size=chunk_size)
                    assert got.dtype == np.int64
                    np.testing.assert_array_equal(got, expected)


def test_top_word_ids_do_not_sort_all_topics_at_once():
    # An argsort of all topics allocates an array as large as the topics (plus
    # a negated copy); taking a few topics at a time stays far below.
    components = np.random.RandomState(12).gamma(0.3, size=(100, 20000))  # 16 MB
    tracemalloc.start()
    try:
        top = top_word_ids(components, 10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(top, np.argsort(-components, axis=1, kind="stable")[:, :10])
    assert peak < components.nbytes / 2, peak


def test_whole_text_window_equals_document_counts():
    texts, X = random_corpus(6)
    topics = random_topics(7, X, 5)
    longest = max(len(t) for t in texts)
    for measure in ("npmi", "cv"):
        by_documents = topic_coherence(topics, X, measure=measure)
        by_windows = topic_coherence(topics, X, measure=measure, texts=texts,
                                     window_size=longest)
        np.testing.assert_allclose(by_windows, by_documents, rtol=1e-12)
    # umass always counts documents; with X=None the texts are the documents.
    np.testing.assert_allclose(
        topic_coherence(topics, None, measure="umass", texts=texts),
        topic_coherence(topics, X, measure="umass"), rtol=1e-12)


def test_known_values_and_ranking():
    # Words 0, 1 always together and never with 2, 3: NPMI 1 and -1 limits.
    X = np.array([[1, 1, 0, 0], [2, 1, 0, 0], [0, 0, 1, 1], [0, 0, 3, 1]])
    coherent = np.array([[0.5, 0.5, 0.0, 0.0]])
    mixed = np.array([[0.5, 0.0, 0.5, 0.0]])
    assert topic_coherence(coherent, X, top_n=2)[0] == pytest.approx(1.0)
    # Never together: NPMI = log(eps / 0.25) / -log(eps), close to -1.
    assert topic_coherence(mixed, X, top_n=2)[0] == pytest.approx(
        np.log(EPS / 0.25) / -np.log(EPS))
    for measure in ("umass", "npmi", "cv"):
        assert (topic_coherence(coherent, X, measure=measure, top_n=2)[0]
                > topic_coherence(mixed, X, measure=measure, top_n=2)[0])


def test_accepts_estimators_pipelines_and_raw_documents():
    docs = ["apple banana apple fruit", "banana fruit salad", "car engine wheel",
            "engine car road", "fruit apple salad", "road wheel car engine"] * 3
    vec = CountVectorizer()
    X = vec.fit_transform(docs)
    lda = LatentDirichletAllocation(n_components=2, random_state=0).fit(X)
    direct = topic_coherence(lda, X, top_n=3)
    np.testing.assert_allclose(topic_coherence(lda.components_, X, top_n=3), direct)
    pipe = Pipeline([("counts", CountVectorizer()),
                     ("lda", LatentDirichletAllocation(n_components=2, random_state=0))])
    pipe.fit(docs)
    np.testing.assert_allclose(topic_coherence(pipe, docs, top_n=3), direct)
    np.testing.assert_allclose(topic_coherence(pipe, X, top_n=3), direct)
    # Counts in any container pass through as counts; raw documents of other
    # kinds go through the pipeline's first steps.
    for counts in (X.toarray(), X.toarray().tolist(), pd_frame(X.toarray())):
        np.testing.assert_allclose(topic_coherence(pipe, counts, top_n=3), direct)
    np.testing.assert_allclose(topic_coherence(pipe, pd_series(docs), top_n=3), direct)
    np.testing.assert_allclose(topic_coherence(pipe, iter(docs), top_n=3), direct)
    # Token lists of different lengths (a vectorizer with a callable
    # analyzer): np.asarray of them raised numpy's "inhomogeneous shape".
    tokens = [doc.split() for doc in docs]
    by_tokens = Pipeline([("counts", CountVectorizer(analyzer=lambda d: d)),
                          ("lda", LatentDirichletAllocation(n_components=2, random_state=0))])
    by_tokens.fit(tokens)
    np.testing.assert_allclose(topic_coherence(by_tokens, tokens, top_n=3),
                               topic_coherence(by_tokens, by_tokens[0].transform(tokens),
                                               top_n=3))


def pd_frame(values):
    return pytest.importorskip("pandas").DataFrame(values)


def pd_series(values):
    return pytest.importorskip("pandas").Series(values)


def test_sklearn_pgtm_estimator():
    from sklearn_pgtm import GibbsSLDAClassifier

    texts, X = random_corpus(8, n_docs=40)
    y = np.arange(40) % 2
    clf = GibbsSLDAClassifier(n_components=3, max_iter=5, random_state=0).fit(X, y)
    scores = topic_coherence(clf, X, top_n=4)
    assert scores.shape == (3,) and np.all(np.isfinite(scores))


def test_missing_words_warn_and_follow_conventions():
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0]])
    topics = np.array([[0.5, 0.1, 0.4]])  # word 2 never occurs
    with pytest.warns(UserWarning, match="never occur"):
        npmi = topic_coherence(topics, X, top_n=2)
    assert npmi[0] == -1.0
    with pytest.warns(UserWarning, match="never occur"):
        umass = topic_coherence(topics, X, measure="umass", top_n=2)
    # (w_2 = word 2 | w_1 = word 0): log((0 + eps) / (2/3)).
    assert umass[0] == pytest.approx(np.log(EPS / (2 / 3)))
    with pytest.warns(UserWarning, match="never occur"):
        assert np.isfinite(topic_coherence(topics, X, measure="cv", top_n=3)).all()


def test_bad_input():
    X = np.array([[1, 2], [0, 1]])
    topics = np.array([[0.5, 0.5]])
    with pytest.raises(ValueError, match="measure"):
        topic_coherence(topics, X, measure="c_v")
    with pytest.raises(ValueError, match="top_n"):
        topic_coherence(topics, X, top_n=1)
    with pytest.raises(ValueError, match="larger than the number of features"):
        topic_coherence(topics, X, top_n=3)
    with pytest.raises(ValueError, match="topics have 3"):
        topic_coherence(np.ones((2, 3)), X, top_n=2)
    with pytest.raises(ValueError, match="Negative"):
        topic_coherence(topics, -X, top_n=2)
    with pytest.raises(ValueError, match="reference corpus"):
        topic_coherence(topics, None, top_n=2)
    with pytest.raises(ValueError, match="texts only"):
        topic_coherence(topics, X, top_n=2, window_size=5)
    with pytest.raises(ValueError, match="token id 2"):
        topic_coherence(topics, X, top_n=2, texts=[[0, 2]])
    with pytest.raises(ValueError, match="integer token ids"):
        topic_coherence(topics, X, top_n=2, texts=[["a", "b"]])
    with pytest.raises(ValueError, match="window_size"):
        topic_coherence(topics, X, top_n=2, texts=[[0, 1]], window_size=0)
    with pytest.raises(ValueError, match="components_"):
        topic_coherence(LatentDirichletAllocation(), X)
    with pytest.raises(ValueError, match="non-negative"):
        topic_coherence(-topics, X, top_n=2)


# -- gensim on 20 Newsgroups ---------------------------------------------------
@pytest.fixture(scope="module")
def newsgroups_topics():
    if not (DATA / "20news-bydate_py3.pkz").exists():
        pytest.skip("20 Newsgroups data not available")
    from sklearn.datasets import fetch_20newsgroups

    docs = fetch_20newsgroups(data_home=str(DATA), subset="train", download_if_missing=False,
                              remove=("headers", "footers", "quotes")).data[:1500]
    vec = CountVectorizer(stop_words="english", min_df=5, max_df=0.5)
    X = vec.fit_transform(docs)
    lda = LatentDirichletAllocation(n_components=10, learning_method="batch", max_iter=3,
                                    random_state=0).fit(X)
    vocab = vec.get_feature_names_out()
    texts = [list(np.repeat(vocab[X.indices[X.indptr[d]:X.indptr[d + 1]]],
                            X.data[X.indptr[d]:X.indptr[d + 1]])) for d in range(X.shape[0])]
    return lda, X, vocab, texts


@pytest.mark.parametrize("measure, gensim_name", [("umass", "u_mass"), ("npmi", "c_npmi"),
                                                  ("cv", "c_v")])
def test_equals_gensim_on_20newsgroups(newsgroups_topics, measure, gensim_name):
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models import CoherenceModel

    lda, X, vocab, texts = newsgroups_topics
    top = np.argsort(-lda.components_, axis=1, kind="stable")[:, :10]
    topics = [list(vocab[t]) for t in top]
    dictionary = Dictionary([list(vocab)])
    longest = max(len(t) for t in texts)
    if measure == "umass":
        corpus = [dictionary.doc2bow(t) for t in texts]
        model = CoherenceModel(topics=topics, corpus=corpus, dictionary=dictionary,
                               coherence=gensim_name, topn=10, processes=1)
    else:
        model = CoherenceModel(topics=topics, texts=texts, dictionary=dictionary,
                               coherence=gensim_name, window_size=longest, topn=10,
                               processes=1)
    expected = np.array(model.get_coherence_per_topic())
    got = topic_coherence(lda, X, measure=measure, top_n=10)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
