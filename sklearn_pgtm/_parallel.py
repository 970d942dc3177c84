"""Threads for the numba kernels, and the one meaning of ``n_jobs``.

Every estimator of the package runs its kernels on Python threads: the
kernels are compiled with ``nogil=True`` and work on a range of units
(documents, sequences, (topic, word) cells, ...), and :func:`map_ranges`
calls one kernel per contiguous block of units on a process-wide thread pool.
No kernel uses numba's own ``parallel=True`` threading layers, so concurrent
calls from several Python threads are safe whatever ``NUMBA_THREADING_LAYER``
says, and every unit draws from its own random stream: results depend on
``random_state`` (and, for the partitioned topic sweeps, on ``n_jobs``), never
on how the blocks are scheduled.

``n_jobs`` means the same everywhere (:func:`effective_n_jobs`): ``None`` is
1, a positive value is that many threads, ``-1`` all cores, ``-2`` all but
one, and so on; 0 is an error. The count is capped by the cores this process
may use and by the number of units to share.
"""

import contextlib
import functools
import os
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np
from threadpoolctl import ThreadpoolController

__all__ = ["available_cores", "balanced_cuts", "effective_n_jobs", "ignoring_warnings",
           "map_ranges", "one_blas_thread", "requested_n_jobs"]


def available_cores():
    """Number of cores this process may run on (its CPU affinity when known)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def requested_n_jobs(n_jobs):
    """The number of threads ``n_jobs`` asks for, not capped by the cores:
    ``None`` is 1, a positive value itself, a negative value counts from the
    number of cores (``-1``: all of them); 0 raises ``ValueError``.

    What a result may depend on (the blocks of the partitioned topic sweep,
    :class:`~sklearn_pgtm._chain.TopicChain`): the cores of the machine may
    only limit how many of the blocks run at once, so that ``n_jobs=4`` gives
    the same fit on two cores as on eight."""
    if n_jobs is None:
        return 1
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None or 1 for one thread, "
                         "-1 for all cores.")
    return n_jobs if n_jobs > 0 else max(1, available_cores() + 1 + n_jobs)


def effective_n_jobs(n_jobs, n_units=None):
    """Threads to use for ``n_jobs``, capped by the cores and by ``n_units``.

    Parameters
    ----------
    n_jobs : int or None
        ``None`` means 1; negative values count from the number of cores
        (``-1``: all of them); 0 raises ``ValueError``.
    n_units : int, default=None
        Number of independent units to share (documents, classes, ...); no
        more threads than units are used.

    Returns
    -------
    n_threads : int
        At least 1.
    """
    n = min(requested_n_jobs(n_jobs), available_cores())
    if n_units is not None:
        n = min(n, max(int(n_units), 1))
    return max(n, 1)


def balanced_cuts(cumulative, n_parts):
    """Boundaries (``n_parts + 1`` values) cutting items into contiguous blocks
    of about equal weight.

    ``cumulative`` holds the ``n + 1`` running totals of the items' weights
    (from 0), e.g. ``doc_ptr`` for documents weighed by their tokens.
    """
    cumulative = np.asarray(cumulative)
    n_items = cumulative.shape[0] - 1
    n_parts = max(1, min(int(n_parts), max(n_items, 1)))
    targets = cumulative[-1] * np.arange(n_parts + 1) / n_parts
    bounds = np.searchsorted(cumulative, targets, side="left").astype(np.int64)
    bounds[0] = 0
    bounds[-1] = n_items
    return np.maximum.accumulate(np.minimum(bounds, n_items))


_POOLS = {}
_POOLS_LOCK = threading.Lock()


class _Pool(ThreadPoolExecutor):
    """A thread pool that runs a task in the calling thread once it refuses
    new work: after the interpreter began to shut down (an ``atexit`` handler,
    a daemon thread outliving the main thread) every ``submit`` raised
    ``RuntimeError``, so that ``n_jobs=2`` failed where ``n_jobs=1`` worked.
    The tasks given to the pools share nothing with each other, so running
    them one after the other gives the same result."""

    def submit(self, fn, /, *args, **kwargs):
        try:
            return super().submit(fn, *args, **kwargs)
        except RuntimeError:
            future = Future()
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)
            return future


def thread_pool(n_threads):
    """A process-wide pool per thread count (kernels are too short to pay for
    starting threads at every call)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(n_threads)
        if pool is None:
            pool = _POOLS[n_threads] = _Pool(
                max_workers=n_threads, thread_name_prefix="sklearn_pgtm")
        return pool


def map_ranges(kernel, bounds):
    """Call ``kernel(lo, hi)`` for every block ``bounds[p]:bounds[p + 1]``.

    One block runs in the calling thread; more run on the pool, one thread
    per block, and the call returns when all are done (the first exception
    raised by a block is re-raised). Returns the list of the blocks' results.
    """
    blocks = [(int(bounds[p]), int(bounds[p + 1])) for p in range(len(bounds) - 1)]
    if len(blocks) == 1:
        return [kernel(*blocks[0])]
    # The calling thread takes the first block rather than waiting idle (one
    # hand-off fewer per call; the multinomial classifier makes 20 calls of
    # about 1 ms per sweep).
    futures = [thread_pool(len(blocks) - 1).submit(kernel, lo, hi) for lo, hi in blocks[1:]]
    try:
        first = kernel(*blocks[0])
    finally:
        # Every block finishes before the call returns, also when one raised.
        wait(futures)
    return [first] + [future.result() for future in futures]


@functools.cache
def _blas_controller():
    # Built once per process: threadpoolctl finds the BLAS libraries by
    # reading /proc/self/maps, 1.5-5 ms per ``threadpool_limits`` call (13 %
    # of a supervised fit that entered it once per sweep: 100 sweeps of 857
    # documents, K = 20); a controller's ``limit`` costs 0.04 ms.
    return ThreadpoolController()


class _SharedBlasLimit:
    """One BLAS limit for every thread inside :func:`one_blas_thread`.

    The limit is process-wide, and a threadpoolctl limiter restores what it
    found on entry: two calls overlapping in threads (a ``GridSearchCV`` on
    the threading backend) would restore each other's limit and leave BLAS
    on one thread for the rest of the process. Counted instead: the first
    caller in sets the limit, the last one out restores the original.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0
        self.limiter = None

    def enter(self):
        with self.lock:
            if self.users == 0:
                self.limiter = _blas_controller().limit(limits=1, user_api="blas")
            self.users += 1

    def exit(self):
        with self.lock:
            self.users -= 1
            if self.users == 0:
                self.limiter.restore_original_limits()
                self.limiter = None


_BLAS_LIMIT = _SharedBlasLimit()


@contextlib.contextmanager
def one_blas_thread():
    """Context manager: single-threaded BLAS / LAPACK inside.

    For the small dense matrices of the Gibbs steps (K x K weight
    conditionals, GP kernel blocks): a multi-threaded BLAS on them only adds
    synchronization (measured on the loaded 2-core machine: a 57 x 57
    eigendecomposition 40 ms with 2 OpenBLAS threads, 1.6 ms with one; a
    supervised class draw at K = 20 69 ms against 0.5 ms), and the package's
    own threads already share the work. The original limit is back when the
    last of the threads inside leaves.
    """
    # The counter entered, also when a fork inside replaces the global one
    # (the child's new counter would go negative and never limit again).
    limit = _BLAS_LIMIT
    limit.enter()
    try:
        yield
    finally:
        limit.exit()


# Held while a thread's warning filters are changed: ``catch_warnings`` saves
# and restores the process-wide filter list, so two such contexts
# overlapping in threads restore each other's list and leave the filter on
# (ConvergenceWarning silenced for the rest of the process).
_WARNINGS_LOCK = threading.RLock()


@contextlib.contextmanager
def ignoring_warnings(category, message="", module=r"sklearn\."):
    """Context manager: warnings of ``category`` (whose text starts with
    ``message``) issued from a module matching ``module`` (default:
    scikit-learn's, which is what every caller silences) ignored inside, one
    thread at a time among the package's callers.

    The filter list is process-wide: a filter on the category alone also
    swallowed the warnings of fits running meanwhile in other threads (the
    package's own warnings are attributed to the user's code, never to
    scikit-learn's modules)."""
    with _WARNINGS_LOCK, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=message, category=category, module=module)
        yield


def _after_fork_in_child():
    # A forked child inherits the pools without their threads (a submitted
    # block would wait forever) and locks possibly held by a thread it lacks.
    # A fork during another thread's fit also inherits that fit's BLAS limit
    # (one thread), which no thread of the child would ever restore: the
    # child's BLAS stayed on one thread for good (a multiprocessing worker
    # forked while a fit ran in a thread of the parent).
    global _POOLS_LOCK, _WARNINGS_LOCK, _BLAS_LIMIT
    inherited = _BLAS_LIMIT.limiter
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()
    _WARNINGS_LOCK = threading.RLock()
    _BLAS_LIMIT = _SharedBlasLimit()
    if inherited is not None:
        try:
            inherited.restore_original_limits()
        except Exception:  # pragma: no cover - never fail a fork
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
