"""The measurements behind two defaults of CorrelatedTopicModel (issue 12):
``prior_strength`` (the Normal-Inverse-Wishart prior's pseudo-observations,
``a = prior_strength * D``) and ``n_infer_iter`` (sweeps of ``transform``).

``prior_strength`` in {0.001, 0.01, 0.1, 1}, both links, other settings at
their defaults, on

- corpora drawn from the logistic-normal model (``ctm_recovery.draw_corpus``:
  K = 10, D = 1,000 and 4,000, pairs of topics at +-0.85 and +-0.6), scored
  by the worst L1 distance of a true topic to its Hungarian match and by the
  correlation r of ``topic_correlation_`` with the truth (as
  benchmarks/ctm_recovery.py); the two sizes show how the prior scales with D;
- the five comp.* groups of 20 Newsgroups (K = 20), scored by held-out
  document-completion perplexity (10 % of the documents held out).

``n_infer_iter`` in {10, 30, 100}: the held-out perplexity of the models
fitted at the default prior on the news corpus (``transform`` only, the fit
is shared), over three random halvings of the held-out documents.

``--part subiter``: ``n_subiter`` (sub-iterations S of the logistic-normal
link's single-site updates per document and sweep) in {1, 2, 3, 4, 8}, other
settings at their defaults: held-out perplexity on three real corpora (two
seeds each), recovery on two drawn corpora, fit seconds and token-sweeps per
second. Written to its own section (ctm_subiter).

``--part sweeps``: ``max_iter`` (with ``burn_in = max_iter // 2``) in {300,
600, 1000}, both links, two seeds, other settings at their defaults, on the
three real corpora of ``--part subiter``: held-out perplexity, whether the
fit's ConvergenceWarning fires, the rise of the log-likelihood trace's fitted
line over its second half (nats per training token; the warning's criterion,
``sklearn_pgtm._base.fitted_rise`` against ``MIN_RISE_PER_TOKEN``) and fit
seconds. Written to its
own section (ctm_sweeps).

``--part warmup``: the length of the plain-LDA warm-up that starts the
chain, ``min(20, burn_in // 2)`` sweeps (the rule before 2026-11-27, put back
through a patch of the private ``_n_warmup``) against ``burn_in // 2`` (the
default since), other settings at their defaults: recovery on the drawn
corpora that missed the targets (benchmarks/ctm_recovery.py: K = 10, D =
4,000, seed 0; K = 20, D = 2,000, seeds 0-2) and held-out perplexity on the
three real corpora (two seeds), both links. Written to its own section
(ctm_warmup).

``--part anneal``: the annealed topic-word prior of the warm-up's first
half (its first sweep's ``V * beta`` pseudo-counts a share of a topic's mean
token count, the private ``_ANNEAL_MASS``, patched): 0 (no annealing, the
chain before 2026-11-27 afternoon), 0.05, 0.1 (the default) and 0.25, on the
drawn corpora at K = 20 (D = 2,000 and 4,000, seeds 0-2, both links), and
0 against 0.1 on the three real corpora (two seeds, both links). Written to
its own section (ctm_anneal).

``--part stick-order``: the stick-breaking link with its topics left in the
order the warm-up ends with (a patch of the private ``_order_sticks``)
against :func:`sklearn_pgtm._ctm.stick_order` (the default) with a topic's
presence in a document at 2, 5 (the default) or 10 % of its tokens (the
private ``_PRESENCE_SHARE``, patched), on the drawn corpora at K = 20 (D =
2,000, 4,000 and 8,000, seeds 0-2) and the three real corpora (two seeds).
Written to its own section (ctm_stick_order).

``--part averaging``: the sweeps averaged after the burn-in. The defaults
before 2026-11-27 night (1,000 sweeps, burn-in 500, warm-up half of it;
through patches of the defaults and of the private ``_n_warmup``) against a
burn-in of 750 (warm-up a third of it: 250 sweeps in every column) with
1,000, 1,250 (the default) and 1,500 sweeps: one chain fitted for 1,000
sweeps and continued with ``warm_start`` (a continued fit equals the longer
one with the same burn-in). Both links, the drawn corpora at K = 20 (D = 2,000 and 4,000, seeds
0-2) and the three real corpora (two seeds). Written to its own section
(ctm_averaging).

``--part infer``: ``n_infer_iter`` 100 / 200 / 400 on the corpora of
``defaults.py --part peers`` (all of 20 Newsgroups left out), both links:
held-out perplexity of one fit per corpus and link, transformed with each.

``--part drift``: what ``max_iter`` beyond the default buys on real text,
where the fit's ConvergenceWarning fires at the defaults. One chain per
corpus, link and seed (the defaults otherwise) fitted for 1,250 sweeps and
continued with ``warm_start`` to 2,500 and 5,000 (a continued fit equals the
longer one with the first fit's burn-in of 750); seeds 0 and 1: at each end the held-out perplexity, whether the warning fired,
the trend z-score and the rise per token of the log-likelihood trace's
second half (the warning's two criteria), the same over the last 500
sweeps, and the mean variance of the fitted ``Sigma``, on the three real
corpora. Written to its own section (ctm_drift).

Usage: python benchmarks/ctm_settings.py [--quick]
       [--part {prior,subiter,sweeps,warmup,anneal,stick-order,averaging,drift,infer}]
"""

import argparse
import itertools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpora import document_completion  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402
from ctm_recovery import draw_corpus, evaluate  # noqa: E402
from defaults import COMP_NEWS, SMALL_NEWS, ap, held_out_corpus, news_subset  # noqa: E402

SUBITERS = [1, 2, 3, 4, 8]
SWEEPS = [300, 600, 1000]
STRENGTHS = [0.001, 0.01, 0.1, 1.0]
INFER_ITERS = [10, 30, 100]
LINKS = ["logistic_normal", "stick_breaking"]


def fit(X, n_topics, link, seed, **params):
    from sklearn_pgtm import CorrelatedTopicModel

    t0 = time.perf_counter()
    model = CorrelatedTopicModel(n_topics, link=link, random_state=seed, **params).fit(X)
    return model, time.perf_counter() - t0


def strength_rows(quick):
    sizes = [(10, 500)] if quick else [(10, 1000), (10, 4000)]
    strengths = [0.01, 1.0] if quick else STRENGTHS
    rows = []
    for n_topics, n_docs in sizes:
        X, phi, corr = draw_corpus(n_topics, n_docs, seed=0)
        for link in LINKS:
            for s in strengths:
                model, seconds = fit(X, n_topics, link, 0, prior_strength=s,
                                     **({"max_iter": 40, "burn_in": 20} if quick else {}))
                l1, r = evaluate(model, phi, corr)
                rows.append([f"drawn, K = {n_topics}, D = {n_docs}", link, s, f"{l1:.2f}",
                             f"{r:.3f}", "", f"{seconds:.0f}"])
                print(rows[-1], flush=True)
    news = held_out_corpus("comp", news_subset(COMP_NEWS, 60 if quick else None), 20)
    fitted = {}
    for link in LINKS:
        for s in strengths:
            model, seconds = fit(news.X_train, news.n_topics, link, 0, prior_strength=s,
                                 **({"max_iter": 40, "burn_in": 20} if quick else {}))
            perplexity = document_completion(model, news.X_heldout)
            rows.append([f"20 Newsgroups comp.* (D = {news.X_train.shape[0]}), K = 20", link,
                         s, "", "", f"{perplexity:.1f}", f"{seconds:.0f}"])
            print(rows[-1], flush=True)
            if s == 0.01:
                fitted[link] = model
    return rows, news, fitted


def transform_scores(model, X_heldout, n_infer_iter, seeds):
    """Held-out document-completion perplexity of the fitted ``model`` with
    ``n_infer_iter`` inference sweeps (set after the fit), one per halving
    seed, and the mean seconds of one evaluation."""
    model.set_params(n_infer_iter=n_infer_iter)
    t0 = time.perf_counter()
    values = [document_completion(model, X_heldout, seed=seed) for seed in seeds]
    return values, (time.perf_counter() - t0) / len(seeds)


def infer_rows(news, fitted):
    rows = []
    for link, model in fitted.items():
        for n_iter in INFER_ITERS:
            values, seconds = transform_scores(model, news.X_heldout, n_iter, range(3))
            rows.append([link, n_iter, f"{np.mean(values):.1f}",
                         f"{np.max(values) - np.min(values):.1f}", f"{seconds:.1f}"])
            print(rows[-1], flush=True)
    return rows


def subiter_rows(quick):
    """Held-out perplexity, recovery and speed of the logistic-normal link
    per ``n_subiter``."""
    short = {"max_iter": 40, "burn_in": 20} if quick else {}
    subiters = [1, 8] if quick else SUBITERS
    rows = []
    sizes = [(10, 500)] if quick else [(10, 2000), (20, 2000)]
    for n_topics, n_docs in sizes:
        X, phi, corr = draw_corpus(n_topics, n_docs, seed=0)
        for s in subiters:
            model, seconds = fit(X, n_topics, "logistic_normal", 0, n_subiter=s, **short)
            l1, r = evaluate(model, phi, corr)
            rate = X.sum() * model.n_iter_ / seconds / 1e6
            rows.append([f"drawn, K = {n_topics}, D = {n_docs}", s, 0, f"{l1:.2f}",
                         f"{r:.3f}", "", f"{seconds:.1f}", f"{rate:.2f}"])
            print(rows[-1], flush=True)
    corpora = real_corpora(quick)
    for corpus in corpora:
        for s in subiters:
            for seed in ([0] if quick else [0, 1]):
                model, seconds = fit(corpus.X_train, corpus.n_topics, "logistic_normal", seed,
                                     n_subiter=s, **short)
                perplexity = document_completion(model, corpus.X_heldout)
                rate = corpus.n_tokens * model.n_iter_ / seconds / 1e6
                rows.append([corpus.name, s, seed, "", "", f"{perplexity:.1f}",
                             f"{seconds:.1f}", f"{rate:.2f}"])
                print(rows[-1], flush=True)
    return rows, corpora


def real_corpora(quick):
    """The real corpora of ``--part subiter``, ``sweeps``, ``warmup`` and ``anneal``."""
    X_ap, _ = ap()
    return [
        held_out_corpus("20NG 4 groups x 120", news_subset(SMALL_NEWS, 120), 20),
        held_out_corpus("comp", news_subset(COMP_NEWS, 60 if quick else None), 20),
        held_out_corpus("AP", X_ap[:300] if quick else X_ap, 20),
    ]


def sweeps_rows(quick):
    """Held-out perplexity, convergence warning and trend per ``max_iter``."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from sklearn_pgtm._base import MIN_RISE_PER_TOKEN, fitted_rise

    sweeps = [40, 80] if quick else SWEEPS
    corpora = real_corpora(quick)
    rows = []
    for corpus in corpora:
        for link in LINKS:
            for n_iter in sweeps:
                for seed in ([0] if quick else [0, 1]):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", ConvergenceWarning)
                        model, seconds = fit(corpus.X_train, corpus.n_topics, link, seed,
                                             max_iter=n_iter, burn_in=n_iter // 2)
                    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
                    perplexity = document_completion(model, corpus.X_heldout)
                    # The rise ConvergenceWarning thresholds (per token).
                    trace = model.log_likelihood_trace_
                    rise = fitted_rise(trace[len(trace) // 2:]) / corpus.n_tokens
                    rows.append([corpus.name, link, n_iter, seed, f"{perplexity:.1f}",
                                 "yes" if warned else "", f"{rise:.4f}", f"{seconds:.1f}"])
                    print(rows[-1], flush=True)
    return rows, corpora


def main_sweeps(quick=False):
    rows, corpora = sweeps_rows(quick)
    body = (
        "CorrelatedTopicModel with `max_iter` varied (`burn_in = max_iter // 2`, other "
        "settings at their defaults), both links, seeds 0 and 1. Real corpora (10 % of "
        "the documents held out, document-completion perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". Warning: whether the fit raised its ConvergenceWarning (trend z-score of "
        "the second half of `log_likelihood_trace_` above 4 and a rise of more than "
        f"{MIN_RISE_PER_TOKEN} nats per training token over that half). Rise: that "
        "rise, nats per "
        "training token. One thread, on the shared 2-core machine.\n\n"
        + markdown_table(["corpus", "link", "max_iter", "seed", "perplexity", "warning",
                          "rise per token", "fit s"], rows)
    )
    print(body)
    write_section("ctm_sweeps", "CorrelatedTopicModel: number of sweeps on real corpora", body)


def warmup_rows(quick):
    """Recovery and held-out perplexity per warm-up rule."""
    import contextlib
    from unittest import mock

    import sklearn_pgtm._ctm as ctm_module

    short = {"max_iter": 40, "burn_in": 20} if quick else {}
    rules = [("min(20, burn_in // 2)", lambda self: min(20, self.burn_in_ // 2)),
             ("burn_in // 2", None)]
    drawn = [(5, 300, 0)] if quick else [(10, 4000, 0), (20, 2000, 0), (20, 2000, 1),
                                         (20, 2000, 2)]
    corpora = real_corpora(quick)
    rows = []
    for label, rule in rules:
        patch = (mock.patch.object(ctm_module.CorrelatedTopicModel, "_n_warmup", rule)
                 if rule is not None else contextlib.nullcontext())
        with patch:
            for n_topics, n_docs, seed in drawn:
                X, phi, corr = draw_corpus(n_topics, n_docs, seed=seed)
                for link in LINKS:
                    model, seconds = fit(X, n_topics, link, seed, **short)
                    l1, r = evaluate(model, phi, corr)
                    rows.append([f"drawn, K = {n_topics}, D = {n_docs}", link, label, seed,
                                 f"{l1:.2f}", f"{r:.3f}", "", f"{seconds:.1f}"])
                    print(rows[-1], flush=True)
            for corpus in corpora:
                for link in LINKS:
                    for seed in ([0] if quick else [0, 1]):
                        model, seconds = fit(corpus.X_train, corpus.n_topics, link, seed,
                                             **short)
                        perplexity = document_completion(model, corpus.X_heldout)
                        rows.append([corpus.name, link, label, seed, "", "",
                                     f"{perplexity:.1f}", f"{seconds:.1f}"])
                        print(rows[-1], flush=True)
    return rows, corpora


def main_warmup(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    rows, corpora = warmup_rows(quick)
    body = (
        "CorrelatedTopicModel with its plain-LDA warm-up (Dirichlet(1) documents, the "
        "first sweeps of the chain) of `min(20, burn_in // 2)` sweeps (20 at the "
        "defaults; the rule before 2026-11-27, put back by patching the private "
        "`_n_warmup`) or `burn_in // 2` (250 at the defaults), other settings at their "
        "defaults (1,000 sweeps, burn-in 500). Drawn corpora: the logistic-normal model "
        "of benchmarks/ctm_recovery.py, the settings that missed its targets, worst L1 "
        "of a true topic to its match (target < 0.5) and r of the fitted against the "
        "true correlations (target >= 0.9). Real corpora (10 % of the documents held "
        "out, document-completion perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". One thread, on the shared 2-core machine.\n\n"
        + markdown_table(["corpus", "link", "warm-up", "seed", "worst L1", "r",
                          "perplexity", "fit s"], rows)
    )
    print(body)
    write_section("ctm_warmup", "CorrelatedTopicModel: length of the LDA warm-up", body)


ANNEAL_MASSES = [0.0, 0.05, 0.1, 0.25]


def variant_scores(X, n_topics, link, seed, variants, score, short):
    """One fit per variant (a context manager that patches the model, or
    None for the defaults) of the same corpus and seed; ``score(model)`` of
    each."""
    import contextlib

    row = []
    for variant in variants:
        with variant or contextlib.nullcontext():
            model, _ = fit(X, n_topics, link, seed, **short)
        row.append(score(model))
    return row


def compare_on_corpora(row_scores, links, quick, sizes=(2000, 4000)):
    """Rows of scores per link on the K = 20 drawn corpora of ``sizes``
    (seeds 0-2; recovery, worst L1 / r) and on the three real corpora
    (seeds 0-1; held-out perplexity). ``row_scores(X, n_topics, link, seed,
    score, drawn)`` returns a row's cells, ``score(model)`` each one."""
    drawn = [(5, 300, 0)] if quick else [(20, n_docs, seed) for n_docs in sizes
                                         for seed in (0, 1, 2)]
    drawn_rows, real_rows = [], []
    for n_topics, n_docs, seed in drawn:
        X, phi, corr = draw_corpus(n_topics, n_docs, seed=seed)

        def recovery(model):
            return "{:.2f} / {:.3f}".format(*evaluate(model, phi, corr))

        for link in links:
            row = [f"K = {n_topics}, D = {n_docs}", link, seed] + row_scores(
                X, n_topics, link, seed, recovery, True)
            drawn_rows.append(row)
            print(row, flush=True)
    corpora = real_corpora(quick)
    for corpus in corpora:

        def perplexity(model):
            return f"{document_completion(model, corpus.X_heldout):.1f}"

        for link in links:
            for seed in ([0] if quick else [0, 1]):
                row = [corpus.name, link, seed] + row_scores(
                    corpus.X_train, corpus.n_topics, link, seed, perplexity, False)
                real_rows.append(row)
                print(row, flush=True)
    return drawn_rows, real_rows, corpora


def seed_means(real_rows, n_keys):
    """Summary rows of :func:`compare_on_corpora`'s real-corpus rows: the
    first ``n_keys`` cells name a row (the corpus, and the link where the
    rows have one), the next is the seed, and the perplexities that follow
    are averaged over the seeds."""
    means = {}
    for row in real_rows:
        means.setdefault(tuple(row[:n_keys]), []).append([float(v) for v in row[n_keys + 1:]])
    return [list(key) + [f"{m:.1f}" for m in np.mean(v, axis=0)] for key, v in means.items()]


def compare_variants(drawn_variants, real_variants, links, quick, sizes=(2000, 4000)):
    """:func:`compare_on_corpora` of one fit per variant: the drawn-corpus
    variants on the drawn corpora, the real-corpus ones on the real corpora.
    Variants are functions returning a fresh context manager (or None)."""
    short = {"max_iter": 40, "burn_in": 20} if quick else {}

    def row_scores(X, n_topics, link, seed, score, drawn):
        variants = drawn_variants if drawn else real_variants
        return variant_scores(X, n_topics, link, seed, [v() for v in variants], score, short)

    return compare_on_corpora(row_scores, links, quick, sizes)


def anneal_rows(quick):
    """Recovery per annealing mass on the drawn corpora; held-out perplexity
    without and with the default annealing on the real corpora."""
    from unittest import mock

    import sklearn_pgtm._ctm as ctm_module

    default = ctm_module._ANNEAL_MASS

    def mass(value):
        return lambda: mock.patch.object(ctm_module, "_ANNEAL_MASS", value)

    drawn_rows, real_rows, corpora = compare_variants(
        [mass(m) for m in ANNEAL_MASSES], [mass(0.0), mass(default)], LINKS, quick)
    return drawn_rows, real_rows, corpora, default


def main_anneal(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    drawn_rows, real_rows, corpora, default = anneal_rows(quick)
    summary = seed_means(real_rows, 2)
    body = (
        "CorrelatedTopicModel with the topic-word prior of the first half of its plain-LDA "
        "warm-up annealed: its first sweep's prior has `V * beta_0` pseudo-counts equal to "
        "a share (the mass) of a topic's mean token count, falling geometrically to the "
        "chain's own prior over the first half of the warm-up (the first 125 of the "
        f"defaults' 1,000 sweeps); mass 0 is no annealing; the default is {default}. Other "
        "settings at their defaults. Drawn corpora: the logistic-normal model of "
        "benchmarks/ctm_recovery.py (pairs of topics at correlation +-0.85 and +-0.6), worst "
        "L1 of a true topic to its Hungarian match (target < 0.5) / r of the fitted against "
        "the true correlations (target >= 0.9). Real corpora (10 % of the documents held "
        "out, document-completion perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". One thread, on the shared 2-core machine.\n\n"
        + markdown_table(["drawn corpus", "link", "seed"]
                         + [f"mass {m}" for m in ANNEAL_MASSES], drawn_rows)
        + "\n\n"
        + markdown_table(["real corpus", "link", "seed", "perplexity, mass 0",
                          f"perplexity, mass {default}"], real_rows)
        + "\n\nMeans over the seeds:\n\n"
        + markdown_table(["real corpus", "link", "mass 0", f"mass {default}"], summary)
    )
    print(body)
    write_section("ctm_anneal", "CorrelatedTopicModel: the annealed warm-up", body)


PRESENCE_SHARES = [0.02, 0.05, 0.1]


def stick_order_rows(quick):
    """Stick-breaking link without and with the stick order after the
    warm-up: recovery on the drawn corpora, held-out perplexity on the real
    ones (rows without the link column: one link)."""
    from unittest import mock

    import sklearn_pgtm._ctm as ctm_module

    def as_warmed_up():
        return mock.patch.object(ctm_module.CorrelatedTopicModel, "_order_sticks",
                                 lambda self, run: None)

    def presence(share):
        if share == ctm_module._PRESENCE_SHARE:
            return lambda: None
        return lambda: mock.patch.object(ctm_module, "_PRESENCE_SHARE", share)

    variants = [as_warmed_up] + [presence(share) for share in PRESENCE_SHARES]
    drawn_rows, real_rows, corpora = compare_variants(
        variants, variants, ["stick_breaking"], quick, sizes=(2000, 4000, 8000))
    return ([row[:1] + row[2:] for row in drawn_rows], [row[:1] + row[2:] for row in real_rows],
            corpora)


def main_stick_order(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import sklearn_pgtm._ctm as ctm_module

    warnings.simplefilter("ignore", ConvergenceWarning)
    drawn_rows, real_rows, corpora = stick_order_rows(quick)
    columns = ["order after the warm-up"] + [
        f"stick_order, presence {share}" + (" (default)" if share == ctm_module._PRESENCE_SHARE
                                            else "")
        for share in PRESENCE_SHARES]
    summary = seed_means(real_rows, 1)
    body = (
        "CorrelatedTopicModel(link='stick_breaking') with its topics left in the order the "
        "warm-up ends with (the chain before 2026-11-27 evening, through a patch of the private "
        "`_order_sticks`) and put in `stick_order` (the default: the pairs of topics most often "
        "present in the same documents next to each other along the stick, before the first "
        "correlated sweep), a topic being present in a document where it has at least the "
        "given share of its tokens (the private `_PRESENCE_SHARE`, patched). Other settings at "
        "their defaults. Drawn corpora: the logistic-normal model of benchmarks/ctm_recovery.py "
        "(pairs of topics at correlation +-0.85 and +-0.6), worst L1 of a true topic to its "
        "Hungarian match (target < 0.5) / r of the fitted against the true correlations "
        "(target >= 0.9). Real corpora (10 % of the documents held out, document-completion "
        "perplexity, lower is better): " + "; ".join(c.describe() for c in corpora)
        + ". One thread, on the shared 2-core machine.\n\n"
        + markdown_table(["drawn corpus", "seed"] + columns, drawn_rows)
        + "\n\n"
        + markdown_table(["real corpus", "seed"] + [f"perplexity, {c}" for c in columns],
                         real_rows)
        + "\n\nMeans over the seeds:\n\n"
        + markdown_table(["real corpus"] + columns, summary)
    )
    print(body)
    write_section("ctm_stick_order", "CorrelatedTopicModel: the order of the sticks", body)


AVERAGING_ENDS = [1000, 1250, 1500]


def averaging_rows(quick):
    """Recovery and held-out perplexity of the defaults before (1,000 sweeps,
    the last 500 averaged) and of ``burn_in=750`` with 1,000 / 1,250 / 1,500
    sweeps: one chain fitted for 1,000 sweeps and continued with
    ``warm_start`` to 1,250 and 1,500 (a continued fit equals the longer
    one)."""
    import contextlib
    from unittest import mock

    import sklearn_pgtm._ctm as ctm_module

    model_class = ctm_module.CorrelatedTopicModel
    burn_in, ends = (20, [30, 40]) if quick else (750, AVERAGING_ENDS)

    @contextlib.contextmanager
    def before():
        defaults = {"burn_in": burn_in * 2 // 3, "max_iter": ends[0]}
        with mock.patch.dict(model_class.__init__.__kwdefaults__, defaults), \
                mock.patch.object(model_class, "_n_warmup", lambda self: self.burn_in_ // 2):
            yield

    def compared(X, n_topics, link, seed, score, drawn):
        with before():
            row = [score(fit(X, n_topics, link, seed)[0])]
        model, _ = fit(X, n_topics, link, seed, burn_in=burn_in, max_iter=ends[0],
                       warm_start=True)
        row.append(score(model))
        for done, end in zip(ends, ends[1:]):
            row.append(score(model.set_params(max_iter=end - done).fit(X)))
        return row

    drawn_rows, real_rows, corpora = compare_on_corpora(compared, LINKS, quick)
    return drawn_rows, real_rows, corpora, burn_in, ends


def main_averaging(quick=False):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    drawn_rows, real_rows, corpora, burn_in, ends = averaging_rows(quick)
    columns = [f"{ends[0]} sweeps, burn-in {burn_in * 2 // 3} (before)"] + [
        f"{end} sweeps, burn-in {burn_in}" + (" (default)" if end == AVERAGING_ENDS[1] else "")
        for end in ends]
    summary = seed_means(real_rows, 2)
    body = (
        "CorrelatedTopicModel with the topic-word counts and (mu, Sigma) averaged over the "
        "sweeps after the burn-in: 1,000 sweeps with a burn-in of 500 (the defaults before "
        "2026-11-27 night; warm-up half the burn-in, through patches of the defaults and of "
        "the private `_n_warmup`), and a burn-in of 750 (warm-up a third of it) with 1,000, "
        "1,250 (the default) or 1,500 sweeps. The warm-up is 250 plain-LDA sweeps in every "
        "column; an 'auto' topic-word prior is estimated over the burn-in's second half. The "
        "three burn-in-750 columns come from one chain fitted for 1,000 sweeps and continued "
        "with `warm_start` to 1,250 and 1,500 (a continued fit equals the longer one with "
        "the same `random_state`). Other settings at their defaults. Drawn "
        "corpora: the logistic-normal model of benchmarks/ctm_recovery.py (pairs of topics at "
        "correlation +-0.85 and +-0.6), worst L1 of a true topic to its Hungarian match "
        "(target < 0.5) / r of the fitted against the true correlations (target >= 0.9). "
        "Real corpora (10 % of the documents held out, document-completion perplexity, "
        "lower is better): " + "; ".join(c.describe() for c in corpora)
        + ". One thread, on the shared 2-core machine.\n\n"
        + markdown_table(["drawn corpus", "link", "seed"] + columns, drawn_rows)
        + "\n\n"
        + markdown_table(["real corpus", "link", "seed"] + columns, real_rows)
        + "\n\nMeans of the perplexity over the seeds:\n\n"
        + markdown_table(["real corpus", "link"] + columns, summary)
    )
    print(body)
    write_section("ctm_averaging", "CorrelatedTopicModel: the burn-in and the averaged sweeps",
                  body)


DRIFT_ENDS = [1250, 2500, 5000]
DRIFT_SEEDS = [0, 1]


def drift_rows(quick):
    """Per real corpus, link and seed, one default chain continued to each of
    ``DRIFT_ENDS``: perplexity, warning, trend of the second half and of the
    last 500 sweeps, mean variance of ``covariance_``."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from sklearn_pgtm._base import fitted_rise, trend_z_score

    ends = [40, 80] if quick else DRIFT_ENDS
    window = 20 if quick else 500
    rows, corpora = [], real_corpora(quick)

    def trend(values, n_tokens):
        return f"{trend_z_score(values):.1f} / {fitted_rise(values) / n_tokens:.4f}"

    for corpus, link, seed in itertools.product(corpora, LINKS, [0] if quick else DRIFT_SEEDS):
        model, done, seconds = None, 0, 0.0
        for end in ends:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                t0 = time.perf_counter()
                if model is None:
                    model, _ = fit(corpus.X_train, corpus.n_topics, link, seed,
                                   max_iter=end, warm_start=True,
                                   **({"burn_in": 20} if quick else {}))
                else:
                    model.set_params(max_iter=end - done).fit(corpus.X_train)
                seconds += time.perf_counter() - t0
            done = end
            warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
            trace = np.asarray(model.log_likelihood_trace_)
            rows.append([corpus.name, link, seed, end,
                         f"{document_completion(model, corpus.X_heldout):.1f}",
                         "yes" if warned else "",
                         trend(trace[trace.shape[0] // 2:], corpus.n_tokens),
                         trend(trace[-window:], corpus.n_tokens),
                         f"{np.mean(np.diag(model.covariance_)):.1f}", f"{seconds:.0f}"])
            print(rows[-1], flush=True)
    return rows, corpora, window


def main_drift(quick=False):
    rows, corpora, window = drift_rows(quick)
    body = (
        "CorrelatedTopicModel at its defaults, one chain per corpus, link and seed "
        "fitted for 1,250 sweeps and continued with `warm_start` to 2,500 and 5,000 "
        "(`max_iter` is then the total; the burn-in stays 750, so the kept sweeps are "
        "all those after it). Real corpora (10 % of the documents held out, "
        "document-completion perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". Warning: whether the fit raised its ConvergenceWarning. Trend: z-score / rise "
        "of the fitted line in nats per training token, over the second half of "
        f"`log_likelihood_trace_` (the warning's criteria: z above 4 and a rise above "
        f"0.005) and over its last {window} sweeps. Variance: mean diagonal of the fitted "
        "`covariance_` (averaged over the kept sweeps). Seconds: cumulative fit time. "
        "One thread.\n\n"
        + markdown_table(["corpus", "link", "seed", "sweeps", "perplexity", "warning",
                          "trend, second half", f"trend, last {window}", "variance",
                          "fit s"], rows)
    )
    print(body)
    write_section("ctm_drift", "CorrelatedTopicModel: longer chains on real corpora", body)


def main_subiter(quick=False):
    rows, corpora = subiter_rows(quick)
    body = (
        "CorrelatedTopicModel (logistic-normal link) with `n_subiter` varied, other "
        "settings at their defaults. Drawn corpora: the logistic-normal model of "
        "benchmarks/ctm_recovery.py (seed 0), worst L1 of a true topic to its match "
        "(target < 0.5) and r of the fitted against the true correlations (target >= "
        "0.9). Real corpora (10 % of the documents held out, document-completion "
        "perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". Rate = training tokens x sweeps / fit seconds (one thread, whole fit "
        "including the factorized start), on the shared 2-core machine.\n\n"
        + markdown_table(["corpus", "n_subiter", "seed", "worst L1", "r", "perplexity",
                          "fit s", "M token-sweeps/s"], rows)
    )
    print(body)
    write_section("ctm_subiter", "CorrelatedTopicModel: sub-iterations of the "
                  "logistic-normal update", body)


def infer_iter_rows(quick):
    """``n_infer_iter`` 100 / 200 / 400 on the corpora of ``defaults.py
    --part peers`` (all of 20 Newsgroups left out), both links: one fit at
    the defaults per corpus and link, then ``transform`` with each number of
    sweeps (``set_params`` after the fit) scored by held-out document
    completion on two random halvings (split seeds 0 and 1) of the held-out
    documents."""
    import warnings

    from defaults import topic_corpora
    from sklearn.exceptions import ConvergenceWarning

    from sklearn_pgtm import CorrelatedTopicModel

    settings = (10, 20, 40) if quick else (100, 200, 400)
    corpora = [c for c in topic_corpora(quick) if "20NG all" not in c.name]
    rows = []
    for link in ("logistic_normal", "stick_breaking"):
        for corpus in corpora:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = CorrelatedTopicModel(corpus.n_topics, link=link,
                                             random_state=0).fit(corpus.X_train)
            fit_seconds = time.perf_counter() - t0
            scores = [transform_scores(model, corpus.X_heldout, n_iter, (0, 1))
                      for n_iter in settings]
            means = [np.mean(values) for values, _ in scores]
            rows.append([corpus.name, link, f"{fit_seconds:.0f}"]
                        + [f"{m:.1f} ({100 * (m / means[0] - 1):+.2f} %)" for m in means]
                        + [" / ".join(f"{seconds:.2f}" for _, seconds in scores)])
            print(rows[-1], flush=True)
    return rows, corpora, settings


def main_infer(quick=False):
    rows, corpora, settings = infer_iter_rows(quick)
    body = (
        "CorrelatedTopicModel fitted at its defaults (`random_state=0`, one fit per corpus "
        "and link), then `transform` with `n_infer_iter` set after the fit to each of "
        + " / ".join(str(n) for n in settings)
        + " sweeps (proportions averaged over the second half). Held-out "
        "document-completion perplexity (10 % of the documents held out), mean of two "
        "random halvings of the held-out documents (split seeds 0 and 1), and its change "
        "against the first setting; seconds per `transform` of the held-out documents. "
        "Corpora (benchmarks/defaults.py, part peers, all of 20 Newsgroups left out): "
        + "; ".join(c.describe() for c in corpora) + ". One thread.\n\n"
        + markdown_table(["corpus", "link", "fit s"]
                         + [f"n_infer_iter={n}" for n in settings]
                         + ["transform s"], rows)
    )
    print(body)
    write_section("ctm_infer_iter", "CorrelatedTopicModel: sweeps of the inference of new "
                  "documents", body)


def main(quick=False):
    rows, news, fitted = strength_rows(quick)
    infer = infer_rows(news, fitted)
    body = (
        "CorrelatedTopicModel with `prior_strength` varied (other settings at their "
        "defaults, `random_state=0`): the Normal-Inverse-Wishart prior has `a = "
        "prior_strength * D` pseudo-observations (`kappa0 = a`, `nu0 = K + 1 + a`, scale "
        "`a I`). Drawn corpora: the logistic-normal model of benchmarks/ctm_recovery.py "
        "(seed 0), worst L1 of a true topic to its match (target < 0.5) and r of the "
        "fitted against the true correlations (target >= 0.9). News: "
        + news.describe() + "; held-out document-completion perplexity (lower is "
        "better). One thread; seconds are fit times on the shared 2-core machine.\n\n"
        + markdown_table(["corpus", "link", "prior_strength", "worst L1", "r",
                          "perplexity", "fit s"], rows)
        + "\n\n`n_infer_iter` (sweeps of `transform`, proportions averaged over the second "
        "half) on the news corpus, models fitted at the defaults: mean held-out perplexity "
        "over 3 random halvings of the held-out documents (seeds 0-2), its range, and seconds per `transform` of the held-out "
        "documents.\n\n"
        + markdown_table(["link", "n_infer_iter", "perplexity (mean of 3)", "range",
                          "transform s"], infer)
    )
    print(body)
    write_section("ctm_settings", "CorrelatedTopicModel: prior_strength and n_infer_iter",
                  body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=["prior", "subiter", "sweeps", "warmup", "anneal",
                                           "stick-order", "averaging", "drift", "infer"],
                        default="prior")
    args = parser.parse_args()
    {"prior": main, "subiter": main_subiter, "sweeps": main_sweeps,
     "warmup": main_warmup, "anneal": main_anneal,
     "stick-order": main_stick_order, "averaging": main_averaging,
     "drift": main_drift, "infer": main_infer}[args.part](args.quick)
