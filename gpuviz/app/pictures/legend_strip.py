"""A legend for pictures: colour swatches (filled squares, exact colours) and their labels, in rows; a run of
numbered entries ("block 0", "block 1", ...) under one heading, each thing said once (core/colors.py). The
race colour's swatch is hatched as its cells are (core/colors.py: RACE is never told by colour alone)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QWidget

from gpuviz.core.colors import RACE, Legend, distinct_entries, legend_groups


@dataclass(frozen=True)
class Piece:
    """One thing the strip draws: a heading's words (rgb None) or a swatch and its label."""

    rgb: tuple[int, int, int] | None
    label: str


class LegendStrip(QWidget):
    """Colour swatches and their labels, flowing into rows: what the view's colours mean."""

    SWATCH_EMS, GAP_EMS = 1.0, 1.2  # swatch side and the room between entries, in line heights

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: Legend = []
        self.pieces: list[Piece] = []

    def set_items(self, items: Legend) -> None:
        self.items = distinct_entries(items)  # what the strip says, in full words
        self.pieces = [piece for words, entries in legend_groups(items) for piece in _pieces(words, entries)]
        self.setVisible(bool(self.pieces))
        self.updateGeometry()
        self.update()

    def _sizes(self) -> tuple[int, int, int]:
        """(line height, swatch side, gap): all follow the font, so a big slide has a legend to match."""
        line = QFontMetrics(self.font()).height()
        return line + line // 3, round(line * self.SWATCH_EMS * 0.9), round(line * self.GAP_EMS)

    def _places(self, width: int) -> list[tuple[int, int, int]]:
        """(x, y, width) of each piece, flowing left to right into rows."""
        metrics, places, x, y = QFontMetrics(self.font()), [], 0, 0
        line, swatch, gap = self._sizes()
        for piece in self.pieces:
            text = metrics.horizontalAdvance(piece.label)
            piece_width = text if piece.rgb is None else swatch + swatch // 2 + text
            if x and x + piece_width > width:
                x, y = 0, y + line
            places.append((x, y, piece_width))
            x += piece_width + (gap if piece.rgb is not None else gap // 2)
        return places

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        places = self._places(width)
        return (places[-1][1] if places else 0) + self._sizes()[0]

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def sizeHint(self) -> QSize:  # noqa: N802
        width = max(200, self.width())
        return QSize(width, self.heightForWidth(width))

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        line, swatch, _ = self._sizes()
        text_colour = self.palette().windowText().color()
        for piece, (x, y, _) in zip(self.pieces, self._places(self.width())):
            label_x = x
            if piece.rgb is not None:
                square = QRect(x, y + (line - swatch) // 2, swatch, swatch)
                painter.fillRect(square, QColor(*piece.rgb))
                if piece.rgb == RACE:
                    painter.fillRect(square, QBrush(QColor(0, 0, 0), Qt.BrushStyle.BDiagPattern))
                label_x = x + swatch + swatch // 2
            painter.setPen(text_colour)
            painter.drawText(QRect(label_x, y, 10000, line), Qt.AlignmentFlag.AlignVCenter, piece.label)
        painter.end()


def _pieces(words: str, entries: Legend) -> list[Piece]:
    heading = [Piece(None, words)] if words else []
    return heading + [Piece(rgb, label) for rgb, label in entries]
