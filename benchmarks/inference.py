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

``--part lds``: MultinomialLDS at its defaults, whose ``transform`` and
``predict_proba`` average sweeps over the states by a divisor of their own
(``sklearn_pgtm._lds.INFER_BURN_IN_DIVISOR``, 2: the second half, kept by
this measurement): on data drawn from the model the distance of
``predict_proba`` to the true probabilities, and on those data and the text
the distance of the states to a long run.

``--part few``: with few sweeps (4 to 20, set after the fit), the second
half against all but an eighth with and without the minimum of five sweeps
left out (``sklearn_pgtm._base.INFER_MIN_BURN_IN``), for GibbsLDA and the
correlated model on the comp.* groups of 20 Newsgroups.

``--part sweeps``: how many sweeps, averaged by today's rule. Each topic
model fitted at its defaults on the corpora of part ``topics``, then
``transform`` with ``n_infer_iter`` set after the fit to each of
:data:`SWEEP_GRID` (the dynamic model on its validation split): held-out
perplexity (three halvings) and seconds per ``transform``; the defaults of
``n_infer_iter`` cite it.

Usage: python benchmarks/inference.py [--quick] [--part {topics,few,lds,sweeps}]
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

# Divisors of the rule: the first max(n_infer_iter // divisor, 5) sweeps (half of
# them below ten) are not averaged.
DIVISORS = (2, 4, 8, 16)
DIVISOR_COLUMNS = [f"divisor {d}" for d in DIVISORS]
SPLIT_SEEDS = (0, 1, 2)
MODELS = [
    ("GibbsLDA", lambda K: GibbsLDA(K, random_state=0)),
    ("EmpiricalBayesLDA", lambda K: EmpiricalBayesLDA(K, random_state=0)),
    ("CTM logistic-normal", lambda K: CorrelatedTopicModel(K, random_state=0)),
    ("CTM stick-breaking",
     lambda K: CorrelatedTopicModel(K, link="stick_breaking", random_state=0)),
]


def scores_by_rule(score, module=base):
    """The mean of ``score()`` (a list, one value per halving or fit) under
    each divisor of :data:`DIVISORS`, set as ``module.INFER_BURN_IN_DIVISOR``
    (the topic models' rule in ``_base``, MultinomialLDS's in ``_lds``); the
    package's own divisor restored after."""
    kept = module.INFER_BURN_IN_DIVISOR
    try:
        out = {}
        for divisor in DIVISORS:
            module.INFER_BURN_IN_DIVISOR = divisor
            out[divisor] = float(np.mean(score()))
        return out
    finally:
        module.INFER_BURN_IN_DIVISOR = kept


def quiet_fit(model, *data):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(*data)
    return time.perf_counter() - t0


def row(corpus_name, model_name, n_infer_iter, seconds, means, digits=1):
    old = means[2]
    return ([corpus_name, model_name, n_infer_iter, f"{seconds:.0f}"]
            + [f"{means[d]:.{digits}f}"
               + ("" if d == 2 else f" ({100 * (means[d] / old - 1):+.2f} %)")
               for d in DIVISORS])


def averaging_corpora(quick):
    """The corpora of benchmarks/defaults.py part peers but all of 20 Newsgroups."""
    from defaults import topic_corpora

    return [c for c in topic_corpora(quick) if "20NG all" not in c.name]


def fitted(name, factory, corpus, quick):
    """``(model, fit seconds)``: model ``name`` of :data:`MODELS` fitted at its
    defaults to ``corpus`` (short chains with ``quick``)."""
    model = factory(corpus.n_topics)
    if quick:
        model.set_params(**({"n_samples": 20, "burn_in": 10, "n_final_iter": 20}
                            if name == "EmpiricalBayesLDA"
                            else {"max_iter": 40, "burn_in": 20}))
    return model, quiet_fit(model, corpus.X_train)


def topic_fits(corpora, quick):
    """For each corpus and model of :data:`MODELS`: ``(corpus, model name,
    fitted model, fit seconds, score)``, ``score()`` the held-out perplexity
    of each halving (split seeds :data:`SPLIT_SEEDS`)."""
    for corpus in corpora:
        for name, factory in MODELS:
            model, seconds = fitted(name, factory, corpus, quick)
            yield corpus, name, model, seconds, (
                lambda model=model, corpus=corpus: [
                    document_completion(model, corpus.X_heldout, seed=s) for s in SPLIT_SEEDS])


def topic_rows(quick):
    corpora = averaging_corpora(quick)
    rows = []
    for corpus, name, model, seconds, score in topic_fits(corpora, quick):
        rows.append(row(corpus.name, name, model.n_infer_iter, seconds, scores_by_rule(score)))
        print(rows[-1], flush=True)
    return rows, corpora


def dynamic_fit(quick):
    """DynamicTopicModel fitted at its defaults on the State of the Union
    validation split of benchmarks/dtm.py --part defaults: ``(corpus name,
    model, fit seconds, score)``, ``score()`` the validation perplexity of
    each halving."""
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
    return name, model, seconds, score


def dynamic_row(quick):
    """DynamicTopicModel's row of part ``topics``."""
    name, model, seconds, score = dynamic_fit(quick)
    return row(name, "DynamicTopicModel", model.n_infer_iter, seconds, scores_by_rule(score))


def lds_rows(quick):
    """MultinomialLDS at its defaults: on data drawn from the model (L = 4,
    as in benchmarks/lds.py --parts sampling) the total-variation distance of
    ``predict_proba`` to the true probabilities and, there and on the text,
    the RMS distance of ``transform``'s states to a long run (400 / 200
    sweeps, second half), relative to the states' RMS; means over the fits."""
    from lds import simulate

    import sklearn_pgtm._lds as lds_module
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm.datasets import load_wonderland

    seeds = (0, 1) if quick else (0, 1, 2, 3, 4)
    params = {"max_iter": 40} if quick else {}

    def distance(states, reference):
        return np.sqrt(np.mean((states - reference) ** 2) / np.mean(reference ** 2))

    def long_run(model, X, n):
        kept = lds_module.INFER_BURN_IN_DIVISOR
        lds_module.INFER_BURN_IN_DIVISOR = 2
        try:
            return model.set_params(n_infer_iter=n).transform(X)
        finally:
            lds_module.INFER_BURN_IN_DIVISOR = kept
            model.set_params(n_infer_iter=MultinomialLDS().n_infer_iter)

    rows = []
    fits = []
    for seed in seeds:
        X, pi, _ = simulate(seed, 300 if quick else 1000)
        model = MultinomialLDS(4, random_state=seed, **params)
        seconds = quiet_fit(model, X)
        fits.append((model, X, pi, long_run(model, X, 100 if quick else 400), seconds))
    tv = scores_by_rule(lambda: [np.abs(m.predict_proba(X) - pi).sum(axis=1).mean() / 2
                                 for m, X, pi, _, _ in fits], lds_module)
    states = scores_by_rule(lambda: [distance(m.transform(X), ref)
                                     for m, X, _, ref, _ in fits], lds_module)
    n_infer_iter = fits[0][0].n_infer_iter
    fit_seconds = np.mean([f[-1] for f in fits])
    n_steps = fits[0][1].shape[0]
    name = f"drawn from the model ({len(seeds)} data sets, {n_steps:,} steps, L = 4)"
    rows.append(row(name, "MultinomialLDS: TV to the truth", n_infer_iter, fit_seconds, tv,
                    digits=4))
    rows.append(row(name, "MultinomialLDS: states vs long run", n_infer_iter, fit_seconds,
                    states, digits=4))
    alice = load_wonderland(n_words=1000, n_tokens=3900)
    text = []
    for seed in seeds[:3]:
        model = MultinomialLDS(10, random_state=seed, **params)
        seconds = quiet_fit(model, alice.X)
        text.append((model, long_run(model, alice.X, 50 if quick else 200), seconds))
    states = scores_by_rule(lambda: [distance(m.transform(alice.X), ref) for m, ref, _ in text],
                            lds_module)
    rows.append(row("Alice in Wonderland (3,900 tokens, L = 10)",
                    "MultinomialLDS: states vs long run", n_infer_iter,
                    np.mean([t[-1] for t in text]), states, digits=4))
    return rows


# Rules of part "few": (label, divisor, minimum sweeps left out).
FEW_RULES = [("second half", 2, 0), ("all but an eighth, no minimum", 8, 0),
             ("all but an eighth, at least 5 (the rule)", 8, 5)]
FEW_SWEEPS = (4, 7, 10, 20)


def few_sweeps_rows(quick):
    """Few inference sweeps (``n_infer_iter`` set after the fit to 4 / 7 / 10
    / 20): held-out perplexity of GibbsLDA and both links of the correlated
    model, fitted at their defaults on the five comp.* groups, under the
    rules of :data:`FEW_RULES` (three halvings)."""
    from defaults import COMP_NEWS, held_out_corpus, news_subset

    corpus = held_out_corpus("20NG 5 comp groups", news_subset(COMP_NEWS, 60 if quick else None),
                             20)
    rows = []
    for name, factory in [MODELS[0], MODELS[2], MODELS[3]]:
        model = factory(corpus.n_topics)
        if quick:
            model.set_params(max_iter=40, burn_in=20)
        quiet_fit(model, corpus.X_train)
        default = model.n_infer_iter
        for n_iter in FEW_SWEEPS:
            model.set_params(n_infer_iter=n_iter)
            values = []
            kept = base.INFER_BURN_IN_DIVISOR, base.INFER_MIN_BURN_IN
            try:
                for _, divisor, minimum in FEW_RULES:
                    base.INFER_BURN_IN_DIVISOR, base.INFER_MIN_BURN_IN = divisor, minimum
                    values.append(np.mean([document_completion(model, corpus.X_heldout, seed=s)
                                           for s in SPLIT_SEEDS]))
            finally:
                base.INFER_BURN_IN_DIVISOR, base.INFER_MIN_BURN_IN = kept
            rows.append([name, n_iter] + [f"{v:.1f}" + ("" if i == 0 else
                                                        f" ({100 * (v / values[0] - 1):+.2f} %)")
                                          for i, v in enumerate(values)])
            print(rows[-1], flush=True)
        model.set_params(n_infer_iter=default)
    return rows, corpus


# Part "sweeps": the n_infer_iter values set after each fit.
SWEEP_GRID = (25, 50, 100, 200, 400)


def timed_scores(score):
    """``(mean of score(), seconds per value)``; ``score()`` returns a list."""
    t0 = time.perf_counter()
    values = score()
    return float(np.mean(values)), (time.perf_counter() - t0) / len(values)


def sweep_row(corpus_name, model_name, model, seconds, score):
    """One row of part "sweeps": ``score()`` (a list over the halvings) with
    ``n_infer_iter`` set to each of :data:`SWEEP_GRID`, its change against the
    model's default and the seconds per value; the default restored after."""
    default = model.n_infer_iter
    try:
        results = {}
        for n_iter in SWEEP_GRID:
            model.set_params(n_infer_iter=n_iter)
            results[n_iter] = timed_scores(score)
    finally:
        model.set_params(n_infer_iter=default)
    ref = results[default][0] if default in results else results[SWEEP_GRID[0]][0]
    cells = [f"{m:.1f} ({100 * (m / ref - 1):+.2f} %)" for m, _ in results.values()]
    seconds_cell = " / ".join(f"{s:.2f}" for _, s in results.values())
    return [corpus_name, model_name, default, f"{seconds:.0f}"] + cells + [seconds_cell]


def sweep_rows(quick):
    """Part "sweeps": every topic model at its defaults on the corpora of part
    ``topics`` and DynamicTopicModel on its validation split, scored at each
    ``n_infer_iter`` of :data:`SWEEP_GRID`."""
    corpora = averaging_corpora(quick)
    rows = []
    for corpus, name, model, seconds, score in topic_fits(corpora, quick):
        rows.append(sweep_row(corpus.name, name, model, seconds, score))
        print(rows[-1], flush=True)
    name, model, seconds, score = dynamic_fit(quick)
    rows.append(sweep_row(name, "DynamicTopicModel", model, seconds, score))
    print(rows[-1], flush=True)
    return rows, corpora


def write_table_section(name, title, text, header, rows, t0):
    """Section ``name``: ``text``, the machine's load, the table of ``rows``
    under ``header`` and the run time."""
    body = (text + " " + load_note() + "\n\n" + markdown_table(header, rows)
            + f"\n\nRun time {time.perf_counter() - t0:.0f} s.")
    print(body)
    write_section(name, title, body)


def main(quick=False, part="topics"):
    t0 = time.perf_counter()
    label = " (QUICK run: small corpora, not the measurement)" if quick else ""
    if part == "lds":
        rows = lds_rows(quick)
        write_table_section(
            "infer_averaging_lds", "Which inference sweeps MultinomialLDS averages" + label,
            "MultinomialLDS fitted at its defaults (`random_state` = the data set's seed), "
            "then `transform` and `predict_proba` (their default `n_infer_iter`) with the "
            "states' sweeps averaged over all but the first n_infer_iter // divisor (at "
            "least five); "
            "divisor 2 (the second half) is MultinomialLDS's rule, 8 the topic models' since "
            "2026-11-29. Rows: total-variation distance of "
            "`predict_proba` to the true category probabilities of data drawn from the "
            "model (benchmarks/lds.py's `simulate`: two damped rotations, 20 categories, "
            "20 counts per step), and the RMS distance of `transform`'s states to a long "
            "inference run of the same fit, relative to the long run's RMS; means over "
            "the fits (five data sets; Alice in Wonderland, seeds 0-2). Lower is better.",
            ["data", "measure", "n_infer_iter", "fit s"] + DIVISOR_COLUMNS, rows, t0)
        return rows
    if part == "sweeps":
        rows, corpora = sweep_rows(quick)
        write_table_section(
            "infer_sweeps", "How many sweeps transform runs, averaged by today's rule"
            + label,
            "Each model fitted once at its defaults (`random_state=0`), then `transform` "
            "with `n_infer_iter` set after the fit to each of "
            + " / ".join(map(str, SWEEP_GRID)) + " and the proportions averaged over all "
            "but the first n_infer_iter // 8 sweeps (at least five; the rule since "
            "2026-11-29). Held-out document-completion perplexity, mean of three random "
            "halvings of the held-out documents (split seeds 0-2), and its change against "
            "the model's default `n_infer_iter` (column default); seconds per `transform` "
            "(one halving, the perplexity included), in the order of the columns. "
            "Corpora of the topic models: benchmarks/defaults.py part peers but all of 20 "
            "Newsgroups: " + "; ".join(c.describe() for c in corpora) + ". The dynamic "
            "model: the validation paragraphs of benchmarks/dtm.py part defaults. One "
            "thread.",
            ["corpus", "model", "default", "fit s"]
            + [f"n_infer_iter={n}" for n in SWEEP_GRID] + ["transform s"], rows, t0)
        return rows
    if part == "few":
        rows, corpus = few_sweeps_rows(quick)
        write_table_section(
            "infer_averaging_few", "Which inference sweeps transform averages, few sweeps"
            + label,
            "Few inference sweeps: GibbsLDA and the correlated model (both links) fitted at "
            "their defaults (`random_state=0`) on " + corpus.describe() + ", then "
            "`transform` with `n_infer_iter` set after the fit to each of "
            + " / ".join(map(str, FEW_SWEEPS)) + " and the proportions averaged by each "
            "rule. Held-out document-completion perplexity, mean of three halvings (split "
            "seeds 0-2); change against the second half.",
            ["model", "n_infer_iter"] + [r[0] for r in FEW_RULES], rows, t0)
        return rows
    rows, corpora = topic_rows(quick)
    rows.append(dynamic_row(quick))
    print(rows[-1], flush=True)
    write_table_section(
        "infer_averaging", "Which inference sweeps transform averages" + label,
        "Each model fitted once at its defaults (`random_state=0`), then `transform` with "
        "the proportions averaged over all but the first n_infer_iter // divisor sweeps "
        "(at least five since 2026-11-29, which changes no row of divisor 2 or 8), "
        "at the model's default `n_infer_iter` (the same sweeps, so the same seconds, for "
        "every divisor). Divisor 2 is the rule before 2026-11-29 (the second half), 8 the "
        "rule since. Held-out document-completion perplexity, mean of three random "
        "halvings of the held-out documents (split seeds 0-2); change against divisor 2. "
        "Corpora of the topic models: benchmarks/defaults.py part peers but all of 20 "
        "Newsgroups: " + "; ".join(c.describe() for c in corpora) + ". The dynamic model: "
        "the validation paragraphs of benchmarks/dtm.py part defaults. One thread.",
        ["corpus", "model", "n_infer_iter", "fit s"] + DIVISOR_COLUMNS, rows, t0)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small corpora, a smoke run")
    parser.add_argument("--part", choices=("topics", "few", "lds", "sweeps"), default="topics",
                        help="the topic models (section infer_averaging), few sweeps "
                             "(infer_averaging_few), MultinomialLDS (infer_averaging_lds) "
                             "or the number of sweeps (infer_sweeps)")
    args = parser.parse_args()
    main(args.quick, args.part)
