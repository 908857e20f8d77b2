"""The fast path's log (each thread's own slots, one thread's after another's: fast/access_hooks.py) turned
into the trace's access columns in the vector engine's row order, compiled: each used slot's row is counted
out, then every column is written once, straight into its row, and its log column let go. No sort and no
copy of the whole log in the common case (a sort only where the counts would not fit: phases, steps or
times beyond the log's size).

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


class UnevenLoops(Exception):
    """Threads of one group made different sequences of accesses in a phase with loops (another trip count, or
    another path inside the loop): the vector engine runs such a group's lanes in lockstep, iteration by
    iteration, so the order of their rows is its to say, not a thread's k-th access. Carries the thread."""


SPARE = 1 << 20  # counters allowed beyond one per access before counting gives way to a sort
PARALLEL_ROWS = 1 << 17  # a smaller log is turned into rows on one thread: starting threads would cost more


def log_rows(log: list, site_table: np.ndarray, kept: np.ndarray, tpb: int, per_group: int, starts: np.ndarray,
             ids: np.ndarray, spare: int = SPARE, lanes: int = 1,
             uneven_ok: bool = False) -> dict[str, np.ndarray]:  # fmt: skip
    """The columns, and "request": each row's warp request. `log` ([index, values, times, sites, epochs, phases,
    count, offsets, n]) is emptied as its columns are written, so the log and the columns are not held whole at
    once. `spare`: counters allowed beyond one per access (a test gives a negative number to take the sorts);
    `lanes`: threads to run the passes on (where the log has PARALLEL_ROWS rows or more). UnevenLoops where
    threads of a group made different sequences of accesses in a phase with loops, unless `uneven_ok` (a
    hand-built log, ordered by each thread's k-th access all the same)."""
    count, off = log[6], log[7]
    points = np.ascontiguousarray(site_table[:, 3])
    total = int(np.minimum(count, np.diff(off)[: count.size]).sum())
    dest = np.empty(max(int(off[count.size]), 1), np.int64)
    parts = _parts(kept, count.size // tpb, per_group, lanes if total >= PARALLEL_ROWS else 1)
    with ThreadPoolExecutor(len(parts)) if len(parts) > 1 else _Inline() as pool:
        each = lambda work: list(pool.map(work, parts))  # noqa: E731  (one call a part, all at once)
        groups = _rows_in_lockstep(count, off, log[3], log[5], log[2], starts, points, kept, tpb, per_group,
                                   dest, total, spare, each, uneven_ok)  # fmt: skip
        log[5] = None  # the phases served the order only
        if groups > 1:
            _rows_in_time(count, off, log[2], dest, total, spare)
        out = {}
        for name, k, dtype in (("time", 2, np.int64), ("index", 0, np.int64), ("value", 1, np.float64),
                               ("epoch", 4, np.int32)):  # fmt: skip
            out[name] = np.empty(total, dtype)
            each(lambda part, k=k, name=name: _scatter(log[k], dest, count, off, out[name], tpb, *part))
            log[k] = None
        tables = (ids[site_table[:, 2]].astype(np.int16), site_table[:, 1].astype(np.int8),
                  site_table[:, 0].astype(np.int32))  # fmt: skip
        for name, table in zip(("array", "kind", "line"), tables):
            out[name] = np.empty(total, table.dtype)
        out["thread"] = np.empty(total, np.int32)
        out["request"] = np.empty(total, np.int32 if total < 2**31 else np.int64)
        site_of = _request_sites(site_table, ids)
        requests = each(lambda part: _site_columns(count, off, log[3], site_of, kept, tpb, dest, *tables,
                                                   out["array"], out["kind"], out["line"], out["thread"],
                                                   out["request"], *part))  # fmt: skip
        before = np.cumsum([0, *requests[:-1]])  # a part numbers its warps' requests from 0: the parts before it
        each(lambda part: _add_requests(out["request"], dest, count, off, tpb, *part,
                                        int(before[parts.index(part)])))  # fmt: skip
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
    at = np.searchsorted(ends, blocks * np.arange(1, lanes) / lanes)  # the first group start past each share
    bounds = [0, *sorted({int(ends[i]) for i in at if i < ends.size}), blocks]
    return [(a, b) for a, b in zip(bounds, bounds[1:])]


def _request_sites(site_table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Each of the log's sites' access site as requests count them, (line, array, kind), numbered in their
    sorted order: two sites of one line, array and kind (`a[i] if c else a[i + 1]`) are one."""
    if len(site_table) == 0:
        return np.zeros(0, np.int64)
    key = np.stack([site_table[:, 0], ids[site_table[:, 2]], site_table[:, 1]], axis=1)
    return np.unique(key, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


# The passes below walk the log block by block, so that a thread's block and group cost no division each.


def _rows_in_lockstep(count, off, sites, phases, times, starts, points, kept, tpb, per_group, dest, total,
                      spare, each, uneven_ok) -> int:  # fmt: skip
    """dest[j]: slot j's row ordered by (group, phase, step, thread); the number of groups. The counting also adds
    each access's block start to its time (the log holds times from 0 in each block). `each(work)`: work(part)
    for every part of the blocks (_parts), on as many threads."""
    groups = int(kept[count.size // tpb - 1] // per_group + 1) if count.size else 0  # kept: ascending
    looped = bool((points < 0).any())  # a step is a site's point in a loop-free phase, else the thread's k-th
    tops = each(lambda part: _tops(count, off, phases, looped, tpb, *part))  # access of the phase
    top_phase = max(t[0] for t in tops)
    top_step = max([t[1] for t in tops] + [int(points.max()) if points.size else 0])
    if looped and not uneven_ok:
        uneven = [t for t in each(lambda part: _uneven_loops(count, off, sites, phases, points, kept, tpb, per_group,
                                                             top_phase, *part)) if t >= 0]  # fmt: skip
        if uneven:
            raise UnevenLoops(int(kept[uneven[0] // tpb] * tpb + uneven[0] % tpb))
    cells = groups * (top_phase + 1) * (top_step + 1)
    if cells > total + spare:
        _block_times(times, count, off, kept, tpb, starts)
        _rows_by_sort(count, off, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step)
        return groups
    first = np.zeros(cells + 1, np.int64)
    each(lambda part: _count_cells(count, off, sites, phases, times, starts, points, kept, tpb, per_group,
                                   top_phase, top_step, first, *part))  # fmt: skip
    np.cumsum(first, out=first)  # each cell's first row (its own count sits one further on)
    each(lambda part: _place_rows(count, off, sites, phases, points, kept, tpb, per_group, dest, top_phase,
                                  top_step, first, *part))  # fmt: skip
    return groups


@njit(cache=True, nogil=True)
def _tops(count, off, phases, looped, tpb, b0, b1):
    """The highest phase of the part's threads, and where phases have loops their most accesses of a phase."""
    top_phase, top_step = 0, 0
    for s in range(b0 * tpb, b1 * tpb):  # a thread's phases never go back: its last access has its highest
        if _used(count, off, s):
            top_phase = max(top_phase, phases[off[s] + _used(count, off, s) - 1])
    if not looped:
        return top_phase, top_step
    for s in range(b0 * tpb, b1 * tpb):
        rank, last = 0, -1
        for k in range(_used(count, off, s)):
            rank = rank + 1 if phases[off[s] + k] == last else 0
            last = phases[off[s] + k]
            top_step = max(top_step, rank)
    return top_phase, top_step


@njit(cache=True, nogil=True)
def _uneven_loops(count, off, sites, phases, points, kept, tpb, per_group, top_phase, b0, b1):
    """The first of the part's threads whose accesses in a phase with loops are not the sequence of sites its
    group's first thread there made (-1: none). Threads that made none there are not compared."""
    if b1 <= b0:
        return -1
    g0 = kept[b0] // per_group
    seen = np.zeros((kept[b1 - 1] // per_group - g0 + 1, top_phase + 1), np.uint64)  # 0: none yet
    for b in range(b0, b1):
        group = kept[b] // per_group - g0
        for s in range(b * tpb, (b + 1) * tpb):
            phase, h, used = -1, np.uint64(0), _used(count, off, s)
            for k in range(used + 1):  # one step past the last access closes its phase
                j = off[s] + k
                here = phases[j] if k < used and points[sites[j]] < 0 else -1
                if here != phase and phase >= 0:
                    if seen[group, phase] == 0:
                        seen[group, phase] = h
                    elif seen[group, phase] != h:
                        return s
                if here != phase:
                    phase, h = here, np.uint64(14695981039346656037)
                if here >= 0:
                    h = ((h ^ np.uint64(sites[j] + 1)) * np.uint64(1099511628211)) | np.uint64(1)
    return -1


@njit(cache=True, nogil=True)
def _place_rows(count, off, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step, first, b0,
                b1):  # fmt: skip
    """The part's rows handed out cell by cell in thread order (`first`: each cell's next row)."""
    for b in range(b0, b1):
        group = kept[b] // per_group
        for s in range(b * tpb, (b + 1) * tpb):
            rank, last = 0, -1
            for k in range(_used(count, off, s)):
                j = off[s] + k
                rank = rank + 1 if phases[j] == last else 0
                last = phases[j]
                cell = _cell(group, phases[j], points[sites[j]], rank, top_phase, top_step)
                dest[j] = first[cell]
                first[cell] += 1


@njit(cache=True, nogil=True)
def _count_cells(count, off, sites, phases, times, starts, points, kept, tpb, per_group, top_phase, top_step,
                 first, b0, b1):  # fmt: skip
    """Each cell's accesses counted (into first[cell + 1]) and each time given its block's start, thread by
    thread: the log's own order."""
    for b in range(b0, b1):
        group, start = kept[b] // per_group, starts[kept[b]]
        for s in range(b * tpb, (b + 1) * tpb):
            rank, last = 0, -1
            for k in range(_used(count, off, s)):
                j = off[s] + k
                rank = rank + 1 if phases[j] == last else 0
                last = phases[j]
                times[j] += start
                first[_cell(group, phases[j], points[sites[j]], rank, top_phase, top_step) + 1] += 1


@njit(cache=True, inline="always")
def _used(count, off, s):
    """Thread s's slots that hold an access: its accesses, or its slots where it made more (a run that only
    counted, or a hand-built log)."""
    return min(count[s], off[s + 1] - off[s])


@njit(cache=True, inline="always")
def _cell(group, phase, point, rank, top_phase, top_step):
    """An access's (group, phase, step) as one counter: its step is its site's point in a loop-free phase,
    else (point -1) the thread's rank among its accesses of the phase."""
    return (group * (top_phase + 1) + phase) * (top_step + 1) + (point if point >= 0 else rank)


@njit(cache=True)
def _block_times(times, count, off, kept, tpb, starts):
    """Each access's time from its block's start (the log holds times from 0 in each block)."""
    for b in range(count.size // tpb):
        start = starts[kept[b]]
        for s in range(b * tpb, (b + 1) * tpb):
            for k in range(_used(count, off, s)):
                times[off[s] + k] += start


@njit(cache=True)
def _rows_by_sort(count, off, sites, phases, points, kept, tpb, per_group, dest, top_phase, top_step):
    """The same order by a stable sort of one key per access (where the cells would outnumber the log)."""
    key = np.empty(off[count.size], np.int64)
    at = np.empty(off[count.size], np.int64)
    used, threads = 0, count.size
    for s in range(count.size):
        group = kept[s // tpb] // per_group
        rank, last = 0, -1
        for k in range(_used(count, off, s)):
            j = off[s] + k
            rank = rank + 1 if phases[j] == last else 0
            last = phases[j]
            key[used] = _cell(group, phases[j], points[sites[j]], rank, top_phase, top_step) * threads + s
            at[used] = j
            used += 1
    order = np.argsort(key[:used], kind="mergesort")
    for r in range(used):
        dest[at[order[r]]] = r


@njit(cache=True)
def _rows_in_time(count, off, times, dest, total, spare):
    """dest[j] reordered stably by time: counted per time where the times span no more than the log. Each row's
    time is gathered into row order once, and then replaced by the row's place in time order, so that the
    log is read in its own order and only `dest` is looked up at random."""
    at = np.empty(total, np.int64)  # each row's time, then its row in time order
    low, high = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for s in range(count.size):
        for k in range(_used(count, off, s)):
            j = off[s] + k
            at[dest[j]] = times[j]
            low, high = min(low, times[j]), max(high, times[j])
    for r in range(1, total):
        if at[r] < at[r - 1]:
            break
    else:  # in time order already (or no rows)
        return
    if high - low > total + spare:
        order = np.argsort(at, kind="mergesort")
        for r in range(total):
            at[order[r]] = r
    else:
        first = np.zeros(high - low + 2, np.int64)
        for r in range(total):
            first[at[r] - low + 1] += 1
        for c in range(high - low + 1):
            first[c + 1] += first[c]
        for r in range(total):  # rows in lockstep order: equal times keep it
            t = at[r] - low
            at[r] = first[t]
            first[t] += 1
    for s in range(count.size):
        for k in range(_used(count, off, s)):
            j = off[s] + k
            dest[j] = at[dest[j]]


@njit(cache=True, nogil=True)
def _scatter(column, dest, count, off, out, tpb, b0, b1):
    # thread by thread over the part: the log's own order, read in one sweep
    for s in range(b0 * tpb, b1 * tpb):
        for j in range(off[s], off[s] + _used(count, off, s)):
            out[dest[j]] = column[j]


@njit(cache=True, nogil=True)
def _site_columns(count, off, sites, site_of, kept, tpb, dest, array_of, kind_of, line_of, array, kind, line,
                  thread, request, b0, b1):  # fmt: skip
    """The columns a row's site and thread say (array, kind, line, thread), and its warp request, numbered by
    (warp, site, k-th execution) as group_requests numbers them (`site_of`: each of the log's sites' (line,
    array, kind), numbered in sorted order). A warp's lanes that executed a site k times also executed it
    0..k-1 times, so a warp has as many requests of a site as its busiest lane's executions of it: each
    site's first number is counted out, then each row's number is that plus its execution. The part's blocks
    (b0 to b1) are numbered from 0: the requests they make is returned."""
    n_sites = site_of.max() + 1 if site_of.size else 1
    # Each lane's executions of each site counted apart, lane after lane in the log's own order (a thread's
    # slots are adjacent: one sweep); `seen` says which warp and walk a lane's count belongs to, so that no
    # count is cleared.
    runs, seen = np.zeros((32, n_sites), np.int64), np.full((32, n_sites), -1, np.int64)
    first = np.zeros(n_sites, np.int64)
    next_request, walk = 0, 0
    for b in range(b0, b1):
        shift = kept[b] * tpb - b * tpb  # a slot's thread: its launch-wide number
        for w in range(0, tpb, 32):
            lo, hi = b * tpb + w, b * tpb + min(w + 32, tpb)
            first[:] = 0
            for s in range(lo, hi):  # the warp's busiest lane's executions of each site
                for j in range(off[s], off[s] + _used(count, off, s)):
                    c = site_of[sites[j]]
                    done = runs[s - lo, c] + 1 if seen[s - lo, c] == walk else 1
                    runs[s - lo, c], seen[s - lo, c] = done, walk
                    first[c] = max(first[c], done)
            walk += 1
            for c in range(n_sites):
                first[c], next_request = next_request, next_request + first[c]
            for s in range(lo, hi):
                for j in range(off[s], off[s] + _used(count, off, s)):
                    row, site = dest[j], sites[j]
                    c = site_of[site]
                    before = runs[s - lo, c] if seen[s - lo, c] == walk else 0
                    runs[s - lo, c], seen[s - lo, c] = before + 1, walk
                    array[row], kind[row], line[row] = array_of[site], kind_of[site], line_of[site]
                    thread[row] = shift + s
                    request[row] = first[c] + before
            walk += 1
    return next_request


@njit(cache=True, nogil=True)
def _add_requests(request, dest, count, off, tpb, b0, b1, offset):
    """The part's rows' requests moved past those of the parts before it."""
    if offset == 0:
        return
    for s in range(b0 * tpb, b1 * tpb):
        for j in range(off[s], off[s] + _used(count, off, s)):
            request[dest[j]] += offset
