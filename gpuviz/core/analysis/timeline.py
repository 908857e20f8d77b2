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


def most_at_once(sm: np.ndarray, start: np.ndarray, end: np.ndarray) -> int:
    """The most blocks that ran on one SM at the same time."""
    most = 1
    for s in np.unique(sm):
        mine = sm == s
        begins, ends = np.sort(start[mine]), np.sort(end[mine])
        running = np.arange(1, len(begins) + 1) - np.searchsorted(ends, begins, side="right")
        most = max(most, int(running.max()))
    return most


def bar_legend(count: int, palette: np.ndarray, mode: str = "wave") -> list[tuple[tuple[int, int, int], str]]:
    """What the bars' colours mean: a palette colour per wave (or block), said once each."""
    items = [(tuple(int(c) for c in palette[k]), f"{mode} {k}") for k in range(min(count, len(palette)))]
    repeat = f" (colours repeat every {len(palette)} {mode}s)" if count > len(palette) else ""
    return [*items[:-1], (items[-1][0], items[-1][1] + repeat)] if items else []


def time_axis_words(unit: str) -> str:
    """The time axis's label with where the times come from (core/fidelity.py): the simulator's ticks are
    its model's cycles, a GPU's times are measured."""
    return "time in cycles (model)" if unit == "tick" else f"time in {unit} (measured)"
