"""The measurement behind the ``"auto"`` Dirichlet priors (issue 12).

``GibbsLDA`` and ``CorrelatedTopicModel`` default to ``"auto"`` priors: the
empirical-Bayes estimate made inside the chain (user guide, "Estimated
Dirichlet priors"). This script fits both at their defaults and with the
fixed priors a user would otherwise pick, side by side in one run, on the
three real corpora of ``benchmarks/ctm_settings.py`` (432 20 Newsgroups
messages, the five comp.* groups, AP; K = 20, 10 % of the documents held
out), scored by held-out document-completion perplexity:

- GibbsLDA: ``(doc_topic_prior, topic_word_prior)`` = ("auto", "auto"),
  (1 / K, 1 / K) (scikit-learn's defaults), (0.1, 0.01) (tomotopy's
  LDAModel defaults), (50 / K, 0.1) (Griffiths & Steyvers);
- CorrelatedTopicModel, both links: ``topic_word_prior`` = "auto", 0.01 (the
  default before issue 12) and 0.1.

Every other parameter at its default; ``random_state`` 0 (``--seed`` for
another, written to its own section). One thread.

``--part empty-columns``: what columns that no document uses do to the
"auto" priors, as a ``HashingVectorizer`` (2^20 columns by default) makes
them. The 432 messages' 7,174 columns are placed at random among more
columns, 10 % and 25 % of them empty, and 2^14, 2^15, 2^18 and 2^20
(training and held-out documents alike, so the held-out tokens are the
same words); GibbsLDA, EmpiricalBayesLDA and CorrelatedTopicModel at their
defaults and scikit-learn's LatentDirichletAllocation, scored as above, and
GibbsLDA behind scikit-learn's ``VarianceThreshold()``, which drops the
columns empty in training (the user guide's advice); random_state 0, 1, 2
(``--seed`` shifts them). Written to its own section
(priors_empty_columns).

Usage: python benchmarks/priors.py [--quick] [--seed N] [--part {auto,empty-columns}]
"""

import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _corpora import document_completion  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402
from ctm_settings import real_corpora  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from sklearn_pgtm import CorrelatedTopicModel, EmpiricalBayesLDA, GibbsLDA  # noqa: E402


def lda_settings(n_topics):
    return [("auto", "auto"), (1.0 / n_topics, 1.0 / n_topics), (0.1, 0.01),
            (50.0 / n_topics, 0.1)]


CTM_BETAS = ["auto", 0.01, 0.1]
LINKS = ["logistic_normal", "stick_breaking"]


def _fmt(value):
    return value if isinstance(value, str) else f"{value:g}"


def timed_fit(model, X):
    """Fit ``model`` on ``X`` (warnings silenced); the fit's seconds."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    return time.perf_counter() - start


def fit_and_score(model, corpus, quick):
    """Fit ``model`` on the corpus's training documents; held-out perplexity
    and fit seconds."""
    if quick:
        model.set_params(max_iter=40, burn_in=20)
    seconds = timed_fit(model, corpus.X_train)
    return document_completion(model, corpus.X_heldout), seconds


def rows_for(corpus, quick, seed):
    k = corpus.n_topics
    rows = []
    for alpha, beta in lda_settings(k):
        model = GibbsLDA(k, doc_topic_prior=alpha, topic_word_prior=beta, random_state=seed)
        perplexity, seconds = fit_and_score(model, corpus, quick)
        rows.append([corpus.name, "GibbsLDA", _fmt(alpha), _fmt(beta), f"{perplexity:.1f}",
                     f"{model.doc_topic_prior_:.3g} / {model.topic_word_prior_:.3g}",
                     f"{seconds:.1f}"])
        print(rows[-1], flush=True)
    for link in LINKS:
        for beta in CTM_BETAS:
            model = CorrelatedTopicModel(k, link=link, topic_word_prior=beta,
                                         random_state=seed)
            perplexity, seconds = fit_and_score(model, corpus, quick)
            rows.append([corpus.name, f"CTM {link}", "", _fmt(beta), f"{perplexity:.1f}",
                         f"{model.topic_word_prior_:.3g}", f"{seconds:.1f}"])
            print(rows[-1], flush=True)
    return rows


def main(quick=False, seed=0):
    corpora = real_corpora(quick)
    rows = [row for corpus in corpora for row in rows_for(corpus, quick, seed)]
    body = (
        "GibbsLDA and CorrelatedTopicModel at their defaults (\"auto\" priors, estimated "
        "inside the chain) and with fixed priors a user would otherwise pick: for GibbsLDA "
        "(1 / K, 1 / K) (scikit-learn's defaults), (0.1, 0.01) (tomotopy LDAModel's) and "
        "(50 / K, 0.1) (Griffiths & Steyvers); for CorrelatedTopicModel topic_word_prior "
        "0.01 (its default before issue 12) and 0.1. Every other parameter at its default, "
        f"random_state={seed}, one thread. Real corpora (10 % of the documents held out, "
        "document-completion perplexity, lower is better): "
        + "; ".join(c.describe() for c in corpora)
        + ". Fitted: `doc_topic_prior_` / `topic_word_prior_` (GibbsLDA) or "
        "`topic_word_prior_` (CorrelatedTopicModel).\n\n"
        + markdown_table(["corpus", "model", "doc_topic_prior", "topic_word_prior",
                          "perplexity", "fitted priors", "fit s"], rows)
    )
    print(body)
    name = "priors_auto" if seed == 0 else f"priors_auto_seed{seed}"
    write_section(name, "The \"auto\" priors against fixed ones"
                  + ("" if seed == 0 else f", random_state={seed}"), body)


# Shares of empty columns (a vocabulary built on more documents than the
# training ones) and a HashingVectorizer's widths.
EMPTY_SHARES = (0.0, 0.1, 0.25)
HASH_WIDTHS = (2 ** 14, 2 ** 15, 2 ** 18, 2 ** 20)


def widen(X, n_columns, columns):
    """``X`` with its column j moved to ``columns[j]`` of ``n_columns``."""
    X = sp.csr_matrix(X)
    # Copies: sort_indices reorders the data in place, and a wide matrix
    # sharing X's data array would scramble X's counts.
    wide = sp.csr_matrix((X.data.copy(), columns[X.indices], X.indptr.copy()),
                         shape=(X.shape[0], n_columns))
    wide.sort_indices()
    return wide


def empty_column_models(k):
    """(name, factory of random_state) of part empty-columns; the last one
    is fitted behind ``VarianceThreshold()`` (the user guide's advice)."""
    from sklearn.decomposition import LatentDirichletAllocation

    return [
        ("GibbsLDA", lambda rs: GibbsLDA(k, random_state=rs)),
        ("EmpiricalBayesLDA", lambda rs: EmpiricalBayesLDA(k, random_state=rs)),
        ("CTM logistic normal", lambda rs: CorrelatedTopicModel(k, random_state=rs)),
        ("scikit-learn LatentDirichletAllocation",
         lambda rs: LatentDirichletAllocation(k, random_state=rs)),
        ("VarianceThreshold() then GibbsLDA", lambda rs: GibbsLDA(k, random_state=rs)),
    ]


def fit_wide(name, model, X_train, X_heldout, quick):
    """Held-out perplexity, fitted priors and fit seconds of one model."""
    from sklearn.feature_selection import VarianceThreshold

    if name.startswith("VarianceThreshold"):
        selector = VarianceThreshold().fit(X_train)
        X_train, X_heldout = selector.transform(X_train), selector.transform(X_heldout)
    if quick and name == "EmpiricalBayesLDA":
        model.set_params(burn_in=20, n_samples=20, n_final_iter=20)
    elif quick and not name.startswith("scikit"):
        model.set_params(max_iter=40, burn_in=20)
    seconds = timed_fit(model, X_train)
    priors = [np.mean(getattr(model, a)) for a in ("doc_topic_prior_", "topic_word_prior_")
              if hasattr(model, a)]
    return document_completion(model, X_heldout), priors, seconds


def main_empty_columns(quick=False, seed=0):
    corpus = real_corpora(quick)[0]
    k = corpus.n_topics
    n_words = corpus.X_train.shape[1]
    seeds = [seed] if quick else [seed, seed + 1, seed + 2]
    widths = [int(round(n_words / (1 - share))) for share in EMPTY_SHARES] + list(HASH_WIDTHS)
    rows, reference = [], {}
    for width in widths:
        columns = np.random.default_rng(seed).choice(width, n_words, replace=False)
        X_train = widen(corpus.X_train, width, columns)
        X_heldout = widen(corpus.X_heldout, width, columns)
        for name, factory in empty_column_models(k):
            fits = [fit_wide(name, factory(rs), X_train, X_heldout, quick) for rs in seeds]
            perplexity = np.mean([f[0] for f in fits])
            reference.setdefault(name, perplexity)
            priors = " / ".join(f"{v:.3g}" for v in np.mean([f[1] for f in fits], axis=0))
            rows.append([f"{width:,}", f"{1 - n_words / width:.0%}", name, f"{perplexity:.1f}",
                         " / ".join(f"{f[0]:.1f}" for f in fits),
                         f"{100 * (perplexity / reference[name] - 1):+.1f} %", priors,
                         f"{np.mean([f[2] for f in fits]):.1f}"])
            print(rows[-1], flush=True)
    body = (
        f"{corpus.describe()}; its {n_words:,} columns (every one used by a training "
        "document) placed at random among more columns that no document uses (the same "
        "places for the held-out documents): shares of 10 % and 25 % empty columns, as a "
        "vocabulary built on more documents than the training ones leaves, and the widths "
        "of a `HashingVectorizer` (2^14 to 2^20; its default is 2^20). Every model at its "
        f"defaults (K = {k}, one thread), random_state {', '.join(map(str, seeds))}; held-out "
        "document-completion perplexity (lower is better), its mean and change against "
        "the same model on the columns in use (first rows); `VarianceThreshold()` then "
        "GibbsLDA: the columns with no training count dropped first (the threshold's "
        "default, variance 0, in fit; the same columns in transform). Fitted priors: "
        "`doc_topic_prior_` / `topic_word_prior_` (means; the correlated model estimates "
        "the second only). The first fits of a fresh checkout include compiling.\n\n"
        + markdown_table(["columns", "empty", "model", "perplexity", "per seed", "change",
                          "fitted priors", "fit s"], rows))
    print(body)
    write_section("priors_empty_columns", "The \"auto\" priors and columns that no "
                  "document uses", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--part", choices=["auto", "empty-columns"], default="auto")
    args = parser.parse_args()
    if args.part == "auto":
        main(args.quick, args.seed)
    else:
        main_empty_columns(args.quick, args.seed)
