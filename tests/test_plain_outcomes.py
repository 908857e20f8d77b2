"""Plain (unrecorded) outcomes next to the recorded result: a pure function of the trace."""

import numpy as np

import gpuviz
from gpuviz.core.analysis.outcomes import RECORDING_MOVED_THE_RACE, plain_vs_recorded, recording_note


def test_plain_outcomes_are_compared_with_the_recorded_result():
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 1\n"
    trace = gpuviz.trace(source, backend="sim")[1, 8](np.zeros(8, np.float32))
    assert plain_vs_recorded(trace) == []
    plain = np.ones(8, np.float32)
    plain[[2, 5]] = 7
    trace.outcomes["a.plain"] = plain
    (line,) = plain_vs_recorded(trace)
    assert line == "a: recorded [1, 1, 1, 1, ...]; without recording [1, 1, 7, 1, ...] (2 of 8 elements differ)"
    trace.outcomes["a.plain"] = np.ones(8, np.float32)
    assert plain_vs_recorded(trace)[0].endswith("(the same result)")


def test_a_recorded_result_unlike_the_plain_one_says_why_and_which_level_keeps_the_race():
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1\n"
    trace = gpuviz.trace(source, backend="sim", level="accesses")[1, 8](np.zeros(2, np.float32))
    assert recording_note(trace) is None  # nothing ran without recording
    trace.outcomes["a.plain"] = trace.after("a").copy()
    assert recording_note(trace) is None  # the same result
    trace.outcomes["a.plain"] = np.array([3, 0], np.float32)
    assert recording_note(trace) == RECORDING_MOVED_THE_RACE and "level threads" in RECORDING_MOVED_THE_RACE
    trace.meta["level"] = "threads"  # no access recorded: nothing of the accesses changed the race
    assert recording_note(trace) is None


def test_gpuviz_info_prints_the_note_under_the_plain_lines(tmp_path, capsys):
    from gpuviz.cli import main

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1\n"
    trace = gpuviz.trace(source, backend="sim", level="accesses")[1, 8](np.zeros(2, np.float32))
    trace.outcomes["a.plain"] = np.array([3, 0], np.float32)
    trace.save(tmp_path / "t.npz")
    capsys.readouterr()
    assert main(["info", str(tmp_path / "t.npz")]) == 0
    printed = capsys.readouterr().out.splitlines()
    at = next(k for k, line in enumerate(printed) if line.startswith("plain    a: recorded"))
    assert printed[at + 1] == f"plain    {RECORDING_MOVED_THE_RACE}"
