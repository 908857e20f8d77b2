"""Divergence as far as the access log tells: lanes of one warp that did not execute the same lines
the same number of times took different paths.

Only lines that access memory are in the log, so a branch whose sides touch no memory is invisible,
and the order of the paths and the cycles lost to running them one after the other need the
engine's cost model: this module says which warps split and into how many groups, not what it cost.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.requests import WARP, Requests, group_requests
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
