"""F1: the keys of every action, over the window; any key or click closes it."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from gpuviz.core.theme_colours import HELP_OVERLAY, HELP_TEXT, css

GETTING_STARTED = ("<b>Getting started:</b> pick the first lesson in the Catalog, read the question in the Lesson "
                   "panel, press <b>Run</b> (Ctrl+R), then click a thread in the grid.")  # fmt: skip


WELCOME = """## Welcome to gpuviz

1. Pick the **first lesson** in the Catalog (left).
2. Read its question here and make a guess.
3. Press **Run** (Ctrl+R) and watch the threads.
4. Click a thread in the grid; press **Show the answer**.

F1 lists the keys; F5 is presentation mode for a projector."""


def key_table(window: QMainWindow) -> list[tuple[str, str]]:
    """(keys, what they do) for every action of the window that has keys."""
    rows = []
    for action in window.actions():
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            rows.append((keys, action.text().replace("&", "")))
    return rows


class HelpOverlay(QWidget):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(f"HelpOverlay {{ background: {css(HELP_OVERLAY)}; }} QLabel {{ color: {HELP_TEXT}; }}")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        self.hide()
        window.installEventFilter(self)

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
            return
        rows = "".join(f"<tr><td align='right'><b>{escape(keys)}</b>&nbsp;&nbsp;</td><td>{escape(what)}</td></tr>"
                       for keys, what in key_table(self.window))  # fmt: skip
        self.text.setText(f"<h2>Keys</h2><table align='center'>{rows}</table><p>{GETTING_STARTED}</p>"
                          "<p><i>Any key or click closes this.</i></p>")  # fmt: skip
        self.setGeometry(self.window.rect())
        self.show()
        self.raise_()
        self.setFocus()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        self.hide()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize and self.isVisible():
            self.setGeometry(self.window.rect())
        return False
