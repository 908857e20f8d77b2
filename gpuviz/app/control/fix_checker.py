"""Checks a student's fix of a lesson in a worker process of its own (never in the window's process):
the editor's text is saved to a file and run with the lesson's settings against its fix checks."""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from gpuviz.app.control.worker_host import WorkerHost
from gpuviz.run.messages import FixRequest


class FixChecker(QObject):
    checked = Signal(object)  # FixChecked
    failed = Signal(str)  # the code did not run: one line

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runs = WorkerHost(self)
        self._work = tempfile.TemporaryDirectory(prefix="gpuviz-fix-")
        self._count = 0
        self._answered = False
        self.runs.fix_checked.connect(self._on_checked)
        self.runs.failed.connect(lambda message, _line: self._on_failed(message))
        self.runs.finished.connect(self._on_finished)

    @property
    def running(self) -> bool:
        return self.runs.running

    def check(self, entry, text: str, backend: str = "auto") -> None:
        """Run the editor's `text` as the lesson's script and hold it against its fix checks."""
        self._count += 1
        folder = Path(self._work.name) / f"fix{self._count}"
        folder.mkdir(parents=True)
        script = folder / entry.path.name
        script.write_text(text, encoding="utf-8")
        self._answered = False
        self.runs.start(FixRequest(entry, str(script), str(folder / "traces"), backend))

    def close(self) -> None:
        self.runs.stop()
        self._work.cleanup()

    def _on_checked(self, checked) -> None:
        self._answered = True
        self.checked.emit(checked)

    def _on_failed(self, message: str) -> None:
        self._answered = True
        self.failed.emit(message)

    def _on_finished(self, ok: bool) -> None:
        if not ok and not self._answered:
            self.failed.emit("the check was stopped before it finished")
