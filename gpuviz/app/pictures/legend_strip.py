"""A legend for pictures: colour swatches (filled squares, exact colours) and their labels, in rows. The race
colour's swatch is hatched as its cells are (core/colors.py: RACE is never told by colour alone)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QWidget

from gpuviz.core.colors import RACE


class LegendStrip(QWidget):
    """Colour swatches and their labels, flowing into rows: what the view's colours mean."""

    SWATCH, GAP = 14, 18

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[tuple[tuple[int, int, int], str]] = []

    def set_items(self, items) -> None:
        self.items = [(tuple(int(c) for c in rgb), str(label)) for rgb, label in items]
        self.setVisible(bool(self.items))
        self.updateGeometry()
        self.update()

    def _places(self, width: int) -> list[tuple[int, int, int]]:
        """(x, y, width) of each item, flowing left to right into rows."""
        metrics, places, x, y = QFontMetrics(self.font()), [], 0, 0
        line = max(self.SWATCH, metrics.height()) + 6
        for _, label in self.items:
            item_width = self.SWATCH + 6 + metrics.horizontalAdvance(label)
            if x and x + item_width > width:
                x, y = 0, y + line
            places.append((x, y, item_width))
            x += item_width + self.GAP
        return places

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        places = self._places(width)
        return (places[-1][1] if places else 0) + max(self.SWATCH, QFontMetrics(self.font()).height()) + 6

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def sizeHint(self) -> QSize:  # noqa: N802
        width = max(200, self.width())
        return QSize(width, self.heightForWidth(width))

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        metrics = QFontMetrics(self.font())
        line = max(self.SWATCH, metrics.height())
        for (rgb, label), (x, y, _) in zip(self.items, self._places(self.width())):
            swatch = QRect(x, y + (line - self.SWATCH) // 2, self.SWATCH, self.SWATCH)
            painter.fillRect(swatch, QColor(*rgb))
            if rgb == RACE:
                painter.fillRect(swatch, QBrush(QColor(0, 0, 0), Qt.BrushStyle.BDiagPattern))
            painter.setPen(self.palette().windowText().color())
            painter.drawText(QRect(x + self.SWATCH + 6, y, 10000, line), Qt.AlignmentFlag.AlignVCenter, label)
        painter.end()
