"""Time left in a launch, from the rate its blocks have run at so far. Says nothing until the rate
means something: a launch measured too briefly, or over too few blocks, has no estimate."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from gpuviz.core.events import Notify, Progress

MIN_SECONDS = 1.0  # measured for at least this long (startup and the first blocks are noisy)
MIN_FRACTION = 0.05  # and over at least this share of the launch's blocks
REPORT_EVERY = 0.1  # seconds between an engine's Progress messages (the last block is always reported)


def time_left(done: int, total: int, first_done: int, elapsed: float) -> float | None:
    """Seconds left when `done - first_done` blocks took `elapsed` seconds; None while unknown."""
    counted = done - first_done
    if done >= total or elapsed < MIN_SECONDS or counted < max(1, MIN_FRACTION * total):
        return None
    return (total - done) * elapsed / counted


def describe_left(seconds: float) -> str:
    """'about 12 s left', 'about 3 min left'."""
    if seconds < 1:
        return "under a second left"
    if seconds < 90:
        return f"about {seconds:.0f} s left"
    return f"about {seconds / 60:.0f} min left"


def progress_text(progress: Progress, left: float | None) -> str:
    """'blocks 512 of 1,024, about 3 s left' (without the time while it is unknown)."""
    text = f"blocks {progress.done:,} of {progress.total:,}"
    return text if left is None else f"{text}, {describe_left(left)}"


@dataclass
class LaunchClock:
    """Follows one launch's Progress messages (a new launch starts when the total changes or the count
    goes back) and estimates its time left from the rate since its first message."""

    total: int = -1
    done: int = 0
    first_done: int = 0
    started: float = 0.0  # when the first message of the launch arrived

    def update(self, progress: Progress, now: float) -> float | None:
        if progress.total != self.total or progress.done < self.done:
            self.total, self.first_done, self.started = progress.total, progress.done, now
        self.done = progress.done
        return time_left(progress.done, progress.total, self.first_done, now - self.started)


class BlockProgress:
    """An engine's side: counts a launch's blocks as they finish and sends Progress at most every
    REPORT_EVERY seconds, and always for the last block."""

    def __init__(self, notify: Notify, total: int, clock: Callable[[], float] = time.perf_counter) -> None:
        self.notify, self.total, self.clock = notify, total, clock
        self.done = 0
        self._last = -REPORT_EVERY

    def finished(self, blocks: int = 1) -> None:
        self.done += blocks
        now = self.clock()
        if self.done >= self.total or now - self._last >= REPORT_EVERY:
            self._last = now
            self.notify(Progress(self.done, self.total))
