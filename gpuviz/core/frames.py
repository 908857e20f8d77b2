"""Animation frames: which thread lights up when, in each order. Pure functions of a trace (no Qt)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.timeline import block_waves
from gpuviz.core.trace.model import Trace

REPLAY = "replay"  # the recorded execution, event by event (traces with accesses): core/replay.py
ORDERS = (REPLAY, "logical", "as executed", "by SM waves")
MAX_FRAMES = 400


def ranks(trace: Trace, order: str) -> np.ndarray:
    """Per thread, the step at which it starts: smaller is earlier."""
    n = trace.n_threads
    per_block = int(np.prod(trace.block))
    if order == "logical":  # block by block, warp by warp
        block = np.arange(n) // per_block
        return block * ((per_block + 31) // 32) + trace.threads["warp"]
    if order == "as executed":
        return trace.threads["t_start"].astype(np.int64)
    if order == "by SM waves":
        return np.repeat(block_waves(trace), per_block)
    raise ValueError(f"unknown order {order!r}; orders: {', '.join(ORDERS)}")


def thresholds(rank: np.ndarray, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """The rank shown up to at each frame: every distinct step, or evenly spread ones when many."""
    steps = np.unique(rank) if len(rank) < 1 << 22 else np.unique(rank[:: max(1, len(rank) >> 20)])
    if len(steps) <= max_frames:
        return steps
    pick = np.linspace(0, len(steps) - 1, max_frames).round().astype(np.int64)
    return steps[pick]


@dataclass(frozen=True)
class FramePlan:
    """How the threads of one z layer light up: `order` lists the layer's threads (offsets from
    `first`) earliest first; frame k shows the first `limits[k]` of them."""

    first: int  # global id of the layer's first thread
    order: np.ndarray
    limits: np.ndarray | range  # the replay's is range(events + 1): no array of millions to build

    @property
    def count(self) -> int:
        return len(self.limits)


def frame_plan(trace: Trace, order: str, layer: int = 0, max_frames: int = MAX_FRAMES) -> FramePlan:
    """The frames of a trace's z layer in an animation order; in the replay, frame k is the cursor
    after k events (the views ask core/replay.py what that frame shows)."""
    if order == REPLAY:
        events = len(trace.accesses["thread"]) if trace.accesses is not None else 0
        return FramePlan(0, np.zeros(0, np.int64), range(events + 1))
    per_layer = trace.n_threads // max(1, trace.grid[2])
    first = layer * per_layer
    rank = ranks(trace, order)[first : first + per_layer]
    ordered = np.argsort(rank, kind="stable")
    limits = np.searchsorted(rank[ordered], thresholds(rank, max_frames), side="right")
    return FramePlan(first, ordered, limits)


EMPTY_PLAN = FramePlan(0, np.zeros(0, np.int64), np.zeros(0, np.int64))
