"""Rebuild the embedded religion corpus from a local 20 Newsgroups cache.

Run from the repository root (no network is used)::

    .venv/bin/python -m sklearn_pgtm.datasets._build_religion \
        --data-home ../shared/data/20newsgroups

The data home must hold scikit-learn's cache ``20news-bydate_py3.pkz`` (as written
by :func:`sklearn.datasets.fetch_20newsgroups`). The script writes
``sklearn_pgtm/datasets/data/religion.npz``. This module is only needed to
regenerate the file; :func:`sklearn_pgtm.datasets.load_religion_corpus` never
imports it.
"""

import argparse
from pathlib import Path

import numpy as np

#: The two newsgroups of the binary task, in label order (0, 1).
CATEGORIES = ("alt.atheism", "talk.religion.misc")

#: Path of the embedded file, relative to this module.
DATA_FILE = Path(__file__).resolve().parent / "data" / "religion.npz"

#: Storage dtypes (checked to be lossless when building).
_INDEX_DTYPE = np.uint16
_COUNT_DTYPE = np.uint16


def _fetch(data_home, subset):
    from sklearn.datasets import fetch_20newsgroups

    return fetch_20newsgroups(
        data_home=str(data_home),
        subset=subset,
        categories=list(CATEGORIES),
        shuffle=False,
        remove=(),
        download_if_missing=False,
    )


def _doc_ids(filenames):
    # The message number is the file's base name in the bydate archive.
    return np.array([int(Path(f).name) for f in filenames], dtype=np.int32)


def build_arrays(data_home):
    """Vectorize the corpus and return the arrays stored in the embedded file.

    Parameters
    ----------
    data_home : str or path-like
        Directory holding scikit-learn's ``20news-bydate_py3.pkz`` cache.

    Returns
    -------
    arrays : dict of str to ndarray
        The keys and arrays of ``religion.npz``.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    train = _fetch(data_home, "train")
    test = _fetch(data_home, "test")
    if tuple(train.target_names) != CATEGORIES:
        raise RuntimeError(f"unexpected target names {train.target_names!r}")

    vectorizer = CountVectorizer(stop_words="english", min_df=2)
    X_train = vectorizer.fit_transform(train.data).tocsr()
    X_test = vectorizer.transform(test.data).tocsr()
    vocabulary = vectorizer.get_feature_names_out()
    if len(vocabulary) > np.iinfo(_INDEX_DTYPE).max + 1:
        raise RuntimeError("vocabulary too large for the index dtype")

    arrays = {}
    for name, X in (("train", X_train), ("test", X_test)):
        X.sort_indices()
        if X.data.max() > np.iinfo(_COUNT_DTYPE).max:
            raise RuntimeError("a count does not fit the count dtype")
        arrays[f"{name}_data"] = X.data.astype(_COUNT_DTYPE)
        arrays[f"{name}_indices"] = X.indices.astype(_INDEX_DTYPE)
        arrays[f"{name}_indptr"] = X.indptr.astype(np.int32)
    arrays["train_target"] = train.target.astype(np.int8)
    arrays["test_target"] = test.target.astype(np.int8)
    arrays["train_doc_ids"] = _doc_ids(train.filenames)
    arrays["test_doc_ids"] = _doc_ids(test.filenames)
    arrays["n_features"] = np.array(len(vocabulary), dtype=np.int32)
    arrays["vocabulary"] = np.array("\n".join(vocabulary))
    arrays["target_names"] = np.array("\n".join(CATEGORIES))
    return arrays


def main(argv=None):
    default_home = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    default_home = default_home / "20newsgroups"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=str(default_home))
    parser.add_argument("--output", default=str(DATA_FILE))
    args = parser.parse_args(argv)

    arrays = build_arrays(args.data_home)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(output, **arrays)
    n_train = arrays["train_target"].shape[0]
    n_test = arrays["test_target"].shape[0]
    print(
        f"wrote {output} ({output.stat().st_size / 1024:.0f} KiB): "
        f"{n_train} train / {n_test} test documents, "
        f"{int(arrays['n_features'])} words"
    )


if __name__ == "__main__":
    main()
