"""Calibration of ``sample_transform``: do the 90 % posterior intervals of
documents' topic proportions cover the true proportions 90 % of the time?

For each model, a corpus is drawn from the model itself (known topics and
proportions): LDA (for GibbsLDA, EmpiricalBayesLDA and the supervised model,
whose label is drawn from the proportions) and the logistic-normal correlated
model (for CorrelatedTopicModel, both links), and for DynamicTopicModel the
dynamic model (topics whose stick-breaking logits drift over five slices,
documents of each slice drawn from LDA with that slice's topics). The model
is fitted at its
defaults (only ``n_components``, ``random_state``, and ``c`` for the
classifier) on the training documents; for held-out documents drawn from the
same model, ``sample_transform(X, n_samples=200)`` gives posterior draws of
the proportions, and the central 90 % interval of each (document, topic) is
checked against the true proportion, after matching the fitted topics to the
true ones (Hungarian matching on the L1 distance). Target: coverage between
85 % and 95 %. Interval widths are reported too (narrow is better at equal
coverage).

Usage: ``python benchmarks/uncertainty.py [--quick]``.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpora import match_topics  # noqa: E402
from _results import markdown_table, write_section  # noqa: E402


def lda_documents(rng, phi, alpha, n_docs, length):
    theta = rng.dirichlet(alpha, size=n_docs)
    X = np.vstack([rng.multinomial(length, t @ phi) for t in theta])
    return X, theta


def ctm_documents(rng, phi, mu, sigma, n_docs, length):
    eta = rng.multivariate_normal(mu, sigma, size=n_docs)
    theta = np.exp(eta - eta.max(axis=1, keepdims=True))
    theta /= theta.sum(axis=1, keepdims=True)
    X = np.vstack([rng.multinomial(length, t @ phi) for t in theta])
    return X, theta


def dtm_documents(rng, beta, alpha, per_slice, length):
    """``per_slice`` documents of each slice of the topics ``beta`` (S, K, V):
    counts, proportions and each document's slice."""
    times = np.repeat(np.arange(beta.shape[0]), per_slice)
    theta = rng.dirichlet(alpha, size=times.size)
    X = np.vstack([rng.multinomial(length, t @ beta[s]) for t, s in zip(theta, times)])
    return X, theta, times


def drifting_topics(rng, phi, n_slices, chain_variance):
    """Topics (S, K, V) whose stick-breaking logits start at those of ``phi``
    and follow a Gaussian random walk (the dynamic model's prior)."""
    from dtm import inverse_stick_breaking_np, stick_breaking_np

    steps = np.sqrt(chain_variance) * rng.standard_normal(
        (phi.shape[0], phi.shape[1] - 1, n_slices))
    steps[:, :, 0] = inverse_stick_breaking_np(phi + 1e-12)
    beta = stick_breaking_np(np.cumsum(steps, axis=2)).transpose(2, 0, 1)
    return beta / beta.sum(axis=2, keepdims=True)


def coverage(model, X, theta, phi, n_samples, times=None, level=0.9):
    """Share of (document, topic) pairs whose true proportion lies in the
    central ``level`` interval of the draws, topics matched to the truth
    (a dynamic model's (S, K, V) topics over all slices at once, the
    distance then the mean over the slices)."""
    if times is None:
        order, distance = match_topics(model.components_[:phi.shape[0]], phi)
        draws = model.sample_transform(X, n_samples=n_samples)[:, :, order]
    else:
        n_slices, n_topics, n_words = phi.shape
        fitted = model.components_ / model.components_.sum(axis=2, keepdims=True)
        order, distance = match_topics(
            fitted.transpose(1, 0, 2).reshape(n_topics, -1),
            phi.transpose(1, 0, 2).reshape(n_topics, -1) / n_slices)
        draws = model.sample_transform(X, times, n_samples=n_samples)[:, :, order]
    lo, hi = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    inside = (theta >= lo) & (theta <= hi)
    return inside.mean(), (hi - lo).mean(), distance.max()


def main(quick=False):
    from sklearn_pgtm import (
        CorrelatedTopicModel,
        DynamicTopicModel,
        EmpiricalBayesLDA,
        GibbsLDA,
        GibbsSLDAClassifier,
    )

    warnings.simplefilter("ignore")
    rng = np.random.RandomState(0)
    K, V = 5, 300
    n_train, n_test, length = (300, 60, 60) if quick else (1500, 200, 80)
    n_samples = 60 if quick else 200
    phi = rng.dirichlet(np.full(V, 0.05), size=K)
    alpha = np.full(K, 0.5)
    X_train, theta_train = lda_documents(rng, phi, alpha, n_train, length)
    X_test, theta_test = lda_documents(rng, phi, alpha, n_test, length)
    y_train = (theta_train[:, 0] > np.median(theta_train[:, 0])).astype(int)
    corr = np.eye(K)
    corr[0, 1] = corr[1, 0] = 0.6
    corr[2, 3] = corr[3, 2] = -0.5
    sigma = 1.2 * corr
    Xc_train, _ = ctm_documents(rng, phi, np.zeros(K), sigma, n_train, length)
    Xc_test, thetac_test = ctm_documents(rng, phi, np.zeros(K), sigma, n_test, length)
    n_slices = 5
    beta = drifting_topics(rng, phi, n_slices, chain_variance=0.1)
    Xd_train, _, times_train = dtm_documents(rng, beta, alpha, n_train // n_slices, length)
    Xd_test, thetad_test, times_test = dtm_documents(rng, beta, alpha, n_test // n_slices,
                                                     length)

    cases = [
        ("GibbsLDA", "LDA", lambda: GibbsLDA(K, random_state=0).fit(X_train), X_test,
         theta_test, phi, None),
        ("EmpiricalBayesLDA", "LDA", lambda: EmpiricalBayesLDA(K, random_state=0).fit(X_train),
         X_test, theta_test, phi, None),
        ("GibbsSLDAClassifier (c=25)", "LDA + label",
         lambda: GibbsSLDAClassifier(K, c=25.0, random_state=0).fit(X_train, y_train), X_test,
         theta_test, phi, None),
        ("CorrelatedTopicModel (logistic_normal)", "logistic-normal CTM",
         lambda: CorrelatedTopicModel(K, random_state=0).fit(Xc_train), Xc_test, thetac_test,
         phi, None),
        ("CorrelatedTopicModel (stick_breaking)", "logistic-normal CTM",
         lambda: CorrelatedTopicModel(K, link="stick_breaking", random_state=0).fit(Xc_train),
         Xc_test, thetac_test, phi, None),
        ("DynamicTopicModel", "dynamic topics, 5 slices",
         lambda: DynamicTopicModel(K, random_state=0).fit(Xd_train, times=times_train),
         Xd_test, thetad_test, beta, times_test),
    ]
    rows, summary = [], {}
    for name, corpus, fit, X, theta, topics, times in cases:
        tic = time.perf_counter()
        model = fit()
        cov, width, worst = coverage(model, X, theta, topics, n_samples, times)
        seconds = time.perf_counter() - tic
        ok = 0.85 <= cov <= 0.95
        rows.append([name, corpus, f"{100 * cov:.1f}%", f"{width:.3f}", f"{worst:.2f}",
                     f"{seconds:.1f}", "yes" if ok else "no"])
        summary[name] = {"coverage": cov, "within_target": ok}
        print(rows[-1], flush=True)
    body = (
        f"K = {K} topics over V = {V} words (true topics Dirichlet(0.05)), {n_train} training "
        f"and {n_test} held-out documents of {length} tokens; LDA corpus with alpha = 0.5, "
        "CTM corpus with mu = 0 and Sigma = 1.2 x a correlation matrix with +0.6 and -0.5 "
        f"pairs, dynamic corpus: the same topics in the first of {n_slices} slices, their "
        "stick-breaking logits a random walk of step variance 0.1, documents of each slice "
        "drawn from LDA (alpha = 0.5) with its topics (a dynamic model's worst topic L1: the "
        f"mean over the slices). Every model at its defaults; {n_samples} draws of "
        "`sample_transform` per held-out document; central 90 % interval per (document, topic), topics matched to "
        "the truth. Target: coverage in [85 %, 95 %].\n\n"
        + markdown_table(["model", "corpus drawn from", "coverage of 90 % intervals",
                          "mean interval width", "worst topic L1 distance", "fit + draws s",
                          "within target"], rows))
    if not quick:
        write_section("uncertainty", "sample_transform: coverage of posterior intervals", body)
    print(body)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    main(quick=parser.parse_args().quick)
