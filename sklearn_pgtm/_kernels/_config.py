"""Whether the numba kernels can be cached on disk.

Every kernel is compiled with ``cache=CACHE``. Numba caches a compiled kernel
next to its source (``__pycache__``), in ``NUMBA_CACHE_DIR`` or in the user's
cache directory, whichever it can write; on a read-only install with none of
them writable (as in many containers), ``cache=CACHE`` would make the import
fail ("no locator available"). The probe below asks numba's own locators
about a function of this package; if none can write, the kernels are compiled
in memory in every process instead, and a warning says once how to enable
the cache.
"""

import warnings

from numba.core.caching import FunctionCache


def _probe():  # a function defined in the package tree, like every kernel
    return None


def _cache_available():
    try:
        FunctionCache(_probe)
    except RuntimeError:
        return False
    return True


CACHE = _cache_available()

if not CACHE:
    warnings.warn(
        "sklearn_pgtm: no writable place to cache the compiled numba kernels (the package "
        "directory, NUMBA_CACHE_DIR and the user cache directory are read-only); they are "
        "compiled in memory in every process, which takes tens of seconds at first use. Set "
        "the environment variable NUMBA_CACHE_DIR to a writable directory to cache them.",
        RuntimeWarning, stacklevel=2)
