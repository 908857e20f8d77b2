"""Warp-sync divergence: a lane named in a syncwarp's mask that had not exited, and never reached a syncwarp
with the same mask (at any call site), leaves the lanes that did waiting for it; CUDA leaves that undefined.

The rule, as a pure function of what the simulator noted (backends/sim/syncwarps.py): each time lanes of a
warp meet at a syncwarp, their count of syncwarps with that mask goes up by one, and the meeting is the
n-th with that mask for them. A lane of the mask that was alive but elsewhere matches that meeting only if,
by the end of the launch, it made n syncwarps with the same mask itself. So a syncwarp in each branch of an
if/else matches (each side makes one), a lane that returned early is not waited for, and lanes a partial
last warp does not have are not named at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

FULL_MASK = 0xFFFFFFFF  # cuda.syncwarp() with no mask: every lane of the warp


@dataclass(frozen=True)
class Meeting:
    """Lanes of one warp that met at a syncwarp while other lanes of its mask were alive elsewhere."""

    warp: int  # global id of the warp's first thread
    mask: int
    instance: int  # the n-th syncwarp with this mask that the lanes that met have made
    met: tuple[int, ...]  # global ids of the lanes that met
    elsewhere: tuple[int, ...]  # global ids of the mask's lanes that had not exited and were elsewhere
    line: int


@dataclass(frozen=True)
class WarpSyncDivergence:
    """A meeting some lanes of its mask never matched: `missing` made fewer syncwarps with its mask."""

    meeting: Meeting
    missing: tuple[int, ...]


def unmatched(meetings: list[Meeting], calls: Mapping[int, np.ndarray]) -> list[WarpSyncDivergence]:
    """The meetings whose lanes elsewhere never made as many syncwarps with that mask; `calls[mask]` is each
    thread's count of syncwarps with `mask` over the whole launch (indexed by global thread id)."""
    found = []
    for meeting in meetings:
        counts = calls.get(meeting.mask)
        made = counts[list(meeting.elsewhere)] if counts is not None else np.zeros(len(meeting.elsewhere))
        missing = tuple(gid for gid, count in zip(meeting.elsewhere, made.tolist()) if count < meeting.instance)
        if missing:
            found.append(WarpSyncDivergence(meeting, missing))
    return found


def first_per_warp(found: list[WarpSyncDivergence]) -> list[WarpSyncDivergence]:
    """One divergence per warp (its first), as barrier divergence is reported once per block."""
    seen: dict[int, WarpSyncDivergence] = {}
    for divergence in found:
        seen.setdefault(divergence.meeting.warp, divergence)
    return list(seen.values())


def lane_ranges(lanes: list[int]) -> str:
    """'16-31', '3, 5-7': lane numbers as short ranges."""
    parts, ordered = [], sorted(set(lanes))
    start = previous = None
    for lane in ordered + [None]:
        if lane is not None and previous is not None and lane == previous + 1:
            previous = lane
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = lane
    return ", ".join(parts)
