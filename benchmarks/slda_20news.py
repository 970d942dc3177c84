"""GibbsSLDAClassifier on 20 Newsgroups, side by side with its peers.

- Multi-class subsets (3-6 classes; bydate split, English stop words
  removed, words in >= 2 training documents), K = 20, c = 16 for both:
  the multinomial model (one set of shared topics) vs one-vs-rest (one
  binary model per class) vs an LDA + logistic regression pipeline vs
  logistic regression on raw counts; test accuracy and fit time. For each
  class, the shared topic with the largest weight (centered over classes)
  and its top words.
- All 20 classes, K = 50: multinomial vs one-vs-rest, each with c chosen
  from 16 / 64 / 256 / 1024 on a validation split (``--twenty-fixed-c``: 64 for
  both), then test accuracy and fit time on two threads for seeds 0, 1, 2
  (``--twenty-seeds``), same run (skipped with --quick; ``--part twenty``
  runs only it). Both modes take the paper's alpha = 5.6, or the
  estimator's default ``doc_topic_prior="auto"`` with ``--twenty-alpha auto``
  (its own section, slda_twenty_alpha_auto).
- Binary task alt.atheism vs talk.religion.misc, K = 20, c = 25, 3 seeds:
  our model (four rules of prediction on the same fits), tomotopy's
  SLDAModel (binary response), LDA + logistic regression, logistic
  regression on raw counts; training throughput
  (token-sweeps per second, one thread) as a ratio to tomotopy's.
- Prediction (``--part prediction``): the multi-class subsets at the
  defaults (150 training documents per class, K = 20, c = 16, seeds 0, 1),
  both modes: the expected topic frequencies (``prediction_topics="expected"``,
  the default) against the inferred ones, and the weights' average over the
  chain, on the same fits.
- The refit's weight draws (``--part refit-draws``): the six binary pairs
  of benchmarks/defaults.py x five seeds at the defaults (K = 20, c = 25),
  each fit's refit run again with 100 (the default), 300 and 1,000 weight
  draws: test accuracy and the predictions that change; and the refit's
  seconds on all 20 classes.
- The refit's start (``--part refit-start``): the six binary pairs (K =
  20) and the package's religion messages (K = 10) x three seeds at the
  defaults with c = 25 (the default) and c = 1,024 (the value a validation
  split chose for the 20-class multinomial model), each fit's
  refit run from the posterior mode of the weights (the default since
  2026-11-30) and from the fit's average weights (before): test accuracy,
  test log-loss and how far the refitted weights sit below the mode in log
  posterior.

Apart from the last three parts, which rerun the refit's step of a kept
chain through private methods, only the package's public API is used.
Timings are wall-clock on whatever machine runs it (the RESULTS.md figures:
a 2-core machine, often shared).

Usage: python benchmarks/slda_20news.py [--quick]
       [--part {all,subsets,twenty,binary,prediction,refit-draws,refit-start}]
       [--max-docs-per-class N] [--max-iter N] [--twenty-modes M [M]] [--twenty-iter N]
       [--twenty-fixed-c] [--twenty-seeds S [S ...]] [--twenty-alpha A]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import twenty_news  # noqa: E402
from _results import load_note, markdown_table, write_section  # noqa: E402
from defaults import average_weights_accuracy, inferred_topics_accuracy  # noqa: E402

BINARY = ["alt.atheism", "talk.religion.misc"]
SUBSETS = {
    "computers (3)": ["comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware",
                      "comp.os.ms-windows.misc"],
    "mixed (4)": ["comp.graphics", "rec.autos", "sci.med", "talk.politics.guns"],
    "religion + science (5)": ["alt.atheism", "soc.religion.christian", "talk.religion.misc",
                               "sci.space", "rec.sport.hockey"],
    "mixed (6)": ["comp.windows.x", "misc.forsale", "rec.motorcycles", "sci.crypt",
                  "sci.electronics", "talk.politics.mideast"],
}


def load(categories, max_docs_per_class=None):
    d = twenty_news(categories, max_docs_per_class=max_docs_per_class)
    return (d["X_train"], d["y_train"], d["X_test"], d["y_test"], d["vocabulary"],
            d["target_names"])


def word_lists(X, vocab):
    X = X.tocsr()
    return [
        [vocab[j] for j, n in zip(X.indices[X.indptr[i]:X.indptr[i + 1]],
                                  X.data[X.indptr[i]:X.indptr[i + 1]]) for _ in range(int(n))]
        for i in range(X.shape[0])
    ]


def ours(X_train, y_train, X_test, y_test, K, c, max_iter, seed, n_jobs=1, alpha=1.0):
    from sklearn_pgtm import GibbsSLDAClassifier

    out = {}
    # The protocol of the section (measured before the defaults became
    # 1,000 sweeps with a burn-in of 500 and split-merge moves): burn-in 50,
    # no moves.
    # warm_start keeps the chain for inferred_topics_accuracy (one fit with it
    # is the fit without it).
    clf = GibbsSLDAClassifier(n_components=K, c=c, max_iter=max_iter, burn_in=50,
                              split_merge=False, doc_topic_prior=alpha,
                              random_state=seed, n_jobs=n_jobs, warm_start=True)
    t0 = time.perf_counter()
    clf.fit(X_train, y_train)
    out["fit_seconds"] = time.perf_counter() - t0
    predicted = clf.predict(X_test)
    out["refit"] = np.mean(predicted == y_test)
    # Reproducibility: repeated predict is identical.
    assert np.array_equal(predicted, clf.predict(X_test))
    # The same chain's weights refitted to the inferred topic frequencies, and
    # their average over the chain scoring those.
    out["refit_inferred"] = inferred_topics_accuracy(clf, X_test, y_test)
    out["average"] = average_weights_accuracy(clf, X_test, y_test)
    # The paper's rule on the same chain: the last draw of eta and the last
    # inference sweep (what prediction="last", prediction_topics="inferred"
    # fits give).
    clf.set_params(prediction="last", prediction_topics="inferred")
    clf.coef_ = clf.last_coef_
    out["last"] = np.mean(clf.predict(X_test) == y_test)
    return out


def tomotopy_slda(X_train, y_train, X_test, y_test, vocab, K, c_weight, iters, seed):
    import tomotopy as tp

    model = tp.SLDAModel(k=K, vars=["b"], alpha=1.0, eta=0.01, mu=[0.0], nu_sq=[1.0],
                         glm_param=[float(c_weight)], seed=seed)
    for words, label in zip(word_lists(X_train, vocab), y_train):
        if words:
            model.add_doc(words, y=[float(label)])
    t0 = time.perf_counter()
    model.train(iters, workers=1)
    seconds = time.perf_counter() - t0
    docs = [model.make_doc(w) for w in word_lists(X_test, vocab)]
    model.infer(docs, iterations=100, workers=1)
    pred = np.array([model.estimate(d)[0] > 0.5 for d in docs]).astype(int)
    return np.mean(pred == y_test), seconds, model.num_words


def lda_logreg(X_train, y_train, X_test, y_test, K, seed):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    pipe = make_pipeline(LatentDirichletAllocation(n_components=K, learning_method="batch",
                                                   max_iter=50, random_state=seed),
                         LogisticRegression(max_iter=2000))
    pipe.fit(X_train, y_train)
    return pipe.score(X_test, y_test)


def logreg_counts(X_train, y_train, X_test, y_test):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=5000).fit(X_train, y_train).score(X_test, y_test)


def throughput(X_train, y_train, vocab, K, iters, rounds=3):
    """Token-sweeps per second of the training chain (``prediction="average"``:
    no refit after it), one thread, vs tomotopy:
    the median over ``rounds`` alternating fits of each (a change of machine
    load then hits both)."""
    from sklearn_pgtm import GibbsSLDAClassifier

    n_tokens = int(X_train.sum())
    GibbsSLDAClassifier(n_components=K, c=25, max_iter=2, random_state=0).fit(X_train, y_train)
    ours_rates, tp_rates = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        GibbsSLDAClassifier(n_components=K, c=25, max_iter=iters, burn_in=50,
                            split_merge=False, prediction="average",
                            random_state=0).fit(X_train, y_train)
        ours_rates.append(n_tokens * iters / (time.perf_counter() - t0))
        _, seconds, n_tp = tomotopy_slda(X_train, y_train, X_train[:2], y_train[:2], vocab, K,
                                         25, iters, 0)
        tp_rates.append(n_tp * iters / seconds)
    return float(np.median(ours_rates)), float(np.median(tp_rates))


def binary(quick=False):
    """The binary task: accuracy vs tomotopy and pipelines, and throughput."""
    seeds = [0] if quick else [0, 1, 2]
    max_iter = 20 if quick else 100
    X_train, y_train, X_test, y_test, vocab, _ = load(BINARY)
    acc = {"refit": [], "refit_inferred": [], "average": [], "last": [], "tomotopy": [],
           "lda_lr": []}
    for seed in seeds:
        r = ours(X_train, y_train, X_test, y_test, 20, 25.0, max_iter, seed)
        acc["refit"].append(r["refit"])
        acc["refit_inferred"].append(r["refit_inferred"])
        acc["average"].append(r["average"])
        acc["last"].append(r["last"])
        tp_acc, _, _ = tomotopy_slda(X_train, y_train, X_test, y_test, vocab, 20, 25, max_iter,
                                     seed)
        acc["tomotopy"].append(tp_acc)
        acc["lda_lr"].append(lda_logreg(X_train, y_train, X_test, y_test, 20, seed))
        print(f"seed {seed}: ours refit {r['refit']:.4f} inferred {r['refit_inferred']:.4f} "
              f"avg {r['average']:.4f} "
              f"last {r['last']:.4f} "
              f"tomotopy {tp_acc:.4f} lda+lr {acc['lda_lr'][-1]:.4f} "
              f"(fit {r['fit_seconds']:.1f}s)", flush=True)
    lr = logreg_counts(X_train, y_train, X_test, y_test)

    def mean_sd(v):
        return f"{np.mean(v):.4f} ± {np.std(v):.4f}"

    rows = [
        ["GibbsSLDAClassifier (K=20, c=25), prediction='refit', prediction_topics='expected'",
         mean_sd(acc["refit"])],
        ["GibbsSLDAClassifier (K=20, c=25), prediction='refit', prediction_topics='inferred'",
         mean_sd(acc["refit_inferred"])],
        ["GibbsSLDAClassifier (K=20, c=25), prediction='average', "
         "prediction_topics='inferred'", mean_sd(acc["average"])],
        ["GibbsSLDAClassifier (K=20, c=25), prediction='last', prediction_topics='inferred'",
         mean_sd(acc["last"])],
        ["tomotopy SLDAModel (K=20, binary response, glm weight 25)", mean_sd(acc["tomotopy"])],
        ["LatentDirichletAllocation (K=20) + LogisticRegression", mean_sd(acc["lda_lr"])],
        ["LogisticRegression on raw counts", f"{lr:.4f}"],
    ]
    body = (
        f"Binary task {BINARY[0]} vs {BINARY[1]}: {X_train.shape[0]} train / "
        f"{X_test.shape[0]} test documents, {X_train.shape[1]} words, "
        f"{max_iter} training sweeps, mean ± sd over seeds {seeds}; four rules of "
        "prediction on the same fits (the weights refitted to the expected or the "
        "inferred topic frequencies, the weights' average or last draw scoring the "
        "inferred ones). Target: >= 0.81.\n\n"
        + markdown_table(["model", "test accuracy"], rows)
    )
    rounds = 1 if quick else 3
    ours_rate, tp_rate = throughput(X_train, y_train, vocab, 20, 20 if quick else 100, rounds)
    body += (
        f"\n\nTraining throughput, one thread, K = 20 (token-sweeps per second, whole "
        f"fits of {20 if quick else 100} sweeps with prediction='average', the chain "
        "alone: the refit of prediction='refit' after it, 0.5-2.0 % of a fit at the "
        f"defaults (section slda_prediction), is not a sweep; median of {rounds} "
        "alternating fits of each; loaded machine):\n\n"
        + markdown_table(["GibbsSLDAClassifier", "tomotopy SLDAModel", "ratio"],
                         [[f"{ours_rate:,.0f}", f"{tp_rate:,.0f}", f"{ours_rate / tp_rate:.2f}x"]])
    )
    print(body, flush=True)
    write_section("slda", "GibbsSLDAClassifier on 20 Newsgroups (binary task)", body)
    return {"binary accuracy (target 0.81)": round(float(np.mean(acc["refit"])), 4),
            "throughput vs tomotopy SLDA": round(ours_rate / tp_rate, 2)}


def fit_timed(estimator, X, y):
    """Fit and its seconds, after a two-sweep fit of a clone on a few
    documents of every class (loads or compiles the kernels, which a user's
    second fit would not pay again)."""
    from sklearn.base import clone

    _, first = np.unique(y, return_index=True)
    few = np.concatenate([first + i for i in range(5)])
    few = few[few < X.shape[0]]
    clone(estimator).set_params(max_iter=2, burn_in=1).fit(X[few], np.asarray(y)[few])
    t0 = time.perf_counter()
    estimator.fit(X, y)
    return estimator, time.perf_counter() - t0


def class_topics(clf, vocab, target_names, n_words=6):
    """For each class: the shared topic with the largest weight (weights
    centered over the classes, as the softmax sees only differences), the
    weight, and the topic's top words."""
    weights = clf.coef_ - clf.coef_.mean(axis=0)
    rows = []
    for j, name in enumerate(target_names):
        k = int(np.argmax(weights[j]))
        top = np.argsort(-clf.components_[k])[:n_words]
        rows.append([name, str(k), f"{weights[j, k]:+.1f}", " ".join(vocab[top])])
    return markdown_table(["class", "topic", "weight", "top words"], rows)


def subsets(quick=False, c=16.0, n_topics=20, cap=None, max_iter=None):
    """Multi-class subsets: multinomial vs one-vs-rest vs pipelines (``cap``:
    at most that many training documents per class; ``max_iter``: sweeps,
    half of them burn-in; None: the defaults)."""
    from sklearn_pgtm import GibbsSLDAClassifier

    names = list(SUBSETS)[1:2] if quick else list(SUBSETS)
    if quick:
        cap, max_iter = 150, 30
    sweeps = dict(max_iter=max_iter, burn_in=max_iter // 2) if max_iter else {}
    rows, details, ratios = [], [], []
    for name in names:
        X_train, y_train, X_test, y_test, vocab, target_names = load(SUBSETS[name], cap)
        results = {}
        for mode in ("multinomial", "ovr"):
            clf, seconds = fit_timed(GibbsSLDAClassifier(
                n_topics, c=c, multi_class=mode, random_state=0, n_jobs=1, **sweeps),
                X_train, y_train)
            results[mode] = (clf.score(X_test, y_test), seconds)
            if mode == "multinomial":
                details.append(f"**{name}**, multinomial model: the shared topic with the "
                               "largest weight of each class\n\n"
                               + class_topics(clf, vocab, target_names))
            print(name, mode, results[mode], flush=True)
        t0 = time.perf_counter()
        lda = lda_logreg(X_train, y_train, X_test, y_test, n_topics, 0)
        results["lda"] = (lda, time.perf_counter() - t0)
        t0 = time.perf_counter()
        results["lr"] = (logreg_counts(X_train, y_train, X_test, y_test),
                         time.perf_counter() - t0)
        ratios.append(results["ovr"][1] / results["multinomial"][1])
        rows.append([f"{name}: {X_train.shape[0]} / {X_test.shape[0]} docs"]
                    + [f"{results[m][0]:.4f} ({results[m][1]:.0f} s)"
                       for m in ("multinomial", "ovr", "lda", "lr")]
                    + [f"{ratios[-1]:.1f}x"])
        print(rows[-1], flush=True)
    settings = ", ".join(
        ([f"max_iter={max_iter}, burn_in={max_iter // 2}"] if max_iter else [])
        + ([f"at most {cap} training documents per class"] if cap else [])
        + ["the other parameters at their defaults"])
    body = (
        f"GibbsSLDAClassifier with K = {n_topics}, c = {c:g} for both modes, {settings}, "
        "random_state=0, one thread (n_jobs=1); LDA + LR: scikit-learn's "
        f"LatentDirichletAllocation (K = {n_topics}, batch, 50 iterations) and "
        "LogisticRegression; LR: LogisticRegression on the raw counts. Test accuracy (fit "
        "seconds, 2-core machine; ours after a two-sweep fit on a few documents that loads "
        "the compiled kernels); the last column is one-vs-rest's fit time over the "
        "multinomial model's.\n\n"
        + markdown_table(["subset: train / test", "multinomial", "one-vs-rest",
                          "LDA + LR", "LR on counts", "ovr time / multinomial time"], rows)
        + "\n\n" + "\n\n".join(details)
    )
    print(body, flush=True)
    write_section("slda_subsets", "GibbsSLDAClassifier: multinomial vs one-vs-rest on "
                  "20 Newsgroups subsets", body)
    return {"subsets: mean ovr time / multinomial time": round(float(np.mean(ratios)), 2)}


def prediction(quick=False, c=16.0, n_topics=20, cap=150, seeds=(0, 1)):
    """Multi-class subsets, both modes at the defaults but K, c and at most
    ``cap`` training documents per class: the test accuracy of the defaults
    (``prediction="refit"``, ``prediction_topics="expected"``) and, on the
    same fits, of ``prediction_topics="inferred"`` and of the weights'
    average over the chain scoring the inferred frequencies."""
    from sklearn_pgtm import GibbsSLDAClassifier

    t_start = time.perf_counter()
    names = list(SUBSETS)[1:2] if quick else list(SUBSETS)
    sweeps = dict(max_iter=30, burn_in=15) if quick else {}
    seeds = seeds[:1] if quick else seeds
    rows, changes = [], {"multinomial": [], "ovr": []}
    for name in names:
        X_train, y_train, X_test, y_test, _, _ = load(SUBSETS[name], cap)
        cells = []
        for mode in ("multinomial", "ovr"):
            refit, inferred, average, shares, changed = [], [], [], [], []
            for seed in seeds:
                # warm_start keeps the chain, so that the refit alone can be timed again.
                clf, fit_seconds = fit_timed(GibbsSLDAClassifier(
                    n_topics, c=c, multi_class=mode, random_state=seed, n_jobs=1,
                    warm_start=True, **sweeps), X_train, y_train)
                refit.append(clf.score(X_test, y_test))
                inferred.append(inferred_topics_accuracy(clf, X_test, y_test))
                average.append(average_weights_accuracy(clf, X_test, y_test))
                seconds, change = refit_again(clf, X_test)
                shares.append(seconds / fit_seconds)
                changed.append(change)
                print(name, mode, seed, refit[-1], inferred[-1], average[-1],
                      round(fit_seconds, 1),
                      f"refit {shares[-1]:.1%} of the fit, {change:.2%} changed", flush=True)
            changes[mode] += list(np.subtract(refit, inferred))
            cells += [f"{np.mean(refit):.4f}", f"{np.mean(inferred):.4f}",
                      f"{np.mean(refit) - np.mean(inferred):+.4f}", f"{np.mean(average):.4f}",
                      f"{np.mean(shares):.1%}", f"{np.mean(changed):.2%}"]
        rows.append([f"{name}: {X_train.shape[0]} / {X_test.shape[0]} docs"] + cells)
    summary = [f"- {mode}: mean change {np.mean(v):+.4f} over {len(v)} fits, "
               f"{np.sum(np.array(v) > 0)} better / {np.sum(np.array(v) < 0)} worse"
               for mode, v in changes.items()]
    body = (
        f"GibbsSLDAClassifier with K = {n_topics}, c = {c:g}, at most {cap} training "
        "documents per class, "
        + ("max_iter=30, burn_in=15, " if quick else "")
        + "the other parameters at their defaults, one thread, random_state "
        f"{', '.join(map(str, seeds))}: test accuracy (mean over the seeds) of the "
        "defaults (prediction='refit', prediction_topics='expected': the weights refitted "
        "to the training documents' expected topic frequencies, each token's topic "
        "probabilities given its word alone) and, on the same fits, of "
        "prediction_topics='inferred' (the weights refitted to the topic frequencies "
        "inferred by Gibbs sweeps, as a new document's; the default before 'expected') and "
        "of prediction='average' with the inferred frequencies (the weights' average over "
        "the chain, from trace_; the default before the refit). The refit's share of the "
        "fit: seconds of the refit step alone at the defaults (the training documents' "
        "frequencies and the weights' Gibbs chain, timed again on the kept chain) over the "
        "whole fit's; changed at 10x draws: the share of the test documents whose "
        "predicted class changes when the weights' chain of the refit is ten times longer "
        "(3,000 draws, the first 1,000 left out; the default 300 and 100).\n\n"
        + markdown_table(["subset: train / test", "multinomial: expected", "inferred",
                          "change", "average (inferred)", "refit's share of the fit",
                          "changed at 10x draws", "one-vs-rest: expected", "inferred",
                          "change", "average (inferred)", "refit's share of the fit",
                          "changed at 10x draws"], rows)
        + "\n\nPaired changes (expected - inferred), per fit:\n\n" + "\n".join(summary)
        + f"\n\nRun time {time.perf_counter() - t_start:.0f} s. {load_note()}"
    )
    print(body, flush=True)
    write_section("slda_prediction", "GibbsSLDAClassifier: expected against inferred "
                  "topic frequencies on multi-class subsets", body)
    return {f"prediction: mean change {mode}": round(float(np.mean(v)), 4)
            for mode, v in changes.items()}


def refit_with(clf, draws, burn_in):
    """The weights of ``prediction="refit"``'s step, run again on a fit made
    with ``warm_start=True`` (which keeps the chain) with ``draws`` weight
    draws, the first ``burn_in`` left out of their mean, and its seconds."""
    from sklearn_pgtm import _slda

    runs = _slda._model_runs(clf._run)
    start = _slda._average_weights(runs)
    saved = _slda.N_WEIGHT_DRAWS, _slda.WEIGHT_BURN_IN
    _slda.N_WEIGHT_DRAWS, _slda.WEIGHT_BURN_IN = draws, burn_in
    try:
        t0 = time.perf_counter()
        coef = clf._refit_weights(runs, start)
        return coef, time.perf_counter() - t0
    finally:
        _slda.N_WEIGHT_DRAWS, _slda.WEIGHT_BURN_IN = saved


def predict_with(clf, coef, X):
    """The classes ``clf`` predicts for X with weights ``coef``."""
    fitted = clf.coef_
    clf.coef_ = coef
    try:
        return clf.predict(X)
    finally:
        clf.coef_ = fitted


def refit_again(clf, X_test):
    """``prediction="refit"``'s step alone, again: its seconds (the weights
    are the fit's: same seeds) and the share of the test documents whose
    predicted class changes when the weights' chain is ten times longer."""
    from sklearn_pgtm import _slda

    draws, burn_in = _slda.N_WEIGHT_DRAWS, _slda.WEIGHT_BURN_IN
    coef, seconds = refit_with(clf, draws, burn_in)
    assert np.array_equal(coef, clf.coef_), "the refit is not reproducible"
    longer, _ = refit_with(clf, 10 * draws, 10 * burn_in)
    return seconds, float(np.mean(predict_with(clf, longer, X_test) != clf.predict(X_test)))


# (draws, left out) of the refit's weight chain compared by --part refit-draws:
# the default, the default before it, and ten times the default.
REFIT_DRAWS = ((100, 33), (300, 100), (1000, 330))


def refit_draws(quick=False, seeds=(0, 1, 2, 3, 4)):
    """The refit's number of weight draws: on binary pairs (K = 20, c = 25,
    the defaults otherwise) the test accuracy of each setting of
    ``REFIT_DRAWS`` on the same fits and the share of predictions that
    differ from the longest chain's; on all 20 classes (K = 50, two
    threads) the refit's seconds, after a two-sweep chain."""
    from defaults import PAIRS

    from sklearn_pgtm import GibbsSLDAClassifier

    t_start = time.perf_counter()
    pairs = PAIRS[:1] if quick else PAIRS
    seeds = seeds[:1] if quick else seeds
    sweeps = dict(max_iter=30, burn_in=15) if quick else {}
    labels = [f"{d} ({b})" for d, b in REFIT_DRAWS]
    accuracy = {d: [] for d, _ in REFIT_DRAWS}
    changed = {d: [] for d, _ in REFIT_DRAWS[:-1]}
    seconds = {d: [] for d, _ in REFIT_DRAWS}
    rows = []
    for pair in pairs:
        X_train, y_train, X_test, y_test, _, _ = load(pair)
        cells = {d: [] for d, _ in REFIT_DRAWS}
        for seed in seeds:
            clf, _ = fit_timed(GibbsSLDAClassifier(20, c=25.0, random_state=seed,
                                                   warm_start=True, **sweeps),
                               X_train, y_train)
            predicted = {}
            for draws, burn_in in REFIT_DRAWS:
                coef, secs = refit_with(clf, draws, burn_in)
                predicted[draws] = predict_with(clf, coef, X_test)
                cells[draws].append(float(np.mean(predicted[draws] == y_test)))
                accuracy[draws].append(cells[draws][-1])
                seconds[draws].append(secs)
            longest = REFIT_DRAWS[-1][0]
            for draws in changed:
                changed[draws].append(float(np.mean(predicted[draws] != predicted[longest])))
            print(pair, seed, {d: v[-1] for d, v in cells.items()}, flush=True)
        rows.append([" vs ".join(pair)] + [f"{np.mean(cells[d]):.4f}" for d, _ in REFIT_DRAWS])
    acc = {d: np.array(v) for d, v in accuracy.items()}
    default, former, longest = (d for d, _ in REFIT_DRAWS)
    diff = acc[default] - acc[former]
    rows.append(["mean"] + [f"{acc[d].mean():.4f}" for d, _ in REFIT_DRAWS])
    rows.append(["refit seconds (mean)"] + [f"{np.mean(seconds[d]):.2f}"
                                            for d, _ in REFIT_DRAWS])
    lines = [
        f"- {default} against {former} draws, per fit: mean {diff.mean():+.4f}, from "
        f"{diff.min():+.4f} to {diff.max():+.4f}; {np.sum(diff > 0)} better, "
        f"{np.sum(diff < 0)} worse, {np.sum(diff == 0)} equal."]
    lines += [f"- predictions that differ from {longest} draws' with {d}: mean "
              f"{np.mean(v):.2%}, at most {np.max(v):.2%}." for d, v in changed.items()]
    twenty_rows = [] if quick else twenty_refit_seconds()
    body = (
        "Binary pairs (those of defaults.py): GibbsSLDAClassifier(20, c=25, "
        "random_state=seed) "
        + ("with max_iter=30, burn_in=15 " if quick else "at its other defaults ")
        + f"(seeds {', '.join(map(str, seeds))}), one fit per pair and seed; on each fit "
        "the refit's weight chain is run again with each number of draws (the first ones "
        "left out of the mean, in brackets) from the same random streams, and the test "
        "accuracy (expected topic frequencies, the default) is measured with each. "
        f"{default} is the default, {former} the default before it.\n\n"
        + markdown_table(["pair"] + [f"{x} draws" for x in labels], rows)
        + "\n\n" + "\n".join(lines)
    )
    if twenty_rows:
        body += (
            "\n\nAll 20 classes (11,314 training documents, K = 50, n_jobs=2, c = 1024 "
            "multinomial and 64 one-vs-rest, the values chosen in section "
            "slda_twenty_alpha_auto): seconds of the refit step alone, after a two-sweep "
            "chain (the documents, K and the draws set its cost, not the chain's length), "
            "seed 0.\n\n"
            + markdown_table(["multi_class"] + [f"{x} draws, s" for x in labels],
                             twenty_rows))
    body += f"\n\nRun time {time.perf_counter() - t_start:.0f} s. {load_note()}"
    print(body, flush=True)
    write_section("slda_refit_draws",
                  "GibbsSLDAClassifier: the refit's number of weight draws", body)
    return {f"refit draws: mean accuracy with {d}": round(float(acc[d].mean()), 4)
            for d, _ in REFIT_DRAWS}


def refit_start(quick=False, seeds=(0, 1, 2), cs=(25.0, 1024.0)):
    """The refit's chain started at the posterior mode of the weights
    against the fit's average weights, on the same fits (binary pairs at K =
    20 and the package's religion messages at K = 10, the defaults
    otherwise): test accuracy, test log-loss, and the gap of the refitted
    weights' log posterior to the mode's (nats)."""
    from unittest import mock

    from defaults import PAIRS
    from scipy.special import log_expit
    from sklearn.metrics import log_loss

    from sklearn_pgtm import GibbsSLDAClassifier, _slda
    from sklearn_pgtm.datasets import load_religion_corpus

    t_start = time.perf_counter()
    tasks = [(" vs ".join(pair), 20, lambda pair=pair: load(pair)[:4])
             for pair in (PAIRS[:1] if quick else PAIRS)]
    religion = "religion messages (package data), K = 10"
    tasks.append((religion, 10, lambda: load_religion_corpus(return_X_y=True)))
    seeds = seeds[:1] if quick else seeds
    sweeps = dict(max_iter=30, burn_in=15) if quick else {}
    starts = {"mode": _slda._weights_mode, "average": lambda zbar, kappa, nu2, start: start}
    keys = (("acc", ".4f"), ("loss", ".4f"), ("gap", ",.1f"))
    rows, pair_means = [], {(c, s): {k: [] for k, _ in keys} for c in cs for s in starts}

    def row(c, name, cells):
        return [f"{c:g}", name] + [f"{np.mean(cells[s][k]):{fmt}}" for s in starts
                                   for k, fmt in keys]

    for c in cs:
        for name, n_topics, load_task in tasks:
            X_train, X_test, y_train, y_test = _split_order(load_task(), name == religion)
            cells = {s: {k: [] for k, _ in keys} for s in starts}
            for seed in seeds:
                clf, _ = fit_timed(GibbsSLDAClassifier(n_topics, c=c, random_state=seed,
                                                       warm_start=True, **sweeps),
                                   X_train, y_train)
                runs = _slda._model_runs(clf._run)
                tokens = runs[0].chain.tokens
                zbar = clf._prediction_frequencies(tokens.doc_ptr, tokens.word_ids)[0]
                kappa = runs[0].kappa
                y, has_tokens = (kappa > 0).astype(float), kappa != 0

                def neg_log_post(eta):
                    omega, yy = zbar[has_tokens] @ eta, y[has_tokens]
                    return (-(c * (yy * log_expit(omega) + (1 - yy) * log_expit(-omega))).sum()
                            + eta @ eta / (2 * clf.prior_variance))

                average = _slda._average_weights(runs)
                mode = _slda._weights_mode(zbar, kappa, clf.prior_variance, average[0])
                fitted = clf.coef_
                for start, start_rule in starts.items():
                    with mock.patch.object(_slda, "_weights_mode", start_rule):
                        clf.coef_ = clf._refit_weights(runs, average)
                    try:
                        proba = clf.predict_proba(X_test)
                        gap = float(neg_log_post(clf.coef_[0]) - neg_log_post(mode))
                    finally:
                        clf.coef_ = fitted
                    predicted = clf.classes_[np.argmax(proba, axis=1)]
                    for key, value in (("acc", float(np.mean(predicted == y_test))),
                                       ("loss", float(log_loss(y_test, proba,
                                                               labels=clf.classes_))),
                                       ("gap", gap)):
                        cells[start][key].append(value)
                        if name != religion:
                            pair_means[c, start][key].append(value)
                print(c, name, seed, {s: {k: v[-1] for k, v in d.items()}
                                      for s, d in cells.items()}, flush=True)
            if name == religion:
                rows.append(row(c, "mean of the pairs", {s: pair_means[c, s] for s in starts}))
            rows.append(row(c, name, cells))
    body = (
        "GibbsSLDAClassifier(K, c=c, random_state=seed) "
        + ("with max_iter=30, burn_in=15 " if quick else "at its other defaults ")
        + f"(seeds {', '.join(map(str, seeds))}) on the binary pairs of defaults.py "
        "(K = 20) and on the package's religion messages (`load_religion_corpus`, its "
        "train / test split, K = 10), one fit per task, seed and c; on each fit the refit's "
        "weight chain (100 draws, the first 33 left out) is run from the posterior mode of "
        "the weights given the prediction frequencies (the default) and from the fit's "
        "average weights (before 2026-11-30), the same random streams. Accuracy and "
        "log-loss on the test documents; gap: the refitted weights' negative log posterior "
        "minus the mode's, in nats (a draw from the posterior sits about K / 2 above it, "
        "the mean of draws far less); means over the seeds.\n\n"
        + markdown_table(["c", "task"] + [f"{s}: {k}" for s in starts
                                          for k in ("accuracy", "log-loss", "gap")], rows)
        + f"\n\nRun time {time.perf_counter() - t_start:.0f} s. {load_note()}")
    print(body, flush=True)
    write_section("slda_refit_start", "GibbsSLDAClassifier: where the refit's chain starts",
                  body)
    return {f"refit start c={c:g}: {s} accuracy / log-loss (pairs)": (
        round(float(np.mean(pair_means[c, s]["acc"])), 4),
        round(float(np.mean(pair_means[c, s]["loss"])), 4)) for c in cs for s in starts}


def _split_order(data, religion):
    """(X_train, X_test, y_train, y_test) from ``load``'s first four
    (X_train, y_train, X_test, y_test) or the religion loader's order."""
    if religion:
        return data
    X_train, y_train, X_test, y_test = data
    return X_train, X_test, y_train, y_test


def twenty_refit_seconds():
    """Rows (mode, seconds of the refit per setting of REFIT_DRAWS) on all
    20 classes, K = 50, two threads, after a two-sweep chain."""
    from sklearn_pgtm import GibbsSLDAClassifier

    X, y, _, _, _, _ = load(None)
    rows = []
    for mode, c in (("multinomial", 1024.0), ("ovr", 64.0)):
        clf, _ = fit_timed(GibbsSLDAClassifier(50, c=c, multi_class=mode, max_iter=2,
                                               burn_in=1, n_jobs=2, random_state=0,
                                               warm_start=True), X, y)
        cells = [f"{refit_with(clf, d, b)[1]:.1f}" for d, b in REFIT_DRAWS]
        rows.append([mode] + cells)
        print(mode, cells, flush=True)
    return rows


# Powers of 4. The grid ran to 256 until the multinomial model chose its end
# (validation 0.8608 / 0.8727 / 0.8847 at 16 / 64 / 256): a choice at the end
# of a grid says the grid is too short, so it goes on to 1024.
C_GRID = (16.0, 64.0, 256.0, 1024.0)


def choose_c(mode, X, y, params, grid=C_GRID):
    """c of the best accuracy on a stratified 20 % validation split of the
    training documents (models fitted on the other 80 %); the rows of the
    grid (c, validation accuracy, fit seconds)."""
    from sklearn.model_selection import train_test_split

    from sklearn_pgtm import GibbsSLDAClassifier

    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2, stratify=y,
                                                  random_state=0)
    rows = []
    for c in grid:
        clf, seconds = fit_timed(GibbsSLDAClassifier(c=c, multi_class=mode, **params),
                                 X_fit, y_fit)
        rows.append((c, clf.score(X_val, y_val), seconds))
        print(mode, rows[-1], flush=True)
    return max(rows, key=lambda r: r[1])[0], rows


def twenty(quick=False, n_topics=50, max_iter=40, c_ovr=64.0, c_multinomial=64.0,
           modes=("multinomial", "ovr"), validate=True, seeds=(0, 1, 2), alpha=5.6):
    """All 20 classes, K = 50, two threads: multinomial vs one-vs-rest, each
    with c chosen on a validation split (``validate``, with the first seed)
    or at the c given; then fitted on all the training documents with each
    of ``seeds``. ``alpha``: the document-topic prior of both modes, the
    paper's 5.6 or the default "auto"."""
    from sklearn_pgtm import GibbsSLDAClassifier

    X_train, y_train, X_test, y_test, vocab, target_names = load(None)
    params = dict(n_components=n_topics, doc_topic_prior=alpha, max_iter=max_iter,
                  burn_in=max_iter // 2, random_state=seeds[0], n_jobs=2)
    results, rows, validation = {}, [], []
    for mode, c in (("multinomial", c_multinomial), ("ovr", c_ovr)):
        if mode not in modes:
            continue
        if validate:
            c, grid_rows = choose_c(mode, X_train, y_train, params)
            validation += [[mode, f"{g:g}", f"{acc:.4f}", f"{sec:.0f}"]
                           for g, acc, sec in grid_rows]
        accuracies, times, models = [], [], []
        for seed in seeds:
            clf, seconds = fit_timed(GibbsSLDAClassifier(c=c, multi_class=mode,
                                                         **{**params, "random_state": seed}),
                                     X_train, y_train)
            # A cost run (fewer than 10 sweeps) is not scored: its accuracy
            # means nothing and one-vs-rest's prediction takes longer than its
            # fit.
            accuracies.append(clf.score(X_test, y_test) if max_iter >= 10 else float("nan"))
            times.append(seconds)
            models.append(clf)
            print(mode, seed, accuracies[-1], seconds, flush=True)
        results[mode] = (float(np.mean(accuracies)), float(np.mean(times)), models[0])
        rows.append([mode, f"{c:g}", " / ".join(f"{a:.4f}" for a in accuracies),
                     f"{np.mean(accuracies):.4f} ± {np.std(accuracies, ddof=1):.4f}"
                     if len(seeds) > 1 else f"{accuracies[0]:.4f}",
                     " / ".join(f"{t:.0f}" for t in times)])
        print(rows[-1], flush=True)
    ratio = (results["ovr"][1] / results["multinomial"][1] if len(results) == 2
             else float("nan"))
    seed_list = ", ".join(str(s) for s in seeds)
    prior = ("alpha = 5.6 (the paper's multi-class alpha)" if alpha == 5.6 else
             "doc_topic_prior=\"auto\" (the default: alpha estimated in each chain)"
             if alpha == "auto" else f"alpha = {alpha}")
    body = (
        f"All 20 classes ({X_train.shape[0]} train / {X_test.shape[0]} test documents, "
        f"{X_train.shape[1]} words), K = {n_topics}, {prior}, {max_iter} sweeps (burn-in "
        f"{max_iter // 2}), n_jobs=2, seeds {seed_list} "
        "(2-core machine; fit seconds after a two-sweep fit on a few documents that loads "
        "the compiled kernels). "
        + (f"For each mode c is chosen from {', '.join(f'{g:g}' for g in C_GRID)} by the "
           "accuracy on a stratified 20 % validation split of the training documents "
           f"(models fitted on the other 80 %, seed {seeds[0]}), then the model is refitted "
           "on all of them with each seed. "
           if validate else
           f"c given (not chosen on a validation split in this run): {c_multinomial:g} for "
           f"the multinomial model, {c_ovr:g} for one-vs-rest. ")
        + (f"One-vs-rest's mean fit time over the multinomial model's: {ratio:.1f}x."
           if len(results) == 2 else
           f"Only {', '.join(results)} fitted in this run (--twenty-modes).")
        + "\n\n"
        + markdown_table(["multi_class", "c", "test accuracy per seed", "mean ± sd",
                          "fit seconds per seed"], rows)
    )
    if validation:
        body += ("\n\nValidation split (the chosen c has the best accuracy):\n\n"
                 + markdown_table(["multi_class", "c", "validation accuracy",
                                   "fit seconds (80 %)"], validation))
    if "multinomial" in results:
        body += ("\n\nMultinomial model: the shared topic with the largest weight of each "
                 "class\n\n" + class_topics(results["multinomial"][2], vocab, target_names))
    print(body, flush=True)
    # A short run (--twenty-iter) measures the cost per sweep: its own section.
    name, title = "slda_twenty", "all 20 Newsgroups classes"
    if max_iter != 40:
        name, title = f"slda_twenty_{max_iter}", f"all 20 classes, {max_iter} sweeps (cost)"
    if alpha != 5.6:
        name, title = f"{name}_alpha_{alpha}", f"{title}, doc_topic_prior={alpha!r}"
    write_section(name, f"GibbsSLDAClassifier: multinomial vs one-vs-rest on {title}", body)
    return {**{f"20 classes (alpha {alpha}): {mode} accuracy": round(float(r[0]), 4)
               for mode, r in results.items()},
            "20 classes: ovr time / multinomial time": round(float(ratio), 2)}


def main(quick=False, part="all", cap=None, max_iter=None, modes=("multinomial", "ovr"),
         twenty_iter=40, validate=True, twenty_seeds=(0, 1, 2), twenty_alpha=5.6):
    summary = {}
    if part in ("all", "subsets"):
        summary.update(subsets(quick, cap=cap, max_iter=max_iter))
    if part in ("all", "twenty") and not quick:
        summary.update(twenty(max_iter=twenty_iter, modes=modes, validate=validate,
                              seeds=twenty_seeds, alpha=twenty_alpha))
    if part in ("all", "binary"):
        summary.update(binary(quick))
    if part in ("all", "prediction"):
        summary.update(prediction(quick))
    if part in ("all", "refit-draws"):
        summary.update(refit_draws(quick))
    if part in ("all", "refit-start"):
        summary.update(refit_start(quick))
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["all", "subsets", "twenty", "binary",
                                           "prediction", "refit-draws", "refit-start"],
                        default="all")
    parser.add_argument("--max-docs-per-class", type=int, default=None,
                        help="subsets: at most this many training documents per class")
    parser.add_argument("--max-iter", type=int, default=None,
                        help="subsets: sweeps per fit (half burn-in); default: the defaults")
    parser.add_argument("--twenty-modes", nargs="+", choices=["multinomial", "ovr"],
                        default=["multinomial", "ovr"],
                        help="twenty: the multi_class modes to fit")
    parser.add_argument("--twenty-iter", type=int, default=40,
                        help="twenty: sweeps per fit (a short run measures the cost per sweep)")
    parser.add_argument("--twenty-fixed-c", action="store_true",
                        help="twenty: c = 64 for both modes instead of a validation split")
    parser.add_argument("--twenty-seeds", nargs="+", type=int, default=[0, 1, 2],
                        help="twenty: seeds of the test fits (c is chosen with the first)")
    parser.add_argument("--twenty-alpha", default="5.6",
                        help="twenty: doc_topic_prior of both modes, a number or 'auto' "
                             "(the default of the estimator); 5.6, the paper's, unless given")
    args = parser.parse_args()
    alpha = args.twenty_alpha if args.twenty_alpha == "auto" else float(args.twenty_alpha)
    print(main(args.quick, args.part, args.max_docs_per_class, args.max_iter,
               tuple(args.twenty_modes), args.twenty_iter, not args.twenty_fixed_c,
               tuple(args.twenty_seeds), alpha))
