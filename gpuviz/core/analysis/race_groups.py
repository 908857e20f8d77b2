"""Which access-log rows can add a racing pair, found by compiled passes over the log (numba's CPU target).

Why compiled: done with NumPy, this filter was a dozen whole-log passes (masks, scatters, packs,
bincounts), each longer than a quarter of a small launch's backend run. Compiled, it is one pass for each
array's ranges, one that marks groups in a table, and a third that picks out rows only where some group
can race (most launches have none).

A row's group is its location where a barrier cannot order it: the element (array, index, grid epoch) of
a global array, and of a shared one also the block and block epoch (`by_block`; without it a shared
element is grouped over the whole launch, as races.py's descriptions want). A group can race when two
threads touch it and someone writes it. Groups are numbered straight from their fields where that table
stays small, else through an open-addressing hash table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gpuviz.core.analysis.runs import run_end

TABLE = 1 << 22  # groups numbered from their fields up to this many (or 4 per row), else hashed
TWO_THREADS, WRITTEN = 1, 2  # a group's flags


@dataclass(frozen=True)
class LogRanges:
    """What the race search needs to know of a whole access log, from one pass. Per array id: lowest and
    highest index, rows, whether any row writes, highest block epoch. Over the log: highest index, grid
    epoch and thread; whether any epoch is set; whether any access came after a fence."""

    runs: np.ndarray  # where each run of one array's rows starts, and the log's end
    low: np.ndarray
    high: np.ndarray
    rows: np.ndarray
    written: np.ndarray
    top_block_epoch: np.ndarray
    written_phases: np.ndarray  # [a, e]: some row of shared array a at block epoch e writes
    top_index: int
    top_grid_epoch: int
    top_thread: int
    any_epoch: bool
    any_fence: bool


def log_ranges(acc: dict, shared: np.ndarray) -> LogRanges:
    """The ranges of an access log whose arrays are numbered 0..len(shared)-1 (rows of other ids count only
    over the log); `shared[a]`: array a is shared."""
    runs = _runs(acc["array"])
    per_array, over_log, phases = _ranges(runs, acc["array"], acc["index"], acc["kind"], acc["epoch"], acc["thread"],
                                          shared)  # fmt: skip
    low, high, rows, written, top_block_epoch = per_array
    top_index, top_grid, top_thread, any_epoch, any_fence = (int(v) for v in over_log)
    return LogRanges(runs, low, high, rows, written.astype(bool), top_block_epoch, phases, top_index, top_grid,
                     top_thread, bool(any_epoch), bool(any_fence))  # fmt: skip


@njit(cache=True, nogil=True)
def _runs(array):
    """Where each run of rows of one array starts, and the end (instructions log their lanes together, so
    runs are long): compared 64 rows at a time, a loop the compiler can vectorise."""
    starts = np.empty(array.size + 1, np.int64)  # pages beyond the runs found are never touched
    # Unsigned positions: an index known not to be negative needs no test, so the compare loop vectorises.
    n, step = np.uint64(array.size), np.uint64(64)
    runs, r = 0, np.uint64(0)
    while r < n:
        starts[runs] = r
        runs, r = runs + 1, run_end(array, r, n, step)
    starts[runs] = n
    return starts[: runs + 1].copy()


@njit(cache=True, nogil=True)
def _ranges(runs, array, index, kind, epoch, thread, shared):
    """Run by run, every column's reductions in one loop over the run's rows (slice reductions such as
    `index[r:end].min()` ran no faster here and took seconds more to compile)."""
    n_arrays = shared.size
    per_array = np.zeros((5, n_arrays), np.int64)  # low, high, rows, written, top block epoch
    per_array[0, :] = np.iinfo(np.int64).max
    per_array[1, :] = np.iinfo(np.int64).min
    phases = np.zeros((n_arrays if shared.any() else 0, 1 << 16), np.bool_)
    top_index, top_thread, epochs_or, top_grid = np.iinfo(np.int64).min, 0, 0, 0
    for k in range(runs.size - 1):
        r, end = np.uint64(runs[k]), np.uint64(runs[k + 1])  # unsigned: no negative-index test, so the loops vectorise
        low, high, top, written, top_epoch, run_or = index[r], index[r], thread[r], 0, 0, 0
        for q in range(r, end):
            low, high, top = min(low, index[q]), max(high, index[q]), max(top, thread[q])
            written, top_epoch, run_or = max(written, kind[q]), max(top_epoch, epoch[q] & 65535), run_or | epoch[q]
        if run_or & (255 << 16):
            for q in range(r, end):
                top_grid = max(top_grid, (epoch[q] >> 16) & 255)
        top_index, top_thread, epochs_or = max(top_index, high), max(top_thread, top), epochs_or | run_or
        a = array[r]
        if 0 <= a < n_arrays:
            per_array[0, a], per_array[1, a] = min(per_array[0, a], low), max(per_array[1, a], high)
            per_array[2, a] += np.int64(end - r)
            per_array[3, a] |= written != 0
            per_array[4, a] = max(per_array[4, a], top_epoch)
            if shared[a] and written:
                for q in range(r, end):
                    if kind[q]:  # a store only where a row writes: most shared rows read
                        phases[a, epoch[q] & 65535] = True
    top_index = top_index if array.size else 0
    over_log = np.array([top_index, top_grid, top_thread, epochs_or != 0, (epochs_or >> 30) & 1], np.int64)
    return per_array, over_log, phases


def pairable_rows(acc: dict, ranges: LogRanges, shared: np.ndarray, per_block: int, by_block: bool, index_bits: int,
                  grid_bits: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(the rows of groups that two threads touch and someone writes, ascending; their element keys,
    (array << index_bits | index) << grid_bits | grid epoch). Only arrays someone writes are looked at;
    `shared[a]`: array a is shared (grouped by block and block epoch where `by_block`)."""
    plan, groups, hashed = _plan(ranges, shared, per_block, by_block)
    none = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if groups == 0:
        return none
    fields = acc["array"], acc["index"], acc["epoch"], acc["thread"], plan, ranges.top_grid_epoch + 1, per_block
    if hashed:
        group = _hashed_groups(*fields, groups)
    else:  # numbers of 32 bits where they fit: less to write and read
        group = np.empty(len(acc["array"]), np.int32 if groups < 1 << 31 else np.int64)
        _groups(ranges.runs, *fields, ranges.written_phases, group)
    flags, racy = _mark(group, acc["thread"], acc["kind"], groups)
    if racy == 0:  # no group can race: no row to pick out
        return none
    return _pick(group, flags, acc["array"], acc["index"], acc["epoch"], index_bits, grid_bits)


def _plan(ranges: LogRanges, shared: np.ndarray, per_block: int, by_block: bool) -> tuple[np.ndarray, int, bool]:
    """(per array: first group number (-1: not looked at), lowest index, indices, block epochs (0: not
    grouped by block); how many groups, or the hash table's size; whether groups are hashed). A group's
    number runs block by block, then element by element: a warp's neighbouring elements are neighbours
    in the table too."""
    n_arrays = len(ranges.rows)
    plan = np.full((n_arrays, 4), -1, np.int64)
    blocks = ranges.top_thread // per_block + 1
    grid_span = ranges.top_grid_epoch + 1
    total, rows = 0, 0
    for a in np.flatnonzero(ranges.written).tolist():
        epochs = int(ranges.top_block_epoch[a]) + 1 if by_block and a < len(shared) and shared[a] else 0
        indices = int(ranges.high[a]) - int(ranges.low[a]) + 1
        plan[a] = total, ranges.low[a], indices, epochs
        total += (blocks * epochs if epochs else 1) * indices * grid_span
        rows += int(ranges.rows[a])
    if total <= max(4 * rows + 1024, TABLE):
        return plan, total, False
    return plan, 1 << max(4, (2 * rows).bit_length()), True  # at most half full


@njit(cache=True, nogil=True)
def _groups(runs, array, index, epoch, thread, plan, grid_span, per_block, phases, group):
    """Each row's group number into `group`, from its fields (-1: an array not looked at, or a shared
    array's row at a block epoch no block wrote it in: a group with no write adds no pair)."""
    inverse = 1.0 / per_block  # thread // per_block, exact below 2**19 threads a block (CUDA allows 1,024)
    for k in range(runs.size - 1):
        r, end, a = np.uint64(runs[k]), np.uint64(runs[k + 1]), array[runs[k]]  # unsigned: as in _ranges
        if not (0 <= a < plan.shape[0] and plan[a, 0] >= 0):
            group[r:end] = -1
            continue
        base, low, indices, epochs = plan[a, 0], plan[a, 1], plan[a, 2], plan[a, 3]
        if not epochs:
            for q in range(r, end):
                group[q] = base + (index[q] - low) * grid_span + ((epoch[q] >> 16) & 255)
            continue
        group[r:end] = -1
        for q in range(r, end):
            e = np.int64(epoch[q])
            if phases[a, e & 65535]:
                within = np.int64((thread[q] + 0.5) * inverse) * epochs + (e & 65535)
                group[q] = base + (within * indices + index[q] - low) * grid_span + ((e >> 16) & 255)


@njit(cache=True, nogil=True)
def _hashed_groups(array, index, epoch, thread, plan, grid_span, per_block, size):
    """Each row's group number, its slot in an open-addressing hash table of `size` slots (-1: an array
    not looked at). A slot holds index, array and grid epoch, block and block epoch (-1: not by block)."""
    keys = np.zeros((size, 3), np.int64)
    taken = np.zeros(size, np.bool_)
    group = np.full(array.size, -1, np.int64)
    for r in range(array.size):
        a = array[r]
        if not (0 <= a < plan.shape[0] and plan[a, 0] >= 0):
            continue
        e = np.int64(epoch[r])
        x, y, z = np.int64(index[r]), np.int64(a) * 256 + ((e >> 16) & 255), np.int64(-1)
        if plan[a, 3]:
            z = thread[r] // per_block * plan[a, 3] + (e & 65535)
        h = x * np.int64(-7046029254386353131) + y * np.int64(0x27D4EB2F165667C5) + z * np.int64(-4658895280553007687)
        s = (h ^ (h >> 31)) & (size - 1)
        while taken[s] and (keys[s, 0] != x or keys[s, 1] != y or keys[s, 2] != z):
            s = (s + 1) & (size - 1)
        if not taken[s]:
            keys[s, 0], keys[s, 1], keys[s, 2], taken[s] = x, y, z, True
        group[r] = s
    return group


@njit(cache=True, nogil=True)
def _mark(group, thread, kind, groups):
    """(each group's flags; how many groups can race)."""
    first = np.full(groups, -1, np.int32)  # a thread that touched the group
    flags = np.zeros(groups, np.uint8)
    racy = 0
    for r in range(group.size):
        g = group[r]
        if g < 0:
            continue
        before = flags[g]
        now = before
        if first[g] < 0:
            first[g] = thread[r]
        elif first[g] != thread[r]:
            now |= TWO_THREADS
        if kind[r] != 0:
            now |= WRITTEN
        if now != before:
            flags[g] = now
            racy += now == TWO_THREADS | WRITTEN
    return flags, racy


@njit(cache=True, nogil=True)
def _pick(group, flags, array, index, epoch, index_bits, grid_bits):
    """(the rows of groups that can race; their element keys)."""
    most = 0
    for r in range(group.size):
        most += group[r] >= 0 and flags[group[r]] == TWO_THREADS | WRITTEN
    rows = np.empty(most, np.int64)
    element = np.empty(most, np.int64)
    k = 0
    for r in range(group.size):
        if group[r] >= 0 and flags[group[r]] == TWO_THREADS | WRITTEN:
            rows[k] = r
            element[k] = (((np.int64(array[r]) << index_bits) | index[r]) << grid_bits) | ((epoch[r] >> 16) & 255)
            k += 1
    return rows, element
