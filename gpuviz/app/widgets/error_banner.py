"""A red banner above the views after a launch with memory errors or barrier divergence: what went wrong,
how often and where first, in words (core/error_report.py). It follows the launch shown."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from gpuviz.core.error_report import error_report
from gpuviz.core.theme_colours import BADGES
from gpuviz.scene.state import AppState

COLOURS = BADGES["error banner"]
STYLE = f"QLabel {{ background: {COLOURS.background}; color: {COLOURS.text}; padding: 4px 8px; border-radius: 3px; }}"


class ErrorBanner(QLabel):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setWordWrap(True)
        self.setStyleSheet(STYLE)
        self.hide()
        state.trace_changed.connect(self._on_trace_changed)

    def _on_trace_changed(self, trace) -> None:
        report = error_report(trace) if trace is not None else None
        self.setText("\n".join(f"⚠ {sentence}" for sentence in report.sentences) if report else "")
        self.setVisible(bool(report))
