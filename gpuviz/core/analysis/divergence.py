"""Divergence as far as the access log tells: lanes of one warp that did not execute the same lines
the same number of times took different paths.

Only lines that access memory are in the log, so a branch whose sides touch no memory is invisible,
and the order of the paths and the cycles lost to running them one after the other need the
engine's cost model: this module says which warps split and into how many groups, not what it cost.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.memory_units import MIX_COUNT, MIX_LINE
from gpuviz.core.analysis.requests import WARP, Requests, dense_ids, distinct_per_group, global_warp, group_requests
from gpuviz.core.thread_record import named_blocks
from gpuviz.core.trace.model import Trace

UNKNOWN = (
    "the cycles lost to divergence (the threads' times in the Threads view and the SM timeline show "
    "what the whole run took); lines that touch no memory are not recorded, so branches that only "
    "compute are not seen"
)


def lanes_per_warp(trace: Trace) -> np.ndarray:
    """How many lanes each global warp has (the last warp of a block may be partial)."""
    per_block = int(np.prod(trace.block))
    in_block = np.minimum(WARP, per_block - WARP * np.arange(-(-per_block // WARP)))
    return np.tile(in_block, int(np.prod(trace.grid)))


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


def divergence(trace: Trace, requests: Requests | None = None) -> dict:
    """Per warp, the groups of lanes that took different paths; per line, the warps in which only
    some lanes (or lanes a different number of times) executed it (path_counts.py, compiled).
    `requests`: the log's warp requests where the caller has them (else they are grouped here)."""
    from gpuviz.core.analysis.path_counts import path_counts  # numba: on first use, not with the app

    if requests is None:
        requests = group_requests(trace, ordered=False)
    per_block = int(np.prod(trace.block))
    paths, lines, warps, split = path_counts(requests, trace.accesses["thread"], lanes_per_warp(trace), per_block)
    if not trace.n_threads:
        paths = paths[:0]
    paths, scope = _recorded_only(trace, paths)
    histogram = np.bincount(paths) if len(paths) else np.zeros(1, np.int64)
    return {
        "warps": int(len(paths)),
        "scope": scope,
        "diverged_warps": int((paths > 1).sum()),
        "max_paths": int(paths.max()) if len(paths) else 0,
        "warps_by_paths": {str(k): int(v) for k, v in enumerate(histogram) if v and k},
        "lines": [{"line": int(a), "warps": int(b), "split_warps": int(c)} for a, b, c in zip(lines, warps, split)],
        "unknown": UNKNOWN,
    }


def _recorded_only(trace: Trace, paths: np.ndarray) -> tuple[np.ndarray, str]:
    """The warps of the blocks whose accesses were recorded (all, unless a launch too big for every
    access kept a few blocks'), and those words for the counts, e.g. " whose accesses were recorded
    (blocks 0 and 65,536)": of the others the log tells nothing."""
    recorded = trace.meta.get("recorded_blocks")
    blocks = int(np.prod(trace.grid))
    if recorded is None or not len(paths) or blocks == 0:
        return paths, ""
    return paths.reshape(blocks, -1)[recorded].reshape(-1), f" whose accesses were recorded ({named_blocks(recorded)})"
