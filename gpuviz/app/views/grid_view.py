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

from gpuviz.app.views.base import View
from gpuviz.app.widgets.cell_labels import CellLabels
from gpuviz.app.widgets.fault_marks import FaultMarks
from gpuviz.app.widgets.mark_outlines import MarkOutlines
from gpuviz.core.colors import NOT_RUN
from gpuviz.core.error_report import error_report
from gpuviz.core.frames import REPLAY
from gpuviz.core.grid_colours import LOOK, replay_colours
from gpuviz.core.layout import block_labels, block_name, cell_owner, grid_layout, one_column
from gpuviz.core.replay import AT_BARRIER, FINISHED, NOT_STARTED, RUNNING
from gpuviz.core.thread_record import thread_record
from gpuviz.scene.state import AppState

MAX_OUTLINED_BLOCKS = 4096
MAX_LABELLED_BLOCKS = 4096
MIN_MARK_PIXELS = 40  # marks smaller than this with the whole grid shown are zoomed to
SCALED = ("start time", "duration", "value written", "value read")  # modes whose colours the call-out explains
MAX_CALLOUT_SCALE = 8
LABEL_GAP = 8  # pixels between a block label beside its row and the row
MIN_CELL_PIXELS = 3.0  # a thread selected elsewhere in cells smaller than this is zoomed to
NOTHING_YET = "No trace yet: pick a kernel and press Run."  # the caption with no trace and no failed run


class GridView(QWidget, View):
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
        self.thread_labels = CellLabels(self.view)
        self.block_labels = CellLabels(self.view, min_pixels=3.0, size=12, above=True)  # inside each block
        self.faults = FaultMarks(self.view)  # threads that hit a memory error or skipped a barrier
        self.marks = MarkOutlines(self.view)  # the threads a lesson's claim is about
        self.marker = QGraphicsRectItem()
        self.marker.setPen(QPen(QColor(255, 255, 255), 0.25))
        self.marker.setVisible(False)
        self.view.addItem(self.marker)
        self.caption = QLabel(NOTHING_YET)
        self.caption.setObjectName("gridCaption")
        self.caption.setWordWrap(True)  # a long caption wraps; it never widens the window
        self.states = QLabel()  # the replay: how many threads are in each state
        self.states.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.states)
        layout.addWidget(self.graphics, 1)
        self._cells = None  # flat cell index of each thread of the layer
        self._owner = None  # thread (within the layer) of each cell, -1 for gaps
        self._codes = self._drawn_coloring = self._drawn_plan = None
        self._shown = 0  # threads lit (a prefix of the frame plan's order)
        self._clicked = False  # a selection made by clicking this view
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
        state.marks_changed.connect(lambda *_: self._draw_marks())
        state.stopped_changed.connect(lambda *_: self._say_empty())

    def set_compact(self, compact: bool) -> None:
        self.caption.setVisible(not compact)
        self.states.setVisible(not compact)

    def headline(self) -> str:
        return "<br>".join(text for text in (self.caption.text(), self.states.text()) if text)

    def drawing(self) -> QWidget:
        return self.graphics

    def legend_in_drawing(self) -> list[tuple[tuple[int, int, int], str]]:
        return self.marks.scale_shown

    # ---- what the view shows -------------------------------------------------------------------
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
        if trace is None:  # nothing of the last launch stays: its blocks, labels and thread counts go too
            self.image.clear()
            self.faults.show((), (), lambda _gid: None)
            self.marks.clear()
            self.outlines.setPath(QPainterPath())
            self.thread_labels.clear()
            self.block_labels.clear()
            self.states.setText("")
            self._owner = None
            self._say_empty()
            return
        self._caption_in_error(False)
        self._build_layer()

    def _say_empty(self) -> None:
        """With no trace: why not (the run's error, where it stopped with nothing traced), or what to do."""
        if self.state.trace is not None:
            return
        stopped = self.state.stopped
        self.caption.setText(f"The run stopped before any launch was traced:\n{stopped}" if stopped
                             else NOTHING_YET)  # fmt: skip
        self._caption_in_error(bool(stopped))

    def _caption_in_error(self, error: bool) -> None:
        if bool(self.caption.property("error")) != error:
            self.caption.setProperty("error", error)  # the theme's style sheet gives an error its colour
            self.caption.style().unpolish(self.caption)
            self.caption.style().polish(self.caption)

    def _on_layer_changed(self, layer: int) -> None:
        if self.state.trace is not None:
            self._build_layer()

    def _build_layer(self) -> None:
        trace = self.state.trace
        layout = self._layout = grid_layout(trace.grid, trace.block)
        wide = np.int32 if layout.width * layout.height < 2**31 else np.int64
        self._cells = layout.y.astype(wide) * wide(layout.width) + layout.x
        self._owner = cell_owner(layout, (layout.height, layout.width))
        self._pixels = np.zeros((layout.height, layout.width), np.uint8)
        self._draw_outlines(layout)
        report, layer = error_report(trace), self.layer_threads()
        self.faults.show(report.threads, report.waiting, lambda gid: self.cell_center(gid) if gid in layer else None)
        self._draw_marks()
        self._recolour()
        self._show_frame(self.state.frame, full=True)
        # the whole picture, not autoRange: the image item holds only the part that was visible
        self.view.setRange(self._whole_area(), padding=0.02)
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
        self._replay_codes, self._replay_lut = replay_colours(self._codes, colours.lut)

    def _on_coloring_changed(self, colours) -> None:
        if self.state.trace is not None and self._owner is not None and colours is not self._drawn_coloring:
            self._recolour()
            self._show_frame(self.state.frame, full=True)
            self._draw_marks()

    def _on_frames_changed(self, plan) -> None:
        if self.state.trace is not None and self._owner is not None and plan is not self._drawn_plan:
            self._show_frame(self.state.frame, full=True)

    def _on_frame_changed(self, frame: int) -> None:
        if self.state.trace is not None:
            self._show_frame(frame)

    def _show_frame(self, frame: int, full: bool = False) -> None:
        """Light the threads up to `frame`: only the cells that change are written."""
        if self.state.order == REPLAY:
            self._show_replay()
            return
        self.image.setLookupTable(self._drawn_coloring.lut)
        self.states.setText("")
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

    def _show_replay(self) -> None:
        """Every thread as it is at the cursor: not started dark, running in its colour, waiting at a
        barrier white, finished dimmed."""
        self._drawn_plan = self.state.plan
        now = self.state.thread_states()
        layer = self.layer_threads()
        state = now.state[layer.start : layer.stop]
        tally = now.counts()
        if tally[RUNNING] == 0 and tally[AT_BARRIER] == 0 and tally[NOT_STARTED] == 0:
            state = np.full_like(state, RUNNING)  # the run is over: its colours at full strength
        cells = self._cells
        self.image.setLookupTable(self._replay_lut)
        self._pixels.ravel()[cells] = LOOK[state] + self._replay_codes
        self._shown = len(cells)
        counts = [(name, int(tally[code])) for name, code in
                  (("running", RUNNING), ("waiting at a barrier", AT_BARRIER), ("finished", FINISHED),
                   ("not started", NOT_STARTED))]  # fmt: skip
        self.states.setText("threads: " + ", ".join(f"{n:,} {name}" for name, n in counts if n)
                            + "  (finished: dimmed; waiting at a barrier: white)")  # fmt: skip
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
        rect = QRectF(x0, y0, shown.shape[1] * sx, shown.shape[0] * sy)
        self.image.setImage(shown, autoLevels=False, levels=(0, 255))
        self.image.setRect(rect)
        self._label()

    def _label(self) -> None:
        """threadIdx in the cells and blockIdx on the blocks, once they are big enough on screen."""
        trace = self.state.trace
        first = self.layer_threads().start
        axes = 3 if trace.block[2] > 1 else (2 if trace.block[1] > 1 else 1)
        indices = trace.threads["thread_idx"]

        def names(owners: np.ndarray) -> list[str]:
            return [",".join(str(int(v)) for v in indices[first + o][:axes]) for o in owners]

        self.thread_labels.label_cells(self._owner, names)
        self._label_blocks()

    def _whole_area(self) -> QRectF:
        """The whole grid, in cells; for blocks stacked in one column, with room left of it for their labels
        (core/layout.py: block_labels), which inside a block would cover its first threads."""
        trace, layout = self.state.trace, self._layout
        area = QRectF(0, 0, layout.width, layout.height)
        gx, gy, gz = trace.grid
        if gx * gy > MAX_LABELLED_BLOCKS or not one_column(layout, trace.grid):
            return area
        text_w, text_h = self.block_labels.text_size(block_name(gx * gy - 1, gx, gy, self.state.layer, gz))
        size = self.view.size()
        cell = min((size.width() - text_w - LABEL_GAP) / layout.width, size.height() / layout.height)
        if cell <= 0 or cell * (layout.tile_h + layout.gap) < 0.9 * text_h:
            return area  # no room, or rows too thin to carry a label each
        room = (text_w + LABEL_GAP) / cell
        return QRectF(-room, 0, layout.width + room, layout.height)

    def _label_blocks(self) -> None:
        """blockIdx inside each block (core/layout.py: block_labels), once the widest name fits a block's width
        and a line of text its height (near enough: a thin block's label may reach into the gaps)."""
        trace, layout = self.state.trace, self._layout
        cell = self.block_labels.pixels_per_cell()
        gx, gy, gz = trace.grid
        width, height = self.block_labels.text_size(block_name(gx * gy - 1, gx, gy, self.state.layer, gz))
        # A label inside a block covers its first threads: blocks stacked in one column get theirs beside
        # them, left of the grid, where the picture has the room (_whole_area leaves it).
        beside = (gx * gy <= MAX_LABELLED_BLOCKS and cell * (layout.tile_h + layout.gap) >= 0.9 * height
                  and cell * self.block_labels.room_left() >= width and one_column(layout, trace.grid))  # fmt: skip
        too_small = cell * layout.tile_w < width or cell * layout.tile_h < 0.7 * height
        if gx * gy > MAX_LABELLED_BLOCKS or (too_small and not beside):
            self.block_labels.clear()
            return
        visible = self.block_labels.visible(*self._owner.shape[::-1])
        labels = block_labels(layout, trace.grid, self.state.layer, visible, height / cell, beside)
        anchor = (1, 0.5) if beside else (0, 0.5)
        self.block_labels.show([(label.x, label.y) for label in labels], [label.text for label in labels], anchor)

    def _draw_marks(self) -> None:
        """Outline the threads of the scene's marks that are on the layer shown."""
        if self.state.trace is None or self._owner is None:
            self.marks.clear()
            return
        layer, shown = self.layer_threads(), []
        for mark in self.state.marks:
            if mark.threads is None:
                continue
            local = mark.threads[(mark.threads >= layer.start) & (mark.threads < layer.stop)] - layer.start
            shown.append((mark.label, self._layout.x[local], self._layout.y[local]))
        colours = self.state.coloring
        scale = colours.legend[:MAX_CALLOUT_SCALE] if colours is not None and self.state.colour_mode in SCALED else []
        self.marks.show(shown, scale)
        self._frame_marks()

    def _frame_marks(self) -> None:
        """Show the marks where they can be told apart: the whole grid around them where they are big enough
        to see on it (a race's 200,000 readers, a warp of 16 blocks), else zoomed to with a few blocks of
        context (the faulting last block of 65,537)."""
        box, layout = self.marks.bounds(), self._layout
        if box.isEmpty() or not self.state.marks:
            return
        size = self.view.size()
        fitted = min(size.width() / layout.width, size.height() / layout.height)  # pixels a cell, whole grid shown
        if max(box.width(), box.height()) * fitted >= MIN_MARK_PIXELS:
            area = self._whole_area()
        else:
            half_w = max(box.width() * 1.5, layout.tile_w * 1.5)
            half_h = max(box.height() * 1.5, layout.tile_h * 1.5)
            centre = box.center()
            (x0, x1), (y0, y1) = (_on_grid(centre.x() - half_w, centre.x() + half_w, layout.width),
                                  _on_grid(centre.y() - half_h, centre.y() + half_h, layout.height))  # fmt: skip
            area = QRectF(x0, y0, x1 - x0, y1 - y0)
            if min(size.width() / area.width(), size.height() / area.height()) <= fitted * 1.01:
                area = self._whole_area()  # a thin grid: zooming in would show no more
        self.view.setRange(self.marks.with_room(area), padding=0.01)

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
                self._clicked = True  # picked here, where the student is looking: no zoom
                try:
                    self.state.select(gid)
                finally:
                    self._clicked = False

    def _on_selection_changed(self, gid: int) -> None:
        if gid < 0 or self._cells is None or gid not in self.layer_threads():
            self.marker.setVisible(False)
            return
        center = self.cell_center(gid)
        self.marker.setRect(QRectF(center.x() - 0.7, center.y() - 0.7, 1.4, 1.4))
        self.marker.setVisible(True)
        self._bring_into_view(center)

    def _bring_into_view(self, center: QPointF) -> None:
        """Pan, keeping the zoom, so that a thread selected outside the visible part (by a lesson, a race
        row, the data view) comes to the middle of the view; where cells are too small to make out (a
        grid of 65,537 blocks), zoom to about two blocks around it as well."""
        (x0, x1), (y0, y1) = self.view.viewRange()
        tiny = not self._clicked and self.thread_labels.pixels_per_cell() < MIN_CELL_PIXELS
        if x0 <= center.x() <= x1 and y0 <= center.y() <= y1 and not tiny:
            return
        half_w, half_h = (x1 - x0) / 2, (y1 - y0) / 2
        if tiny:
            half_w, half_h = self._layout.tile_w + 1, self._layout.tile_h + 1
        box = self.view.size()  # cells are square: the range takes the box's shape before it is kept on the grid
        aspect = box.width() / box.height() if box.height() > 0 else 1.0
        half_w, half_h = max(half_w, half_h * aspect), max(half_h, half_w / aspect)
        layout = self._layout  # the range stays on the grid: a thread near an edge is not centred in the void
        xs = _within(center.x() - half_w, center.x() + half_w, layout.width)
        ys = _within(center.y() - half_h, center.y() + half_h, layout.height)
        self.view.setRange(xRange=xs, yRange=ys, padding=0)


def _on_grid(low: float, high: float, limit: float) -> tuple[float, float]:
    """The span [low, high] moved to lie inside [0, limit], and no wider than it: a window around a mark
    never shows more than the grid."""
    return (0.0, limit) if high - low >= limit else _within(low, high, limit)


def _within(low: float, high: float, limit: float) -> tuple[float, float]:
    """The span [low, high] moved to lie inside [0, limit] (centred on it when it is wider)."""
    span = high - low
    if span >= limit:
        return (limit - span) / 2, (limit + span) / 2
    low = min(max(low, 0.0), limit - span)
    return low, low + span
