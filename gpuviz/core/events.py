"""What a launch reports while it runs: small frozen dataclasses, picklable across processes.

Backends and the session send these to a `notify` callable; the command line prints them, the app's
worker forwards them to the window. Nobody parses text to learn what stage a run is in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

STAGES = ("starting", "compiling", "running", "recording", "analysing")


@dataclass(frozen=True)
class Stage:
    """The run entered a stage; `detail` is the line shown to the user."""

    stage: str  # one of STAGES
    detail: str = ""


@dataclass(frozen=True)
class Progress:
    """Blocks of the current launch done so far."""

    done: int
    total: int


@dataclass(frozen=True)
class LogLine:
    """A line for the log: a launch summary, a warning."""

    text: str


Event = Stage | Progress | LogLine
Notify = Callable[[Event], None]


def ignore(event: Event) -> None:
    """A `notify` that drops everything (the Python API's quiet sessions)."""
