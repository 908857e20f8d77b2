"""A GPU run's own times for the lessons about speed: each launch's kernel, compiled by numba as it is
(no recording), timed with CUDA events, stated with the card and the day; simulated runs state none."""

import os

import numpy as np
import pytest

from gpuviz.catalog import find
from gpuviz.cli import main
from gpuviz.core.fidelity import unlabelled
from gpuviz.core.plain_times import plain_time_lines, plain_time_section
from gpuviz.core.trace.schema import check_meta
from gpuviz.run.demo import run_demo
from gpuviz.run.fix_check import FixResult

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
TIMED = {"ms": 0.01234, "launches": 5, "card": "NVIDIA H100 80GB HBM3", "date": "2026-11-26"}


@pytest.fixture(scope="module")
def transpose_run(tmp_path_factory):
    """The transpose lesson on the simulator: two launches, no GPU times."""
    return run_demo(find("transpose"), tmp_path_factory.mktemp("t"), backend="sim")


def timed(trace, **changes):
    trace.meta["plain_time"] = dict(TIMED, **changes)
    return trace


def test_a_simulated_run_states_no_gpu_time(transpose_run):
    assert plain_time_lines(transpose_run.session.traces) == []
    assert plain_time_section(transpose_run.session.traces) == ""


def test_each_timed_launch_is_one_line_with_its_card_day_and_size(transpose_run):
    first, second = transpose_run.session.traces[:2]
    timed(second, ms=0.5)
    lines = plain_time_lines([first, second])
    blocks = int(np.prod(second.grid))
    assert lines == [f"launch 2, `{second.kernel}`, {blocks:,} blocks of {int(np.prod(second.block)):,} threads: "
                     "0.5 ms (measured: NVIDIA H100 80GB HBM3, 2026-11-26), the median of 5 launches"]  # fmt: skip
    section = plain_time_section([first, second])
    assert lines[0] in section and unlabelled(section) == []  # every time carries its card and day
    del second.meta["plain_time"]


def test_a_fix_checks_lines_end_with_the_fixs_gpu_times():
    result = FixResult(True, "reference: ok", (), times=("launch 1, `k`: 0.1 ms (measured: X, 2026-11-26)",))
    assert result.lines()[-1] == "on this GPU: launch 1, `k`: 0.1 ms (measured: X, 2026-11-26)"
    assert FixResult(True, "reference: ok", ()).lines() == ["fix check: passed", "reference: ok"]


@pytest.mark.parametrize("bad", [{"ms": -1}, {"ms": "fast"}, {"launches": 0}, {"card": 3}, {"date": None}])
def test_a_trace_file_with_a_bad_gpu_time_is_refused_in_one_line(transpose_run, bad):
    meta = dict(transpose_run.session.traces[0].meta, plain_time=dict(TIMED, **bad))
    with pytest.raises(Exception, match="meta plain_time is .* it must be ms, launches, card and date"):
        check_meta(meta)
    check_meta(dict(meta, plain_time=TIMED))  # the good one passes


@pytest.mark.gpu
def test_a_speed_lesson_on_the_gpu_states_this_cards_times(tmp_path, capsys):
    if SIMULATED:
        pytest.skip("numba's CUDA simulator's events time Python, not a GPU")
    result = run_demo(find("transpose"), tmp_path, backend="gpu")
    traces = result.session.traces
    card = traces[0].device_facts["name"]
    assert all(0 < t.meta["plain_time"]["ms"] < 1000 and t.meta["plain_time"]["card"] == card for t in traces)
    capsys.readouterr()
    assert main(["demo", "transpose", "--backend", "gpu"]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("on this GPU: ")]
    assert len(printed) == len(traces) and all(f"(measured: {card}, " in line for line in printed)
