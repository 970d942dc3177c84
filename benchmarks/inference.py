"""Which of ``transform``'s inference sweeps to average.

Every topic model of the package infers a new document's proportions by
``n_infer_iter`` Gibbs sweeps with the topics fixed, started at each word's
most likely topic, and returns the proportions averaged over the last of
them. Until 2026-11-29 that was the second half; since, all but the first
eighth (``sklearn_pgtm._base.INFER_BURN_IN_DIVISOR``). This script fits each
model once at its defaults per corpus and scores ``transform`` with the first
half / quarter / eighth / sixteenth of the sweeps left out of the average
(divisor 2 / 4 / 8 / 16), at the model's default ``n_infer_iter``: the same
sweeps and the same seconds, only the average differs.

Topic models (GibbsLDA, EmpiricalBayesLDA, CorrelatedTopicModel with both
links): the corpora of ``benchmarks/defaults.py --part peers`` but all of 20
Newsgroups, held-out document-completion perplexity, mean of three random
halvings of the held-out documents (split seeds 0, 1, 2). DynamicTopicModel:
the State of the Union validation split of ``benchmarks/dtm.py --part
defaults`` (K = 10), document completion of the validation paragraphs, three
halvings.

Usage: python benchmarks/inference.py [--quick]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import document_completion  # noqa: E402
from _results import load_note, markdown_table, write_section  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

import sklearn_pgtm._base as base  # noqa: E402
from sklearn_pgtm import CorrelatedTopicModel, EmpiricalBayesLDA, GibbsLDA  # noqa: E402

# Divisors of the rule: the first n_infer_iter // divisor sweeps are not averaged.
DIVISORS = (2, 4, 8, 16)
SPLIT_SEEDS = (0, 1, 2)
MODELS = [
    ("GibbsLDA", lambda K: GibbsLDA(K, random_state=0)),
    ("EmpiricalBayesLDA", lambda K: EmpiricalBayesLDA(K, random_state=0)),
    ("CTM logistic-normal", lambda K: CorrelatedTopicModel(K, random_state=0)),
    ("CTM stick-breaking",
     lambda K: CorrelatedTopicModel(K, link="stick_breaking", random_state=0)),
]


def scores_by_rule(score):
    """``score()`` (a list of perplexities, one per halving) under each
    divisor of :data:`DIVISORS`; the package's own divisor restored after."""
    kept = base.INFER_BURN_IN_DIVISOR
    try:
        out = {}
        for divisor in DIVISORS:
            base.INFER_BURN_IN_DIVISOR = divisor
            out[divisor] = float(np.mean(score()))
        return out
    finally:
        base.INFER_BURN_IN_DIVISOR = kept


def quiet_fit(model, *data):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(*data)
    return time.perf_counter() - t0


def row(corpus_name, model_name, n_infer_iter, seconds, means):
    old = means[2]
    return ([corpus_name, model_name, n_infer_iter, f"{seconds:.0f}"]
            + [f"{means[d]:.1f}" + ("" if d == 2 else f" ({100 * (means[d] / old - 1):+.2f} %)")
               for d in DIVISORS])


def topic_rows(quick):
    from defaults import topic_corpora

    corpora = [c for c in topic_corpora(quick) if "20NG all" not in c.name]
    rows = []
    for corpus in corpora:
        for name, factory in MODELS:
            model = factory(corpus.n_topics)
            if quick:
                model.set_params(**({"n_samples": 20, "burn_in": 10, "n_final_iter": 20}
                                    if name == "EmpiricalBayesLDA"
                                    else {"max_iter": 40, "burn_in": 20}))
            seconds = quiet_fit(model, corpus.X_train)
            means = scores_by_rule(lambda: [document_completion(model, corpus.X_heldout, seed=s)
                                            for s in SPLIT_SEEDS])
            rows.append(row(corpus.name, name, model.n_infer_iter, seconds, means))
            print(rows[-1], flush=True)
    return rows, corpora


def dynamic_row(quick):
    """DynamicTopicModel at its defaults on the State of the Union validation
    split of benchmarks/dtm.py --part defaults."""
    from dtm import K_SOTU, Protocol, normalized, validation_split

    from sklearn_pgtm import DynamicTopicModel

    X, t_fit, X_val, t_val, n_slices = validation_split(quick)
    model = DynamicTopicModel(K_SOTU, random_state=0,
                              **({"max_iter": 20} if quick else {}))
    seconds = quiet_fit(model, X, t_fit)
    topics = normalized(model.components_)

    def score():
        values = []
        for s in SPLIT_SEEDS:
            protocol = Protocol(X_val, t_val, n_slices, seed=s)
            theta = model.transform(protocol.observed, protocol.slice)
            values.append(protocol.perplexity(theta, topics)[0])
        return values

    name = f"State of the Union validation split ({X.shape[0]} paragraphs, K = {K_SOTU})"
    return row(name, "DynamicTopicModel", model.n_infer_iter, seconds, scores_by_rule(score))


def main(quick=False):
    t0 = time.perf_counter()
    rows, corpora = topic_rows(quick)
    rows.append(dynamic_row(quick))
    print(rows[-1], flush=True)
    label = " (QUICK run: small corpora, not the measurement)" if quick else ""
    body = (
        "Each model fitted once at its defaults (`random_state=0`), then `transform` with "
        "the proportions averaged over all but the first n_infer_iter // divisor sweeps, "
        "at the model's default `n_infer_iter` (the same sweeps, so the same seconds, for "
        "every divisor). Divisor 2 is the rule before 2026-11-29 (the second half), 8 the "
        "rule since. Held-out document-completion perplexity, mean of three random "
        "halvings of the held-out documents (split seeds 0-2); change against divisor 2. "
        "Corpora of the topic models: benchmarks/defaults.py part peers but all of 20 "
        "Newsgroups: " + "; ".join(c.describe() for c in corpora) + ". The dynamic model: "
        "the validation paragraphs of benchmarks/dtm.py part defaults. One thread. "
        + load_note() + "\n\n"
        + markdown_table(["corpus", "model", "n_infer_iter", "fit s"]
                         + [f"divisor {d}" for d in DIVISORS], rows)
        + f"\n\nRun time {time.perf_counter() - t0:.0f} s."
    )
    print(body)
    write_section("infer_averaging", "Which inference sweeps transform averages" + label, body)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small corpora, a smoke run")
    main(parser.parse_args().quick)
