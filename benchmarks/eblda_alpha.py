"""EmpiricalBayesLDA's ``symmetric_alpha``: one document-topic prior shared by
the topics (the default) or one per topic.

EmpiricalBayesLDA at its defaults with ``symmetric_alpha=True`` and
``False``, seeds 0 and 1, on six corpora of ``benchmarks/defaults.py``
(10 % of the documents held out): three real corpora of its peers table
(432 20 Newsgroups messages, the five comp.* groups, AP; K = 20), the
package's religion corpus (K = 10), 2,000 documents drawn from LDA with a
symmetric alpha (K = 20) and 3,000 short documents drawn from LDA with
the asymmetric alpha 0.05, 0.156, ..., 1.0 (K = 10; the setting where one
alpha per topic should help). Reported: held-out document-completion
perplexity, fit seconds, the estimated alpha (its range over the topics when
there is one per topic) and whether a ConvergenceWarning fired.

Usage: python benchmarks/eblda_alpha.py [--quick] [--workers N]

``--quick``: two small corpora, short chains, one seed (RESULTS-quick.md).
The full run is 24 fits, about 15 minutes on two processes of a 2-core
machine.
"""

import argparse
import functools
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import ap, document_completion, lda_corpus  # noqa: E402
from _results import load_note, markdown_table, write_section  # noqa: E402
from defaults import (  # noqa: E402
    COMP_NEWS,
    SEED,
    SMALL_NEWS,
    _quiet_fit,
    asymmetric_drawn_counts,
    held_out_corpus,
    lda_drawn_counts,
    news_subset,
    religion_counts,
)

SEEDS = (0, 1)
CORPORA = ("20NG 4 groups x 120 (small)", "20NG 5 comp groups", "AP",
           "religion (package data)", "LDA-drawn", "LDA-drawn, asymmetric alpha")


@functools.lru_cache(maxsize=None)
def corpus(name, quick):
    """The held-out corpus ``name`` (a ``defaults.Corpus``), built once per process."""
    if quick:
        if name == "LDA-drawn, asymmetric alpha":
            X = lda_corpus(600, 300, 10, 15, np.linspace(0.05, 1.0, 10), 0.05, SEED + 1)[0]
            return held_out_corpus(name, X, 10)
        return held_out_corpus(name, news_subset(SMALL_NEWS, 40), 10)
    if name == "20NG 4 groups x 120 (small)":
        return held_out_corpus(name, news_subset(SMALL_NEWS, 120), 20)
    if name == "20NG 5 comp groups":
        return held_out_corpus(name, news_subset(COMP_NEWS), 20)
    if name == "AP":
        return held_out_corpus(name, ap()[0], 20)
    if name == "religion (package data)":
        return held_out_corpus(name, religion_counts(), 10)
    if name == "LDA-drawn":
        return held_out_corpus(name, lda_drawn_counts(), 20)
    return held_out_corpus(name, asymmetric_drawn_counts(), 10)


def fit_one(job):
    """(perplexity, seconds, alpha estimate, ConvergenceWarning) of one fit."""
    from sklearn_pgtm import EmpiricalBayesLDA

    name, symmetric, seed, quick = job
    c = corpus(name, quick)
    chain = dict(burn_in=30, n_samples=40) if quick else {}
    model = EmpiricalBayesLDA(n_components=c.n_topics, symmetric_alpha=symmetric,
                              random_state=seed, **chain)
    t0 = time.perf_counter()
    warned = _quiet_fit(model, c.X_train)
    seconds = time.perf_counter() - t0
    perplexity = document_completion(model, c.X_heldout, seed=SEED)
    return perplexity, seconds, np.atleast_1d(model.doc_topic_prior_), warned


def main(quick=False, workers=2):
    """Fit every (corpus, symmetric_alpha, seed), write section eblda_alpha;
    returns the mean change of perplexity of one alpha per topic, per corpus."""
    t_start = time.perf_counter()
    names = CORPORA[-1:] + CORPORA[:1] if quick else CORPORA
    seeds = SEEDS[:1] if quick else SEEDS
    jobs = [(name, symmetric, seed, quick) for name in names for symmetric in (True, False)
            for seed in seeds]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        done = dict(zip(jobs, pool.map(fit_one, jobs)))
    rows, changes = [], {}
    for name in names:
        for symmetric in (True, False):
            fits = [done[name, symmetric, seed, quick] for seed in seeds]
            alphas = np.concatenate([f[2] for f in fits])
            rows.append([name, "True (default)" if symmetric else "False",
                         f"{np.mean([f[0] for f in fits]):.1f}",
                         " / ".join(f"{f[0]:.1f}" for f in fits),
                         f"{alphas.min():.3f}" if symmetric else
                         " / ".join(f"{f[2].min():.3f}-{f[2].max():.3f}" for f in fits),
                         f"{np.mean([f[1] for f in fits]):.1f}",
                         " / ".join("yes" if f[3] else "no" for f in fits)])
        paired = [done[name, False, s, quick][0] / done[name, True, s, quick][0] - 1
                  for s in seeds]
        changes[name] = 100 * float(np.mean(paired))
        print(f"{name}: one alpha per topic {changes[name]:+.2f} % perplexity", flush=True)
    describe = [f"- {corpus(name, quick).describe()}" for name in names]
    body = [
        "EmpiricalBayesLDA at its defaults (only n_components and random_state set) with "
        "symmetric_alpha=True (one alpha shared by the topics, the default) and False (one per "
        f"topic), seeds {', '.join(map(str, seeds))}. Held-out document-completion perplexity "
        "(10 % of the documents held out; lower is better), fit seconds (mean), the estimated "
        "alpha (with one per topic: smallest-largest per seed) and whether the fit raised a "
        "ConvergenceWarning (per seed). " + load_note(), "", "Corpora:", ""] + describe + [
        "", markdown_table(["corpus", "symmetric_alpha", "perplexity (mean)", "per seed",
                            "alpha", "fit s", "ConvergenceWarning"], rows), "",
        "Change of the perplexity with one alpha per topic (mean over the seeds of the paired "
        "change): " + "; ".join(f"{n} {v:+.2f} %" for n, v in changes.items()) + ".",
        f"Wall-clock {time.perf_counter() - t_start:.0f} s."]
    write_section("eblda_alpha", "EmpiricalBayesLDA: one alpha or one per topic",
                  "\n".join(body))
    return {f"{n} change %": round(v, 2) for n, v in changes.items()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two small corpora, short chains")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args()
    print(main(quick=args.quick, workers=args.workers))
