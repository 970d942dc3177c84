"""ProgressReporter: a redrawn bar on a (fake) terminal, plain lines elsewhere."""

import io

import pytest

from sklearn_pgtm import _progress
from sklearn_pgtm._progress import ProgressReporter


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(_progress, "_clock", fake)
    return fake


def run(reporter, clock, n_iter, seconds_per_sweep):
    """Drive the reporter like an estimator's sweep loop; return the reported sweeps."""
    reported = []
    for it in range(n_iter):
        clock.now += seconds_per_sweep
        if reporter.due(it, n_iter):
            reporter.report(it, n_iter, log_likelihood=-1234.5 + it)
            reported.append(it + 1)
    reporter.summary(f"{n_iter} sweeps")
    return reported


def test_plain_lines_every_tenth_without_terminal(clock):
    stream = io.StringIO()
    reporter = ProgressReporter("Model", verbose=1, stream=stream)
    reported = run(reporter, clock, 100, 0.1)
    assert reported == list(range(10, 101, 10))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11 and "\r" not in stream.getvalue()
    assert lines[4].startswith("[Model] sweep 50/100 log_likelihood=-1185.5")
    # 50 sweeps in 5 s: 10 sweeps/s, 50 left -> 5 s.
    assert "10.0 sweeps/s" in lines[4] and "eta=5s" in lines[4]
    assert lines[-1] == "[Model] done in 10.00s: 100 sweeps"


def test_every_and_verbose_two(clock):
    stream = io.StringIO()
    assert run(ProgressReporter("M", 1, every=7, stream=stream), clock, 20, 0.1) == [7, 14, 20]
    stream = io.StringIO()
    assert run(ProgressReporter("M", 2, stream=stream), clock, 5, 0.1) == [1, 2, 3, 4, 5]
    # verbose >= 2 prints plain lines even on a terminal.
    terminal = FakeTerminal()
    run(ProgressReporter("M", 2, stream=terminal), clock, 3, 0.1)
    assert "\r" not in terminal.getvalue() and len(terminal.getvalue().splitlines()) == 4


def test_silent_without_verbose(clock, capsys):
    stream = io.StringIO()
    assert run(ProgressReporter("M", 0, stream=stream), clock, 50, 0.1) == []
    assert run(ProgressReporter("M", False), clock, 50, 0.1) == []
    assert stream.getvalue() == "" and capsys.readouterr().out == ""


def test_bar_redrawn_in_place_on_terminal(clock, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    terminal = FakeTerminal()
    reporter = ProgressReporter("Model", verbose=1, stream=terminal, min_interval=0.2)
    reported = run(reporter, clock, 100, 0.05)
    # Redrawn at most every 0.2 s (every 4th sweep of 0.05 s), and at the end.
    assert reported[0] == 1 and reported[-1] == 100
    gaps = [b - a for a, b in zip(reported, reported[1:])]
    assert all(g >= 4 for g in gaps[:-1])
    assert len(reported) <= 100 // 4 + 2
    text = terminal.getvalue()
    bar, summary_line = text.split("\n")[:2]
    # One line on screen: carriage returns only, one newline before the summary.
    assert text.count("\n") == 2 and bar.count("\r") == len(reported)
    frames = bar.split("\r")[1:]
    last = frames[-1].rstrip()
    assert last == ("[Model] |" + "#" * 20 + "| 100/100 sweeps  20.0 sweeps/s  ETA 0s  "
                    "log_likelihood=-1135.5")
    # Every frame covers the previous one (padding erases leftovers).
    assert all(len(b) >= len(a.rstrip()) for a, b in zip(frames, frames[1:]))
    half = next(f for f, n in zip(frames, reported) if n >= 50)
    assert "|" + "#" * 10 + "-" * 10 + "|" in half
    assert summary_line == "[Model] done in 5.00s: 100 sweeps"


def test_bar_fits_the_terminal_width(clock, monkeypatch):
    def last_frames(columns):
        monkeypatch.setenv("COLUMNS", str(columns))
        terminal = FakeTerminal()
        run(ProgressReporter("EmpiricalBayesLDA", 1, stream=terminal), clock, 10, 1.0)
        frames = terminal.getvalue().split("\n")[0].split("\r")[1:]
        assert all(len(f.rstrip()) <= columns - 1 for f in frames)
        return frames[-1].rstrip()

    numbers = "10/10 sweeps  1.0 sweeps/s  ETA 0s  log_likelihood=-1225.5"
    # Narrower terminals narrow the bar first, then drop it, then leave out
    # whole fields (the speed, then the values, then the ETA).
    assert last_frames(100) == "[EmpiricalBayesLDA] |" + "#" * 18 + "| " + numbers
    assert last_frames(87) == "[EmpiricalBayesLDA] |#####| " + numbers
    assert last_frames(80) == "[EmpiricalBayesLDA] " + numbers
    assert last_frames(66) == "[EmpiricalBayesLDA] 10/10 sweeps  ETA 0s  log_likelihood=-1225.5"
    assert last_frames(50) == "[EmpiricalBayesLDA] 10/10 sweeps  ETA 0s"


def test_bar_never_shows_a_value_cut_short(clock, monkeypatch):
    # Cutting the line at the terminal's width showed "log_likelihood=-12" for
    # -1225.5 (on an 80-column terminal, the correlated model's
    # "log_likelihood=-318" for -3180.5): every field is shown whole or not at all.
    fields = {"10/10 sweeps", "1.0 sweeps/s", "ETA 0s", "log_likelihood=-1225.5"}
    for columns in range(40, 90):
        monkeypatch.setenv("COLUMNS", str(columns))
        terminal = FakeTerminal()
        run(ProgressReporter("EmpiricalBayesLDA", 1, stream=terminal), clock, 10, 1.0)
        last = terminal.getvalue().split("\n")[0].split("\r")[-1].rstrip()
        assert len(last) <= columns - 1
        shown = last.split("] ", 1)[1].split("| ")[-1].split("  ")
        assert set(shown) <= fields and "10/10 sweeps" in shown, (columns, last)


def test_value_format():
    assert _progress._format_value(-1160831.73421) == "-1160831.7"
    assert _progress._format_value(0.81234) == "0.8123"
    assert _progress._format_value(3) == "3"
    assert _progress._format_value("exact") == "exact"


def test_eta_format():
    assert _progress._format_duration(59.4) == "59s"
    assert _progress._format_duration(125) == "2m05s"
    assert _progress._format_duration(3 * 3600 + 120) == "3h02m"
    assert _progress._format_duration(float("inf")) == "?"


def test_default_stream_is_stdout_at_write_time(clock, capsys):
    reporter = ProgressReporter("M", 1)
    clock.now = 1.0
    reporter.report(0, 1, accuracy=0.5, n_topics=3)
    reporter.summary("ok")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("[M] sweep 1/1 accuracy=0.5000 n_topics=3")
    assert out[1] == "[M] done in 1.00s: ok"


def test_same_interface_as_the_base_reporter(clock):
    # The estimators call due(it, n), report(it, n, **values), summary(message).
    from sklearn_pgtm._base import ProgressReporter as Old

    for name in ("due", "report", "summary"):
        assert callable(getattr(ProgressReporter("M", 1), name))
        assert callable(getattr(Old("M", 1), name))
    old, new = Old("M", 1), ProgressReporter("M", 1, stream=io.StringIO())
    assert [old.due(i, 30) for i in range(30)] == [new.due(i, 30) for i in range(30)]


def test_note_ends_the_bar_and_is_a_line_of_its_own(clock):
    terminal = FakeTerminal()
    reporter = ProgressReporter("Model", verbose=1, stream=terminal)
    clock.now = 1.0
    reporter.report(0, 10, log_likelihood=-1.0)
    reporter.note("topics 1 and 2 merged")
    lines = terminal.getvalue().split("\n")
    assert lines[0].startswith("\r[Model] |") and lines[1] == "[Model] topics 1 and 2 merged"
    silent = io.StringIO()
    ProgressReporter("Model", verbose=0, stream=silent).note("nothing")
    assert silent.getvalue() == ""


def test_a_fit_that_stops_mid_bar_ends_the_bar_line(clock, monkeypatch):
    # The bar's line stayed open when a fit was interrupted or raised: the
    # traceback or the next output was glued to it.
    import numpy as np

    from sklearn_pgtm import GibbsLDA

    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stdout", terminal)
    calls = []

    def interrupted(self, run):
        calls.append(1)
        clock.now += 1.0
        if len(calls) == 3:
            raise KeyboardInterrupt
        return -1.0

    monkeypatch.setattr(GibbsLDA, "_log_likelihood", interrupted)
    X = np.random.RandomState(0).poisson(1.0, size=(10, 6))
    with pytest.raises(KeyboardInterrupt):
        GibbsLDA(2, max_iter=50, verbose=1, random_state=0).fit(X)
    text = terminal.getvalue()
    assert text.startswith("\r[GibbsLDA] |") and text.endswith("\n")
    assert text.count("\n") == 1
