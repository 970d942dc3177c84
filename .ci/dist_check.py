"""Build the sdist and the wheel, install each into a fresh venv, smoke-test it.

``make dist-check`` runs this with the project's ``.venv`` (which has the
``build`` package); CI runs it after the tests and the documentation.

1. ``python -m build`` into a temporary directory: the sdist first, then the
   wheel built *from the sdist*, so a file missing from the sdist breaks the
   wheel too.
2. The archives' contents: the embedded corpus in both, tests / docs /
   examples / changelog / license in the sdist, nothing but the package in the
   wheel, no numba cache or bytecode in either, the version of the sources in
   both file names.
3. For each archive: a new virtual environment (no system site-packages),
   ``pip install <archive>`` (dependencies from the package index), then the
   smoke test below run from a temporary directory, so that the repository's
   own ``sklearn_pgtm`` cannot be imported by accident (checked, too).

Exits non-zero, naming the failed check, on any failure.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run by the fresh environment's interpreter; argv[1] is the expected version.
SMOKE_TEST = r"""
import importlib.metadata
import sys
import warnings
from pathlib import Path

import numpy as np

import sklearn_pgtm
from sklearn_pgtm import EmpiricalBayesLDA
from sklearn_pgtm.datasets import load_religion_corpus

expected_version, repository = sys.argv[1], Path(sys.argv[2])
location = Path(sklearn_pgtm.__file__).resolve()
assert Path(sys.prefix).resolve() in location.parents, f"imported from {location}"
assert repository not in location.parents, f"imported the repository's copy: {location}"
assert sklearn_pgtm.__version__ == expected_version, sklearn_pgtm.__version__
assert importlib.metadata.version("sklearn-pgtm") == expected_version

corpus = load_religion_corpus()
assert corpus.X_train.shape == (857, 9307) and corpus.X_test.shape == (570, 9307)
assert corpus.X_train.sum() == 142088 and corpus.X_test.sum() == 89759
assert len(corpus.feature_names) == 9307 and set(np.unique(corpus.y_train)) == {0, 1}

# The cheapest estimator to compile; a few sweeps on 60 documents, the
# columns they use (the others would be empty, which fit warns of).
used = np.flatnonzero(corpus.X_train[:60].getnnz(axis=0))
X, X_new = corpus.X_train[:60][:, used], corpus.X_test[:5][:, used]
with warnings.catch_warnings():
    warnings.filterwarnings("error", message=".*have no count")
    model = EmpiricalBayesLDA(n_components=3, n_samples=20, burn_in=5, n_final_iter=4,
                              random_state=0).fit(X)
theta = model.transform(X_new)
assert theta.shape == (5, 3) and np.all(np.isfinite(theta))
np.testing.assert_allclose(theta.sum(axis=1), 1.0)
np.testing.assert_array_equal(theta, model.transform(X_new))
assert model.doc_topic_prior_ > 0 and model.topic_word_prior_ > 0
print(f"smoke test passed: sklearn-pgtm {sklearn_pgtm.__version__} from {location.parent}")
"""

# Paths (relative to the archive's top directory) that each archive must hold.
REQUIRED_SDIST = [
    "pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "MANIFEST.in",
    "sklearn_pgtm/__init__.py", "sklearn_pgtm/_kernels/__init__.py",
    "sklearn_pgtm/datasets/data/religion.npz", "tests/test_common.py", "doc/conf.py",
    "doc/index.rst",
]
REQUIRED_WHEEL = [
    "sklearn_pgtm/__init__.py", "sklearn_pgtm/_kernels/__init__.py",
    "sklearn_pgtm/datasets/__init__.py", "sklearn_pgtm/datasets/data/religion.npz",
]
FORBIDDEN = re.compile(r"(__pycache__|\.py[cod]$|\.nbi$|\.nbc$|/_build/|/auto_examples/)")


def source_version():
    """``__version__`` read from the sources (without importing the package)."""
    text = (ROOT / "sklearn_pgtm" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M).group(1)


def run(command, **kwargs):
    """Run a command, echoing it first; a failure raises CalledProcessError."""
    shown = ["<smoke test>" if "\n" in str(part) else str(part) for part in command]
    print("+", " ".join(shown), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def sdist_names(path):
    with tarfile.open(path) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    return [name[len(top) + 1:] for name in names if name.startswith(top + "/")]


def wheel_names(path):
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def check_contents(kind, names, required, forbidden_prefixes=()):
    """Fail naming every required path missing and every forbidden one present."""
    problems = [f"missing {name}" for name in required if name not in names]
    problems += [f"unexpected {name}" for name in names if FORBIDDEN.search(name)]
    problems += [f"unexpected {name}" for name in names
                 if name.startswith(tuple(forbidden_prefixes))]
    if problems:
        raise SystemExit(f"{kind} contents: " + "; ".join(problems))
    print(f"{kind}: {len(names)} entries, required files present, no build outputs")


def install_and_smoke_test(kind, archive, workdir, version):
    """Fresh venv, pip install the archive, run SMOKE_TEST away from the repository."""
    env_dir = workdir / f"venv-{kind}"
    venv.create(env_dir, with_pip=True, clear=True)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    environment = {key: value for key, value in os.environ.items()
                   if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    run([python, "-m", "pip", "install", "--quiet", archive], env=environment, cwd=workdir)
    run([python, "-c", SMOKE_TEST, version, ROOT], env=environment, cwd=workdir)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory (archives and venvs)")
    args = parser.parse_args(argv)
    version = source_version()
    workdir = Path(tempfile.mkdtemp(prefix="sklearn-pgtm-dist-"))
    timings = {}
    try:
        start = time.perf_counter()
        run([sys.executable, "-m", "build", "--outdir", workdir / "dist", ROOT])
        timings["build"] = time.perf_counter() - start
        sdists = sorted((workdir / "dist").glob("*.tar.gz"))
        wheels = sorted((workdir / "dist").glob("*.whl"))
        if len(sdists) != 1 or len(wheels) != 1:
            raise SystemExit(f"expected one sdist and one wheel, got {sdists + wheels}")
        sdist, wheel = sdists[0], wheels[0]
        for archive in (sdist, wheel):
            if f"-{version}" not in archive.name:
                raise SystemExit(f"{archive.name} does not carry the version {version}")
        check_contents("sdist", sdist_names(sdist), REQUIRED_SDIST)
        check_contents("wheel", wheel_names(wheel), REQUIRED_WHEEL,
                       forbidden_prefixes=("tests/", "doc/", "examples/", "benchmarks/"))
        for kind, archive in (("wheel", wheel), ("sdist", sdist)):
            start = time.perf_counter()
            install_and_smoke_test(kind, archive, workdir, version)
            timings[f"{kind} install + smoke test"] = time.perf_counter() - start
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print("dist-check passed: " + ", ".join(f"{name} {seconds:.0f} s"
                                            for name, seconds in timings.items()))


if __name__ == "__main__":
    main()
