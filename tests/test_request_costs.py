"""The memory report's compiled passes on small hand-made requests with known costs: sectors, lines and
ideal sectors of global requests, bank conflicts and wavefronts of shared ones, turns of constant ones,
the engine's request numbers' runs, and divergence warp by warp (held equal to the NumPy paths from the
rows, tests/divergence_reference.py)."""

import numpy as np
import pytest

import gpuviz
from gpuviz.core.analysis import divergence
from gpuviz.core.analysis.memory_units import CONST, GLOBAL, SHARED
from gpuviz.core.analysis.path_counts import path_counts
from gpuviz.core.analysis.request_costs import request_costs, request_runs
from gpuviz.core.analysis.requests import group_requests

from .divergence_reference import line_counts, warp_paths
from .race_suite import CASES

LANES = np.arange(32)


def costs(space: int, width: int, *requests: np.ndarray, together: bool = True) -> list[tuple[int, int, int]]:
    """(a, b, c) of each request (its elements, one row a lane), rows together or interleaved."""
    index = np.concatenate(requests).astype(np.int64)
    of_row = np.repeat(np.arange(len(requests)), [len(r) for r in requests])
    lane = np.concatenate([np.arange(len(r)) for r in requests])
    first = np.cumsum([0] + [len(r) for r in requests[:-1]])
    spans = first, first + [len(r) for r in requests]
    if not together:  # the rows dealt out in a fixed shuffle: the costs must not depend on it
        order = np.random.default_rng(0).permutation(len(index))
        index, of_row, lane, spans = index[order], of_row[order], lane[order], None
    n = len(requests)
    a, b, c = request_costs(of_row, n, spans, index, lane, np.full(n, space), np.full(n, width))
    return list(zip(a.tolist(), b.tolist(), c.tolist()))


@pytest.mark.parametrize("together", [True, False])
def test_global_sectors_lines_and_ideal(together):
    found = costs(GLOBAL, 4, LANES, 2 * LANES, np.zeros(32), LANES[::-1], 8 * LANES, together=together)
    assert found == [(4, 1, 4), (8, 2, 4), (1, 1, 1), (4, 1, 4), (32, 8, 4)]
    assert costs(GLOBAL, 8, LANES, together=together) == [(8, 2, 8)]  # float64: 256 bytes
    assert costs(GLOBAL, 4, LANES + 4, together=together) == [(5, 2, 4)]  # 16 bytes off: one sector more


@pytest.mark.parametrize("together", [True, False])
def test_shared_one_word_conflicts(together):
    broadcast, stride_2, column = np.full(32, 7), 2 * LANES, 32 * LANES
    halves = np.tile(16 * np.arange(16), 2)  # a 16x16 tile's column read by two rows of lanes: banks 0 and 16
    found = costs(SHARED, 4, LANES, broadcast, stride_2, column, halves, LANES[::-1], together=together)
    assert found == [(1, 1, 1), (1, 1, 1), (2, 2, 1), (32, 32, 1), (8, 8, 1), (1, 1, 1)]
    assert costs(SHARED, 1, LANES, together=together) == [(1, 1, 1)]  # four bytes share a word
    # bank 8 serves five words: two below the first lane's, one far above it, each asked for twice
    far = np.array([5000, 4968, 4936, 5032, 5000 + 32 * 200, 4968, 5032, 5000 + 32 * 200] + [5000] * 24)
    assert costs(SHARED, 4, far, together=together) == [(5, 5, 1)]


def test_shared_one_word_conflicts_equal_distinct_words_per_bank():
    """Random requests, words near and far apart: the busiest bank's distinct words, as sets count them."""
    rng = np.random.default_rng(7)
    requests = [rng.integers(0, high, 32) for high in (8, 64, 300, 5000, 20000, 1 << 20) for _ in range(20)]
    expected = [max(len({w for w in r if w % 32 == bank}) for bank in range(32)) for r in requests]
    assert [a for a, _, _ in costs(SHARED, 4, *requests)] == expected


@pytest.mark.parametrize("together", [True, False])
def test_shared_wide_elements_are_served_in_phases(together):
    # float64: two words a lane, half-warps served apart; 16 elements apart: every lane's words in banks 0-1
    assert costs(SHARED, 8, LANES, 16 * LANES, together=together) == [(1, 2, 2), (16, 32, 2)]
    # 128-bit: quarter-warps; consecutive elements fill the 32 banks once a phase
    assert costs(SHARED, 16, LANES, together=together) == [(1, 4, 4)]
    assert costs(SHARED, 8, LANES[:16], together=together) == [(1, 1, 1)]  # one half-warp: one phase


def test_constant_turns_are_distinct_addresses():
    assert costs(CONST, 4, np.full(32, 3), LANES, LANES // 16, LANES[::-1] % 4) == [
        (1, 0, 0), (32, 0, 0), (2, 0, 0), (4, 0, 0)]  # fmt: skip


def test_requests_of_no_space_cost_nothing():
    index = np.arange(64)
    found = request_costs(np.repeat([0, 1], 32), 2, None, index, index, np.array([-1, GLOBAL]), np.array([4, 4]))
    assert [list(v) for v in found] == [[0, 4], [0, 1], [0, 4]]


def test_runs_of_the_engines_numbers():
    logged = np.array([2, 2, 0, 0, 0, 2, 3], np.int32)
    thread, line = np.array([0, 1, 32, 33, 34, 2, 64]), np.arange(10, 17)
    runs, first, lanes, fields = request_runs(logged, thread, line, line * 0, line * 0 + 1, 64, 2)
    assert runs == 4 and first.tolist() == [2, -1, 0, 6] and lanes.tolist() == [3, 0, 3, 1]
    assert fields[:2].tolist() == [[1, 0, 0, 2], [12, 0, 10, 16]]  # warp (64-thread blocks) and line of first rows


SPLIT = """from numba import cuda
@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i % 3 == 0:
        a[i] = 1
    for r in range(i % 4):
        a[i] += 2
"""


def _numpy_paths(trace):
    return warp_paths(trace, line_counts(trace))


@pytest.mark.parametrize("case", [c for c in CASES if c.divergent][:6] + CASES[:4], ids=lambda c: c.name)
def test_paths_equal_the_numpy_paths_from_the_rows(case):
    trace = gpuviz.trace(case.source, name="k", backend="sim", level="accesses")[case.grid, case.block](*case.make())
    _same_paths(trace)


@pytest.mark.parametrize(("grid", "block"), [(2, 48), (3, 64), (1, 20)])
def test_paths_and_split_lines_of_a_hand_checked_kernel(grid, block):
    trace = gpuviz.trace(SPLIT, name="k", backend="sim", level="accesses")[grid, block](np.zeros(grid * block))
    paths = _same_paths(trace)
    assert (paths == 8).all()  # (i % 3 == 0, i % 4): every warp has twelve lanes in a row, all 8 pairs
    lines = divergence.divergence(trace)["lines"]
    assert [(line["line"], line["warps"], line["split_warps"]) for line in lines] == [
        (6, len(paths), len(paths)),
        (8, len(paths), len(paths)),
    ]


def _same_paths(trace) -> np.ndarray:
    requests = group_requests(trace, ordered=False)
    per_block = int(np.prod(trace.block))
    paths, _, _, _ = path_counts(requests, trace.accesses["thread"], divergence.lanes_per_warp(trace), per_block)
    np.testing.assert_array_equal(paths, _numpy_paths(trace))
    return paths
