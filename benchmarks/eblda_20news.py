"""EmpiricalBayesLDA on 20 Newsgroups: held-out document completion perplexity.

Two corpora like Xia & Doss (2020), Table 1 (at most 200 training documents
per group; the paper has ~190), from ``benchmarks/_corpora.twenty_news``
(headers, footers and quotes removed, English stop words, min_df=5,
documents with at least 10 tokens):

- C-A, six distinct groups: comp.sys.ibm.pc.hardware, misc.forsale,
  soc.religion.christian, talk.politics.guns, rec.sport.baseball, sci.space
  (T = 6);
- C-B, five comp.* groups: comp.graphics, comp.os.ms-windows.misc,
  comp.sys.ibm.pc.hardware, comp.windows.x, comp.sys.mac.hardware (T = 5).

The empirical Bayes estimate h_hat of EmpiricalBayesLDA (at its defaults) is
compared, in the same run, with the estimate of GibbsLDA's ``"auto"``
priors (at its defaults), with Gibbs-EM using Minka's fixed point, and with
the three ad-hoc choices (alpha, eta) = (50/T, 0.1), (0.1, 0.1), (1/T, 1/T).
Every h gets the same ordinary LDA fit (GibbsLDA with the priors fixed at h,
same sweeps, same seeds), and the same held-out documents are scored by
document completion perplexity (``_corpora.document_completion``). Several
seeds; lower is better. Public API only.

Gibbs-EM from the public API: rounds of a GibbsLDA fit with the priors fixed
at the current (alpha, eta), each followed by Minka's fixed point (iterated
to convergence) on the expected counts of that fit: topic-word counts
``components_ - eta`` (averaged over the fit's kept sweeps) and
document-topic counts ``n_d * transform(X)``. Each round restarts the chain
and uses posterior-mean counts, where the textbook Gibbs-EM updates h inside
one chain from the current sample.

    python benchmarks/eblda_20news.py [--quick]
"""

import sys
import time
import warnings
from itertools import islice

import numpy as np
from scipy.special import digamma
from sklearn.exceptions import ConvergenceWarning

from _corpora import document_completion, twenty_news
from _results import markdown_table, write_section
from sklearn_pgtm import EmpiricalBayesLDA, GibbsLDA

PER_GROUP = 200  # about the size of the paper's corpora (~190 documents per group)
N_FOLDS = 10

CORPORA = {
    "C-A": ["comp.sys.ibm.pc.hardware", "misc.forsale", "soc.religion.christian",
            "talk.politics.guns", "rec.sport.baseball", "sci.space"],
    "C-B": ["comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
            "comp.windows.x", "comp.sys.mac.hardware"],
}


def load_corpus(groups, per_group=PER_GROUP):
    """Training documents of ``groups`` (at most ``per_group`` each, at least 10 tokens)."""
    X = twenty_news(groups, min_df=5, remove=("headers", "footers", "quotes"),
                    max_docs_per_class=per_group)["X_train"]
    return X[np.asarray(X.sum(axis=1)).ravel() >= 10]


# ----------------------------------------------------------------- baselines


def minka_fixed_point(doc_topic, word_topic, alpha, eta, n_iter=200, tol=1e-8):
    """Minka's fixed point for symmetric (alpha, eta) given (expected) topic counts
    ``doc_topic`` (D, T) and ``word_topic`` (T, V)."""
    n_d = doc_topic.sum(axis=1)
    m_t = word_topic.sum(axis=1)
    T, V = word_topic.shape
    for _ in range(n_iter):
        old = alpha, eta
        num = np.sum(digamma(doc_topic + alpha) - digamma(alpha))
        den = T * np.sum(digamma(n_d + T * alpha) - digamma(T * alpha))
        alpha = alpha * num / den
        num = np.sum(digamma(word_topic + eta) - digamma(eta))
        den = V * np.sum(digamma(m_t + V * eta) - digamma(V * eta))
        eta = eta * num / den
        if abs(alpha / old[0] - 1) < tol and abs(eta / old[1] - 1) < tol:
            break
    return float(alpha), float(eta)


def gibbs_em(X, T, n_rounds, sweeps_per_round, random_state):
    """Gibbs-EM with Minka's fixed point on GibbsLDA fits at fixed priors (see the
    module docstring); starts at (1/T, 1/T); returns the final (alpha, eta)."""
    alpha = eta = 1.0 / T
    n_d = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    for r in range(n_rounds):
        lda = GibbsLDA(T, doc_topic_prior=alpha, topic_word_prior=eta,
                       max_iter=sweeps_per_round, burn_in=sweeps_per_round // 2,
                       split_merge=False, random_state=1000 * random_state + r).fit(X)
        word_topic = lda.components_ - eta
        doc_topic = n_d[:, None] * lda.transform(X)
        alpha, eta = minka_fixed_point(doc_topic, word_topic, alpha, eta)
    return alpha, eta


def fixed_prior_lda(T, alpha, eta, n_iter, random_state):
    """The ordinary LDA fit every h gets: priors fixed, last quarter of the sweeps
    kept (the plain collapsed Gibbs chain of the paper's protocol: no split-merge
    moves)."""
    return GibbsLDA(T, doc_topic_prior=alpha, topic_word_prior=eta, max_iter=n_iter,
                    burn_in=n_iter - max(n_iter // 4, 1), split_merge=False,
                    random_state=random_state)


# ----------------------------------------------------------------- benchmark


def run_corpus(name, quick, seeds):
    """Every (seed, fold) unit: the candidates' perplexities on that fold."""
    T = len(CORPORA[name])
    X = load_corpus(CORPORA[name])
    n_lda = 100 if quick else 300
    n_fits = 1 if quick else 3
    n_folds_run = 2 if quick else N_FOLDS
    n_rounds, sweeps_per_round = (3, 100) if quick else (5, 200)
    results, h_values, gem_inside = {}, {}, []
    for seed in seeds:
        for fold, (X_train, X_test) in enumerate(islice(_folds(X, seed), n_folds_run)):
            unit = 1000 * seed + fold
            t0 = time.perf_counter()
            eb = EmpiricalBayesLDA(T, random_state=unit).fit(X_train)
            eb_seconds = time.perf_counter() - t0
            auto = GibbsLDA(T, random_state=unit).fit(X_train)
            gem = gibbs_em(X_train, T, n_rounds, sweeps_per_round, unit)
            gem_inside.append(eb.in_confidence_region(*gem))
            candidates = {
                "empirical Bayes (this package)": (eb.doc_topic_prior_, eb.topic_word_prior_),
                "GibbsLDA auto priors (defaults)": (auto.doc_topic_prior_,
                                                    auto.topic_word_prior_),
                "Gibbs-EM, Minka fixed point": gem,
                "ad hoc (50/T, 0.1)": (50.0 / T, 0.1),
                "ad hoc (0.1, 0.1)": (0.1, 0.1),
                "ad hoc (1/T, 1/T)": (1.0 / T, 1.0 / T),
            }
            for label, (alpha, eta) in candidates.items():
                ppl = np.mean([
                    document_completion(
                        fixed_prior_lda(T, alpha, eta, n_lda, 100 * unit + r).fit(X_train),
                        X_test, seed=unit)
                    for r in range(n_fits)
                ])
                results.setdefault(label, []).append(float(ppl))
                h_values.setdefault(label, []).append((alpha, eta))
            # the estimator's own model at h_hat
            own = "empirical Bayes, estimator's own components_"
            results.setdefault(own, []).append(document_completion(eb, X_test, seed=unit))
            h_values.setdefault(own, []).append((eb.doc_topic_prior_, eb.topic_word_prior_))
            print(name, seed, fold, {k: round(v[-1], 2) for k, v in results.items()},
                  f"EB fit {eb_seconds:.1f}s", flush=True)
    return X, T, results, h_values, gem_inside, (n_lda, n_fits, n_rounds, sweeps_per_round)


def _folds(X, seed):
    """``N_FOLDS``-fold split of the documents (shuffled by ``seed``): every
    document is held out once per seed (its halves are made by the metric)."""
    perm = np.random.RandomState(1000 + seed).permutation(X.shape[0])
    for held in np.array_split(perm, N_FOLDS):
        keep = np.ones(X.shape[0], dtype=bool)
        keep[held] = False
        yield X[keep], X[np.sort(held)]


def _verdict(mean, se):
    """EB better / tie / worse from the mean and s.e. of paired relative
    differences (baseline / EB - 1)."""
    if mean > 2 * se:
        return "EB better"
    if mean < -2 * se:
        return "EB worse"
    return "tie"


def main(quick=False):
    # GibbsLDA's own convergence warnings are not this benchmark's subject.
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [0] if quick else [0, 1, 2]
    sections = []
    verdicts = {}
    for name in CORPORA:
        X, T, results, h_values, gem_inside, (n_lda, n_fits, n_rounds, sweeps) = run_corpus(
            name, quick, seeds)
        eb = np.array(results["empirical Bayes (this package)"])
        n_units = len(eb)
        per_seed = n_units // len(seeds)
        rows = []
        for label, values in results.items():
            values = np.array(values)
            h = np.array(h_values[label])
            seed_means = values.reshape(len(seeds), per_seed).mean(axis=1)
            row = [label, f"{h[:, 0].mean():.4g}", f"{h[:, 1].mean():.4g}",
                   f"{values.mean():.2f}", " / ".join(f"{v:.1f}" for v in seed_means)]
            if label == "empirical Bayes (this package)":
                row += ["", "", ""]
            else:
                # paired over units (same training set, same held-out halves)
                rel = 100 * (values / eb - 1)
                se = rel.std(ddof=1) / np.sqrt(len(rel))
                verdict = _verdict(rel.mean(), se)
                if not label.startswith("empirical Bayes"):
                    verdicts[f"{name}: {label}"] = verdict
                row += [f"{rel.mean():+.2f}% ± {se:.2f}%",
                        f"{int(np.sum(eb < values))}/{n_units}", verdict]
            rows.append(row)
        sections.append(
            f"### {name}: {', '.join(CORPORA[name])} (T = {T}; D = {X.shape[0]}, V = {X.shape[1]}, "
            f"{int(X.sum())} tokens)\n\n"
            + markdown_table(["h", "alpha (mean)", "eta (mean)", "perplexity (mean over units)",
                              "per-seed means", "paired difference ± s.e.",
                              "EB better (units)", "verdict"], rows)
            + f"\n\nGibbs-EM's (alpha, eta) lies inside EmpiricalBayesLDA's 95% confidence "
            f"region in {int(np.sum(gem_inside))} of {n_units} units."
        )
    beaten = sorted(k for k, v in verdicts.items() if v == "EB better")
    tied = sorted(k for k, v in verdicts.items() if v == "tie")
    worse = sorted(k for k, v in verdicts.items() if v == "EB worse")
    body = (
        ("QUICK RUN (--quick: one seed, 2 folds, shorter fixed-h fits); not the benchmark's "
         "result.\n\n" if quick else "")
        + f"At most {PER_GROUP} training documents per group (the paper's corpora have ~190), "
        "CountVectorizer(stop_words='english', min_df=5), documents with >= 10 "
        f"tokens. {N_FOLDS}-fold cross-validation over documents for each of the seeds "
        f"{seeds}: a unit is one (seed, fold); its held-out documents are scored by document "
        "completion (`sklearn_pgtm.metrics.document_completion_perplexity`, the same halves "
        "for every h). In each unit EmpiricalBayesLDA and GibbsLDA (auto priors) run at "
        f"their defaults and Gibbs-EM runs {n_rounds} rounds of a {sweeps}-sweep GibbsLDA "
        "fit at fixed h followed by Minka's fixed point on its expected counts (module "
        "docstring), on the training documents; then every h row gets the same GibbsLDA fit "
        f"at fixed h ({n_lda} sweeps, topic-word counts averaged over the last quarter), "
        f"perplexity averaged over {n_fits} such fits. Lower is better. Paired difference: mean "
        "over units of (perplexity / empirical Bayes perplexity - 1) with its standard error "
        "(units of one seed share training documents, so the s.e. is somewhat optimistic); "
        "verdict: beyond 2 s.e. either way, otherwise tie.\n\n" + "\n\n".join(sections)
        + "\n\nSummary: EB better than "
        + (", ".join(beaten) or "none") + "; tie with " + (", ".join(tied) or "none")
        + "; EB worse than " + (", ".join(worse) or "none") + "."
    )
    write_section("eblda_20news", "EmpiricalBayesLDA: 20 Newsgroups document completion", body)
    return {"EB better than every baseline, both corpora": not tied and not worse,
            "ties": tied, "EB worse": worse}


if __name__ == "__main__":
    print(main(quick="--quick" in sys.argv))
