"""The warp requests of the vector engine's access log, numbered as the log is laid out.

An entry of the log is one statement executed by a batch of lanes, so its lanes of one warp made one
warp request. core/analysis/requests.py defines a request the way every backend can: the lanes of a
warp that executed an access site for their k-th time. The two agree when every lane of an entry had
executed that site as often as its warp had (lanes that skipped an earlier execution, in a loop or a
branch, would be paired with other lanes' earlier executions there); the numbering checks that on
every entry with lanes missing and hands itself over only when it held for all, so the analysis
groups the rows itself otherwise and the report is the same either way.

Each entry is numbered, checked and counted in one compiled pass (numba's CPU target, `cache=True`) that
writes its numbers straight into their rows: in NumPy the same took a handful of passes and temporaries
an entry, as long as the log's layout itself on a reduction whose lanes drop out step by step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

WARP = 32


class RequestNumbering:
    """Numbers the requests of the log's entries in log order; `agrees` turns False for good when an
    entry's lanes had executed its site unequally often (then the numbering is not handed over)."""

    def __init__(self, n_blocks: int, per_block: int) -> None:
        self.n_blocks, self.per_block = n_blocks, per_block
        self.warps_per_block = -(-per_block // WARP)
        self.agrees, self.count = True, 0
        self._full: np.ndarray | None = None  # a full entry's request of each lane, counted from 0
        self._warps: np.ndarray | None = None  # each global thread's warp, once an entry lacks lanes
        # Per site with an entry that lacked lanes: executions per thread and per warp (_number's check).
        self._executions: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def warp_of(self, gid: np.ndarray) -> np.ndarray:
        """Global warp number (block * warps per block + warp in block) of each global thread id."""
        if self.per_block % WARP == 0:  # whole warps: the same number, by a shift
            return gid >> 5
        return (gid // self.per_block) * self.warps_per_block + (gid % self.per_block) // WARP

    def entry(self, request: np.ndarray, rows: np.ndarray | None, at: int, gid: np.ndarray, lanes: np.ndarray | None,
              n: int, site: tuple) -> None:  # fmt: skip
        """Writes the request of each of an entry's n events into request[at:at + n], or into
        request[rows[at:at + n]] where the log's rows are reordered (lanes of one warp are adjacent in a
        batch). Every lane of the entry must have executed the site as often as its warp had before."""
        order = _NONE if rows is None else rows
        if lanes is None and n == len(gid):
            # Every lane of a batch: one request per warp, numbered by position alone (a batch is whole
            # blocks, one after another, each thread by thread: vector/engine.py); such an entry adds one
            # to every count of the batch alike, so it is checked (where the site has counts) but not counted.
            counts = self._executions.get(site)
            checked, warps = (_NONE, _NONE) if counts is None else (gid, self._thread_warps())
            per_thread, per_warp = counts if counts is not None else (_NONE32, _NONE32)
            made = _number_full(request, order, at, self._full_requests(n), self.count, checked, warps, per_thread,
                                per_warp)  # fmt: skip
        else:
            if site not in self._executions:
                self._executions[site] = (np.zeros(self.n_blocks * self.per_block, np.int32),
                                          np.zeros(self.n_blocks * self.warps_per_block, np.int32))  # fmt: skip
            made = _number_lanes(request, order, at, gid, _NONE if lanes is None else lanes, n, self.count,
                                 self._thread_warps(), *self._executions[site])  # fmt: skip
        if made < 0:
            self.agrees = False
            self._executions.clear()
            return
        self.count += made

    def _full_requests(self, lanes: int) -> np.ndarray:
        """A full batch's request of each lane, counted from 0 (the same for every batch of that many
        lanes): the warps of threads 0..lanes-1."""
        if self._warps is not None and lanes <= len(self._warps):
            return self._warps[:lanes]
        if self._full is None or len(self._full) != lanes:
            self._full = self.warp_of(np.arange(lanes, dtype=np.int64))
        return self._full

    def _thread_warps(self) -> np.ndarray:
        """Each global thread's warp."""
        if self._warps is None:
            self._warps = self.warp_of(np.arange(self.n_blocks * self.per_block, dtype=np.int64))
        return self._warps


_NONE, _NONE32 = np.zeros(0, np.int64), np.zeros(0, np.int32)


@njit(cache=True, nogil=True)
def _number_full(request, order, at, local, count, checked, warps, per_thread, per_warp):
    """A full entry's numbers (count + local); -1 where a lane of `checked` (the entry's threads, where its
    site has counts) had executed the site a different number of times than its warp."""
    for i in range(checked.size):
        if per_thread[checked[i]] != per_warp[warps[checked[i]]]:
            return -1
    # Unsigned positions (a row or thread known not to be negative needs no test): the loops vectorise.
    start = np.uint64(at)
    if order.size:
        for i in range(local.size):
            request[np.uint64(order[start + np.uint64(i)])] = count + local[i]
    else:
        for i in range(local.size):
            request[start + np.uint64(i)] = count + local[i]
    return local[-1] + 1 if local.size else 0


@njit(cache=True, nogil=True)
def _number_lanes(request, order, at, gid, lanes, n, count, warps, per_thread, per_warp):
    """An entry of some lanes: a new request where the warp changes; every lane checked against the count
    its warp had before the entry, and counted (the warp once per run of its lanes). How many requests it
    made, or -1 where a lane's count differs (the counts are then dropped: the numbering is not handed over)."""
    q, last, before, start = count - 1, -1, 0, np.uint64(at)
    for i in range(n):
        t = np.uint64(gid[np.uint64(lanes[i])] if lanes.size else gid[i])  # unsigned, as in _number_full
        w = warps[t]
        if w != last:
            q, last, before = q + 1, w, per_warp[w]
            per_warp[w] = before + 1
        if per_thread[t] != before:
            return -1
        per_thread[t] += 1
        row = start + np.uint64(i)
        request[np.uint64(order[row]) if order.size else row] = q
    return q - count + 1
