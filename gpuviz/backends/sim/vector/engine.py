"""The vectorised engine: runs a kernel rewritten in the vector flavour for whole blocks at once.

Blocks become resident on virtual SMs up to the residency limit. Each block gets a start time from
the cost model: the GPU's block scheduler hands out blocks in block order, one every DISPATCH_GAP
cycles, each to the slot that frees first; a block starts a seeded jitter after its dispatch (run to
run variation). Blocks whose starts lie within BATCH_WINDOW of each other run as one batch in
lockstep. Batches run interleaved in time: the kernel pauses before every load and around every
store and atomic, and the batch whose earliest running warp is earliest goes on, so memory is read
and written in the order of the warps' clocks: a load sees exactly the stores issued before it.
Launches whose blocks share no memory run in large groups instead (vector/independent.py) and get
the same trace.
"""

from __future__ import annotations

import functools
import heapq
import itertools

import numpy as np

from gpuviz.backends.sim.device import VirtualDevice
from gpuviz.backends.sim.reference.engine import Schedule
from gpuviz.backends.sim.vector.cost import BATCH_WINDOW, DISPATCH_GAP, LATE_JITTER, WarpClock, issue_share
from gpuviz.backends.sim.vector.lanes import Lanes
from gpuviz.core.events import Notify, ignore
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.progress import BlockProgress

WARP = 32


class _Batch:
    """Blocks that run in lockstep: their lanes, the kernel's generator, where they sit."""

    def __init__(self, t: Lanes, gen, blocks: np.ndarray, starts: np.ndarray, slots: list[int]):
        self.t, self.gen, self.blocks, self.starts, self.slots = t, gen, blocks, starts, slots
        self.ends = starts

    def now(self) -> int:
        return self.t.clock.earliest()


class VectorExecutor:
    """One launch of a vector-flavour kernel function over all its blocks."""

    block_starts: np.ndarray | None = None  # grouped runs (vector/independent.py): each block's start
    groups = 1  # lockstep groups run one after the other (grouped runs): more than one, the log is sorted

    def __init__(self, fn, args: tuple, config: LaunchConfig, device: VirtualDevice, memory,
                 notify: Notify = ignore, shared_bytes: int = 0):  # fmt: skip
        self.fn, self.args, self.config, self.device, self.memory = fn, args, config, device, memory
        self.notify = notify
        self.per_sm = device.blocks_per_sm(config.threads_per_block, shared_bytes)
        n = config.threads
        self.result = Schedule(np.zeros(config.blocks, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int64))
        self.progress = BlockProgress(notify, config.blocks)
        self.total, self.tpb = config.blocks, config.threads_per_block
        self.order = itertools.count()  # ties in the queue of running batches go first come first
        warps_per_block = -(-config.threads_per_block // WARP)
        resident_blocks = min(self.per_sm, -(-config.blocks // device.sm_count))
        self.share = issue_share(resident_blocks * warps_per_block, device.schedulers_per_sm)

    def run(self, seed: int = 0) -> Schedule:
        """Batches run interleaved in time order: at every pause (before each load, around each store
        and atomic) the batch whose clock is earliest goes on, and blocks are dispatched as slots free."""
        sms = self.device.sm_count
        slots = sms * self.per_sm
        total = self.config.blocks
        late = np.random.default_rng(seed).integers(0, LATE_JITTER + 1, total)
        late = late.tolist()  # read one at a time: plain ints are faster
        free = [(0, slot) for slot in range(slots)]  # (time the slot is free, slot); slot % sms is its SM
        last_dispatch = [-DISPATCH_GAP]  # the GPU's block scheduler hands out one block every DISPATCH_GAP
        running: list[tuple[int, int, _Batch]] = []
        next_block, done = 0, 0
        while done < total:
            start = self._next_start(free, last_dispatch, late, next_block) if next_block < total else None
            if start is not None and (not running or start <= running[0][0]):
                batch = self._admit(free, last_dispatch, late, next_block, sms)
                next_block += len(batch.blocks)
            else:
                _, _, batch = heapq.heappop(running)
            if not self._go_on(batch, running, start):
                done += len(batch.blocks)
                for slot, end in zip(batch.slots, batch.ends.tolist()):
                    heapq.heappush(free, (end, slot))
                self.progress.finished(len(batch.blocks))
        return self.result

    def _go_on(self, batch: _Batch, running: list, start: float | None) -> bool:
        """Run a batch until another may go first (it is queued again) or it finishes (False)."""
        while self._step(batch):
            now = batch.now()
            if (running and now >= running[0][0]) or (start is not None and now >= start):
                heapq.heappush(running, (now, next(self.order), batch))
                return True
            # no other batch can go between: it goes on without a trip through the queue
        return False

    def _next_start(self, free, last_dispatch, late, block: int) -> float | None:
        if not free:
            return None
        return self._dispatch_time(free, last_dispatch) + late[block]

    @staticmethod
    def _dispatch_time(free, last_dispatch) -> float:
        return max(free[0][0], last_dispatch[0] + DISPATCH_GAP)

    def _admit(self, free, last_dispatch, late, first: int, sms: int) -> _Batch:
        """The next blocks that start within BATCH_WINDOW of the first: one lockstep batch."""
        starts, slots = [], []
        block, limit, dispatched = first, None, last_dispatch[0]
        while block < self.total and free:
            dispatched_next = max(free[0][0], dispatched + DISPATCH_GAP)  # as _dispatch_time
            start = dispatched_next + late[block]
            if limit is None:
                limit = start + BATCH_WINDOW
            elif start > limit:
                break
            dispatched = dispatched_next
            slots.append(heapq.heappop(free)[1])
            starts.append(start)
            block += 1
        last_dispatch[0] = dispatched
        blocks, starts = np.arange(first, block, dtype=np.int64), np.array(starts, np.int64)
        self.result.block_sm[blocks] = np.array(slots) % sms
        t = self._lanes(blocks, starts)
        return _Batch(t, self.fn(t, *self.args), blocks, starts, slots)

    def _step(self, batch: _Batch) -> bool:
        """Run a batch to its next pause; False when it has finished (its ends are then set)."""
        self.memory.lanes = batch.t
        try:
            next(batch.gen)
            return True
        except StopIteration:
            pass
        t, tpb = batch.t, self.tpb
        ends = t.clock.finish()
        lanes = slice(int(batch.blocks[0]) * tpb, (int(batch.blocks[-1]) + 1) * tpb)  # a batch's blocks are consecutive
        self.result.t_start[lanes].reshape(len(batch.blocks), tpb)[:] = batch.starts[:, None]
        self.result.t_end[lanes] = ends
        batch.ends = ends.reshape(len(batch.blocks), tpb).max(axis=1)
        return False

    def _lanes(self, blocks: np.ndarray, starts: np.ndarray) -> Lanes:
        tpb = self.tpb
        count = len(blocks)
        layout = self._layout(count)
        warps_per_block = -(-tpb // WARP)
        clock = WarpClock(layout["warp_key"], np.repeat(starts, warps_per_block), self.share, warps_per_block)
        t = Lanes(count * tpb, clock)
        t.local_types = self.memory.local_types
        t.__dict__.update(layout)
        t.blocks, t.config = blocks.astype(np.int64), self.config
        t.first_block = int(blocks[0])  # a batch's blocks are consecutive
        t.ep = np.zeros(count * tpb, np.int32)
        t.n_warps, t.n_blocks, t.per_block, t.shared, t.warned = count * warps_per_block, count, tpb, {}, set()
        return t

    def _layout(self, count: int) -> dict[str, np.ndarray]:
        """Where each lane of a batch of `count` blocks sits: a prefix of the layout of the largest batch."""
        tpb = self.tpb
        most = max(count, min(self.total, self.device.sm_count * self.per_sm))
        full = _full_layout(tpb, most)
        return {name: values[: count * tpb] for name, values in full.items()}


@functools.lru_cache(maxsize=2)
def _full_layout(tpb: int, blocks: int) -> dict[str, np.ndarray]:
    """Lane positions for `blocks` blocks of `tpb` threads (kept for the next launch of the same shape)."""
    local = np.tile(np.arange(tpb, dtype=np.int64), blocks)
    blk = np.repeat(np.arange(blocks, dtype=np.int64), tpb)
    warp_in_block = local // WARP
    layout = {
        "local": local, "blk": blk, "lane": local % WARP, "positions": np.arange(blocks * tpb),
        "warp_key": blk * -(-tpb // WARP) + warp_in_block, "warp_base": blk * tpb + warp_in_block * WARP,
        "warp_len": np.minimum(WARP, tpb - warp_in_block * WARP),
    }  # fmt: skip
    for values in layout.values():
        values.flags.writeable = False  # shared by every batch and launch of this shape
    return layout
