"""Run every benchmark of the package, each in its own subprocess.

Every ``benchmarks/*.py`` other than ``_results.py`` and this file exposes
``main(quick=False)``; each is imported and run in a fresh Python process (one
process per comparison, so peers and numba caches do not interfere), rewrites
its own section of ``benchmarks/RESULTS.md`` and returns a summary (ratios vs
peers and targets), which is printed here in one table.

Usage::

    python benchmarks/run.py            # full runs (tens of minutes)
    python benchmarks/run.py --quick    # smoke run, main(quick=True) each
    python benchmarks/run.py --only throughput [--only pg_samplers]
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP = {"run", "_results"}

_CHILD = r"""
import importlib, json, sys
sys.path.insert(0, {here!r})
sys.argv = [{script!r}] + ({quick!r} and ["--quick"] or [])
mod = importlib.import_module({name!r})
out = mod.main(quick={quick!r})
print("\n@@RESULT@@ " + json.dumps(out, default=str))
"""


def discover():
    """Names of the benchmark modules (files in benchmarks/ with a main)."""
    names = []
    for path in sorted(HERE.glob("*.py")):
        if path.stem in SKIP or path.stem.startswith("_"):
            continue
        if "def main(" in path.read_text():
            names.append(path.stem)
    return names


def run_one(name, quick, timeout):
    script = str(Path("benchmarks") / f"{name}.py")
    code = _CHILD.format(here=str(HERE), script=script, quick=bool(quick), name=name)
    tic = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=HERE.parent,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - tic, ""
    seconds = time.perf_counter() - tic
    summary = ""
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@ "):
            summary = line[len("@@RESULT@@ "):]
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return "FAILED", seconds, tail[:200]
    return "ok", seconds, summary


def main(quick=False, only=None, timeout=None):
    names = discover()
    if only:
        unknown = set(only) - set(names)
        if unknown:
            raise SystemExit(f"unknown benchmark(s) {sorted(unknown)}; available: {names}")
        names = [n for n in names if n in only]
    rows = []
    for name in names:
        print(f"== {name} ({'quick' if quick else 'full'}) ...", flush=True)
        status, seconds, summary = run_one(name, quick, timeout)
        print(f"   {status} in {seconds:.1f} s: {summary[:300]}", flush=True)
        rows.append((name, status, seconds, summary))
    print("\n| benchmark | status | seconds | summary (ratios / targets) |\n|---|---|---|---|")
    for name, status, seconds, summary in rows:
        print(f"| {name} | {status} | {seconds:.1f} | {summary[:400]} |")
    return 0 if all(r[1] == "ok" for r in rows) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Run the benchmarks of sklearn-pgtm.")
    parser.add_argument("--quick", action="store_true", help="tiny smoke runs")
    parser.add_argument("--only", action="append", help="run only this benchmark "
                        "(repeatable)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds allowed per benchmark")
    args = parser.parse_args()
    sys.exit(main(quick=args.quick, only=args.only, timeout=args.timeout))
