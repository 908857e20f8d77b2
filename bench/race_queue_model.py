"""A per-warp event model of the tutorial race with the store queue that the H100 timing shows (docs/races.md).

Not the simulator: a check, outside the engine, of whether one mechanism measured on the H100 gives the
hardware's outcomes before anyone builds it into the vector engine. Each warp of
`for i in range(a.size): a[i] += 0.5` over float32[2] runs load, add, store, load, add, store:
- blocks are dispatched as the engine does (one every 1.5 cycles to the slot that frees first, 2 blocks
  of 1,024 threads per SM on 132 SMs, each starting 0-154 cycles late, seeded);
- a load reads the element at the L2 half a load latency after it issues and returns after the other
  half (308 cycles in all, measured by bench/gpu_latency.py); loads do not queue;
- stores to the sector reach the L2 half a load latency after they issue and are applied one at a time,
  STORE_SERVICE cycles apart (the H100's one-wave timing: a warp's second read-modify-write took up
  to 15,724 cycles behind 2,048 warps' stores, about 7 cycles a store; bench/gpu_race_timing.py);
- with `--own-store-wait`, a warp's load of a line waits until the warp's own earlier store to that
  line is acknowledged (done at the L2 and half a latency back): what the H100 shows when the second
  load follows the first store at once (docs/races.md). Without it, the second load issues at once,
  as in the engine.
Prints the outcomes per seed and the per-warp time from the second load to the second store's issue.
Usage: python bench/race_queue_model.py [--own-store-wait] [--smoke] [seeds]
"""

from __future__ import annotations

import heapq
import sys

import numpy as np

LOAD = 308
STORE_SERVICE = 7
DISPATCH_GAP = 1.5
LATE = 154
SLOTS = 2 * 132
WARPS_PER_BLOCK = 32
ADD = 4 * 16  # one dependent add at 64 warps on 4 schedulers
STORE_ISSUE = 8


class Race:
    """The event queue of one launch: (time, order, what, warp, data)."""

    def __init__(self, blocks: int, seed: int, own_store_wait: bool):
        self.rng = np.random.default_rng(seed)
        self.blocks, self.own_store_wait = blocks, own_store_wait
        self.events: list = []
        self.order = 0
        self.memory = [0.0, 0.0]
        self.queue_free = 0.0  # when the sector's store queue takes its next store
        self.free_slots = [0.0] * SLOTS
        self.next_block, self.last_dispatch = 0, -DISPATCH_GAP
        self.warps_left: dict[int, int] = {}
        self.store_ack: dict[tuple, float] = {}
        self.second_load: dict[tuple, float] = {}
        self.second_rmw: list[float] = []

    def push(self, time: float, what: str, warp: tuple, data=None) -> None:
        heapq.heappush(self.events, (time, self.order, what, warp, data))
        self.order += 1

    def dispatch(self) -> None:
        while self.next_block < self.blocks and self.free_slots:
            at = max(self.free_slots.pop(), self.last_dispatch + DISPATCH_GAP)
            self.last_dispatch = at
            start = at + self.rng.uniform(0, LATE)
            block = self.next_block
            self.next_block += 1
            self.warps_left[block] = WARPS_PER_BLOCK
            for warp in range(WARPS_PER_BLOCK):
                self.push(start, "load", (block, warp), 0)

    def load(self, t: float, warp: tuple, element: int) -> None:
        issue = max(t, self.store_ack.get(warp, 0.0)) if self.own_store_wait else t
        if element == 1:
            self.second_load[warp] = t
        self.push(issue + LOAD / 2, "read", warp, element)

    def read(self, t: float, warp: tuple, element: int) -> None:
        value = self.memory[element]
        self.push(t + LOAD / 2 + ADD, "store", warp, (element, value + 0.5))

    def store(self, t: float, warp: tuple, data: tuple) -> None:
        element, _ = data
        done = max(t + LOAD / 2, self.queue_free) + STORE_SERVICE
        self.queue_free = done
        self.push(done, "apply", warp, data)
        self.store_ack[warp] = done + LOAD / 2
        if element == 0:
            self.push(t + STORE_ISSUE, "load", warp, 1)
        else:
            self.second_rmw.append(t - self.second_load[warp])
            self.push(done + LOAD / 2, "end", warp)

    def end(self, t: float, warp: tuple) -> None:
        self.warps_left[warp[0]] -= 1
        if self.warps_left[warp[0]] == 0:
            self.free_slots.append(t)
            self.dispatch()

    def run(self) -> list[float]:
        self.dispatch()
        while self.events:
            t, _, what, warp, data = heapq.heappop(self.events)
            if what == "apply":
                self.memory[data[0]] = data[1]
            elif what == "end":
                self.end(t, warp)
            else:
                getattr(self, what)(t, warp, data)
        return self.memory


def main(argv: list[str]) -> None:
    own_store_wait = "--own-store-wait" in argv
    numbers = [a for a in argv if not a.startswith("--")]
    seeds = int(numbers[0]) if numbers else 1 if "--smoke" in argv else 5
    print(f"own-store wait {'on' if own_store_wait else 'off'}, {STORE_SERVICE} cycles a store, seeds 0..{seeds - 1}")
    for blocks in (2, 4) if "--smoke" in argv else (64, 264, 1024):  # --smoke: tests/test_bench_smoke.py
        races = [Race(blocks, seed, own_store_wait) for seed in range(seeds)]
        finals = " ".join("[{:g},{:g}]".format(*race.run()) for race in races)
        gaps = np.concatenate([race.second_rmw for race in races])
        print(f"  [{blocks}, 1024]: {finals}; second load -> second store, cycles: median "
              f"{np.median(gaps):.0f}, p90 {np.percentile(gaps, 90):.0f}, max {gaps.max():.0f}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
