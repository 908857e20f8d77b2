"""The worker protocol: what the app asks a worker process for, and every message it answers with.

Small frozen dataclasses, all picklable. The worker sends the run's events (core/events.py: Stage,
Progress, LogLine) and what the script prints (ScriptOutput) as they happen, TraceReady per launch,
StreamsReady once the script has ended,
RunFailed on an error, and RunFinished last, always. The app gets a launch's trace before its
analysis (TraceReady, then AnalysisReady), so it can show the launch while the worker analyses it.
(A student's fix is checked by run/fix_check.py, in a worker of its own that answers in JSON.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuviz.core.events import LogLine, Progress, Stage
from gpuviz.core.options import RunOptions


@dataclass(frozen=True)
class RunRequest:
    script: str  # path of the script to run (the editor's text is saved to a file first)
    out_dir: str
    options: RunOptions = field(default_factory=RunOptions)
    overrides: tuple[tuple[int, tuple, tuple], ...] = ()  # (launch index, grid, block)
    timeout: float | None = None  # seconds; the run then ends with RunFailed saying where it was


@dataclass(frozen=True)
class TraceReady:
    """A launch's trace is saved and can be loaded; `analysed` False: saved before its analysis,
    which follows in an AnalysisReady (the file is then written again, with it)."""

    path: str
    launch: int
    kernel: str
    analysed: bool = True


@dataclass(frozen=True)
class AnalysisReady:
    """The analysis of a launch whose trace was sent before it (report.analyse's JSON-able dict)."""

    path: str
    launch: int
    analysis: dict


@dataclass(frozen=True)
class StreamsReady:
    """The whole run's stream timeline (core/streams.py's StreamTimeline as JSON), once the script has
    ended: the copies and events after its last launch are in it too."""

    timeline: dict


@dataclass(frozen=True)
class ScriptOutput:
    """What the script printed (stdout and stderr), as it printed it."""

    text: str


@dataclass(frozen=True)
class RunFailed:
    message: str  # one line
    line: int = 0  # the user's line, 0 when unknown


@dataclass(frozen=True)
class RunFinished:
    ok: bool  # False after RunFailed


Message = (
    Stage | Progress | LogLine | ScriptOutput | TraceReady | AnalysisReady | StreamsReady | RunFailed | RunFinished
)
