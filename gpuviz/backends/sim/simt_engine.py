"""The vectorised engine: runs a kernel rewritten in the vector flavour for whole blocks at once.

Blocks become resident on virtual SMs up to the residency limit, in waves. Each block gets a start
time from the cost model: blocks on one SM are dispatched BLOCK_LAUNCH apart, a block of a later
wave starts when its slot frees (plus a seeded jitter, as memory latency varies run to run). Blocks
whose starts lie within one global-memory round trip of each other run as one batch in lockstep:
every lane reads before any lane of the batch writes, as many warps do on hardware before the first
store lands. A batch that starts later sees the earlier batches' stores.
"""

from __future__ import annotations

import time

import numpy as np

from gpuviz.backends.sim.device import VirtualDevice
from gpuviz.backends.sim.engine import Schedule
from gpuviz.backends.sim.simt_cost import BLOCK_LAUNCH, GLOBAL_WINDOW, LATE_JITTER, WarpClock
from gpuviz.backends.sim.simt_lanes import Lanes
from gpuviz.core.events import Notify, Progress, ignore
from gpuviz.core.launch import LaunchConfig

PROGRESS_EVERY = 0.1  # seconds between progress events
WARP = 32


class VectorExecutor:
    """One launch of a vector-flavour kernel function over all its blocks."""

    def __init__(self, fn, args: tuple, config: LaunchConfig, device: VirtualDevice, memory,
                 notify: Notify = ignore, shared_bytes: int = 0):  # fmt: skip
        self.fn, self.args, self.config, self.device, self.memory = fn, args, config, device, memory
        self.notify = notify
        self.per_sm = device.blocks_per_sm(config.threads_per_block, shared_bytes)
        n = config.threads
        self.result = Schedule(np.zeros(config.blocks, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int64))
        self._last_progress = 0.0
        self._layouts: dict[int, dict[str, np.ndarray]] = {}

    def run(self, seed: int = 0) -> Schedule:
        rng = np.random.default_rng(seed)
        sms = self.device.sm_count
        slots = sms * self.per_sm
        free_at = np.zeros(slots, np.int64)
        last_dispatch = np.full(sms, -BLOCK_LAUNCH, np.int64)  # an SM takes a new block every BLOCK_LAUNCH
        done, total = 0, self.config.blocks
        while done < total:
            count = min(slots, total - done)
            order = np.argsort(free_at, kind="stable")[:count]
            late = rng.integers(0, LATE_JITTER + 1, count) if done else np.zeros(count, np.int64)
            starts = self._dispatch(free_at[order], late, order % sms, last_dispatch)
            blocks = np.arange(done, done + count)
            self.result.block_sm[blocks] = order % sms
            free_at[order] = self._run_wave(blocks, starts)
            done += count
            self._progress(done, total)
        return self.result

    @staticmethod
    def _dispatch(ready: np.ndarray, late: np.ndarray, sm: np.ndarray, last_dispatch: np.ndarray) -> np.ndarray:
        """Start times of blocks dispatched in order: when their slot is ready and their SM can take one,
        plus how late this one is (seeded: later waves start unevenly, as memory latency varies)."""
        starts = np.empty_like(ready)
        for k in range(len(ready)):
            starts[k] = max(ready[k], last_dispatch[sm[k]] + BLOCK_LAUNCH) + late[k]
            last_dispatch[sm[k]] = starts[k]
        return starts

    def _run_wave(self, blocks: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Run one wave in generations of blocks that start close together; their end times."""
        ends = np.zeros(len(blocks), np.int64)
        by_start = np.argsort(starts, kind="stable")
        first = 0
        for k in range(1, len(by_start) + 1):
            if k == len(by_start) or starts[by_start[k]] > starts[by_start[first]] + GLOBAL_WINDOW:
                chosen = np.sort(by_start[first:k])
                ends[chosen] = self._run_batch(blocks[chosen], starts[chosen])
                first = k
        return ends

    def _run_batch(self, blocks: np.ndarray, starts: np.ndarray) -> np.ndarray:
        t = self._lanes(blocks, starts)
        self.memory.lanes = t
        self.fn(t, *self.args)
        ends = t.clock.finish()
        tpb = self.config.threads_per_block
        self.result.t_start[t.gid] = np.repeat(starts, tpb)
        self.result.t_end[t.gid] = ends
        return ends.reshape(len(blocks), tpb).max(axis=1)

    def _lanes(self, blocks: np.ndarray, starts: np.ndarray) -> Lanes:
        tpb = self.config.threads_per_block
        count = len(blocks)
        layout = self._layout(count)
        warps_per_block = -(-tpb // WARP)
        clock = WarpClock(layout["warp_key"], np.repeat(starts, warps_per_block))
        t = Lanes(count * tpb, clock)
        t.__dict__.update(layout)
        t.blocks, t.config = blocks.astype(np.int64), self.config
        t.gid = np.repeat(t.blocks * tpb, tpb) + layout["local"]
        t.ep = np.zeros(count * tpb, np.int32)
        t.n_warps, t.n_blocks, t.per_block, t.shared, t.warned = count * warps_per_block, count, tpb, {}, set()
        return t

    def _layout(self, count: int) -> dict[str, np.ndarray]:
        """Where each lane of a batch of `count` blocks sits: the same for every batch of that size."""
        cached = self._layouts.get(count)
        if cached is None:
            tpb = self.config.threads_per_block
            local = np.tile(np.arange(tpb, dtype=np.int64), count)
            blk = np.repeat(np.arange(count, dtype=np.int64), tpb)
            warp_in_block = local // WARP
            cached = self._layouts[count] = {
                "local": local, "blk": blk, "lane": local % WARP, "positions": np.arange(count * tpb),
                "warp_key": blk * -(-tpb // WARP) + warp_in_block, "warp_base": blk * tpb + warp_in_block * WARP,
                "warp_len": np.minimum(WARP, tpb - warp_in_block * WARP),
            }  # fmt: skip
        return cached

    def _progress(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done == total or now - self._last_progress >= PROGRESS_EVERY:
            self._last_progress = now
            self.notify(Progress(done, total))
