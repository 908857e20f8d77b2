"""While a kernel runs the window shows it: Run turns into a busy "Running..." with the time so far,
Stop is highlighted, and a bar counts the launch's blocks done (the engine's Progress messages) and,
once the rate means something, the time left.

The same run is shown in two places: the launch panel everyday, and the stage's one row in presentation
mode (where the panels and the status bar are hidden). Each place is a face: its Run and Stop buttons, its
bar and, on the stage, the run's stage in words (the status line's: the status bar is hidden there), which
says what a busy bar cannot (the fast path compiling)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

from gpuviz.core.events import Progress, Stage
from gpuviz.core.progress import LaunchClock, progress_text

TICK_MS = 100
BAR_TIP = "blocks of the current launch run so far, and the time left at the rate so far"


@dataclass
class Face:
    """One place that shows the run; `say` (or None) takes the run's stage in words ("" once it ends)."""

    run_button: QPushButton
    stop_button: QPushButton
    bar: QProgressBar
    say: Callable[[str], None] | None = None


class RunFeedback(QObject):
    def __init__(self, run_button: QPushButton, stop_button: QPushButton, parent: QWidget) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()  # the launch panel's
        self.faces = [Face(run_button, stop_button, self.bar)]
        self.bar.setToolTip(BAR_TIP)
        self.bar.setVisible(False)
        self.launch = LaunchClock()
        self.words = ""  # the run's last stage that is not a compile ("running matmul (1,048,576 threads)")
        self.compiling = False
        self.clock = QLabel()  # the time of the run, in the status bar
        self.clock.setToolTip("how long the run took (or has taken so far)")
        self.started = 0.0
        self.elapsed = 0.0  # seconds of the last (or current) run
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def add_face(self, face: Face) -> None:
        """Another place that shows the run (its widgets are the caller's to lay out and show)."""
        face.bar.setToolTip(BAR_TIP)
        self.faces.append(face)

    def set_running(self, running: bool) -> None:
        for face in self.faces:
            for button in (face.run_button, face.stop_button):
                button.setProperty("busy", running)
                button.style().unpolish(button)  # the style sheet's [busy="true"] rules apply again
                button.style().polish(button)
        if running:
            self.started = time.monotonic()
            self.launch = LaunchClock()
            self.words, self.compiling = "", False
            for face in self.faces:
                face.bar.reset()
                self._busy(face, "")  # until the first Progress says how many blocks
                self._say(face, "")
            self.bar.setVisible(True)
            self._timer.start()
            self._tick()
        else:
            if self._timer.isActive():  # the run's whole time, not its last tick's (a short run had none: 0.0 s)
                self.elapsed = time.monotonic() - self.started
            self._timer.stop()
            self._tick()
            for face in self.faces:
                face.run_button.setText("Run")
                self._say(face, "")
            self.bar.setVisible(False)

    def on_stage(self, stage: Stage) -> None:
        """Each stage's words go to the faces that say them (the everyday status line says them already). A
        compile (of the fast path, perhaps after the vector engine ran part of the launch) has no blocks to
        count: the bar turns busy, not a count and a time left that stand still, until the next Progress
        starts the count again and the words go back to the run's."""
        if not self._timer.isActive():
            return
        words = stage.detail or stage.stage
        self.compiling = stage.stage == "compiling"
        if not self.compiling:
            self.words = words
        for face in self.faces:
            self._say(face, words)
            if self.compiling:
                self._busy(face, words)
        if self.compiling:
            self.launch = LaunchClock()

    def on_progress(self, progress: Progress, now: float | None = None) -> None:
        left = self.launch.update(progress, time.monotonic() if now is None else now)
        for face in self.faces:
            face.bar.setToolTip(BAR_TIP)
            face.bar.setRange(0, max(1, progress.total))
            face.bar.setValue(min(progress.done, progress.total))
            face.bar.setFormat(progress_text(progress, left))  # no % in it: the format's own codes start with %
            if self.compiling:
                self._say(face, self.words)
        self.compiling = False

    @staticmethod
    def _busy(face: Face, words: str) -> None:
        face.bar.setRange(0, 0)
        face.bar.setFormat("")
        face.bar.setToolTip(words or BAR_TIP)

    @staticmethod
    def _say(face: Face, words: str) -> None:
        if face.say is not None:
            face.say(words)

    def _tick(self) -> None:
        running = self._timer.isActive()
        if running:
            self.elapsed = time.monotonic() - self.started
            for face in self.faces:
                face.run_button.setText(f"Running... {self.elapsed:.1f} s")
        self.clock.setText(f"{'running' if running else 'last run'} {self.elapsed:.1f} s")
