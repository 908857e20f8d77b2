"""The worker's host: starts a worker process (its body is run/worker.py), runs kernels there and reports back
as Qt signals; the GUI thread never runs one. Warmed (`warm`), it keeps one worker started ahead, its imports
done, waiting for the next run: the first Run of a session is then about as fast as the ones after it."""

from __future__ import annotations

import multiprocessing
import os
import queue

from PySide6.QtCore import QObject, QTimer, Signal

from gpuviz.core.events import LogLine, Progress, Stage
from gpuviz.run.messages import (
    AnalysisReady,
    RunFailed,
    RunFinished,
    RunRequest,
    ScriptOutput,
    StreamsReady,
    TraceReady,
)
from gpuviz.run.worker import waiting_worker_main, worker_main

POLL_MS = 40
REWARM_MS = 500  # after a run, the next spare worker starts once the app has shown the run


def warm_start_wanted() -> bool:
    """Whether the app starts a worker ahead as it opens: GPUVIZ_WARM_WORKER=0 says no (the test suite,
    which opens many windows, sets it)."""
    return os.environ.get("GPUVIZ_WARM_WORKER", "1") != "0"


class WorkerHost(QObject):
    stage = Signal(object)  # Stage
    progress = Signal(object)  # Progress
    log = Signal(str)
    output = Signal(str)  # what the script printed
    trace_ready = Signal(object)  # TraceReady
    analysis_ready = Signal(object)  # AnalysisReady: a launch's analysis, after its trace
    streams_ready = Signal(object)  # StreamsReady: the run's stream timeline, once the script has ended
    failed = Signal(str, int)  # message, line (0 when unknown)
    finished = Signal(bool)  # True when the run completed, False when it failed or was stopped

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = multiprocessing.get_context("spawn")
        self._process = None
        self._queue = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)
        self._requests = None  # the queue that gave a spare worker its request
        self._spare = None  # (process, requests, messages): a worker started ahead, waiting for a request
        self._keep_warm = False
        self._rewarm = QTimer(self)
        self._rewarm.setSingleShot(True)
        self._rewarm.setInterval(REWARM_MS)
        self._rewarm.timeout.connect(self.warm)

    @property
    def running(self) -> bool:
        return self._process is not None

    def warm(self) -> None:
        """Start a worker ahead of the next run (and another after each run), unless one waits already."""
        self._keep_warm = True
        if self._spare is not None or self._process is not None:
            return
        requests, messages = self._context.Queue(), self._context.Queue()
        process = self._context.Process(target=waiting_worker_main, args=(requests, messages), daemon=True)
        process.start()
        self._spare = (process, requests, messages)

    @property
    def spare_process(self):
        """The worker waiting for the next run, or None."""
        return self._spare[0] if self._spare is not None else None

    def start(self, request: RunRequest) -> None:
        self.stop()
        self._rewarm.stop()
        spare, self._spare = self._spare, None
        if spare is not None and spare[0].is_alive():
            self._process, self._requests, self._queue = spare
            self._requests.put(request)  # kept until the run ends: the worker may not have unpickled it yet
        else:
            if spare is not None:
                _end(*spare)
            self._queue = self._context.Queue()
            self._process = self._context.Process(target=worker_main, args=(request, self._queue), daemon=True)
            self._process.start()
        self._timer.start()
        self.stage.emit(Stage("starting", "starting"))

    def stop(self) -> None:
        """Kill the worker: an endless kernel stops at once."""
        if self._process is None:
            return
        _kill(self._process)
        self._cleanup()
        self.stage.emit(Stage("stopped", "stopped"))
        self.finished.emit(False)

    def close(self) -> None:
        """Stop any run and end the worker waiting ahead: no process outlives the window."""
        self._keep_warm = False
        self._rewarm.stop()
        self.stop()
        spare, self._spare = self._spare, None
        if spare is not None:
            _end(*spare)

    def _poll(self) -> None:
        while self._queue is not None:
            try:
                message = self._queue.get_nowait()
            except queue.Empty:
                break
            if self._handle(message):
                return
        if self._process is not None and not self._process.is_alive():
            code = self._process.exitcode
            self._cleanup()
            self.failed.emit(f"the worker process died (exit code {code})", 0)
            self.finished.emit(False)

    def _handle(self, message) -> bool:
        """Pass one message on as its signal; True once the run is over."""
        if isinstance(message, RunFinished):
            self._process.join(2.0)
            if self._process.is_alive():  # still closing its queues on a busy machine: no process outlives its run
                _kill(self._process)
            self._cleanup()
            self.finished.emit(message.ok)
            return True
        if isinstance(message, Stage):
            self.stage.emit(message)
        elif isinstance(message, Progress):
            self.progress.emit(message)
        elif isinstance(message, LogLine):
            self.log.emit(message.text)
        elif isinstance(message, ScriptOutput):
            self.output.emit(message.text)
        elif isinstance(message, TraceReady):
            self.trace_ready.emit(message)
        elif isinstance(message, AnalysisReady):
            self.analysis_ready.emit(message)
        elif isinstance(message, StreamsReady):
            self.streams_ready.emit(message)
        elif isinstance(message, RunFailed):
            self.failed.emit(message.message, message.line)
        return False

    def _cleanup(self) -> None:
        self._timer.stop()
        if self._queue is not None:
            self._queue.close()
        if self._requests is not None:
            self._requests.close()
        self._process = self._queue = self._requests = None
        if self._keep_warm:
            self._rewarm.start()


def _end(process, requests, messages) -> None:
    _kill(process)
    requests.close()
    messages.close()


KILL_WAIT = 30.0  # seconds: a killed process is gone at once, reaped when the system gets to it (a busy one later)


def _kill(process) -> None:
    """Kill the process and wait until it is reaped, so that none is left behind the window."""
    process.kill()
    process.join(KILL_WAIT)
