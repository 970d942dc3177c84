"""Pólya-Gamma samplers on this machine, in the layout of Chen et al. (2013), Table 3.

For each method (exact; truncated_M and pg1_M for M in 1, 2, 4, ..., 64;
gaussian) and each (b, c) with b = 100, 1000 (document-length-like) and a
spread of c: samples per second, the sample variance next to the true one,
and the two-sample Kolmogorov-Smirnov distance to draws of the exact sampler.
In the same run: our exact sampler at b = 1 against ``polyagamma``'s
``method="devroye"`` (target >= 1x), both through their vectorized Python
entry points and with polyagamma's exported C function
``pgm_random_polyagamma`` called from a numba loop (ctypes, numpy's PCG64
bit generator): the option of calling polyagamma from the kernels instead of
our numba sampler; and gaussian against exact at b = 100 (target >= 10x).

Usage: python benchmarks/pg_samplers.py [--quick]
"""

import argparse
import os
import sys
import time

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import markdown_table, write_section  # noqa: E402


def timed_draws(b, c, method, n_terms, n, seed=0):
    from sklearn_pgtm._kernels._polyagamma import PG_METHODS, pg_draw_many
    from sklearn_pgtm._kernels._random import make_streams

    out = np.empty(n)
    bs = np.full(n, float(b))
    cs = np.full(n, float(c))
    states = make_streams(seed, 1)
    pg_draw_many(states, bs[:10], cs[:10], PG_METHODS[method], n_terms, out[:10])  # compile
    t0 = time.perf_counter()
    pg_draw_many(states, bs, cs, PG_METHODS[method], n_terms, out)
    return out, n / (time.perf_counter() - t0)


# polyagamma 2.0's sampler_t enum: GAMMA, DEVROYE, ALTERNATE, SADDLE, HYBRID.
_PGM_DEVROYE = 1


def polyagamma_c_from_numba(b, c, n):
    """Rate of polyagamma's C sampler called in a compiled numba loop."""
    import ctypes
    import glob

    import polyagamma
    from numba import njit

    so = glob.glob(os.path.join(os.path.dirname(polyagamma.__file__), "_polyagamma*.so"))[0]
    cfunc = ctypes.CDLL(so).pgm_random_polyagamma
    cfunc.restype = ctypes.c_double
    cfunc.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int]

    @njit
    def loop(bitgen, b, c, method, out):
        for i in range(out.shape[0]):
            out[i] = cfunc(bitgen, b, c, method)

    bit_generator = np.random.PCG64(0)
    pointer = bit_generator.ctypes.bit_generator.value
    out = np.empty(n)
    loop(pointer, b, c, _PGM_DEVROYE, out[:10])
    t0 = time.perf_counter()
    loop(pointer, b, c, _PGM_DEVROYE, out)
    rate = n / (time.perf_counter() - t0)
    # The enum value is checked by the mean of PG(b, c).
    from sklearn_pgtm.polyagamma import pg_mean, pg_var

    assert abs(out.mean() - pg_mean(b, c)) < 6 * np.sqrt(pg_var(b, c) / n)
    return rate


def main(quick=False):
    from polyagamma import random_polyagamma as reference_sampler

    from sklearn_pgtm.polyagamma import pg_var

    n = 2000 if quick else 20000
    ms = [1, 4] if quick else [1, 2, 4, 8, 16, 32, 64]
    cases = [(100, 0.0), (100, 2.0), (1000, 0.0), (1000, 10.0)] if not quick else [(100, 2.0)]
    header = ["b", "c", "method", "samples/s", "Var", "true Var", "KS distance to exact"]
    rows = []
    for b, c in cases:
        exact, exact_rate = timed_draws(b, c, "exact", 1, n, seed=1)
        rows.append([b, c, "exact", f"{exact_rate:,.0f}", f"{exact.var():.4g}",
                     f"{pg_var(b, c):.4g}", "-"])
        for method in ["truncated", "pg1"]:
            for m in ms:
                x, rate = timed_draws(b, c, method, m, n, seed=2)
                rows.append([b, c, f"{method}_{m}", f"{rate:,.0f}", f"{x.var():.4g}",
                             f"{pg_var(b, c):.4g}", f"{stats.ks_2samp(x, exact).statistic:.4f}"])
        x, rate = timed_draws(b, c, "gaussian", 1, n, seed=3)
        rows.append([b, c, "gaussian", f"{rate:,.0f}", f"{x.var():.4g}", f"{pg_var(b, c):.4g}",
                     f"{stats.ks_2samp(x, exact).statistic:.4f}"])
        print(rows[-1], flush=True)

    # Head-to-head speeds.
    n_speed = 20000 if quick else 200000
    speed_rows = []
    for c in [0.0, 2.0, 10.0]:
        _, ours = timed_draws(1.0, c, "exact", 1, n_speed, seed=4)
        reference_sampler(1.0, c, size=100, method="devroye", random_state=0)
        t0 = time.perf_counter()
        reference_sampler(1.0, c, size=n_speed, method="devroye", random_state=0)
        theirs = n_speed / (time.perf_counter() - t0)
        speed_rows.append(["exact vs polyagamma devroye (Python entry points)", 1, c,
                           f"{ours:,.0f}", f"{theirs:,.0f}", f"{ours / theirs:.2f}x"])
        c_rate = polyagamma_c_from_numba(1.0, c, n_speed)
        speed_rows.append(["exact vs polyagamma's C devroye called from numba", 1, c,
                           f"{ours:,.0f}", f"{c_rate:,.0f}", f"{ours / c_rate:.2f}x"])
    for c in [0.0, 2.0]:
        _, exact_rate = timed_draws(100.0, c, "exact", 1, n_speed // 10, seed=5)
        _, gauss_rate = timed_draws(100.0, c, "gaussian", 1, n_speed, seed=6)
        speed_rows.append(["gaussian vs exact (ours)", 100, c, f"{gauss_rate:,.0f}",
                           f"{exact_rate:,.0f}", f"{gauss_rate / exact_rate:.1f}x"])
    body = (
        f"{n} draws per method and case (single thread, numba kernels called in a compiled "
        "loop). KS distance: two-sample Kolmogorov-Smirnov statistic against the same number "
        "of exact draws (its 1% critical value is about "
        f"{1.63 * np.sqrt(2 / n):.3f}).\n\n"
        + markdown_table(header, rows)
        + "\n\nSpeed, same run (targets: exact at b = 1 >= 1x polyagamma's devroye; "
        "gaussian >= 10x exact at b = 100):\n\n"
        + markdown_table(["comparison", "b", "c", "ours (samples/s)", "reference (samples/s)",
                          "ratio"], speed_rows)
    )
    print(body)
    write_section("pg_samplers", "Pólya-Gamma samplers (Chen et al. 2013, Table 3 layout)", body)
    return {f"{row[0].split(' (')[0]} b={row[1]} c={row[2]}": row[5] for row in speed_rows}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
