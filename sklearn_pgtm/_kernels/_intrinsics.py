"""Low-level helpers of the token sweeps: cache prefetch hints and a
vectorizable exponential.

A Gibbs sweep reads one row of the topic-word counts per token, at a random
word: on 20 Newsgroups that row is a cache miss most of the time, and the
search for the new topic waits for it (a third of the sweep's time at K = 20,
measured). The sweeps therefore ask for the row of a token a few positions
ahead while they work on the current one. A prefetch is only a hint: it never
changes a result, and it cannot fault on any address.

The supervised sweep needs K exponentials per token; :func:`exp_nonpositive`
computes them without a library call so that the loop vectorizes.
"""

import math

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

from ._config import CACHE

# Tokens between the prefetch of a row and its use (benchmarked: 2 is short
# of the memory latency, 4 and 8 are equal).
PREFETCH_DISTANCE = 4
_CACHE_LINE_BYTES = 64

# Opaque pointers (LLVM >= 15) name the intrinsic by address space only.
_PREFETCH_NAME = "llvm.prefetch.p0" if _llvm.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


def _prefetch_codegen(context, builder, signature, args):
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    index = [context.cast(builder, value, ty, types.intp)
             for value, ty in zip(args[1:], signature.args[1:])]
    ptr = cgutils.get_item_pointer(context, builder, aryty, ary, index)
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH_NAME)
    # (address, read = 0, locality = 3: keep in all cache levels, data = 1)
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


@intrinsic
def prefetch(typingctx, arr, i, j):
    """Prefetch the cache line holding ``arr[i, j]`` (2-D array) for reading."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2):
        return None
    return types.void(arr, i, j), _prefetch_codegen


@intrinsic
def prefetch_item(typingctx, arr, i):
    """Prefetch the cache line holding ``arr[i]`` (1-D array) for reading."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1):
        return None
    return types.void(arr, i), _prefetch_codegen


@njit(cache=CACHE, inline="always")
def prefetch_row(arr, i):
    """Prefetch every cache line of row ``i`` of a C-contiguous 2-D array."""
    step = max(_CACHE_LINE_BYTES // arr.itemsize, 1)
    for j in range(0, arr.shape[1], step):
        prefetch(arr, i, j)


@njit(cache=CACHE, inline="always")
def prefetch_span(arr, start, stop):
    """Prefetch every cache line of ``arr[start:stop]`` (1-D array)."""
    step = max(_CACHE_LINE_BYTES // arr.itemsize, 1)
    for i in range(start, stop, step):
        prefetch_item(arr, i)


@intrinsic
def _int64_bits_as_float64(typingctx, bits):
    """Reinterpret the 64 bits of an int64 as a float64."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
# ln 2 split so that n * _LN2_HI is exact for |n| < 2^11 (Cody & Waite).
_LN2_HI = 0.693145751953125
_LN2_LO = 1.4286068203094173e-06
_EXP_FLOOR = -700.0  # exp(-700) ~ 1e-304: below any weight that can matter


@njit(cache=CACHE, inline="always", fastmath=False)
def exp_nonpositive(x):
    """exp(x) for x <= 0 with no branch and no library call, so that a loop of
    it vectorizes (numba's math.exp calls libm one value at a time).

    Arguments below -700 give exp(-700) (about 1e-304) instead of smaller
    values: the sweeps only use it on weights scaled so that the largest is 1,
    where such a difference is far below the rounding of the total. Relative
    error otherwise below 3e-16 (tests/test_sweeps.py compares it with
    math.exp).
    """
    x = max(x, _EXP_FLOOR)
    n = math.floor(x * _LOG2E + 0.5)
    r = (x - n * _LN2_HI) - n * _LN2_LO  # |r| <= ln(2) / 2
    # Taylor series of exp(r) to r^13 / 13! (truncation < 1e-17 for |r| < 0.35).
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    # 2^n built from its exponent bits (n >= -1010, a normal number).
    return p * _int64_bits_as_float64((np.int64(n) + np.int64(1023)) << np.int64(52))
