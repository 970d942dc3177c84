"""CorrelatedTopicModel on all of 20 Newsgroups, K = 100, every pg_method: no NaN.

Chen et al. (2013) report that with an approximate Pólya-Gamma sampler the
logistic-normal CTM's eta can run off to infinity. Here every link and
pg_method is fitted on the whole 20 Newsgroups corpus (18,846 documents,
``CountVectorizer(stop_words="english", min_df=2)``) with K = 100; each fit must
end with finite parameters, or stop with the package's clear divergence
error. This checks stability over tens of sweeps, not convergence.

Usage: python benchmarks/ctm_20news_stability.py [--quick]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import markdown_table, write_section  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "20newsgroups"


def main(quick=False):
    from sklearn.datasets import fetch_20newsgroups
    from sklearn.feature_extraction.text import CountVectorizer

    from sklearn_pgtm import CorrelatedTopicModel

    if not DATA.exists():
        print("20 Newsgroups data not found at", DATA)
        return
    news = fetch_20newsgroups(data_home=str(DATA), subset="all", download_if_missing=False)
    X = CountVectorizer(stop_words="english", min_df=2).fit_transform(news.data)
    if quick:
        X = X[:1000]
    K = 20 if quick else 100
    rows = []
    # The default ("auto": exact below b = 5, the shifted gamma above) first;
    # the approximate samplers are the ones reported to diverge. Each runs 60
    # sweeps (a plain-LDA warm-up of a third of the burn-in, 12 sweeps, then
    # 48 correlated ones). Exact draws of PG(N_d, rho) cost O(N_d) each, K * S
    # of them per document and sweep, so the exact rows are shorter.
    plans = [
        ("logistic_normal", "auto", 60), ("stick_breaking", "auto", 60),
        ("logistic_normal", "gaussian", 60), ("logistic_normal", "pg1", 60),
        ("logistic_normal", "truncated", 60),
        ("stick_breaking", "gaussian", 60), ("stick_breaking", "pg1", 60),
        ("stick_breaking", "truncated", 60), ("stick_breaking", "exact", 30),
        ("logistic_normal", "exact", 8),
    ]
    n_jobs = 2  # both cores: the slow samplers make this a long benchmark
    for link, method, max_iter in plans:
        if quick:
            max_iter = 3
        model = CorrelatedTopicModel(K, link=link, pg_method=method, max_iter=max_iter,
                                     random_state=0, n_jobs=n_jobs)
        t0 = time.perf_counter()
        largest_mean = largest_variance = float("nan")
        try:
            model.fit(X)
            finite = all(np.all(np.isfinite(a)) for a in
                         (model.components_, model.mean_, model.covariance_,
                          model.topic_correlation_))
            outcome = "finite" if finite else "NON-FINITE"
            largest_mean = float(np.max(np.abs(model.mean_)))
            largest_variance = float(np.max(np.diag(model.covariance_)))
        except FloatingPointError as exc:
            outcome = f"stopped with FloatingPointError: {exc}"
        seconds = time.perf_counter() - t0
        rows.append([link, method, max_iter, n_jobs, outcome, f"{largest_mean:.3g}",
                     f"{largest_variance:.3g}", f"{seconds:.0f}"])
        print(rows[-1], flush=True)
    body = (
        f"All of 20 Newsgroups: {X.shape[0]} documents, {X.shape[1]} words, {int(X.sum())} "
        f"tokens; K = {K}; n_subiter = {model.n_subiter} (the default), other "
        "parameters at their defaults but pg_method and max_iter. Outcome 'finite': every "
        "fitted array "
        "(components_, mean_, covariance_, topic_correlation_) is finite. max abs(mu) and "
        "max Sigma_kk: the largest entries of the fitted mean_ and of the diagonal of "
        "covariance_ (a run-off of eta, as Chen et al. report for approximate samplers, "
        "would show as growing values here).\n\n"
        + markdown_table(["link", "pg_method", "sweeps", "n_jobs", "outcome", "max abs(mu)",
                          "max Sigma_kk", "seconds"], rows)
    )
    print(body)
    write_section("ctm_20news_stability",
                  "CorrelatedTopicModel on all of 20 Newsgroups, K = 100: stability", body)
    return {f"{row[0]} {row[1]}": row[4] for row in rows}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
