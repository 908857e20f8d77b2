"""Coalescing, bank conflicts, occupancy and divergence against hand-computed cases, on small kernels
run on the simulator and on hand-built traces."""

import numpy as np
import pytest

from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.analysis.occupancy import measured, theoretical
from gpuviz.core.trace.columns import ACCESS_COLUMNS, READ, WRITE, thread_layout
from gpuviz.core.trace.model import Trace

GLOBAL = """
from numba import cuda

@cuda.jit
def k(a, f64, out):
    i = cuda.grid(1)
    x = a[i]
    y = a[i * 32]
    z = a[0]
    w = f64[i]
    for j in range(3):
        x += a[i + 64 * j]
    out[i] = x + y + z + w
"""

TILE_32 = """
from numba import cuda, float32

@cuda.jit
def k(a, out):
    tile = cuda.shared.array((32, WIDTH), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]
"""

TILE_8 = """
from numba import cuda, float32

@cuda.jit
def k(a, out):
    tile = cuda.shared.array((8, WIDTH), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = tile[tx, ty]
"""

SHARED_WORDS = """
from numba import cuda, float32, float64

@cuda.jit
def k(out):
    one = cuda.shared.array(32, float32)
    wide = cuda.shared.array(32, float64)
    i = cuda.threadIdx.x
    one[i] = i
    wide[i] = i
    cuda.syncthreads()
    out[i] = one[0] + wide[i]
"""

DIVERGE = """
from numba import cuda

@cuda.jit
def k(out, n):
    i = cuda.grid(1)
    if i < n:
        if cuda.laneid % 2 == 0:
            out[i] = 1
        else:
            out[i] = 2
"""


def rows(report, line, array=None):
    found = [r for r in report["lines"] if r["line"] == line and (array is None or r["array"] == array)]
    assert len(found) == 1, found
    return found[0]


def test_global_sectors_per_request(sim_run):
    a, f64, out = np.zeros(32 * 64, np.float32), np.zeros(64, np.float64), np.zeros(64, np.float32)
    report = memory_report(sim_run(GLOBAL, 2, 32, a, f64, out))
    expected = {7: (4, 4), 8: (32, 4), 9: (1, 1), 10: (8, 8)}  # line: (sectors, ideal) per request
    for line, (sectors, ideal) in expected.items():
        row = rows(report, line)
        assert (row["sectors_per_request"], row["ideal_sectors_per_request"]) == (sectors, ideal), row
        assert row["requests"] == 2 and row["lanes_per_request"] == 32
    loop = rows(report, 12)  # each iteration is its own request of 4 sectors, not one of 12
    assert loop["requests"] == 6 and loop["sectors_per_request"] == 4
    assert rows(report, 8)["lines_per_request"] == 32 and rows(report, 10)["lines_per_request"] == 2


@pytest.mark.parametrize("width, column_degree", [(32, 32), (33, 1)])
def test_tile_32_column_read(sim_run, width, column_degree):
    a, out = np.arange(32 * 4 * 32, dtype=np.float32).reshape(-1, 32)[:32], np.zeros((32, 32), np.float32)
    trace = sim_run(TILE_32.replace("WIDTH", str(width)), 1, (32, 4), a, out)
    report = memory_report(trace)
    assert rows(report, 11, "tile")["bank_conflict_degree"] == {"max": column_degree, "mean": column_degree}
    assert rows(report, 9, "tile")["bank_conflict_degree"]["max"] == 1  # the row-wise store


@pytest.mark.parametrize("width, store_degree, read_degree", [(8, 1, 2), (9, 2, 2)])
def test_tile_8_by_8_blocks(sim_run, width, store_degree, read_degree):
    a, out = np.zeros((8, 8), np.float32), np.zeros((8, 8), np.float32)
    report = memory_report(sim_run(TILE_8.replace("WIDTH", str(width)), 1, (8, 8), a, out))
    assert rows(report, 9, "tile")["bank_conflict_degree"]["max"] == store_degree
    assert rows(report, 11, "tile")["bank_conflict_degree"]["max"] == read_degree


def test_broadcast_and_64_bit_words(sim_run):
    report = memory_report(sim_run(SHARED_WORDS, 1, 32, np.zeros(32, np.float64)))
    broadcast = [r for r in report["lines"] if r["array"] == "one" and r["kind"] == "read"][0]
    wide = [r for r in report["lines"] if r["array"] == "wide" and r["kind"] == "read"][0]
    assert broadcast["bank_conflict_degree"]["max"] == 1 and broadcast["sectors_per_request"] is None
    assert wide["bank_conflict_degree"]["max"] == 1


def hand_trace(arrays, accesses, block=32, grid=1, facts=None, sm=None, spans=None):
    """A trace of `grid` blocks of `block` threads with the given access rows (thread, array, index, kind)."""
    block_idx, thread_idx, warp, lane = thread_layout((grid, 1, 1), (block, 1, 1))
    start, end = spans if spans is not None else (np.zeros(grid, np.int64), np.ones(grid, np.int64))
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": np.repeat(np.asarray(sm if sm is not None else np.zeros(grid), np.int32), block),
               "t_start": np.repeat(start, block), "t_end": np.repeat(end, block)}  # fmt: skip
    rows = np.array(accesses, np.int64).reshape(-1, 4)
    log = {"thread": rows[:, 0], "array": rows[:, 1], "index": rows[:, 2], "kind": rows[:, 3],
           "line": np.full(len(rows), 5), "epoch": np.zeros(len(rows)), "value": np.zeros(len(rows))}  # fmt: skip
    facts = facts or {"max_threads_per_sm": 2048, "max_blocks_per_sm": 32, "max_shared_memory_per_sm": 228 * 1024}
    meta = {"kernel": "k", "grid": [grid, 1, 1], "block": [block, 1, 1], "arrays": arrays, "device_facts": facts}
    return Trace(meta=meta, threads=threads,
                 accesses={k: v.astype(ACCESS_COLUMNS[k]) for k, v in log.items()})  # fmt: skip


def test_lanes_group_by_occurrence_whatever_the_log_order():
    """One thread at a time (the sequential schedule's order): still one 32-lane request per pass."""
    arrays = [{"name": "a", "space": "global", "dtype": "float32", "shape": [256]}]
    log = [(t, 0, t + 32 * k, READ) for t in range(32) for k in range(2)]
    report = memory_report(hand_trace(arrays, log))
    row = report["lines"][0]
    assert (row["requests"], row["lanes_per_request"], row["sectors_per_request"]) == (2, 32, 4)


def test_64_bit_shared_words_conflict_only_within_a_half_warp():
    arrays = [{"name": "s", "space": "shared", "dtype": "float64", "shape": [64]}]
    same_half = [(t, 0, (t % 2) * 16, READ) for t in range(16)]  # lanes 0-15: elements 0 and 16
    across = [(t, 0, t, READ) for t in range(32)]  # lane 16's words sit in lane 0's banks
    assert memory_report(hand_trace(arrays, same_half))["lines"][0]["bank_conflict_degree"]["max"] == 2
    assert memory_report(hand_trace(arrays, across))["lines"][0]["bank_conflict_degree"]["max"] == 1


def test_bytes_of_small_elements_share_words_and_sectors():
    arrays = [{"name": "b", "space": "shared", "dtype": "int8", "shape": [4096]}]
    log = [(t, 0, t, WRITE) for t in range(32)]
    row = memory_report(hand_trace(arrays, log))["lines"][0]
    assert row["bank_conflict_degree"]["max"] == 1


def test_shared_memory_limits_theoretical_occupancy():
    arrays = [{"name": "tile", "space": "shared", "dtype": "float32", "shape": [40 * 256]}]  # 40 KiB
    trace = hand_trace(arrays, [], block=256, grid=4)
    theory = theoretical(trace)
    assert theory["blocks"] == 5 and theory["limiter"] == "shared memory"
    assert theory["occupancy"] == 5 * 8 / 64
    no_shared = theoretical(hand_trace([], [], block=256, grid=4))
    assert no_shared["blocks"] == 8 and no_shared["limiter"] == "threads" and no_shared["occupancy"] == 1.0
    assert "registers" in theory["unknown"]


def test_registers_limit_when_known():
    trace = hand_trace([], [], block=256)
    trace.meta["registers_per_thread"] = 128  # 128 x 256 = 32768 registers a block: 2 fit in 65536
    assert theoretical(trace)["blocks"] == 2 and theoretical(trace)["limiter"] == "registers"


def test_measured_occupancy_is_the_peak_on_one_sm():
    spans = (np.array([0, 0, 5, 10, 0]), np.array([10, 6, 10, 20, 3]))  # on SM 0: 3 at once during 5..6
    trace = hand_trace([], [], block=64, grid=5, sm=[0, 0, 0, 0, 1], spans=spans)
    seen = measured(trace)
    assert (seen["blocks"], seen["warps"], seen["occupancy"]) == (3, 6, 6 / 64)
    assert (seen["blocks_in_launch"], seen["sms_used"]) == (5, 2)


def test_divergence_counts_lane_groups(sim_run):
    report = memory_report(sim_run(DIVERGE, 2, 64, np.zeros(128, np.int64), 100))
    div = report["divergence"]
    # warps 0-2: even/odd lanes (2 paths); warp 3 (threads 96..127): 4 in bounds split in 2, 28 skip.
    assert div["warps"] == 4 and div["diverged_warps"] == 4
    assert div["warps_by_paths"] == {"2": 3, "3": 1}
    assert {d["line"]: d["split_warps"] for d in div["lines"]} == {9: 4, 11: 4}


def test_uniform_warps_do_not_diverge(sim_run):
    a, f64, out = np.zeros(32 * 64, np.float32), np.zeros(64, np.float64), np.zeros(64, np.float32)
    div = memory_report(sim_run(GLOBAL, 2, 32, a, f64, out))["divergence"]
    assert div["diverged_warps"] == 0 and all(d["split_warps"] == 0 for d in div["lines"])


def test_threads_level_trace_has_occupancy_only(sim_run):
    trace = sim_run(DIVERGE, 2, 64, np.zeros(128, np.int64), 100, level="threads")
    report = memory_report(trace)
    assert report["lines"] is None and report["occupancy_theoretical"] == 1.0
    assert report["occupancy_limiter"] == "threads and blocks"


def test_one_warps_requests_lane_by_lane(sim_run):
    from gpuviz.core.analysis.warp_detail import warp_line_requests, warp_of

    a, out = np.zeros((8, 8), np.float32), np.zeros((8, 8), np.float32)
    trace = sim_run(TILE_8.replace("WIDTH", "9"), 1, (8, 8), a, out)
    assert warp_of(trace, 40) == 1
    store = [r for r in warp_line_requests(trace, 1, 9) if r.array == "tile"]
    assert len(store) == 1 and store[0].kind == "write" and store[0].cost == 2
    lanes = store[0].lanes
    assert sorted(lanes.tolist()) == list(range(32))
    tx, ty = lanes % 8, 4 + lanes // 8  # warp 1 holds rows ty = 4..7 of the block
    assert (store[0].words == ty * 9 + tx).all() and (store[0].places == (ty * 9 + tx) % 32).all()
    load = [r for r in warp_line_requests(trace, 1, 9) if r.array == "a"][0]
    assert (load.cost, load.ideal) == (4, 4) and (load.elements == ty * 8 + tx).all()
    assert warp_line_requests(trace, 1, 3) == []


def test_per_sm_limits_come_from_the_compute_capability_when_facts_lack_them():
    arrays = [{"name": "tile", "space": "shared", "dtype": "float32", "shape": [8 * 1024]}]  # 32 KiB
    ampere = theoretical(hand_trace(arrays, [], block=256, facts={"compute_capability": [8, 6]}))
    assert (ampere["blocks"], ampere["limiter"]) == (3, "shared memory")  # 100 KiB // 32 KiB
    assert ampere["occupancy"] == 3 * 8 / 48  # 1536 threads = 48 warps per SM
    unknown = theoretical(hand_trace(arrays, [], block=256, facts={"name": "some GPU"}))
    assert unknown["occupancy"] is None and unknown["limiter"] == "unknown"


def test_a_kernel_that_touches_no_memory(sim_run):
    report = memory_report(sim_run("from numba import cuda\n@cuda.jit\ndef k(o):\n    pass\n", 2, 64, np.zeros(1)))
    assert report["lines"] == [] and report["arrays"] == []
    assert report["divergence"]["diverged_warps"] == 0 and report["divergence"]["warps"] == 4


def test_one_warps_paths(sim_run):
    from gpuviz.core.analysis.warp_detail import lane_list, warp_paths

    trace = sim_run(DIVERGE, 2, 64, np.zeros(128, np.int64), 100)
    (even, even_lines), (odd, odd_lines) = warp_paths(trace, 0)
    assert lane_list(even) == "even lanes 0-30" and even_lines == {9: 1}
    assert lane_list(odd) == "odd lanes 1-31" and odd_lines == {11: 1}
    skipped = warp_paths(trace, 3)  # threads 96..127, n = 100: 28 lanes do nothing
    assert [lane_list(lanes) for lanes, _ in skipped] == ["lanes 4-31", "lanes 0, 2", "lanes 1, 3"]
    assert skipped[0][1] == {}


SPLIT = """
from numba import cuda

@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i % 3 == 0:
        a[i] = 1
    if i < a.size:
        a[i] += 2
"""


@pytest.mark.parametrize("blocks, per_block", [(6, 100), (5, 48)])
def test_divergence_of_warps_without_recorded_accesses_is_one_path(blocks, per_block):
    """With the accesses of the first and last block only, those blocks' warps split as with every
    block recorded, and the other warps count one path (the log tells nothing of them)."""
    import gpuviz
    from gpuviz.core.analysis.divergence import divergence

    from .divergence_reference import line_counts, warp_paths

    def run(chosen):
        return gpuviz.trace(SPLIT, name="k", backend="sim", level="accesses", blocks=chosen)[blocks, per_block](
            np.zeros(blocks * per_block - 7)
        )

    every, ends = run(()), run((0, -1))
    full, partial = warp_paths(every, line_counts(every)), warp_paths(ends, line_counts(ends))
    per_warp = -(-per_block // 32)
    recorded = np.r_[np.arange(per_warp), np.arange(len(full) - per_warp, len(full))]
    assert len(full) == len(partial) == blocks * per_warp
    np.testing.assert_array_equal(partial[recorded], full[recorded])
    assert (np.delete(partial, recorded) == 1).all() and (np.delete(full, recorded) > 1).any()
    assert divergence(ends)["warps"] == 2 * per_warp  # the recorded blocks' warps: of the others nothing is known


def test_divergence_counts_only_the_warps_of_blocks_whose_accesses_were_kept():
    """With the accesses of the first and last blocks only, the counts are of their warps, and say so."""
    import gpuviz
    from gpuviz.core.analysis.memory_text import divergence_lines

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = i\n"
    trace = gpuviz.trace(src, backend="sim", level="accesses", blocks=(0, -1))[6, 64](np.zeros(6 * 64 - 40))
    div = memory_report(trace)["divergence"]
    assert div["warps"] == 4 and div["diverged_warps"] == 1  # block 5's second warp: 24 lanes in bounds
    assert div["scope"] == " whose accesses were recorded (blocks 0 and 5)"
    assert divergence_lines(div)[0].startswith("divergence 1 of 4 warps whose accesses were recorded (blocks 0 and 5)")
    whole = memory_report(gpuviz.trace(src, backend="sim", level="accesses")[6, 64](np.zeros(6 * 64 - 40)))
    assert whole["divergence"]["warps"] == 12 and whole["divergence"]["scope"] == ""


def test_constant_turns_are_the_distinct_addresses_of_each_warp_request():
    """One address for all lanes: a broadcast, one turn; 32 addresses: 32 turns; 2 of them: 2."""
    arrays = [{"name": "c", "space": "const", "dtype": "float32", "shape": [64]}]
    same = [(t, 0, 7, READ) for t in range(32)]
    own = [(t, 0, t, READ) for t in range(32)]
    halves = [(t, 0, t // 16, READ) for t in range(32)]
    for log, turns in ((same, 1), (own, 32), (halves, 2)):
        report = memory_report(hand_trace(arrays, log))
        row = report["lines"][0]
        assert (row["space"], row["turns_per_request"]["max"], row["turns"]) == ("const", turns, turns)
        assert row["sectors_per_request"] is None and row["bank_conflict_degree"] is None
        assert report["arrays"][0]["turns_per_request"] == {"max": turns, "mean": float(turns)}


def test_constant_turns_count_per_warp_and_sum_into_the_totals():
    """Two warps: one reads one entry, the other four; the mean is over requests, the total their sum."""
    arrays = [{"name": "c", "space": "const", "dtype": "float64", "shape": [8]}]
    log = [(t, 0, 0, READ) for t in range(32)] + [(t, 0, t % 4, READ) for t in range(32, 64)]
    report = memory_report(hand_trace(arrays, log, block=64))
    row = report["lines"][0]
    assert row["requests"] == 2 and row["turns_per_request"] == {"max": 4, "mean": 2.5} and row["turns"] == 5
    counts = {c["name"]: c for c in report["counts"]}
    assert counts["constant load turns"]["value"] == 5 and counts["constant load requests"]["value"] == 2
    assert counts["constant load turns"]["ncu"] == "idc__requests.sum"


CONSTANT = """
import numpy as np
from numba import cuda

TABLE = np.arange(32, dtype=np.float32)

@cuda.jit
def k(out, shift):
    table = cuda.const.array_like(TABLE)
    i = cuda.grid(1)
    out[i] = table[cuda.blockIdx.x] + table[(cuda.threadIdx.x // shift) % 32]
"""


@pytest.mark.parametrize("shift, turns", [(1, 32), (4, 8), (32, 1)])
def test_a_simulated_kernels_constant_reads_take_a_turn_per_distinct_address(sim_run, shift, turns):
    report = memory_report(sim_run(CONSTANT, 2, 64, np.zeros(128, np.float32), shift))
    rows = [r for r in report["lines"] if r["space"] == "const"]
    assert [r["array"] for r in rows] == ["TABLE"]  # one line, both reads: the site is (line, array, kind)
    assert rows[0]["requests"] == 8 and rows[0]["turns_per_request"]["max"] == turns
    assert rows[0]["turns"] == 4 * 1 + 4 * turns
