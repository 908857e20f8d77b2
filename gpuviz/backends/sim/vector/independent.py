"""Blocks that share no memory run in large groups, then take their places on the SMs.

When no block reads or writes an element another block writes (vector/sharing.py watches), the order in
which blocks run changes nothing they compute, and a block's timeline depends only on its own
instructions: every warp clock is its block's start plus what the block issued. So the engine runs
groups of GROUP_LANES lanes in lockstep, every block from time 0, and then places the blocks with the
GPU's dispatch rule (vector/engine.py): in block order, each to the slot that frees first, one every
DISPATCH_GAP cycles, after its seeded late start. Thread times and access times are shifted by their
block's start. The interleaved run gives the same values, durations and accesses, and in every launch
compared the same starts (in principle it can hand a later block a slot a few cycles late: it learns a
block's end only when that block's batch finishes).
"""

from __future__ import annotations

import heapq

import numpy as np

from gpuviz.backends.sim.reference.engine import Schedule
from gpuviz.backends.sim.vector.cost import DISPATCH_GAP, LATE_JITTER
from gpuviz.backends.sim.vector.engine import VectorExecutor

GROUP_LANES = 1 << 16  # lanes run in one lockstep group: large enough that NumPy's per-call cost fades


class IndependentExecutor(VectorExecutor):
    """One launch whose blocks share no memory (BlocksShareMemory stops it when they turn out to)."""

    def run(self, seed: int = 0) -> Schedule:
        durations = self._run_groups()
        starts, slots = self._place(durations, seed)
        self.result.block_sm[:] = slots % self.device.sm_count
        lane_starts = np.repeat(starts, self.tpb)
        self.result.t_start[:] = lane_starts
        self.result.t_end += lane_starts
        self.block_starts = starts
        return self.result

    def _run_groups(self) -> np.ndarray:
        """Every block from time 0: each block's duration; the lanes' ends (from 0) in the result."""
        total, tpb = self.total, self.tpb
        per_group = max(1, GROUP_LANES // tpb)
        self.groups = -(-total // per_group)  # more than one: the access log is sorted by time afterwards
        durations = np.zeros(total, np.int64)
        for first in range(0, total, per_group):
            blocks = np.arange(first, min(total, first + per_group), dtype=np.int64)
            t = self._lanes(blocks, np.zeros(len(blocks), np.int64))
            self.memory.lanes = t
            for _ in self.fn(t, *self.args):
                pass  # pauses let interleaved batches take turns; a group has no one to wait for
            ends = t.clock.finish()
            self.result.t_end[first * tpb : (first + len(blocks)) * tpb] = ends
            durations[blocks] = ends.reshape(len(blocks), tpb).max(axis=1)
            self.progress.finished(len(blocks))
        return durations

    def _place(self, durations: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
        return place_blocks(durations, seed, self.device.sm_count * self.per_sm)


def place_blocks(durations: np.ndarray, seed: int, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """Each block's start and slot (slot % SMs is its SM): dispatched in block order to the slot that frees
    first, one every DISPATCH_GAP cycles, after its seeded late start."""
    total = len(durations)
    late = np.random.default_rng(seed).integers(0, LATE_JITTER + 1, total).tolist()
    # slots free at 0 go in slot order: a launch smaller than the device needs only its first ones
    free = [(0, slot) for slot in range(min(total, slots))]
    starts, slots_of = [0] * total, [0] * total
    dispatched = -DISPATCH_GAP
    for block, duration in enumerate(durations.tolist()):
        free_at, slot = heapq.heappop(free)
        dispatched = max(free_at, dispatched + DISPATCH_GAP)
        start = int(dispatched + late[block])
        heapq.heappush(free, (start + duration, slot))
        starts[block], slots_of[block] = start, slot
    return np.array(starts, np.int64), np.array(slots_of, np.int64)
