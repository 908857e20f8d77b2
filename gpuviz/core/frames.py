"""Animation orders: which thread lights up when. Pure functions of a trace (no Qt)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.timeline import block_waves
from gpuviz.core.trace import Trace

ORDERS = ("logical", "as executed", "by SM waves")
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
