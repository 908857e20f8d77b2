"""The order a device-wide threadfence and an atomic give between blocks (the "last block" pattern).

Thread A writes, passes a `threadfence`, then updates an element X atomically; a block whose own atomic
update of X comes later in X's order sees A's write: its thread made that update before the access, or
another thread of the block made it before a `syncthreads` the accessing thread passed since. NVIDIA's
threadFenceReduction sample and the CUDA programming guide's sum rely on exactly this. Without the fence
(or with `threadfence_block`) nothing orders the write for another block, and the pair races.

Only accesses before a thread's first fence are ordered this way (the epoch keeps one fence flag): what
a thread does between two fences stays unordered, so a race may be over-reported, never missed. A trace
whose accesses carry no fence flag gets no such order.

Which atomic update of X came later is the log's order on the simulator. A GPU trace's rows are in order of
%globaltimer readings taken on different SMs after each atomic returned, so two updates of one element close
in time may be logged in either order; its meta names the lines whose atomics add a positive constant
(`counting_lines`): an element updated only there took each value once, in increasing order, so its updates
are ordered by the values they left (when those are all distinct).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpuviz.core.trace.columns import ATOMIC, epoch_field

MAX_CELLS = 1 << 24  # accesses x atomics (or x accesses) compared at once; past it, no order is given


class FenceOrder:
    """Which pairs of a location's accesses a fence and an atomic order, for one launch's trace."""

    def __init__(self, element: np.ndarray, thread: np.ndarray, kind: np.ndarray, epoch: np.ndarray, per_block: int,
                 rank: np.ndarray | None = None):  # fmt: skip
        self.element, self.thread, self.per_block = element, thread.astype(np.int64), per_block
        self.fenced = epoch_field(epoch, "fence").astype(bool)
        self.block_epoch = epoch_field(epoch.astype(np.int64), "block")
        self.atomics = np.flatnonzero(kind == ATOMIC)
        # An atomic row's place in its element's order of updates (the row itself unless told otherwise).
        self.rank = np.arange(len(element)) if rank is None else rank
        released = self.atomics[self.fenced[self.atomics]]  # atomics after their thread's first fence
        threads, first = np.unique(self.thread[released], return_index=True)
        self.release = dict(zip(threads.tolist(), released[first].tolist()))  # thread: its first such atomic

    @classmethod
    def of(cls, elements: Callable[[], np.ndarray], acc: dict, per_block: int,
           counting_lines: list[int] | None = None) -> FenceOrder | None:  # fmt: skip
        """The order, or None when no access of the trace came after a fence (nothing to order).
        `elements()`: every access's element key, asked for only where a fence was passed (most
        launches never build that column); `counting_lines`: lines whose atomics add a positive
        constant (a GPU trace's meta names them)."""
        if not (acc["epoch"] & (1 << 30)).any():
            return None
        element = elements()
        rank = None
        if counting_lines:
            rank = update_rank(element, acc["kind"], acc["value"], np.isin(acc["line"], counting_lines))
        return cls(element, acc["thread"], acc["kind"], acc["epoch"], per_block, rank)

    def ordered(self, rows: np.ndarray) -> np.ndarray | None:
        """[i, j]: row i, earlier, is ordered before row j, of another block (rows of one location in time
        order); None when the location is too large to compare pair by pair."""
        n = len(rows)
        if n * n > MAX_CELLS:
            return None
        thread = self.thread[rows]
        block = thread // self.per_block
        release = np.array([-1 if self.fenced[r] else self.release.get(int(t), -1) for r, t in zip(rows, thread)])
        released = np.where(release >= 0, self.rank[np.maximum(release, 0)], -1)
        out = np.zeros((n, n), bool)
        for x in np.unique(self.element[release[release >= 0]]):
            latest = self._latest_seen(rows, thread, block, self.atomics[self.element[self.atomics] == x])
            if latest is None:
                return None
            source = (release >= 0) & (self.element[np.maximum(release, 0)] == x)
            out |= source[:, None] & (latest[None, :] > released[:, None]) & (block[:, None] != block[None, :])
        return np.triu(out, 1)

    def _latest_seen(self, rows, thread, block, updates: np.ndarray) -> np.ndarray | None:
        """Per row: the rank of the latest of these atomic updates that its own block made before it (-1: none)."""
        if len(rows) * len(updates) > MAX_CELLS:
            return None
        by = self.thread[updates]
        same_block = (by // self.per_block)[None, :] == block[:, None]
        own = (by[None, :] == thread[:, None]) & (updates[None, :] < rows[:, None])
        passed = self.block_epoch[updates][None, :] < self.block_epoch[rows][:, None]  # a barrier since
        seen = same_block & (own | ((by[None, :] != thread[:, None]) & passed))
        return np.where(seen, self.rank[updates][None, :], -1).max(axis=1, initial=-1)


def update_rank(element: np.ndarray, kind: np.ndarray, value: np.ndarray, counting: np.ndarray) -> np.ndarray:
    """Per row, its place in time; an atomic row of an element whose atomic rows are all `counting` (they
    add a positive constant) and left distinct values takes the place of its value among them instead:
    the update that left the least value takes the element's first atomic row's place, and so on."""
    rank = np.arange(len(element))
    atomics = np.flatnonzero(kind == ATOMIC)
    if not len(atomics):
        return rank
    el, val = element[atomics], value[atomics]
    by_row = atomics[np.argsort(el, kind="stable")]
    by_value = np.lexsort((val, el))
    el_sorted, val_sorted = el[by_value], val[by_value]
    starts = np.flatnonzero(np.r_[True, el_sorted[1:] != el_sorted[:-1]])
    group = np.cumsum(np.r_[True, el_sorted[1:] != el_sorted[:-1]]) - 1
    repeated = np.r_[False, (el_sorted[1:] == el_sorted[:-1]) & (val_sorted[1:] == val_sorted[:-1])]
    bad = np.zeros(len(starts), bool)
    np.logical_or.at(bad, group, repeated | ~counting[atomics][by_value])
    keep = ~bad[group]
    rank[atomics[by_value][keep]] = by_row[keep]
    return rank
