"""Blocks over time: per-block SM, start and end, and the occupancy wave each block ran in."""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.model import Trace


def block_spans(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sm, start, end) of every block: its threads' earliest start and latest end."""
    per_block = int(np.prod(trace.block))
    threads = trace.threads
    sm = threads["sm"][::per_block]
    start = threads["t_start"].reshape(-1, per_block).min(axis=1)
    end = threads["t_end"].reshape(-1, per_block).max(axis=1)
    return sm, start, end


def block_waves(trace: Trace) -> np.ndarray:
    """Wave of every block: on its SM, how many blocks had to finish before it could start,
    counted in units of how many blocks that SM ran at once (0 = the first wave)."""
    sm, start, end = block_spans(trace)
    waves = np.zeros(len(sm), np.int64)
    for s in np.unique(sm):
        mine = np.flatnonzero(sm == s)
        order = mine[np.argsort(start[mine], kind="stable")]
        ended_before = np.searchsorted(np.sort(end[mine]), start[order], side="right")
        at_once = max(1, int((np.arange(len(order)) - ended_before).max()) + 1)
        waves[order] = ended_before // at_once
    return waves


def block_slots(sm: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """A row within its SM for every block, so that blocks resident together do not overlap:
    the lowest row free when the block starts (greedy interval partitioning)."""
    slots = np.zeros(len(sm), np.int64)
    for s in np.unique(sm):
        rows_end: list[int] = []
        mine = np.flatnonzero(sm == s)
        for block in mine[np.argsort(start[mine], kind="stable")]:
            free = next((r for r, finish in enumerate(rows_end) if finish <= start[block]), len(rows_end))
            if free == len(rows_end):
                rows_end.append(0)
            rows_end[free] = int(end[block])
            slots[block] = free
    return slots
