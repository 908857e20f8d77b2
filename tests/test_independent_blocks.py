"""Blocks that share no memory run in large groups (vector/independent.py): the same trace as the run
interleaved in time, and a launch whose blocks do share memory is found out and run interleaved."""

from contextlib import nullcontext
from types import SimpleNamespace

import numpy as np
import pytest

import gpuviz
from gpuviz.backends.sim.recording import blocks_interleaved
from gpuviz.backends.sim.vector.sharing import BlockSharing, BlocksShareMemory
from gpuviz.catalog import catalog, find
from gpuviz.program.script import run_script
from gpuviz.run.session import Session
from tests import full_size

ACCESS_COLUMNS = ("thread", "index", "kind", "value", "line", "epoch", "array")


def catalog_traces(entry, grouped: bool) -> list:
    session = Session(entry.run_options("sim").with_(level="accesses"), out_dir=None, keep_traces=True)
    with nullcontext() if grouped else blocks_interleaved():
        run_script(entry.path, session)
    return session.traces


def assert_same_trace(grouped, interleaved) -> None:
    for column, values in grouped.threads.items():
        np.testing.assert_array_equal(values, interleaved.threads[column], err_msg=column)
    inputs = grouped.args.keys()
    if not all(np.array_equal(grouped.args[n][0], interleaved.args[n][0]) for n in inputs):
        return  # a script that draws random inputs: its values cannot be compared
    for name in inputs:
        np.testing.assert_array_equal(grouped.args[name][1], interleaved.args[name][1])
    a, b = grouped.accesses, interleaved.accesses
    if a is None:
        assert b is None
        return
    order_a = np.lexsort((a["time"], a["thread"]))  # a thread's accesses in the order it issued them
    order_b = np.lexsort((b["time"], b["thread"]))
    for column in (*ACCESS_COLUMNS, "time"):
        np.testing.assert_array_equal(a[column][order_a], b[column][order_b], err_msg=column)


@pytest.mark.parametrize("entry", full_size.entries(catalog()))
def test_the_catalog_gives_the_same_trace_run_in_groups_or_interleaved(entry):
    grouped = catalog_traces(entry, True)
    interleaved = catalog_traces(entry, False)
    assert len(grouped) == len(interleaved)
    for a, b in zip(grouped, interleaved):
        if a.meta["engine"] != "vector":
            continue  # a launch the reference engine ran (a fault): one thread at a time, no groups
        assert_same_trace(a, b)
        assert b.meta["blocks_ran"] == "interleaved: chosen"


@pytest.mark.slow
def test_most_of_the_catalog_runs_in_groups_and_races_between_blocks_run_interleaved():
    ran = {(e.slug, t.kernel): t.meta.get("blocks_ran", "") for e in catalog() for t in catalog_traces(e, True)}
    assert sum(r == "independent" for r in ran.values()) >= 0.6 * len(ran), ran
    for launch in [("the-race", "cudakernel0"), ("racy_counter", "cudakernel0"), ("histogram", "histogram")]:
        assert ran[launch] == "interleaved: two blocks access an element and one of them writes it", launch
    assert ran[("missing-syncthreads", "block_sum")] == "independent"  # its race is inside a block


MANDELBROT = find("mandelbrot").path.read_text().split("def reference")[0]


@pytest.mark.parametrize("seed", [0, 3])
def test_waves_of_blocks_of_different_lengths_take_the_same_places(seed):
    """Mandelbrot over three waves: threads last as long as their pixel's iterations; grouped or
    interleaved, every block starts at the same tick on the same SM."""

    def run(grouped: bool):
        image = np.zeros((384, 512), np.int32)
        with nullcontext() if grouped else blocks_interleaved():
            trace = gpuviz.trace(MANDELBROT, name="mandelbrot", backend="sim", level="accesses", seed=seed,
                                 sms=4)[(32, 24), (16, 16)](image)  # fmt: skip
        return trace

    grouped, interleaved = run(True), run(False)
    assert grouped.meta["blocks_ran"] == "independent"
    assert len(np.unique(grouped.threads["t_start"])) > 8 * 4  # several waves on 4 SMs
    assert_same_trace(grouped, interleaved)


WRITES_ANOTHER_BLOCKS_ELEMENT = """
from numba import cuda

@cuda.jit
def k(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i
    if i == 0:
        out[out.size - 1] = -1
"""


def test_a_clash_found_after_the_first_group_restores_the_inputs_and_runs_interleaved():
    """Block 0 writes the last block's element; the last block runs in a later group, so the grouped
    run has written `out` before it finds out: the interleaved run must start from the inputs."""
    n = 256 * 600  # more than one group of lanes
    results = []
    for grouped in (True, False):
        out = np.full(n, 7.0)
        with nullcontext() if grouped else blocks_interleaved():
            kernel = gpuviz.trace(WRITES_ANOTHER_BLOCKS_ELEMENT, name="k", backend="sim", level="accesses")
            trace = kernel[n // 256, 256](out)
        results.append((out, trace))
    (out_a, a), (out_b, b) = results
    assert a.meta["blocks_ran"] == "interleaved: two blocks access an element and one of them writes it"
    np.testing.assert_array_equal(a.args["out"][0], np.full(n, 7.0))  # the trace's "before" is the input
    np.testing.assert_array_equal(out_a, out_b)
    assert_same_trace(a, b)


ATOMIC = """
from numba import cuda

@cuda.jit
def k(count):
    cuda.atomic.add(count, 0, 1)
"""

ALIASED = """
from numba import cuda

@cuda.jit
def k(a, b):
    i = cuda.grid(1)
    b[i] = a[i] + 1
"""


def test_atomics_and_arguments_sharing_memory_run_interleaved_and_say_why():
    count = np.zeros(1, np.int64)
    trace = gpuviz.trace(ATOMIC, name="k", backend="sim")[4, 64](count)
    assert count[0] == 256 and trace.meta["blocks_ran"].startswith("interleaved: an atomic")
    data = np.zeros(300, np.float32)
    trace = gpuviz.trace(ALIASED, name="k", backend="sim")[2, 128](data[:256], data[1:257])
    assert trace.meta["blocks_ran"] == "interleaved: two arguments share memory"


def lanes(blocks: list[int]) -> SimpleNamespace:
    """A stand-in for a batch whose lanes belong to `blocks` (1 + block number, as the engine keeps them)."""
    numbers = np.array(blocks, np.int32) + 1
    return SimpleNamespace(block_numbers=numbers, blk=numbers - 1, first_block=0)


@pytest.mark.parametrize(
    "accesses, clash",
    [
        ([([0, 1], [0, 1], "w"), ([0, 1], [0, 1], "r")], False),  # each block its own element
        ([([0, 0], [5, 5], "w"), ([0, 0], [5, 5], "r")], False),  # one block, one element, many lanes
        ([([0, 1], [3, 3], "r")], False),  # two blocks read one element nobody writes
        ([([0, 1], [3, 3], "r"), ([1], [3], "w")], True),  # ... and then one writes it
        ([([0], [3], "w"), ([1], [3], "r")], True),  # a block reads another's write
        ([([0, 1], [3, 3], "w")], True),  # two blocks write one element in one access
        ([([0], [3], "w"), ([1], [3], "w")], True),  # ... or one after the other
        ([([0], [0], "w"), ([1], [1], "w"), ([0], [2], "r")], False),  # elements apart
    ],
)
def test_block_sharing_finds_an_element_two_blocks_touch_and_one_writes(accesses, clash):
    data = np.zeros(8)
    sharing = BlockSharing({0: data})
    try:
        for blocks, elements, kind in accesses:
            sharing.touch(lanes(blocks), 0, np.array(elements), None, write=kind == "w")
    except BlocksShareMemory:
        assert clash
    else:
        assert not clash


def test_arrays_the_kernel_never_writes_are_not_watched_and_a_write_to_one_stops_the_grouped_run():
    sharing = BlockSharing({0: np.zeros(4)})
    sharing.touch(lanes([0, 1, 2]), 1, np.array([0, 0, 0]), None, write=False)  # a read-only input
    assert 1 not in sharing.owner
    with pytest.raises(BlocksShareMemory):
        sharing.touch(lanes([0]), 1, np.array([0]), None, write=True)


def test_restore_puts_back_what_the_grouped_run_wrote():
    data = np.arange(6.0)
    sharing = BlockSharing({0: data})
    sharing.touch(lanes([0, 1]), 0, np.array([0, 1]), None, write=True)
    data[:2] = -1
    sharing.restore()
    np.testing.assert_array_equal(data, np.arange(6.0))


READS_BEFORE_ANOTHER_BLOCK_WRITES = """
from numba import cuda

@cuda.jit
def k(flag, a, out):
    i = cuda.grid(1)
    if cuda.blockIdx.x == 1:
        s = 0
        for j in range(10):
            s += a[j]
        out[i] = s // flag[0]
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0:
        flag[0] = 2
"""


@pytest.mark.parametrize("seed", [4, 6])
def test_a_fault_on_a_value_read_out_of_time_order_reruns_interleaved_not_on_the_reference_engine(seed):
    """Grouped, block 1 divides by flag[0] before block 0 has set it; in time, block 0 sets it first."""
    results = []
    for grouped in (True, False):
        args = (np.zeros(1, np.int64), np.ones(10, np.int64), np.zeros(64, np.int64))
        with nullcontext() if grouped else blocks_interleaved():
            tracer = gpuviz.trace(READS_BEFORE_ANOTHER_BLOCK_WRITES, name="k", backend="sim", engine="vector",
                                  seed=seed)  # fmt: skip
            trace = tracer[2, 32](*args)
        results.append((args, trace))
    (args_g, g), (args_i, i) = results
    assert g.meta["engine"] == i.meta["engine"] == "vector"
    assert g.meta["blocks_ran"].startswith("interleaved: ")
    np.testing.assert_array_equal(args_g[2], args_i[2])
    assert_same_trace(g, i)


THROUGH_A_TUPLE = """
from numba import cuda

@cuda.jit
def k(out, tup):
    i = cuda.grid(1)
    v = tup[0]
    if cuda.blockIdx.x == 1:
        s = 0.0
        for j in range(10):
            s += v[j + 40]
        out[i] = s + v[0]
    if i == 0:
        out[0] = 100.0
"""


def test_an_array_reached_through_a_tuple_is_not_trusted_to_be_unshared():
    out = np.zeros(64)
    trace = gpuviz.trace(THROUGH_A_TUPLE, name="k", backend="sim", seed=4)[2, 32](out, (out[:],))
    assert trace.meta["blocks_ran"] == "interleaved: an array that is not one of the launch's arguments"
    reference = np.zeros(64)
    with blocks_interleaved():
        gpuviz.trace(THROUGH_A_TUPLE, name="k", backend="sim", seed=4)[2, 32](reference, (reference[:],))
    np.testing.assert_array_equal(out, reference)


COPY = """
from numba import cuda

@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    s = 0.0
    for j in range(4):
        s += a[i]
    out[i] = s
"""


def test_the_access_log_of_several_groups_is_in_time_order():
    """Groups run one after the other; the log is sorted by time afterwards, as the replay reads it."""
    blocks = 600  # 153,600 lanes: three groups, and several waves on 4 SMs
    trace = gpuviz.trace(COPY, name="k", backend="sim", level="accesses", sms=4)[blocks, 256](
        np.ones(blocks * 256), np.zeros(blocks * 256)
    )
    assert trace.meta["blocks_ran"] == "independent"
    assert (np.diff(trace.accesses["time"]) >= 0).all()
    with blocks_interleaved():
        interleaved = gpuviz.trace(COPY, name="k", backend="sim", level="accesses", sms=4)[blocks, 256](
            np.ones(blocks * 256), np.zeros(blocks * 256)
        )
    assert_same_trace(trace, interleaved)


def test_a_capped_log_reruns_interleaved_so_it_keeps_the_earliest_accesses():
    options = {"name": "k", "backend": "sim", "level": "accesses", "sms": 1, "access_cap": 500, "blocks": (0, 300)}
    runs = []
    for grouped in (True, False):
        with nullcontext() if grouped else blocks_interleaved():
            runs.append(gpuviz.trace(COPY, **options)[400, 64](np.ones(400 * 64), np.zeros(400 * 64)))
    grouped, interleaved = runs
    assert grouped.meta["blocks_ran"].startswith("interleaved: the access log reached its cap")
    assert grouped.truncated and len(grouped.accesses["thread"]) == 500
    assert_same_trace(grouped, interleaved)


SHARED_ATOMIC = """
from numba import cuda, int32

@cuda.jit
def k(out):
    counts = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        counts[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(counts, t % 4, 1)
    cuda.syncthreads()
    if t < 4:
        out[cuda.blockIdx.x * 4 + t] = counts[t]
"""


def test_shared_atomics_contend_within_their_block_only_and_run_grouped():
    def block_zero_ticks(blocks: int) -> tuple[int, str]:
        with blocks_interleaved() if blocks < 0 else nullcontext():
            n = abs(blocks)
            trace = gpuviz.trace(SHARED_ATOMIC, name="k", backend="sim")[n, 128](np.zeros(4 * n, np.int32))
        times = trace.threads
        return int(times["t_end"][:128].max() - times["t_start"][0]), trace.meta["blocks_ran"]

    alone, _ = block_zero_ticks(1)
    beside_others, ran = block_zero_ticks(-8)  # interleaved: in one lockstep batch with seven more blocks
    assert alone == beside_others  # the other blocks' lanes are on other SMs' shared memory
    assert block_zero_ticks(8)[1] == "independent" and ran == "interleaved: chosen"


def test_a_call_whose_lanes_all_stopped_keeps_the_launch_on_the_vector_engine():
    src = (
        "from numba import cuda\n@cuda.jit(device=True)\ndef get(a, i):\n    return a[i]\n"
        "@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    x = get(a, i + 100) + 1.0\n    out[i] = x\n"
    )
    out = np.zeros(32)
    trace = gpuviz.trace(src, name="k", backend="sim", engine="vector")[1, 32](np.arange(16.0), out)
    assert trace.meta["engine"] == "vector" and trace.error_count == 32
    assert (out == 0).all()  # every thread stopped at its read: none stored
