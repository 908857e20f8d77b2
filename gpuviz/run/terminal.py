"""The command line's `notify`: launch lines and warnings, the stages worth waiting for, and progress:
a bar redrawn in place on a terminal, an occasional plain line when stderr is a file or a pipe."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from typing import TextIO

from gpuviz.core.events import Event, LogLine, Progress, Stage
from gpuviz.core.progress import LaunchClock, describe_left, progress_text

PLAIN_EVERY = 10.0  # seconds between progress lines in a log (a terminal redraws its bar instead)


def print_report(line: str, stream: TextIO | None = None) -> None:
    sys.stdout.flush()  # keep the script's own output and the launch lines in order
    print(line, file=stream or sys.stderr, flush=True)


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """The script's output (Python's and the C library's, e.g. a GPU kernel's printf) goes to stderr while
    it runs, so that stdout holds only the JSON a command prints after it."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        with redirect_stdout(sys.stderr):  # Python's own stdout too, where it is not fd 1 (a captured one)
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def progress_bar(progress: Progress, width: int = 30, left: float | None = None) -> str:
    """One terminal line, redrawn in place: `[gpuviz] [#####.....] 512/1,024 blocks, about 3 s left`."""
    filled = width * progress.done // max(progress.total, 1)
    time_left = f", {describe_left(left)}" if left is not None else ""
    return f"\r[gpuviz] [{'#' * filled}{'.' * (width - filled)}] {progress.done:,}/{progress.total:,} blocks{time_left}"


class TerminalEvents:
    """A `notify` for the command line (one per run: it follows the launches' progress)."""

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.clock = clock
        self.launch = LaunchClock()
        self.bar_open = 0  # length of a bar line not yet ended, 0 when none
        self.last_plain = 0.0  # when the last plain progress line was written

    def __call__(self, event: Event) -> None:
        if isinstance(event, LogLine):
            self._line(event.text)
        elif isinstance(event, Stage) and event.stage == "compiling":
            self._line(f"[gpuviz] {event.detail}")
        elif isinstance(event, Progress):
            left = self.launch.update(event, self.clock())
            self._bar(event, left) if self.stream.isatty() else self._plain(event, left)

    def _line(self, text: str) -> None:
        if self.bar_open:  # a launch that stopped half way leaves its bar: the line goes below it
            self.stream.write("\n")
            self.bar_open = 0
        print_report(text, self.stream)

    def _bar(self, progress: Progress, left: float | None) -> None:
        line = progress_bar(progress, left=left)
        finished = progress.done >= progress.total
        padding = " " * max(0, self.bar_open - len(line))  # a shorter line wipes the longer one it replaces
        self.stream.write(line + padding + ("\n" if finished else ""))
        self.stream.flush()
        self.bar_open = 0 if finished else len(line)

    def _plain(self, progress: Progress, left: float | None) -> None:
        """A line every PLAIN_EVERY seconds of a long launch: a short one writes none."""
        now = self.clock()
        since = max(self.last_plain, self.launch.started)
        if progress.done < progress.total and now - since >= PLAIN_EVERY:
            self.last_plain = now
            print_report(f"[gpuviz] {progress_text(progress, left)}", self.stream)
