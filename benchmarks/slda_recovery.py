"""Recovery of topics and class weights from corpora drawn from the
multinomial supervised model (``GibbsSLDAClassifier(multi_class=
"multinomial")``), at the defaults (only ``n_components``,
``multi_class`` and ``random_state`` set; ``c = 25``) and with ``c = 1``, the
likelihood the labels are drawn from (the default until 2026-11-29).

Corpora: K topics drawn from Dirichlet(0.05) over V = 50 K words; D
documents of N_d = 100 words with proportions from Dirichlet(0.5); class
weights ``eta_lk ~ N(0, 3^2)`` for C classes; the label of a document is
drawn from ``softmax(eta zbar_d)`` with ``zbar_d`` its topic frequencies.
Fitted topics are matched to the true ones by the Hungarian algorithm on the
L1 distance of the normalized topic-word distributions; the weights,
centered over the classes (the softmax sees only differences), are
correlated with the true centered weights after that matching. Test
accuracy on 1,000 new documents is reported next to the Bayes rule's (the
true eta applied to the true topic frequencies). Target (issue 14): weights
recovered up to the matching (the correlation reported).

Usage: python benchmarks/slda_recovery.py [--quick]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import match_topics  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402


def draw_corpus(phi, eta, n_docs, rng, doc_length=100):
    """Counts, labels and the Bayes rule's predictions of ``n_docs`` documents."""
    n_topics, n_words = phi.shape
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    y = np.zeros(n_docs, dtype=np.int64)
    bayes = np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        z_counts = rng.multinomial(doc_length, rng.dirichlet(np.full(n_topics, 0.5)))
        for k in np.flatnonzero(z_counts):
            X[d] += rng.multinomial(z_counts[k], phi[k])
        scores = eta @ (z_counts / doc_length)
        p = np.exp(scores - scores.max())
        y[d] = rng.choice(len(eta), p=p / p.sum())
        bayes[d] = np.argmax(scores)
    return X, y, bayes


def evaluate(clf, phi, eta):
    """Worst L1 of the matched topics and the correlation of the centered weights."""
    order, distance = match_topics(clf.components_, phi)
    fitted = clf.coef_[:, order]
    fitted = fitted - fitted.mean(axis=0)
    true = eta - eta.mean(axis=0)
    return distance.max(), np.corrcoef(fitted.ravel(), true.ravel())[0, 1]


def main(quick=False):
    from sklearn_pgtm import GibbsSLDAClassifier

    settings = [(5, 3, 1000)] if quick else [(5, 3, 2000), (10, 5, 2000), (20, 10, 4000)]
    seeds = [0] if quick else [0, 1, 2]
    # c: the default (25), then the labels' own likelihood (1).
    c_values = [None] if quick else [None, 1.0]
    rows = []
    for n_topics, n_classes, n_docs in settings:
        for c in c_values:
            for seed in seeds:
                rng = np.random.default_rng(seed)
                phi = rng.dirichlet(np.full(50 * n_topics, 0.05), size=n_topics)
                eta = rng.normal(0.0, 3.0, (n_classes, n_topics))
                X, y, _ = draw_corpus(phi, eta, n_docs, rng)
                X_test, y_test, bayes = draw_corpus(phi, eta, 1000, rng)
                clf = GibbsSLDAClassifier(n_components=n_topics, multi_class="multinomial",
                                          random_state=seed)
                if c is not None:
                    clf.set_params(c=c)
                t0 = time.perf_counter()
                clf.fit(X, y)
                seconds = time.perf_counter() - t0
                worst_l1, r = evaluate(clf, phi, eta)
                label = f"{clf.c:g}" + (" (default)" if c is None else "")
                rows.append([n_topics, n_classes, n_docs, label, seed, f"{worst_l1:.2f}",
                             f"{r:.3f}", f"{clf.score(X_test, y_test):.3f}",
                             f"{np.mean(bayes == y_test):.3f}", f"{seconds:.1f}"])
                print(rows[-1], flush=True)
    body = (
        "Corpora drawn from the model (module docstring of "
        "benchmarks/slda_recovery.py): K topics from Dirichlet(0.05) over 50 K words, "
        "documents of 100 words, eta ~ N(0, 3^2), labels drawn from the softmax. "
        "GibbsSLDAClassifier(n_components=K, multi_class='multinomial', random_state=seed), "
        "every other parameter at its default (c = 25), and the same with c = 1, the "
        "likelihood the labels are drawn from. Worst L1 distance of a matched topic "
        "(Hungarian matching), correlation r of the centered class weights with the true "
        "ones after the matching, test accuracy on 1,000 new documents against the Bayes "
        "rule's (true weights on the true topic frequencies), fit seconds.\n\n"
        + markdown_table(["K", "classes", "documents", "c", "seed", "worst topic L1",
                          "weights r", "test accuracy", "Bayes rule", "fit s"], rows)
    )
    print(body)
    if not quick:
        write_section("slda_recovery", "GibbsSLDAClassifier (multinomial): recovery of "
                      "topics and class weights", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
