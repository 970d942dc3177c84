"""GibbsSLDAClassifier's regularization constant ``c``, its other parameters at
their defaults: which value to make the default.

``c`` weighs each document's label against its words (the label's
log-likelihood counts ``c`` times). The classifier is fitted with each ``c``
of the grid (K = 20, every other parameter at its default) on

- the six binary 20 Newsgroups pairs of ``defaults.PAIRS`` (the pairs of
  issue 12's classifier targets), seeds 0 and 1: the tasks that choose;
- four other pairs (those of section defaults_classifier_other_pairs),
  seed 0, and the sLDA-drawn task of ``defaults.py`` (2,000 documents of
  100 words, 30 % held out), seed 0: tasks that check the choice;
- two multi-class subsets of ``slda_20news.SUBSETS`` (150 training
  documents per class), both ``multi_class`` modes, seed 0;

and reports the test accuracy (bydate test split; the drawn task's held-out
documents), mean over the seeds, per task and ``c``, with the means per group
and the number of tasks on which each ``c`` is within 0.01 of the best.
The fits run in ``--workers`` processes (one thread each); a fit's result
does not depend on which process runs it.

Usage: python benchmarks/slda_c.py [--quick] [--c C ...] [--workers N]

``--quick``: two pairs with 60 documents per class, 100 sweeps, c = 1 and 25
(written to RESULTS-quick.md). The full run is about 100 fits, 40-60 minutes
on two processes of a 2-core machine.
"""

import argparse
import functools
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import twenty_news  # noqa: E402
from _results import load_note, markdown_table, write_section  # noqa: E402
from defaults import PAIRS, _quiet_fit, drawn_classifier_task  # noqa: E402
from slda_20news import SUBSETS  # noqa: E402

C_GRID = (1.0, 5.0, 25.0, 100.0)
OTHER_PAIRS = [
    ("comp.os.ms-windows.misc", "comp.windows.x"),
    ("comp.graphics", "comp.windows.x"),
    ("talk.politics.guns", "talk.politics.misc"),
    ("sci.crypt", "sci.space"),
]
MULTICLASS = ["computers (3)", "mixed (4)"]
MULTICLASS_DOCS = 150
K = 20
GROUPS = ("choose: issue 12's pairs", "check: other pairs", "check: drawn",
          "check: multi-class")


def tasks(quick):
    """(group, name, data key, multi_class, seeds) of every task."""
    if quick:
        return [(GROUPS[0], " vs ".join(p), ("pair", p), "ovr", (0,)) for p in PAIRS[:2]]
    out = [(GROUPS[0], " vs ".join(p), ("pair", p), "ovr", (0, 1)) for p in PAIRS]
    out += [(GROUPS[1], " vs ".join(p), ("pair", p), "ovr", (0,)) for p in OTHER_PAIRS]
    out.append((GROUPS[2], "sLDA-drawn", ("drawn",), "ovr", (0,)))
    out += [(GROUPS[3], f"{name}, {mode}", ("subset", name), mode, (0,))
            for name in MULTICLASS for mode in ("ovr", "multinomial")]
    return out


@functools.lru_cache(maxsize=None)
def task_data(key, quick):
    """(X_train, y_train, X_test, y_test) of a task's data ``key``, loaded once
    per process."""
    if key[0] == "drawn":
        return drawn_classifier_task()
    if key[0] == "pair":
        d = twenty_news(list(key[1]), max_docs_per_class=60 if quick else None)
    else:
        d = twenty_news(SUBSETS[key[1]], max_docs_per_class=MULTICLASS_DOCS)
    return d["X_train"], d["y_train"], d["X_test"], d["y_test"]


def fit_one(job):
    """Fit one classifier: (test accuracy, fit seconds, ConvergenceWarning)."""
    from sklearn_pgtm import GibbsSLDAClassifier

    c, key, multi_class, seed, quick = job
    X_train, y_train, X_test, y_test = task_data(key, quick)
    sweeps = dict(max_iter=100, burn_in=50) if quick else {}
    clf = GibbsSLDAClassifier(n_components=K, c=c, multi_class=multi_class,
                              random_state=seed, **sweeps)
    t0 = time.perf_counter()
    warned = _quiet_fit(clf, (X_train, y_train))
    seconds = time.perf_counter() - t0
    return float(np.mean(clf.predict(X_test) == y_test)), seconds, warned


def run(c_grid, quick, workers):
    """Accuracy per (task name, c): mean over its seeds, with the seconds and
    whether any fit warned."""
    all_tasks = tasks(quick)
    jobs = [(c, key, mode, seed, quick) for c in c_grid
            for _, _, key, mode, seeds in all_tasks for seed in seeds]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        done = dict(zip(jobs, pool.map(fit_one, jobs)))
    results = {}
    for c in c_grid:
        for group, name, key, mode, seeds in all_tasks:
            fits = [done[(c, key, mode, seed, quick)] for seed in seeds]
            results[name, c] = (float(np.mean([f[0] for f in fits])),
                                float(np.mean([f[1] for f in fits])), any(f[2] for f in fits))
            print(f"c = {c:g}  {name:55s} {results[name, c][0]:.4f}", flush=True)
    return all_tasks, results


def report(all_tasks, results, c_grid, t_start):
    rows = []
    for group, name, _, _, seeds in all_tasks:
        accuracies = [results[name, c][0] for c in c_grid]
        best = max(accuracies)
        rows.append([group, name, len(seeds)]
                    + [f"{a:.4f}" + (" *" if a == best else "") for a in accuracies]
                    + [" / ".join(f"{results[name, c][1]:.0f}" for c in c_grid),
                       " / ".join("yes" if results[name, c][2] else "no" for c in c_grid)])
    summary = []
    for group in GROUPS:
        names = [name for g, name, *_ in all_tasks if g == group]
        if not names:
            continue
        best = {name: max(results[name, c][0] for c in c_grid) for name in names}
        summary.append(
            [group, len(names)]
            + [f"{np.mean([results[n, c][0] for n in names]):.4f}" for c in c_grid]
            + [" / ".join(str(sum(results[n, c][0] >= best[n] - 0.01 for n in names))
                          for c in c_grid)])
    c_names = [f"c = {c:g}" for c in c_grid]
    body = [
        f"GibbsSLDAClassifier with K = {K} and each c, every other parameter at its default "
        "(one thread per fit). Test accuracy (20 Newsgroups: bydate train / test; sLDA-drawn: "
        "30 % held out), mean over the seeds of the task; * the best c of the row. The six "
        "pairs of issue 12's targets (seeds 0, 1) choose; four other pairs, the drawn task and "
        f"two multi-class subsets ({MULTICLASS_DOCS} training documents per class, both "
        "modes), seed 0, check. " + load_note(), "",
        markdown_table(["group", "task", "seeds"] + c_names
                       + ["fit s (per c)", "ConvergenceWarning (per c)"], rows), "",
        "Per group: mean accuracy, and the number of tasks on which each c is within 0.01 of "
        "the best c of the task:", "",
        markdown_table(["group", "tasks"] + c_names + ["within 0.01 of the best (per c)"],
                       summary), "",
        f"Wall-clock {time.perf_counter() - t_start:.0f} s.",
    ]
    return "\n".join(body)


def main(quick=False, c_grid=None, workers=2):
    """Run the grid, write section slda_c; returns the mean accuracy per group
    and c."""
    c_grid = tuple(c_grid) if c_grid else ((1.0, 25.0) if quick else C_GRID)
    t_start = time.perf_counter()
    all_tasks, results = run(c_grid, quick, workers)
    write_section("slda_c", "GibbsSLDAClassifier: the default of c",
                  report(all_tasks, results, c_grid, t_start))
    return {f"{group} c={c:g}": round(float(np.mean(
        [results[name, c][0] for g, name, *_ in all_tasks if g == group])), 4)
        for group in GROUPS for c in c_grid if any(g == group for g, *_ in all_tasks)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small pairs, 100 sweeps")
    parser.add_argument("--c", nargs="+", type=float, default=None,
                        help=f"the values of c (default {' '.join(map(str, C_GRID))})")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args()
    print(main(quick=args.quick, c_grid=args.c, workers=args.workers))
