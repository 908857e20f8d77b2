"""The caption over the picture on the stage: what the views show, in words, over the picture's bottom edge
as subtitles are (a view's own controls stay free at its top; a plot's axis is what it covers first).

Collapsed it is at most two lines, so the picture keeps the room; a click (or the C key) opens it whole
and closes it again. It covers the picture rather than pushing it up: the picture keeps its size, where
the picture's bottom edge is an axis. A picture of cells to its bottom edge (a grid's last row of blocks)
is laid out above the two lines instead (`below`: the widget it is over keeps them as a bottom margin).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

LINES = 2  # collapsed


class CaptionOverlay(QLabel):
    def __init__(self, over: QWidget) -> None:
        """`over`: the widget whose bottom edge it covers."""
        super().__init__(over)
        self.setObjectName("captionOverlay")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.expanded = False
        self.whole = False  # opened whole by the stage (an error with no picture to keep room for)
        self.below = False  # the picture above the collapsed caption, not under it
        self._text = ""
        over.installEventFilter(self)
        self.hide()

    def say(self, text: str) -> None:
        """Show `text` (rich text); "" hides the overlay."""
        self._text = text
        self.setText(text)
        self.setToolTip("click (or C) for the whole caption" if text else "")
        self.setVisible(bool(text))
        self._place()

    def set_below(self, below: bool) -> None:
        self.below = below
        self._place()

    def open_whole(self, whole: bool) -> None:
        """Whole whatever the user's toggle, while `whole` (the stage: an error over an empty picture)."""
        if whole != self.whole:
            self.whole = whole
            self._place()

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self._place()

    def lines_shown(self) -> int:
        """How many lines of the caption show now (all of them once expanded)."""
        line = max(1, self.fontMetrics().lineSpacing())
        return max(1, round((self.height() - 2 * self.margin()) / line))

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self.toggle()
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.parent() and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._place()
        return False

    def _place(self) -> None:
        over = self.parentWidget()
        if over is None:
            return
        width = max(1, over.width())
        self.setMargin(8)
        whole = self.heightForWidth(width) if self._text else 0
        collapsed = LINES * self.fontMetrics().lineSpacing() + 2 * self.margin()
        height = whole if self.expanded or self.whole else min(whole, collapsed)
        # the room of two lines, whether the caption takes one or two now: the picture does not jump as it changes
        room = collapsed if self._text and self.below else 0
        if over.contentsMargins().bottom() != room:
            over.setContentsMargins(0, 0, 0, room)
        self.setGeometry(0, max(0, over.height() - height), width, max(0, height))
        self.raise_()
