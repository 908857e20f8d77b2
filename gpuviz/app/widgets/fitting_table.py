"""A table whose columns share its width instead of running off its edge: each column is at least as wide as
its longest word and its text wraps beyond that, rows grow to hold it, and no column is cut (the Memory view's
table at a projector's 1280x720). Columns named optional step aside, last first, where even that is too wide
(what they say must be said elsewhere too, as a tooltip); past that the table scrolls sideways."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QTableWidget, QWidget

BREAK = "\u200b"  # a zero-width space: Qt may wrap a line there
SLACK = 2  # pixels for glyphs that reach past their advance, so that a word never touches its cell's edge


def breakable(text: str, after: str) -> str:
    """Text that may also wrap after each of the characters `after`: a line of code after '.'
    (`a[cuda.blockIdx.y * 8 + ty]` is one long word), a range of threads after '-'."""
    for mark in after:
        text = text.replace(mark, mark + BREAK)
    return text


def column_widths(narrowest: list[int], widest: list[int], room: int) -> list[int]:
    """Widths of columns that need at least `narrowest` (their longest word) and at most `widest` (their text
    on one line) in `room` pixels: each its widest where all fit; else each its narrowest plus a share of what
    is left, in proportion to what wrapping costs it; its narrowest where even that is too wide."""
    if sum(widest) <= room:
        return list(widest)
    spare = room - sum(narrowest)
    wants = [max(0, wide - narrow) for narrow, wide in zip(narrowest, widest)]
    if spare <= 0 or not sum(wants):
        return list(narrowest)
    return [narrow + spare * want // sum(wants) for narrow, want in zip(narrowest, wants)]


class FittingTable(QTableWidget):
    def __init__(self, rows: int, headers: tuple[str, ...], optional: tuple[int, ...] = (), tall_for: int = 0,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        """`optional`: columns that may step aside for want of room; `tall_for`: rows the table stays tall
        enough to show whole (0: as tall as its layout makes it), for a table in a panel that scrolls."""
        super().__init__(rows, len(headers), parent)
        self.optional = optional
        self.tall_for = tall_for
        self.setHorizontalHeaderLabels(list(headers))
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)  # a cell's text wraps; it never ends in "..."
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def text_widths(self, column: int) -> tuple[int, int]:
        """A column's narrowest width (its longest word, or its header's longest line: headers do not wrap) and
        its widest (every text on one line), margins included."""
        metrics, margin = self.fontMetrics(), self.cell_margin()
        cells = [self.item(row, column) for row in range(self.rowCount())]
        texts = [cell.text() for cell in cells if cell is not None]
        header = self.horizontalHeader().sectionSizeHint(column)  # the header's own font and margins
        words = [metrics.horizontalAdvance(word) + margin for text in texts for word in _words(text)]
        lines = [metrics.horizontalAdvance(line) + margin for text in texts for line in text.splitlines()]
        return max([header, *words]), max([header, *lines])

    def cell_margin(self) -> int:
        """Pixels beside a cell's text: Qt's item views keep a focus-frame margin and one pixel a side, and the
        grid line takes one."""
        frame = self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self)
        return 2 * (frame + 1) + 1 + SLACK

    def narrowest(self) -> int:
        """The least width that shows every column but the optional ones whole (wrapped), frame included."""
        needed = [self.text_widths(c)[0] for c in range(self.columnCount()) if c not in self.optional]
        return sum(needed) + 2 * self.frameWidth() + 2

    def fit(self) -> None:
        """Columns across the width the table has now (call after filling it)."""
        sizes = {c: self.text_widths(c) for c in range(self.columnCount())}
        room = self.viewport().width() - 1
        shown = list(sizes)
        for column in reversed(self.optional):  # the last optional column steps aside first
            if sum(sizes[c][0] for c in shown) <= room:
                break
            shown.remove(column)
        widths = column_widths([sizes[c][0] for c in shown], [sizes[c][1] for c in shown], room)
        for column in sizes:
            self.setColumnHidden(column, column not in shown)
        for column, width in zip(shown, widths):
            self.setColumnWidth(column, width)
        self.resizeRowsToContents()
        if self.tall_for:
            self._show_rows()

    def _show_rows(self) -> None:
        """Tall enough for its first `tall_for` rows, however much they wrap (the panel around it scrolls)."""
        shown = range(min(self.rowCount(), self.tall_for))
        rows = max(sum(self.rowHeight(r) for r in shown), 3 * self.verticalHeader().defaultSectionSize())
        self.setMinimumHeight(self.horizontalHeader().sizeHint().height() + rows + 2 * self.frameWidth() + 2)

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """The viewport narrows when the vertical scroll bar comes (rows grown by wrapping): fit again."""
        handled = super().viewportEvent(event)
        if event.type() == QEvent.Type.Resize and event.oldSize().width() != event.size().width():
            self.fit()
        return handled

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit()


def _words(text: str) -> list[str]:
    """The pieces a line may wrap between: at spaces and at BREAK."""
    return text.replace(BREAK, " ").split()
