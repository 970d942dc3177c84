"""Reliability in real deployments (issue 17): numba's cache, read-only
installs, memory with long documents, threading layers, n_jobs.

Each case runs in a subprocess (a fresh interpreter, its own environment),
with a timeout.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sklearn_pgtm
from sklearn_pgtm._parallel import available_cores, effective_n_jobs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(sklearn_pgtm.__file__)))


def _run(code, env=None, timeout=1800):
    environ = dict(os.environ)
    environ.update(env or {})
    environ["PYTHONPATH"] = ROOT + os.pathsep + environ.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=environ, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


FIT_EVERY_MODEL = """
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
import sklearn_pgtm as m
X = np.random.RandomState(0).poisson(1.0, size=(30, 12))
y = np.arange(30) % 2
m.GibbsLDA(3, max_iter=4, burn_in=2, random_state=0).fit(X).transform(X)
m.GibbsLDA(3, max_iter=2, burn_in=0, doc_topic_prior=0.1, topic_word_prior=0.1,
           method="sparse", random_state=0).fit(X)
m.EmpiricalBayesLDA(2, n_samples=4, burn_in=2, n_final_iter=2, random_state=0).fit(X)
m.GibbsSLDAClassifier(3, max_iter=4, burn_in=2, random_state=0).fit(X, y).predict(X)
m.CorrelatedTopicModel(3, max_iter=4, burn_in=2, random_state=0).fit(X).transform(X)
m.CorrelatedTopicModel(3, link="stick_breaking", max_iter=4, burn_in=2,
                       random_state=0).fit(X).transform(X)
from numba.core.dispatcher import Dispatcher
misses, hits = [], 0
for name, module in list(sys.modules.items()):
    if not name.startswith("sklearn_pgtm"):
        continue
    for value in vars(module).values():
        if isinstance(value, Dispatcher):
            misses += [f"{name}.{value.__name__}" for _ in value.stats.cache_misses]
            hits += sum(value.stats.cache_hits.values())
print(json.dumps({"misses": sorted(set(misses)), "hits": hits}))
"""


def test_kernels_are_compiled_once_and_loaded_from_the_cache_afterwards():
    # The first process may compile (cold cache); every later one must load
    # every kernel it uses from the cache: no kernel keyed by an object's
    # identity (an ndarray default argument, a function passed as argument).
    _run(FIT_EVERY_MODEL)
    out = json.loads(_run(FIT_EVERY_MODEL).stdout.strip().splitlines()[-1])
    assert out["hits"] > 0
    assert out["misses"] == []


def test_every_kernel_uses_the_cache_flag():
    # cache=True would make the import fail on a read-only install.
    package = os.path.dirname(sklearn_pgtm.__file__)
    offenders = []
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    if "cache=True" in f.read() and not name == "_config.py":
                        offenders.append(path)
    assert offenders == []


def test_import_and_fit_on_a_read_only_install():
    # Numba finds no writable place for its cache (package tree, NUMBA_CACHE_DIR
    # and HOME read-only): simulated by giving numba no cache locator at all,
    # which is what it ends up with there. The package must import, say once
    # how to enable the cache, and fit with kernels compiled in memory.
    code = """
    import warnings
    import numba.core.caching as caching
    caching.CacheImpl._locator_classes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import numpy as np
        import sklearn_pgtm
    messages = [str(w.message) for w in caught if "NUMBA_CACHE_DIR" in str(w.message)]
    assert len(messages) == 1, messages
    # Named where the user's code imported the package (it named _random.py).
    places = [w.filename for w in caught if "NUMBA_CACHE_DIR" in str(w.message)]
    assert places == ["<string>"], places
    from sklearn_pgtm._kernels._config import CACHE
    assert CACHE is False
    X = np.random.RandomState(0).poisson(1.0, size=(20, 8))
    theta = sklearn_pgtm.GibbsLDA(2, max_iter=3, burn_in=2, random_state=0).fit(X).transform(X)
    assert np.allclose(theta.sum(axis=1), 1.0)
    print("ok")
    """
    assert _run(code).stdout.strip().endswith("ok")


def _copy_package(target):
    import shutil

    shutil.copytree(os.path.join(ROOT, "sklearn_pgtm"), target / "sklearn_pgtm",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return target / "sklearn_pgtm" / "_kernels"


def _run_in(site, code, **env):
    """Run code on the package copied to site, numba caching next to the sources."""
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environ.update(env, PYTHONPATH=str(site))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=600, env=environ, cwd=str(site))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="permission bits do not bind root")
def test_import_with_read_only_package_tree_and_home(tmp_path):
    import stat

    target = tmp_path / "site"
    _copy_package(target)
    home = tmp_path / "home"
    home.mkdir()
    for path in [home, *target.rglob("*"), target]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    code = """
    import numpy as np, sklearn_pgtm
    X = np.random.RandomState(0).poisson(1.0, size=(20, 8))
    sklearn_pgtm.GibbsLDA(2, max_iter=3, burn_in=2, random_state=0).fit(X)
    print("ok")
    """
    assert _run_in(target, code, HOME=str(home)) == "ok"


CACHED_KERNEL_OF_A_CONSTANT = """
from numba import njit
from ._config import CACHE
from ._zz_constant import VALUE


@njit(cache=CACHE)
def read_value():
    return VALUE
"""


def test_a_change_in_one_kernel_file_reaches_the_cached_kernels_of_another(tmp_path):
    # Numba keys a cached kernel on its own file only: a kernel compiling in a
    # constant of another file would load stale code after that file changed
    # (as the correlated model's updates did after pg_draw's switch point moved).
    kernels = _copy_package(tmp_path)
    (kernels / "_zz_user.py").write_text(CACHED_KERNEL_OF_A_CONSTANT)
    (kernels / "_zz_constant.py").write_text("VALUE = 1\n")
    code = "from sklearn_pgtm._kernels._zz_user import read_value; print(read_value())"
    assert _run_in(tmp_path, code) == "1"
    cached = sorted(p.name for p in (kernels / "__pycache__").glob("_zz_user.*.nb[ic]"))
    assert cached  # compiled and cached
    index = kernels / "__pycache__" / next(n for n in cached if n.endswith(".nbi"))
    written = index.stat().st_mtime_ns
    assert _run_in(tmp_path, code) == "1"  # sources unchanged: the cache is kept
    assert index.stat().st_mtime_ns == written

    (kernels / "_zz_constant.py").write_text("VALUE = 2\n")
    assert _run_in(tmp_path, code) == "2"


def test_memory_grows_with_the_tokens_not_with_topics_times_the_longest_document():
    # One 10^6-token document at K = 200: the old dense histogram alone took
    # 1.6 GB (1.9 GB peak); now the peak grows by what the tokens need.
    code = """
    import json, warnings
    import numpy as np, scipy.sparse as sp
    warnings.simplefilter("ignore")
    import sklearn_pgtm

    def peak():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

    rng = np.random.RandomState(0)
    long_doc = rng.multinomial(10**6, np.full(1000, 1e-3))
    X = sp.csr_matrix(np.vstack([long_doc, rng.poisson(1.0, size=(5, 1000))]))
    small = sp.csr_matrix(rng.poisson(1.0, size=(6, 1000)))
    sklearn_pgtm.GibbsLDA(200, max_iter=2, burn_in=1, random_state=0).fit(small)
    sklearn_pgtm.EmpiricalBayesLDA(200, n_samples=4, burn_in=1, n_final_iter=1,
                                   random_state=0).fit(small)
    before = peak()
    sklearn_pgtm.GibbsLDA(200, max_iter=2, burn_in=1, random_state=0).fit(X)
    sklearn_pgtm.EmpiricalBayesLDA(200, n_samples=4, burn_in=1, n_final_iter=1,
                                   random_state=0).fit(X)
    print(json.dumps({"growth_mib": peak() - before}))
    """
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to read the peak memory")
    out = json.loads(_run(code).stdout.strip().splitlines()[-1])
    assert out["growth_mib"] < 250, out


def test_concurrent_transform_calls_under_the_workqueue_threading_layer():
    # No kernel uses numba's parallel threading layers (threads come from
    # Python's pool), so concurrent calls are safe under any layer; the
    # workqueue layer used to abort the process here.
    code = """
    import threading
    import numpy as np
    import sklearn_pgtm
    X = np.random.RandomState(0).poisson(1.0, size=(40, 10))
    models = [sklearn_pgtm.GibbsLDA(3, max_iter=4, burn_in=2, random_state=0).fit(X),
              sklearn_pgtm.CorrelatedTopicModel(3, max_iter=4, burn_in=2, n_jobs=2,
                                                random_state=0).fit(X)]
    expected = [m.transform(X) for m in models]
    errors = []

    def work(i):
        try:
            for _ in range(5):
                m = models[i % 2]
                if not np.array_equal(m.transform(X), expected[i % 2]):
                    errors.append("different")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    print("ok")
    """
    out = _run(code, env={"NUMBA_THREADING_LAYER": "workqueue"})
    assert out.stdout.strip().endswith("ok")


def test_n_jobs_is_capped_and_zero_is_refused(monkeypatch):
    assert effective_n_jobs(1000) == available_cores()
    assert effective_n_jobs(1000, n_units=3) <= 3
    assert effective_n_jobs(-1) == available_cores()
    with pytest.raises(ValueError, match="n_jobs == 0"):
        effective_n_jobs(0)
    X = np.random.RandomState(0).poisson(1.0, size=(20, 8))
    for cls in (sklearn_pgtm.GibbsLDA, sklearn_pgtm.CorrelatedTopicModel,
                sklearn_pgtm.EmpiricalBayesLDA):
        with pytest.raises(ValueError, match="n_jobs"):
            cls(2, n_jobs=0).fit(X)
    with pytest.raises(ValueError, match="n_jobs"):
        sklearn_pgtm.GibbsSLDAClassifier(2, n_jobs=0).fit(X, np.arange(20) % 2)
    # A huge n_jobs runs on at most as many threads as there are cores. The
    # pools of this fit only: earlier tests may have made larger ones (a test
    # of the priors sets a chain's threads to 4 directly), and this test
    # failed after them on a 2-core machine.
    import sklearn_pgtm._parallel as parallel

    pools = {}
    monkeypatch.setattr(parallel, "_POOLS", pools)
    try:
        sklearn_pgtm.GibbsLDA(2, max_iter=3, burn_in=2, n_jobs=1000, random_state=0).fit(X)
        assert pools and max(pools) <= available_cores()
    finally:
        for pool in pools.values():
            pool.shutdown()


@pytest.mark.parametrize("make", [
    lambda: sklearn_pgtm.GibbsLDA(3, max_iter=4, burn_in=2, n_jobs=2, random_state=0),
    lambda: sklearn_pgtm.CorrelatedTopicModel(3, max_iter=4, burn_in=2, n_jobs=2,
                                              random_state=0),
])
def test_a_fit_with_n_jobs_does_not_depend_on_the_cores_of_the_machine(make, monkeypatch):
    # The partitioned sweep took min(n_jobs, cores) blocks: n_jobs=2 fitted
    # another model on one core (a container, taskset, a batch slot) than on
    # two, where the user guide promises a function of random_state and n_jobs.
    import sklearn_pgtm._parallel as parallel

    X = np.random.RandomState(0).poisson(1.0, size=(30, 12))
    fits = {}
    for cores in (1, 4):
        monkeypatch.setattr(parallel, "available_cores", lambda cores=cores: cores)
        fits[cores] = make().fit(X).components_
    np.testing.assert_array_equal(fits[1], fits[4])


def test_map_ranges_runs_every_block_once_and_waits_for_all_when_one_raises():
    import threading
    import time

    from sklearn_pgtm._parallel import map_ranges

    calls = []

    def kernel(lo, hi):
        calls.append((lo, hi, threading.current_thread() is threading.main_thread()))
        return hi - lo

    assert map_ranges(kernel, np.array([0, 3, 7, 12])) == [3, 4, 5]
    assert sorted(c[:2] for c in calls) == [(0, 3), (3, 7), (7, 12)]
    # The calling thread takes the first block itself, the pool the others.
    assert [c[2] for c in calls if c[0] == 0] == [True]
    assert not any(c[2] for c in calls if c[0] != 0)

    finished = []

    def failing_first(lo, hi):
        if lo == 0:
            raise RuntimeError("block 0 failed")
        time.sleep(0.05)
        finished.append(lo)

    with pytest.raises(RuntimeError, match="block 0 failed"):
        map_ranges(failing_first, np.array([0, 1, 2]))
    # The call returned only after the pool's block had finished.
    assert finished == [1]


def test_a_forked_child_runs_threads_after_its_parent_did():
    # A forked child inherited the pools without their threads: after the
    # parent had used n_jobs=2 once, a child's n_jobs=2 call waited forever
    # (multiprocessing's fork start, gunicorn / celery prefork workers).
    code = """
    import multiprocessing as mp
    import numpy as np
    import sklearn_pgtm
    X = np.random.RandomState(0).poisson(1.0, size=(40, 10))
    model = sklearn_pgtm.GibbsLDA(3, max_iter=4, burn_in=2, n_jobs=2, random_state=0).fit(X)
    expected = model.transform(X)

    def child(queue):
        queue.put(model.transform(X))

    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=child, args=(queue,))
    process.start()
    process.join(120)
    if process.is_alive():
        process.kill()
        raise SystemExit("the forked child hung")
    assert np.array_equal(queue.get(timeout=10), expected)
    print("ok")
    """
    out = _run(code, timeout=300)
    assert out.stdout.strip().endswith("ok")


def _overlapping(context):
    """Enter ``context()`` in thread A, then in thread B, leave in A, then in B
    (as far as the context lets B in while A is inside)."""
    import threading

    a_inside, b_started, a_left = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def first():
        with context():
            a_inside.set()
            b_started.wait(10)
            seen.append(context.observe())
        a_left.set()

    def second():
        a_inside.wait(10)
        b_started.set()
        with context():
            a_left.wait(10)
            seen.append(context.observe())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return seen


class _StandInBlasLimit:
    """A threadpoolctl limiter over a stand-in for the process-wide BLAS
    setting (``setting["threads"]``): whether OpenBLAS honours a thread's
    raise of it depends on its build and history."""

    def __init__(self, setting):
        self.setting, self.found = setting, setting["threads"]
        setting["threads"] = 1

    def restore_original_limits(self):
        self.setting["threads"] = self.found

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore_original_limits()


def _stand_in_blas(monkeypatch):
    """The package's BLAS limits made on a stand-in setting (2 threads), with
    a fresh counter of one_blas_thread; returns the setting."""
    import sklearn_pgtm._parallel as parallel

    setting = {"threads": 2}
    controller = type("Controller", (), {
        "limit": lambda self, **kw: _StandInBlasLimit(setting)})()
    monkeypatch.setattr(parallel, "_blas_controller", lambda: controller)
    monkeypatch.setattr(parallel, "_BLAS_LIMIT", parallel._SharedBlasLimit())
    return setting


def test_one_blas_thread_restores_the_limit_after_calls_overlapping_in_threads(monkeypatch):
    # Each threadpoolctl limiter restored what it found: B entered at 1 and,
    # leaving last, left BLAS on one thread for the rest of the process.
    import sklearn_pgtm._parallel as parallel

    setting = _stand_in_blas(monkeypatch)

    def context():
        return parallel.one_blas_thread()

    context.observe = lambda: setting["threads"]
    assert _overlapping(context) == [1, 1]
    assert setting["threads"] == 2


def test_ignored_warnings_overlapping_in_threads_leave_no_filter():
    # catch_warnings saves and restores the process-wide filters: two
    # overlapping contexts left 'ignore ConvergenceWarning' on for good.
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from sklearn_pgtm._parallel import ignoring_warnings

    def context():
        return ignoring_warnings(ConvergenceWarning)

    context.observe = lambda: None
    before = list(warnings.filters)
    _overlapping(context)
    assert warnings.filters == before


def _forked_report(report):
    """Fork: the child writes ``str(report())`` to a pipe and leaves at once;
    returns what it wrote (in the parent)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write_end, str(report()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    text = os.read(read_end, 64).decode()
    os.close(read_end)
    os.waitpid(pid, 0)
    return text


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_during_a_fit_gets_the_blas_threads_back(monkeypatch):
    # The fork handler reset one_blas_thread's counter but not the limit: a
    # child forked while a thread of the parent was inside one_blas_thread
    # (a multiprocessing worker started during a fit) kept BLAS on one
    # thread for good.
    import sklearn_pgtm._parallel as parallel

    setting = _stand_in_blas(monkeypatch)
    with parallel.one_blas_thread():
        assert setting["threads"] == 1
        child = _forked_report(lambda: setting["threads"])
    assert setting["threads"] == 2
    assert child == "2"


def test_a_fit_in_another_thread_does_not_silence_this_threads_warnings(monkeypatch):
    # The correlated model's NMF start ignores scikit-learn's
    # ConvergenceWarning; the filter is process-wide, and a GibbsLDA fit in
    # another thread lost its own ConvergenceWarning while the NMF ran.
    import threading
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import sklearn_pgtm._chain as chain_module

    inside, release = threading.Event(), threading.Event()

    class BlockingNMF(chain_module.NMF):
        def fit_transform(self, X, y=None, W=None, H=None):
            inside.set()
            release.wait(30)
            return super().fit_transform(X)

    monkeypatch.setattr(chain_module, "NMF", BlockingNMF)
    X = np.random.RandomState(0).poisson(1.0, size=(30, 12))
    errors = []

    def ctm():
        try:
            sklearn_pgtm.CorrelatedTopicModel(3, max_iter=2, burn_in=1, random_state=0).fit(X)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        thread = threading.Thread(target=ctm, daemon=True)
        thread.start()
        try:
            assert inside.wait(30)  # the other thread is inside its filter
            sklearn_pgtm.GibbsLDA(2, max_iter=2, burn_in=2, random_state=0).fit(X)
        finally:
            release.set()
            thread.join(60)
    assert not errors
    assert any(issubclass(w.category, ConvergenceWarning)
               and str(w.message).startswith("GibbsLDA: the chain ended inside its burn-in")
               for w in caught), [str(w.message) for w in caught]


def test_the_nmf_start_still_ignores_scikit_learns_convergence_warning(monkeypatch):
    import warnings

    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning

    import sklearn_pgtm._chain as chain_module

    monkeypatch.setattr(chain_module, "FACTOR_ITER", 1)
    X = sp.csr_matrix(np.random.RandomState(0).poisson(1.0, size=(200, 150)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chain_module.factorize(X, 5, 0)
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_n_jobs_2_works_after_the_interpreter_began_to_shut_down():
    # After threading's shutdown (atexit handlers, daemon threads outliving
    # the main thread) the shared pools refused every task: n_jobs=2 raised
    # "RuntimeError: cannot schedule new futures after shutdown" where
    # n_jobs=1 worked. In a subprocess: the shutdown is the process's.
    code = textwrap.dedent("""
        import atexit
        import numpy as np
        from sklearn_pgtm import GibbsLDA, GibbsSLDAClassifier
        X = np.random.RandomState(0).poisson(1.0, size=(40, 10))
        y = np.arange(40) % 3
        lda = GibbsLDA(3, max_iter=4, burn_in=2, n_jobs=2, random_state=0).fit(X)
        ovr = GibbsSLDAClassifier(3, max_iter=4, burn_in=2, n_jobs=2, random_state=0)
        expected = (lda.transform(X), ovr.fit(X, y).coef_)

        def at_exit():
            got = (lda.transform(X), ovr.fit(X, y).coef_)
            same = all(np.array_equal(a, b) for a, b in zip(got, expected))
            print("ok" if same else "different", flush=True)

        atexit.register(at_exit)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.strip().splitlines()[-1:] == ["ok"], out.stderr[-2000:]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_inside_one_blas_thread_still_limits_blas_afterwards(monkeypatch):
    # The fork handler gives the child a new counter; leaving the with block
    # in the child decremented that new counter to -1, and every later call
    # of the child left BLAS unlimited.
    import sklearn_pgtm._parallel as parallel

    setting = _stand_in_blas(monkeypatch)
    block = parallel.one_blas_thread()

    def leave_then_limit_again():
        block.__exit__(None, None, None)  # the child leaves the block
        with parallel.one_blas_thread():
            inside = setting["threads"]
        return f"{inside} {setting['threads']}"

    block.__enter__()
    try:
        child = _forked_report(leave_then_limit_again)
    finally:
        block.__exit__(None, None, None)
    assert child == "1 2"
    assert setting["threads"] == 2
