"""A lesson's marks over a picture of cells (the grid's threads, the data view's elements): each mark's
cells outlined in a colour of its own over a dark halo, so the outline reads on any cell colour, and one
call-out in the picture's top-left corner that says, by the same colour, what each mark's cells have in
common. A few items whatever the count (core/layout.py outline_rects joins cells into rectangles)."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from gpuviz.app.window import appearance
from gpuviz.core.layout import outline_rects

# White, yellow and sky blue: told apart by people with any common colour-vision deficiency, and each
# far from the dark halo under it.
MARK_COLOURS = ((255, 255, 255), (240, 228, 66), (86, 180, 233))
CALLOUT_PIXELS = 15  # the call-out's type at font scale 1: read from the back of a room
SMALL_CELLS = 4  # marks of at most this many cells may be too small to see: they are checked for a ring
RING_PIXELS = 40  # a mark smaller than this on screen gets a ring this wide around it, to be found from afar


class MarkOutlines:
    def __init__(self, view: pg.ViewBox) -> None:
        self.view = view
        self.halo = _path_item(view, QColor(0, 0, 0, 200), 6, z=6)
        self.lines = [_path_item(view, QColor(*rgb), 3, z=7) for rgb in MARK_COLOURS]
        self.ring_halo = _path_item(view, QColor(0, 0, 0, 200), 8, z=6)
        self.rings = [_path_item(view, QColor(*rgb), 4, z=7) for rgb in MARK_COLOURS]
        self._small: list[tuple[int, QRectF]] = []  # (colour, rect) of marks too small to see: ringed
        self.callout = pg.TextItem(anchor=(0, 0), fill=(16, 16, 22, 225), border=pg.mkPen((200, 200, 210), width=1))
        self.callout.setZValue(20)
        self.callout.setVisible(False)
        view.addItem(self.callout)
        self._rects = 0
        self._bounds = QRectF()
        self.scale_shown: list[tuple[tuple[int, int, int], str]] = []  # the colours the call-out explains now
        view.sigRangeChanged.connect(lambda *_: self._place_callout())

    def show(self, marks: list[tuple[str, np.ndarray, np.ndarray]],
             scale: list[tuple[tuple[int, int, int], str]] = ()) -> None:  # fmt: skip
        """Outline each mark's cells, (label, xs, ys) in view cells; marks past the colours share the last.
        `scale`: what the cells' colours mean, shown under the marks in the call-out (a ramp's two ends)."""
        halo = QPainterPath()
        paths = [QPainterPath() for _ in self.lines]
        self._rects = 0
        self._bounds = QRectF()
        self._small = []
        rows = []
        for k, (label, xs, ys) in enumerate(marks):
            colour = min(k, len(self.lines) - 1)
            for x, y, w, h in outline_rects(xs, ys):
                rect = QRectF(float(x), float(y), float(w), float(h))
                paths[colour].addRect(rect)
                halo.addRect(rect)
                self._bounds = self._bounds.united(rect)
                self._rects += 1
                if w * h <= SMALL_CELLS:
                    self._small.append((colour, rect))
            r, g, b = MARK_COLOURS[colour]
            shown = "" if len(xs) else " (not on this picture)"
            rows.append(f"<span style='color:rgb({r},{g},{b})'>&#9633;</span> {html.escape(label)}{shown}")
        self.scale_shown = list(scale) if rows else []
        rows += [f"<span style='color:rgb{tuple(rgb)}'>&#9632;</span> {html.escape(text)}"
                 for rgb, text in self.scale_shown]  # fmt: skip
        self.halo.setPath(halo)
        for item, path in zip(self.lines, paths):
            item.setPath(path)
        self._draw_rings()
        self.callout.setVisible(bool(rows))
        if rows:
            font = QFont()
            font.setPixelSize(appearance.pixels(CALLOUT_PIXELS))
            self.callout.setFont(font)
            self.callout.setHtml(f"<div style='color:#f0f0f5'>{'<br>'.join(rows)}</div>")
            self._place_callout()

    def clear(self) -> None:
        self.show([])

    def with_room(self, area: QRectF) -> QRectF:
        """`area` (view cells) grown so that the call-out, drawn over the view's top-left corner, sits
        beside the picture instead of over it: to its left where the view is wider than the picture
        (a square grid in a wide window), else above it."""
        if not self.callout.isVisible() or area.isEmpty():
            return area
        box = self.callout.boundingRect()
        view_w, view_h = self.view.width(), self.view.height()
        pixels = min(view_w / area.width(), view_h / area.height())  # per cell, once the area fits
        if view_w - area.width() * pixels >= box.width() + 12:  # the picture to the right, the call-out left
            wider = view_w / pixels
            return QRectF(area.right() - wider, area.y(), wider, area.height())
        needed = box.height() + 6
        if view_h <= needed * 2:
            return area
        taller = area.height() * view_h / (view_h - needed)
        return QRectF(area.x(), area.bottom() - taller, area.width(), taller)

    def bounds(self) -> QRectF:
        """The cells outlined, all marks together (an empty rectangle for none)."""
        return self._bounds

    def outlined(self) -> int:
        """How many rectangles are drawn (for tests)."""
        return self._rects

    def callout_text(self) -> str:
        return self.callout.textItem.toPlainText() if self.callout.isVisible() else ""

    def ringed(self) -> int:
        """How many marks are ringed because they are too small on screen to be seen (for tests)."""
        return len(self._visible_small())

    def _place_callout(self) -> None:
        (x0, _x1), (y0, _y1) = self.view.viewRange()
        self.callout.setPos(x0, y0)  # the view's top-left corner, wherever it is panned
        self._draw_rings()

    def _visible_small(self) -> list[tuple[int, QRectF, float, float]]:
        """The marks under RING_PIXELS on screen at this zoom, with the ring's radii in view units."""
        px, py = self.view.viewPixelSize() if self.view.width() > 0 else (0.0, 0.0)
        if px <= 0 or py <= 0:
            return []
        radius_x, radius_y = RING_PIXELS / 2 * px, RING_PIXELS / 2 * py
        return [(colour, rect, radius_x, radius_y) for colour, rect in self._small
                if rect.width() / px < RING_PIXELS and rect.height() / py < RING_PIXELS]  # fmt: skip

    def _draw_rings(self) -> None:
        """A ring of RING_PIXELS around each mark too small to see from the back of a room (one cell of a
        million-thread grid), in its mark's colour over the halo; none once the view is zoomed in."""
        halo = QPainterPath()
        paths = [QPainterPath() for _ in self.rings]
        for colour, rect, radius_x, radius_y in self._visible_small():
            paths[colour].addEllipse(rect.center(), radius_x, radius_y)
            halo.addEllipse(rect.center(), radius_x, radius_y)
        self.ring_halo.setPath(halo)
        for item, path in zip(self.rings, paths):
            item.setPath(path)


def _path_item(view: pg.ViewBox, colour: QColor, width: float, z: float) -> QGraphicsPathItem:
    item = QGraphicsPathItem()
    pen = QPen(colour, width)
    pen.setCosmetic(True)  # screen pixels at any zoom: a mark on a million cells still shows
    item.setPen(pen)
    item.setZValue(z)
    view.addItem(item)
    return item
