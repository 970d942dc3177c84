"""Progress of a long fit when ``verbose`` is set.

On a terminal, one line redrawn in place: a bar, sweeps done / total,
sweeps per second, the latest reported values (log-likelihood, ...) and the
estimated time left. Elsewhere (a log file, a notebook, pytest), plain lines
about every 10 % of the sweeps, which read well in a file. Both end with one
summary line. ``verbose >= 2`` prints a plain line at every sweep, on a
terminal too (for debugging).

The estimators call :meth:`ProgressReporter.due` at every sweep and compute
what they report (e.g. the log-likelihood) only when it returns True, so a
fit without ``verbose`` pays nothing, and on a terminal the bar is redrawn at
most every ``min_interval`` seconds whatever the speed of the sweeps.
"""

import shutil
import sys
import time

_clock = time.perf_counter  # module attribute, so that tests can replace it

BAR_WIDTH = 20


def _format_value(value):
    """Four decimals for small values (accuracies, rates), one for large ones
    (log-likelihoods of a corpus), so that the line stays short."""
    if isinstance(value, bool) or isinstance(value, (int, str)):
        return str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{number:.1f}" if abs(number) >= 1000 else f"{number:.4f}"


def _format_duration(seconds):
    if seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


class ProgressReporter:
    """Reports the progress of a fit's sweeps when ``verbose`` is set.

    Parameters
    ----------
    name : str
        Shown at the start of every line, e.g. the estimator's class name.
    verbose : int or bool
        0: silent; 1: a bar on a terminal, else a line about every 10 % of
        the sweeps (or every ``every`` sweeps); 2 or more: a line per sweep.
    every : int, default=None
        Sweeps between plain lines at ``verbose=1`` (None: a tenth of them).
    stream : file-like, default=None
        Where to write; None means ``sys.stdout`` at the time of writing.
    min_interval : float, default=0.2
        Seconds between redraws of the terminal bar (5 per second reads
        smoothly and keeps the cost of the reported values negligible).
    """

    def __init__(self, name, verbose, every=None, *, stream=None, min_interval=0.2):
        self.name = name
        self.verbose = int(verbose or 0)
        self.every = every
        self.min_interval = min_interval
        self._stream = stream
        self.start = _clock()
        self._last_draw = None
        self._line_open = False  # a bar is on screen, not yet ended by a newline
        self._drawn_width = 0

    @property
    def stream(self):
        return self._stream if self._stream is not None else sys.stdout

    def _on_terminal(self):
        if self.verbose != 1:
            return False
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):  # closed or file-like without isatty
            return False

    def due(self, iteration, n_iter):
        """Whether sweep ``iteration`` (0-based) of ``n_iter`` should be reported."""
        if not self.verbose:
            return False
        if iteration + 1 >= n_iter:
            return True
        if self._on_terminal():
            return self._last_draw is None or _clock() - self._last_draw >= self.min_interval
        every = 1 if self.verbose > 1 else (self.every or max(n_iter // 10, 1))
        return (iteration + 1) % every == 0

    def report(self, iteration, n_iter, **values):
        """Show sweep ``iteration + 1`` of ``n_iter`` with ``values`` (name=value)."""
        if not self.verbose:
            return
        now = _clock()
        done = iteration + 1
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else float("inf")
        eta = (n_iter - done) / rate if rate > 0 else float("inf")
        items = [f"{key}={_format_value(value)}" for key, value in values.items()]
        parts = " ".join(items)
        speed = f"{rate:.1f} sweeps/s" if rate != float("inf") else "- sweeps/s"
        if self._on_terminal():
            line = self._bar_line(done, n_iter, speed, items, eta)
            # Pad with spaces to erase what a longer previous line left behind.
            self.stream.write("\r" + line.ljust(self._drawn_width))
            self.stream.flush()
            self._drawn_width = len(line)
            self._line_open = True
            self._last_draw = now
        else:
            print(f"[{self.name}] sweep {done}/{n_iter} {parts} {speed} "
                  f"elapsed={elapsed:.2f}s eta={_format_duration(eta)}",
                  file=self.stream, flush=True)

    def _bar_line(self, done, n_iter, speed, items, eta):
        """The terminal line, never wider than the terminal (a wrapped line
        cannot be redrawn): the bar narrows first, then whole fields are left
        out, the speed first, then the values from the last one, then the
        ETA. A field is never cut: a value cut short shows another number
        (``log_likelihood=-318`` for -3180.5). Only a terminal too narrow for
        the name and the sweeps done cuts the line."""
        columns = shutil.get_terminal_size(fallback=(80, 24)).columns - 1
        prefix = f"[{self.name}] "
        fields = [f"{done}/{n_iter} sweeps", speed, f"ETA {_format_duration(eta)}", *items]
        kept = list(range(len(fields)))
        for left_out in [1, *range(len(fields) - 1, 2, -1), 2]:
            if len(prefix) + len("  ".join(fields[i] for i in kept)) <= columns:
                break
            kept.remove(left_out)
        text = "  ".join(fields[i] for i in kept)
        width = min(BAR_WIDTH, columns - len(prefix) - len(text) - 3)
        if width >= 5 and len(kept) == len(fields):
            filled = int(width * min(done / max(n_iter, 1), 1.0))
            prefix += "|" + "#" * filled + "-" * (width - filled) + "| "
        return (prefix + text)[:max(columns, 20)]

    def note(self, message):
        """One line about an event of the fit (``message``), below the bar."""
        if not self.verbose:
            return
        self._print(message)

    def summary(self, message):
        """End the report with one line: the total time and ``message``."""
        if not self.verbose:
            return
        self._print(f"done in {_clock() - self.start:.2f}s: {message}")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        # A fit interrupted or failed mid-bar: the traceback or the next
        # output starts on a line of its own.
        self._end_bar()
        self.stream.flush()

    def _end_bar(self):
        """End the line of a bar left on screen."""
        if self._line_open:
            self.stream.write("\n")
            self._line_open = False

    def _print(self, message):
        """A whole line ``[name] message``, after ending a bar left on screen."""
        self._end_bar()
        print(f"[{self.name}] {message}", file=self.stream, flush=True)
