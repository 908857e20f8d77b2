"""The compiled fast path (backends/sim/fast/) gives the vector engine's trace wherever it runs: thread
columns, outputs and every access (times included, for the same seed); a launch it cannot stand runs on
the vector engine and the trace says why; a second process finds the compiled kernel on disk."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.catalog import catalog
from gpuviz.core.options import RunOptions
from gpuviz.program.script import run_script
from gpuviz.run.session import Session
from tests import full_size
from tests.race_suite import CASES
from tests.real_kernels.test_real_kernels import SCRIPTS, expectation

ROOT = Path(__file__).resolve().parent.parent
ACCESS_COLUMNS = ("thread", "array", "index", "kind", "line", "epoch", "value", "time")


def assert_same_trace(fast, vector) -> None:
    for column, values in vector.threads.items():
        np.testing.assert_array_equal(fast.threads[column], values, err_msg=column)
    for name, (_, after) in vector.args.items():
        np.testing.assert_array_equal(fast.args[name][1], after, err_msg=name)
    assert fast.meta["arrays"] == vector.meta["arrays"]
    a, b = fast.accesses, vector.accesses
    if b is None:
        assert a is None
        return
    order_a = np.lexsort((a["time"], a["thread"]))  # a thread's accesses in the order it issued them
    order_b = np.lexsort((b["time"], b["thread"]))
    for column in ACCESS_COLUMNS:
        np.testing.assert_array_equal(a[column][order_a], b[column][order_b], err_msg=column)
    np.testing.assert_array_equal(a["time"], b["time"], err_msg="rows in time order")


def traces_of(path: Path, options: RunOptions, engine: str) -> list:
    session = Session(options.with_(engine=engine), out_dir=None, keep_traces=True)
    np.random.seed(0)  # scripts that draw random inputs draw the same ones on both engines
    run_script(path, session)
    return session.traces


def compare_script(path: Path, options: RunOptions) -> list[str]:
    """Both engines over one script; the engines the fast runs used, launch by launch."""
    fast = traces_of(path, options, "fast")
    vector = traces_of(path, options, "vector")
    assert len(fast) == len(vector)
    for a, b in zip(fast, vector):
        if a.meta["engine"] == "fast":
            assert_same_trace(a, b)
            assert a.meta["local_types"] == b.meta["local_types"]  # numba's typing of the locals, as the vector's
        else:
            assert a.meta["engine"] == b.meta["engine"]  # declined: the vector engine ran it, or the reference
    return [t.meta["engine"] for t in fast]


@pytest.mark.parametrize("entry", full_size.entries(catalog()))
def test_the_catalog_gives_the_vector_engines_trace_on_the_fast_path(entry):
    compare_script(entry.path, entry.run_options("sim").with_(level="accesses"))


@pytest.mark.parametrize("path", [p for p in SCRIPTS if "refused" not in expectation(p)], ids=lambda p: p.stem)
def test_real_kernels_give_the_vector_engines_trace_on_the_fast_path(path):
    compare_script(path, RunOptions(backend="sim", level="accesses"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_race_suite_gives_the_vector_engines_trace_or_runs_on_it(case):
    def run(engine: str):
        return gpuviz.trace(case.source, name="k", backend="sim", level="accesses",
                            engine=engine)[case.grid, case.block](*case.make())  # fmt: skip

    fast, vector = run("fast"), run("vector")
    if fast.meta["engine"] == "fast":
        assert_same_trace(fast, vector)
        assert not case.racy_arrays, "a racy kernel must not stand on the fast path"
    else:
        assert fast.meta["engine"] == vector.meta["engine"]


def test_the_workhorses_run_on_the_fast_path():
    """Vector add, the tiled matmul and the shared-memory reduction of the examples run compiled."""
    examples = ROOT / "examples"
    for name in ("vector_add.py", "tiled_matmul.py", "shared_reduction.py"):
        engines = compare_script(examples / name, RunOptions(backend="sim", level="accesses"))
        assert set(engines) == {"fast"}, (name, engines)


RACY = """
from numba import cuda
@cuda.jit
def shift(a):
    i = cuda.grid(1)
    if i < a.size - 1:
        a[i] = a[i + 1]
"""


@pytest.mark.parametrize("seed", [0, 5])
def test_a_race_is_found_and_the_launch_runs_on_the_vector_engine(seed):
    a = np.arange(256, dtype=np.int64)
    b = a.copy()
    fast = gpuviz.trace(RACY, name="shift", backend="sim", engine="fast", seed=seed)[2, 128](a)
    gpuviz.trace(RACY, name="shift", backend="sim", engine="vector", seed=seed)[2, 128](b)
    assert fast.meta["engine"] == "vector"
    assert "two threads touch one element" in fast.meta["engine_note"]
    np.testing.assert_array_equal(a, b)  # the fast run's writes were undone before the vector engine ran


DIVERGENT = """
from numba import cuda
@cuda.jit
def steps(out):
    i = cuda.grid(1)
    k = 0
    while k < i % 3:
        k += 1
    out[i] = k
"""


def test_a_warp_whose_lanes_part_runs_on_the_vector_engine():
    out = np.zeros(64, np.int64)
    trace = gpuviz.trace(DIVERGENT, name="steps", backend="sim", engine="fast")[1, 64](out)
    assert trace.meta["engine"] == "vector"
    assert "lanes of a warp took different paths" in trace.meta["engine_note"]
    np.testing.assert_array_equal(out, np.arange(64) % 3)


CACHED = """
import os, sys
import numpy as np
import gpuviz
from gpuviz.backends.sim.fast import engine
SRC = '''
from numba import cuda
@cuda.jit
def scale_{tag}(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k
'''
a = np.arange(64, dtype=np.float64)
trace = gpuviz.trace(SRC, name="scale_{tag}", backend="sim", engine="fast")[2, 32](a, 3.0)
runner = next(m.run_blocks for m in engine._modules.values() if m.run_blocks.signatures)  # the one that ran
print(trace.meta["engine"], sum(runner.stats.cache_misses.values()), sum(runner.stats.cache_hits.values()))
"""
# A kernel with a local kept across a barrier: the first process learns its type and compiles the translation
# that makes its array up front; the second finds both on disk.
CACHED_BARRIER = CACHED.replace(
    """    if i < a.size:
        a[i] = a[i] * k""",
    """    x = a[i] * k
    cuda.syncthreads()
    a[i] = x""",
)


@pytest.mark.parametrize("source", [CACHED, CACHED_BARRIER], ids=["no barrier", "a local kept across a barrier"])
def test_a_second_process_compiles_nothing(tmp_path, source):
    script = tmp_path / "cached.py"
    script.write_text(textwrap.dedent(source.replace("{tag}", f"t{os.getpid()}")))
    env = {**os.environ, "GPUVIZ_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}

    def run() -> list[str]:
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert run() == ["fast", "1", "0"]  # compiled: one miss
    assert run() == ["fast", "0", "1"]  # loaded from disk: nothing compiled


FLAG_WAIT = """from numba import cuda
@cuda.jit
def wait_for_flag(flag, out):
    i = cuda.grid(1)
    while flag[0] == 0:
        pass
    out[i] = 1
"""
LONG_SUM = """from numba import cuda
@cuda.jit
def long_sum(a, out):
    s = 0.0
    for k in range(a.size):
        s += a[k]
    out[cuda.grid(1)] = s
"""


def test_a_spin_on_the_fast_path_is_watched_and_the_vector_engine_words_it(tmp_path):
    from gpuviz.backends.sim.fast.translate import translate
    from gpuviz.core.errors import KernelError

    path = tmp_path / "flag_wait.py"
    path.write_text(FLAG_WAIT)
    spec = importlib.util.spec_from_file_location("flag_wait", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    translate(module.wait_for_flag.py_func, {"flag": 1, "out": 1})  # translated: the watch, not a declaration, stops it
    with pytest.raises(KernelError, match=r"no progress: .* spin on line 5, reading flag\[0\] = 0 over and over"):
        gpuviz.trace(FLAG_WAIT, backend="sim", engine="fast")[2, 32](np.zeros(1, np.int32), np.zeros(64, np.int32))


def test_a_long_loop_reading_new_elements_is_no_spin_on_the_fast_path():
    trace = gpuviz.trace(LONG_SUM, backend="sim", engine="fast")[1, 2](np.ones(120_000), np.zeros(2))
    assert trace.meta["engine"] == "fast", trace.meta["engine_note"]
    np.testing.assert_array_equal(trace.args["out"][1], [120_000.0, 120_000.0])


ADD = """from numba import cuda
@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
"""


def test_over_the_memory_budget_the_fast_path_keeps_the_first_and_last_blocks_as_the_vector_engine(monkeypatch):
    from gpuviz.backends.sim.fast import engine
    from gpuviz.backends.sim.recording import BYTES_PER_EVENT, BYTES_PER_THREAD

    passes = []
    whole_launch = engine._call
    monkeypatch.setattr(engine, "_call", lambda *args: passes.append(1) or whole_launch(*args))

    n = 1 << 16
    arrays = [np.arange(n, dtype=np.float64), np.ones(n), np.zeros(n)]
    budget = n * BYTES_PER_THREAD + sum(3 * a.nbytes for a in arrays) + 20_000 * BYTES_PER_EVENT  # 3n would not fit

    def run(engine: str):
        return gpuviz.trace(ADD, name="add", backend="sim", level="accesses", engine=engine,
                            memory_budget=budget)[n // 256, 256](*[a.copy() for a in arrays])  # fmt: skip

    fast, vector = run("fast"), run("vector")
    assert fast.meta["engine"] == "fast", fast.meta["engine_note"]
    assert len(passes) == 1  # its first and last block, run alone first, show it far over: one run logs them
    assert fast.meta["recorded_blocks"] == vector.meta["recorded_blocks"] == [0, n // 256 - 1]
    assert any("first and last block only" in w for w in fast.meta["warnings"])
    assert_same_trace(fast, vector)


HEAVY_ENDS = """from numba import cuda
@cuda.jit
def ends(a, out):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b == 0 or b == cuda.gridDim.x - 1:
        out[i] = (a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i] + a[i]
                  + a[i] + a[i] + a[i] + a[i] + a[i] + a[i])
    else:
        out[i] = a[i]
"""


def test_a_launch_whose_first_and_last_block_mislead_is_not_narrowed(monkeypatch):
    """Its two end blocks read 20 times what the others do: run alone, they make the launch look far over the
    budget, but every access fits, so the run that kept them only is not the trace: the launch runs again,
    each thread's slots as many as its own accesses (21 for the ends' threads, 2 for the others': slots sized
    by the busiest thread would not fit), and every block is logged, as the vector engine logs them."""
    from gpuviz.backends.sim.fast import engine
    from gpuviz.backends.sim.recording import BYTES_PER_EVENT, BYTES_PER_THREAD

    passes = []
    whole_launch = engine._call
    monkeypatch.setattr(engine, "_call", lambda *args: passes.append(1) or whole_launch(*args))
    n, blocks = 1 << 14, 64
    arrays = [np.arange(n, dtype=np.float64), np.zeros(n)]
    events = 2 * 256 * 21 + (blocks - 2) * 256 * 2  # every access: the ends' 21 a thread, the others' 2
    budget = n * BYTES_PER_THREAD + sum(3 * a.nbytes for a in arrays) + (events + 10) * BYTES_PER_EVENT
    assert 21 * 256 * blocks > 2 * events  # the ends alone look more than twice over the budget

    def run(engine: str):
        return gpuviz.trace(HEAVY_ENDS, name="ends", backend="sim", level="accesses", engine=engine,
                            memory_budget=budget)[blocks, 256](*[a.copy() for a in arrays])  # fmt: skip

    trace = run("fast")
    assert trace.meta["engine"] == "fast", trace.meta["engine_note"]
    assert len(passes) == 2 and len(trace.accesses["thread"]) == events  # the ends kept only, then every block
    assert not trace.meta.get("recorded_blocks")
    np.testing.assert_array_equal(trace.args["out"][1][:256], np.arange(256) * 20.0)
    assert_same_trace(trace, run("vector"))


UNEVEN_LOOPS = """from numba import cuda
@cuda.jit
def uneven(a, out):
    i = cuda.grid(1)
    reps = 40 if cuda.blockIdx.x == 0 else 1
    total = 0.0
    for r in range(reps):
        total += a[i]
    out[i] = total
"""


@pytest.mark.parametrize("level", ["accesses", "threads"])
def test_blocks_that_loop_unevenly_are_ordered_by_the_vector_engine(level):
    """The vector engine runs a group of blocks in lockstep, iteration by iteration: block 0's 40 loads come
    before the other blocks' stores, which a thread's k-th access cannot say. At level accesses the fast path
    declines such a launch and the vector engine's trace is the one shown; at level threads no access is
    ordered, and the fast path stands."""
    n = 8 * 256
    arrays = [np.arange(n, dtype=np.float64), np.zeros(n)]
    fast = gpuviz.trace(UNEVEN_LOOPS, name="uneven", backend="sim", level=level, engine="fast")[8, 256](
        *[a.copy() for a in arrays])  # fmt: skip
    vector = gpuviz.trace(UNEVEN_LOOPS, name="uneven", backend="sim", level=level, engine="vector")[8, 256](
        *[a.copy() for a in arrays])  # fmt: skip
    if level == "accesses":
        assert fast.meta["engine"] == "vector" and "different number of times" in fast.meta["engine_note"]
    else:
        assert fast.meta["engine"] == "fast", fast.meta["engine_note"]
    assert_same_trace(fast, vector)


KEPT = """from numba import cuda, float32
import numpy as np

@cuda.jit
def kept(a, out, n):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    x = np.float32(a[i]) * float32(0.5)
    odd = t % 2 == 1
    total = 0
    cuda.syncthreads()
    for step in range(3):
        total += step
        cuda.syncthreads()
    if odd:
        out[i] = x + total + n
    else:
        out[i] = -x
"""


def test_kept_locals_get_their_arrays_up_front_once_their_types_are_learnt(tmp_path, monkeypatch):
    from gpuviz.backends.sim.fast import engine

    monkeypatch.setenv("GPUVIZ_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "kept.py"
    path.write_text(KEPT)
    a = np.arange(128, dtype=np.float64)

    def launch(engine_name: str):
        out = np.zeros(128, np.float32)
        trace = gpuviz.trace(KEPT, name="kept", backend="sim", engine=engine_name, level="accesses")[2, 64](a, out, 3)
        return trace, out

    vector, expected = launch("vector")
    for _ in range(2):  # learnt at the first launch (typing once), up front at both
        fast, out = launch("fast")
        assert fast.meta["engine"] == "fast", fast.meta.get("engine_note")
        assert_same_trace(fast, vector)
        np.testing.assert_array_equal(out, expected)
    ran = [t for t in engine._translations.values() if getattr(t, "name", "") == "kept" and t.kept_dtypes]
    assert ran and ran[0].kept_dtypes == {"i": "int64", "odd": "bool_", "x": "float32"}  # total: one a block
    assert "_have_" not in ran[0].source and "_keep_x = np.empty(_tpb, np.float32)" in ran[0].source
    (sidecar,) = (tmp_path / "cache").rglob("kept_*.kept.json")
    assert '"x": "float32"' in sidecar.read_text()


def test_the_kept_types_file_is_read_with_care(tmp_path):
    from gpuviz.backends.sim.fast import kept_types

    sidecar = tmp_path / "k.kept.json"
    assert kept_types.known(sidecar, "key") is None  # none yet
    sidecar.write_text("{not json")
    assert kept_types.known(sidecar, "key") is None  # unreadable: learnt again, then written whole
    kept_types.remember(sidecar, "key", {"x": "float32"})
    assert kept_types.known(sidecar, "key") == {"x": "float32"}
    kept_types.remember(sidecar, "other", {"y": "object"})
    assert kept_types.known(sidecar, "key") == {"x": "float32"} and kept_types.known(sidecar, "other") is None


CROSSED = """
from numba import cuda
@cuda.jit
def crossed(a, out):
    t = cuda.threadIdx.x
    if cuda.blockIdx.x == 0:
        a[t] = t + 1
    else:
        out[t] = a[t]
"""


@pytest.mark.parametrize("lanes", [1, 2])
def test_two_blocks_that_share_an_element_cannot_stand_on_one_thread_or_two(lanes, monkeypatch):
    """Block 0 writes what block 1 reads: on two threads each block is in its own lane's watch, and the
    lanes' watches merged find what one watch finds."""
    from gpuviz.backends.sim.fast import engine

    monkeypatch.setattr(engine, "LANES", lanes)
    a, out = np.zeros(32, np.int64), np.zeros(32, np.int64)
    trace = gpuviz.trace(CROSSED, backend="sim", engine="fast")[2, 32](a, out)
    assert trace.meta["engine"] == "vector"
    assert "two threads touch one element" in trace.meta["engine_note"]


@pytest.mark.parametrize("lanes", [2, 3, 5])
def test_the_lanes_that_run_a_launch_change_nothing_in_its_trace(lanes, monkeypatch):
    from gpuviz.backends.sim.fast import engine

    def run():
        args = (np.arange(24 * 64, dtype=np.float64), np.zeros(24 * 64))
        trace = gpuviz.trace(TILED, backend="sim", engine="fast", level="accesses")[24, 64](*args)
        assert trace.meta["engine"] == "fast", trace.meta["engine_note"]
        return trace

    monkeypatch.setattr(engine, "LANES", 1)
    alone = run()
    monkeypatch.setattr(engine, "LANES", lanes)
    assert_same_trace(run(), alone)


TILED = """
from numba import cuda, float64
@cuda.jit
def neighbours(a, out):
    s = cuda.shared.array(64, float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    out[i] = s[t] + s[(t + 1) % 64] + cuda.blockIdx.x
"""


DIVIDES = """
from numba import cuda
@cuda.jit
def divides(a, out):
    i = cuda.grid(1)
    out[i] = 100 // a[i]
"""


def test_a_kernel_that_raises_in_one_lane_runs_on_the_vector_engine(monkeypatch):
    """Block 5's thread divides by zero while another thread runs other blocks: the exception reaches the
    launch (the other lane stops at its next call), and the vector engine words the fault."""
    from gpuviz.backends.sim import backend
    from gpuviz.backends.sim.fast import engine

    monkeypatch.setattr(engine, "LANES", 2)
    notes = []
    try_fast = backend._try_fast
    monkeypatch.setattr(backend, "_try_fast", lambda *args: notes.append(try_fast(*args)[2]) or (None, "vector", ""))
    a = np.ones(8 * 32, np.int64)
    a[5 * 32 + 3] = 0
    with pytest.raises(gpuviz.KernelError, match=r"block \(5,0,0\) thread \(3,0,0\), line 6: division by zero"):
        gpuviz.trace(DIVIDES, backend="sim", engine="fast")[8, 32](a, np.zeros(8 * 32, np.int64))
    assert len(notes) == 1 and "ZeroDivisionError" in notes[0], notes  # the fast path's own word for it


ASSERTS = """
from numba import cuda
@cuda.jit
def checked(a, out):
    i = cuda.grid(1)
    assert i < out.size, "one thread per element"
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k]
    out[i] = acc
"""


def test_an_assert_that_holds_stays_on_the_fast_path_with_the_vector_engines_trace():
    a = np.random.default_rng(3).random((64, 20)).astype(np.float32)
    traces = {}
    for engine in ("fast", "vector"):
        out = np.zeros(64)
        traces[engine] = gpuviz.trace(ASSERTS, backend="sim", engine=engine, level="accesses")[2, 32](a, out)
        np.testing.assert_allclose(out, a.astype(np.float64).sum(axis=1))
    assert [t.meta["engine"] for t in traces.values()] == ["fast", "vector"], traces["fast"].meta.get("engine_note")
    assert_same_trace(traces["fast"], traces["vector"])


def test_an_assert_that_fails_is_worded_by_the_reference_engine_whatever_engine_was_asked():
    a = np.zeros((64, 2), np.float32)
    for engine in ("fast", "vector"):
        with pytest.raises(gpuviz.KernelError, match=r"block \(2,0,0\) thread \(0,0,0\), line 6: AssertionError: "
                                                     r"one thread per element \(the kernel's own raise or assert"):
            gpuviz.trace(ASSERTS, backend="sim", engine=engine)[3, 32](a, np.zeros(64))
