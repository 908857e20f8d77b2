"""A second opinion on a trace's races, by brute force: every pair of accesses of one location, checked
against the rule of docs/races.md written out plainly (no packed keys, no pair counting). A kernel the
analysis passes as race-free is a true miss of the run, not of the analysis, when this finds no
unordered conflicting pair in its log either.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.columns import epoch_field
from gpuviz.core.trace.model import Trace

READ, WRITE, ATOMIC = 0, 1, 2


def first_conflict(trace: Trace) -> tuple[int, int] | None:
    """Rows (earlier, later) of the first unordered conflicting pair found in the log, or None."""
    acc = trace.accesses
    per_block = int(np.prod(trace.block))
    warp_size = int(trace.meta.get("warp_size", 32))
    shared = np.array([a["space"] == "shared" for a in trace.meta["arrays"]] + [False])
    thread = acc["thread"].astype(np.int64)
    block = thread // per_block
    # a location: array, element, and the block for shared arrays (each block has its own copy)
    copy = np.where(shared[acc["array"].astype(np.int64)], block, -1)
    index = acc["index"].astype(np.int64)
    location = (acc["array"].astype(np.int64) * (int(index.max()) + 1) + index) * (int(block.max()) + 2) + copy + 1
    _, group = np.unique(location, return_inverse=True)
    order = np.argsort(group, kind="stable")  # by location, in time order within one
    starts = np.searchsorted(group[order], np.arange(int(group.max()) + 2))
    epoch = acc["epoch"].astype(np.int64)
    columns = (thread, block, epoch_field(epoch, "grid"), epoch_field(epoch, "block"),
               thread % per_block // warp_size, epoch_field(epoch, "warp"), acc["kind"].astype(np.int64))  # fmt: skip
    for candidate in _shared_and_written(group, thread, acc["kind"]):
        rows = order[starts[candidate] : starts[candidate + 1]]
        found = _conflict_in(rows, *(column[rows] for column in columns))
        if found is not None:
            return found
    return None


def _shared_and_written(group: np.ndarray, thread: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Locations that two threads touch, with a plain write or an atomic beside a read: the only ones
    where a pair can conflict (two atomics never do)."""
    size = int(group.max()) + 1 if len(group) else 0
    low, high = np.full(size, np.iinfo(np.int64).max), np.full(size, -1)
    np.minimum.at(low, group, thread)
    np.maximum.at(high, group, thread)
    count = [np.bincount(group, weights=kind == k, minlength=size) > 0 for k in (READ, WRITE, ATOMIC)]
    return np.flatnonzero((low < high) & (count[1] | (count[0] & count[2])))


def _conflict_in(rows, thread, block, grid_epoch, block_epoch, warp, warp_epoch, kind):
    for j in range(1, len(rows)):
        before = slice(0, j)
        conflicting = (kind[before] != READ) | (kind[j] != READ)
        conflicting &= ~((kind[before] == ATOMIC) & (kind[j] == ATOMIC))
        same_block_epoch = (block[before] == block[j]) & (block_epoch[before] == block_epoch[j])
        warp_ordered = (warp[before] == warp[j]) & (warp_epoch[before] != warp_epoch[j])
        unordered = (grid_epoch[before] == grid_epoch[j]) & (
            (block[before] != block[j]) | (same_block_epoch & ~warp_ordered)
        )
        hits = np.flatnonzero(conflicting & unordered & (thread[before] != thread[j]))
        if len(hits):
            return int(rows[hits[0]]), int(rows[j])
    return None
