"""Divergence from the warp requests, warp by warp: how many paths each warp's lanes took, and per line
how many warps executed it and in how many of them its lanes did not all execute it equally often.

A warp whose every request holds all its lanes took one path and split no line; only the rows of the
other warps are looked at, lane by lane, in a small table of counts per lane and line that is cleared
after each warp. Compiled with numba's CPU target: in NumPy the same took packs, sorts and reductions
over the whole log. The paths and lines equal those of a NumPy count over every (thread, line) pair of
the log (tests/divergence_reference.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpuviz.core.analysis.memory_units import MIX_COUNT, MIX_LINE, WARP
from gpuviz.core.analysis.request_costs import rows_by_request
from gpuviz.core.analysis.requests import Requests


def path_counts(requests: Requests, thread: np.ndarray, lanes_per_warp: np.ndarray,
                per_block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(paths of every warp: 1 where no request says otherwise; the lines requests were made at,
    ascending; per line, the warps that executed it; per line, the warps where it split). `thread`:
    every row's global thread; `lanes_per_warp`: how many lanes each global warp has."""
    paths = np.ones(len(lanes_per_warp), np.int64)
    if len(requests) == 0:
        empty = np.zeros(0, np.int64)
        return paths, empty, empty, empty
    low = int(requests.line.min())
    span = int(requests.line.max()) - low + 1
    warps, split = np.zeros(span, np.int64), np.zeros(span, np.int64)
    order, lo, hi = rows_by_request(requests.of_row, len(requests), requests.spans())
    _paths(requests.warp.astype(np.int64), requests.line.astype(np.int64), requests.lanes.astype(np.int64),
           order, lo, hi, thread, lanes_per_warp.astype(np.int64), per_block, low, paths, warps, split)  # fmt: skip
    present = np.flatnonzero(warps)
    return paths, present + low, warps[present], split[present]


@njit(cache=True, nogil=True)
def _by_warp(warp, n_warps):
    """(start, requests): warp w's requests are requests[start[w]:start[w + 1]] (a counting sort)."""
    start = np.zeros(n_warps + 1, np.int64)
    for q in range(warp.size):
        start[warp[q] + 1] += 1
    for w in range(n_warps):
        start[w + 1] += start[w]
    fill = start[:-1].copy()
    ordered = np.empty(warp.size, np.int64)
    for q in range(warp.size):
        ordered[fill[warp[q]]] = q
        fill[warp[q]] += 1
    return start, ordered


@njit(cache=True, nogil=True)
def _paths(warp, line, lanes, order, lo, hi, thread, lanes_per_warp, per_block, low, paths, warps, split):
    span = warps.size
    start, ordered = _by_warp(warp, paths.size)
    warps_per_block = (per_block + WARP - 1) // WARP
    seen = np.full(span, -1, np.int64)  # the last warp that executed each line
    touched = np.empty(span, np.int64)
    whole = np.zeros(span, np.int64)  # per line: the warp's requests there that held all its lanes
    counts = np.zeros(WARP * span, np.int64)  # per lane and line: the other requests that held the lane
    signature = np.zeros(WARP, np.uint64)
    direct = order.size == 0
    for w in range(paths.size):
        n_lanes, partial, m = lanes_per_warp[w], False, 0
        for i in range(start[w], start[w + 1]):
            q = ordered[i]
            at = line[q] - low
            if seen[at] != w:
                seen[at] = w
                touched[m] = at
                m += 1
            partial = partial or lanes[q] < n_lanes
        for j in range(m):
            warps[touched[j]] += 1
        if not partial:
            continue  # one path, no line split
        first = (w // warps_per_block) * per_block + (w % warps_per_block) * WARP
        for i in range(start[w], start[w + 1]):
            q = ordered[i]
            if lanes[q] == n_lanes:
                whole[line[q] - low] += 1
                continue
            for p in range(lo[q], hi[q]):
                r = p if direct else order[p]
                counts[(thread[r] - first) * span + line[q] - low] += 1
        for j in range(m):
            split[touched[j]] += _lanes_of_line(touched[j], low, n_lanes, span, counts, whole, signature)
        paths[w] = _distinct(signature, n_lanes)


@njit(cache=True, nogil=True)
def _lanes_of_line(at, low, n_lanes, span, counts, whole, signature):
    """1 where the lanes did not all execute line low + at equally often, else 0; adds each lane's
    (line, count) to its signature and clears the line's counts."""
    seen, least, most = 0, 1 << 62, 0
    for lane in range(n_lanes):
        c = counts[lane * span + at] + whole[at]
        counts[lane * span + at] = 0
        if c > 0:
            seen += 1
            least, most = min(least, c), max(most, c)
            signature[lane] += np.uint64(at + low) * MIX_LINE ^ (np.uint64(c) + np.uint64(1)) * MIX_COUNT
    whole[at] = 0
    return 1 if seen < n_lanes or least != most else 0


@njit(cache=True, nogil=True)
def _distinct(signature, n):
    """How many distinct values signature[:n] holds; clears the signatures."""
    for i in range(1, n):
        v = signature[i]
        j = i - 1
        while j >= 0 and signature[j] > v:
            signature[j + 1] = signature[j]
            j -= 1
        signature[j + 1] = v
    count = 0
    for i in range(n):
        if i == 0 or signature[i] != signature[i - 1]:
            count += 1
    signature[:] = 0
    return count
