"""EmpiricalBayesLDA: recovery of (alpha, eta) from corpora drawn from LDA.

Xia & Doss (2020), Table 3 setting: D = 2000, V = 1000, n_d = 80, T = 4,
alpha = (0.2, 0.4, 0.6, 0.8), eta = 0.5 (one alpha per topic), and a
symmetric case D = 1000, V = 500, T = 5, alpha = 0.3, eta = 0.1 (corpora
from ``benchmarks/_corpora.lda_corpus``). Both hyperparameter updates
(augmentation and HMC) are run at the estimator's defaults and, in the full
run, also with a longer chain (500 burn-in + 1,500 kept iterations);
estimated topics are matched to the true ones (Hungarian matching of the
normalized ``components_``) before comparing alpha_t. Only the public API is
used (``doc_topic_prior_``, ``topic_word_prior_``,
``hyperparameter_covariance_``, ``acceptance_rate_``, ``components_``).

Targets: every alpha_t within 15% and eta within 10% (asymmetric case);
alpha and eta within 10% (symmetric case).

    python benchmarks/eblda_recovery.py [--quick]
"""

import sys
import time

import numpy as np

from _corpora import lda_corpus, match_topics
from _results import markdown_table, write_section
from sklearn_pgtm import EmpiricalBayesLDA


CASES = [
    # name, D, V, T, alpha, eta, symmetric, alpha tolerance, eta tolerance
    ("Table 3 (asymmetric)", 2000, 1000, 4, (0.2, 0.4, 0.6, 0.8), 0.5, False, 0.15, 0.10),
    ("symmetric", 1000, 500, 5, 0.3, 0.1, True, 0.10, 0.10),
]


def main(quick=False):
    # (label, parameters): the defaults first; a longer chain in the full run
    schedules = [("defaults", {})]
    if not quick:
        schedules.append(("burn_in=500, n_samples=1500", {"burn_in": 500, "n_samples": 1500}))
    rows = []
    ok_defaults = True
    for name, D, V, T, alpha, eta, symmetric, tol_a, tol_e in CASES:
        if quick:
            D = D // 2
        X, phi, _ = lda_corpus(D, V, T, 80, alpha, eta, seed=2020)
        for schedule, params in schedules:
            for sampler in ("augmentation", "hmc"):
                t0 = time.perf_counter()
                model = EmpiricalBayesLDA(T, sampler=sampler, symmetric_alpha=symmetric,
                                          random_state=0, **params).fit(X)
                seconds = time.perf_counter() - t0
                sd = np.sqrt(np.diag(model.hyperparameter_covariance_))
                if symmetric:
                    a_hat = np.array([model.doc_topic_prior_])
                    a_true = np.array([alpha])
                    sd_a = sd[:1]
                else:
                    order, _ = match_topics(model.components_, phi)
                    a_hat = model.doc_topic_prior_[order]
                    a_true = np.asarray(alpha)
                    sd_a = sd[:-1][order]
                e_hat = model.topic_word_prior_
                err_a = np.abs(a_hat / a_true - 1)
                err_e = abs(e_hat / eta - 1)
                ok = bool(np.all(err_a <= tol_a) and err_e <= tol_e)
                if schedule == "defaults":
                    ok_defaults &= ok
                rows.append([
                    name, f"D={D} V={V} T={T}", schedule, sampler,
                    ", ".join(f"{a:.3f}" for a in a_true), ", ".join(f"{a:.3f}" for a in a_hat),
                    ", ".join(f"{e * 100:.1f}%" for e in err_a),
                    f"{eta:.3f}", f"{e_hat:.4f}", f"{err_e * 100:.1f}%",
                    ", ".join(f"{s:.2g}" for s in np.r_[sd_a, sd[-1]]),
                    "-" if sampler != "hmc" else f"{model.acceptance_rate_:.2f}",
                    f"{seconds:.1f}", "yes" if ok else "NO",
                ])
                print(rows[-1], flush=True)
    body = (
        ("QUICK RUN (--quick: half the documents, defaults only); not the benchmark's result.\n\n"
         if quick else "")
        + "n_d = 80, one corpus per case (seed 2020), random_state=0; `defaults` = the "
        "estimator's default schedule. Target: asymmetric alpha_t within 15% and eta within "
        "10%; symmetric alpha and eta within 10%. Times on a loaded 2-core machine.\n\n"
        + markdown_table(
            ["case", "corpus", "schedule", "sampler", "alpha true", "alpha hat",
             "alpha rel. error", "eta true", "eta hat", "eta rel. error",
             "reported MC sd (alpha..., eta)", "HMC acceptance", "fit s (loaded machine)",
             "within target"],
            rows,
        )
        + f"\n\nAll at-defaults rows within target: {'yes' if ok_defaults else 'NO'}."
    )
    write_section("eblda_recovery", "EmpiricalBayesLDA: recovery of (alpha, eta)", body)
    return {"every at-defaults estimate within its tolerance": bool(ok_defaults)}


if __name__ == "__main__":
    print(main(quick="--quick" in sys.argv))
