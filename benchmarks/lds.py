"""MultinomialLDS: recovery, the paper's text protocol against peers, defaults, threads.

1. Recovery on data drawn from the model: a 4-d state (two damped rotations)
   observed through 20 categories, 20 counts per step; the spectrum of the
   fitted dynamics matrix against the true one, and the smoothed category
   probabilities against the true ones (and against raw frequencies).
2. Text (Linderman et al. 2015, section 5): Alice's Adventures in
   Wonderland, vocabulary of the 1,000 most frequent words, the first 4,000
   in-vocabulary tokens, the last 100 held out. Predictive log-likelihood
   per held-out token (each token predicted from all earlier tokens)
   minus that of a multinomial at the training mean (add-one smoothing:
   21 of the 100 held-out tokens are words unseen in training). Peers in the
   same run: hmmlearn's CategoricalHMM with 10 states (at its defaults, and
   with a Dirichlet emission prior chosen on a validation split), and a
   Gaussian LDS with a 10-d state fitted by EM to the raw one-hot vectors
   (written here; its predicted mean vector, clipped at 0 and renormalized,
   mixed with the training-mean multinomial with a weight chosen on the
   validation split).
3. Defaults: validation split (train on the first 3,800 tokens, score the
   next 100), one parameter at a time around the defaults, the number of
   sweeps, the particle count; three seeds per setting.
4. Threads: same random_state -> identical fit for n_jobs = 1 and 2; time.
5. Windows: the text comparison with the HMM repeated on six stretches of
   the book (train on the first T - 100 tokens, predict the next 100, T from
   2,000 to 4,000), the HMM's emission prior chosen per window.
6. Sampling: burn_in, n_samples, n_infer_iter and pg_method around their
   defaults, on the validation split and on data drawn from the model.

Usage: python benchmarks/lds.py [--quick]
       [--parts recovery text defaults threads windows sampling]
"""

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import load_note, markdown_table, write_section  # noqa: E402


# ----------------------------------------------------------------- recovery


def simulate(seed, n_rows, n_counts=20, n_categories=20):
    """Two damped rotations (eigenvalues 0.98 e^{+-0.15 i}, 0.9 e^{+-0.6 i})."""
    from sklearn_pgtm._kernels._stick_breaking import stick_breaking

    rng = np.random.default_rng(seed)

    def rotation(radius, angle):
        return radius * np.array([[np.cos(angle), -np.sin(angle)],
                                  [np.sin(angle), np.cos(angle)]])

    A = np.zeros((4, 4))
    A[:2, :2] = rotation(0.98, 0.15)
    A[2:, 2:] = rotation(0.9, 0.6)
    Q = 0.02 * np.eye(4)
    C = rng.normal(size=(n_categories - 1, 4))
    mu = rng.normal(scale=0.5, size=n_categories - 1) - np.log(
        np.arange(n_categories - 1, 0, -1))  # roughly uniform categories
    z = np.zeros((n_rows, 4))
    for t in range(1, n_rows):
        z[t] = A @ z[t - 1] + rng.multivariate_normal(np.zeros(4), Q)
    pi = np.empty((n_rows, n_categories))
    stick_breaking(np.ascontiguousarray(z @ C.T + mu), pi)
    X = np.vstack([rng.multinomial(n_counts, p / p.sum()) for p in pi])
    return X, pi, A


def matched_eigenvalues(true, fitted):
    from scipy.optimize import linear_sum_assignment

    cost = np.abs(true[:, None] - fitted[None, :])
    rows, cols = linear_sum_assignment(cost)
    return true[rows], fitted[cols]


def recovery(quick):
    from sklearn_pgtm import MultinomialLDS

    n_rows = 300 if quick else 1000
    X, pi, A = simulate(0, n_rows)
    raw = X / X.sum(axis=1, keepdims=True)
    err_raw = np.abs(raw - pi).sum(axis=1).mean() / 2
    body = (f"T = {n_rows} steps, 20 categories, 20 counts per step, L = 4 (true and fitted), "
            "other parameters at their defaults. Eigenvalues matched by the Hungarian "
            "algorithm on their complex distance. Smoothed probabilities (`predict_proba`) "
            "against the true ones: mean total-variation distance per step; raw frequencies "
            f"x_t / N_t give {err_raw:.4f}.\n")
    summary = {}
    configs = ([{"max_iter": 60}, {"max_iter": 60, "calibrate_offset": False}] if quick
               else [{}, {"max_iter": 400}, {"calibrate_offset": False},
                     {"max_iter": 400, "calibrate_offset": False}])
    for params in configs:
        t0 = time.perf_counter()
        lds = MultinomialLDS(4, random_state=0, **params).fit(X)
        seconds = time.perf_counter() - t0
        true, fitted = matched_eigenvalues(np.linalg.eigvals(A),
                                           np.linalg.eigvals(lds.dynamics_matrix_))
        err_smoothed = np.abs(lds.predict_proba(X) - pi).sum(axis=1).mean() / 2
        # Offset carried by the states: a chain whose offsets are off keeps a
        # state component near a constant (eigenvalue ~1) to correct them.
        shift = np.abs(lds.emission_matrix_ @ lds.transform(X).mean(axis=0)).mean()
        eig_rows = [(f"{t.real:+.3f}{t.imag:+.3f}i", f"{f.real:+.3f}{f.imag:+.3f}i",
                     abs(t), abs(f), abs(np.angle(t)), abs(np.angle(f)))
                    for t, f in sorted(zip(true, fitted),
                                       key=lambda p: (-abs(p[0]), p[0].imag))]
        label = ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
        body += (f"\n**{label}** (fit {seconds:.1f} s): smoothed TV distance "
                 f"**{err_smoothed:.4f}** (ratio to raw {err_smoothed / err_raw:.3f}); mean "
                 f"|C z-bar| (offset shift carried by the states) {shift:.3f}\n\n"
                 + markdown_table(["true eigenvalue", "fitted", "|true|", "|fitted|",
                                   "angle true", "angle fitted"], eig_rows) + "\n")
        summary[f"{label}: max |modulus error|"] = float(
            np.max(np.abs(np.abs(true) - np.abs(fitted))))
        summary[f"{label}: max |angle error|"] = float(
            np.max(np.abs(np.abs(np.angle(true)) - np.abs(np.angle(fitted)))))
        summary[f"{label}: TV smoothed / raw"] = float(err_smoothed / err_raw)
    return body, summary


# --------------------------------------------------------------- text peers


def multinomial_baseline(train_ids, test_ids, n_words):
    counts = np.bincount(train_ids, minlength=n_words) + 1.0
    return float(np.log(counts[test_ids] / counts.sum()).sum())


def baseline_per_token(train_ids, test_ids, n_words):
    counts = np.bincount(train_ids, minlength=n_words) + 1.0
    return np.log(counts[test_ids] / counts.sum())


def hmm_per_token(train_ids, test_ids, n_words, seed, **params):
    """log p(test token | all earlier tokens) under a CategoricalHMM(10) fitted
    to the training tokens (forward recursion with the fitted parameters;
    its sum equals hmm.score(all) - hmm.score(train))."""
    from hmmlearn.hmm import CategoricalHMM

    hmm = CategoricalHMM(n_components=10, n_features=n_words, random_state=seed, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hmm.fit(train_ids[:, None])
    B = hmm.emissionprob_
    alpha = hmm.startprob_.copy()
    out = np.empty(test_ids.shape[0])
    n_train = train_ids.shape[0]
    with np.errstate(divide="ignore"):
        for t, w in enumerate(np.r_[train_ids, test_ids]):
            if t > 0:
                alpha = alpha @ hmm.transmat_
            p = float(alpha @ B[:, w])
            if t >= n_train:
                out[t - n_train] = np.log(p)
            alpha = alpha * B[:, w] / p if p > 0 else alpha
    return out


def hmm_log_predictive(train_ids, test_ids, n_words, seed, **params):
    return float(hmm_per_token(train_ids, test_ids, n_words, seed, **params).sum())


def hmm_prior_scores(train_ids, val_ids, n_words, seeds, priors):
    """{emission prior: mean over ``seeds`` of the HMM's log predictive of
    ``val_ids`` after ``train_ids``} (n_iter=100), to choose the prior on."""
    return {p: np.mean([hmm_log_predictive(train_ids, val_ids, n_words, seed,
                                           emissionprob_prior=p, n_iter=100)
                        for seed in seeds]) for p in priors}


def lds_per_token(lds, X_test, test_ids):
    """log p(test token | all earlier tokens) under a fitted MultinomialLDS
    (predict_next_proba: particle filter per kept draw, draws mixed by their
    likelihood of the earlier tokens, as in score)."""
    proba = lds.predict_next_proba(X_test, continue_training=True)
    return np.log(proba[np.arange(test_ids.shape[0]), test_ids])


class GaussianLDS:
    """Linear-Gaussian state space model of raw vectors y_t (one-hot here),
    fitted by EM (Kalman filter / RTS smoother E-step, closed-form M-step):
    z_t = A z_{t-1} + N(0, Q), y_t = C z_t + d + N(0, diag(r))."""

    def __init__(self, dim=10, n_iter=50, seed=0):
        self.dim, self.n_iter, self.seed = dim, n_iter, seed

    def _smooth(self, ids):
        A, Q, C, d, r = self.A, self.Q, self.C, self.d, self.r
        T, L = ids.shape[0], self.dim
        CR = C.T / r  # (L, V)
        J_obs = CR @ C
        h_const = CR @ d
        m_f = np.empty((T, L))
        P_f = np.empty((T, L, L))
        m_p, P_p = self.m0, self.P0
        m_pred = np.empty((T, L))
        P_pred = np.empty((T, L, L))
        for t in range(T):
            m_pred[t], P_pred[t] = m_p, P_p
            J = np.linalg.inv(P_p) + J_obs
            P = np.linalg.inv(J)
            m = P @ (np.linalg.solve(P_p, m_p) + CR[:, ids[t]] - h_const)
            m_f[t], P_f[t] = m, P
            m_p, P_p = A @ m, A @ P @ A.T + Q
        m_s, P_s = m_f.copy(), P_f.copy()
        cross = np.zeros((T, L, L))  # E[z_t z_{t-1}'] - means, t >= 1
        for t in range(T - 2, -1, -1):
            G = P_f[t] @ A.T @ np.linalg.inv(P_pred[t + 1])
            m_s[t] = m_f[t] + G @ (m_s[t + 1] - m_pred[t + 1])
            P_s[t] = P_f[t] + G @ (P_s[t + 1] - P_pred[t + 1]) @ G.T
            cross[t + 1] = P_s[t + 1] @ G.T
        return m_s, P_s, cross

    def fit(self, ids, n_words):
        rng = np.random.default_rng(self.seed)
        L = self.dim
        T = ids.shape[0]
        Y_mean = np.bincount(ids, minlength=n_words) / T
        self.A, self.Q = 0.9 * np.eye(L), 0.1 * np.eye(L)
        self.C = 0.01 * rng.normal(size=(n_words, L))
        self.d, self.r = Y_mean.copy(), np.full(n_words, 0.1)
        self.m0, self.P0 = np.zeros(L), np.eye(L)
        for _ in range(self.n_iter):
            m, P, cross = self._smooth(ids)
            Ezz = P + np.einsum("ti,tj->tij", m, m)
            Ezz1 = cross[1:] + np.einsum("ti,tj->tij", m[1:], m[:-1])
            S11, S10, S00 = Ezz[1:].sum(0), Ezz1.sum(0), Ezz[:-1].sum(0)
            self.A = S10 @ np.linalg.inv(S00)
            self.Q = (S11 - self.A @ S10.T) / (T - 1)
            self.Q = 0.5 * (self.Q + self.Q.T) + 1e-8 * np.eye(L)
            # [C d] from E[u u'] with u = (z, 1).
            Euu = np.zeros((L + 1, L + 1))
            Euu[:L, :L], Euu[:L, L], Euu[L, :L], Euu[L, L] = Ezz.sum(0), m.sum(0), m.sum(0), T
            Yu = np.zeros((n_words, L + 1))
            np.add.at(Yu, ids, np.c_[m, np.ones(T)])
            W = Yu @ np.linalg.inv(Euu)
            self.C, self.d = W[:, :L], W[:, L]
            counts = np.bincount(ids, minlength=n_words)
            self.r = np.maximum((counts - np.einsum("vi,vi->v", W, Yu)) / T, 1e-4)
            self.m0, self.P0 = m[0], P[0] + 1e-6 * np.eye(L)
        return self

    def log_predictive(self, train_ids, test_ids, baseline_p, weight):
        """sum log p(test token | earlier tokens), p = (1 - weight) clip-normalized
        predicted mean + weight * baseline."""
        return float(self.per_token(train_ids, test_ids, baseline_p, weight).sum())

    def per_token(self, train_ids, test_ids, baseline_p, weight):
        """log p(test token | earlier tokens) of each test token."""
        A, Q, C, d, r = self.A, self.Q, self.C, self.d, self.r
        CR = C.T / r
        J_obs, h_const = CR @ C, CR @ d
        m_p, P_p = self.m0, self.P0
        out = np.empty(test_ids.shape[0])
        n_train = train_ids.shape[0]
        for t, w in enumerate(np.r_[train_ids, test_ids]):
            if t >= n_train:
                mean = np.maximum(C @ m_p + d, 0.0)
                p = (1 - weight) * mean / mean.sum() + weight * baseline_p
                out[t - n_train] = np.log(p[w])
            P = np.linalg.inv(np.linalg.inv(P_p) + J_obs)
            m = P @ (np.linalg.solve(P_p, m_p) + CR[:, w] - h_const)
            m_p, P_p = A @ m, A @ P @ A.T + Q
        return out


def _summarize(per_seed, unseen):
    """Mean over seeds of the per-token relative log-likelihoods (array of
    shape (n_seeds, n_tokens)): overall mean, standard error over held-out
    tokens, sd over seeds, and the means on unseen / seen words."""
    per_token = per_seed.mean(axis=0)
    se = per_token.std(ddof=1) / np.sqrt(per_token.size)
    return (per_token.mean(), se, per_seed.mean(axis=1).std(), per_token[unseen].mean(),
            per_token[~unseen].mean())


def text_protocol(quick):
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm.datasets import load_wonderland

    alice = load_wonderland(n_words=1000, n_tokens=4000)
    X, ids, V = alice.X, alice.token_ids, 1000
    X_train, X_test = X[:-100], X[-100:]
    train, test = ids[:-100], ids[-100:]
    val_train, val = ids[:-200], ids[-200:-100]
    base_tok = baseline_per_token(train, test, V)
    base = base_tok.sum()
    base_val = multinomial_baseline(val_train, val, V)
    unseen = np.bincount(train, minlength=V)[test] == 0
    seeds = [0] if quick else [0, 1, 2]
    rows = []
    results = {}

    def add_row(name, per_seed, seconds):
        per_seed = np.asarray(per_seed) - base_tok
        results[name] = per_seed.mean(axis=0)
        mean, se, sd, on_unseen, on_seen = _summarize(per_seed, unseen)
        rows.append((name, f"{mean:+.4f}", f"{se:.4f}", f"{sd:.4f}", f"{on_unseen:+.3f}",
                     f"{on_seen:+.3f}", seconds))
        print("  ", rows[-1], flush=True)

    # SBM-LDS at defaults, and without the offset calibration (the fix of
    # the loss on words unseen in training).
    max_iter = 60 if quick else 100
    for params in ({}, {"calibrate_offset": False}):
        per_seed, seconds, per_sweep = [], [], []
        for seed in seeds:
            t0 = time.perf_counter()
            lds = MultinomialLDS(10, random_state=seed, max_iter=max_iter, **params).fit(X_train)
            seconds.append(time.perf_counter() - t0)
            per_sweep.append(seconds[-1] / lds.n_iter_)
            per_seed.append(lds_per_token(lds, X_test, test))
        label = ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
        name = f"MultinomialLDS ({label}" + (f", max_iter={max_iter})" if quick else ")")
        add_row(name, per_seed, f"{np.mean(seconds):.1f} ({np.mean(per_sweep):.3f} s/sweep)")
        if not params:
            lds_name, lds_sweep = name, float(np.mean(per_sweep))

    # HMM at hmmlearn's defaults (no emission smoothing) and tuned.
    per_seed, seconds = [], []
    for seed in seeds:
        t0 = time.perf_counter()
        per_seed.append(hmm_per_token(train, test, V, seed))
        seconds.append(time.perf_counter() - t0)
    add_row("CategoricalHMM(10), hmmlearn defaults", per_seed, f"{np.mean(seconds):.1f}")
    priors = [1.1, 2.0] if quick else [1.01, 1.1, 1.5, 2.0, 3.0]
    val_scores = hmm_prior_scores(val_train, val, V, seeds, priors)
    best_prior = max(val_scores, key=val_scores.get)
    per_seed, seconds = [], []
    for seed in seeds:
        t0 = time.perf_counter()
        per_seed.append(hmm_per_token(train, test, V, seed, emissionprob_prior=best_prior,
                                      n_iter=100))
        seconds.append(time.perf_counter() - t0)
    hmm_name = (f"CategoricalHMM(10), emissionprob_prior={best_prior} (validation), "
                "n_iter=100")
    add_row(hmm_name, per_seed, f"{np.mean(seconds):.1f}")

    # Gaussian LDS on one-hot vectors.
    n_em = 10 if quick else 50
    weights = [0.01, 0.05, 0.1, 0.2, 0.5, 0.7, 0.9, 0.97]
    baseline_val_p = (np.bincount(val_train, minlength=V) + 1.0)
    baseline_val_p /= baseline_val_p.sum()
    glds_val = GaussianLDS(10, n_em, seed=0).fit(val_train, V)
    val_w = {w: glds_val.log_predictive(val_train, val, baseline_val_p, w) for w in weights}
    best_w = max(val_w, key=val_w.get)
    baseline_p = np.bincount(train, minlength=V) + 1.0
    baseline_p /= baseline_p.sum()
    per_seed, seconds = [], []
    for seed in seeds:
        t0 = time.perf_counter()
        glds = GaussianLDS(10, n_em, seed=seed).fit(train, V)
        seconds.append(time.perf_counter() - t0)
        per_seed.append(glds.per_token(train, test, baseline_p, best_w))
    glds_name = (f"Gaussian LDS on one-hot counts (EM {n_em} iterations, L=10, mixing weight "
                 f"{best_w} (validation))")
    add_row(glds_name, per_seed, f"{np.mean(seconds):.1f}")

    def paired(other):
        diff = results[lds_name] - results[other]
        return diff.mean(), diff.std(ddof=1) / np.sqrt(diff.size)

    comparisons = [(other, f"{paired(other)[0]:+.4f}", f"{paired(other)[1]:.4f}")
                   for other in (hmm_name, glds_name)]
    body = (
        "Alice's Adventures in Wonderland (`load_wonderland(n_words=1000, n_tokens=4000)`), "
        "first 3,900 tokens for training, last 100 held out (21 of them words unseen in "
        "training). Predictive log-likelihood of each held-out token given all earlier "
        "tokens, relative to a multinomial at the training mean (add-one: "
        f"{base / 100:.4f} nats per token), averaged over seeds {seeds}; standard error "
        "over the 100 held-out tokens, sd of the per-seed means over seeds, and the mean "
        "on unseen / seen words. MultinomialLDS predicts with "
        "`predict_next_proba(X_test, continue_training=True)` (particle filter per kept "
        "posterior draw, draws mixed by their likelihood of the earlier tokens; its log "
        "sum is `score`).\n\n"
        + markdown_table(["model", "relative log-lik. per token", "se (tokens)",
                          "sd (seeds)", "unseen words", "seen words", "fit seconds"], rows)
        + "\n\nMultinomialLDS at defaults minus each peer, per held-out token (paired; "
        "the standard error over tokens is the yardstick of the comparison):\n\n"
        + markdown_table(["peer", "difference per token", "se"], comparisons)
        + f"\n\nValidation (train on the first 3,800 tokens, score the next 100; baseline "
        f"{base_val / 100:.4f}): HMM emission prior "
        + ", ".join(f"{p}: {(v - base_val) / 100:+.4f}" for p, v in val_scores.items())
        + "; Gaussian LDS mixing weight "
        + ", ".join(f"{w}: {(v - base_val) / 100:+.4f}" for w, v in val_w.items()) + ".\n"
    )
    summary = {
        "SBM-LDS rel": float(results[lds_name].mean()),
        "HMM rel (tuned)": float(results[hmm_name].mean()),
        "Gaussian LDS rel": float(results[glds_name].mean()),
        "SBM-LDS - HMM (se)": tuple(float(v) for v in paired(hmm_name)),
        "SBM-LDS - Gaussian LDS (se)": tuple(float(v) for v in paired(glds_name)),
        "seconds per sweep": lds_sweep,
    }
    return body, summary


# ----------------------------------------------------------------- defaults


def defaults(quick):
    """Validation scores of one parameter at a time around the defaults, of the
    number of sweeps and of the particle count, each the mean over seeds.

    Every row is a fit of its own (the sweeps too: with ``calibrate_offset``
    the burn-in, max_iter // 2, changes the chain, so a shorter fit is not a
    prefix of a longer one)."""
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm.datasets import load_wonderland

    alice = load_wonderland(n_words=1000, n_tokens=3900)
    X, ids = alice.X, alice.token_ids
    X_train, X_val = X[:-100], X[-100:]
    base = multinomial_baseline(ids[:-100], ids[-100:], 1000) / 100
    max_iter = 40 if quick else 100
    seeds = [0] if quick else [0, 1, 2]

    def fits(columns=slice(None), **params):
        """(relative score per seed, seconds per sweep, models) of one setting."""
        scores, seconds, models = [], [], []
        params = {"max_iter": max_iter, **params}
        for seed in seeds:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lds = MultinomialLDS(random_state=seed, **{"n_components": 10, **params}
                                     ).fit(X_train[:, columns])
            seconds.append((time.perf_counter() - t0) / params["max_iter"])
            scores.append(lds.score(X_val[:, columns], continue_training=True) - base)
            models.append(lds)
        return np.array(scores), float(np.mean(seconds)), models

    def row(label, scores, seconds, models=()):
        # The trace of the fitted state noise covariance Q, mean over seeds.
        noise = np.mean([np.trace(m.dynamics_covariance_) for m in models]) if models else 0
        cells = (label, f"{scores.mean():+.4f}", " / ".join(f"{v:+.4f}" for v in scores),
                 f"{seconds:.3f}", f"{noise:.3f}")
        print("  ", cells, flush=True)
        return cells

    grid = [{}]
    if not quick:
        grid += [{"n_components": 5}, {"n_components": 20},
                 {"state_noise_prior": 1e-3}, {"state_noise_prior": 1e-1},
                 {"state_noise_prior": 0.3}, {"state_noise_prior": 1.0},
                 {"emission_prior_scale": 0.1}, {"emission_prior_scale": 1.0},
                 {"offset_pseudo_count": 3.0}, {"offset_prior_scale": 0.3},
                 {"calibrate_offset": False}]
    rows = []
    for params in grid:
        scores, seconds, models = fits(**params)
        rows.append(row(", ".join(f"{k}={v}" for k, v in params.items()) or "defaults",
                        scores, seconds, models))
        if not params:
            default_scores, default_models = scores, models
    # Category order: the vocabulary is already sorted by frequency; shuffle
    # the columns to see what "given" (an arbitrary order) costs.
    perm = np.random.default_rng(0).permutation(1000)
    scores, seconds, models = fits(perm, category_order="given")
    rows.append(row("category_order='given' on shuffled columns", scores, seconds, models))
    header = ["setting", "relative log-lik. per token (mean)", "per seed", "s/sweep",
              "trace of Q"]
    body = (f"Validation split: train on the first 3,800 tokens, score the next 100 "
            f"(continuing the training text), max_iter={max_iter} (other parameters at their "
            f"defaults), random_state {', '.join(map(str, seeds))}. Relative to the add-one "
            "multinomial at the training mean. The standard error of one seed's score "
            "over the 100 tokens is about 0.02. Trace of Q: of the fitted state noise "
            "covariance `dynamics_covariance_` (the last sweep's draw), mean over the "
            "seeds.\n\n" + markdown_table(header, rows))
    sweeps = [20, 40] if quick else [25, 50, 100, 200]
    curve = []
    for m in sweeps:
        scores = default_scores if m == max_iter else fits(max_iter=m)[0]
        curve.append(row(str(m), scores, float("nan"))[:3])
    body += ("\n\nNumber of sweeps (a fit of its own for each, burn-in max_iter // 2, 20 "
             "kept draws):\n\n"
             + markdown_table(["max_iter", "relative log-lik. per token (mean)", "per seed"],
                              curve))
    lds = default_models[0]
    particles = [50, 200] if quick else [100, 500, 2000]
    spread = []
    for n in particles:
        values = []
        for seed in range(3):
            lds.set_params(n_particles=n)
            lds._infer_seed = seed
            values.append(lds.score(X_val, continue_training=True) - base)
        spread.append((n, f"{np.mean(values):+.4f}", f"{np.std(values):.4f}"))
    body += ("\n\nParticles (score of the max_iter=%d, random_state=%d model with 3 "
             "particle-filter seeds):\n\n" % (max_iter, seeds[0])
             + markdown_table(["n_particles", "mean", "sd"], spread))
    return body, {"defaults rel (validation)": float(default_scores.mean())}


def threads(quick):
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm.datasets import load_wonderland

    X = load_wonderland(n_words=1000, n_tokens=4000).X[:-100]
    max_iter = 20 if quick else 100
    fits, seconds = [], []
    for n_jobs in (1, 2):
        t0 = time.perf_counter()
        fits.append(MultinomialLDS(10, max_iter=max_iter, random_state=0, n_jobs=n_jobs).fit(X))
        seconds.append(time.perf_counter() - t0)
    same = all(np.array_equal(getattr(fits[0], a), getattr(fits[1], a))
               for a in ("dynamics_matrix_", "dynamics_covariance_", "emission_matrix_",
                         "emission_offset_", "log_likelihood_trace_"))
    body = (f"Alice (3,900 tokens), max_iter={max_iter}: n_jobs=1 {seconds[0]:.1f} s, "
            f"n_jobs=2 {seconds[1]:.1f} s (speed-up {seconds[0] / seconds[1]:.2f}x); "
            f"identical fitted attributes: **{same}**.\n")
    return body, {"n_jobs 1 == 2": same, "speed-up 2 threads": seconds[0] / seconds[1]}


def windows(quick):
    """The text comparison repeated on earlier stretches of the book: for each
    window end T, train on the first T - 100 tokens and predict the next 100
    (the paper's protocol is the window ending at 4,000). The HMM's emission
    prior is chosen for each window on its own validation split (the 100
    tokens before its test tokens), as in the text part."""
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm.datasets import load_wonderland

    alice = load_wonderland(n_words=1000, n_tokens=4000)
    X, ids, V = alice.X, alice.token_ids, 1000
    ends = [2400, 4000] if quick else [2000, 2400, 2800, 3200, 3600, 4000]
    lds_seeds, hmm_seeds = ([0], [0]) if quick else ([0, 1], [0, 1, 2])
    priors = [1.5, 2.0] if quick else [1.1, 1.5, 2.0, 3.0]
    params = {"max_iter": 40} if quick else {}
    rows, diffs = [], []
    for end in ends:
        train, test = ids[:end - 100], ids[end - 100:end]
        base = baseline_per_token(train, test, V)
        counts = np.bincount(train, minlength=V)
        lds = np.mean([lds_per_token(MultinomialLDS(10, random_state=seed, **params)
                                     .fit(X[:end - 100]), X[end - 100:end], test)
                       for seed in lds_seeds], axis=0) - base
        val = hmm_prior_scores(ids[:end - 200], ids[end - 200:end - 100], V, hmm_seeds,
                               priors)
        prior = max(val, key=val.get)
        hmm = np.mean([hmm_per_token(train, test, V, seed, emissionprob_prior=prior,
                                     n_iter=100) for seed in hmm_seeds], axis=0) - base
        diff = lds - hmm
        diffs.append(diff.mean())
        rows.append([f"{end:,}", f"{np.mean(counts[test] == 0):.2f}",
                     f"{np.sum(counts == 1) / train.size:.3f}", f"{lds.mean():+.4f}",
                     f"{hmm.mean():+.4f} (prior {prior})", f"{diff.mean():+.4f}",
                     f"{diff.std(ddof=1) / np.sqrt(diff.size):.4f}"])
        print("  ", rows[-1], flush=True)
    n_ahead = int(np.sum(np.array(diffs) > 0))
    body = (
        "The text comparison on six stretches of the book: for each window end T, "
        "train on the first T - 100 in-vocabulary tokens and predict the next 100, each "
        "given all earlier tokens (the window ending at 4,000 is the paper's protocol, "
        "section \"MultinomialLDS: Alice in Wonderland, the paper's protocol\"). "
        "Relative to the add-one "
        f"multinomial at the training mean. MultinomialLDS at its defaults, seeds "
        f"{lds_seeds}; CategoricalHMM(10), n_iter=100, seeds {hmm_seeds}, its emission "
        "prior chosen for each window on the 100 tokens before its test tokens (from "
        f"{priors}). Unseen: share of the test tokens whose word the training tokens "
        "lack; Good-Turing: share of training tokens that are the only one of their word "
        "(the rate of new words the training text itself predicts).\n\n"
        + markdown_table(["window end", "unseen", "Good-Turing", "MultinomialLDS",
                          "CategoricalHMM", "LDS - HMM", "se (tokens)"], rows)
        + f"\n\nMultinomialLDS ahead on {n_ahead} of {len(ends)} windows; mean difference "
        f"{np.mean(diffs):+.4f} nats per token.\n")
    return body, {"LDS ahead (windows)": f"{n_ahead}/{len(ends)}",
                  "mean LDS - HMM": float(np.mean(diffs))}


# ----------------------------------------------------------------- sampling

# A fit that keeps every sweep from this one on (the offsets are calibrated
# over the first 12 sweeps whenever the burn-in is at least that long).
FIRST_KEPT = 12


def keep_all(seed, X, n_components, max_iter=100, **params):
    """A fit keeping every sweep from FIRST_KEPT on: for any burn_in >= FIRST_KEPT
    the chain is the same, only the kept sweeps differ."""
    from sklearn_pgtm import MultinomialLDS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MultinomialLDS(n_components, max_iter=max_iter, burn_in=FIRST_KEPT,
                              n_samples=max_iter - FIRST_KEPT, random_state=seed,
                              **params).fit(X)


def restricted(lds, burn_in, n_samples):
    """The fit with ``burn_in`` and ``n_samples`` from a :func:`keep_all` fit:
    its draws restricted to the sweeps such a fit keeps."""
    part = copy.copy(lds)
    part.set_params(burn_in=burn_in, n_samples=n_samples)
    index = np.array(sorted(part._kept_sweeps())) - FIRST_KEPT
    draws = copy.copy(lds._draws)  # the kept draws, stacked over the draws
    for name in draws._NAMES:
        setattr(draws, name, getattr(lds._draws, name)[index])
    part._draws = draws
    return part


def sampling(quick):
    """burn_in and n_samples (which sweeps are kept) on the validation split of
    the text and on held-out steps of data drawn from the model; n_infer_iter
    (the sweeps of transform / predict_proba) against a long inference run;
    pg_method "auto" against "exact" where the stick counts differ."""
    from sklearn_pgtm import MultinomialLDS
    from sklearn_pgtm._kernels._polyagamma import AUTO_EXACT_MAX_B as switch
    from sklearn_pgtm._lds import _CALIBRATION_SWEEPS
    from sklearn_pgtm.datasets import load_wonderland

    assert FIRST_KEPT == _CALIBRATION_SWEEPS
    alice = load_wonderland(n_words=1000, n_tokens=3900)
    X, ids = alice.X, alice.token_ids
    X_train, X_val = X[:-100], X[-100:]
    base = multinomial_baseline(ids[:-100], ids[-100:], 1000) / 100
    max_iter = 60 if quick else 100
    text_seeds = [0] if quick else [0, 1, 2, 3, 4]
    sim_seeds = [0, 1] if quick else [0, 1, 2, 3, 4]
    n_sim, n_ahead = (300, 100) if quick else (1000, 200)
    default = (max_iter // 2, 20)
    settings = list(dict.fromkeys([(max_iter // 4, 20), default, (3 * max_iter // 4, 20),
                                   (max_iter // 2, 5), (max_iter // 2, 10),
                                   (max_iter // 2, max_iter // 2)]))

    text_fits, sim_fits, sims = [], [], []
    t0 = time.perf_counter()
    for seed in text_seeds:
        text_fits.append(keep_all(seed, X_train, 10, max_iter))
    text_seconds = (time.perf_counter() - t0) / len(text_seeds)
    for seed in sim_seeds:
        X_all, pi, _ = simulate(seed, n_sim + n_ahead)
        sims.append((X_all[:n_sim], X_all[n_sim:], pi[:n_sim]))
        sim_fits.append(keep_all(seed, X_all[:n_sim], 4, max_iter))
        print("   fitted", seed, flush=True)

    # The restriction reproduces a direct fit (same chain, same kept draws).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = MultinomialLDS(4, max_iter=max_iter, random_state=sim_seeds[0]).fit(
            sims[0][0])
    same = bool(direct.score(sims[0][1], continue_training=True)
                == restricted(sim_fits[0], *default).score(sims[0][1],
                                                           continue_training=True))

    scores = {}
    for burn_in, n_samples in settings:
        text = [restricted(f, burn_in, n_samples).score(X_val, continue_training=True) - base
                for f in text_fits]
        sim = [restricted(f, burn_in, n_samples).score(s[1], continue_training=True)
               for f, s in zip(sim_fits, sims)]
        scores[(burn_in, n_samples)] = (np.array(text), np.array(sim))
        print("  ", burn_in, n_samples, np.mean(text), np.mean(sim), flush=True)

    def paired(values, reference):
        diff = values - reference
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        return f"{diff.mean():+.4f} ({se:.4f})"

    rows = []
    for key, (text, sim) in scores.items():
        label = f"burn_in={key[0]}, n_samples={key[1]}" + (" (defaults)" if key == default
                                                           else "")
        rows.append([label, f"{text.mean():+.4f}", " / ".join(f"{v:+.3f}" for v in text),
                     paired(text, scores[default][0]), f"{sim.mean():.4f}",
                     paired(sim, scores[default][1])])
    body = (
        f"Kept draws. One chain per seed, max_iter={max_iter} (other parameters at their "
        f"defaults), keeping every sweep from {FIRST_KEPT} on (the offset calibration's "
        "length; every burn-in from there on runs the same chain); each setting's draws are "
        "the sweeps a fit with that burn_in and n_samples keeps (evenly spaced after the "
        "burn-in, the last sweep included). The restriction reproduces a direct fit at "
        f"the defaults (same score: **{same}**). Text: validation split of "
        "\"MultinomialLDS: defaults\" (train on the first 3,800 tokens, score the next "
        "100, continuing the training text; nats per token relative to the add-one "
        f"multinomial), L = 10, random_state {', '.join(map(str, text_seeds))}. Model: "
        f"data drawn from the model of \"MultinomialLDS: recovery\" (seeds "
        f"{', '.join(map(str, sim_seeds))}), L = 4, fitted on the first {n_sim} steps; "
        f"`score` of the next {n_ahead} steps (continuing), nats per count. Differences: "
        "paired with the defaults by seed, mean (standard error over seeds). One text fit "
        f"keeping {max_iter - FIRST_KEPT} draws: {text_seconds:.1f} s.\n\n"
        + markdown_table(["kept draws", "text: relative log-lik. per token", "per seed",
                          "text: difference", "model: held-out log-lik. per count",
                          "model: difference"], rows))

    # Inference sweeps of transform / predict_proba, against a long run.
    sweeps = [5, 10, 20, 50] if not quick else [5, 20]
    long_sim, long_text = (100, 50) if quick else (400, 200)
    text_infer = text_fits[:1] if quick else text_fits[:3]

    def inference(lds, Xi, n, proba=True):
        lds = copy.copy(lds).set_params(n_infer_iter=n)
        t = time.perf_counter()
        states = lds.transform(Xi)
        probabilities = lds.predict_proba(Xi) if proba else None
        return states, probabilities, time.perf_counter() - t

    infer_rows = []
    sim_ref = [inference(f, s[0], long_sim) for f, s in zip(sim_fits, sims)]
    for n in sweeps + [long_sim]:
        tv, rel, tv_ref, seconds = [], [], [], []
        for f, (Xs, _, pi), (ref_states, ref_proba, _) in zip(sim_fits, sims, sim_ref):
            states, proba, sec = inference(f, Xs, n)
            tv.append(np.abs(proba - pi).sum(axis=1).mean() / 2)
            rel.append(np.sqrt(np.mean((states - ref_states) ** 2) / np.mean(ref_states ** 2)))
            tv_ref.append(np.abs(proba - ref_proba).sum(axis=1).mean() / 2)
            seconds.append(sec)
        infer_rows.append([n, f"{np.mean(tv):.4f}", f"{np.mean(rel):.4f}",
                           f"{np.mean(tv_ref):.4f}", f"{np.mean(seconds):.2f}"])
        print("  ", infer_rows[-1], flush=True)
    text_rows = []
    text_ref = [inference(f, X_train, long_text, proba=False)[0] for f in text_infer]
    for n in sweeps:
        rel, seconds = [], []
        for f, ref_states in zip(text_infer, text_ref):
            states, _, sec = inference(f, X_train, n, proba=False)
            rel.append(np.sqrt(np.mean((states - ref_states) ** 2) / np.mean(ref_states ** 2)))
            seconds.append(sec)
        text_rows.append([n, f"{np.mean(rel):.4f}", f"{np.mean(seconds):.2f}"])
        print("  ", text_rows[-1], flush=True)
    body += (
        "\n\nInference sweeps (`n_infer_iter`; the second half is averaged) of `transform` "
        "and `predict_proba` on the training rows, parameters of the fits above (the last "
        "draw). Model: mean total-variation distance per step of `predict_proba` to the "
        f"true probabilities, and distance to a run of {long_sim} sweeps: RMS of the "
        "state difference relative to the RMS of its states, and mean TV distance of the "
        f"probabilities; mean over the {len(sim_seeds)} data sets. Seconds: `transform` "
        "plus `predict_proba` (each runs the sweeps).\n\n"
        + markdown_table(["n_infer_iter", "model: TV to truth", "model: states vs long run",
                          "model: TV to long run", "seconds"], infer_rows)
        + f"\n\nText (3,800 training tokens, seeds "
        f"{', '.join(str(s) for s in text_seeds[:len(text_infer)])}), `transform` only: "
        f"distance of the states to a run of {long_text} sweeps.\n\n"
        + markdown_table(["n_infer_iter", "states vs long run", "seconds (transform)"],
                         text_rows))

    # pg_method: what "auto" draws for these stick counts, and "exact" beside it.
    def stick_totals(lds, Xi):
        from sklearn_pgtm._lds import _sequence_ptr

        return lds._stick_data(Xi.astype(float), _sequence_ptr(None, Xi.shape[0], "")).totals

    text_b = stick_totals(text_fits[0], X_train)
    sim_b = np.concatenate([stick_totals(f, s[0]) for f, s in zip(sim_fits, sims)])
    pg_rows = []
    for label, extra in [("auto (default)", {}), ("exact", {"pg_method": "exact"})]:
        held, seconds = [], []
        for seed, (Xs, Xh, _) in zip(sim_seeds, sims):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f = MultinomialLDS(4, max_iter=max_iter, random_state=seed, **extra).fit(Xs)
            seconds.append(time.perf_counter() - t)
            held.append(f.score(Xh, continue_training=True))
        pg_rows.append([label, np.array(held), np.mean(seconds)])
    auto_held = pg_rows[0][1]
    pg_rows = [[label, f"{h.mean():.4f}", paired(h, auto_held) if label != "auto (default)"
                else "0", f"{sec:.2f}"] for label, h, sec in pg_rows]
    short = 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_text = bool(np.array_equal(
            MultinomialLDS(10, max_iter=short, random_state=0).fit(X_train).log_likelihood_trace_,
            MultinomialLDS(10, max_iter=short, random_state=0, pg_method="exact")
            .fit(X_train).log_likelihood_trace_))
    body += (
        "\n\nPólya-Gamma sampler. Stick counts b of the draws of one sweep: text (one-hot "
        f"rows) {text_b.size:,} draws, all with b = 1: **{bool(np.all(text_b == 1))}**, "
        "so `\"auto\"` draws exactly there (a "
        f"{short}-sweep fit gives the same trace with `\"exact\"`: **{same_text}**); "
        f"model data (20 counts per step) {sim_b.size:,} draws, "
        f"{np.mean(sim_b >= switch):.1%} with b >= {switch:g}, where `\"auto\"` draws the "
        f"shifted gamma (median b {np.median(sim_b):g}). Fits at the defaults on the model data "
        f"({len(sim_seeds)} data sets, held-out log-lik. per count as above; fit seconds "
        "indicative):\n\n"
        + markdown_table(["pg_method", "model: held-out log-lik. per count", "difference",
                          "fit seconds"], pg_rows))
    d = {k: float(v[0].mean() - scores[default][0].mean()) for k, v in scores.items()}
    return body, {"restriction == direct fit": same,
                  "text diff vs defaults by (burn_in, n_samples)": d}


PARTS = {
    "recovery": ("MultinomialLDS: recovery on data drawn from the model", recovery),
    "text": ("MultinomialLDS: Alice in Wonderland, the paper's protocol", text_protocol),
    "defaults": ("MultinomialLDS: defaults (validation split)", defaults),
    "threads": ("MultinomialLDS: threads", threads),
    "windows": ("MultinomialLDS: Alice in Wonderland, six windows", windows),
    "sampling": ("MultinomialLDS: kept draws, inference sweeps, Pólya-Gamma sampler",
                 sampling),
}


def main(quick=False, parts=None):
    """Run the parts (all by default); each writes its own RESULTS.md section."""
    summary = {}
    for name in parts or list(PARTS):
        title, fn = PARTS[name]
        t0 = time.perf_counter()
        text, values = fn(quick)
        print(f"{title}: {values} ({time.perf_counter() - t0:.0f} s)", flush=True)
        write_section(f"lds-{name}", title, load_note() + "\n\n" + text)
        summary.update(values)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--parts", nargs="*", choices=list(PARTS), default=None)
    args = parser.parse_args()
    print(main(quick=args.quick, parts=args.parts))
