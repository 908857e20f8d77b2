"""The output panel: what the script printed and each launch's summary line, as the run goes."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.scene.state import AppState

MAX_CHARACTERS = 200_000  # a script printing in a loop must not grow the window without end


class OutputView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlaceholderText("What the script prints appears here when it runs.")
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text)
        self._shown = ""
        state.output_changed.connect(self._on_output_changed)

    def _on_output_changed(self, text: str) -> None:
        if text.startswith(self._shown) and len(text) <= MAX_CHARACTERS:  # more of the same run: append
            self.text.moveCursor(QTextCursor.MoveOperation.End)
            self.text.insertPlainText(text[len(self._shown) :])
        else:
            self.text.setPlainText(text if len(text) <= MAX_CHARACTERS else "[...]\n" + text[-MAX_CHARACTERS:])
        self._shown = text
        self.text.moveCursor(QTextCursor.MoveOperation.End)
