"""Calibration of GibbsSLDAClassifier.predict_proba: are its probabilities
the probabilities of the labels?

Binary tasks drawn from supervised LDA with topics on disjoint blocks of
words (K = 5, 20 words each, topic-word weights Dirichlet(1) within a block,
proportions Dirichlet(0.5), 60 tokens per document): every token's topic is
its word's block, so a document's topic frequencies ``zbar`` follow from its
words and ``sigmoid(eta . zbar)`` is the exact probability of its label
given its words. The weights ``eta`` are N(0, 1) ("weak" labels) or N(0, 9)
("strong"). 300 training and 300 test documents per task, ten tasks per
row (task seed = fit seed).

The classifier is fitted with ``n_components=5`` and each of ``c`` and
``prediction`` of the grid, every other parameter at its default. On the
test documents:

- slope: least-squares slope of the true logit on the predicted logit (1:
  calibrated; below 1: overconfident, the predicted logits too spread);
- spread: sd of the predicted logits over sd of the true ones;
- excess log loss: mean KL(true || predicted) per document, nats (0 for
  the exact probabilities);
- Brier score, and the exact probabilities' Brier score.

Reference row per ``c``: the posterior mode of the weights given the true
``zbar`` of the training documents (L2 logistic regression, no intercept,
``C = c * prior_variance``: the weights' N(0, prior_variance) prior and the
labels' likelihood counted ``c`` times, as in the classifier), the best a
learner that knew the topics could do with the same prior.

Usage: python benchmarks/slda_calibration.py [--quick]

``--quick``: two tasks per row (written to RESULTS-quick.md). The full run
is 120 fits, about 10 minutes on one core.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
from scipy.special import expit, logit
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import load_note, markdown_table, write_section  # noqa: E402

N_TOPICS, WORDS_PER_TOPIC, LENGTH, N_TRAIN, N_TEST = 5, 20, 60, 300, 300
SIGNALS = {"weak": 1.0, "strong": 3.0}
C_GRID = (1, 25)
PREDICTIONS = ("refit", "average", "last")


def binary_task(seed, eta_sd):
    """(X, y, zbar, p) of N_TRAIN + N_TEST documents: counts, labels, true
    topic frequencies and the exact probability of label 1."""
    rng = np.random.default_rng(seed)
    n_docs, n_words = N_TRAIN + N_TEST, N_TOPICS * WORDS_PER_TOPIC
    phi = np.zeros((N_TOPICS, n_words))
    for k in range(N_TOPICS):
        block = slice(k * WORDS_PER_TOPIC, (k + 1) * WORDS_PER_TOPIC)
        phi[k, block] = rng.dirichlet(np.ones(WORDS_PER_TOPIC))
    theta = rng.dirichlet(np.full(N_TOPICS, 0.5), size=n_docs)
    eta = rng.normal(0.0, eta_sd, size=N_TOPICS)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    zbar = np.zeros((n_docs, N_TOPICS))
    for d in range(n_docs):
        per_topic = rng.multinomial(LENGTH, theta[d])
        zbar[d] = per_topic / LENGTH
        for k in np.flatnonzero(per_topic):
            X[d] += rng.multinomial(per_topic[k], phi[k])
    p = expit(zbar @ eta)
    y = (rng.uniform(size=n_docs) < p).astype(int)
    return X, y, zbar, p


def calibration(p_hat, p_true):
    """slope, spread, excess log loss and Brier score of predicted
    probabilities of label 1 against the exact ones (expected over the
    labels)."""
    eps = 1e-9
    p_hat = np.clip(p_hat, eps, 1 - eps)
    a, b = logit(p_hat), logit(p_true)
    kl = p_true * np.log(p_true / p_hat) + (1 - p_true) * np.log((1 - p_true) / (1 - p_hat))
    brier = p_true * (1 - p_hat) ** 2 + (1 - p_true) * p_hat ** 2
    return {"slope": np.polyfit(a, b, 1)[0], "spread": np.std(a) / np.std(b),
            "kl": np.mean(kl), "brier": np.mean(brier)}


def exact_brier(p_true):
    return float(np.mean(p_true * (1 - p_true)))


def row_cells(values):
    """'mean +- standard error' of each measure over the tasks."""
    out = []
    for key in ("slope", "spread", "kl", "brier"):
        v = np.array([x[key] for x in values])
        out.append(f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)):.3f}")
    return out


def main(quick=False):
    from sklearn_pgtm import GibbsSLDAClassifier

    n_tasks = 2 if quick else 10
    prior_variance = GibbsSLDAClassifier().prior_variance
    rows, summary, t_start = [], {}, time.perf_counter()
    for signal, eta_sd in SIGNALS.items():
        tasks = [binary_task(seed, eta_sd) for seed in range(n_tasks)]
        bayes = np.mean([exact_brier(p[N_TRAIN:]) for *_, p in tasks])
        for c in C_GRID:
            results = {name: [] for name in PREDICTIONS + ("reference",)}
            for seed, (X, y, zbar, p) in enumerate(tasks):
                train, test = slice(0, N_TRAIN), slice(N_TRAIN, None)
                for prediction in PREDICTIONS:
                    clf = GibbsSLDAClassifier(N_TOPICS, c=c, prediction=prediction,
                                              random_state=seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf.fit(X[train], y[train])
                    results[prediction].append(
                        calibration(clf.predict_proba(X[test])[:, 1], p[test]))
                reference = LogisticRegression(C=c * prior_variance, fit_intercept=False)
                reference.fit(zbar[train], y[train])
                results["reference"].append(
                    calibration(reference.predict_proba(zbar[test])[:, 1], p[test]))
            for name, values in results.items():
                label = (f"prediction='{name}'" + (" (default)" if name == "refit" else "")
                         if name != "reference" else "reference: MAP weights on true zbar")
                rows.append([signal, c, label] + row_cells(values) + [f"{bayes:.3f}"])
                summary[f"{signal} labels, c={c}, {name}: excess log loss"] = round(
                    float(np.mean([x["kl"] for x in values])), 4)
                print(" | ".join(map(str, rows[-1])), flush=True)
    header = ["labels", "c", "weights", "slope", "spread", "excess log loss",
              "Brier", "exact Brier"]
    body = "\n".join([
        __doc__.split("\n\n", 1)[1].split("Usage:")[0].strip(), "",
        f"{n_tasks} tasks per row; mean ± standard error over the tasks. "
        f"Run time {time.perf_counter() - t_start:.0f} s. {load_note()}", "",
        markdown_table(header, rows)])
    write_section("slda_calibration",
                  "GibbsSLDAClassifier: calibration of predict_proba on drawn tasks", body)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two tasks per row")
    main(quick=parser.parse_args().quick)
