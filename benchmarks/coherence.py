"""Topic coherence of this package's models and their peers on 20 Newsgroups,
agreement of ``sklearn_pgtm.metrics.topic_coherence`` with gensim, and its speed.

- Corpus: the 20 Newsgroups "bydate" training set (11,314 messages; headers,
  signatures and quoted replies removed, as usual for coherence studies),
  ``CountVectorizer(stop_words="english", min_df=5, max_df=0.5)``. --quick
  uses the first 1,500 messages.
- Models at K = 20 topics, each at its defaults (one seed): this package's
  EmpiricalBayesLDA, CorrelatedTopicModel, GibbsSLDAClassifier (binary target:
  the five comp.* groups vs the rest, the only label the corpus offers at one
  model per K topics) and GibbsLDA when the package has it; scikit-learn's
  LatentDirichletAllocation; tomotopy's LDAModel (its default priors, 500
  Gibbs iterations on one thread: its own default of 10 iterations per
  ``train`` call is a call size, not a run length).
- Coherence of each model's topics (top 10 words) on the training corpus:
  UMass and NPMI over whole documents, NPMI over 10-token windows and C_V
  over 110-token windows (Röder et al.'s settings). Higher is better; this
  is a report, there is no target.
- Agreement with gensim's CoherenceModel on the same top words and documents
  (u_mass; c_npmi and c_v with a window as long as the longest document),
  the largest absolute difference over all topics of all models; and the
  same for c_npmi with 10-token windows, where gensim's incremental window
  update is known here to undercount words repeated inside a window.
- Runtime of topic_coherence vs gensim on the same topics.

Usage: python benchmarks/coherence.py [--quick]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # this checkout's package, not an installed one
from _results import markdown_table, write_section  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "20newsgroups"
K = 20
TOP_N = 10
MEASURES = [  # (column, measure, window: None = whole documents)
    ("umass", "umass", None),
    ("npmi", "npmi", None),
    ("npmi w10", "npmi", 10),
    ("cv w110", "cv", 110),
]


def load(quick):
    from sklearn.datasets import fetch_20newsgroups
    from sklearn.feature_extraction.text import CountVectorizer

    train = fetch_20newsgroups(data_home=str(DATA), subset="train", download_if_missing=False,
                               remove=("headers", "footers", "quotes"))
    docs, target = train.data, np.asarray(train.target)
    if quick:
        docs, target = docs[:1500], target[:1500]
    vec = CountVectorizer(stop_words="english", min_df=5, max_df=0.5)
    X = vec.fit_transform(docs).tocsr()
    analyze = vec.build_analyzer()
    # Token order for the window measures: column ids, -1 for dropped words.
    tokens = [analyze(doc) for doc in docs]
    texts = [[vec.vocabulary_.get(t, -1) for t in doc] for doc in tokens]
    comp = np.array([name.startswith("comp.") for name in train.target_names])
    return X, texts, tokens, vec.get_feature_names_out(), comp[target].astype(int)


def our_models(quick):
    """(name, estimator, needs_y): every model of the package at its defaults."""
    import sklearn_pgtm as pgtm

    short = {"max_iter": 20} if quick else {}
    models = [
        ("EmpiricalBayesLDA", pgtm.EmpiricalBayesLDA(
            K, random_state=0, **({"n_samples": 20, "burn_in": 10, "n_final_iter": 10}
                                  if quick else {})), False),
        ("CorrelatedTopicModel", pgtm.CorrelatedTopicModel(K, random_state=0, **short), False),
        ("GibbsSLDAClassifier", pgtm.GibbsSLDAClassifier(K, random_state=0, **short), True),
    ]
    if hasattr(pgtm, "GibbsLDA"):
        models.insert(0, ("GibbsLDA", pgtm.GibbsLDA(K, random_state=0, **short), False))
    return models


def fit_ours(X, y, quick):
    results = {}
    for name, est, needs_y in our_models(quick):
        tic = time.perf_counter()
        est.fit(X, y) if needs_y else est.fit(X)
        results[name] = (est.components_, time.perf_counter() - tic)
        print(f"  {name}: {results[name][1]:.1f} s", flush=True)
    return results


def fit_sklearn_lda(X):
    from sklearn.decomposition import LatentDirichletAllocation

    tic = time.perf_counter()
    lda = LatentDirichletAllocation(n_components=K, random_state=0).fit(X)
    return lda.components_, time.perf_counter() - tic


def fit_tomotopy(X, iterations):
    import tomotopy as tp

    model = tp.LDAModel(k=K, seed=0)
    ids = {}
    for d in range(X.shape[0]):
        cols = X.indices[X.indptr[d]:X.indptr[d + 1]]
        counts = X.data[X.indptr[d]:X.indptr[d + 1]]
        words = [str(j) for j, n in zip(cols, counts) for _ in range(int(n))]
        if words:
            ids[model.add_doc(words)] = d
    tic = time.perf_counter()
    model.train(iterations, workers=1)
    seconds = time.perf_counter() - tic
    # Back to our columns: tomotopy's vocabulary holds the column ids as words.
    components = np.zeros((K, X.shape[1]))
    columns = np.array([int(w) for w in model.used_vocabs])
    for k in range(K):
        components[k, columns] = model.get_topic_word_dist(k)
    return components, seconds


def coherence_table(topics, X, texts):
    from sklearn_pgtm.metrics import topic_coherence

    scores = {}
    for name, components in topics.items():
        scores[name] = {
            column: topic_coherence(components, X, measure=measure, top_n=TOP_N,
                                    texts=texts if window else None, window_size=window)
            for column, measure, window in MEASURES
        }
    return scores


def gensim_scores(components, vocab, X, tokens, measure, window):
    """gensim's per-topic coherence of the same top words; (values, seconds)."""
    from gensim.corpora import Dictionary
    from gensim.models import CoherenceModel

    top = np.argsort(-components, axis=1, kind="stable")[:, :TOP_N]
    topics = [list(vocab[t]) for t in top]
    dictionary = Dictionary([list(vocab)])
    tic = time.perf_counter()
    if measure == "u_mass":
        ids = np.array([dictionary.token2id[w] for w in vocab])
        corpus = [list(zip(ids[X.indices[X.indptr[d]:X.indptr[d + 1]]].tolist(),
                           X.data[X.indptr[d]:X.indptr[d + 1]].tolist()))
                  for d in range(X.shape[0])]
        model = CoherenceModel(topics=topics, corpus=corpus, dictionary=dictionary,
                               coherence=measure, topn=TOP_N, processes=1)
    else:
        model = CoherenceModel(topics=topics, texts=tokens, dictionary=dictionary,
                               coherence=measure, window_size=window, topn=TOP_N,
                               processes=1)
    values = np.array(model.get_coherence_per_topic())
    return values, time.perf_counter() - tic


def main(quick=False):
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    X, texts, tokens, vocab, y = load(quick)
    print(f"corpus: {X.shape[0]} documents, {X.shape[1]} words, {int(X.sum())} tokens",
          flush=True)
    topics, seconds = {}, {}
    for name, (components, fit_seconds) in fit_ours(X, y, quick).items():
        topics[name], seconds[name] = components, fit_seconds
    topics["sklearn LDA"], seconds["sklearn LDA"] = fit_sklearn_lda(X)
    try:
        topics["tomotopy LDA"], seconds["tomotopy LDA"] = fit_tomotopy(
            X, 50 if quick else 500)
    except ImportError:
        print("  tomotopy not installed: its row is left out", flush=True)
    scores = coherence_table(topics, X, texts)

    rows = []
    for name, per_measure in scores.items():
        rows.append([name, f"{seconds[name]:.0f}"]
                    + [f"{v.mean():.3f} ± {v.std():.3f}" for v in per_measure.values()]
                    + [f"{per_measure['npmi'].min():.3f}"])
    header = (["model (K = 20, defaults)", "fit s"]
              + [f"{column} mean ± sd" for column, _, _ in MEASURES] + ["worst npmi"])
    body = [
        f"Corpus: 20 Newsgroups train{' (first 1,500 messages)' if quick else ''}, "
        f"{X.shape[0]} documents, {X.shape[1]} words, {int(X.sum())} tokens; top "
        f"{TOP_N} words per topic; coherence on the training corpus; mean ± sd over the "
        "20 topics (one seed each). Higher is better for every measure. Our models at "
        "their defaults; GibbsSLDAClassifier predicts comp.* vs the rest; tomotopy "
        f"LDAModel with {'50' if quick else '500'} iterations on one thread. Fit seconds are "
        f"wall times; load average {load_before:.1f} at the start of the run on "
        f"{os.cpu_count()} cores.",
        "",
        markdown_table(header, rows),
    ]

    summary = {f"npmi_{name}": float(s["npmi"].mean()) for name, s in scores.items()}
    try:
        import gensim  # noqa: F401
    except ImportError:
        body += ["", "gensim is not installed: agreement and runtime not measured."]
        write_section("coherence", "Topic coherence on 20 Newsgroups", "\n".join(body))
        return summary

    longest = max(len(t) for t in tokens)
    checks = [  # (gensim measure, our measure, window, our texts or None)
        ("u_mass", "umass", None, None),
        ("c_npmi", "npmi", longest, None),
        ("c_v", "cv", longest, None),
        ("c_npmi", "npmi", 10, texts),
    ]
    from sklearn_pgtm.metrics import topic_coherence

    agreement, timing = [], []
    timed_model = "sklearn LDA"
    for gensim_name, ours, window, our_texts in checks:
        diffs = []
        for name, components in topics.items():
            theirs, gensim_seconds = gensim_scores(components, vocab, X, tokens, gensim_name,
                                                   window)
            tic = time.perf_counter()
            mine = topic_coherence(components, X, measure=ours, top_n=TOP_N, texts=our_texts,
                                   window_size=window if our_texts is not None else None)
            our_seconds = time.perf_counter() - tic
            diffs.append(np.max(np.abs(mine - theirs)))
            if name == timed_model:
                timing.append([gensim_name, "whole documents" if our_texts is None
                               else f"{window}-token windows", f"{our_seconds:.3f}",
                               f"{gensim_seconds:.2f}", f"{gensim_seconds / our_seconds:.0f}"])
        label = ("whole documents (gensim window = longest document, "
                 f"{longest} tokens)" if our_texts is None and gensim_name != "u_mass"
                 else "whole documents" if our_texts is None else f"{window}-token windows")
        agreement.append([gensim_name, label, f"{max(diffs):.2e}"])
        summary[f"gensim_max_abs_diff_{gensim_name}_{'w' + str(window) if our_texts else 'doc'}"] = (
            float(max(diffs)))
        print(f"  gensim {gensim_name} ({label}): max |diff| {max(diffs):.2e}", flush=True)
    for row in timing:
        summary[f"speedup_vs_gensim_{row[0]}_{row[1].split()[0]}"] = float(row[4])

    body += [
        "",
        "Agreement with gensim's CoherenceModel (same top words, same documents), largest "
        f"absolute difference over the {len(topics) * K} topics of all models:",
        "",
        markdown_table(["gensim measure", "co-occurrence", "max abs difference"], agreement),
        "",
        "With whole documents the values are the same up to rounding. With 10-token windows "
        "they differ by design: gensim's WordOccurrenceAccumulator updates a window by "
        "dropping the word of the token that leaves it, even when another token of that "
        "word is still inside, so it undercounts words repeated within a window (on the "
        "text a b a c x with windows of 3 it counts a in 1 window instead of 3); "
        "topic_coherence counts a word in every window that holds one of its tokens "
        "(checked against an explicit list of windows in tests/test_coherence.py).",
        "",
        f"Runtime on the {K} topics of {timed_model} (seconds; gensim single process, "
        "including its counting; ours including the counting and the flattening of the "
        "texts):",
        "",
        markdown_table(["gensim measure", "co-occurrence", "topic_coherence s", "gensim s",
                        "gensim / ours"], timing),
    ]
    write_section("coherence", "Topic coherence on 20 Newsgroups", "\n".join(body))
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,500 documents, short runs")
    args = parser.parse_args()
    print(main(quick=args.quick))
