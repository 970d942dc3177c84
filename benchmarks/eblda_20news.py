"""EmpiricalBayesLDA on 20 Newsgroups: held-out document completion perplexity.

Two corpora like Xia & Doss (2020), Table 1 (at most 200 training documents
per group; the paper has ~190):

- C-A, six distinct groups: comp.sys.ibm.pc.hardware, misc.forsale,
  soc.religion.christian, talk.politics.guns, rec.sport.baseball, sci.space
  (T = 6);
- C-B, five comp.* groups: comp.graphics, comp.os.ms-windows.misc,
  comp.sys.ibm.pc.hardware, comp.windows.x, comp.sys.mac.hardware (T = 5).

The empirical Bayes estimate h_hat is compared, in the same run, with the
three ad-hoc choices (alpha, eta) = (50/T, 0.1), (0.1, 0.1), (1/T, 1/T) and
with Gibbs-EM using Minka's fixed point. Every h gets the same ordinary LDA
fit (collapsed Gibbs at fixed h, same sweeps, same seeds), and the same
held-out documents are scored by document completion perplexity
(:mod:`sklearn_pgtm.metrics`). Several seeds; lower is better.

    python benchmarks/eblda_20news.py [--quick]
"""

import sys
import time
from itertools import islice
from pathlib import Path

import numpy as np
from scipy.special import digamma
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import CountVectorizer

from _results import markdown_table, write_section
from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm._base import check_counts, infer_doc_topics, random_topic_state, to_tokens
from sklearn_pgtm._kernels._random import make_streams
from sklearn_pgtm._kernels._sweeps import sample_topics

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "20newsgroups"
E2, E1 = np.zeros((0, 0)), np.zeros(0)

PER_GROUP = 200  # about the size of the paper's corpora (~190 documents per group)
N_FOLDS = 10

CORPORA = {
    "C-A": ["comp.sys.ibm.pc.hardware", "misc.forsale", "soc.religion.christian",
            "talk.politics.guns", "rec.sport.baseball", "sci.space"],
    "C-B": ["comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
            "comp.windows.x", "comp.sys.mac.hardware"],
}


def load_20news(groups, per_group=None, seed=0):
    """Count matrix of 20 Newsgroups training documents of ``groups`` (None: all),
    at most ``per_group`` documents of each group (random, fixed by ``seed``)."""
    data = fetch_20newsgroups(data_home=str(DATA), download_if_missing=False, subset="train",
                              categories=groups, remove=("headers", "footers", "quotes"),
                              shuffle=True, random_state=seed)
    docs = data.data
    if per_group is not None:
        target = np.asarray(data.target)
        keep = np.concatenate([np.flatnonzero(target == g)[:per_group] for g in np.unique(target)])
        docs = [docs[i] for i in np.sort(keep)]
    X = CountVectorizer(stop_words="english", min_df=5, max_df=0.5).fit_transform(docs)
    X = X[np.asarray(X.sum(axis=1)).ravel() >= 10]
    return X.tocsr()


# ----------------------------------------------------------------- baselines


def _histograms(doc_topic, word_topic):
    n_d = doc_topic.sum(axis=1)
    m_t = word_topic.sum(axis=0)
    return doc_topic[doc_topic > 0], n_d[n_d > 0], word_topic[word_topic > 0], m_t


def minka_fixed_point(doc_topic, word_topic, alpha, eta, n_iter=100):
    """Minka's fixed point for symmetric (alpha, eta) given the topic counts."""
    n_dt, n_d, m_tv, m_t = _histograms(doc_topic, word_topic)
    T = doc_topic.shape[1]
    V = word_topic.shape[0]
    for _ in range(n_iter):
        num = np.sum(digamma(n_dt + alpha) - digamma(alpha))
        den = T * np.sum(digamma(n_d + T * alpha) - digamma(T * alpha))
        alpha = alpha * num / den
        num = np.sum(digamma(m_tv + eta) - digamma(eta))
        den = V * np.sum(digamma(m_t + V * eta) - digamma(V * eta))
        eta = eta * num / den
    return float(alpha), float(eta)


class FixedPriorLDA(TransformerMixin, BaseEstimator):
    """Ordinary collapsed Gibbs LDA at fixed (alpha, eta), or Gibbs-EM with Minka's
    fixed point when ``minka=True`` (h updated every ``em_every`` sweeps)."""

    def __init__(self, n_components, alpha, eta, n_iter=300, minka=False, em_every=10,
                 n_infer_iter=50, random_state=0):
        self.n_components = n_components
        self.alpha = alpha
        self.eta = eta
        self.n_iter = n_iter
        self.minka = minka
        self.em_every = em_every
        self.n_infer_iter = n_infer_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        X = check_counts(self, X, reset=True)
        K, V = self.n_components, X.shape[1]
        rng = np.random.RandomState(self.random_state)
        doc_ptr, word_ids = to_tokens(X)
        topics, doc_topic, word_topic, topic_total = random_topic_state(
            doc_ptr, word_ids, K, V, int(rng.randint(2**31)))
        states = make_streams(int(rng.randint(2**31)), X.shape[0])
        alpha, eta = float(self.alpha), float(self.eta)
        acc = np.zeros(word_topic.shape)
        n_avg = max(self.n_iter // 4, 1)
        for it in range(self.n_iter):
            sample_topics(doc_ptr, word_ids, topics, doc_topic, word_topic, topic_total,
                          np.full(K, alpha), eta, V * eta, E2, E2, E1, E1, E1, E1, states)
            if self.minka and (it + 1) % self.em_every == 0 and it < self.n_iter - n_avg:
                alpha, eta = minka_fixed_point(doc_topic, word_topic, alpha, eta)
            if it >= self.n_iter - n_avg:
                acc += word_topic
        self.alpha_, self.eta_ = alpha, eta
        self.components_ = (acc / n_avg).T + eta
        self._phi = np.ascontiguousarray((self.components_ / self.components_.sum(1)[:, None]).T)
        self._seed = int(rng.randint(2**31))
        return self

    def transform(self, X):
        X = check_counts(self, X, reset=False)
        doc_ptr, word_ids = to_tokens(X)
        return infer_doc_topics(doc_ptr, word_ids, self._phi, np.full(self.n_components, self.alpha_),
                                self.n_infer_iter, self._seed)


# ----------------------------------------------------------------- benchmark


def run_corpus(name, quick, seeds):
    """Every (seed, fold) unit: the candidates' perplexities on that fold."""
    from sklearn_pgtm.metrics import document_completion_perplexity

    T = len(CORPORA[name])
    X = load_20news(CORPORA[name], per_group=PER_GROUP)
    n_lda = 100 if quick else 300
    n_fits = 1 if quick else 3
    n_folds_run = 2 if quick else N_FOLDS
    eb_samples, eb_burn = (150, 100) if quick else (1000, 300)
    results, h_values, gem_inside = {}, {}, []
    for seed in seeds:
        for fold, (X_train, X_test) in enumerate(islice(_folds(X, seed), n_folds_run)):
            unit = 1000 * seed + fold
            t0 = time.perf_counter()
            eb = EmpiricalBayesLDA(T, n_samples=eb_samples, burn_in=eb_burn,
                                   random_state=unit).fit(X_train)
            eb_seconds = time.perf_counter() - t0
            minka = FixedPriorLDA(T, 1.0 / T, 1.0 / T, n_iter=eb_samples + eb_burn, minka=True,
                                  random_state=unit).fit(X_train)
            gem_inside.append(eb.in_confidence_region(minka.alpha_, minka.eta_))
            candidates = {
                "empirical Bayes (this package)": (eb.doc_topic_prior_, eb.topic_word_prior_),
                "Gibbs-EM, Minka fixed point": (minka.alpha_, minka.eta_),
                "ad hoc (50/T, 0.1)": (50.0 / T, 0.1),
                "ad hoc (0.1, 0.1)": (0.1, 0.1),
                "ad hoc (1/T, 1/T)": (1.0 / T, 1.0 / T),
            }
            for label, (alpha, eta) in candidates.items():
                ppl = np.mean([
                    document_completion_perplexity(
                        FixedPriorLDA(T, alpha, eta, n_iter=n_lda,
                                      random_state=100 * unit + r).fit(X_train),
                        X_test, random_state=unit)
                    for r in range(n_fits)
                ])
                results.setdefault(label, []).append(float(ppl))
                h_values.setdefault(label, []).append((alpha, eta))
            # the estimator's own model at h_hat
            own = "empirical Bayes, estimator's own components_"
            results.setdefault(own, []).append(
                document_completion_perplexity(eb, X_test, random_state=unit))
            h_values.setdefault(own, []).append((eb.doc_topic_prior_, eb.topic_word_prior_))
            print(name, seed, fold, {k: round(v[-1], 2) for k, v in results.items()},
                  f"EB fit {eb_seconds:.1f}s", flush=True)
    return X, T, results, h_values, gem_inside, (n_lda, n_fits, eb_burn, eb_samples)


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
    seeds = [0] if quick else [0, 1, 2]
    sections = []
    verdicts = {}
    for name in CORPORA:
        X, T, results, h_values, gem_inside, (n_lda, n_fits, eb_burn, eb_samples) = run_corpus(
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
        f"At most {PER_GROUP} training documents per group (the paper's corpora have ~190), "
        "CountVectorizer(stop_words='english', min_df=5, max_df=0.5), documents with >= 10 "
        f"tokens. {N_FOLDS}-fold cross-validation over documents for each of the seeds "
        f"{seeds}: a unit is one (seed, fold); its held-out documents are scored by document "
        "completion (`sklearn_pgtm.metrics.document_completion_perplexity`, the same halves "
        "for every h). In each unit EmpiricalBayesLDA runs "
        f"{eb_burn} + {eb_samples} iterations and Gibbs-EM (Minka's fixed point, iterated to "
        "convergence, every 10 sweeps on the current sample) the same number of sweeps on the "
        "training documents; then every h row gets the same ordinary collapsed Gibbs LDA "
        f"({n_lda} sweeps at fixed h, topic-word counts averaged over the last quarter), "
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
    main(quick="--quick" in sys.argv)
