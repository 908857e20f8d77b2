"""The worker's body: what a worker process does for the app (app/control/worker_host.py starts and hosts
it). Qt-free; it speaks run/messages.py.

The app sends a RunRequest to a fresh process (or to one started early that waits for it, warmed up:
waiting_worker_main) and reads messages from a queue. Each launch's trace
is sent as soon as it is saved, and its analysis once it is done (the file is then written again). A crash or an
endless kernel never reaches the window: the app kills the process.
"""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

from gpuviz.core.events import LogLine, Stage
from gpuviz.run.messages import (
    AnalysisReady,
    Message,
    RunFailed,
    RunFinished,
    RunRequest,
    ScriptOutput,
    StreamsReady,
    TraceReady,
)

__all__ = ["RunRequest", "execute", "waiting_worker_main", "worker_main"]


def execute(request: RunRequest, send: Callable[[Message], None],
            last_words: Callable[[str], None] | None = None) -> None:  # fmt: skip
    """Run the script, sending its events, traces and errors through `send`; RunFinished comes last.
    `last_words(message)` is called when a run past its timeout cannot be interrupted (the process ends)."""
    from gpuviz.core.errors import GpuvizError
    from gpuviz.program.script import run_script
    from gpuviz.run.session import Session
    from gpuviz.run.watchdog import Watchdog

    overrides = {index: (grid, block) for index, grid, block in request.overrides}

    def unanalysed(path, index: int, kernel: str) -> None:
        send(TraceReady(str(path), index, kernel, analysed=False))

    def analysed(record, trace) -> None:
        send(AnalysisReady(str(record.path), record.index, trace.analysis))

    session = Session(request.options, out_dir=request.out_dir, notify=send, overrides=overrides,
                      on_trace=analysed, on_unanalysed=unanalysed)  # fmt: skip
    ok = False
    printed = _Printed(send)
    try:
        send(Stage("starting", "starting"))
        limit = None
        if request.timeout:
            limit = Watchdog(request.timeout, session, request.script, on_stuck=last_words,
                             hint="give it a longer timeout")  # fmt: skip
        with limit or nullcontext(), contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            run_script(request.script, session)
        if session.records:
            ok = True
            send(StreamsReady(session.timeline.snapshot(wait=True).to_json()))
        else:
            send(RunFailed("the script launched no kernel"))
    except GpuvizError as exc:
        send(RunFailed(str(exc), getattr(exc, "line", None) or 0))
    except BaseException as exc:  # the worker must always answer, whatever the script did
        send(RunFailed(f"{type(exc).__name__}: {exc}"))
        send(LogLine(traceback.format_exc()))
    printed.flush()
    send(RunFinished(ok))


class _Printed(io.TextIOBase):
    """The script's stdout and stderr, sent to the app a line (or a buffer) at a time."""

    def __init__(self, send: Callable[[Message], None]) -> None:
        self.send = send
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        if "\n" in text or len(self.pending) > 4096:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.send(ScriptOutput(self.pending))
            self.pending = ""


ANALYSIS_NICENESS = 5  # how far the worker steps back once the app has a trace to load


def _behind_the_window() -> None:
    """Lower this worker's priority (once): on a machine with few cores, the app's loading thread,
    which the student waits for, then runs before the analysis, which arrives later anyway."""
    with contextlib.suppress(OSError, AttributeError):  # no os.nice on Windows
        now = os.nice(0)
        if now < ANALYSIS_NICENESS:
            os.nice(ANALYSIS_NICENESS - now)


def worker_main(request: RunRequest, queue) -> None:
    """Entry point of the worker process: it dies with its parent (run/lifeline.py), and it exists to
    run and analyse, so it keeps freed memory."""
    from gpuviz.run.allocator import keep_freed_memory
    from gpuviz.run.lifeline import die_with_parent

    die_with_parent()
    keep_freed_memory()
    _serve(request, queue)


def waiting_worker_main(requests, queue) -> None:
    """Entry point of a worker started before it is needed (when the app opens): it imports and runs what
    every run needs on a tiny built-in kernel, then waits for its one request (None: end unused)."""
    from gpuviz.run.allocator import keep_freed_memory
    from gpuviz.run.lifeline import die_with_parent

    die_with_parent()
    keep_freed_memory()
    with contextlib.suppress(Exception):  # a warm-up that fails only leaves the first run as slow as before
        warm_up()
    request = requests.get()
    if request is not None:
        _serve(request, queue)


WARM_UP_SCRIPT = """\
import numpy as np
from numba import cuda


@cuda.jit
def warm_up(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] + 1


a = np.arange(64, dtype=np.float32)
b = np.zeros_like(a)
warm_up[2, 32](a, b)
"""


def warm_up() -> None:
    """Import, run, save and analyse one tiny built-in launch on the simulator, as a run would: the imports
    (numba, numpy, the engines, the analysis) then cost the first Run nothing."""
    import tempfile

    from gpuviz.core.options import RunOptions
    from gpuviz.program.script import run_script
    from gpuviz.run.session import Session

    with tempfile.TemporaryDirectory(prefix="gpuviz-warm-") as folder:
        script = Path(folder) / "warm_up.py"
        script.write_text(WARM_UP_SCRIPT, encoding="utf-8")
        session = Session(RunOptions(backend="sim"), out_dir=str(Path(folder) / "traces"), notify=lambda _m: None)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            run_script(script, session)


def _serve(request: RunRequest, queue) -> None:
    Path(request.out_dir).mkdir(parents=True, exist_ok=True)
    execute(request, lambda message: _send_from_worker(queue, message), lambda message: _last_words(queue, message))


def _send_from_worker(queue, message: Message) -> None:
    queue.put(message)
    if isinstance(message, TraceReady) and not message.analysed:  # the app now loads this trace
        _behind_the_window()


def _last_words(queue, message: str) -> None:
    """Answer the app before the process ends: the queue's feeder thread must deliver first."""
    queue.put(RunFailed(message))
    queue.put(RunFinished(False))
    queue.close()
    queue.join_thread()
