"""Tests of the embedded religion corpus and its loader."""

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from sklearn_pgtm.datasets import load_religion_corpus, load_wonderland
from sklearn_pgtm.datasets import _build_religion

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NEWS_HOME = SHARED_DATA / "20newsgroups"
CATEGORIES = ["alt.atheism", "talk.religion.misc"]


@pytest.fixture(scope="module")
def corpus():
    return load_religion_corpus()


def _needs_news():
    if not (NEWS_HOME / "20news-bydate_py3.pkz").exists():
        pytest.skip("../shared/data/20newsgroups is not available")


def test_shapes_and_labels(corpus):
    assert corpus.X_train.shape == (857, 9307)
    assert corpus.X_test.shape == (570, 9307)
    assert corpus.target_names == CATEGORIES
    # Class sizes of the bydate split (alt.atheism / talk.religion.misc).
    np.testing.assert_array_equal(np.bincount(corpus.y_train), [480, 377])
    np.testing.assert_array_equal(np.bincount(corpus.y_test), [319, 251])
    assert corpus.doc_ids_train.shape == (857,)
    assert corpus.doc_ids_test.shape == (570,)
    # Message numbers identify documents uniquely within each newsgroup.
    for ids, y in ((corpus.doc_ids_train, corpus.y_train),
                   (corpus.doc_ids_test, corpus.y_test)):
        for label in (0, 1):
            assert np.unique(ids[y == label]).size == np.sum(y == label)
    assert "alt.atheism" in corpus.DESCR


def test_counts_are_csr_integers(corpus):
    for X in (corpus.X_train, corpus.X_test):
        assert sp.issparse(X) and X.format == "csr"
        assert np.issubdtype(X.dtype, np.integer)
        assert X.has_sorted_indices
        assert X.data.min() >= 1
        # Every message keeps some words.
        assert np.all(np.asarray(X.sum(axis=1)).ravel() > 0)
    assert corpus.X_train.sum() == 142088
    assert corpus.X_test.sum() == 89759


def test_vocabulary_consistent(corpus):
    names = corpus.feature_names
    assert names.shape == (corpus.X_train.shape[1],)
    assert len(set(names)) == names.shape[0]
    assert list(names) == sorted(names)
    assert corpus.vocabulary == {w: i for i, w in enumerate(names)}
    # CountVectorizer's default token pattern: two or more characters, lowercase.
    assert all(len(w) >= 2 and w == w.lower() for w in names)
    # Stop words are absent, ordinary religion words are present.
    assert not set(names) & ENGLISH_STOP_WORDS
    for word in ("god", "atheism", "religion", "bible", "jesus"):
        assert word in corpus.vocabulary
    # min_df=2 on the training part: every word occurs in >= 2 training documents.
    doc_freq = np.bincount(corpus.X_train.indices, minlength=names.shape[0])
    assert doc_freq.min() >= 2


def test_return_X_y_matches_bunch(corpus):
    X_train, X_test, y_train, y_test = load_religion_corpus(return_X_y=True)
    assert (X_train != corpus.X_train).nnz == 0
    assert (X_test != corpus.X_test).nnz == 0
    np.testing.assert_array_equal(y_train, corpus.y_train)
    np.testing.assert_array_equal(y_test, corpus.y_test)


def test_each_call_returns_fresh_arrays():
    first = load_religion_corpus()
    first.X_train.data[:] = 0
    first.y_train[:] = 7
    second = load_religion_corpus()
    assert second.X_train.data.min() >= 1
    assert set(np.unique(second.y_train)) == {0, 1}


def test_data_file_is_small():
    assert _build_religion.DATA_FILE.exists()
    assert _build_religion.DATA_FILE.stat().st_size < 1_000_000


def test_matches_independent_vectorization(corpus):
    """Oracle: vectorize the shared 20 Newsgroups copy directly."""
    _needs_news()
    from sklearn.datasets import fetch_20newsgroups
    from sklearn.feature_extraction.text import CountVectorizer

    parts = {
        subset: fetch_20newsgroups(
            data_home=str(NEWS_HOME), subset=subset, categories=CATEGORIES,
            shuffle=False, download_if_missing=False,
        )
        for subset in ("train", "test")
    }
    vectorizer = CountVectorizer(stop_words="english", min_df=2)
    X_train = vectorizer.fit_transform(parts["train"].data)
    X_test = vectorizer.transform(parts["test"].data)
    np.testing.assert_array_equal(
        vectorizer.get_feature_names_out(), corpus.feature_names.astype(str)
    )
    assert (X_train != corpus.X_train).nnz == 0
    assert (X_test != corpus.X_test).nnz == 0
    np.testing.assert_array_equal(parts["train"].target, corpus.y_train)
    np.testing.assert_array_equal(parts["test"].target, corpus.y_test)


def test_rebuild_gives_identical_arrays(tmp_path):
    _needs_news()
    output = tmp_path / "religion.npz"
    _build_religion.main(["--data-home", str(NEWS_HOME), "--output", str(output)])
    with np.load(output, allow_pickle=False) as rebuilt, \
            np.load(_build_religion.DATA_FILE, allow_pickle=False) as stored:
        assert sorted(rebuilt.files) == sorted(stored.files)
        for key in stored.files:
            assert rebuilt[key].dtype == stored[key].dtype, key
            np.testing.assert_array_equal(rebuilt[key], stored[key], err_msg=key)


# load_wonderland's vocabulary: words by decreasing frequency, ties in
# alphabetical order (documented). An unstable sort passed every test, though
# it changes the set of the 1,000 most frequent words (mutation testing).
# Oracle: a regular expression and a Counter.
def _wonderland_oracle(text):
    words = re.findall(r"[a-z]+(?:'[a-z]+)*", text.lower())
    counts = Counter(words)
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return words, ranked, counts


def test_vocabulary_is_by_frequency_then_alphabetical():
    full = load_wonderland(n_words=None)
    words, ranked, counts = _wonderland_oracle(full.text)
    assert list(full.vocabulary) == ranked
    np.testing.assert_array_equal(full.word_counts, [counts[w] for w in ranked])
    small = load_wonderland(n_words=1000, n_tokens=4000)
    assert list(small.vocabulary) == ranked[:1000]
    index = {w: i for i, w in enumerate(ranked[:1000])}
    kept = [(p, index[w]) for p, w in enumerate(words) if w in index][:4000]
    np.testing.assert_array_equal(small.positions, [p for p, _ in kept])
    np.testing.assert_array_equal(small.token_ids, [i for _, i in kept])
    np.testing.assert_array_equal(small.X.indices, small.token_ids)
