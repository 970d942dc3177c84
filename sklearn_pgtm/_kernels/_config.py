"""Whether the numba kernels can be cached on disk.

Every kernel is compiled with ``cache=CACHE``. Numba caches a compiled kernel
next to its source (``__pycache__``), in ``NUMBA_CACHE_DIR`` or in the user's
cache directory, whichever it can write; on a read-only install with none of
them writable (as in many containers), ``cache=CACHE`` would make the import
fail ("no locator available"). The probe below asks numba's own locators
about a function of this package; if none can write, the kernels are compiled
in memory in every process instead, and a warning says once how to enable
the cache.

Numba keys a cached kernel on the content of its own source file only, but
the kernels of this folder inline each other's functions and constants (the
correlated model's updates compile ``pg_draw`` and its switch point from
``_polyagamma.py`` into their own machine code). After an edit of one file, or
an upgrade that changes one, the kernels of the other files would load stale
code from the cache. One digest over every source of the folder, kept next
to the cache, clears the folder's cached kernels when it changes.
"""

import hashlib
import os
import sys
import tempfile
import warnings

from numba.core.caching import FunctionCache


def _probe():  # a function defined in the package tree, like every kernel
    return None


def _cache_directory():
    """Where numba caches this folder's kernels, or None if nowhere is writable."""
    try:
        return FunctionCache(_probe).cache_path
    except RuntimeError:
        return None


_FOLDER = os.path.dirname(os.path.abspath(__file__))
_DIGEST_NAME = "sklearn_pgtm_kernels.digest"


def _source_digest():
    """SHA-256 over the names and contents of every module of this folder."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(_FOLDER)):
        if name.endswith(".py"):
            with open(os.path.join(_FOLDER, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read() + b"\0")
    return digest.hexdigest()


def _clear_stale_cache(cache_dir):
    """Delete the kernels cached in ``cache_dir`` if any source of this
    folder changed since the digest there was written."""
    stamp = os.path.join(cache_dir, _DIGEST_NAME)
    digest = _source_digest()
    try:
        with open(stamp, encoding="ascii") as f:
            if f.read() == digest:
                return
    except OSError:
        pass
    modules = {name[:-3] for name in os.listdir(_FOLDER) if name.endswith(".py")}
    for name in os.listdir(cache_dir):
        if name.endswith((".nbi", ".nbc")) and name.split(".", 1)[0] in modules:
            try:  # another process may be clearing it too
                os.remove(os.path.join(cache_dir, name))
            except OSError:
                pass
    # Written whole or not at all, so a concurrent import reads either digest.
    fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(digest)
        os.replace(tmp, stamp)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


_CACHE_DIR = _cache_directory()
CACHE = _CACHE_DIR is not None

if CACHE:
    try:
        _clear_stale_cache(_CACHE_DIR)
    except OSError:  # the cache stays as numba left it; never fail the import
        pass


def _stacklevel_outside_package():
    """The ``stacklevel`` of a warning issued by this function's caller that
    names the first frame outside this package (the user's import), skipping
    importlib's frames as :func:`warnings.warn` does."""
    package = os.path.dirname(_FOLDER) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
        while frame is not None and _is_importlib(frame):
            frame = frame.f_back
    return level


def _is_importlib(frame):
    name = frame.f_code.co_filename
    return "importlib" in name and "_bootstrap" in name


if not CACHE:
    warnings.warn(
        "sklearn_pgtm: no writable place to cache the compiled numba kernels (the package "
        "directory, NUMBA_CACHE_DIR and the user cache directory are read-only); they are "
        "compiled in memory in every process, which takes tens of seconds at first use. Set "
        "the environment variable NUMBA_CACHE_DIR to a writable directory to cache them.",
        RuntimeWarning, stacklevel=_stacklevel_outside_package())
