"""Cost of the post-fit methods at a large vocabulary and many topics, this
checkout against an earlier revision of the package, in one run.

Each estimator is fitted for a few sweeps (the cost of a sweep is measured
elsewhere: ``throughput.py``) on a synthetic corpus of 2,000 documents of 50
tokens whose words come from 5,000 of 200,000 columns (Zipf frequencies), as
a vocabulary fitted on a larger collection leaves it; then its main post-fit
method runs on one document and on all 2,000: process CPU seconds and the
peak of Python's traced allocations (``tracemalloc``) of the call. Also the
factorized start of CorrelatedTopicModel (scikit-learn's NMF, D = 2,000, V =
5,000) in wall seconds, which the BLAS library's threads can inflate on a
busy machine, and CorrelatedTopicModel's ``transform`` of one document at
K = 300 (its inverse covariance).

Every measurement runs in a fresh process per package (``--base REV``:
``git archive REV sklearn_pgtm`` into a temporary directory), one after the
other; the outputs of the two packages are compared (equal but for
CorrelatedTopicModel, whose start factorizes the used columns only since
this stop).

``--part fit`` (section fit_scale): the fits themselves on that corpus, at
K = 100 and with 100 kept sweeps, whose topic-word counts each add to the
kept sum: CPU seconds and peak traced allocations of the fit, and
``components_`` compared between the packages.

Usage: python benchmarks/postfit_scale.py [--base REV] [--quick] [--part {post-fit,fit}]
(--quick: GibbsLDA only)
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _results import markdown_table, write_section  # noqa: E402

CASES = [  # (estimator, method, K)
    ("GibbsLDA", "transform", 100),
    ("CorrelatedTopicModel", "transform", 100),
    ("GibbsSLDAClassifier, 3 classes one-vs-rest", "predict_proba", 100),
    ("DynamicTopicModel, 5 slices", "transform", 100),
]


def _corpus(n_docs, n_columns, length, active, seed=0):
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, active + 1)
    columns = np.sort(rng.choice(n_columns, active, replace=False))
    words = columns[rng.choice(active, size=n_docs * length, p=p / p.sum())]
    docs = np.repeat(np.arange(n_docs), length)
    X = sp.csr_matrix((np.ones(words.size, dtype=np.int64), (docs, words)),
                      shape=(n_docs, n_columns))
    X.sum_duplicates()
    return X


# Part "fit": (estimator, parameters); 200 sweeps, the last 100 kept.
FIT_CASES = [
    ("GibbsLDA", {"max_iter": 200, "burn_in": 100}),
    ("EmpiricalBayesLDA", {"n_samples": 50, "burn_in": 50, "n_final_iter": 100}),
    ("CorrelatedTopicModel", {"max_iter": 200, "burn_in": 100}),
    ("GibbsSLDAClassifier, 3 classes one-vs-rest", {"max_iter": 200, "burn_in": 100}),
    ("DynamicTopicModel, 5 slices", {"max_iter": 10, "warm_start_iter": 10, "n_init": 1}),
]


def _fit_child(i):
    """Part "fit": one fit of FIT_CASES[i] (K = 100) on the 200,000-column
    corpus; prints its CPU seconds, peak traced MB and components_' SHA-1."""
    import numpy as np

    import sklearn_pgtm

    name, params = FIT_CASES[i]
    cls = getattr(sklearn_pgtm, name.split(",")[0])
    X = _corpus(2000, 200_000, 50, 5000)
    _fit(cls(n_components=3, **params), X[:50, :50])  # compiled before the timing
    model, cpu, peak = _measure(lambda: _fit(cls(n_components=100, random_state=0, **params), X))
    components = np.ascontiguousarray(model.components_)
    print(json.dumps({"cpu": cpu, "peak": peak, "package": _package(),
                      "sha": hashlib.sha1(components).hexdigest()}))


def _estimator(name, K):
    from sklearn_pgtm import (CorrelatedTopicModel, DynamicTopicModel, GibbsLDA,
                              GibbsSLDAClassifier)

    kw = dict(n_components=K, random_state=0, n_infer_iter=4)
    if name.startswith("GibbsLDA"):
        return GibbsLDA(max_iter=4, burn_in=2, **kw)
    if name.startswith("CorrelatedTopicModel"):
        return CorrelatedTopicModel(max_iter=4, burn_in=2, **kw)
    if name.startswith("GibbsSLDAClassifier"):
        return GibbsSLDAClassifier(max_iter=4, burn_in=2, **kw)
    return DynamicTopicModel(max_iter=4, warm_start_iter=2, n_init=2, **kw)


def _fit(model, X):
    import numpy as np

    name = type(model).__name__
    if name == "GibbsSLDAClassifier":
        return model.fit(X, np.arange(X.shape[0]) % 3)
    if name == "DynamicTopicModel":
        return model.fit(X, times=np.arange(X.shape[0]) * 5 // X.shape[0])
    return model.fit(X)


def _measure(call):
    import tracemalloc

    tracemalloc.start()
    cpu = time.process_time()
    result = call()
    cpu = time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, cpu, peak


def child(case):
    """One measurement in this process; prints one JSON line."""
    import warnings

    import numpy as np

    from sklearn_pgtm import CorrelatedTopicModel

    warnings.simplefilter("ignore")
    if case.startswith("fit:"):
        _fit_child(int(case[4:]))
        return
    if case == "factorize":
        from sklearn_pgtm._chain import factorize

        X = _corpus(2000, 5000, 50, 5000)
        wall = time.perf_counter()
        factorize(X, 30, 0)
        print(json.dumps({"wall": time.perf_counter() - wall, "package": _package()}))
        return
    if case == "ctm300":
        name, method, K = "CorrelatedTopicModel", "transform", 300
        X = _corpus(500, 5000, 50, 5000)
        counts = [1]
        infer_iter = CorrelatedTopicModel().n_infer_iter  # the default, not 4
    else:
        name, method, K = CASES[int(case)]
        X = _corpus(2000, 200_000, 50, 5000)
        counts = [1, 2000]
        infer_iter = 4
    _fit(_estimator(name, 3), X[:50, :50])  # compiled before the timing
    fit_cpu = time.process_time()
    model = _fit(_estimator(name, K).set_params(n_infer_iter=infer_iter), X)
    fit_cpu = time.process_time() - fit_cpu
    getattr(model, method)(X[:2])
    out = {"fit_cpu": fit_cpu, "n_infer_iter": infer_iter}
    for n in counts:
        result, cpu, peak = _measure(lambda: getattr(model, method)(X[:n]))
        out[str(n)] = {"cpu": cpu, "peak": peak, "sum": float(np.sum(result)),
                       "sha": hashlib.sha1(np.ascontiguousarray(result)).hexdigest()}
    print(json.dumps(dict(out, package=_package())))


def _package():
    import sklearn_pgtm

    return str(Path(sklearn_pgtm.__file__).parent)


def _run(package_dir, case):
    env = dict(os.environ, PYTHONPATH=str(package_dir))
    done = subprocess.run([sys.executable, __file__, "--child", case], env=env, check=True,
                          capture_output=True, text=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(result.pop("package")).resolve().parent == package_dir.resolve(), result
    return result


def _packages(tmp, base):
    """``[(label, path)]`` of the package at ``base`` (extracted into
    ``tmp``) and of this checkout."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", base, "sklearn_pgtm"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    return [(base, Path(tmp)), ("this checkout", ROOT)]


def main_fit(quick=False, base="0d6a212"):
    cases = FIT_CASES[:1] if quick else FIT_CASES
    with tempfile.TemporaryDirectory() as tmp:
        packages = _packages(tmp, base)
        rows, equal = [], {}
        for i, (name, params) in enumerate(cases):
            results = [_run(path, f"fit:{i}") for _, path in packages]
            equal[name] = results[0]["sha"] == results[1]["sha"]
            for (label, _), res in zip(packages, results):
                rows.append([name, ", ".join(f"{k}={v}" for k, v in params.items()), label,
                             f"{res['cpu']:.1f}", f"{res['peak']:.0f}",
                             "yes" if equal[name] else "no"])
                print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    body = [
        "Fits at K = 100 on 2,000 documents of 50 tokens drawn from 5,000 of 200,000 "
        "columns (Zipf frequencies; the corpus of section postfit_scale), with 100 kept "
        "sweeps (`random_state=0`; the classifier on three classes, one-vs-rest; the "
        "dynamic model on five time slices of 400 documents, 10 sweeps after a warm start "
        "of 10): process CPU seconds and peak traced allocations (MB) of the fit, the "
        f"package at revision `{base}` and this checkout, each fit in a fresh process after "
        "a small fit that compiles the kernels, and whether the two fits' `components_` "
        f"are equal (SHA-1). 1-minute load average {load:.1f} at the end.",
        "",
        markdown_table(["estimator", "parameters", "package", "fit CPU s", "fit peak MB",
                        "components_ equal"], rows),
    ]
    write_section("fit_scale", "Fits at a large vocabulary", "\n".join(body),
                  command=f"python benchmarks/postfit_scale.py --part fit --base {base}")
    return {"components_equal": equal}


def main(quick=False, base="0d6a212"):
    cases = CASES[:1] if quick else CASES
    with tempfile.TemporaryDirectory() as tmp:
        packages = _packages(tmp, base)
        rows, same = [], True
        for i, (name, method, K) in enumerate(cases):
            results = [_run(path, str(i)) for _, path in packages]
            if not name.startswith("CorrelatedTopicModel"):  # its start changed
                same &= all(results[0][n]["sha"] == results[1][n]["sha"] for n in ("1", "2000"))
            for (label, _), res in zip(packages, results):
                rows.append([name, method, K, label, f"{res['fit_cpu']:.1f}",
                             f"{res['1']['cpu']:.3f}", f"{res['1']['peak']:.0f}",
                             f"{res['2000']['cpu']:.3f}", f"{res['2000']['peak']:.0f}"])
                print(rows[-1], flush=True)
        ctm = [_run(path, "ctm300") for _, path in packages]
        factor = [_run(path, "factorize") for _, path in packages]
    load = os.getloadavg()[0]
    body = [
        "Post-fit methods of models fitted for 4 sweeps (n_infer_iter=4) on 2,000 documents "
        "of 50 tokens drawn from 5,000 of 200,000 columns (Zipf frequencies), K = 100: "
        "CPU seconds of the fit (CorrelatedTopicModel's includes its factorized start), "
        "process CPU seconds and peak traced allocations (MB) of one call on the first "
        f"document and on all 2,000, the package at revision `{base}` and this checkout, "
        "each measurement in a fresh process. The fitted models are the same in both "
        "packages but CorrelatedTopicModel's, whose start now factorizes the used columns "
        "only (its outputs are not compared).",
        "",
        markdown_table(["estimator", "method", "K", "package", "fit CPU s", "1 doc: CPU s",
                        "1 doc: peak MB",
                        "2,000 docs: CPU s", "2,000 docs: peak MB"], rows),
        "",
        "CorrelatedTopicModel.transform of one document at K = 300 (500 training documents, "
        f"5,000 columns, n_infer_iter at its default of {ctm[1]['n_infer_iter']}): "
        f"{ctm[0]['1']['cpu']:.2f} s CPU at `{base}`, {ctm[1]['1']['cpu']:.2f} s "
        "in this checkout. CorrelatedTopicModel's factorized start (NMF, K = 30, 2,000 "
        f"documents, 5,000 words), wall seconds: {factor[0]['wall']:.1f} at `{base}`, "
        f"{factor[1]['wall']:.1f} in this checkout (1-minute load average {load:.1f} at the "
        "end; the BLAS threads' cost grows with the load).",
        "",
        "Outputs of the other models equal between the two packages (SHA-1 of every "
        f"output): **{same}**.",
    ]
    write_section("postfit_scale", "Post-fit methods at a large vocabulary", "\n".join(body),
                  command=f"python benchmarks/postfit_scale.py --base {base}")
    return {"results_equal": same,
            "transform_2000_docs_cpu_ratio": float(rows[0][7]) / float(rows[1][7])}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="0d6a212", help="revision to compare with")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="GibbsLDA's row only")
    parser.add_argument("--part", choices=("post-fit", "fit"), default="post-fit",
                        help="the post-fit methods (section postfit_scale) or the fits "
                             "(fit_scale)")
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
    else:
        (main_fit if args.part == "fit" else main)(args.quick, args.base)
