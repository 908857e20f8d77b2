"""The cost model: how many cycles (`tick`s) each warp instruction takes in the vectorised engine.

Every warp has a clock. An instruction issued with any lane of the warp active advances it by the
instruction's cost, so a divergent warp pays for both paths and lasts as long as its slowest lane;
a lane's end time is its warp's clock when it returned. Atomics to one address serialise. Warps
hide each other's memory latency (their clocks run side by side), but they share their SM's warp
schedulers: an arithmetic or branch instruction takes `issue_share` cycles per cycle of its cost,
the resident warps of an SM over its schedulers (64 warps on 4 schedulers: 16x), so compute-bound
kernels slow down with occupancy and memory-bound ones do not.

Constants (cycles, H100/H200 class; see docs/simulator.md for the sources):
- global load ~ 480: pointer-chasing latency of HBM3 global memory measured on H100 (arXiv
  2402.13499 reports 478-ish cycles for a global miss; arXiv 2501.12084 a similar range);
- shared load/store ~ 30 (both papers: 29-33 cycles on Hopper);
- a store issues and goes on (its latency is not waited for): a few cycles;
- atomics ~ the global round trip plus ~ 4 cycles per earlier lane on the same address.
bench/gpu_latency.py measures these with %clock64 on a real GPU, for calibration.
"""

from __future__ import annotations

import numpy as np

COSTS = {
    "alu": 4,  # an assignment: a few dependent arithmetic instructions
    "branch": 4,  # a condition or a loop test
    "global_load": 480,
    "global_store": 8,
    "shared_load": 30,
    "shared_store": 30,
    "local_load": 30,  # local arrays usually live in registers or L1
    "local_store": 8,
    "atomic": 480,
    "barrier": 24,
    "collective": 30,
}
ATOMIC_SERIAL = 4  # per earlier lane on the same address
GLOBAL_WINDOW = COSTS["global_load"]  # a block that starts this much later sees the earlier ones' stores
BLOCK_LAUNCH = 2 * GLOBAL_WINDOW  # between two blocks dispatched to the same SM (assumed; see docs)
LATE_JITTER = GLOBAL_WINDOW // 2  # blocks of later waves start up to this much late (seeded)


ISSUE_BOUND = ("alu", "branch")  # instructions whose time is the scheduler's, not memory latency


def issue_share(resident_warps_per_sm: int, schedulers_per_sm: int) -> float:
    """How many cycles an SM's warps wait for a scheduler slot per instruction."""
    return max(1.0, resident_warps_per_sm / schedulers_per_sm)


class WarpClock:
    """Clocks of the warps of one batch; `warp_key` maps each lane to its warp."""

    def __init__(self, warp_key: np.ndarray, starts: np.ndarray, share: float = 1.0):
        self.warp_key = warp_key
        self.time = starts.astype(np.int64).copy()
        self.end = np.full(len(warp_key), -1, np.int64)
        self.costs = {what: round(cost * share) if what in ISSUE_BOUND else cost for what, cost in COSTS.items()}

    def issue(self, what: str, mask: np.ndarray, key: np.ndarray | None = None) -> None:
        cost = self.costs[what]
        warps = slice(None) if mask.all() else np.bincount(self.warp_key[mask], minlength=len(self.time)) > 0
        if key is None:
            self.time[warps] += cost
            return
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        contention = np.zeros(len(self.time), np.int64)
        np.maximum.at(contention, self.warp_key[mask], counts[inverse] - 1)
        self.time[warps] += cost + ATOMIC_SERIAL * contention[warps]

    def lanes_exit(self, mask: np.ndarray) -> None:
        self.end[mask] = self.time[self.warp_key[mask]]

    def lane_times(self) -> np.ndarray:
        return self.time[self.warp_key]

    def finish(self) -> np.ndarray:
        """Every lane's end time (lanes that never returned end with their warp)."""
        at_end = self.time[self.warp_key]
        return np.where(self.end < 0, at_end, self.end)
