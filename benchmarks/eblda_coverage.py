"""EmpiricalBayesLDA: is the reported (batch-means) covariance honest?

One small synthetic corpus drawn from LDA; 20 independent chains (different
random_state). The spread of the 20 estimates h_hat should match the
covariance each chain reports (hyperparameter_covariance_). Reported:
empirical standard deviations across chains vs the mean reported standard
deviations, and how often a chain's 95% ellipse contains the mean of the
other 19 estimates (a stand-in for the exact argmax; expected near 95%,
slightly less because the leave-one-out mean is itself uncertain and batch
means with ~sqrt(n) batches is noisy).

    python benchmarks/eblda_coverage.py [--quick]
"""

import sys
import time

import numpy as np

from _results import markdown_table, write_section
from eblda_recovery import lda_corpus
from scipy.stats import chi2

from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm._eblda import _batch_means_covariance


def main(quick=False):
    n_chains = 10 if quick else 20
    n_samples, burn_in = (200, 100) if quick else (800, 200)
    X, _ = lda_corpus(300, 200, 3, 50, 0.3, 0.2, seed=7)
    rows = []
    for sampler in ("augmentation", "hmc"):
        t0 = time.perf_counter()
        models = [
            EmpiricalBayesLDA(3, sampler=sampler, n_samples=n_samples, burn_in=burn_in,
                              random_state=seed).fit(X)
            for seed in range(n_chains)
        ]
        seconds = time.perf_counter() - t0
        h = np.array([[m.doc_topic_prior_, m.topic_word_prior_] for m in models])
        sd_emp = h.std(axis=0, ddof=1)
        n_cbrt = max(2, int(np.floor(n_samples ** (1 / 3) + 1e-9)))
        n_sqrt = int(np.sqrt(n_samples))
        for label, n_batches in ((f"n^(1/3) = {n_cbrt} (default)", n_cbrt),
                                 (f"sqrt(n) = {n_sqrt} (paper)", n_sqrt)):
            covs = []
            for m, hh in zip(models, h):
                if n_batches == n_cbrt:
                    covs.append(m.hyperparameter_covariance_)
                else:
                    d = m._density
                    covs.append(_batch_means_covariance(d.shapes, d.rates, d.prior_shape,
                                                        d.prior_rate, hh, n_batches))
            sd_rep = np.sqrt(np.mean([np.diag(c) for c in covs], axis=0))
            covered = 0
            for i, c in enumerate(covs):
                diff = np.delete(h, i, axis=0).mean(axis=0) - h[i]
                covered += bool(diff @ np.linalg.pinv(c) @ diff <= chi2.ppf(0.95, 2))
            rows.append([sampler, label, f"{h[:, 0].mean():.4f}", f"{h[:, 1].mean():.4f}",
                         f"{sd_emp[0]:.2e}", f"{sd_rep[0]:.2e}", f"{sd_emp[0] / sd_rep[0]:.2f}",
                         f"{sd_emp[1]:.2e}", f"{sd_rep[1]:.2e}", f"{sd_emp[1] / sd_rep[1]:.2f}",
                         f"{covered}/{n_chains}", f"{seconds:.1f}"])
            print(rows[-1], flush=True)
    body = (
        f"Corpus: D = 300, V = 200, T = 3, n_d = 50, alpha = 0.3, eta = 0.2 (seed 7); "
        f"{n_chains} chains of {burn_in} burn-in + {n_samples} kept iterations each. "
        "sd across chains = standard deviation of the chains' h_hat; reported sd = "
        "root mean of the diagonal of hyperparameter_covariance_ (batch means; the "
        "estimator's default n^(1/3) batches, and the paper's sqrt(n) batches recomputed "
        "from the same chains). A ratio "
        "near 1 means the reported covariance matches the spread; no hard threshold.\n\n"
        + markdown_table(
            ["sampler", "batches", "mean alpha_hat", "mean eta_hat", "alpha: sd across chains",
             "alpha: reported sd", "ratio", "eta: sd across chains", "eta: reported sd",
             "ratio", "95% ellipse contains mean of other chains", "s (all chains)"],
            rows,
        )
    )
    write_section("eblda_coverage", "EmpiricalBayesLDA: spread of h_hat vs reported covariance",
                  body)
    # sd across chains / reported sd (alpha, eta), default batches
    return {f"{row[0]} sd ratio (alpha, eta)": (float(row[6]), float(row[9]))
            for row in rows if "default" in row[1]}


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
