"""Does the ConvergenceWarning of a fit at the defaults mean that more sweeps help?

Every topic model of the package warns (``ConvergenceWarning``) when its
log-likelihood trace still rises over the trace's second half
(``sklearn_pgtm._base.warn_if_trending``: a trend z-score above 4 and a rise
of the fitted line over that half above a threshold in nats per token). This
benchmark fits each model at its defaults (only ``n_components`` and
``random_state`` set) on the corpora of ``defaults.py --part peers`` but all
of 20 Newsgroups, records the trend statistics of the trace's second half
and the held-out document-completion perplexity, then follows the warning's
advice: the fit is continued (``warm_start``) by as many sweeps again
(EmpiricalBayesLDA, which has no ``warm_start``: refitted with twice
``n_final_iter``), and the perplexity is measured again. A warning is worth
its noise when the longer chain's perplexity is materially lower. Shorter
chains (a fifth of the default sweeps) give the other side: fits that have
not converged. GibbsSLDAClassifier (``c`` and K at their defaults) is fitted
the same way on the corpus of ``make demo`` (the embedded religion messages,
seeds 0-2), its test accuracy before and after the continuation.

``--part chains``: do four chains at the defaults agree on a real corpus,
the check the user guide's workbench page shows
(``sklearn_pgtm.diagnostics.run_chains``, then ``summary``)? GibbsLDA (K =
20) at its default 1,000 sweeps and at 4,000, and GibbsSLDAClassifier (K =
20, c = 25) at its defaults, on the embedded religion messages, 4 chains
(random_state 0, two threads): the summary's verdict, R-hat of the
log-likelihood, the topics' match between chains, and each chain's mean
log-likelihood over its kept half with its held-out perplexity (test
messages; the classifier's test accuracy as well). Own section
(convergence_chains), about 3 minutes.

Usage: python benchmarks/convergence.py [--quick] [--workers N] [--part chains]
"""

import argparse
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpora import document_completion  # noqa: E402
from _results import load_note, markdown_table, write_section  # noqa: E402

SEED = 0
SECTION = "convergence_warning"


def corpora(quick):
    from defaults import topic_corpora

    return [c for c in topic_corpora(quick) if "20NG all" not in c.name]


def settings(quick):
    """(label, estimator name, parameters) of the fits: every model at its
    defaults, and GibbsLDA and the logistic-normal correlated model with a
    fifth of their default sweeps."""
    out = [
        ("GibbsLDA", "GibbsLDA", {}),
        ("CTM logistic-normal", "CorrelatedTopicModel", {}),
        ("CTM stick-breaking", "CorrelatedTopicModel", {"link": "stick_breaking"}),
        ("EmpiricalBayesLDA", "EmpiricalBayesLDA", {}),
        ("GibbsLDA, 200 sweeps", "GibbsLDA", {"max_iter": 200, "burn_in": 100}),
        ("CTM logistic-normal, 200 sweeps", "CorrelatedTopicModel",
         {"max_iter": 200, "burn_in": 150}),
    ]
    if quick:
        out = [(label, name, dict(params, max_iter=60, burn_in=30))
               if name != "EmpiricalBayesLDA" else (label, name, dict(params, burn_in=30))
               for label, name, params in out[:4]]
    return out


def _fit(model, *data):
    """Fit, returning the messages of the ConvergenceWarnings it raised."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(*data)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def _fit_and_measure(model, data, n_tokens, score, suffix=""):
    """Fit ``model`` on ``data`` (or continue it); its seconds, the trend
    z-score and fitted rise per token of the second half of the trace the
    warning judges, the warnings, ``score(model)`` and the mean log-likelihood
    per token over the trace's last tenth, under keys ending in ``suffix``."""
    from sklearn_pgtm._base import fitted_rise, trend_z_score

    t0 = time.perf_counter()
    messages = _fit(model, *data)
    seconds = time.perf_counter() - t0
    trace = np.asarray(model._trend_trace(), dtype=np.float64)
    half = trace[trace.shape[0] // 2:]
    out = {"seconds": seconds, "z": trend_z_score(half),
           "rise": fitted_rise(half) / n_tokens, "warned": _kind(messages),
           "score": score(model),
           "tail": trace[-max(trace.shape[0] // 10, 1):].mean() / n_tokens}
    return {key + suffix: value for key, value in out.items()}


def run_job(job):
    """One corpus and setting: the fit, its statistics and perplexity, then
    the fit continued (or refitted twice as long) and its perplexity."""
    import sklearn_pgtm

    corpus, (label, name, params) = job
    n_tokens = int(corpus.X_train.sum())
    cls = getattr(sklearn_pgtm, name)
    longer = name == "EmpiricalBayesLDA"
    model = cls(n_components=corpus.n_topics, random_state=SEED, **params)
    if not longer:
        model.set_params(warm_start=True)

    def perplexity(fitted):
        return document_completion(fitted, corpus.X_heldout)

    out = {"corpus": corpus.name, "setting": label}
    out.update(_fit_and_measure(model, (corpus.X_train,), n_tokens, perplexity))
    if longer:
        model = cls(n_components=corpus.n_topics, random_state=SEED,
                    **dict(params, n_final_iter=2 * model.n_final_iter))
    out.update(_fit_and_measure(model, (corpus.X_train,), n_tokens, perplexity, "_more"))
    return out


def run_classifier_job(seed):
    """The classifier on the demo's corpus: the fit at the defaults and the
    fit continued by as many sweeps again, with their test accuracies."""
    from sklearn_pgtm import GibbsSLDAClassifier
    from sklearn_pgtm.datasets import load_religion_corpus

    corpus = load_religion_corpus()
    n_tokens = int(corpus.X_train.sum())
    model = GibbsSLDAClassifier(random_state=seed, warm_start=True)

    def accuracy(fitted):
        return fitted.score(corpus.X_test, corpus.y_test)

    out = {"seed": seed}
    for suffix in ("", "_more"):
        out.update(_fit_and_measure(model, (corpus.X_train, corpus.y_train), n_tokens,
                                    accuracy, suffix))
    return out


def _kind(messages):
    """Short names of the warnings raised: 'trend' (the log-likelihood still
    rises), 'drift' (EmpiricalBayesLDA's chains of h), 'other'."""
    kinds = []
    for m in messages:
        kinds.append("trend" if "still rises" in m else "drift" if "still moving" in m
                     else "other")
    return ", ".join(sorted(set(kinds)))


def body(results, corpus_list, classifier, wall):
    lines = ["Corpora:", ""]
    lines += [f"- {c.describe()}" for c in corpus_list]
    lines += ["", load_note(), ""]
    header = ["corpus", "setting", "fit s", "z", "rise / token", "warns",
              "perplexity", "continued: perplexity", "change", "later rise / token",
              "continued: z", "rise / token", "warns"]
    rows = []
    for r in results:
        change = r["score_more"] / r["score"] - 1
        rows.append([r["corpus"], r["setting"], f"{r['seconds']:.0f}", f"{r['z']:.1f}",
                     f"{r['rise']:.4f}", r["warned"], f"{r['score']:.1f}",
                     f"{r['score_more']:.1f}", f"{100 * change:+.2f} %",
                     f"{r['tail_more'] - r['tail']:+.4f}", f"{r['z_more']:.1f}",
                     f"{r['rise_more']:.4f}", r["warned_more"]])
    lines += [markdown_table(header, rows), ""]
    lines += ["GibbsSLDAClassifier at its defaults on the corpus of `make demo` (the embedded "
              "religion messages, `load_religion_corpus`), continued by 1,000 sweeps:", ""]
    rows = [[r["seed"], f"{r['seconds']:.0f}", f"{r['z']:.1f}", f"{r['rise']:.4f}",
             r["warned"], f"{r['score']:.3f}", f"{r['score_more']:.3f}",
             f"{r['z_more']:.1f}", f"{r['rise_more']:.4f}", r["warned_more"]]
            for r in classifier]
    lines += [markdown_table(["random_state", "fit s", "z", "rise / token", "warns",
                              "test accuracy", "continued: accuracy", "continued: z",
                              "rise / token", "warns"], rows), ""]
    lines.append(
        "z and rise / token: trend z-score and rise of the fitted line per training token "
        "over the second half of the trace the warning judges (EmpiricalBayesLDA: its final "
        "sweeps). Continued: the fit continued with `warm_start` by as many sweeps again "
        "(EmpiricalBayesLDA: refitted with twice `n_final_iter`); change: its held-out "
        "perplexity relative to the fit's; later rise: mean log-likelihood per token over "
        f"the last tenth of the longer trace minus the fit's. Wall time {wall / 60:.0f} min.")
    return "\n".join(lines)


def main(quick=False, workers=2):
    corpus_list = corpora(quick)
    jobs = [(c, s) for s in settings(quick) for c in corpus_list]
    # Longest first: the large corpora and the correlated model.
    jobs.sort(key=lambda j: -(j[0].X_train.sum() * (3 if "CTM" in j[1][0] else 1)
                              * (0.2 if "200" in j[1][0] else 1)))
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        results = []
        for r in pool.map(run_job, jobs):
            print(r, flush=True)
            results.append(r)
        classifier = list(pool.map(run_classifier_job, [0] if quick else [0, 1, 2]))
        print(classifier, flush=True)
    order = {s[0]: i for i, s in enumerate(settings(quick))}
    names = [c.name for c in corpus_list]
    results.sort(key=lambda r: (order[r["setting"]], names.index(r["corpus"])))
    write_section(SECTION, "Does the ConvergenceWarning at the defaults mean more sweeps help?",
                  body(results, corpus_list, classifier, time.perf_counter() - t0))
    warned = [r for r in results if r["warned"]]
    return {"fits": len(results), "warned": len(warned),
            "max gain when warned (%)": max(
                [100 * (1 - r["score_more"] / r["score"]) for r in warned],
                default=float("nan")),
            "classifier fits warned": sum(bool(r["warned"]) for r in classifier)}


def main_chains():
    from sklearn_pgtm import GibbsLDA, GibbsSLDAClassifier
    from sklearn_pgtm.datasets import load_religion_corpus
    from sklearn_pgtm.diagnostics import run_chains

    religion = load_religion_corpus()
    X, y, X_test, y_test = religion.X_train, religion.y_train, religion.X_test, religion.y_test
    runs = [("GibbsLDA(n_components=20)", GibbsLDA(n_components=20), (X,)),
            ("GibbsLDA(n_components=20, max_iter=4000)",
             GibbsLDA(n_components=20, max_iter=4000), (X,)),
            ("GibbsSLDAClassifier(n_components=20, c=25)",
             GibbsSLDAClassifier(n_components=20, c=25.0), (X, y))]
    rows, verdicts = [], []
    for name, estimator, data in runs:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chains = run_chains(estimator, *data, n_chains=4, n_jobs=2, random_state=SEED)
        seconds = time.perf_counter() - t0
        summary = str(chains.summary()).splitlines()
        verdicts += [f"- {name} ({seconds:.0f} s for the four chains):", ""]
        verdicts += [f"  {line}" for line in summary[:5] if line.strip()] + [""]
        for k, fitted in enumerate(chains.estimators_):
            trace = np.asarray(fitted.log_likelihood_trace_)
            kept = trace[fitted.burn_in_:]
            accuracy = (f"{fitted.score(X_test, y_test):.4f}"
                        if hasattr(fitted, "predict") else "-")
            rows.append([name, k, f"{kept.mean():,.0f}", f"{fitted.perplexity(X_test):.1f}",
                         accuracy])
        print(rows[-4:], flush=True)
    body = "\n".join(
        ["Four chains of each estimator at its defaults (but max_iter where stated) on the "
         "embedded religion messages (`load_religion_corpus`: 857 training / 570 test "
         "messages), fitted by `run_chains(..., n_chains=4, n_jobs=2, random_state=0)`. "
         "The first lines of each `summary()`:", ""] + verdicts
        + ["Each chain: mean training log-likelihood over its kept sweeps, held-out "
           "document-completion perplexity of the test messages (`perplexity`), and for the "
           "classifier its test accuracy.", "",
           markdown_table(["estimator", "chain", "kept log-likelihood (mean)",
                           "test perplexity", "test accuracy"], rows)])
    write_section("convergence_chains", "Do four chains at the defaults agree on a real "
                  "corpus?", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--part", choices=["warning", "chains"], default="warning")
    args = parser.parse_args()
    if args.part == "chains":
        main_chains()
    else:
        print(main(quick=args.quick, workers=args.workers))
