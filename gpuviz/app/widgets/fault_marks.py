"""Marks over the grid's cells of the threads that went wrong: a red square around each faulting thread
(or one that skipped a barrier), an amber diamond around a thread that waits at a barrier others skipped (the
shapes tell them apart where the colours do not). Two path items whatever the count (the trace lists at most a
thousand errors in full)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsPathItem

FAULT, WAITING = QColor(255, 70, 90), QColor(255, 190, 60)


class FaultMarks:
    def __init__(self, view) -> None:
        self.faulting = _path_item(view, FAULT)
        self.waiting = _path_item(view, WAITING)

    def show(self, faulting: Iterable[int], waiting: Iterable[int], place: Callable[[int], QPointF | None]) -> None:
        """Mark these threads; `place(gid)` is a cell's centre, None for a thread not on the layer shown."""
        for item, threads, shape in ((self.faulting, faulting, _square), (self.waiting, waiting, _diamond)):
            path = QPainterPath()
            for gid in set(threads):
                centre = place(gid)
                if centre is not None:
                    shape(path, centre)
            item.setPath(path)

    def marked(self) -> int:
        """How many cells are marked (for tests)."""
        return sum(item.path().elementCount() // 5 for item in (self.faulting, self.waiting))


def _square(path: QPainterPath, centre: QPointF) -> None:
    path.addRect(QRectF(centre.x() - 0.45, centre.y() - 0.45, 0.9, 0.9))


def _diamond(path: QPainterPath, centre: QPointF) -> None:
    x, y, r = centre.x(), centre.y(), 0.5
    corners = [QPointF(x, y - r), QPointF(x + r, y), QPointF(x, y + r), QPointF(x - r, y)]
    path.addPolygon(QPolygonF([*corners, corners[0]]))  # closed: five points, as a square's path has


def _path_item(view, colour: QColor) -> QGraphicsPathItem:
    item = QGraphicsPathItem()
    pen = QPen(colour, 2)
    pen.setCosmetic(True)  # two screen pixels at any zoom
    item.setPen(pen)
    item.setZValue(5)
    view.addItem(item)
    return item
