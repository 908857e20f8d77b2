"""The GPU backend gives the simulator's answers: outputs, per-thread records and (race-free) accesses.

These run where a GPU is usable (marker `gpu`); elsewhere they are skipped. Under numba's CUDA
simulator (NUMBA_ENABLE_CUDASIM=1) the backend's logic runs too, except warp intrinsics.
"""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.catalog import EXAMPLES as EXAMPLES_DIR
from gpuviz.catalog import lessons
from gpuviz.cli import main
from gpuviz.core.analysis.races import find_races, format_report
from gpuviz.core.errors import GpuvizError
from gpuviz.run.demo import run_demo

from .optional_libraries import missing_library
from .race_suite import CASES as RACE_CASES
from .test_sim_constructs import CASES

pytestmark = pytest.mark.gpu
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
WARP_LEVEL = {"warp_shuffles", "divergent_activemask"}
# Cases whose results depend on the order of atomics or that use intrinsics numba lacks on the host.
NOT_COMPARABLE = {"bit_intrinsics"}
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
RACY_EXAMPLES = {"racy_counter.py"}
# Examples that call linked library code, and the module each needs (gpuviz[nvmath], gpuviz[cccl]).
LINKED_EXAMPLES = {
    "gtc25_segmented_matmul.py": "nvmath.device",
    "cccl_block_sum.py": "cuda.cccl.cooperative.experimental",
}


def _skip_without_library(script) -> None:
    module = LINKED_EXAMPLES.get(script.name)
    if module is None:
        return
    if SIMULATED:
        pytest.skip("numba's CUDA simulator cannot run a library's linked code")
    pytest.importorskip(module, reason=f"{module} is not installed (gpuviz[nvmath] / gpuviz[cccl])")


ORDER_DEPENDENT = {"atomics_all"}  # its atomic.cas chain only completes when threads run in order


def _run(source, grid, block, args, backend, level="accesses", **options):
    return gpuviz.trace(source, name="k", backend=backend, level=level, **options)[grid, block](*args)


def _access_set(trace):
    """The accesses as a set; epochs compared by their block and grid barriers."""
    a = trace.accesses
    barriers = (a["epoch"] & ((1 << 24) - 1)).tolist()
    rows = zip(a["thread"].tolist(), a["array"].tolist(), a["index"].tolist(), a["kind"].tolist(),
               a["line"].tolist(), barriers)  # fmt: skip
    return sorted(rows)


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_COMPARABLE))
def test_gpu_matches_simulator(name):
    if SIMULATED and name in WARP_LEVEL:
        pytest.skip("numba's CUDA simulator has no warp intrinsics")
    if name in ORDER_DEPENDENT:
        pytest.skip(
            "a CAS chain's end depends on the order its lanes land (seen to vary on an H100 and under "
            "numba's CUDA simulator): compared on the simulator only"
        )
    source, grid, block, make, check = CASES[name]
    gpu_args, sim_args = make(), make()
    gpu = _run(source, grid, block, gpu_args, "gpu")
    sim = _run(source, grid, block, sim_args, "sim")
    assert check(*gpu_args), name
    for g, s in zip(gpu_args, sim_args):
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, s, rtol=1e-5)
        else:
            np.testing.assert_array_equal(g, s)
    for column in ("block_idx", "thread_idx", "warp", "lane"):
        np.testing.assert_array_equal(gpu.threads[column], sim.threads[column])
    assert gpu.meta["backend"] == "gpu" and gpu.meta["time_unit"] == "ns"
    assert (gpu.threads["t_end"] >= gpu.threads["t_start"]).all()
    if "atomics" not in name:  # the GPU's atomics may land in another order, but the set of accesses is the same
        assert _access_set(gpu) == _access_set(sim)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_examples_give_the_same_outputs_on_gpu_and_simulator(script, tmp_path):
    if SIMULATED and script.name == "warp_shuffle_sum.py":
        pytest.skip("numba's CUDA simulator has no warp intrinsics")
    if "import cupy" in script.read_text() and (SIMULATED or importlib.util.find_spec("cupy") is None):
        pytest.skip("CuPy needs a real GPU")
    _skip_without_library(script)
    assert main(["run", str(script), "--backend", "gpu", "--out", str(tmp_path / "gpu")]) == 0
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path / "sim")]) == 0
    for gpu_path in sorted((tmp_path / "gpu").glob("*.npz")):
        gpu = gpuviz.load(gpu_path)
        sim = gpuviz.load(tmp_path / "sim" / gpu_path.name)
        assert gpu.meta["backend"] == "gpu"
        if script.name in RACY_EXAMPLES:
            continue
        same_inputs = all(np.array_equal(gpu.before(n), sim.before(n)) for n in sim.args)
        if not same_inputs:  # e.g. CuPy's random numbers differ from NumPy's; the script checks itself
            continue
        for name in sim.args:
            np.testing.assert_allclose(gpu.after(name), sim.after(name), rtol=1e-5)


@pytest.mark.parametrize("level", ["threads", "accesses"])
@pytest.mark.parametrize("name", sorted(LINKED_EXAMPLES))
def test_linked_library_calls_record_at_both_levels_and_give_the_plain_result(name, level, tmp_path):
    """The library's own code runs (no model): the result is the segment sums and, at level accesses, what
    numba gives for the same kernel without recording; the matmul's call is logged at its line, each
    thread's share of A and B read before it and of C written after it, with their times."""
    script = EXAMPLES_DIR / name
    _skip_without_library(script)
    assert main(["run", str(script), "--backend", "gpu", "--level", level, "--out", str(tmp_path)]) == 0
    (trace,) = [gpuviz.load(path) for path in sorted(tmp_path.glob("*.npz"))]
    assert trace.meta["backend"] == "gpu" and "modelled" not in trace.meta
    values = trace.before("in_arr")
    sums = values.sum(axis=1) if values.ndim == 2 else values.reshape(len(trace.after("out_arr")), -1).sum(axis=1)
    np.testing.assert_allclose(trace.after("out_arr"), sums, rtol=1e-6)
    if level == "threads":
        assert trace.accesses is None
        return
    np.testing.assert_array_equal(trace.outcomes["out_arr.plain"], trace.after("out_arr"))
    if name == "gtc25_segmented_matmul.py":
        lines = trace.meta["source"].splitlines()
        line = next(n for n, text in enumerate(lines, 1) if text.strip().startswith("MM.execute("))
        a = trace.accesses
        names = [entry["name"] for entry in trace.meta["arrays"]]
        at_call = a["line"] == line
        written = at_call & (a["kind"] == 1) & (a["array"] == names.index("smem_c"))
        read = at_call & (a["kind"] == 0)
        blocks = trace.grid[0]
        assert written.sum() == blocks * 32 and read.sum() == blocks * (4 * 32 + 4)  # C; A and the ones
        np.testing.assert_allclose(np.sort(a["value"][written]), np.sort(sums), rtol=1e-6)  # C's values: the sums
        for thread in np.unique(a["thread"][written]).tolist():  # each thread's writes come after its reads
            mine = at_call & (a["thread"] == thread)
            assert a["time"][mine & (a["kind"] == 1)].min() >= a["time"][mine & (a["kind"] == 0)].max()
    else:
        partials = values.reshape(trace.grid[0], 64, -1).sum(axis=2)
        _check_cccl_steps(trace, "block_sum(partial)", "block_sum", partials, partials.sum(axis=1))


def _check_cccl_steps(trace, call_text: str, slots: str, given: np.ndarray, first_gets: np.ndarray) -> None:
    """A CCCL call on a value in a register: each thread's one step at the call's line, in the call's
    slots (one a thread of the block): a write of the value it handed in (`given`, by block and
    thread), then a read of what it got back (`first_gets`: thread 0's, by block), later."""
    lines = trace.meta["source"].splitlines()
    line = next(n for n, text in enumerate(lines, 1) if call_text in text)
    a = trace.accesses
    names = [entry["name"] for entry in trace.meta["arrays"]]
    blocks, per_block = trace.grid[0], trace.block[0]
    assert trace.meta["arrays"][names.index(slots)]["shape"] == [per_block]
    at_call = (a["line"] == line) & (a["array"] == names.index(slots))
    order = np.argsort(a["thread"][at_call & (a["kind"] == 1)], kind="stable")
    written = {kind: (a["thread"][at_call & (a["kind"] == kind)], a["value"][at_call & (a["kind"] == kind)],
                      a["time"][at_call & (a["kind"] == kind)]) for kind in (0, 1)}  # fmt: skip
    for kind in (0, 1):  # one record of each kind a thread, at the element of its number in the block
        threads = written[kind][0]
        assert sorted(threads.tolist()) == list(range(blocks * per_block))
    threads, handed, handed_at = (column[order] for column in written[1])
    np.testing.assert_allclose(handed, given.ravel(), rtol=1e-6)
    back = np.argsort(written[0][0], kind="stable")
    got, got_at = written[0][1][back], written[0][2][back]
    assert (got_at >= handed_at).all()
    np.testing.assert_allclose(got[::per_block], first_gets, rtol=1e-6)


def test_a_cccl_call_is_one_step_of_each_thread_at_its_line():
    """The rewrite's records around a CCCL primitive, checked where a stand-in can be called (numba's CUDA
    simulator runs Python): the value each thread hands in, then the value it gets back (the stand-in
    gives each thread its own value plus 1), at the call's line."""
    if not SIMULATED:
        pytest.skip("a stand-in for CCCL's object runs under numba's CUDA simulator only (the GPU needs CCCL)")
    source = CCCL_STAND_IN + (
        "@cuda.jit\ndef k(in_arr, out_arr):\n    partial = in_arr[cuda.grid(1)] * 2\n"
        "    total = block_sum(partial)\n    if cuda.threadIdx.x == 0:\n        out_arr[cuda.blockIdx.x] = total\n"
    )  # fmt: skip
    values = np.arange(1, 3 * 64 + 1, dtype=np.float32)
    out = np.zeros(3, np.float32)
    trace = _run(source, 3, 64, (values, out), "gpu")
    given = 2 * values.reshape(3, 64)
    np.testing.assert_allclose(out, given[:, 0] + 1)
    _check_cccl_steps(trace, "block_sum(partial)", "block_sum", given, given[:, 0] + 1)


# A CCCL primitive as numba's CUDA simulator can call it (Python; a script's `cuda` is gpuviz's, which
# cannot be used inside it): its type's module is CCCL's, which is how the rewrite knows one.
CCCL_STAND_IN = """
from numba import cuda


class Invocable:
    files = []

    def __call__(self, value):
        return value + 1


Invocable.__module__ = "cuda.cccl.cooperative.experimental._types"
block_sum = Invocable()


"""


def test_the_classic_race_loses_updates_and_shows_who_read_the_initial_value():
    if SIMULATED:
        pytest.skip("a million threads is too slow for numba's CUDA simulator")
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    a = np.zeros(2, np.float32)
    trace = _run(source, 1024, 1024, (a,), "gpu")
    assert (a < 524288 / 100).all()
    acc = trace.accesses
    initial_readers = (acc["kind"] == 0) & (acc["index"] == 0) & (acc["value"] == 0)
    assert 0 < initial_readers.sum() < 1024 * 1024
    assert not trace.truncated


@pytest.mark.parametrize(
    "body, line",
    [
        ("    x = a.no_such_attribute\n    a[0] = x\n", 4),
        ("    a[0] = 1\n    n = cuda.syncthreads_count(a[0] > 0)\n", 5),
    ],
)
def test_compile_error_names_the_users_line(body, line):
    if SIMULATED:
        pytest.skip("numba's CUDA simulator compiles nothing")
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n" + body
    with pytest.raises(gpuviz.KernelSourceError, match=f"k, line {line}: "):
        _run(source, 1, 1, (np.zeros(2),), "gpu")


def test_cupy_arrays_stay_on_the_device():
    if SIMULATED:
        pytest.skip("CuPy needs a real GPU")
    cupy = pytest.importorskip("cupy")
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = i\n"
    a = cupy.zeros(64, dtype=cupy.int64)
    trace = _run(source, 2, 32, (a,), "gpu")
    assert (cupy.asnumpy(a) == np.arange(64)).all()
    assert (trace.after("a") == np.arange(64)).all() and (trace.before("a") == 0).all()
    assert trace.meta["host_copies"] == []  # a CuPy array is passed as it is


def test_the_trace_says_what_numba_copied_and_the_type_of_each_local():
    if SIMULATED:
        pytest.skip("numba's CUDA simulator types nothing")
    source = ("from numba import cuda\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    acc = 0.0\n"
              "    acc += a[i]\n    out[i] = acc\n")  # fmt: skip
    trace = _run(source, 2, 32, (np.ones(64, np.float32), np.zeros(64, np.float32)), "gpu")
    assert trace.meta["host_copies"] == [{"array": "a", "bytes": 256}, {"array": "out", "bytes": 256}]
    assert trace.meta["local_types"]["acc"] == "float64"  # numba's typing of the kernel it compiled just now


def test_threads_level_has_no_access_log():
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = _run(source, 4, 64, (np.zeros(256),), "gpu", level="threads")
    assert trace.accesses is None
    assert trace.threads["sm"].min() >= 0


BLOCK_START_KERNEL = """from numba import cuda
@cuda.jit
def k(out, flag, n):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if cuda.blockIdx.x == 1 and t == 0:
        while cuda.atomic.add(flag, 0, 0) < 32:  # until every lane of warp 1 is done
            pass
        out[i] = 2.0
        return
    if cuda.blockIdx.x == 1 and t >= 32:
        v = 0
        for r in range(n):  # each atomic waits for the one before (its index depends on it)
            v = cuda.atomic.add(flag, 1 + (v >> 62), 1)
        cuda.atomic.add(flag, 0, 1)
        out[i] = 3.0
        return
    out[i] = 1.0
"""


@pytest.mark.parametrize("level", ["threads", "accesses"])
def test_a_block_starts_at_its_first_instruction_though_thread_0_stores_it_last(level):
    """Thread 0 stores its block's start and SM, and lane 0 its warp's start, as they return
    (hooks.py: stored as the block started, they held back its first warp), but each start is the
    reading taken on entry. Block 1's thread 0 returns only after warp 1 has run a loop of dependent
    atomics, so a start read as thread 0 returned would come after warp 1's end; it comes long before."""
    n = 2 if SIMULATED else 2000
    args = (np.zeros(128, np.float32), np.zeros(3, np.int64), n)
    trace = _run(BLOCK_START_KERNEL, 2, 64, args, "gpu", level=level)
    threads = trace.threads
    expected = np.ones(128, np.float32)
    expected[64], expected[96:] = 2.0, 3.0
    np.testing.assert_array_equal(trace.after("out"), expected)
    assert threads["sm"].min() >= 0 and threads["sm"].max() < trace.device_facts["sm_count"]
    assert not any("recorded no start" in w for w in trace.meta.get("warnings", []))  # every start was stored
    start, end = threads["t_start"].reshape(2, 64), threads["t_end"].reshape(2, 64)
    # Thread 0 waited for warp 1's lanes' atomics (each lane takes its end reading a little after its atomic,
    # so thread 0, released by the last atomic, may end before or after warp 1's end reading)
    assert trace.after("flag")[0] == 32 and end[1, 0] >= start[1, 32]
    if not SIMULATED:  # 2,000 round trips to memory: far more than 100 us on any GPU
        assert end[1, 32] - start[1, 32] >= 100_000 and end[1, 0] - start[1, 0] >= 100_000


@pytest.mark.parametrize("case", RACE_CASES, ids=lambda c: c.name)
def test_gpu_race_verdicts_agree_with_the_simulator(case):
    if SIMULATED and case.warp_level:
        pytest.skip("numba's CUDA simulator has no warp intrinsics")
    gpu = gpuviz.trace(case.source, name="k", backend="gpu", level="accesses")[case.grid, case.block](*case.make())
    report = find_races(gpu)
    assert report.racy is bool(case.racy_arrays), format_report(report, case.name)
    assert set(report.arrays()) == set(case.racy_arrays)
    reported_lines = {line for race in report.races for line in (race.first.line, race.second.line)}
    assert reported_lines <= case.lines("race")
    assert {race.array for race in report.benign} == set(case.benign_arrays)


def test_repeat_on_the_gpu_keeps_outcomes_and_a_serial_reference(tmp_path):
    if SIMULATED:
        pytest.skip("slow under numba's CUDA simulator")
    script = tmp_path / "race.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1\n"
                      "a = np.zeros(1, np.int64)\nk[64, 256](a)\n")  # fmt: skip
    assert main(["run", str(script), "--backend", "gpu", "--repeat", "5", "--out", str(tmp_path)]) == 0
    trace = gpuviz.load(tmp_path / "000-k.npz")
    runs = trace.outcomes["a.runs"][:, 0]
    assert len(runs) == 5 and (runs < 64 * 256).all()
    assert trace.outcomes["a.sequential"][0] == 64 * 256
    assert (trace.outcomes["a.lost"][:, 0] == 64 * 256 - runs).all()


@pytest.mark.parametrize("entry", lessons(), ids=lambda e: e.name)
def test_lessons_on_the_gpu(entry, tmp_path):
    if SIMULATED:
        pytest.skip("lessons launch up to 65,536 threads: too slow for numba's CUDA simulator")
    missing = missing_library(entry.path)
    if missing:
        pytest.skip(f"the lesson imports {missing}, which is not installed here (gpuviz[nvmath] / gpuviz[cccl])")
    result = run_demo(entry, tmp_path, backend="gpu")
    assert all(trace.meta["backend"] == "gpu" for trace in result.session.traces)
    if entry.racy:
        assert find_races(result.session.traces[0]).racy
    else:
        assert result.reference == "reference: ok", result.reference


def test_rows_tuple_indices_and_negative_indices_on_the_gpu():
    source = """from numba import cuda
@cuda.jit
def k(a, b):
    i = cuda.grid(1)
    pos = (i, 0)
    a[pos] = 1.0
    row = b[i]
    row[1] = 2.0
    a[i, -1] = 3.0
"""
    gpu = [np.zeros((32, 4)), np.zeros((32, 3))]
    sim = [np.zeros((32, 4)), np.zeros((32, 3))]
    trace = gpuviz.trace(source, name="k", backend="gpu", level="accesses")[1, 32](*gpu)
    gpuviz.trace(source, name="k", backend="sim", level="accesses")[1, 32](*sim)
    for g, s in zip(gpu, sim):
        np.testing.assert_array_equal(g, s)
    acc = trace.accesses
    logged = sorted(acc["index"][(acc["array"] == 0) & (acc["kind"] == 1)].tolist())
    assert set(range(3, 128, 4)) <= set(logged)  # a[i, -1] is element 4 i + 3


def test_accesses_carry_their_times_in_order_and_the_replay_uses_them():
    from gpuviz.core.replay import Replay

    source = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n"
    source += "    b[i] = a[i] + 1\n    a[i] = b[i]"
    trace = _run(source, 2, 64, (np.zeros(128, np.float32), np.zeros(128, np.float32)), "gpu")
    acc, threads = trace.accesses, trace.threads
    assert trace.meta["time_source"] == "globaltimer" and not trace.meta["times_inferred"]
    assert (np.diff(acc["time"]) >= 0).all()  # rows are in time order
    assert (acc["time"] <= threads["t_end"][acc["thread"]]).all()  # no access after its warp's end
    for gid in (0, 65, 127):  # each thread's own accesses keep the order it issued them in
        assert acc["kind"][acc["thread"] == gid].tolist() == [0, 1, 0, 1]
    replay = Replay(trace)
    assert not replay.inferred and replay.time_at(len(acc["time"])) == int(acc["time"][-1])


def test_a_warp_ends_with_its_last_lane_and_long_gaps_keep_their_times():
    """Lanes that return at different times: the warp's end is its latest lane's (the last of the
    lanes' stores stays). A thread that waits longer than the log's time guard between two accesses
    gets a time mark: its times still come back in order and inside its warp's span."""
    sleep = "" if SIMULATED else "        cuda.nanosleep(spin)\n" * 2  # numba's simulator has no nanosleep
    source = (
        "from numba import cuda\n@cuda.jit\ndef k(a, out, spin, reps):\n    i = cuda.grid(1)\n    acc = 0.0\n"
        "    for r in range((i % 32) * reps):\n        acc += a[r]\n    if i % 32 == 31:\n"
        f"        acc += 1\n{sleep}    if i % 3 == 0:\n        out[i] = acc\n        return\n    out[i] = acc + 1\n"
    )  # fmt: skip
    spin = 900_000  # ns each, over GUARD_NS: the last lane's store comes after a gap the guard marks
    reps = 1 if SIMULATED else 8  # reads per lane number: numba's simulator is slow
    trace = _run(source, 2, 64, (np.ones(256, np.float32), np.zeros(128, np.float32), spin, reps), "gpu")
    acc, threads = trace.accesses, trace.threads
    ends = threads["t_end"][acc["thread"]]
    assert (acc["time"] <= ends).all() and (acc["time"] >= threads["t_start"][acc["thread"]]).all()
    for warp in range(4):
        lanes = np.arange(warp * 32, warp * 32 + 32)
        last = acc["time"][np.isin(acc["thread"], lanes)].max()
        assert threads["t_end"][lanes[0]] >= last  # the warp lasts as long as its slowest lane
        mine = acc["thread"] == lanes[-1]
        assert acc["kind"][mine].tolist() == [0] * (31 * reps) + [1]  # the reads then the store, in order
        assert (np.diff(acc["time"][mine]) >= 0).all()
    if not SIMULATED:
        store = acc["time"][(acc["thread"] == 31) & (acc["kind"] == 1)][0]
        read = acc["time"][(acc["thread"] == 31) & (acc["kind"] == 0)].max()
        assert store - read >= 1_000_000  # two sleeps of 0.9 ms, the gap kept across the guard


def test_a_launch_past_its_record_budget_is_truncated_and_keeps_its_outputs():
    """Records past a thread's slots go to the pool; once the pool is full the rest are dropped (one load
    each, not a round of atomics) and the trace says it is truncated; the kernel's results stand."""
    source = ("from numba import cuda\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    acc = 0.0\n"
              "    for r in range(32):\n        acc += a[r]\n    out[i] = acc\n")  # fmt: skip
    args = (np.ones(32, np.float32), np.zeros(64, np.float32))
    trace = gpuviz.trace(source, name="k", backend="gpu", level="accesses", access_cap=512)[2, 32](*args)
    assert trace.truncated
    np.testing.assert_array_equal(trace.after("out"), np.full(64, 32, np.float32))
    kept = trace.accesses
    assert 512 <= len(kept["thread"]) < 64 * 33  # the slots and the pool, not every access
    for gid in (0, 63):  # a thread's own records keep their order: its reads first, its store (if kept) last
        kinds = kept["kind"][kept["thread"] == gid].tolist()
        assert kinds == sorted(kinds)


LAYOUT_KERNEL = """from numba import cuda, float32
@cuda.jit
def k(a, out, hist):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    i = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y + t
    s[t] = a[i]
    cuda.syncthreads()
    acc = 0.0
    for r in range(t % 4):
        acc += s[(t + r) % 64]
    cuda.atomic.add(hist, i % 3, 1)
    out[i] = acc
"""


@pytest.mark.parametrize("grid, block", [(2, 64), ((2, 1), (32, 2))])
def test_narrow_and_wide_records_give_the_same_accesses(monkeypatch, grid, block):
    """The recorder packs a kernel whose sites each name one array into 16-bit tags, and gives a
    launch of one axis a cheaper place (backends/gpu/layout.py): the accesses, their order within a
    thread and their epochs are those the wide records give."""
    from gpuviz.backends.gpu import backend
    from gpuviz.backends.gpu.layout import RecordLayout

    def args():
        return np.arange(128, dtype=np.float32), np.zeros(128, np.float32), np.zeros(3, np.int32)

    monkeypatch.setattr(backend.GpuBackend, "_compiled", {})
    narrow = _run(LAYOUT_KERNEL, grid, block, args(), "gpu")
    (layout,) = {c.layout for c in backend.GpuBackend._compiled.values() if c.level == "accesses"}
    assert layout.narrow and layout.time_bits == 11 and layout.flat == (grid == 2)
    monkeypatch.setattr(backend.GpuBackend, "_compiled", {})
    monkeypatch.setattr(backend, "choose_layout", lambda arrays, flat, guarded=False: RecordLayout(guarded=guarded))
    wide = _run(LAYOUT_KERNEL, grid, block, args(), "gpu")
    for trace in (narrow, wide):
        order = np.lexsort((np.arange(len(trace.accesses["thread"])), trace.accesses["thread"]))
        trace.by_thread = {name: trace.accesses[name][order] for name in ("thread", "array", "index", "kind",
                                                                           "line", "epoch", "value")}  # fmt: skip
    ordered = wide.by_thread["kind"] != 2  # an atomic's value depends on the order the threads came in
    for trace in (narrow, wide):
        trace.by_thread["value"] = trace.by_thread["value"][ordered]
    for name, column in wide.by_thread.items():
        np.testing.assert_array_equal(narrow.by_thread[name], column, err_msg=name)
    np.testing.assert_array_equal(narrow.after("out"), wide.after("out"))
    assert (np.diff(narrow.accesses["time"]) >= 0).all()
    assert (narrow.accesses["time"] <= narrow.threads["t_end"][narrow.accesses["thread"]]).all()


def test_a_racy_launch_keeps_what_the_unrecorded_kernel_gives(tmp_path, capsys):
    source = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    a[0] += 1\n    b[cuda.grid(1)] = 2\n"
    a, b = np.zeros(1, np.int64), np.zeros(64, np.int64)
    trace = _run(source, 2, 32, (a, b), "gpu")
    plain = trace.outcomes["a.plain"]
    assert plain.shape == (1,) and 1 <= plain[0] <= 64  # the race loses updates, or not
    np.testing.assert_array_equal(trace.outcomes["b.plain"], np.full(64, 2))
    trace.save(tmp_path / "t.npz")
    again = gpuviz.load(tmp_path / "t.npz")
    assert again.outcomes["a.plain"].tolist() == plain.tolist()
    capsys.readouterr()
    assert main(["info", str(tmp_path / "t.npz")]) == 0
    assert f"plain    a: recorded [{a[0]:g}]; without recording [{plain[0]:g}]" in capsys.readouterr().out


def test_device_and_kernel_facts_come_from_the_driver_and_the_compiler():
    if SIMULATED:
        pytest.skip("numba's CUDA simulator has no driver attributes and compiles nothing")
    from gpuviz.core.analysis.occupancy import theoretical

    source = "from numba import cuda, float32\n@cuda.jit\ndef k(a):\n    s = cuda.shared.array(256, float32)\n" \
             "    s[cuda.threadIdx.x] = 1\n    cuda.syncthreads()\n    a[cuda.grid(1)] = s[0]\n"  # fmt: skip
    trace = _run(source, 4, 256, (np.zeros(1024, np.float32),), "gpu")
    facts = trace.device_facts
    for key in ("max_threads_per_sm", "max_blocks_per_sm", "max_shared_memory_per_sm", "max_registers_per_sm"):
        assert facts[key] > 0, key
    assert facts["max_threads_per_sm"] >= facts["max_threads_per_block"]
    assert 0 < trace.meta["registers_per_thread"] <= trace.meta["recorded_registers_per_thread"] <= 255
    assert trace.meta["shared_bytes_per_block"] >= 256 * 4
    occupancy = theoretical(trace)
    assert occupancy["blocks"] and not occupancy["unknown"]
    assert occupancy["registers_from"] == "compiled"


def test_the_race_launch_never_shows_more_resident_blocks_or_warps_than_an_sm_holds():
    if SIMULATED:
        pytest.skip("a million threads is too slow for numba's CUDA simulator")
    from gpuviz.core.analysis.occupancy import sm_facts
    from gpuviz.core.analysis.residency import residency, residency_note

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    trace = _run(source, 1024, 1024, (np.zeros(2, np.float32),), "gpu")
    found = residency(trace)
    assert found.limit == 2
    max_warps = sm_facts(trace)["max_threads_per_sm"] // 32
    assert found.possible or (0 < found.peak_warps <= max_warps), residency_note(trace)


def test_out_of_bounds_writes_are_reported_on_the_gpu(tmp_path, capsys):
    if SIMULATED:
        pytest.skip("numba's CUDA simulator raises IndexError at the access itself (the guard's test runs there)")
    script = tmp_path / "oob.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
                      "a = np.zeros(100, np.float32)\nk[1, 128](a)\n")  # fmt: skip
    main(["run", str(script), "--backend", "gpu", "--out", str(tmp_path)])
    assert "out-of-bounds write of 'a' at line 5: 28 thread(s)" in capsys.readouterr().err
    trace = gpuviz.load(tmp_path / "000-k.npz")
    assert trace.error_count == 28 and {e["element"] for e in trace.errors} == set(range(100, 128))


@pytest.mark.parametrize("where", ["far", "just past the end"])
def test_with_the_guard_an_access_outside_its_array_stops_its_lane_and_the_process_goes_on(where):
    # far: (i - 4) & 0xFFFFFFFF (C's and the Indigo suite's uint32(i - 4)) is 2^32 - 4 .. 2^32 - 1 for threads
    # 0-3, 16 GiB past the array, where the kernel as numba compiles it faults (CUDA_ERROR_ILLEGAL_ADDRESS)
    # and ends the process's CUDA context. The guard checks every access first: the lane stops at it, as
    # on the simulator, and the trace says where.
    index = "(i - 4) & 0xFFFFFFFF" if where == "far" else "(i + 60) % 128"  # threads 4-67: 64 .. 127
    source = ("from numba import cuda\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n"
              f"    v = a[{index}]\n    out[i] = v + 1\n    out[i] += 1\n")  # fmt: skip
    a = np.arange(64, dtype=np.float32)
    trace = _run(source, 2, 32, (a, np.zeros(64, np.float32)), "gpu", guard=True)
    bad = list(range(4)) if where == "far" else list(range(4, 64))
    elements = [((1 << 32) - 4 + t) if where == "far" else t + 60 for t in bad]
    assert trace.error_count == len(bad)
    assert {(e["thread"], e["line"], e["element"]) for e in trace.errors} == {(t, 5, e) for t, e in zip(bad, elements)}
    good = np.setdiff1d(np.arange(64), bad)
    expected = np.zeros(64)
    expected[good] = a[(good - 4) % 64 if where == "far" else (good + 60) % 128] + 2
    assert np.array_equal(trace.after("out"), expected)
    assert not (np.isin(trace.accesses["thread"], bad) & (trace.accesses["line"] > 5)).any()  # stopped there
    assert not any(key.endswith(".plain") for key in trace.outcomes)  # as numba compiles it, it could fault
    assert any("was not run beside the recording" in w for w in trace.meta["warnings"])
    after = _run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 1\n", 1, 32,
                 (np.zeros(32, np.float32),), "gpu")  # fmt: skip
    assert np.array_equal(after.after("a"), np.ones(32)) and after.error_count == 0


def test_with_the_guard_a_clean_launch_gives_the_unguarded_trace_and_its_plain_twin():
    source = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    b[i] = a[i] * 2\n"
    a = np.arange(64, dtype=np.float32)
    plain, guarded = (_run(source, 2, 32, (a, np.zeros(64, np.float32)), "gpu", guard=g) for g in (False, True))
    assert _access_set(plain) == _access_set(guarded) and guarded.error_count == 0
    assert np.array_equal(plain.after("b"), guarded.after("b"))
    assert np.array_equal(guarded.outcomes["b.plain"], plain.outcomes["b.plain"])  # the twin ran, after it


def test_a_fault_on_the_gpu_is_one_line_that_names_the_guard():
    from gpuviz.backends.gpu.backend import raise_if_faulted

    with pytest.raises(GpuvizError, match=r"kernel k faulted on the GPU \(CUDA_ERROR_ILLEGAL_ADDRESS.*--guard"):
        raise_if_faulted(RuntimeError("[700] Call to cuCtxSynchronize results in CUDA_ERROR_ILLEGAL_ADDRESS"), "k")
    raise_if_faulted(RuntimeError("CUDA_ERROR_OUT_OF_MEMORY"), "k")  # not a fault: left to the caller


# Kernels whose recording needs more registers than they do: a 1024-thread block fits twice an SM
# only at 32 registers a thread or fewer, so recording would halve the blocks running at once.
OCCUPANCY_KERNELS = {
    "counter": ("def k(a):\n    a[0] += 1\n", (np.zeros(1, np.int32),)),
    "grid_stride_histogram": ("def k(data, bins):\n    start, stride = cuda.grid(1), cuda.gridsize(1)\n"
                              "    for i in range(start, data.size, stride):\n"
                              "        bins[data[i] % bins.size] += 1\n",
                              (np.arange(1 << 16, dtype=np.int32), np.zeros(16, np.int32))),
    "loop": ("def k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n", (np.zeros(2, np.float32),)),
}  # fmt: skip


@pytest.mark.parametrize("level", ["threads", "accesses"])
@pytest.mark.parametrize("name", sorted(OCCUPANCY_KERNELS))
def test_recording_keeps_the_blocks_an_sm_holds(name, level):
    if SIMULATED:
        pytest.skip("numba's CUDA simulator compiles nothing: no registers")
    from gpuviz.backends.gpu.backend import native_globals
    from gpuviz.backends.gpu.compat import import_numba_cuda
    from gpuviz.backends.gpu.plain import plain_kernel
    from gpuviz.core.analysis.occupancy import blocks_by_registers

    body, args = OCCUPANCY_KERNELS[name]
    trace = _run("from numba import cuda\n@cuda.jit\n" + body, 64, 1024, args, "gpu", level)
    cuda = import_numba_cuda()
    namespace: dict = {"cuda": cuda}
    exec(compile(body, f"<{name}>", "exec"), namespace)
    plain = plain_kernel(namespace["k"], native_globals)
    overload = plain.compile(tuple(plain.typeof_pyval(cuda.to_device(a)) for a in args))
    held = min(blocks_by_registers(overload.regs_per_thread, 32), 2)
    recorded = trace.meta["recorded_registers_per_thread"]
    assert blocks_by_registers(recorded, 32) >= held, f"{recorded} registers recorded, {overload.regs_per_thread} plain"
    assert trace.meta["registers_per_thread"] == overload.regs_per_thread  # the kernel's own, not the recorder's
    assert trace.meta["local_bytes_per_thread"] == overload.local_mem_per_thread


TICKETS = """from numba import cuda, int32

@cuda.jit
def k(values, partials, count, total):
    last = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        partials[cuda.blockIdx.x] = values[cuda.blockIdx.x]
        FENCE
        ticket = cuda.atomic.add(count, 0, 1)
        last[0] = ticket == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t == 5:
        s = 0.0
        for b in range(cuda.gridDim.x):
            s += partials[b]
        total[0] = s
"""


FENCES = ["cuda.threadfence()", "cuda.threadfence_system()", "cuda.threadfence_block()", "pass"]


@pytest.mark.parametrize("fence", FENCES)
def test_a_fence_before_the_ticket_orders_the_parts_on_the_gpu_as_on_the_simulator(fence):
    """The GPU trace carries the fence flag and the tickets' order: the last block's reads of the other
    blocks' parts race only without a device-wide fence before the ticket, on both backends."""
    source = TICKETS.replace("FENCE", fence)
    reports = {}
    for backend in ("gpu", "sim"):
        args = (np.arange(1, 9, dtype=np.float64), np.zeros(8), np.zeros(1, np.int32), np.zeros(1))
        trace = gpuviz.trace(source, name="k", backend=backend, level="accesses")[8, 64](*args)
        assert args[3][0] == 36
        reports[backend] = find_races(trace)
    assert reports["gpu"].locations == reports["sim"].locations == (7 if "block" in fence or fence == "pass" else 0)
    assert reports["gpu"].arrays() == reports["sim"].arrays()


CONSTANT_TABLE = """import numpy as np
from numba import cuda

GAINS = np.linspace(0.5, 2.0, 32).astype(np.float32)

@cuda.jit
def k(x, out):
    gains = cuda.const.array_like(GAINS)
    i = cuda.grid(1)
    out[i] = x[i] * gains[INDEX]
"""


@pytest.mark.parametrize("index, turns", [("i // 32", 1), ("i % 32", 32)])
def test_reads_of_a_constant_table_are_logged_with_its_values_and_turns(index, turns):
    from gpuviz.catalog.checks import check_launches, parse_check

    source = CONSTANT_TABLE.replace("INDEX", index)
    x = np.arange(64, dtype=np.float32)
    trace = gpuviz.trace(source, name="k", backend="gpu", level="accesses")[2, 32](x, np.zeros(64, np.float32))
    (entry,) = [a for a in trace.meta["arrays"] if a["name"] == "GAINS"]
    assert entry["space"] == "const" and entry["shape"] == [32] and entry["dtype"] == "float32"
    acc = trace.accesses
    reads = acc["array"] == trace.meta["arrays"].index(entry)
    assert reads.sum() == 64 and (acc["kind"][reads] == 0).all()
    gains = np.linspace(0.5, 2.0, 32).astype(np.float32)
    np.testing.assert_array_equal(acc["value"][reads], gains[acc["index"][reads]])
    i = acc["thread"][reads]
    np.testing.assert_array_equal(acc["index"][reads], i // 32 if "//" in index else i % 32)
    (outcome,) = check_launches([parse_check(f"turns(k, GAINS) == {turns}")], [trace], "gpu")
    assert outcome.passed, str(outcome)


HALF_WARP = """from numba import cuda, float32

@cuda.jit
def k(out):
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = t
        cuda.syncwarp(0xFFFF)
        out[t] = s[15 - t]
    OTHERS
"""


@pytest.mark.parametrize("others, racy", [("", False), ("else:\n        s[t] = t", True)])
def test_a_syncwarp_of_half_a_warp_orders_its_lanes_on_the_gpu_as_on_the_simulator(others, racy):
    """Lanes 0-15 exchange values through a syncwarp with mask 0xFFFF. With lanes 16-31 idle the exchange
    is ordered; when they write at the warp epoch they had then, the warp's epochs are not trusted on
    either backend (an over-report both make alike)."""
    if SIMULATED:
        pytest.skip("numba's CUDA simulator has no warp intrinsics")
    source = HALF_WARP.replace("    OTHERS", f"    {others}" if others else "")
    traces = {b: gpuviz.trace(source, name="k", backend=b, level="accesses")[1, 32](np.zeros(32, np.float32))
              for b in ("gpu", "sim")}  # fmt: skip
    reports = {b: find_races(t) for b, t in traces.items()}
    assert reports["gpu"].racy is reports["sim"].racy is racy
    assert reports["gpu"].locations == reports["sim"].locations
    assert bool(traces["gpu"].meta.get("partial_syncwarps")) and bool(traces["sim"].meta.get("partial_syncwarps"))


MULTI_BLOCK_FIXES = sorted((Path(__file__).parent / "lesson_fixes").glob("multi-block-reduction*/*.py"))


@pytest.mark.parametrize("case", MULTI_BLOCK_FIXES + [MULTI_BLOCK_FIXES[0].parent.with_suffix(".py")],
                         ids=lambda p: p.stem)  # fmt: skip
def test_the_multi_block_reductions_fixes_are_judged_on_the_gpu_as_on_the_simulator(case, tmp_path):
    """The fence is in the GPU's trace: the fixed last-block sum lists no race there either."""
    from gpuviz.run.fix_check import check_fix

    if SIMULATED:
        pytest.skip("4,096 threads: too slow for numba's CUDA simulator")
    (entry,) = [entry for entry in lessons() if entry.slug == "multi-block-reduction"]
    first = case.read_text().splitlines()[0]
    passes = first == "# expect: pass" or not first.startswith("# expect:")
    result = check_fix(entry, case, tmp_path, backend="gpu")
    assert result.passed is passes, "\n".join(result.lines())
    if not passes and result.ran:  # numba-cuda may refuse a case (atomic.exch of a float32) before it runs
        assert result.reason.startswith(first.removeprefix("# expect: fail: ")), result.reason
