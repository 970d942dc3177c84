"""Write one benchmark's section of benchmarks/RESULTS.md.

Each benchmark owns the text between ``<!-- BEGIN name -->`` and
``<!-- END name -->``; re-running it replaces only its own section, so the
benchmarks can be run one at a time or together by ``benchmarks/run.py``.
Smoke runs (``--quick``) write to RESULTS-quick.md (not tracked), so that they
never replace a full result.
"""

import datetime
import os
import platform
import re
import shlex
import sys

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
QUICK_RESULTS = os.path.join(os.path.dirname(RESULTS), "RESULTS-quick.md")
HEADER = (
    "# Benchmark results\n\n"
    "Every table below was produced by the command shown above it, on the\n"
    "project's 2-core machine, with the peers measured in the same run.\n"
)


def load_note():
    """One sentence on the machine while a part ran: its cores and 1-minute
    load average now (at the end of the part), so that a section says how far
    its timings can be trusted."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()}-core machine, 1-minute load average {load:.1f} at the end of "
            "this part (timings indicative; ratios measured side by side in the same run).")


def command_line():
    """The command that is running, with the script's path from the
    repository's root (where README and RESULTS.md say to run it), whatever
    the directory it was started from."""
    root = os.path.dirname(os.path.dirname(RESULTS))
    args = [os.path.relpath(os.path.abspath(sys.argv[0]), root)] + sys.argv[1:]
    return "python " + shlex.join(args)


def write_section(name, title, body, command=None):
    """Replace (or append) section ``name`` of RESULTS.md (RESULTS-quick.md for --quick)."""
    command = command or command_line()
    path = QUICK_RESULTS if "--quick" in sys.argv[1:] else RESULTS
    stamp = datetime.date.today().isoformat()
    section = (
        f"<!-- BEGIN {name} -->\n## {title}\n\n"
        f"Command: `{command}`  \n"
        f"Date: {stamp}; Python {platform.python_version()}, {platform.machine()}\n\n"
        f"{body.rstrip()}\n<!-- END {name} -->\n"
    )
    text = open(path).read() if os.path.exists(path) else HEADER
    pattern = re.compile(
        rf"<!-- BEGIN {re.escape(name)} -->.*?<!-- END {re.escape(name)} -->\n?", re.S
    )
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip() + "\n\n" + section
    with open(path, "w") as f:
        f.write(text)


def markdown_table(header, rows):
    """A GitHub markdown table from a header list and rows of values."""
    def fmt(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
