"""Pictures of arrays for the data view: the grid of cells and the hatching of raced ones (the colour codes are
core/data_codes.py's)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

MAX_HATCHED = 20_000  # runs of raced cells hatched; past that the race colour alone shows the rest


def cell_lines(rows: int, columns: int) -> QPainterPath:
    """Thin lines between elements, while they are few enough to tell apart."""
    path = QPainterPath()
    if rows <= 256 and columns <= 256:
        for x in range(1, columns):
            path.moveTo(x, 0)
            path.lineTo(x, rows)
        for y in range(1, rows):
            path.moveTo(0, y)
            path.lineTo(columns, y)
    return path


def hatched_cells(plane: np.ndarray, code: int) -> QPainterPath:
    """The cells of `plane` (rows x columns of colour codes) that hold `code`, as rectangles (a run of them
    along a row is one), for a hatched brush over the picture; at most MAX_HATCHED runs."""
    path = QPainterPath()
    mine = np.zeros((plane.shape[0], plane.shape[1] + 2), np.int8)
    mine[:, 1:-1] = plane == code
    edges = np.diff(mine, axis=1)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)  # row-major, so each run's end pairs with its start
    for row, start, end in list(zip(rows.tolist(), starts.tolist(), ends.tolist()))[:MAX_HATCHED]:
        path.addRect(start, row, end - start, 1)
    return path


class Hatching(QGraphicsPathItem):
    """Black diagonal hatching over cells (hatched_cells), one screen pixel wide at any zoom; its pattern is
    anchored to the picture, so the window and an exported picture of the view draw the same pixels."""

    def __init__(self) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(QColor(0, 0, 0), Qt.BrushStyle.BDiagPattern))

    def paint(self, painter, option, widget=None) -> None:
        painter.setBrushOrigin(painter.deviceTransform().map(QPointF(0, 0)))  # not the device's corner
        super().paint(painter, option, widget)
