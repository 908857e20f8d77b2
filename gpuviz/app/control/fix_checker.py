"""Checks a student's fix of a lesson with the same code as `gpuviz demo --check-fix` (run/fix_check.py): the
editor's text is saved to a file, a thread of this process waits on the watched worker that runs it (never
the window's thread) and judges the traces; the verdict comes back to the GUI thread as a signal."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from gpuviz.core.errors import GpuvizError
from gpuviz.run.fix_check import FixResult, check_fix


class FixChecker(QObject):
    checked = Signal(object)  # FixResult: the code ran to the end of the lesson's script and was judged
    failed = Signal(str)  # the code did not run to the end (refused, stopped, failed): one line
    _answered = Signal(object, int)  # FixResult or the message of a GpuvizError, and the check's number

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work = tempfile.TemporaryDirectory(prefix="gpuviz-fix-")
        self._count = 0
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._answered.connect(self._on_answered)  # queued: emitted from the checking thread

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def check(self, entry, text: str, backend: str = "auto") -> None:
        """Hold the editor's `text` against the lesson's fix checks; a check still running is stopped first."""
        self._stop()
        self._count += 1
        script = Path(self._work.name) / f"fix{self._count}" / entry.path.name
        script.parent.mkdir(parents=True)
        script.write_text(text, encoding="utf-8")
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(entry, script, backend, self._cancel, self._count),
                                        name="gpuviz-fix-check", daemon=True)  # fmt: skip
        self._thread.start()

    def close(self) -> None:
        self._stop()
        self._work.cleanup()

    def _stop(self) -> None:
        """Stop a running check: its worker is killed, and its thread ends soon after."""
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(10.0)
        self._thread = None

    def _run(self, entry, script: Path, backend: str, cancel: threading.Event, number: int) -> None:
        try:
            answer: FixResult | str = check_fix(entry, script, backend=backend, cancel=cancel)
        except GpuvizError as exc:
            answer = str(exc)
        if not cancel.is_set():
            self._answered.emit(answer, number)

    def _on_answered(self, answer: FixResult | str, number: int) -> None:
        if number != self._count:
            return  # an older check's answer, come after a newer check started
        if isinstance(answer, FixResult) and answer.ran:
            self.checked.emit(answer)
        else:
            self.failed.emit(answer.reason if isinstance(answer, FixResult) else answer)
