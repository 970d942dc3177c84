"""Two threads against one, for every topic model's chain (issue 14).

Each model's chain is timed on all 20 Newsgroups training messages (11,314
documents; the quick mode takes 2,000) with ``n_jobs=1`` and ``n_jobs=2``:
two chains of the same model, each warmed up by a short fit (compilation
included), then continued with ``warm_start=True`` for the timed sweeps; the
fits of the two chains alternate, so that a change of machine load hits both
alike. Rates are token-sweeps per second; the target of issue 14 is at least
1.6x the model's own one-thread speed with two threads. The binary supervised
chain is fitted on "comp.* or sci.*" against the rest; the one-vs-rest
classifier on 4 classes (its chains run side by side in threads, so two
threads should halve its time). Every model at its defaults except
``n_components``, ``max_iter`` and ``burn_in`` (the timed sweeps are after the
burn-in: averaging included).

Usage: ``python benchmarks/threads.py [--quick]``. Run it on a quiet machine:
the measurement needs both cores.
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import twenty_news  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402

N_CALLS = 3  # alternated timed fits per chain


def _models(K):
    from sklearn_pgtm import CorrelatedTopicModel, GibbsLDA, GibbsSLDAClassifier

    return [
        ("GibbsLDA", lambda **kw: GibbsLDA(K, **kw), "none"),
        ("GibbsSLDAClassifier, binary", lambda **kw: GibbsSLDAClassifier(K, c=25.0, **kw),
         "binary"),
        ("GibbsSLDAClassifier, 4 classes one-vs-rest",
         lambda **kw: GibbsSLDAClassifier(K, c=25.0, **kw), "four"),
        ("CorrelatedTopicModel, logistic_normal",
         lambda **kw: CorrelatedTopicModel(K, link="logistic_normal", **kw), "none"),
        ("CorrelatedTopicModel, stick_breaking",
         lambda **kw: CorrelatedTopicModel(K, link="stick_breaking", **kw), "none"),
    ]


def _labels(kind, y, names):
    if kind == "binary":
        groups = np.array([n.split(".")[0] in ("comp", "sci") for n in names])
        return groups[y].astype(int)
    if kind == "four":
        return np.array([n.split(".")[0] for n in names])[y]
    return None


def _chain(make, X, y, n_jobs, n_warm):
    """A chain after ``n_warm`` sweeps; ``run(n)`` continues it by ``n`` sweeps
    and returns the seconds they took."""
    model = make(max_iter=n_warm, burn_in=0, warm_start=True, n_jobs=n_jobs, random_state=0)
    model.fit(X) if y is None else model.fit(X, y)

    def run(n):
        model.set_params(max_iter=n)
        t0 = time.perf_counter()
        model.fit(X) if y is None else model.fit(X, y)
        return time.perf_counter() - t0

    return run


def main(quick=False):
    warnings.simplefilter("ignore")
    data = twenty_news()
    X, y_all, names = data["X_train"], data["y_train"], data["target_names"]
    if quick:
        X, y_all = X[:2000], y_all[:2000]
    K = 20 if quick else 50
    n_sweeps = 2 if quick else 10
    n_tokens = int(X.sum())
    load_before = os.getloadavg()
    rows, summary = [], {}
    for name, make, kind in _models(K):
        y = _labels(kind, y_all, names)
        chains = {j: _chain(make, X, y, j, 2) for j in (1, 2)}
        seconds = {1: 0.0, 2: 0.0}
        for _ in range(N_CALLS):
            for j in (1, 2):
                seconds[j] += chains[j](n_sweeps)
        rate = {j: n_tokens * n_sweeps * N_CALLS / seconds[j] for j in (1, 2)}
        speedup = rate[2] / rate[1]
        rows.append([name, f"{rate[1] / 1e6:.2f}", f"{rate[2] / 1e6:.2f}", f"{speedup:.2f}x",
                     "yes" if speedup >= 1.6 else "no"])
        summary[name] = round(speedup, 2)
        print(rows[-1], flush=True)
    load_after = os.getloadavg()
    body = (
        f"20 Newsgroups training messages: {X.shape[0]} documents, {X.shape[1]} words, "
        f"{n_tokens} tokens; K = {K}; {n_sweeps} sweeps per timed fit, {N_CALLS} fits per "
        "chain, the two chains' fits alternated, after a 2-sweep warm-up fit "
        "(compilation included). Million token-sweeps per second. Target: two threads "
        "at least 1.6x one.\n\n"
        + markdown_table(["model", "1 thread", "2 threads", "speed-up", ">= 1.6x"], rows)
        + f"\n\nLoad average (1, 5, 15 min) before: {load_before[0]:.2f}, {load_before[1]:.2f}, "
        f"{load_before[2]:.2f}; after: {load_after[0]:.2f}, {load_after[1]:.2f}, "
        f"{load_after[2]:.2f}.\n"
    )
    write_section("threads", "Threads: two against one, every topic model", body)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    print(main(quick=parser.parse_args().quick))
