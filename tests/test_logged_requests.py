"""The vector engine's warp requests (numbered as it logs) equal the ones grouped from the log's rows,
and the memory report is the same either way, on the race suite, the bench kernels and kernels whose
lanes skip executions of a site (where the engine hands no numbering over)."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.analysis.requests import global_warp, group_requests

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


def _same_requests(trace, rows=None) -> None:
    grouped = group_requests(trace, rows)
    plain = group_requests(dataclasses.replace(trace, requests=None), rows)
    for name in ("of_row", "warp", "line", "array", "kind", "lanes"):
        mine, theirs = getattr(grouped, name), getattr(plain, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name


def _check(trace, handed_over: bool | None = None) -> None:
    assert trace.meta["engine"] == "vector", trace.meta.get("engine_note")
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
    _check(gpuviz.trace(case.source, name="k", backend="sim", level="accesses")[case.grid, case.block](*case.make()))


@pytest.mark.parametrize(("name", "grid", "block", "args"), [
    ("vecadd", 8, 128, lambda: (np.arange(1000, dtype=np.float32),) * 2 + (np.zeros(1000, np.float32),)),
    ("tree_reduction", 8, 256, lambda: (np.ones(2048, np.float32), np.zeros(8, np.float32))),
    ("matmul_tiled", (2, 2), (16, 16), lambda: tuple(np.ones((32, 32), np.float32) for _ in range(3))),
])  # fmt: skip
def test_bench_kernels(name, grid, block, args):
    trace = gpuviz.trace(BENCH, name=name, backend="sim", level="accesses")[grid, block](*args())
    _check(trace, handed_over=True)


@pytest.mark.parametrize("source", [SKIPPING, TWO_CALLS], ids=["skipping", "two_calls"])
def test_lanes_that_skipped_an_execution_get_requests_from_the_rows(source):
    trace = gpuviz.trace(source, name="k", backend="sim", level="accesses")[2, 48](np.zeros(96))
    _check(trace, handed_over=False)
    assert memory_report(trace)["lines"]  # grouped from the rows
