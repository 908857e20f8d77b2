"""Divergence from the rows, in NumPy: the reference the compiled count (gpuviz/core/analysis/path_counts.py)
is held equal to. It looks at every (thread, line) pair of the log; the app's analysis counts warp by warp
from the requests instead."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.divergence import lanes_per_warp
from gpuviz.core.analysis.memory_units import MIX_COUNT, MIX_LINE, WARP
from gpuviz.core.analysis.requests import dense_ids, global_warp, pack, sorted_unique
from gpuviz.core.trace.model import Trace


def line_counts(trace: Trace, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thread, line, how many accesses) of every (thread, line) pair in the log (or in its given
    rows), in that order."""
    thread, line = trace.accesses["thread"], trace.accesses["line"]
    if rows is not None:
        thread, line = thread[rows], line[rows]
    if len(thread) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    low, span = int(line.min()), int(line.max()) - int(line.min()) + 1
    first_thread = int(thread.min())
    if ((int(thread.max()) - first_thread + 1) * span).bit_length() > 62:
        pair, first = dense_ids(thread, line)  # pairs numbered in (thread, line) order
        return thread[first].astype(np.int64), line[first].astype(np.int64), np.bincount(pair, minlength=len(first))
    # Only the pairs and their counts are asked for, not each row's pair: one count of the packed
    # (thread, line) keys, by a table where their range is small, else one sort.
    key = (thread.astype(np.int64) - first_thread) * span + (line - low)
    pairs, counts = _counted_keys(key)
    return pairs // span + first_thread, pairs % span + low, counts


def _counted_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct keys, ascending; how many times each occurs) of non-negative keys."""
    top = int(key.max()) + 1
    if top <= 4 * len(key) + 1024:
        counts = np.bincount(key, minlength=top)
        present = np.flatnonzero(counts)
        return present, counts[present]
    key = np.sort(key)
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    return key[starts], np.diff(np.append(starts, len(key)))


def thread_paths(trace: Trace, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(threads that accessed memory, ascending; a signature for each, equal for threads that executed
    the same lines equally often). Threads with no access have signature 0."""
    pair_thread, line, counts = pairs
    if len(pair_thread) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64)
    with np.errstate(over="ignore"):
        mixed = line.astype(np.uint64) * MIX_LINE ^ (counts.astype(np.uint64) + np.uint64(1)) * MIX_COUNT
    starts = np.flatnonzero(np.concatenate([[True], pair_thread[1:] != pair_thread[:-1]]))
    with np.errstate(over="ignore"):
        return pair_thread[starts], np.add.reduceat(mixed, starts)


def warp_paths(trace: Trace, pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """How many different paths the lanes of each global warp took. A warp none of whose lanes is in
    the log took one, as far as the log tells; so only warps with a recorded access are compared
    (a launch that kept the accesses of a few blocks of millions is analysed in no time)."""
    per_block = int(np.prod(trace.block))
    warps_per_block = -(-per_block // WARP)
    paths = np.ones(int(np.prod(trace.grid)) * warps_per_block if trace.n_threads else 0, np.int64)
    threads, signature = thread_paths(trace, pairs)
    if len(threads) == 0:
        return paths
    touched = np.unique(global_warp(trace, threads))
    first_lane = (touched // warps_per_block) * per_block + (touched % warps_per_block) * WARP
    lanes_in = lanes_per_warp(trace)[touched]
    lane = np.repeat(first_lane, lanes_in) + _ranks(lanes_in)  # every lane of the touched warps, ascending
    lane_signature = np.zeros(len(lane), np.uint64)
    lane_signature[np.searchsorted(lane, threads)] = signature
    groups, counts = distinct_per_group(global_warp(trace, lane), dense_ids(lane_signature)[0])
    paths[groups] = counts
    return paths


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 for each n in sizes, one after the other."""
    ends = np.cumsum(sizes)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - sizes, sizes)


def distinct_per_group(group: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the groups present, in ascending order; how many distinct values each holds)."""
    if len(group) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = pack(group, value)
    if key is None:
        _, first = dense_ids(group, value)
        pair_group = np.sort(group[first])
    else:
        span = int(value.max()) - int(value.min()) + 1
        pair_group = sorted_unique(key) // span + int(group.min())
    starts = np.flatnonzero(np.concatenate([[True], pair_group[1:] != pair_group[:-1]]))
    counts = np.diff(np.append(starts, len(pair_group)))
    return pair_group[starts].astype(np.int64), counts.astype(np.int64)
