"""The race search's compiled passes (race_groups.py): which rows can race, on hand-made logs, by table and
by hash (test_race_pairs.py counts pairs against a brute-force count)."""

from __future__ import annotations

import numpy as np
import pytest

from gpuviz.core.analysis import race_groups
from gpuviz.core.analysis.race_count import Layout, racy_locations
from gpuviz.core.trace.columns import ACCESS_COLUMNS, ATOMIC, READ, WRITE, thread_layout
from gpuviz.core.trace.model import Trace

GRID, BLOCK, WARP = (2, 1, 1), (8, 1, 1), 4  # two blocks of two warps of four lanes
GLOBAL = {"name": "g", "space": "global", "dtype": "int64", "shape": [4]}
SHARED = {"name": "s", "space": "shared", "dtype": "int64", "shape": [4]}
READ_ONLY = {"name": "r", "space": "global", "dtype": "int64", "shape": [4]}


def epoch(block: int = 0, warp: int = 0, grid: int = 0) -> int:
    return block | grid << 16 | warp << 24


def log_trace(events: list[tuple], arrays: list[dict]) -> Trace:
    """A trace of (thread, array, index, kind, epoch) events in time order."""
    block_idx, thread_idx, warp, lane = thread_layout(GRID, BLOCK)
    n = len(warp)
    zeros = np.zeros(n, np.int64)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": np.zeros(n, np.int32), "t_start": zeros, "t_end": zeros}  # fmt: skip
    columns = list(zip(*events)) if events else [()] * 5
    given_columns = dict(zip(("thread", "array", "index", "kind", "epoch"), columns))
    accesses = {name: np.array(given_columns.get(name, [1] * len(events)), dtype) for name, dtype in
                ACCESS_COLUMNS.items()}  # fmt: skip
    meta = {"kernel": "k", "grid": list(GRID), "block": list(BLOCK), "arrays": arrays, "warnings": [],
            "warp_size": WARP}  # fmt: skip
    return Trace(meta=meta, threads=threads, accesses=accesses)


def pairable(events: list[tuple], arrays: list[dict], by_block: bool = True) -> list[int]:
    return Layout(log_trace(events, arrays)).pairable(by_block)[0].tolist()


def test_a_global_element_two_threads_touch_and_one_writes_can_race():
    events = [(0, 0, 1, READ, 0), (1, 0, 1, WRITE, 0), (2, 0, 2, WRITE, 0), (2, 0, 2, READ, 0), (3, 0, 3, READ, 0),
              (4, 0, 3, READ, 0)]  # fmt: skip
    assert pairable(events, [GLOBAL]) == [0, 1]  # element 2 is one thread's, element 3 is only read


def test_shared_copies_in_other_blocks_and_block_epochs_are_other_groups():
    events = [(0, 0, 1, WRITE, epoch(0)), (8, 0, 1, READ, epoch(0)),  # two blocks' own copies
              (1, 0, 2, WRITE, epoch(0)), (2, 0, 2, READ, epoch(1)),  # a barrier between them
              (3, 0, 3, WRITE, epoch(2)), (4, 0, 3, READ, epoch(2)), (5, 0, 3, READ, epoch(3))]  # fmt: skip
    assert pairable(events, [SHARED]) == [4, 5]
    # Described over the whole launch (races.py), the element is one group in every block and epoch.
    assert pairable(events, [SHARED], by_block=False) == [0, 1, 2, 3, 4, 5, 6]


def test_a_global_element_is_one_group_over_blocks_and_block_epochs():
    events = [(0, 0, 1, WRITE, epoch(0)), (9, 0, 1, READ, epoch(4))]
    assert pairable(events, [GLOBAL]) == [0, 1]


def test_grid_epochs_keep_groups_apart():
    events = [(0, 0, 1, WRITE, epoch(grid=0)), (9, 0, 1, READ, epoch(grid=1)), (3, 0, 2, WRITE, epoch(grid=1)),
              (12, 0, 2, WRITE, epoch(grid=1))]  # fmt: skip
    assert pairable(events, [GLOBAL]) == [2, 3]


def test_arrays_nobody_writes_are_not_looked_at():
    events = [(0, 0, 1, READ, 0), (1, 0, 1, READ, 0), (0, 1, 1, WRITE, 0), (1, 1, 1, READ, 0)]
    assert pairable(events, [READ_ONLY, GLOBAL]) == [2, 3]


def test_atomics_and_syncwarp_epochs_stay_candidates_and_count_no_pair():
    """The filter keeps a group two threads touch and someone writes; the count then finds two atomics, or
    two lanes that a syncwarp orders, race-free."""
    atomics = [(0, 0, 1, ATOMIC, 0), (1, 0, 1, ATOMIC, 0)]
    synced = [(0, 1, 2, WRITE, epoch(warp=0)), (1, 1, 2, READ, epoch(warp=1))]
    layout = Layout(log_trace(atomics + synced, [GLOBAL, SHARED]))
    assert layout.pairable(True)[0].tolist() == [0, 1, 2, 3]
    assert len(racy_locations(layout)) == 0
    other_warp = [(0, 1, 2, WRITE, epoch(warp=0)), (4, 1, 2, READ, epoch(warp=1))]  # no syncwarp orders warps
    assert racy_locations(Layout(log_trace(other_warp, [GLOBAL, SHARED]))).pairs.tolist() == [1]


def test_the_log_ranges_from_one_pass():
    events = [(0, 1, 3, READ, epoch(2, grid=1)), (9, 1, 1, WRITE, epoch(5)), (2, 0, 7, READ, 0)]
    ranges = Layout(log_trace(events, [GLOBAL, SHARED])).ranges
    assert (ranges.low.tolist(), ranges.high.tolist(), ranges.rows.tolist()) == ([7, 1], [7, 3], [1, 2])
    assert ranges.written.tolist() == [False, True] and ranges.top_block_epoch.tolist() == [0, 5]
    assert np.flatnonzero(ranges.written_phases[1]).tolist() == [5]
    assert (ranges.top_index, ranges.top_grid_epoch, ranges.top_thread) == (7, 1, 9)
    assert ranges.any_epoch and not ranges.any_fence


def test_a_wide_index_range_is_hashed_with_the_same_rows(monkeypatch):
    events = [(0, 0, 5, WRITE, 0), (1, 0, 5, READ, 0), (2, 0, 6, WRITE, 0), (3, 0, 7, READ, 0)]
    assert pairable(events, [GLOBAL]) == [0, 1]
    hashed = []
    monkeypatch.setattr(race_groups, "_hashed_groups", lambda *a: hashed.append(1) or _hashed(*a))
    wide = [(t, a, i << 40, k, e) for t, a, i, k, e in events]
    assert pairable(wide, [GLOBAL]) == [0, 1] and hashed


_hashed = race_groups._hashed_groups


@pytest.mark.parametrize("by_block", [True, False])
def test_an_empty_log_has_no_rows(by_block):
    assert pairable([], [GLOBAL, SHARED], by_block) == []
