"""Low-level helpers of the token sweeps: cache prefetch hints and a
vectorizable exponential.

A Gibbs sweep reads one row of the topic-word counts per token, at a random
word: on 20 Newsgroups that row is a cache miss most of the time, and the
search for the new topic waits for it (a third of the sweep's time at K = 20,
measured). The sweeps therefore ask for the row of a token a few positions
ahead while they work on the current one. A prefetch is only a hint: it never
changes a result, and it cannot fault on any address.

The supervised sweeps need K exponentials (and the multinomial one K
logarithms) per token; :func:`exp_nonpositive` and :func:`log_positive`
compute them without a library call, and :func:`maxnum` takes the larger of
two floats, so that loops of them vectorize.
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


@intrinsic
def _float64_bits_as_int64(typingctx, x):
    """Reinterpret the 64 bits of a float64 as an int64."""
    if not isinstance(x, types.Float):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


_LOG2E = 1.4426950408889634
# ln 2 split so that n * _LN2_HI is exact for |n| < 2^11 (Cody & Waite).
_LN2_HI = 0.693145751953125
_LN2_LO = 1.4286068203094173e-06
_EXP_FLOOR = -700.0  # exp(-700) ~ 1e-304: below any weight that can matter
# Adding 1.5 * 2^52 to a double of magnitude below 2^51 rounds it to the
# nearest integer n and leaves n, in two's complement, in the low bits of the
# sum: rounding and the integer needed for 2^n without a float-to-int
# conversion (which AVX2 has only for one value at a time).
_ROUNDING_SHIFTER = 6755399441055744.0
_ROUNDING_SHIFTER_BITS = 0x4338000000000000


@njit(cache=CACHE, inline="always", fastmath=False)
def exp_nonpositive(x):
    """exp(x) for x <= 0 with no branch, no library call and no float-to-int
    conversion, so that a loop of it vectorizes completely (numba's math.exp
    calls libm one value at a time; measured 1.75x faster than the version
    with ``math.floor`` and an int64 conversion, which AVX2 cannot vectorize).

    Arguments below -700 give exp(-700) (about 1e-304) instead of smaller
    values: the sweeps only use it on weights scaled so that the largest is 1,
    where such a difference is far below the rounding of the total. Relative
    error otherwise below 3e-16 (tests/test_sweeps.py compares it with
    math.exp).
    """
    x = max(x, _EXP_FLOOR)
    shifted = x * _LOG2E + _ROUNDING_SHIFTER
    n = shifted - _ROUNDING_SHIFTER  # round(x / ln 2), exactly an integer
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
    n_bits = _float64_bits_as_int64(shifted) - np.int64(_ROUNDING_SHIFTER_BITS)
    return p * _int64_bits_as_float64((n_bits + np.int64(1023)) << np.int64(52))


@intrinsic
def _divide(typingctx, a, b):
    """a / b as a bare IEEE division (numba's ``/`` checks for a zero divisor
    first, a branch that keeps a loop from vectorizing)."""
    if not (isinstance(a, types.Float) and isinstance(b, types.Float)):
        return None

    def codegen(context, builder, signature, args):
        return builder.fdiv(args[0], args[1])

    return types.float64(types.float64, types.float64), codegen


_MANTISSA_BITS = 0x000FFFFFFFFFFFFF
_ONE_BITS = 0x3FF0000000000000
# 2^52 as bits: OR-ing an integer below 2^52 into its mantissa gives the
# double 2^52 + that integer (an int-to-float conversion AVX2 lacks).
_TWO_52_BITS = 0x4330000000000000
_TWO_52_PLUS_BIAS = 4503599627370496.0 + 1023.0
_SQRT2 = 1.4142135623730951


@njit(cache=CACHE, inline="always", fastmath=False)
def log_positive(x):
    """log(x) for a positive normal float (x >= 2.2e-308), with no branch and
    no library call, so that a loop of it vectorizes.

    ``x = 2^e m`` with ``m`` in [sqrt(1/2), sqrt(2)); ``log m = 2 atanh(s)``,
    ``s = (m - 1) / (m + 1)``, ``|s| <= 0.172``, by its series to ``s^21``
    (truncation below 1e-18). Relative error below 3e-16 away from x = 1 and
    absolute error below 1e-16 near it (tests/test_slda.py compares it with
    ``numpy.log``). Subnormal, zero, negative or non-finite input gives a
    wrong finite value or NaN: callers only pass sums of positive terms of
    which the largest is at least 1e-304.
    """
    bits = _float64_bits_as_int64(x)
    mantissa = _int64_bits_as_float64((bits & np.int64(_MANTISSA_BITS)) | np.int64(_ONE_BITS))
    exponent = (_int64_bits_as_float64((bits >> np.int64(52)) | np.int64(_TWO_52_BITS))
                - _TWO_52_PLUS_BIAS)
    high = mantissa > _SQRT2
    mantissa = mantissa * (0.5 if high else 1.0)
    exponent = exponent + (1.0 if high else 0.0)
    f = mantissa - 1.0
    s = _divide(f, 2.0 + f)
    s2 = s * s
    p = 1.0 / 21.0
    p = p * s2 + 1.0 / 19.0
    p = p * s2 + 1.0 / 17.0
    p = p * s2 + 1.0 / 15.0
    p = p * s2 + 1.0 / 13.0
    p = p * s2 + 1.0 / 11.0
    p = p * s2 + 1.0 / 9.0
    p = p * s2 + 1.0 / 7.0
    p = p * s2 + 1.0 / 5.0
    p = p * s2 + 1.0 / 3.0
    # log m = 2 s + 2 s^3 p: the leading term kept separate for precision.
    log_m = 2.0 * s + 2.0 * s * s2 * p
    return exponent * _LN2_HI + (log_m + exponent * _LN2_LO)


@intrinsic
def maxnum(typingctx, a, b):
    """The larger of two float64 values (LLVM's ``maxnum``: unlike Python's
    ``max``, a reduction loop of it vectorizes)."""
    if not (isinstance(a, types.Float) and isinstance(b, types.Float)):
        return None

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fn = builder.module.declare_intrinsic(
            "llvm.maxnum", [double], fnty=ir.FunctionType(double, [double, double]))
        return builder.call(fn, [context.cast(builder, value, ty, types.float64)
                                 for value, ty in zip(args, signature.args)])

    return types.float64(types.float64, types.float64), codegen
