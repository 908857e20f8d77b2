"""The warp requests of the vector engine's access log, numbered as the log is laid out.

An entry of the log is one statement executed by a batch of lanes, so its lanes of one warp made one
warp request. core/analysis/requests.py defines a request the way every backend can: the lanes of a
warp that executed an access site for their k-th time. The two agree when every lane of an entry had
executed that site as often as its warp had (lanes that skipped an earlier execution, in a loop or a
branch, would be paired with other lanes' earlier executions there); the numbering checks that on
every entry with lanes missing and hands itself over only when it held for all, so the analysis
groups the rows itself otherwise and the report is the same either way.
"""

from __future__ import annotations

import numpy as np

WARP = 32


class RequestNumbering:
    """Numbers the requests of the log's entries in log order; `agrees` turns False for good when an
    entry's lanes had executed its site unequally often (then the numbering is not handed over)."""

    def __init__(self, n_blocks: int, per_block: int) -> None:
        self.n_blocks, self.per_block = n_blocks, per_block
        self.warps_per_block = -(-per_block // WARP)
        self.agrees, self.count = True, 0
        self._full: tuple | None = None  # a full entry's request of each lane, and how many requests it makes
        # Per site with an entry that lacked lanes: executions per thread and per warp (_check).
        self._executions: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def warp_of(self, gid: np.ndarray) -> np.ndarray:
        """Global warp number (block * warps per block + warp in block) of each global thread id."""
        return (gid // self.per_block) * self.warps_per_block + (gid % self.per_block) // WARP

    def entry(self, gid: np.ndarray, lanes: np.ndarray | None, n: int, site: tuple) -> np.ndarray:
        """The request of each of an entry's n events (lanes of one warp are adjacent in a batch)."""
        if lanes is None and n == len(gid):
            local, requests = self._full_entry(len(gid))
            ids = local + self.count
            if self.agrees and site in self._executions:
                self._check(site, gid, self.warp_of(gid), None)
        else:
            threads = gid[:n] if lanes is None else gid[lanes[:n]]
            warp = self.warp_of(threads)
            changes = np.concatenate([[False], warp[1:] != warp[:-1]])
            ids = np.cumsum(changes) + self.count
            requests = int(ids[-1]) - self.count + 1 if n else 0
            if self.agrees:
                self._check(site, threads, warp, changes)
        self.count += requests
        return ids

    def _full_entry(self, lanes: int) -> tuple[np.ndarray, int]:
        """Every lane of a batch: one request per warp, numbered by position alone (a batch is whole
        blocks, one after another, each thread by thread: vector/engine.py), the same for every batch
        of that many lanes."""
        if self._full is None or len(self._full[0]) != lanes:
            position = np.arange(lanes)
            local = (position // self.per_block) * self.warps_per_block + (position % self.per_block) // WARP
            self._full = (local, int(local[-1]) + 1 if lanes else 0)
        return self._full

    def _check(self, site: tuple, threads: np.ndarray, warp: np.ndarray, changes: np.ndarray | None) -> None:
        """Every lane of the entry executed the site as often as its warp did before; then counts the
        entry (`changes`: where a new warp starts; None for an entry of all the batch's lanes, which
        adds one to every count of the batch alike and so is not counted)."""
        if site not in self._executions:
            self._executions[site] = (np.zeros(self.n_blocks * self.per_block, np.int32),
                                      np.zeros(self.n_blocks * self.warps_per_block, np.int32))  # fmt: skip
        per_thread, per_warp = self._executions[site]
        if not np.array_equal(per_thread[threads], per_warp[warp]):
            self.agrees = False
            self._executions.clear()
            return
        if changes is None:
            return
        per_thread[threads] += 1
        first_lanes = changes.copy()
        first_lanes[:1] = True
        per_warp[warp[first_lanes]] += 1
