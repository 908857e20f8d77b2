"""The simulator's default engine, `auto`: the vector engine for a kernel whose fast path was never compiled,
handing a run projected to be long to the fast path (compiled once, kept on disk); the fast path straight
away once it is on disk. Which engine ran never changes the trace (tests/test_fast_path.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core import config as numba_config

import gpuviz
from gpuviz.backends.sim import backend
from gpuviz.backends.sim.fast import compile_times, engine
from gpuviz.core import progress
from gpuviz.core.events import Progress
from gpuviz.core.options import RunOptions
from tests.test_fast_path import DIVERGENT, RACY, assert_same_trace

SCALE = """
from numba import cuda
@cuda.jit
def scale_auto(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k
"""


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch):
    """Each test as in a process that compiled nothing yet (another test file may have compiled its kernels)."""
    monkeypatch.setattr(engine, "_modules", {})
    monkeypatch.setattr(engine, "_signatures", {})


def test_auto_is_the_default_engine():
    assert RunOptions().engine == "auto"


def test_a_kernel_never_compiled_runs_on_the_vector_engine_and_compiles_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    a = np.ones(8 * 32)
    trace = gpuviz.trace(SCALE, backend="sim")[8, 32](a, 2.0)  # one batch of blocks: no projection to make
    assert trace.meta["engine"] == "vector" and trace.meta["engine_note"] == ""
    assert (a == 2.0).all()
    assert not list(tmp_path.rglob("*.nbi"))  # nothing compiled


def any_rest_is_long(monkeypatch) -> None:
    """Any projected rest of a run counts as long: from the first progress report (a launch of 4,096 blocks
    of 32 reports its first 2,048 before its last), against a compile of no time."""
    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    monkeypatch.setattr(backend, "UNMEASURED_COMPILE_SECONDS", 1e-9)


@pytest.mark.parametrize("numba_cache", ["beside the source", "NUMBA_CACHE_DIR"])
def test_a_long_vector_run_is_handed_to_the_fast_path_which_the_next_launch_finds_on_disk(tmp_path, monkeypatch,
                                                                                         numba_cache):  # fmt: skip
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    chosen = tmp_path / "numba" if numba_cache == "NUMBA_CACHE_DIR" else None
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(chosen) if chosen else "")  # as the variable sets it
    any_rest_is_long(monkeypatch)
    inputs = np.arange(4096 * 32, dtype=np.float64)
    a, plain = inputs.copy(), inputs.copy()
    first = gpuviz.trace(SCALE, backend="sim", level="accesses")[4096, 32](a, 3.0)
    assert first.meta["engine"] == "fast", first.meta["engine_note"]
    assert "projected" in first.meta["engine_note"] and "compiled" in first.meta["engine_note"]
    vector = gpuviz.trace(SCALE, backend="sim", level="accesses", engine="vector")[4096, 32](plain, 3.0)
    np.testing.assert_array_equal(a, inputs * 3.0)  # the stopped vector run's writes were undone first
    assert_same_trace(first, vector)
    assert compile_times.expected(tmp_path / gpuviz.__version__ / "fast") is not None  # the compile was timed

    monkeypatch.setattr(engine, "_modules", {})  # as a new process: the kernel only on disk
    monkeypatch.setattr(engine, "_signatures", {})
    again = gpuviz.trace(SCALE, backend="sim", level="accesses")[64, 32](inputs[: 64 * 32].copy(), 3.0)
    assert again.meta["engine"] == "fast" and again.meta["engine_note"] == ""  # on disk: no vector run first
    assert sum(next(iter(engine._modules.values())).run_blocks.stats.cache_hits.values()) == 1  # loaded, not built
    machine_code = list(tmp_path.rglob("*.nbi"))
    assert machine_code and all((chosen in p.parents) if chosen else ("__pycache__" in p.parts) for p in machine_code)


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("done", "elapsed", "compile_seconds", "switches"),
    [
        (5, 2.0, 10.0, True),  # 38 s left against a 10 s compile
        (5, 1.0, 10.0, False),  # 19 s left: less than two compiles
        (50, 1.0, 10.0, False),  # 1 s left
        (10, 1.0, 4.0, True),  # 9 s left: more than two compiles
        (1, 5.0, 1.0, False),  # 495 s left, but from 1 % of the blocks: too early to say (core/progress.py)
        (10, 0.5, 0.01, False),  # and not before a second
    ],
)
def test_the_vector_run_stops_once_its_rest_is_projected_past_two_compiles(done, elapsed, compile_seconds,
                                                                          switches):  # fmt: skip
    clock, passed = FakeClock(), []
    watch = backend._SlowVectorRun(passed.append, compile_seconds, clock)
    clock.now = elapsed
    event = Progress(done, 100)
    if switches:
        with pytest.raises(backend._SwitchToFast):
            watch(event)
        assert "projected at" in watch.reason
    else:
        watch(event)
        assert watch.reason == ""
    assert passed == [event]  # the progress reaches the window either way


def test_the_last_blocks_progress_never_stops_the_run():
    clock = FakeClock()
    watch = backend._SlowVectorRun(lambda event: None, 0.001, clock)
    clock.now = 1000.0
    watch(Progress(100, 100))  # nothing left to save


def test_compile_times_keep_the_latest_and_survive_a_bad_file(tmp_path):
    assert compile_times.expected(tmp_path) is None
    for seconds in range(1, compile_times.KEPT + 5):
        compile_times.remember(tmp_path, float(seconds))
    kept = list(range(5, compile_times.KEPT + 5))
    assert compile_times.expected(tmp_path) == float(np.median(kept))
    (tmp_path / compile_times.FILE).write_text("{not json")
    assert compile_times.expected(tmp_path) is None
    compile_times.remember(tmp_path, 7.0)  # a bad file is replaced
    assert compile_times.expected(tmp_path) == 7.0
    (tmp_path / compile_times.FILE).write_text('[1, "x", -3, 2]')  # only plausible figures count
    assert compile_times.expected(tmp_path) == 1.5


ATOMIC = """
from numba import cuda
@cuda.jit
def count_auto(bins, values):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)
"""


def test_a_launch_the_fast_path_declined_is_not_handed_to_it_again(tmp_path, monkeypatch):
    """Lanes that part in a loop are found only when the fast path runs: the first long launch compiles it,
    is declined and runs on the vector engine; the kernel's next launches stay there, nothing compiled again."""
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    any_rest_is_long(monkeypatch)
    first = gpuviz.trace(DIVERGENT, name="steps", backend="sim")[4096, 32](np.zeros(4096 * 32, np.int64))
    assert first.meta["engine"] == "vector" and "paths through a loop" in first.meta["engine_note"]
    compiled = sorted(p.name for p in tmp_path.rglob("*.nbi"))
    assert compiled  # the hand-over compiled it once
    again = gpuviz.trace(DIVERGENT, name="steps", backend="sim")[4096, 32](np.zeros(4096 * 32, np.int64))
    assert again.meta["engine"] == "vector" and again.meta["engine_note"] == ""
    assert sorted(p.name for p in tmp_path.rglob("*.nbi")) == compiled
    forced = gpuviz.trace(DIVERGENT, name="steps", backend="sim", engine="fast")[2, 32](np.zeros(64, np.int64))
    assert "paths through a loop" in forced.meta["engine_note"]  # --engine fast still tries


def test_nothing_is_handed_over_that_the_fast_path_would_decline(tmp_path, monkeypatch):
    """Atomics: declined by declaration. Blocks that meet in memory: the vector engine runs them interleaved,
    which the hand-over never watches (the fast path would find them too). Each runs once, on the vector
    engine, and nothing is compiled."""
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    any_rest_is_long(monkeypatch)
    values = np.arange(4096 * 32, dtype=np.int64)
    counted = gpuviz.trace(ATOMIC, backend="sim")[4096, 32](np.zeros(16, np.int64), values)
    shifted = gpuviz.trace(RACY, backend="sim")[4096, 32](values.copy())  # each thread reads its neighbour's
    for trace in (counted, shifted):
        assert trace.meta["engine"] == "vector" and trace.meta["engine_note"] == "", trace.meta["engine_note"]
    assert shifted.meta["blocks_ran"].startswith("interleaved")
    assert not list(tmp_path.rglob("*.nbi"))


def test_a_decline_after_a_compile_says_where_the_time_went(tmp_path, monkeypatch):
    """`--engine fast` compiles the fast path, which then declines a racy launch: the vector engine runs it,
    and the launch line's note says the compile came first (most of the launch's time); the next launch,
    compiled already, says only why it declined."""
    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path))
    first = gpuviz.trace(RACY, name="shift", backend="sim", engine="fast")[2, 64](np.arange(128.0))
    assert first.meta["engine"] == "vector" and "compiled for it first" in first.meta["engine_note"]
    again = gpuviz.trace(RACY, name="shift", backend="sim", engine="fast")[2, 64](np.arange(128.0))
    assert again.meta["engine"] == "vector" and "compiled" not in again.meta["engine_note"]
    assert again.meta["engine_note"] == first.meta["engine_note"].split("; the fast path was compiled")[0]
