"""Counter-free random streams for numba kernels.

Every document (or chunk) owns a xoshiro256** state, a row of a ``uint64``
array of shape ``(n_streams, 4)``. Kernels draw from the row of the document
they work on, so results depend only on the seed, never on the number of
threads or on the order in which documents are visited.

All constants are ``np.uint64``: numba promotes ``uint64 op int64`` to
``float64``, which would silently break the bit arithmetic.
"""

import math

import numpy as np
from numba import njit

from ._config import CACHE

_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U45 = np.uint64(45)
_U64 = np.uint64(64)
_TWO_M53 = 1.0 / 9007199254740992.0
_TWO_PI = 2.0 * math.pi


def make_streams(seed, n_streams):
    """Independent xoshiro256** states, shape ``(n_streams, 4)``.

    ``seed`` is an int or anything :class:`numpy.random.SeedSequence` takes;
    the states come from ``SeedSequence.generate_state`` so that nearby seeds
    give unrelated streams.
    """
    n_streams = int(max(n_streams, 1))
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    states = ss.generate_state(4 * n_streams, dtype=np.uint64).reshape(n_streams, 4)
    # An all-zero state is the one fixed point of xoshiro; practically
    # impossible from SeedSequence, but cheap to rule out.
    zero_rows = ~states.any(axis=1)
    states[zero_rows, 0] = np.uint64(0x9E3779B97F4A7C15)
    return np.ascontiguousarray(states)


def seed_from(random_state):
    """Draw a 63-bit integer seed from a :class:`numpy.random.RandomState`."""
    return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))


@njit(cache=CACHE, inline="always")
def _rotl(x, k):
    return (x << k) | (x >> (_U64 - k))


@njit(cache=CACHE, inline="always")
def next_u64(state):
    """Advance one xoshiro256** state (a ``uint64[4]`` view) and return 64 bits."""
    result = _rotl(state[1] * _U5, _U7) * _U9
    t = state[1] << _U17
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], _U45)
    return result


@njit(cache=CACHE, inline="always")
def uniform(state):
    """Uniform draw in the open interval (0, 1)."""
    return ((next_u64(state) >> _U11) + 0.5) * _TWO_M53


# Ziggurat tables (Marsaglia & Tsang 2000) with 256 layers, built here from
# the recurrences rather than stored: layer i covers [0, x[i]] x [f(x[i]),
# f(x[i + 1])], layer 0 is the base strip of width v / f(r) with the tail, and
# every layer has area v. A draw lands strictly inside a layer's rectangle
# with probability ~99 %, and then costs one 64-bit word and a multiply: no
# logarithm, unlike the inversion and polar methods.
_ZIG_LAYERS = 256
_U8 = np.uint64(8)
_UMASK8 = np.uint64(255)


def _ziggurat_tables(density, inverse, r, v):
    x = np.empty(_ZIG_LAYERS + 1)
    x[0] = v / density(r)
    x[1] = r
    for i in range(1, _ZIG_LAYERS):
        x[i + 1] = inverse(density(x[i]) + v / x[i]) if i < _ZIG_LAYERS - 1 else 0.0
    # The last layer ends at the mode; the recurrence reaches it up to rounding.
    ratio = x[1:] / x[:-1]
    return x, ratio, density(x)


# r and v solve "v = r f(r) + tail mass beyond r" with the recurrence closing at 0.
_EXP_R = 7.69711747013104972
_EXP_X, _EXP_RATIO, _EXP_F = _ziggurat_tables(
    lambda t: np.exp(-t), lambda y: -np.log(y), _EXP_R, 0.0039496598225815571993)
_NORM_R = 3.6541528853610088
_NORM_X, _NORM_RATIO, _NORM_F = _ziggurat_tables(
    lambda t: np.exp(-0.5 * t * t), lambda y: np.sqrt(-2.0 * np.log(y)), _NORM_R,
    0.00492867323399)


@njit(cache=CACHE, inline="always")
def standard_exponential(state):
    """Exp(1) draw by the ziggurat method (one 64-bit word in ~99 % of draws)."""
    while True:
        bits = next_u64(state)
        i = np.intp(bits & _UMASK8)
        u = (bits >> _U11) * _TWO_M53
        if u < _EXP_RATIO[i]:
            return u * _EXP_X[i]
        if i == 0:
            # Memoryless tail beyond r.
            return _EXP_R - math.log(uniform(state))
        x = u * _EXP_X[i]
        # Wedge: accept under the density between the layer's two heights.
        if _EXP_F[i] + uniform(state) * (_EXP_F[i + 1] - _EXP_F[i]) < math.exp(-x):
            return x


@njit(cache=CACHE, inline="always")
def standard_normal(state):
    """Standard normal draw by the ziggurat method (sign from a spare bit)."""
    while True:
        bits = next_u64(state)
        i = np.intp(bits & _UMASK8)
        negative = ((bits >> _U8) & np.uint64(1)) == np.uint64(1)
        u = (bits >> _U11) * _TWO_M53
        if u < _NORM_RATIO[i]:
            x = u * _NORM_X[i]
            return -x if negative else x
        if i == 0:
            # Tail beyond r (Marsaglia 1964): r + e1 / r with e1, e2
            # exponential, accepted when 2 e2 > (e1 / r)^2.
            while True:
                e1 = -math.log(uniform(state)) / _NORM_R
                e2 = -math.log(uniform(state))
                if 2.0 * e2 > e1 * e1:
                    x = _NORM_R + e1
                    return -x if negative else x
        x = u * _NORM_X[i]
        if _NORM_F[i] + uniform(state) * (_NORM_F[i + 1] - _NORM_F[i]) < math.exp(-0.5 * x * x):
            return -x if negative else x


@njit(cache=CACHE)
def standard_gamma(state, shape):
    """Gamma(shape, 1) draw by Marsaglia and Tsang (2000).

    For ``shape < 1`` uses Gamma(shape + 1) * U**(1/shape).
    """
    if shape <= 0.0:
        return 0.0
    boost = 1.0
    if shape < 1.0:
        boost = math.exp(math.log(uniform(state)) / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = standard_normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v * boost
        if math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v * boost


@njit(cache=CACHE)
def beta(state, a, b):
    """Beta(a, b) draw as a ratio of gammas."""
    x = standard_gamma(state, a)
    y = standard_gamma(state, b)
    s = x + y
    if s <= 0.0:
        # Both gammas underflowed (tiny shapes): pick the side by the means.
        return 1.0 if uniform(state) < a / (a + b) else 0.0
    return x / s


@njit(cache=CACHE, inline="always")
def search_cumulative(cumulative, n, u):
    """First index of ``cumulative[:n]`` (non-decreasing) whose value exceeds
    ``u`` (binary search; n - 1 if none does)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=CACHE, inline="always")
def categorical(state, cumulative, n):
    """Index drawn from the unnormalized cumulative weights ``cumulative[:n]``."""
    return search_cumulative(cumulative, n, uniform(state) * cumulative[n - 1])


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)


@njit(cache=CACHE)
def _splitmix64(x):
    z = x + _GOLDEN
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=CACHE)
def _document_streams(seed, doc_ptr, word_ids, states):
    for d in range(doc_ptr.shape[0] - 1):
        h = np.uint64(seed)
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            h = _splitmix64(h ^ np.uint64(word_ids[i]))
        h = _splitmix64(h ^ np.uint64(doc_ptr[d + 1] - doc_ptr[d]))
        for j in range(4):
            h = _splitmix64(h)
            states[d, j] = h


@njit(cache=CACHE, nogil=True)
def split_tokens_in_half(doc_ptr, states, observed):
    """``observed[i] = 1`` with probability 1/2 for every token, from its
    document's stream ``states[d]`` (the binomial split of document
    completion; a document's split depends on its stream only)."""
    for d in range(doc_ptr.shape[0] - 1):
        state = states[d]
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            observed[i] = 1 if uniform(state) < 0.5 else 0


def document_streams(seed, doc_ptr, word_ids):
    """One xoshiro256** state per document, derived from ``seed`` and the
    document's own tokens.

    Inference on new documents uses these, so that a document's result does
    not depend on which other documents are in the batch or in what order
    (scikit-learn's sample-order and subset invariance), and repeated calls
    are identical.
    """
    n_docs = doc_ptr.shape[0] - 1
    states = np.empty((max(n_docs, 1), 4), dtype=np.uint64)
    _document_streams(np.uint64(int(seed) % 2**64), doc_ptr, word_ids, states)
    return states


@njit(cache=CACHE, nogil=True)
def dirichlet_rows(counts, alpha, states, lo, hi, out):
    """``out[d] ~ Dirichlet(counts[d] + alpha)`` for rows ``lo:hi``, row ``d``
    drawing from its own stream ``states[d]``."""
    n_cols = alpha.shape[0]
    for d in range(lo, hi):
        state = states[d]
        total = 0.0
        for k in range(n_cols):
            g = standard_gamma(state, counts[d, k] + alpha[k])
            out[d, k] = g
            total += g
        if total > 0.0:
            for k in range(n_cols):
                out[d, k] /= total
        else:
            # Every gamma underflowed (tiny shapes): the draw sits on a vertex,
            # chosen with probability proportional to the shapes.
            shape_sum = 0.0
            for k in range(n_cols):
                shape_sum += counts[d, k] + alpha[k]
            u = uniform(state) * shape_sum
            acc = 0.0
            chosen = n_cols - 1
            for k in range(n_cols):
                acc += counts[d, k] + alpha[k]
                if acc > u:
                    chosen = k
                    break
            for k in range(n_cols):
                out[d, k] = 1.0 if k == chosen else 0.0
