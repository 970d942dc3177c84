"""Corpora of the benchmarks (never used by the package itself).

Every loader returns CSR count matrices (int64) and is cached on disk in
``/tmp`` (the vectorizing of 20 Newsgroups takes seconds); the data come from
``../shared/data`` next to the repository.

- :func:`twenty_news`: 20 Newsgroups "bydate", any categories, train / test
  split, ``CountVectorizer(stop_words="english", min_df=...)`` (or raw
  counts: stop words kept).
- :func:`twenty_news_all`: every message (train + test), for throughput.
- :func:`ap`: the Associated Press corpus of lda-c (2,246 documents).
- :func:`split_documents`: a fixed random held-out split for document
  completion.
- :func:`document_completion`: held-out perplexity of any fitted model
  (this package's or scikit-learn's) by the protocol of the user guide.
- :func:`lda_corpus`: documents drawn from LDA (known truth).
"""

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
CACHE = Path("/tmp") / f"sklearn_pgtm_corpora_{os.getuid()}"


def _cached(key, build):
    """``build()`` -> dict of arrays (CSR matrices allowed), cached under ``key``."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / (hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
                    + ".npz")
    if path.exists():
        z = np.load(path, allow_pickle=True)
        out = {}
        for name in {k.split("__")[0] for k in z.files}:
            if f"{name}__indptr" in z.files:
                out[name] = sp.csr_matrix(
                    (z[f"{name}__data"], z[f"{name}__indices"], z[f"{name}__indptr"]),
                    shape=tuple(z[f"{name}__shape"]))
            else:
                out[name] = z[name]
        return out
    out = build()
    arrays = {}
    for name, value in out.items():
        if sp.issparse(value):
            value = sp.csr_matrix(value)
            arrays.update({f"{name}__data": value.data, f"{name}__indices": value.indices,
                           f"{name}__indptr": value.indptr,
                           f"{name}__shape": np.array(value.shape)})
        else:
            arrays[name] = np.asarray(value)
    np.savez(path, **arrays)
    return out


def twenty_news(categories=None, *, min_df=2, remove=(), max_docs_per_class=None, seed=0,
                stop_words="english"):
    """20 Newsgroups train and test documents of ``categories`` (None: all 20).

    Returns a dict with ``X_train``, ``y_train``, ``X_test``, ``y_test`` (CSR
    counts and integer labels in the order of ``target_names``) and
    ``vocabulary`` (the words of the columns). The vectorizer is fitted on
    the training documents; ``remove`` as in ``fetch_20newsgroups``;
    ``max_docs_per_class`` keeps at most that many training documents per
    class (chosen at random with ``seed``).
    """
    key = ["20news", sorted(categories) if categories else None, min_df, list(remove),
           max_docs_per_class, seed]

    def build():
        from sklearn.datasets import fetch_20newsgroups
        from sklearn.feature_extraction.text import CountVectorizer

        kw = dict(data_home=str(DATA / "20newsgroups"), download_if_missing=False,
                  categories=categories, remove=tuple(remove))
        train = fetch_20newsgroups(subset="train", shuffle=True, random_state=seed, **kw)
        test = fetch_20newsgroups(subset="test", **kw)
        docs, target = train.data, np.asarray(train.target)
        if max_docs_per_class is not None:
            keep = np.sort(np.concatenate([np.flatnonzero(target == c)[:max_docs_per_class]
                                           for c in np.unique(target)]))
            docs, target = [docs[i] for i in keep], target[keep]
        vec = CountVectorizer(stop_words=stop_words, min_df=min_df)
        return {"X_train": vec.fit_transform(docs).astype(np.int64), "y_train": target,
                "X_test": vec.transform(test.data).astype(np.int64),
                "y_test": np.asarray(test.target),
                "vocabulary": np.array(vec.get_feature_names_out(), dtype=object),
                "target_names": np.array(train.target_names, dtype=object)}

    return _cached(key, build)


def twenty_news_all(min_df=2):
    """Every 20 Newsgroups message (18,846; train + test) as one count matrix
    (documents without a counted word dropped); returns (X, vocabulary)."""

    def build():
        from sklearn.datasets import fetch_20newsgroups
        from sklearn.feature_extraction.text import CountVectorizer

        news = fetch_20newsgroups(subset="all", data_home=str(DATA / "20newsgroups"),
                                  download_if_missing=False)
        vec = CountVectorizer(stop_words="english", min_df=min_df)
        X = vec.fit_transform(news.data).tocsr()
        X = X[np.asarray(X.sum(axis=1)).ravel() > 0]
        return {"X": X.astype(np.int64),
                "vocabulary": np.array(vec.get_feature_names_out(), dtype=object)}

    out = _cached(["20news_all", min_df], build)
    return out["X"], out["vocabulary"]


def ap():
    """The AP corpus (lda-c format): (X, vocabulary), 2,246 documents, 10,473 words."""

    def build():
        vocab = (DATA / "ap" / "vocab.txt").read_text().split()
        rows, cols, vals = [], [], []
        n_docs = 0
        for line in (DATA / "ap" / "ap.dat").read_text().splitlines():
            parts = line.split()
            if not parts:
                continue
            for item in parts[1:]:
                w, c = item.split(":")
                rows.append(n_docs)
                cols.append(int(w))
                vals.append(int(c))
            n_docs += 1
        X = sp.csr_matrix((vals, (rows, cols)), shape=(n_docs, len(vocab)), dtype=np.int64)
        return {"X": X, "vocabulary": np.array(vocab, dtype=object)}

    out = _cached(["ap"], build)
    return out["X"], out["vocabulary"]


def split_documents(n_docs, heldout_fraction=0.1, seed=0):
    """Indices (train, held out) of a random split of ``n_docs`` documents."""
    rng = np.random.RandomState(seed)
    order = rng.permutation(n_docs)
    n_held = max(1, int(round(heldout_fraction * n_docs)))
    return np.sort(order[n_held:]), np.sort(order[:n_held])


def document_completion(model, X_heldout, seed=0):
    """Held-out document-completion perplexity (user guide, evaluation): every
    count split binomially in half, proportions from the first half with
    ``transform``, perplexity of the second under ``components_``."""
    from sklearn_pgtm.metrics import document_completion_perplexity

    return document_completion_perplexity(model, X_heldout, random_state=seed)


def match_topics(components, phi):
    """Match fitted topics (rows of ``components``, normalized here) to the
    true topics ``phi`` (K, V) by the Hungarian algorithm on the L1 distance.

    Returns ``order`` (fitted topic ``order[t]`` is matched to true topic
    ``t``) and the L1 distance of each matched pair, in the order of ``phi``.
    """
    from scipy.optimize import linear_sum_assignment

    est = components / components.sum(axis=1, keepdims=True)
    cost = np.abs(est[:, None, :] - phi[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    order = np.empty(phi.shape[0], dtype=int)
    order[cols] = rows
    return order, cost[order, np.arange(phi.shape[0])]


def lda_corpus(n_docs, n_words, n_topics, doc_length, alpha, beta, seed):
    """Documents drawn from LDA: (counts (D, V), topics (K, V), proportions (D, K))."""
    rng = np.random.RandomState(seed)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    phi = rng.dirichlet(np.full(n_words, beta), size=n_topics)
    theta = rng.dirichlet(alpha, size=n_docs)
    lengths = np.broadcast_to(np.asarray(doc_length), (n_docs,))
    X = np.vstack([rng.multinomial(n, t @ phi) for n, t in zip(lengths, theta)])
    return sp.csr_matrix(X, dtype=np.int64), phi, theta
