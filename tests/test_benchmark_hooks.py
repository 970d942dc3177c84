"""Benchmarks that reach into an estimator's private state stay in step with it.

``benchmarks/lds.py --parts sampling`` restricts one fit's kept draws to the
sweeps that other ``burn_in`` / ``n_samples`` settings keep, instead of
refitting; it read a dict of draws after MultinomialLDS had moved them into a
typed object, and failed only when that part ran.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from sklearn_pgtm import MultinomialLDS
from sklearn_pgtm.datasets import load_wonderland

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def lds_benchmark(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("lds_benchmark", BENCHMARKS / "lds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("_results", None)


def test_restricted_draws_equal_a_fit_that_keeps_those_sweeps(lds_benchmark):
    X = load_wonderland(n_words=60, n_tokens=300).X
    everything = lds_benchmark.keep_all(0, X, 2, max_iter=30)
    for burn_in, n_samples in [(15, 10), (lds_benchmark.FIRST_KEPT, 18), (25, 3)]:
        part = lds_benchmark.restricted(everything, burn_in, n_samples)
        fit = MultinomialLDS(2, max_iter=30, burn_in=burn_in, n_samples=n_samples,
                             random_state=0).fit(X)
        assert part._draws.n_draws == fit._draws.n_draws == min(n_samples, 30 - burn_in)
        for name in fit._draws._NAMES:
            np.testing.assert_array_equal(getattr(part._draws, name),
                                          getattr(fit._draws, name))
        assert part.score(X[:40]) == pytest.approx(fit.score(X[:40]), rel=1e-12)
