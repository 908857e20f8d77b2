"""The fast path's log (fixed per-thread slots, fast/access_hooks.py) turned into the trace's access columns in the
vector engine's row order, compiled: each used slot's row is counted out, then every column is written
once, straight into its row, and its log column let go. No sort and no copy of the whole log in the
common case (a sort only where the counts would not fit: phases, steps or times beyond the log's size).

The vector engine's rows (vector/independent.py): group of blocks by group, phase by phase, each
instruction's lanes in thread order (in a phase with loops, a thread's k-th access of the phase), then,
when several groups ran, stably by time.

Each row's warp request (core/analysis/requests.py: a warp's lanes that executed one access site, a
(line, array, kind), for their k-th time) is numbered here too, warp by warp in the order group_requests
numbers them, so the analyses need not group the rows again.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

SPARE = 1 << 20  # counters allowed beyond one per access before counting gives way to a sort
PARALLEL_ROWS = 1 << 17  # a smaller log is turned into rows on one thread: starting threads would cost more


def log_rows(log: list, site_table: np.ndarray, kept: np.ndarray, tpb: int, per_group: int, starts: np.ndarray,
             ids: np.ndarray, spare: int = SPARE, lanes: int = 1) -> dict[str, np.ndarray]:  # fmt: skip
    """The columns, and "request": each row's warp request. `log` ([index, values, times, sites, epochs, phases,
    count, slots, n]) is emptied as its columns are written, so the log and the columns are not held whole at
    once. `spare`: counters allowed beyond one per access (a test gives a negative number to take the sorts);
    `lanes`: threads to run the passes on (where the log has PARALLEL_ROWS rows or more)."""
    count, slots, n = log[6], log[7], log[8]
    points = np.ascontiguousarray(site_table[:, 3])
    total = int(np.minimum(count, slots).sum())
    dest = np.empty(max(slots * n, 1), np.int64)
    parts = _parts(kept, count.size // tpb, per_group, lanes if total >= PARALLEL_ROWS else 1)
    with ThreadPoolExecutor(len(parts)) if len(parts) > 1 else _Inline() as pool:
        each = lambda work: list(pool.map(work, parts))  # noqa: E731  (one call a part, all at once)
        groups = _rows_in_lockstep(count, slots, n, log[3], log[5], log[2], starts, points, kept, tpb, per_group,
                                   dest, total, spare, each)  # fmt: skip
        log[5] = None  # the phases served the order only
        if groups > 1:
            _rows_in_time(count, slots, n, log[2], dest, total, spare)
        out = {}
        for name, k, dtype in (("time", 2, np.int64), ("index", 0, np.int64), ("value", 1, np.float64),
                               ("epoch", 4, np.int32)):  # fmt: skip
            out[name] = np.empty(total, dtype)
            each(lambda part, k=k, name=name: _scatter(log[k], dest, count, slots, n, out[name], tpb, *part))
            log[k] = None
        tables = (ids[site_table[:, 2]].astype(np.int16), site_table[:, 1].astype(np.int8),
                  site_table[:, 0].astype(np.int32))  # fmt: skip
        for name, table in zip(("array", "kind", "line"), tables):
            out[name] = np.empty(total, table.dtype)
        out["thread"] = np.empty(total, np.int32)
        out["request"] = np.empty(total, np.int32 if total < 2**31 else np.int64)
        site_of = _request_sites(site_table, ids)
        requests = each(lambda part: _site_columns(count, slots, n, log[3], site_of, kept, tpb, dest, *tables,
                                                   out["array"], out["kind"], out["line"], out["thread"],
                                                   out["request"], *part))  # fmt: skip
        offsets = np.cumsum([0, *requests[:-1]])  # a part numbers its warps' requests from 0: the parts before it
        each(lambda part: _add_requests(out["request"], dest, count, slots, n, tpb, *part,
                                        int(offsets[parts.index(part)])))  # fmt: skip
    log[3] = None
    return out


class _Inline:
    """One part: its calls made on this thread, with no pool to start."""

    def __enter__(self):
        return self

    def __exit__(self, *_) -> None:
        return None

    @staticmethod
    def map(work, parts):
        return map(work, parts)


def _parts(kept: np.ndarray, blocks: int, per_group: int, lanes: int) -> list[tuple[int, int]]:
    """The kept blocks (positions 0..blocks-1 of `kept`) cut into at most `lanes` runs of about one size, each
    cut where a group ends (a group's cells and rows are then one part's), as (first block, end)."""
    if blocks == 0:
        return [(0, 0)]
    group = kept[:blocks] // per_group
    ends = np.flatnonzero(np.diff(group)) + 1  # where a new group starts
    cuts = sorted({int(ends[np.searchsorted(ends, blocks * k / lanes)]) for k in range(1, lanes)
                   if np.searchsorted(ends, blocks * k / lanes) < ends.size})  # fmt: skip
    bounds = [0, *cuts, blocks]
    return [(a, b) for a, b in zip(bounds, bounds[1:])]


def _request_sites(site_table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Each of the log's sites' access site as requests count them, (line, array, kind), numbered in their
    sorted order: two sites of one line, array and kind (`a[i] if c else a[i + 1]`) are one."""
    if len(site_table) == 0:
        return np.zeros(0, np.int64)
    key = np.stack([site_table[:, 0], ids[site_table[:, 2]], site_table[:, 1]], axis=1)
    return np.unique(key, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


# The passes below walk the log block by block, so that a thread's block and group cost no division each.


def _rows_in_lockstep(count, slots, n, sites, phases, times, starts, points, kept, tpb, per_group, dest, total,
                      spare, each) -> int:  # fmt: skip
    """dest[j]: slot j's row ordered by (group, phase, step, thread); the number of groups. The counting also adds
    each access's block start to its time (the log holds times from 0 in each block). `each(work)`: work(part)
    for every part of the blocks (_parts), on as many threads."""
    groups = int(kept[count.size // tpb - 1] // per_group + 1) if count.size else 0  # kept: ascending
    looped = bool((points < 0).any())  # a step is a site's point in a loop-free phase, else the thread's k-th
    tops = each(lambda part: _tops(count, slots, n, phases, looped, tpb, *part))  # access of the phase
    top_phase = max(t[0] for t in tops)
    top_step = max([t[1] for t in tops] + [int(points.max()) if points.size else 0])
    cells = groups * (top_phase + 1) * (top_step + 1)
    if cells > total + spare:
        _block_times(times, count, slots, n, kept, tpb, starts)
        _rows_by_sort(count, slots, n, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step)
        return groups
    first = np.zeros(cells + 1, np.int64)
    each(lambda part: _count_cells(count, slots, n, sites, phases, times, starts, points, kept, tpb, per_group,
                                   top_phase, top_step, first, *part))  # fmt: skip
    np.cumsum(first, out=first)  # each cell's first row (its own count sits one further on)
    each(lambda part: _place_rows(count, slots, n, sites, phases, points, kept, tpb, per_group, dest, top_phase,
                                  top_step, first, *part))  # fmt: skip
    return groups


@njit(cache=True, nogil=True)
def _tops(count, slots, n, phases, looped, tpb, b0, b1):
    """The highest phase of the part's threads, and where phases have loops their most accesses of a phase."""
    top_phase, top_step = 0, 0
    for s in range(b0 * tpb, b1 * tpb):  # a thread's phases never go back: its last access has its highest
        if min(count[s], slots):
            top_phase = max(top_phase, phases[(min(count[s], slots) - 1) * n + s])
    if not looped:
        return top_phase, top_step
    for s in range(b0 * tpb, b1 * tpb):
        rank, last = 0, -1
        for k in range(min(count[s], slots)):
            rank = rank + 1 if phases[k * n + s] == last else 0
            last = phases[k * n + s]
            top_step = max(top_step, rank)
    return top_phase, top_step


@njit(cache=True, nogil=True)
def _place_rows(count, slots, n, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step, first, b0,
                b1):  # fmt: skip
    """The part's rows handed out cell by cell in thread order (`first`: each cell's next row)."""
    for b in range(b0, b1):
        group = kept[b] // per_group
        for s in range(b * tpb, (b + 1) * tpb):
            rank, last = 0, -1
            for k in range(min(count[s], slots)):
                j = k * n + s
                rank = rank + 1 if phases[j] == last else 0
                last = phases[j]
                cell = _cell(group, phases[j], points[sites[j]], rank, top_phase, top_step)
                dest[j] = first[cell]
                first[cell] += 1


@njit(cache=True, nogil=True)
def _count_cells(count, slots, n, sites, phases, times, starts, points, kept, tpb, per_group, top_phase, top_step,
                 first, b0, b1):  # fmt: skip
    """Each cell's accesses counted (into first[cell + 1]) and each time given its block's start, slot by slot
    over a block's threads: the log's own order, where a thread's slots lie n apart (the count needs no
    thread order; each thread's rank in its phase is kept apart)."""
    rank, last = np.zeros(tpb, np.int64), np.zeros(tpb, np.int64)
    for b in range(b0, b1):
        group, start, most = kept[b] // per_group, starts[kept[b]], 0
        for s in range(b * tpb, (b + 1) * tpb):
            most = max(most, min(count[s], slots))
        rank[:] = 0
        last[:] = -1
        for k in range(most):
            for t in range(tpb):
                s = b * tpb + t
                if k < count[s]:
                    j = k * n + s
                    rank[t] = rank[t] + 1 if phases[j] == last[t] else 0
                    last[t] = phases[j]
                    times[j] += start
                    first[_cell(group, phases[j], points[sites[j]], rank[t], top_phase, top_step) + 1] += 1


@njit(cache=True, inline="always")
def _cell(group, phase, point, rank, top_phase, top_step):
    """An access's (group, phase, step) as one counter: its step is its site's point in a loop-free phase,
    else (point -1) the thread's rank among its accesses of the phase."""
    return (group * (top_phase + 1) + phase) * (top_step + 1) + (point if point >= 0 else rank)


@njit(cache=True)
def _block_times(times, count, slots, n, kept, tpb, starts):
    """Each access's time from its block's start (the log holds times from 0 in each block)."""
    for b in range(count.size // tpb):
        start = starts[kept[b]]
        for s in range(b * tpb, (b + 1) * tpb):
            for k in range(min(count[s], slots)):
                times[k * n + s] += start


@njit(cache=True)
def _rows_by_sort(count, slots, n, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step):
    """The same order by a stable sort of one key per access (where the cells would outnumber the log)."""
    key = np.empty(slots * n, np.int64)
    at = np.empty(slots * n, np.int64)
    used = 0
    for s in range(count.size):
        group = kept[s // tpb] // per_group
        rank, last = 0, -1
        for k in range(min(count[s], slots)):
            j = k * n + s
            rank = rank + 1 if phases[j] == last else 0
            last = phases[j]
            key[used] = _cell(group, phases[j], points[sites[j]], rank, top_phase, top_step) * n + s
            at[used] = j
            used += 1
    order = np.argsort(key[:used], kind="mergesort")
    for r in range(used):
        dest[at[order[r]]] = r


@njit(cache=True)
def _rows_in_time(count, slots, n, times, dest, total, spare):
    """dest[j] reordered stably by time: counted per time where the times span no more than the log."""
    by_row = np.empty(total, np.int64)
    low, high = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for s in range(count.size):
        for k in range(min(count[s], slots)):
            j = k * n + s
            by_row[dest[j]] = j
            low, high = min(low, times[j]), max(high, times[j])
    if total == 0:
        return
    counted = high - low <= total + spare
    first = np.zeros(high - low + 2 if counted else 1, np.int64)
    ordered = True
    for r in range(total):  # whether the rows are in time order already, and how many rows each time has
        t = times[by_row[r]]
        if r and t < times[by_row[r - 1]]:
            ordered = False
        if counted:
            first[t - low + 1] += 1
    if ordered:
        return
    if not counted:
        t = np.empty(total, np.int64)
        for r in range(total):
            t[r] = times[by_row[r]]
        order = np.argsort(t, kind="mergesort")
        for r in range(total):
            dest[by_row[order[r]]] = r
        return
    for c in range(high - low + 1):
        first[c + 1] += first[c]
    for r in range(total):  # rows in lockstep order: equal times keep it
        j = by_row[r]
        dest[j] = first[times[j] - low]
        first[times[j] - low] += 1


@njit(cache=True, nogil=True)
def _scatter(column, dest, count, slots, n, out, tpb, b0, b1):
    # slot by slot over the part's threads: the log's own order (slot k of thread s at k * n + s), one sweep
    for k in range(slots):
        for s in range(b0 * tpb, b1 * tpb):
            if k < count[s]:
                j = k * n + s
                out[dest[j]] = column[j]


@njit(cache=True, nogil=True)
def _site_columns(count, slots, n, sites, site_of, kept, tpb, dest, array_of, kind_of, line_of, array, kind, line,
                  thread, request, b0, b1):  # fmt: skip
    """The columns a row's site and thread say (array, kind, line, thread), and its warp request, numbered by
    (warp, site, k-th execution) as group_requests numbers them (`site_of`: each of the log's sites' (line,
    array, kind), numbered in sorted order). A warp's lanes that executed a site k times also executed it
    0..k-1 times, so a warp has as many requests of a site as its busiest lane's executions of it: each
    site's first number is counted out, then each row's number is that plus its execution. The part's blocks
    (b0 to b1) are numbered from 0: the requests they make is returned."""
    n_sites = site_of.max() + 1 if site_of.size else 1
    # Slot by slot over a warp's lanes (the log's own order: a thread's slots lie n apart), each lane's
    # executions of each site counted apart; `seen` says which warp and walk a lane's count belongs to, so
    # that no count is cleared.
    runs, seen = np.zeros((32, n_sites), np.int64), np.full((32, n_sites), -1, np.int64)
    first = np.zeros(n_sites, np.int64)
    next_request, walk = 0, 0
    for b in range(b0, b1):
        for w in range(0, tpb, 32):
            lo, hi = b * tpb + w, b * tpb + min(w + 32, tpb)
            most = 0
            for s in range(lo, hi):
                most = max(most, min(count[s], slots))
            first[:] = 0
            for k in range(most):  # the warp's busiest lane's executions of each site
                for s in range(lo, hi):
                    if k < count[s]:
                        c = site_of[sites[k * n + s]]
                        done = runs[s - lo, c] + 1 if seen[s - lo, c] == walk else 1
                        runs[s - lo, c], seen[s - lo, c] = done, walk
                        first[c] = max(first[c], done)
            walk += 1
            for c in range(n_sites):
                first[c], next_request = next_request, next_request + first[c]
            for k in range(most):
                for s in range(lo, hi):
                    if k < count[s]:
                        j = k * n + s
                        row, site = dest[j], sites[j]
                        c = site_of[site]
                        before = runs[s - lo, c] if seen[s - lo, c] == walk else 0
                        runs[s - lo, c], seen[s - lo, c] = before + 1, walk
                        array[row], kind[row], line[row] = array_of[site], kind_of[site], line_of[site]
                        thread[row] = kept[b] * tpb + s - b * tpb
                        request[row] = first[c] + before
            walk += 1
    return next_request


@njit(cache=True, nogil=True)
def _add_requests(request, dest, count, slots, n, tpb, b0, b1, offset):
    """The part's rows' requests moved past those of the parts before it."""
    if offset == 0:
        return
    for k in range(slots):
        for s in range(b0 * tpb, b1 * tpb):
            if k < count[s]:
                request[dest[k * n + s]] += offset
