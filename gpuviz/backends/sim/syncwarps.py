"""The syncwarps of one simulated launch, as both engines note them: how many syncwarps each thread made
with each mask, and each meeting that left lanes of its mask elsewhere. At the end of the launch the rule
of core/analysis/warp_sync.py finds the meetings never matched: warp-sync divergence, reported as barrier
divergence is (a warning, and an error record naming a lane that never came and one that waited)."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.faults import ErrorLog
from gpuviz.core.analysis.warp_sync import FULL_MASK, Meeting, first_per_warp, lane_ranges, unmatched
from gpuviz.core.launch import LaunchConfig, format_dims

MAX_MEETINGS = 20_000  # partial meetings kept; past it the rest are not judged, and a warning says so
WARP = 32


class SyncwarpLog:
    def __init__(self, threads: int):
        self.threads = threads
        self.calls: dict[int, np.ndarray] = {}  # mask -> syncwarps made with it, per thread (global id)
        self.meetings: list[Meeting] = []
        self.overflow = False

    def count(self, mask: int, gids: np.ndarray) -> None:
        """One more syncwarp with `mask` for each of these threads."""
        counts = self.calls.get(mask)
        if counts is None:  # only launches that call syncwarp pay for this
            counts = self.calls[mask] = np.zeros(self.threads, np.int32)
        counts[gids] += 1

    def meeting(self, warp: int, mask: int, met: np.ndarray, elsewhere: np.ndarray, line: int) -> None:
        """Lanes `met` (counted already) met while `elsewhere` (alive, of the mask) did not."""
        if len(self.meetings) >= MAX_MEETINGS:
            self.overflow = True
            return
        instance = int(self.calls[mask][met].max())
        self.meetings.append(Meeting(int(warp), int(mask), instance, tuple(int(g) for g in met),
                                     tuple(int(g) for g in elsewhere), int(line)))  # fmt: skip

    def report(self, config: LaunchConfig, errors: ErrorLog, warnings: list[str], room: int) -> int:
        """Record each warp with warp-sync divergence (an error, and up to `room` warnings); how many warps."""
        found = first_per_warp(unmatched(self.meetings, self.calls))
        for divergence in found:
            meeting = divergence.meeting
            errors.add_warp_sync_divergence(divergence.missing[0], meeting.met[0], meeting.line)
            if len(warnings) < room:
                warnings.append(_sentence(config, meeting, divergence.missing))
        if self.overflow and len(warnings) < room:
            warnings.append(f"warp-sync divergence: only the first {MAX_MEETINGS:,} partial syncwarps were checked")
        return len(found)


def mask_of(args: tuple) -> int:
    """The mask a syncwarp was given (a whole number), or the whole warp's when none was."""
    return int(args[0]) & FULL_MASK if args else FULL_MASK


def _sentence(config: LaunchConfig, meeting: Meeting, missing: tuple[int, ...]) -> str:
    per_block = config.threads_per_block
    block = meeting.warp // per_block
    gx, gy, _ = config.grid
    coords = (block % gx, block // gx % gy, block // (gx * gy))
    warp = meeting.warp % per_block // WARP
    away = lane_ranges([gid % per_block % WARP for gid in missing])
    here = lane_ranges([gid % per_block % WARP for gid in meeting.met])
    return (f"warp-sync divergence in block {format_dims(coords)} warp {warp}: lanes {away} of mask "
            f"{meeting.mask:#010x} had not exited and never reached a syncwarp with that mask, which lanes {here} "
            f"reached at line {meeting.line} (a GPU may hang or give wrong results)")  # fmt: skip
