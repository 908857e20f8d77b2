"""The cost model: how many cycles (`tick`s) each warp instruction takes in the vectorised engine.

Every warp has a clock. An instruction issued with any lane of the warp active advances it by the
instruction's cost, so a divergent warp pays for both paths and lasts as long as its slowest lane;
a lane's end time is its warp's clock when it returned. Atomics to one address serialise. Warps
hide each other's memory latency (their clocks run side by side), but they share their SM's warp
schedulers: an arithmetic or branch instruction takes `issue_share` cycles per cycle of its cost,
the resident warps of an SM over its schedulers (64 warps on 4 schedulers: 16x), so compute-bound
kernels slow down with occupancy and memory-bound ones do not.

Constants (cycles, H100/H200 class), measured on an H100 80GB HBM3 on 2026-11-23 by
bench/gpu_latency.py (%clock64 microbenchmarks, two runs; the mean is used), before any race
comparison with them:
- global load 308 (runs: 313, 304): pointer chasing through 512 MiB, every load an HBM miss;
- shared load 42 (42, 42): pointer chasing through a shared array; shared stores and local
  arrays (L1, the same SRAM on Hopper) are charged the same;
- atomic 152 (151, 152): dependent atomic adds to one address, a round trip to L2;
- barrier 116 (116, 116): `syncthreads` in a loop, 32 warps;
- block dispatch 196 (199, 194): the median gap between block starts on one SM while all 132 SMs
  take blocks, i.e. the GPU's block scheduler hands out one block every 196 / 132 = 1.5 cycles.
Not measured, from published figures: 4 warp schedulers per SM (compute capability 7.0-9.0 tables),
about 4 cycles for a dependent arithmetic instruction and ~30 for a shuffle (arXiv 2402.13499,
Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture"); a store issues and
the warp goes on (8). Assumed: 4 cycles per earlier lane on one address for atomics, and the
seeded late start of a block (up to half a global load). docs/simulator.md has the table; any
constant changed after seeing a race result is listed in docs/races.md.
"""

from __future__ import annotations

import functools

import numpy as np

COSTS = {
    "alu": 4,  # an assignment: a few dependent arithmetic instructions
    "branch": 4,  # a condition or a loop test
    "global_load": 308,
    "global_store": 8,
    "shared_load": 42,
    "shared_store": 42,
    "local_load": 42,  # local arrays live in registers or L1 (the shared memory's SRAM)
    "local_store": 8,
    "atomic": 152,
    "barrier": 116,
    "collective": 30,
}
ATOMIC_SERIAL = 4  # per earlier lane on the same address
BLOCK_LAUNCH = 196  # between two blocks' starts on one SM with all 132 SMs of an H100 taking blocks
DISPATCH_GAP = BLOCK_LAUNCH / 132  # so the GPU's block scheduler hands out one block every 1.5 cycles
BATCH_WINDOW = 16  # blocks starting this close run in lockstep: far less than any memory latency
LATE_JITTER = COSTS["global_load"] // 2  # a block's warps start up to this much after its dispatch (seeded)


ISSUE_BOUND = ("alu", "branch")  # instructions whose time is the scheduler's, not memory latency


def issue_share(resident_warps_per_sm: int, schedulers_per_sm: int) -> float:
    """How many cycles an SM's warps wait for a scheduler slot per instruction."""
    return max(1.0, resident_warps_per_sm / schedulers_per_sm)


@functools.lru_cache(maxsize=8)
def _costs(share: float) -> dict[str, int]:
    """Cycles per instruction kind when issue-bound ones wait `share` cycles per cycle (one table per launch shape)."""
    return {what: round(cost * share) if what in ISSUE_BOUND else cost for what, cost in COSTS.items()}


class WarpClock:
    """Clocks of the warps of one batch; `warp_key` maps each lane to its warp."""

    def __init__(self, warp_key: np.ndarray, starts: np.ndarray, share: float = 1.0, warps_per_block: int = 0):
        self.warp_key = warp_key
        self.warps_per_block = warps_per_block  # the batch's warps are block by block (0: barriers do not wait)
        self.time = starts.astype(np.int64).copy()
        self.end = np.full(len(warp_key), -1, np.int64)
        self.live = np.ones(len(self.time), bool)  # warps with a lane still running
        self.all_live = True
        self.exits = False  # whether any lane returned (lanes_exit)
        self.costs = _costs(share)

    def issue(self, what: str, mask: np.ndarray, key: np.ndarray | None = None, full: bool = False) -> None:
        """`full`: the caller knows every lane is active (saves checking the mask)."""
        cost = self.costs[what]
        warps = slice(None) if full or mask.all() else np.bincount(self.warp_key[mask], minlength=len(self.time)) > 0
        if key is None:
            self.time[warps] += cost
            return
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        contention = np.zeros(len(self.time), np.int64)
        np.maximum.at(contention, self.warp_key[mask], counts[inverse] - 1)
        self.time[warps] += cost + ATOMIC_SERIAL * contention[warps]

    def barrier(self, mask: np.ndarray) -> None:
        """A block barrier: each warp that reached it (an active lane) leaves it when the last of its block's
        warps that reached it has arrived, `barrier` cycles after (a warp that did more work before it, in a
        branch the others skipped, holds them back)."""
        per = self.warps_per_block
        if not per:
            self.issue("barrier", mask)
            return
        arrived = np.bincount(self.warp_key[mask], minlength=len(self.time)) > 0
        latest = np.where(arrived, self.time, np.iinfo(np.int64).min).reshape(-1, per).max(axis=1)
        self.time = np.where(arrived, np.repeat(latest, per) + self.costs["barrier"], self.time)

    def lanes_exit(self, mask: np.ndarray) -> None:
        self.exits = True
        self.end[mask] = self.time[self.warp_key[mask]]
        self.live = np.bincount(self.warp_key[self.end < 0], minlength=len(self.time)) > 0
        self.all_live = bool(self.live.all())

    def earliest(self) -> int:
        """The clock of the batch's least advanced warp still running: its next memory access is the earliest."""
        if self.all_live:
            return int(self.time.min())
        live = self.time[self.live]
        return int(live.min() if len(live) else self.time.max())

    def lane_times(self) -> np.ndarray:
        return self.time[self.warp_key]

    def finish(self) -> np.ndarray:
        """Every lane's end time (lanes that never returned end with their warp)."""
        at_end = self.time[self.warp_key]
        if not self.exits:
            return at_end  # no lane returned early: every lane ends with its warp
        return np.where(self.end < 0, at_end, self.end)
