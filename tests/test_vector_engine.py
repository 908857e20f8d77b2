"""The vectorised engine against the reference engine and NumPy: the catalog, the race suite and every
construct; same outputs where there is no race, same thread records, same race verdicts, no fallback."""

import numpy as np
import pytest

import gpuviz
from gpuviz.backends.sim.device import PRESETS, VirtualDevice
from gpuviz.catalog import catalog
from gpuviz.cli import main
from gpuviz.core.analysis.races import find_races
from gpuviz.core.errors import GpuvizError
from gpuviz.core.events import Progress
from gpuviz.core.options import DEVICES, RunOptions
from gpuviz.program.script import run_script
from gpuviz.run.api import python_function
from gpuviz.run.session import Session

from . import full_size
from .race_suite import CASES as RACE_CASES
from .test_sim_constructs import CASES as CONSTRUCTS

IDENTITY = ("block_idx", "thread_idx", "warp", "lane", "sm")


def run_both(source, grid, block, make, **options):
    """(args, trace) on the vector engine, then on the reference engine, from the same inputs."""
    results = []
    for engine in ("vector", "reference"):
        args = make()
        trace = gpuviz.trace(source, name="k", backend="sim", engine=engine, **options)[grid, block](*args)
        results.append((args, trace))
    return results


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_constructs_run_on_the_vector_engine_like_the_reference(name):
    source, grid, block, make, check = CONSTRUCTS[name]
    (vector_args, vector), (reference_args, reference) = run_both(source, grid, block, make, level="accesses")
    assert vector.meta["engine"] == "vector", vector.meta["engine_note"]
    assert check(*vector_args), f"{name}: {vector_args}"
    for mine, theirs in zip(vector_args, reference_args):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, err_msg=name)
    for column in IDENTITY:
        np.testing.assert_array_equal(vector.threads[column], reference.threads[column], err_msg=column)
    assert len(vector.accesses["thread"]) == len(reference.accesses["thread"])
    assert vector.meta["warnings"] == reference.meta["warnings"] == []


@pytest.mark.parametrize("case", RACE_CASES, ids=lambda c: c.name)
def test_race_suite_verdicts_agree_and_never_fall_back(case):
    (vector_args, vector), (reference_args, reference) = run_both(
        case.source, case.grid, case.block, case.make, level="accesses"
    )
    assert vector.meta["engine"] == "vector", vector.meta["engine_note"]
    mine, theirs = find_races(vector), find_races(reference)
    assert mine.racy == theirs.racy == bool(case.racy_arrays)
    assert {r.array for r in mine.races} == {r.array for r in theirs.races}
    if not case.racy_arrays:
        for a, b in zip(vector_args, reference_args):
            np.testing.assert_array_equal(a, b)
    assert sorted(zip(vector.accesses["thread"], vector.accesses["index"], vector.accesses["kind"])) == sorted(
        zip(reference.accesses["thread"], reference.accesses["index"], reference.accesses["kind"])
    )
    for column in IDENTITY:
        np.testing.assert_array_equal(vector.threads[column], reference.threads[column])


@pytest.mark.parametrize("entry", full_size.entries(catalog()))
@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_catalog_runs_on_both_engines_and_the_vector_one_never_falls_back(entry, engine, tmp_path):
    options = entry.run_options("sim").with_(engine=engine)
    session = Session(options, out_dir=None, keep_traces=True)
    run_script(entry.path, session)  # each entry checks its own results (ScriptError when they differ)
    assert session.traces, entry.name
    for trace in session.traces:
        faulted = trace.error_count > 0  # a launch whose threads fault is handed to the reference engine, by design
        assert trace.meta["engine"] == engine or faulted, (entry.name, trace.meta["engine_note"])
        if entry.racy:
            assert find_races(trace).racy or trace.kernel.endswith("atomic"), (entry.name, trace.kernel)


SMALL_LAUNCHES = {  # the fast lane's launches of the full-size lessons: the same kernels and checks
    "vector-add-bounds": ("n = 2**24 + 11", "n = 1024 + 11"),  # a last block only partly in bounds
    "the-race": ("cudakernel0[1024, 1024](array)", "cudakernel0[4, 256](array)"),
}


@pytest.mark.parametrize("name", SMALL_LAUNCHES)
@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_the_full_size_lessons_run_small_on_both_engines(name, engine, tmp_path):
    entry = next(e for e in catalog() if e.slug == name)
    session = Session(entry.run_options("sim").with_(engine=engine), out_dir=None, keep_traces=True)
    run_script(full_size.small_launch(entry, tmp_path, *SMALL_LAUNCHES[name]), session)
    (trace,) = session.traces
    assert trace.meta["engine"] == engine and trace.n_threads in (1280, 1024)
    assert find_races(trace).racy == entry.racy


def test_mandelbrot_threads_last_as_long_as_their_work(tmp_path):
    entry = next(e for e in catalog() if e.name.endswith("-mandelbrot"))
    session = Session(entry.run_options("sim"), keep_traces=True)
    run_script(entry.path, session)
    trace = session.traces[0]
    duration = trace.threads["t_end"] - trace.threads["t_start"]
    assert len(np.unique(duration)) > 10  # threads that escape early end early
    image = trace.after("image").ravel()
    x = trace.threads["block_idx"][:, 0] * 16 + trace.threads["thread_idx"][:, 0]
    y = trace.threads["block_idx"][:, 1] * 16 + trace.threads["thread_idx"][:, 1]
    inside = (x < 64) & (y < 48)
    iterations = image[(y[inside] * 64 + x[inside])]
    assert np.corrcoef(iterations, duration[inside])[0, 1] > 0.3  # more iterations, longer threads
    warp_end = trace.threads["t_end"].reshape(-1, 32).max(axis=1)
    assert len(np.unique(warp_end)) > 1


def test_divergence_costs_both_paths():
    src = """
from numba import cuda
@cuda.jit
def k(out, split):
    i = cuda.grid(1)
    if i % split == 0:
        out[i] = out[i] + 1.0
    else:
        out[i] = out[i] * 2.0
"""
    uniform = gpuviz.trace(src, name="k", backend="sim")[1, 32](np.ones(32), 1)  # every lane takes the if
    split = gpuviz.trace(src, name="k", backend="sim")[1, 32](np.ones(32), 2)  # half and half
    assert split.threads["t_end"].max() > uniform.threads["t_end"].max()


def test_shared_memory_limits_blocks_per_sm():
    h100 = PRESETS["h100"]
    assert h100.blocks_per_sm(128) == 16
    assert h100.blocks_per_sm(128, shared_bytes=40 * 1024) == 5  # 228 KiB / (40 + 1) KiB, not 10
    assert PRESETS["t4"].blocks_per_sm(1024) == 1


def test_shared_bytes_of_a_kernel_decide_its_waves():
    src = """
from numba import cuda, float32
@cuda.jit
def k(out):
    s = cuda.shared.array(10240, float32)
    s[cuda.threadIdx.x] = 1.0
    cuda.syncthreads()
    out[cuda.grid(1)] = s[0]
"""
    reference = gpuviz.trace(src, name="k", backend="sim", sms=1, engine="reference")[10, 128](np.zeros(1280))
    first_starts = reference.threads["t_start"].reshape(10, 128)[:, 0]
    assert (first_starts[:5] == 0).all() and (first_starts[5:] > 0).all()  # the reference engine too: 5 at once
    trace = gpuviz.trace(src, name="k", backend="sim", sms=1, level="threads")[10, 128](np.zeros(1280, np.float32))
    starts = np.unique(trace.threads["t_start"].reshape(10, 128)[:, 0])
    sm_blocks = trace.threads["sm"].reshape(10, 128)[:, 0]
    assert set(sm_blocks.tolist()) == {0}
    # 40 KiB per block: 5 resident at once on one SM, so the 6th block waits for one of them to finish
    first_end = trace.threads["t_end"].reshape(10, 128)[:5].max(axis=1).min()
    assert trace.threads["t_start"].reshape(10, 128)[5, 0] >= first_end
    assert len(starts) == 10


def test_device_presets_are_the_options_choices():
    assert set(DEVICES) == set(PRESETS)
    assert all(isinstance(d, VirtualDevice) for d in PRESETS.values())
    with pytest.raises(GpuvizError, match="device 'gtx'"):
        RunOptions(device="gtx")
    trace = gpuviz.trace("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = 1\n", backend="sim",
                         device="t4")[1, 1](np.zeros(1))  # fmt: skip
    assert trace.meta["sm_count"] == 40 and trace.device_facts["compute_capability"] == "7.5"


def test_a_lane_past_the_end_stops_with_a_memory_error_and_the_others_go_on():
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1) + 1] = 1\n"
    a = np.zeros(64)
    # a memory error is recorded, the launch goes on
    trace = gpuviz.trace(src, backend="sim", engine="vector")[1, 64](a)
    assert trace.meta["engine"] == "vector" and trace.meta["engine_note"] == ""
    first = trace.errors[0]
    assert trace.error_count == 1 and first["kind"] == "out-of-bounds write" and first["thread"] == 63
    assert a.sum() == 63


def test_an_index_checked_for_one_array_is_checked_again_for_a_shorter_one():
    src = "from numba import cuda\n@cuda.jit\ndef k(a, b, c):\n    i = cuda.grid(1)\n    c[i] = a[i] + b[i]\n"
    a, b, c = np.ones(64), np.ones(63), np.zeros(64)
    # the same `i` is in bounds for a, not for b
    trace = gpuviz.trace(src, backend="sim", engine="vector")[1, 64](a, b, c)
    assert trace.meta["engine"] == "vector"
    assert trace.errors == [{"kind": "out-of-bounds read", "thread": 63, "line": 5, "array": "b", "element": 63}]
    assert c[63] == 0 and (c[:63] == 2).all()  # the stopped lane never stores


OUT_OF_BOUNDS = {
    "2-D, some lanes of a block": (
        "@cuda.jit\ndef k(m, out):\n    x, y = cuda.grid(2)\n    out[y, x] = m[y + 1, x] * 2\n",
        lambda: (np.arange(48.0).reshape(6, 8), np.zeros((6, 8))),
        (1, 1),
        (8, 6),
    ),
    "in a loop: a stopped lane's later iterations never run": (
        "@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    s = 0.0\n    for j in range(4):\n"
        "        s += a[i + j]\n        out[i] = s\n",
        lambda: (np.arange(40.0), np.zeros(40)),
        2,
        20,
    ),
    "in a device function, negative indices wrap until they are too negative": (
        "@cuda.jit(device=True)\ndef get(a, i):\n    return a[i]\n"
        "@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    out[i] = get(a, 20 - 3 * i)\n",
        lambda: (np.arange(16.0), np.zeros(32)),
        1,
        32,
    ),
    "every lane on one element past the end": (
        "@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i % 2 == 0:\n        a[a.size] = i\n    else:\n"
        "        a[i] = 1\n",
        lambda: (np.zeros(64),),
        2,
        32,
    ),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_BOUNDS))
def test_out_of_bounds_lanes_stop_as_on_the_reference_engine(name):
    body, make, grid, block = OUT_OF_BOUNDS[name]
    (args_v, vector), (args_r, reference) = run_both("from numba import cuda\n" + body, grid, block, make)
    assert vector.meta["engine"] == "vector" and vector.error_count > 0
    for a, b in zip(args_v, args_r):
        np.testing.assert_array_equal(a, b)
    key = lambda e: (e["thread"], e["line"], e["kind"])  # noqa: E731
    assert sorted(vector.errors, key=key) == sorted(reference.errors, key=key)
    assert vector.error_count == reference.error_count


def test_out_of_bounds_in_shared_memory_still_goes_to_the_reference_engine():
    src = ("from numba import cuda, float32\n@cuda.jit\ndef k(out):\n    s = cuda.shared.array(32, float32)\n"
           "    t = cuda.threadIdx.x\n    s[t + 1] = t\n    out[t] = 1\n")  # fmt: skip
    trace = gpuviz.trace(src, backend="sim")[1, 32](np.zeros(32))
    assert trace.meta["engine"] == "reference" and "faulted" in trace.meta["engine_note"]
    assert trace.errors[0]["thread"] == 31


def test_lanes_that_return_early_end_then_and_the_others_end_with_their_warp():
    from gpuviz.backends.sim.vector.cost import WarpClock

    warp_key = np.repeat(np.arange(2), 4)
    clock = WarpClock(warp_key, np.array([10, 20]))
    assert clock.finish().tolist() == [10] * 4 + [20] * 4
    clock.lanes_exit(np.array([True, False] * 4))  # the even lanes return at their warp's clock
    clock.issue("global_load", np.array([False, True] * 4))
    assert clock.finish().tolist() == [10, 318, 10, 318, 20, 328, 20, 328]


def test_unsupported_constructs_fall_back_and_say_why():
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for x in (1, 2):\n        a[cuda.grid(1)] = x\n"
    a = np.zeros(8)
    trace = gpuviz.trace(src, backend="sim")[1, 8](a)
    assert trace.meta["engine"] == "reference" and "range()" in trace.meta["engine_note"]
    assert (a == 2).all()


def test_a_fault_in_the_vector_engine_is_an_engine_error_not_a_silent_rerun(monkeypatch):
    from gpuviz.backends.sim.vector import warp
    from gpuviz.core.errors import EngineError

    def broken(t, args):
        raise IndexError("injected")

    monkeypatch.setitem(warp.COLLECTIVES, "ballot", broken)
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = cuda.ballot_sync(0xFFFFFFFF, 1)\n"
    with pytest.raises(EngineError, match="injected"):
        gpuviz.trace(src, backend="sim")[2, 64](np.zeros(128, np.int32))
    a = np.zeros(128, np.int32)
    assert gpuviz.trace(src, backend="sim", engine="reference")[2, 64](a).meta["engine"] == "reference"


def test_numba_typing_where_numpy_differs():
    src = """
from numba import cuda
@cuda.jit
def k(a, b, out, half):
    i = cuda.grid(1)
    out[i] = a[i] + b[i]            # int32 + int32 computes at 64 bits in numba
    half[i] = a[i] * 0.5            # float32 * 0.5 is float64 before the store
    if i == 0:
        out[1] = -7 // 2
        out[2] = -7 % 2
"""
    a = np.full(4, 2**30, np.int32)
    out = np.zeros(4, np.int64)
    half = np.zeros(4, np.float64)
    gpuviz.trace(src, name="k", backend="sim")[1, 4](a, a, out, half)
    assert out[0] == 2**31 and list(out[1:3]) == [-4, 1] and half[0] == 2**29


def test_uint32_with_a_signed_int_is_int64_as_in_numba():
    """uint32 % 32 is an int64 in numba (it can index); only uint64 with int64 becomes float64."""
    src = """
from numba import cuda
@cuda.jit
def k(idx, big, out, kinds):
    i = cuda.grid(1)
    out[idx[i] % 8] = i            # an integer index, not a float
    kinds[i] = big[i] + (-1)       # uint64 + int64: float64 in numba
"""
    idx = np.arange(8, dtype=np.uint32)[::-1].copy()
    out, kinds = np.zeros(8, np.int64), np.zeros(8, np.float64)
    big = np.full(8, 2**63, np.uint64)
    trace = gpuviz.trace(src, name="k", backend="sim", engine="vector")[1, 8](idx, big, out, kinds)
    assert trace.meta["engine"] == "vector", trace.meta["engine_note"]
    assert list(out) == list(range(8))[::-1] and kinds[0] == float(2**63 - 1)


def test_progress_is_reported_per_wave():
    events = []
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    session = Session(RunOptions(backend="sim", sms=1), notify=events.append)
    session.launch(python_function(src, "k"), 64, 1024, (np.zeros(64 * 1024),))
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress and progress[-1] == Progress(64, 64)


def test_access_times_are_recorded_and_survive_a_round_trip(tmp_path):
    source, grid, block, make, _ = CONSTRUCTS["shared_reduction"]
    trace = gpuviz.trace(source, name="k", backend="sim", level="accesses")[grid, block](*make())
    assert trace.meta["time_unit"] == "tick" and trace.meta["time_source"] == "cost-model"
    assert not trace.meta["times_inferred"]
    loaded = gpuviz.load(trace.save(tmp_path / "t.npz"))
    times, threads = loaded.accesses["time"], loaded.accesses["thread"]
    assert len(times) == len(threads)
    for thread in (0, 5, 70):  # each thread's accesses in issue order, within its lifetime
        mine = times[threads == thread]
        assert (np.diff(mine) > 0).all()
        assert loaded.threads["t_start"][thread] <= mine[0] and mine[-1] <= loaded.threads["t_end"][thread]


def test_over_budget_the_first_and_last_blocks_keep_their_accesses():
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = a[i] + 1\n"
    a = np.zeros(1 << 16)
    # 8 MiB: the threads' columns and the arrays take about 5 MiB, room for ~55k of the 131k events
    trace = gpuviz.trace(src, backend="sim", level="accesses", memory_budget=8 << 20)[256, 256](a)
    assert list(np.unique(trace.accesses["thread"] // 256)) == [0, 255]
    assert len(trace.accesses["thread"]) == 2 * 2 * 256 and not trace.truncated
    assert trace.meta["recorded_blocks"] == [0, 255]
    assert any("first and last block" in w for w in trace.meta["warnings"])
    assert (a == 1).all() and len(trace.threads["t_end"]) == len(a)  # every thread ran and is recorded


def test_a_cap_smaller_than_the_chosen_blocks_truncates_and_says_so():
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = a[i] + 1\n"
    trace = gpuviz.trace(src, backend="sim", level="accesses", access_cap=100)[4, 256](np.zeros(1024))
    assert trace.truncated and len(trace.accesses["thread"]) == 100
    assert any("access log capped at 100" in w for w in trace.meta["warnings"])


def test_chosen_blocks_record_their_accesses_only(tmp_path, capsys):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = a[i] + 1\n"
    trace = gpuviz.trace(src, backend="sim", level="accesses", blocks=(1, -2))[8, 32](np.zeros(256))
    assert set((trace.accesses["thread"] // 32).tolist()) == {1, 6}
    script = tmp_path / "s.py"
    script.write_text("import numpy as np\n" + src + "k[8, 32](np.zeros(256))\n")
    assert main(["run", str(script), "--backend", "sim", "--blocks", "0,x", "--out", str(tmp_path)]) == 1
    assert "error: --blocks '0,x'" in capsys.readouterr().err


def test_progress_bar_line():
    from gpuviz.run.terminal import progress_bar

    assert progress_bar(Progress(512, 1024), width=10) == "\r[gpuviz] [#####.....] 512/1,024 blocks"
    assert progress_bar(Progress(3, 3), width=4).endswith("[####] 3/3 blocks")


# Control flow and calls the constructs above do not cover: both engines, same results.
EXTRA = {
    "break_continue": (
        """
@cuda.jit
def k(out):
    i = cuda.grid(1)
    total = 0
    j = 0
    while True:
        j += 1
        if j % 3 == 0:
            continue
        if j > i:
            break
        total += j
    for a in range(5):
        for b in range(5):
            if b > a:
                break
            total += 1
    out[i] = total
""",
        1,
        40,
        lambda: (np.zeros(40, np.int64),),
    ),
    "device_early_return_in_loop": (
        """
@cuda.jit(device=True)
def first_multiple(x, m):
    for v in range(x, x + 100):
        if v % m == 0:
            return v
    return -1

@cuda.jit
def k(out):
    i = cuda.grid(1)
    tmp = cuda.local.array(2, int64)
    tmp[0] = first_multiple(i, 7)
    tmp[1] = first_multiple(i, 5)
    out[i] = tmp[0] * 1000 + tmp[1]
""",
        2,
        32,
        lambda: (np.zeros(64, np.int64),),
    ),
    "divergent_shfl": (
        """
@cuda.jit
def k(out):
    lane = cuda.laneid
    v = lane * 3
    if lane % 2 == 0:
        v = cuda.shfl_down_sync(0x55555555, v, 2)
    out[cuda.grid(1)] = v
""",
        1,
        64,
        lambda: (np.zeros(64, np.int64),),
    ),
    "spin_lock_falls_back": (
        """
@cuda.jit
def k(lock, counter):
    if cuda.threadIdx.x == 0:
        while cuda.atomic.cas(lock, 0, 0, 1) != 0:
            pass
        counter[0] += 1
        cuda.atomic.exch(lock, 0, 0)
""",
        4,
        32,
        lambda: (np.zeros(1, np.int32), np.zeros(1, np.int64)),
    ),
    "ternary_and_chain": (
        """
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    x = a[i] if i < a.size else -1.0
    y = 1 if 0 < i < 10 and not (i == 5) else 0
    z = max(x, 2.0) + min(i, 3) + abs(-i) + math.floor(x / 3)
    out[i] = z + y + (i // 3) % 4 - (-i) // 4
""",
        1,
        48,
        lambda: (np.linspace(0, 5, 40), np.zeros(48)),
    ),
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_more_control_flow_matches_the_reference(name):
    body, grid, block, make = EXTRA[name]
    source = "import math\nfrom numba import cuda, float32, int32, int64, float64\n" + body
    (vector_args, vector), (reference_args, _) = run_both(source, grid, block, make)
    expected_engine = "reference" if name.endswith("falls_back") else "vector"
    assert vector.meta["engine"] == expected_engine, vector.meta["engine_note"]
    for mine, theirs in zip(vector_args, reference_args):
        np.testing.assert_array_equal(mine, theirs)


def test_warps_share_their_sms_schedulers_for_arithmetic_not_for_memory_latency():
    compute = """
from numba import cuda
@cuda.jit
def k(out):
    i = cuda.grid(1)
    x = 0
    for j in range(50):
        x = x + j
    out[i] = x
"""
    memory = "from numba import cuda\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    out[i] = a[i]\n"

    def duration(source, blocks, *arrays):
        trace = gpuviz.trace(source, name="k", backend="sim", level="threads")[blocks, 1024](*arrays)
        return int((trace.threads["t_end"] - trace.threads["t_start"])[0])

    n1, n2 = 132 * 1024, 264 * 1024  # one block of 32 warps per SM, then two
    assert duration(compute, 264, np.zeros(n2)) > 1.8 * duration(compute, 132, np.zeros(n1))
    assert duration(memory, 264, np.zeros(n2), np.zeros(n2)) < 1.2 * duration(memory, 132, np.zeros(n1), np.zeros(n1))


def test_a_guarded_division_stays_on_the_vector_engine():
    src = """
from numba import cuda
@cuda.jit
def k(d, out):
    i = cuda.grid(1)
    if d[i] != 0:
        out[i] = 100 // d[i] + 100 % d[i]
"""
    d = np.arange(-4, 4, dtype=np.int64)
    out = np.zeros(8, np.int64)
    trace = gpuviz.trace(src, name="k", backend="sim", engine="vector")[1, 8](d, out)
    assert trace.meta["engine"] == "vector"
    assert list(out) == [100 // v + 100 % v if v else 0 for v in d.tolist()]
    # an active lane dividing by zero: the reference engine reruns it and says which thread (test_errors.py)


def test_print_and_an_atomic_passed_to_a_device_function_stay_on_the_vector_engine():
    src = """
from numba import cuda

@cuda.jit(device=True)
def bump(op, counts, i):
    op(counts, i % 4, 1)

@cuda.jit
def k(counts):
    i = cuda.grid(1)
    bump(cuda.atomic.add, counts, i)
    if i < 3:
        print("thread", i)
"""
    (args_v, vector), (args_r, reference) = run_both(src, 2, 32, lambda: (np.zeros(4, np.int64),))
    assert vector.meta["engine"] == "vector", vector.meta["engine_note"]
    np.testing.assert_array_equal(args_v[0], args_r[0])
    assert list(args_v[0]) == [16, 16, 16, 16]
    printed = sorted((p["thread"], p["text"]) for p in vector.meta["printed"])
    assert printed == sorted((p["thread"], p["text"]) for p in reference.meta["printed"])
    assert printed == [(0, "thread 0"), (1, "thread 1"), (2, "thread 2")]


UNINITIALISED = {
    "2-D, half the block writes": (
        "from numba import cuda, float32\n@cuda.jit\ndef k(out):\n    s = cuda.shared.array((4, 8), float32)\n"
        "    t = cuda.threadIdx.x\n    if t < 16:\n        s[t // 8, t % 8] = t\n    cuda.syncthreads()\n"
        "    out[cuda.grid(1)] = s[t // 8, t % 8] + 1\n",
        2,
        32,
    ),
    "odd threads read elements only even threads write": (
        "from numba import cuda, int32\n@cuda.jit\ndef k(out):\n    s = cuda.shared.array(64, int32)\n"
        "    t = cuda.threadIdx.x\n    if t % 2 == 0:\n        s[t] = t\n    cuda.syncthreads()\n"
        "    out[cuda.grid(1)] = s[t] + s[t - t % 2]\n",
        3,
        64,
    ),
}


@pytest.mark.parametrize("name", sorted(UNINITIALISED))
def test_reads_of_unwritten_shared_memory_are_listed_and_the_lanes_go_on(name):
    src, grid, block = UNINITIALISED[name]
    (args_v, vector), (args_r, reference) = run_both(src, grid, block, lambda: (np.zeros(grid * block),))
    assert vector.meta["engine"] == "vector", vector.meta["engine_note"]
    np.testing.assert_array_equal(args_v[0], args_r[0])
    key = lambda e: (e["thread"], e["line"])  # noqa: E731
    assert sorted(vector.errors, key=key) == sorted(reference.errors, key=key)
    assert vector.error_count == reference.error_count > 0
    assert {e["kind"] for e in vector.errors} == {"uninitialised shared read"}


def test_the_reference_engine_keeps_to_the_memory_budget_too():
    """The reference engine cannot narrow to the first and last block: over the budget its log keeps the
    earliest accesses and says so, so that the trace it saves can be opened within the same budget."""
    from gpuviz.backends.sim.recording import event_cap
    from gpuviz.core.launch import LaunchConfig
    from gpuviz.core.options import RunOptions

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = a[i] + 1\n"
    a = np.zeros(1 << 16)
    trace = gpuviz.trace(src, backend="sim", engine="reference", level="accesses", memory_budget=8 << 20)[256, 256](a)
    cap = event_cap(RunOptions(memory_budget=8 << 20), LaunchConfig.of(256, 256, 0), (a,))
    assert trace.truncated and len(trace.accesses["thread"]) == cap < 2 * len(a)
    assert any(f"access log capped at {cap:,}" in w for w in trace.meta["warnings"])
    assert (a == 1).all()
