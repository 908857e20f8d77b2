"""The order a device-wide threadfence and an atomic give between blocks (the "last block" pattern).

Thread A writes, passes a `threadfence`, then updates an element X atomically; a block whose own atomic
update of X comes later in X's order sees A's write: its thread made that update before the access, or
another thread of the block made it before a `syncthreads` the accessing thread passed since. NVIDIA's
threadFenceReduction sample and the CUDA programming guide's sum rely on exactly this. Without the fence
(or with `threadfence_block`) nothing orders the write for another block, and the pair races.

Only accesses before a thread's first fence are ordered this way (the epoch keeps one fence flag): what
a thread does between two fences stays unordered, so a race may be over-reported, never missed. A trace
whose accesses carry no fence flag (GPU recordings) gets no such order.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.columns import ATOMIC, epoch_field

MAX_CELLS = 1 << 24  # accesses x atomics (or x accesses) compared at once; past it, no order is given


class FenceOrder:
    """Which pairs of a location's accesses a fence and an atomic order, for one launch's trace."""

    def __init__(self, element: np.ndarray, thread: np.ndarray, kind: np.ndarray, epoch: np.ndarray, per_block: int):
        self.element, self.thread, self.per_block = element, thread.astype(np.int64), per_block
        self.fenced = epoch_field(epoch, "fence").astype(bool)
        self.block_epoch = epoch_field(epoch.astype(np.int64), "block")
        self.atomics = np.flatnonzero(kind == ATOMIC)
        released = self.atomics[self.fenced[self.atomics]]  # atomics after their thread's first fence
        threads, first = np.unique(self.thread[released], return_index=True)
        self.release = dict(zip(threads.tolist(), released[first].tolist()))  # thread: its first such atomic

    @classmethod
    def of(cls, element: np.ndarray, acc: dict, per_block: int) -> FenceOrder | None:
        """The order, or None when no access of the trace came after a fence (nothing to order)."""
        if not (acc["epoch"] & (1 << 30)).any():
            return None
        return cls(element, acc["thread"], acc["kind"], acc["epoch"], per_block)

    def ordered(self, rows: np.ndarray) -> np.ndarray | None:
        """[i, j]: row i, earlier, is ordered before row j, of another block (rows of one location in time
        order); None when the location is too large to compare pair by pair."""
        n = len(rows)
        if n * n > MAX_CELLS:
            return None
        thread = self.thread[rows]
        block = thread // self.per_block
        release = np.array([-1 if self.fenced[r] else self.release.get(int(t), -1) for r, t in zip(rows, thread)])
        out = np.zeros((n, n), bool)
        for x in np.unique(self.element[release[release >= 0]]):
            latest = self._latest_seen(rows, thread, block, self.atomics[self.element[self.atomics] == x])
            if latest is None:
                return None
            source = (release >= 0) & (self.element[np.maximum(release, 0)] == x)
            out |= source[:, None] & (latest[None, :] > release[:, None]) & (block[:, None] != block[None, :])
        return np.triu(out, 1)

    def _latest_seen(self, rows, thread, block, updates: np.ndarray) -> np.ndarray | None:
        """Per row: the latest of these atomic updates that its own block made before it (-1: none)."""
        if len(rows) * len(updates) > MAX_CELLS:
            return None
        by = self.thread[updates]
        same_block = (by // self.per_block)[None, :] == block[:, None]
        own = (by[None, :] == thread[:, None]) & (updates[None, :] < rows[:, None])
        passed = self.block_epoch[updates][None, :] < self.block_epoch[rows][:, None]  # a barrier since
        seen = same_block & (own | ((by[None, :] != thread[:, None]) & passed))
        return np.where(seen, updates[None, :], -1).max(axis=1, initial=-1)
