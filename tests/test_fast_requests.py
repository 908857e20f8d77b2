"""The fast path numbers every access's warp request as it lays out its log (fast/log_rows.py) and hands the
numbering over: the requests, the memory report and the races equal those grouped from the same trace's rows,
on kernels with divergence, loops, shared memory, 2-D blocks, partial warps and two reads of one site."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.backends.sim.fast import log_rows as log_rows_module
from gpuviz.backends.sim.fast.log_rows import log_rows
from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.analysis.races import find_races
from gpuviz.core.analysis.requests import _occurrence, dense_ids, global_warp, group_requests

from .race_suite import CASES
from .test_logged_requests import SKIPPING as SKIPPING_WITHOUT_BARRIER

SPEED = (Path(__file__).parents[1] / "bench" / "speed_kernels.py").read_text()
STENCIL = """from numba import cuda
@cuda.jit
def k(src, dst):
    y, x = cuda.grid(2)
    if 0 < y < src.shape[0] - 1 and 0 < x < src.shape[1] - 1:
        dst[y, x] = (src[y, x] + src[y - 1, x] + src[y + 1, x] + src[y, x - 1] + src[y, x + 1]) * 0.2
"""
PARTED = """from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    if i < out.size:  # the last warp of each block is partial; lanes past the end stop here
        if i % 3 == 0:
            out[i] = a[i] + a[i + 1]  # two reads of one array on one line
        else:
            out[i] = a[i]
"""
ONE_LINE = """from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = a[i] if i % 2 else a[i + 1]  # two reads of one line and array: one site, lanes paired by execution
"""
# test_logged_requests.py's lanes that skip the first execution of a site, with a barrier closing each turn
SKIPPING = SKIPPING_WITHOUT_BARRIER + "        cuda.syncthreads()\n"
SHARED_2D = """from numba import cuda, float32
@cuda.jit
def k(a, out):
    tile = cuda.shared.array((8, 12), float32)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    tile[y, x] = a[y, x]
    cuda.syncthreads()
    s = 0.0
    for j in range(12):
        s += tile[y, j]
    cuda.syncthreads()
    if x % 5 == 0:
        out[cuda.blockIdx.x * 8 + y, x] = s + tile[(y + 1) % 8, x]
"""
KERNELS = [  # (source, name, grid, block, inputs)
    (SPEED, "vecadd", 8, 100, lambda: (np.arange(750, dtype=np.float32), np.ones(750, np.float32), np.zeros(750))),
    (SPEED, "tree_reduction", 8, 256, lambda: (np.arange(2048, dtype=np.float32), np.zeros(8, np.float32))),
    (SPEED, "matmul_tiled", (2, 2), (16, 16), lambda: tuple(np.ones((32, 32), np.float32) for _ in range(3))),
    (STENCIL, "k", (3, 3), (16, 16), lambda: (np.random.default_rng(0).random((48, 48)), np.zeros((48, 48)))),
    (PARTED, "k", 3, 48, lambda: (np.arange(200, dtype=np.float64), np.zeros(130))),
    (ONE_LINE, "k", 2, 48, lambda: (np.arange(97.0), np.zeros(96))),
    (SKIPPING, "k", 2, 48, lambda: (np.zeros(96),)),
    (SHARED_2D, "k", 2, (12, 8), lambda: (np.arange(96, dtype=np.float32).reshape(8, 12), np.zeros((16, 12)))),
]  # fmt: skip


def _same_as_from_rows(trace) -> None:
    """Requests (every field, whole log and one warp's rows), memory report and races equal those of the
    same trace grouped from its rows."""
    assert trace.meta["engine"] == "fast", trace.meta.get("engine_note")
    assert trace.requests is not None and len(trace.requests) == len(trace.accesses["thread"])
    rows = dataclasses.replace(trace, requests=None)
    warp = global_warp(trace, trace.accesses["thread"])
    for picked in (None, np.flatnonzero(warp == warp[len(warp) // 2])):
        mine, theirs = group_requests(trace, picked), group_requests(rows, picked)
        for name in ("of_row", "warp", "line", "array", "kind", "lanes"):
            a, b = getattr(mine, name), getattr(theirs, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert memory_report(trace) == memory_report(rows)
    assert find_races(trace, count_benign=True).to_json() == find_races(rows, count_benign=True).to_json()


IDS = ["vecadd", "tree_reduction", "matmul_tiled", "stencil_2d", "parted", "one_line", "skipping", "shared_2d"]


@pytest.mark.parametrize(("source", "name", "grid", "block", "make"), KERNELS, ids=IDS)
def test_the_fast_paths_requests_equal_the_ones_grouped_from_rows(source, name, grid, block, make):
    trace = gpuviz.trace(source, name=name, backend="sim", engine="fast", level="accesses")[grid, block](*make())
    _same_as_from_rows(trace)


@pytest.mark.parametrize("case", [c for c in CASES if not c.racy_arrays], ids=lambda c: c.name)
def test_the_race_suite_where_it_runs_on_the_fast_path(case):
    trace = gpuviz.trace(case.source, name="k", backend="sim", engine="fast", level="accesses")[case.grid, case.block](
        *case.make()
    )
    if trace.meta["engine"] != "fast":
        pytest.skip(f"runs on the vector engine: {trace.meta.get('engine_note')}")
    _same_as_from_rows(trace)


def test_rows_of_a_request_are_together_where_the_lanes_share_their_path():
    """Vector add's and the matmul's requests are runs of rows, so the costs need no sort of the rows."""
    for source, name, grid, block, make in KERNELS[:3]:
        trace = gpuviz.trace(source, name=name, backend="sim", engine="fast", level="accesses")[grid, block](*make())
        assert group_requests(trace, ordered=False).runs is not None, name


SITES = np.array([[10, 0, 0, -1], [10, 0, 0, -1], [11, 1, 1, -1], [12, 0, 1, -1]], np.int64)  # two sites: one


@pytest.mark.parametrize("lanes", [1, 2, 3])  # one block a part: each part numbers from where the last ended
def test_a_hand_built_log_is_numbered_as_its_rows_group(lanes, monkeypatch):
    monkeypatch.setattr(log_rows_module, "PARALLEL_ROWS", 0)  # parts however small the log
    """Random sites (two of one line, array and kind), counts and phases over partial warps: the numbers equal
    group_requests' dense (warp, site, execution) of the rows the log becomes."""
    rng = np.random.default_rng(3)
    tpb, blocks, slots = 40, 3, 6
    n = tpb * blocks
    count = rng.integers(0, slots + 1, n).astype(np.int64)
    offsets = np.arange(n + 1, dtype=np.int64) * slots  # each thread's slots after the last's, `slots` a thread
    phases, times = np.zeros(slots * n, np.int32), np.zeros(slots * n, np.int64)
    for s in range(n):  # a thread's phases and times never go back, as in a run
        phases[s * slots : (s + 1) * slots] = np.sort(rng.integers(1, 4, slots))
        times[s * slots : (s + 1) * slots] = np.sort(rng.integers(0, 30, slots))
    log = [rng.integers(0, 50, slots * n).astype(np.int64), rng.random(slots * n), times,
           rng.integers(0, len(SITES), slots * n).astype(np.int16), np.zeros(slots * n, np.int32), phases, count,
           offsets, n]  # fmt: skip
    kept = np.array([0, 2, 5], np.int64)
    out = log_rows(log, SITES, kept, tpb, 1, np.array([0, 7, 3, 9, 1, 4], np.int64), np.array([4, 6], np.int64),
                   lanes=lanes, uneven_ok=True)  # fmt: skip
    site, _ = dense_ids(out["line"], out["array"], out["kind"])
    per_block = -(-tpb // 32)
    warp = (out["thread"] // tpb) * per_block + out["thread"] % tpb // 32
    expected, _ = dense_ids(warp, site, _occurrence(out["thread"], site))
    np.testing.assert_array_equal(out["request"], expected)
