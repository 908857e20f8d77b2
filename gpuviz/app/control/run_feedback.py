"""While a kernel runs the window shows it: Run turns into a busy "Running..." with the time so far,
Stop is highlighted, and a bar counts the launch's blocks done (the engine's Progress messages) and,
once the rate means something, the time left."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

from gpuviz.core.events import Progress, Stage
from gpuviz.core.progress import LaunchClock, progress_text

TICK_MS = 100
BAR_TIP = "blocks of the current launch run so far, and the time left at the rate so far"


class RunFeedback(QObject):
    def __init__(self, run_button: QPushButton, stop_button: QPushButton, parent: QWidget) -> None:
        super().__init__(parent)
        self.run_button, self.stop_button = run_button, stop_button
        self.bar = QProgressBar()
        self.bar.setToolTip(BAR_TIP)
        self.launch = LaunchClock()
        self.bar.setVisible(False)
        self.clock = QLabel()  # the time of the run, in the status bar
        self.clock.setToolTip("how long the run took (or has taken so far)")
        self.started = 0.0
        self.elapsed = 0.0  # seconds of the last (or current) run
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def set_running(self, running: bool) -> None:
        for button in (self.run_button, self.stop_button):
            button.setProperty("busy", running)
            button.style().unpolish(button)  # the style sheet's [busy="true"] rules apply again
            button.style().polish(button)
        if running:
            self.started = time.monotonic()
            self.bar.reset()
            self.bar.setRange(0, 0)  # busy until the first Progress says how many blocks
            self.bar.setFormat("")
            self.launch = LaunchClock()
            self.bar.setVisible(True)
            self._timer.start()
            self._tick()
        else:
            self._timer.stop()
            self._tick()
            self.run_button.setText("Run")
            self.bar.setVisible(False)

    def on_stage(self, stage: Stage) -> None:
        """A stage that has no blocks to count (compiling the fast path, perhaps after the vector engine ran
        part of the launch) turns the bar back to busy with its words: not a count and a time left that stand
        still; the next Progress starts the count again."""
        if stage.stage == "compiling" and self._timer.isActive():
            self.bar.setRange(0, 0)
            self.bar.setFormat("")
            self.bar.setToolTip(stage.detail or "compiling")
            self.launch = LaunchClock()

    def on_progress(self, progress: Progress, now: float | None = None) -> None:
        left = self.launch.update(progress, time.monotonic() if now is None else now)
        self.bar.setToolTip(BAR_TIP)
        self.bar.setRange(0, max(1, progress.total))
        self.bar.setValue(min(progress.done, progress.total))
        self.bar.setFormat(progress_text(progress, left))  # no % in it: the format's own codes start with %

    def _tick(self) -> None:
        running = self._timer.isActive()
        if running:
            self.elapsed = time.monotonic() - self.started
            self.run_button.setText(f"Running... {self.elapsed:.1f} s")
        self.clock.setText(f"{'running' if running else 'last run'} {self.elapsed:.1f} s")
