"""The grid: every thread a cell, blocks tiled by blockIdx, lit up as the animation reaches them.

One ImageItem of uint8 codes with a 256-colour lookup table. A frame writes only the cells that
light up since the last one, and the image shown is the visible part of the picture, one cell
per screen pixel at most (nearest cell, never an average of colour codes), so a frame costs
about the same from one thread to 16.8 million.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.core.colors import NOT_RUN
from gpuviz.core.layout import cell_owner, grid_layout
from gpuviz.core.records import thread_record

MAX_OUTLINED_BLOCKS = 4096


class GridView(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground((24, 24, 30))
        self.view = self.graphics.addViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image)
        self.outlines = QGraphicsPathItem()
        self.outlines.setPen(QPen(QColor(230, 230, 240), 0))
        self.view.addItem(self.outlines)
        self.marker = QGraphicsRectItem()
        self.marker.setPen(QPen(QColor(255, 255, 255), 0.25))
        self.marker.setVisible(False)
        self.view.addItem(self.marker)
        self.caption = QLabel("No trace yet: pick a kernel and press Run.")
        self.caption.setObjectName("gridCaption")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.graphics, 1)
        self._cells = None  # flat cell index of each thread of the layer
        self._owner = None  # thread (within the layer) of each cell, -1 for gaps
        self._codes = self._drawn_coloring = self._drawn_plan = None
        self._shown = 0  # threads lit (a prefix of the frame plan's order)
        self.view.sigRangeChanged.connect(lambda *_: self._refresh_image())
        self.graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.graphics.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        state.trace_changed.connect(self._on_trace_changed)
        state.coloring_changed.connect(self._on_coloring_changed)
        state.frames_changed.connect(self._on_frames_changed)
        state.frame_changed.connect(self._on_frame_changed)
        state.selection_changed.connect(self._on_selection_changed)
        state.layer_changed.connect(self._on_layer_changed)
        state.hover_changed.connect(self._on_hover_changed)

    # ---- what the view shows -------------------------------------------------------------------
    @property
    def frames(self) -> int:
        return self.state.plan.count

    @property
    def cells_shape(self) -> tuple[int, int]:
        return (0, 0) if self._owner is None else self._owner.shape

    def lit_threads(self) -> int:
        return self._shown

    def legend_items(self) -> list[tuple[tuple[int, int, int], str]]:
        """What the colours mean (pictures put it beside the view)."""
        colours = self.state.coloring
        return [((38, 38, 46), "not started yet"), *colours.legend] if colours is not None else []

    def layer_threads(self) -> range:
        trace = self.state.trace
        per_layer = trace.n_threads // trace.grid[2]
        return range(self.state.layer * per_layer, (self.state.layer + 1) * per_layer)

    # ---- state changes ---------------------------------------------------------------------------
    def _on_trace_changed(self, trace) -> None:
        if trace is None:
            self.image.clear()
            self._owner = None
            self.caption.setText("No trace yet: pick a kernel and press Run.")
            return
        self._build_layer()

    def _on_layer_changed(self, layer: int) -> None:
        if self.state.trace is not None:
            self._build_layer()

    def _build_layer(self) -> None:
        trace = self.state.trace
        layout = grid_layout(trace.grid, trace.block)
        self._cells = layout.y.astype(np.int64) * layout.width + layout.x
        self._owner = cell_owner(layout, (layout.height, layout.width))
        self._pixels = np.zeros((layout.height, layout.width), np.uint8)
        self._draw_outlines(layout)
        self._recolour()
        self._show_frame(self.state.frame, full=True)
        self.view.autoRange(padding=0.02)
        gx, gy, gz = trace.grid
        layer = f", layer z={self.state.layer} of {gz}" if gz > 1 else ""
        self.caption.setText(
            f"{trace.kernel}: {trace.n_threads:,} threads in {gx * gy * gz:,} blocks of "
            f"{int(np.prod(trace.block)):,}{layer}  ·  {trace.meta['backend']} on {trace.meta['device']}"
        )

    def _recolour(self) -> None:
        colours = self._drawn_coloring = self.state.coloring
        self._codes = colours.codes[self.layer_threads().start : self.layer_threads().stop]
        self.image.setLookupTable(colours.lut)

    def _on_coloring_changed(self, colours) -> None:
        if self.state.trace is not None and self._owner is not None and colours is not self._drawn_coloring:
            self._recolour()
            self._show_frame(self.state.frame, full=True)

    def _on_frames_changed(self, plan) -> None:
        if self.state.trace is not None and self._owner is not None and plan is not self._drawn_plan:
            self._show_frame(self.state.frame, full=True)

    def _on_frame_changed(self, frame: int) -> None:
        if self.state.trace is not None:
            self._show_frame(frame)

    def _show_frame(self, frame: int, full: bool = False) -> None:
        """Light the threads up to `frame`: only the cells that change are written."""
        plan = self._drawn_plan = self.state.plan
        frame = max(0, min(frame, plan.count - 1))
        target = int(plan.limits[frame]) if plan.count else 0
        if full or target < self._shown:
            self._pixels[:] = NOT_RUN
            self._shown = 0
        if target > self._shown:
            threads = plan.order[self._shown : target]
            self._pixels.ravel()[self._cells[threads]] = self._codes[threads]
            self._shown = target
        self._refresh_image()

    def _refresh_image(self) -> None:
        """Show the visible cells, strided down to at most one cell per screen pixel."""
        if self._owner is None:
            return
        height, width = self._pixels.shape
        (x0, x1), (y0, y1) = self.view.viewRange()
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(width, int(np.ceil(x1)) + 1), min(height, int(np.ceil(y1)) + 1)
        if x1 <= x0 or y1 <= y0:
            x0, y0, x1, y1 = 0, 0, width, height
        screen = self.view.size()
        sx = max(1, int(np.ceil((x1 - x0) / max(1.0, screen.width()))))
        sy = max(1, int(np.ceil((y1 - y0) / max(1.0, screen.height()))))
        shown = self._pixels[y0:y1:sy, x0:x1:sx]
        self.image.setImage(shown, autoLevels=False, levels=(0, 255))
        self.image.setRect(QRectF(x0, y0, shown.shape[1] * sx, shown.shape[0] * sy))

    def _draw_outlines(self, layout) -> None:
        trace = self.state.trace
        n_blocks = trace.grid[0] * trace.grid[1]
        path = QPainterPath()
        if layout.gap and n_blocks <= MAX_OUTLINED_BLOCKS:
            for b in range(n_blocks):
                x, y = layout.block_origin(b, trace.grid[0], trace.grid[1])
                path.addRect(QRectF(x, y, layout.tile_w, layout.tile_h))
        self.outlines.setPath(path)

    # ---- the mouse -----------------------------------------------------------------------------
    def thread_at(self, scene_pos) -> int:
        if self._owner is None:
            return -1
        point = self.view.mapSceneToView(scene_pos)
        x, y = int(np.floor(point.x())), int(np.floor(point.y()))
        height, width = self._owner.shape
        if not (0 <= x < width and 0 <= y < height) or self._owner[y, x] < 0:
            return -1
        return int(self._owner[y, x]) + self.layer_threads().start

    def cell_center(self, gid: int) -> QPointF:
        """Where a thread's cell is, in view coordinates (for tests and the selection marker)."""
        cell = int(self._cells[gid - self.layer_threads().start])
        width = self._owner.shape[1]
        return QPointF(cell % width + 0.5, cell // width + 0.5)

    def _on_mouse_moved(self, scene_pos) -> None:
        self.state.hover(self.thread_at(scene_pos))

    def _on_hover_changed(self, gid: int) -> None:
        trace = self.state.trace
        self.graphics.setToolTip(thread_record(trace, gid) if trace is not None and gid >= 0 else "")

    def _on_mouse_clicked(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            gid = self.thread_at(event.scenePos())
            if gid >= 0:
                self.state.select(gid)

    def _on_selection_changed(self, gid: int) -> None:
        if gid < 0 or self._cells is None or gid not in self.layer_threads():
            self.marker.setVisible(False)
            return
        center = self.cell_center(gid)
        self.marker.setRect(QRectF(center.x() - 0.7, center.y() - 0.7, 1.4, 1.4))
        self.marker.setVisible(True)
