"""The worker's host: starts a worker process (its body is run/worker.py), runs kernels there and reports back
as Qt signals; the GUI thread never runs one."""

from __future__ import annotations

import multiprocessing
import queue

from PySide6.QtCore import QObject, QTimer, Signal

from gpuviz.core.events import LogLine, Progress, Stage
from gpuviz.run.messages import (
    AnalysisReady,
    FixChecked,
    FixRequest,
    RunFailed,
    RunFinished,
    RunRequest,
    ScriptOutput,
    TraceReady,
)
from gpuviz.run.worker import worker_main

POLL_MS = 40


class WorkerHost(QObject):
    stage = Signal(object)  # Stage
    progress = Signal(object)  # Progress
    log = Signal(str)
    output = Signal(str)  # what the script printed
    trace_ready = Signal(object)  # TraceReady
    fix_checked = Signal(object)  # FixChecked: the answer to a FixRequest
    analysis_ready = Signal(object)  # AnalysisReady: a launch's analysis, after its trace
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

    @property
    def running(self) -> bool:
        return self._process is not None

    def start(self, request: RunRequest | FixRequest) -> None:
        self.stop()
        self._queue = self._context.Queue()
        self._process = self._context.Process(target=worker_main, args=(request, self._queue), daemon=True)
        self._process.start()
        self._timer.start()
        self.stage.emit(Stage("starting", "starting"))

    def stop(self) -> None:
        """Kill the worker: an endless kernel stops at once."""
        if self._process is None:
            return
        self._process.kill()
        self._process.join(1.0)
        self._cleanup()
        self.stage.emit(Stage("stopped", "stopped"))
        self.finished.emit(False)

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
        elif isinstance(message, FixChecked):
            self.fix_checked.emit(message)
        elif isinstance(message, AnalysisReady):
            self.analysis_ready.emit(message)
        elif isinstance(message, RunFailed):
            self.failed.emit(message.message, message.line)
        return False

    def _cleanup(self) -> None:
        self._timer.stop()
        if self._queue is not None:
            self._queue.close()
        self._process = self._queue = None
