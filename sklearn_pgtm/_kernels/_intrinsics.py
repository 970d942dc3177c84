"""Cache prefetch hints for the token sweeps.

A Gibbs sweep reads one row of the topic-word counts per token, at a random
word: on 20 Newsgroups that row is a cache miss most of the time, and the
search for the new topic waits for it (a third of the sweep's time at K = 20,
measured). The sweeps therefore ask for the row of a token a few positions
ahead while they work on the current one. A prefetch is only a hint: it never
changes a result, and it cannot fault on any address.
"""

from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

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


@njit(cache=True, inline="always")
def prefetch_row(arr, i):
    """Prefetch every cache line of row ``i`` of a C-contiguous 2-D array."""
    step = max(_CACHE_LINE_BYTES // arr.itemsize, 1)
    for j in range(0, arr.shape[1], step):
        prefetch(arr, i, j)


@njit(cache=True, inline="always")
def prefetch_span(arr, start, stop):
    """Prefetch every cache line of ``arr[start:stop]`` (1-D array)."""
    step = max(_CACHE_LINE_BYTES // arr.itemsize, 1)
    for i in range(start, stop, step):
        prefetch_item(arr, i)
