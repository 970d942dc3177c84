"""EmpiricalBayesLDA: does the reported covariance match the spread across fits?

Independent fits (``random_state`` = 0, 1, ...) of EmpiricalBayesLDA at its
defaults (several chains pooled inside each fit), and with ``n_chains=1``,
on the same corpus: the spread of their estimates ``h_hat =
(doc_topic_prior_, topic_word_prior_)`` should match the Monte Carlo
covariance each fit reports (``hyperparameter_covariance_``), and a fit's
95% region (``in_confidence_region``) should contain another fit's
estimate in about 78% of the pairs (two independent estimates with the same
covariance C differ by a vector of covariance 2C, inside the region of C
with probability P(chi2_2 <= 5.99 / 2) = 0.777; more when the region's bound
is widened for a covariance estimated from the spread of a few chains). Reported per corpus, K and
sampler and schedule: sd across fits / root-mean reported sd (alpha and beta), and the
fraction of ordered pairs (i, j), i != j, whose region i contains estimate
j. Targets (issue 17): ratio between 0.7 and 1.5 and at least 70% of pairs,
for both samplers, at the defaults.

Corpora: a corpus drawn from LDA (D = 300, V = 200, T = 3, n_d = 50, alpha =
0.3, eta = 0.2; ``_corpora.lda_corpus``); 300 training documents of the demo
corpus (``sklearn_pgtm.datasets.load_religion_corpus``); in the full run also
K = 20 on the demo corpus and two 20 Newsgroups subsets
(``_corpora.twenty_news``, headers/footers/quotes removed, min_df=5,
documents with at least 10 tokens). Public API only.

The sd ratio of n fits scatters around 1 even for a true covariance (sd
across / sd = sqrt(chi2_{n-1} / (n - 1))): its 90% range is 0.60-1.37 for
8 fits and 0.75-1.24 for the default 24, so 8 fits judge the 0.7-1.5
target mostly by chance (an 8-fit run had HMC at 0.47 on the LDA draw; 24
fits of the same row give 0.94), and even 24 fits leave single rows
outside it by chance (HMC, four 20 Newsgroups groups: 1.91 for beta with 24
fits, 1.34 with 48); ``--fits 48 --defaults-only`` (90% range 0.83-1.17)
judges the target.

    python benchmarks/eblda_coverage.py [--quick] [--fits N] [--defaults-only]
"""

import argparse
import time
import warnings

import numpy as np
from scipy.stats import chi2

from _corpora import lda_corpus, twenty_news
from _results import load_note, markdown_table, write_section
from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm.datasets import load_religion_corpus

SUBSET_A = ["comp.graphics", "sci.med", "rec.sport.hockey", "talk.politics.mideast"]
SUBSET_B = ["comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
            "comp.windows.x", "comp.sys.mac.hardware"]


def _news(groups, per_group):
    X = twenty_news(groups, min_df=5, remove=("headers", "footers", "quotes"),
                    max_docs_per_class=per_group)["X_train"]
    return X[np.asarray(X.sum(axis=1)).ravel() >= 10]


def corpora(quick):
    """(name, X, K) of the run."""
    X_lda = lda_corpus(300, 200, 3, 50, 0.3, 0.2, seed=7)[0]
    X_demo = load_religion_corpus().X_train[:300]
    out = [("LDA draw (D=300, V=200)", X_lda, 3), ("demo corpus, 300 documents", X_demo, 10)]
    if not quick:
        out += [("demo corpus, 300 documents", X_demo, 20),
                ("20news: " + ", ".join(SUBSET_A) + " (100 each)", _news(SUBSET_A, 100), 10),
                ("20news: 5 comp.* groups (80 each)", _news(SUBSET_B, 80), 20)]
    return out


def coverage(models):
    """(sd across chains / reported sd for alpha and beta, fraction of pairs covered)."""
    h = np.array([[m.doc_topic_prior_, m.topic_word_prior_] for m in models])
    sd_across = h.std(axis=0, ddof=1)
    sd_reported = np.sqrt(np.mean([np.diag(m.hyperparameter_covariance_) for m in models],
                                  axis=0))
    pairs = [(i, j) for i in range(len(models)) for j in range(len(models)) if i != j]
    covered = np.mean([models[i].in_confidence_region(*h[j]) for i, j in pairs])
    return h, sd_across, sd_reported, float(covered)


def fit_runs(X, K, sampler, n_runs, params):
    """Independent fits and the number that raised a warning about h (drifting or
    disagreeing chains; the log-likelihood trend warning is counted apart)."""
    models, warned_h, warned_ll = [], 0, 0
    for seed in range(n_runs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            models.append(EmpiricalBayesLDA(K, sampler=sampler, random_state=seed,
                                            **params).fit(X))
        messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        warned_h += any("hyperparameter" in m for m in messages)
        warned_ll += any("log-likelihood" in m for m in messages)
    return models, warned_h, warned_ll


SCHEDULES = [("defaults", {}), ("n_chains=1", {"n_chains": 1})]


def ratio_range(n_runs, level=0.90):
    """Range of sd across / sd that n_runs fits with a true covariance give
    with probability ``level``."""
    tail = (1.0 - level) / 2.0
    return tuple(float(np.sqrt(chi2.ppf(q, n_runs - 1) / (n_runs - 1)))
                 for q in (tail, 1.0 - tail))


def main(quick=False, n_runs=None, defaults_only=False):
    n_runs = n_runs or (6 if quick else 24)
    schedules = SCHEDULES[:1] if defaults_only else SCHEDULES
    low, high = ratio_range(n_runs)
    rows, met = [], True
    for name, X, K in corpora(quick):
        for sampler in ("augmentation", "hmc"):
            for schedule, params in schedules:
                t0 = time.perf_counter()
                models, warned_h, warned_ll = fit_runs(X, K, sampler, n_runs, params)
                seconds = time.perf_counter() - t0
                h, sd_across, sd_reported, covered = coverage(models)
                ratio = sd_across / sd_reported
                ok = bool(np.all((ratio >= 0.7) & (ratio <= 1.5)) and covered >= 0.7)
                if schedule == "defaults":
                    met &= ok
                rows.append([name, f"D={X.shape[0]}, V={X.shape[1]}", K, sampler, schedule,
                             f"{h[:, 0].mean():.4g}", f"{h[:, 1].mean():.4g}",
                             f"{sd_across[0]:.2e} / {sd_reported[0]:.2e} = {ratio[0]:.2f}",
                             f"{sd_across[1]:.2e} / {sd_reported[1]:.2e} = {ratio[1]:.2f}",
                             f"{100 * covered:.0f}%", f"{warned_h}/{n_runs}",
                             f"{warned_ll}/{n_runs}", f"{seconds:.0f}",
                             "yes" if ok else "NO"])
                print(rows[-1], flush=True)
    body = (
        (f"QUICK RUN (--quick: two corpora, {n_runs} fits per row); not the benchmark's "
         "result.\n\n"
         if quick else "")
        + f"{n_runs} independent fits (random_state 0..{n_runs - 1}) of EmpiricalBayesLDA per "
        "row, at its defaults (n_chains=4 chains pooled inside each fit)"
        + ("" if defaults_only else " and with one chain") + ". "
        "sd ratio = sd of the fits' estimates / root mean of the reported variances (target "
        f"0.7-1.5; with {n_runs} fits a true covariance gives {low:.2f}-{high:.2f} with "
        "probability 90%); pairs covered = fraction of ordered pairs of fits (i, j) with estimate j "
        "inside region i (95%; about 78% expected with a known covariance, more with the "
        "wider bound of a covariance estimated from the chains' spread; target >= 70%); "
        "warned (h) = fits that warned about a drifting chain of h or disagreeing chains; "
        "warned (log-lik.) = fits whose log-likelihood still rose. " + load_note() + "\n\n"
        + markdown_table(
            ["corpus", "shape", "K", "sampler", "schedule", "mean alpha_hat", "mean beta_hat",
             "alpha: sd across / reported = ratio", "beta: sd across / reported = ratio",
             "pairs covered", "warned (h)", "warned (log-lik.)", "s (all fits)",
             "within target"],
            rows)
        + f"\n\nEvery at-defaults row within target: {'yes' if met else 'NO'}."
    )
    if defaults_only:
        write_section(f"eblda_coverage_defaults_{n_runs}",
                      f"EmpiricalBayesLDA at its defaults, {n_runs} fits per row: spread of "
                      "h_hat vs reported covariance", body)
    else:
        write_section("eblda_coverage",
                      "EmpiricalBayesLDA: spread of h_hat vs reported covariance", body)
    return {"every at-defaults row within target": met,
            "worst pairs covered at the defaults": min(float(r[9].rstrip("%")) / 100
                                                       for r in rows if r[4] == "defaults")}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--fits", type=int, default=None,
                        help="independent fits per row (default 24; 6 with --quick)")
    parser.add_argument("--defaults-only", action="store_true",
                        help="only the rows at the defaults (no n_chains=1 rows), in a section "
                             "of their own named by the number of fits")
    args = parser.parse_args()
    print(main(quick=args.quick, n_runs=args.fits, defaults_only=args.defaults_only))
