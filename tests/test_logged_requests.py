"""The vector engine's warp requests (numbered as it logs) equal the ones grouped from the log's rows,
and the memory report is the same either way, on the race suite, the bench kernels and kernels whose
lanes skip executions of a site (where the engine hands no numbering over); the analyses' shortcuts
(rows that cannot pair, line counts) give what their general paths give, and the requests' costs are the
same with each request's rows together or scattered."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.core.analysis import banks, coalescing, race_count
from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.analysis.races import find_races
from gpuviz.core.analysis.requests import Requests, dense_ids, global_warp, group_requests

from .divergence_reference import line_counts
from .race_suite import CASES

BENCH = (Path(__file__).parents[1] / "bench" / "speed_kernels.py").read_text()
SKIPPING = """from numba import cuda
@cuda.jit
def k(a):
    i = cuda.grid(1)
    for r in range(3):
        if r > 0 or i % 3 == 0:  # lanes that skip the first execution of the site, then join
            a[i] += 1.0
"""
TWO_CALLS = """from numba import cuda
@cuda.jit(device=True)
def put(a, i):
    a[i] = 1.0

@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i % 2:
        put(a, i)  # one site reached from two calls: their lanes pair up by execution, not by call
    else:
        put(a, i)
"""


def _same_races(trace) -> None:
    """The race report counting every row of every array (no array, element or group left out first)
    is the same."""
    if trace.accesses is None or len(trace.accesses["thread"]) == 0:
        return
    counted = race_count._counted
    try:
        race_count._counted = _every_row
        every_row = find_races(trace, count_benign=True).to_json()
    finally:
        race_count._counted = counted
    assert find_races(trace, count_benign=True).to_json() == every_row


def _every_row(layout):
    ids, keys = race_count._element_ids(layout.element)
    return np.arange(len(ids)), ids, keys


def _same_line_counts(trace) -> None:
    """line_counts (packed keys counted at once) gives what numbering every row's pair gives."""
    thread, line = trace.accesses["thread"], trace.accesses["line"]
    pair, first = dense_ids(thread, line)
    expected = (thread[first].astype(np.int64), line[first].astype(np.int64), np.bincount(pair))
    for mine, theirs in zip(line_counts(trace), expected):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def _same_requests(trace, rows=None) -> None:
    grouped = group_requests(trace, rows)
    plain = group_requests(dataclasses.replace(trace, requests=None), rows)
    for name in ("of_row", "warp", "line", "array", "kind", "lanes"):
        mine, theirs = getattr(grouped, name), getattr(plain, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name


def _check(trace, handed_over: bool | None = None) -> None:
    assert trace.meta["engine"] == "vector", trace.meta.get("engine_note")
    _same_races(trace)
    if trace.accesses is not None and len(trace.accesses["thread"]):
        _same_line_counts(trace)
    if handed_over is not None:
        assert (trace.requests is not None) is handed_over
    if trace.requests is None or len(trace.accesses["thread"]) == 0:
        return
    _same_requests(trace)
    warp = global_warp(trace, trace.accesses["thread"])
    _same_requests(trace, np.flatnonzero(warp == warp[-1]))  # one warp's rows, as the warp detail asks
    assert memory_report(trace) == memory_report(dataclasses.replace(trace, requests=None))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_race_suite(case):
    tracer = gpuviz.trace(case.source, name="k", backend="sim", level="accesses", engine="vector")
    _check(tracer[case.grid, case.block](*case.make()))


@pytest.mark.parametrize(("name", "grid", "block", "args"), [
    ("vecadd", 8, 128, lambda: (np.arange(1000, dtype=np.float32),) * 2 + (np.zeros(1000, np.float32),)),
    ("tree_reduction", 8, 256, lambda: (np.ones(2048, np.float32), np.zeros(8, np.float32))),
    ("matmul_tiled", (2, 2), (16, 16), lambda: tuple(np.ones((32, 32), np.float32) for _ in range(3))),
])  # fmt: skip
def test_bench_kernels(name, grid, block, args):
    trace = gpuviz.trace(BENCH, name=name, backend="sim", level="accesses", engine="vector")[grid, block](*args())
    _check(trace, handed_over=True)


@pytest.mark.parametrize("source", [SKIPPING, TWO_CALLS], ids=["skipping", "two_calls"])
def test_lanes_that_skipped_an_execution_get_requests_from_the_rows(source):
    trace = gpuviz.trace(source, name="k", backend="sim", level="accesses", engine="vector")[2, 48](np.zeros(96))
    _check(trace, handed_over=False)
    assert memory_report(trace)["lines"]  # grouped from the rows


def _shuffled(requests: Requests, index: np.ndarray, seed: int) -> tuple[Requests, np.ndarray]:
    """The same requests with their rows in another order (no request's rows together any more)."""
    order = np.random.default_rng(seed).permutation(len(index))
    return dataclasses.replace(requests, of_row=requests.of_row[order], runs=None), index[order]


STRIDED = """from numba import cuda

@cuda.jit
def k(a, stride):
    i = cuda.grid(1)
    a[(i * stride) % a.size] += 1.0
"""


SKIPPING_STRIDED = SKIPPING.replace("def k(a)", "def k(a, stride)").replace("a[i]", "a[(i * stride) % a.size]")


@pytest.mark.parametrize("stride", [1, 2, 3, 8, 33])
@pytest.mark.parametrize("source", [STRIDED, SKIPPING_STRIDED], ids=["strided", "skipping"])
def test_costs_by_shortcut_equal_the_general_ones(source, stride):
    tracer = gpuviz.trace(source, name="k", backend="sim", level="accesses", engine="vector")
    trace = tracer[2, 48](np.zeros(96, np.float32), stride)
    requests = group_requests(trace, ordered=False)
    index = trace.accesses["index"]
    lane = trace.accesses["thread"] % 32
    cost, bank = coalescing.request_cost(trace, requests, index), banks.bank_cost(trace, requests, index, lane)
    shuffled, shuffled_index = _shuffled(requests, index, stride)
    general = coalescing.request_cost(trace, shuffled, shuffled_index)
    for name in ("sectors", "lines", "ideal"):
        assert np.array_equal(getattr(cost, name), getattr(general, name)), name
    shuffled_lane = trace.accesses["thread"][np.random.default_rng(stride).permutation(len(index))] % 32
    for mine, theirs in zip(bank, banks.bank_cost(trace, shuffled, shuffled_index, shuffled_lane)):
        assert np.array_equal(mine, theirs)
