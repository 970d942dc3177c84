"""EmpiricalBayesLDA: recovery of (alpha, eta) from corpora drawn from LDA.

Xia & Doss (2020), Table 3 setting: D = 2000, V = 1000, n_d = 80, T = 4,
alpha = (0.2, 0.4, 0.6, 0.8), eta = 0.5 (one alpha per topic), and a
symmetric case D = 1000, V = 500, T = 5, alpha = 0.3, eta = 0.1. Both
hyperparameter updates (augmentation and HMC) are run; estimated topics are
matched to the true ones (Hungarian matching of topic-word distributions)
before comparing alpha_t.

Targets: every alpha_t within 15% and eta within 10% (asymmetric case);
alpha and eta within 10% (symmetric case).

    python benchmarks/eblda_recovery.py [--quick]
"""

import sys
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

from _results import markdown_table, write_section
from sklearn_pgtm import EmpiricalBayesLDA


def lda_corpus(n_docs, n_words, n_topics, doc_length, alpha, eta, seed):
    """Document-term counts drawn from LDA; returns (X, phi (T, V))."""
    rng = np.random.RandomState(seed)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    phi = rng.dirichlet(np.full(n_words, eta), size=n_topics)
    theta = rng.dirichlet(alpha, size=n_docs)
    X = np.zeros((n_docs, n_words), dtype=np.int64)
    for d in range(n_docs):
        z = rng.multinomial(doc_length, theta[d])
        for t in np.flatnonzero(z):
            X[d] += rng.multinomial(z[t], phi[t])
    return X, phi


def match_topics(components, phi):
    """Index ``order`` such that estimated topic ``order[t]`` matches true topic t."""
    est = components / components.sum(axis=1, keepdims=True)
    cost = np.abs(est[:, None, :] - phi[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    order = np.empty(phi.shape[0], dtype=int)
    order[cols] = rows
    return order


CASES = [
    # name, D, V, T, alpha, eta, symmetric, alpha tolerance, eta tolerance
    ("Table 3 (asymmetric)", 2000, 1000, 4, (0.2, 0.4, 0.6, 0.8), 0.5, False, 0.15, 0.10),
    ("symmetric", 1000, 500, 5, 0.3, 0.1, True, 0.10, 0.10),
]


def main(quick=False):
    n_samples, burn_in = (300, 150) if quick else (1500, 500)
    rows = []
    ok_all = True
    for name, D, V, T, alpha, eta, symmetric, tol_a, tol_e in CASES:
        if quick:
            D = D // 2
        X, phi = lda_corpus(D, V, T, 80, alpha, eta, seed=2020)
        for sampler in ("augmentation", "hmc"):
            t0 = time.perf_counter()
            model = EmpiricalBayesLDA(
                T, sampler=sampler, symmetric_alpha=symmetric, n_samples=n_samples,
                burn_in=burn_in, random_state=0,
            ).fit(X)
            seconds = time.perf_counter() - t0
            if symmetric:
                a_hat = np.array([model.doc_topic_prior_])
                a_true = np.array([alpha])
                se_a = np.sqrt(model.hyperparameter_covariance_[0, 0])[None]
            else:
                order = match_topics(model.components_, phi)
                a_hat = model.doc_topic_prior_[order]
                a_true = np.asarray(alpha)
                se_a = np.sqrt(np.diag(model.hyperparameter_covariance_))[:-1][order]
            e_hat = model.topic_word_prior_
            err_a = np.abs(a_hat / a_true - 1)
            err_e = abs(e_hat / eta - 1)
            ok = bool(np.all(err_a <= tol_a) and err_e <= tol_e)
            ok_all &= ok
            se_e = np.sqrt(model.hyperparameter_covariance_[-1, -1])
            rows.append([
                name, f"D={D} V={V} T={T}", sampler,
                ", ".join(f"{a:.3f}" for a in a_true), ", ".join(f"{a:.3f}" for a in a_hat),
                ", ".join(f"{e * 100:.1f}%" for e in err_a),
                f"{eta:.3f}", f"{e_hat:.4f}", f"{err_e * 100:.1f}%",
                ", ".join(f"{s:.2g}" for s in np.r_[se_a, se_e]),
                "-" if sampler != "hmc" else f"{model.acceptance_rate_:.2f}",
                f"{seconds:.1f}", "yes" if ok else "NO",
            ])
            print(rows[-1], flush=True)
    body = (
        f"Chains of {burn_in} burn-in + {n_samples} kept iterations, n_d = 80, one corpus "
        "per case (seed 2020), random_state=0. Target: asymmetric alpha_t within 15% "
        "and eta within 10%; symmetric alpha and eta within 10%.\n\n"
        + markdown_table(
            ["case", "corpus", "sampler", "alpha true", "alpha hat", "alpha rel. error",
             "eta true", "eta hat", "eta rel. error", "MC s.e. (alpha..., eta)",
             "HMC acceptance", "fit s", "within target"],
            rows,
        )
        + f"\n\nAll within target: {'yes' if ok_all else 'NO'}."
    )
    write_section("eblda_recovery", "EmpiricalBayesLDA: recovery of (alpha, eta)", body)
    return {"every estimate within its tolerance": bool(ok_all)}


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
