"""The thread-to-data map: a kernel's arrays, each element coloured by the thread that last wrote it.

Elements written by several threads are red and hatched (a projector or a colour-blind eye may lose the
red), never-written ones dark; the selected thread's reads
and writes (or the elements of the selected line) are marked. Shared arrays show the selected
thread's block's copy, rebuilt from the writes in the access log. In the replay the picture is the
memory at the cursor: elements not yet written stay dark, the values show in the cells once they
fit, and the accesses of the last step flash (reads cyan, writes white).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QComboBox, QGraphicsPathItem, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.app.widgets.cell_labels import CellLabels
from gpuviz.app.widgets.data_pictures import Hatching, cell_lines, hatched_cells
from gpuviz.app.widgets.mark_outlines import MarkOutlines
from gpuviz.app.widgets.when_shown import WhenShown
from gpuviz.core.analysis.links import elements_on_line, thread_accesses, writers
from gpuviz.core.data_codes import (
    MODES,
    NEVER,
    NOT_READ,
    READS,
    SEVERAL,
    UNRECORDED,
    array_words,
    data_legend,
    element_codes,
    first_writes,
    lut,
    picture_shape,
    read_codes,
    read_rows,
    short,
    unrecorded_changes,
    why_empty,
)
from gpuviz.core.frames import REPLAY
from gpuviz.core.numbers import number
from gpuviz.core.theme_colours import badge_html
from gpuviz.core.trace.columns import READ
from gpuviz.scene.state import AppState

MAX_MARKS = 4000
MIN_CELL_PIXELS = 3.0  # an element picked elsewhere in cells smaller than this is zoomed to ...
ZOOMED_CELLS = 16  # ... with this many cells across (values show in the cells)
LABEL_ROOM = 0.4  # cells left above and to the left of the picture for the column and row numbers


class DataView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.array = QComboBox()
        self.array.setToolTip("Which array of the kernel to show")
        self.mode = QComboBox()
        self.mode.setToolTip("What each element's colour shows")
        self.mode.addItems(list(MODES))
        for combo in (self.array, self.mode):  # long array names must not widen the window past a projector's
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        self.slice = QSpinBox()
        self.slice.setToolTip("Which slice of a 3-D array to show")
        self.slice.setEnabled(False)
        self.caption = QLabel("No trace yet.")
        self.caption.setWordWrap(True)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground((24, 24, 30))
        self.view = self.graphics.addViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image)
        self.cell_lines = QGraphicsPathItem()
        self.cell_lines.setPen(QPen(QColor(24, 24, 30), 0))
        self.view.addItem(self.cell_lines)
        self.races = Hatching()  # over the elements written by several threads
        self.view.addItem(self.races)
        marks = {"symbol": "s", "pxMode": False, "brush": None}
        self.reads = pg.ScatterPlotItem(size=0.8, pen=pg.mkPen((0, 230, 255), width=0), **marks)
        self.writes = pg.ScatterPlotItem(size=0.55, pen=pg.mkPen("w", width=0), **marks)
        self.view.addItem(self.reads)
        self.view.addItem(self.writes)
        self.values = CellLabels(self.view, min_pixels=34.0)
        self.marks = MarkOutlines(self.view)  # the elements a lesson's claim is about
        self.column_labels = CellLabels(self.view, min_pixels=3.0, on_plot=True)
        self.row_labels = CellLabels(self.view, min_pixels=3.0, on_plot=True)
        top = QHBoxLayout()
        for label, widget in (("array", self.array), ("colour by", self.mode), ("slice", self.slice)):
            top.addWidget(QLabel(label))
            top.addWidget(widget)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        layout.addWidget(self.graphics, 1)
        self._shape = (0, 0)
        self._last = self._count = None
        self._drawn_block = None
        self._writers_of: tuple | None = None  # (trace, array, block) that self._writers describe
        self._writers: tuple = ()  # last writer, write count and first write of each element
        self._clicked = False  # an element picked by clicking this view
        self._by_reads = False  # the picture shows how often each element is read, not who wrote it
        self._mode_before_reads: str | None = None  # the writers' mode to go back to after a read-only array
        self._reads, self._most_reads = np.zeros(0, np.int64), 0
        self._draw_when_shown = WhenShown(self._draw)
        self.array.currentIndexChanged.connect(lambda *_: self._redraw())
        self.mode.currentIndexChanged.connect(self._on_mode_picked)
        self.slice.valueChanged.connect(lambda *_: self._redraw())
        self.graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.graphics.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        state.trace_changed.connect(self._on_trace_changed)
        state.selection_changed.connect(self._on_selection_changed)
        state.element_changed.connect(self._on_element_changed)
        state.line_changed.connect(lambda *_: self._mark())
        state.marks_changed.connect(lambda *_: self._draw_marks())
        state.frame_changed.connect(self._on_frame_changed)
        state.frames_changed.connect(lambda *_: self._redraw())
        state.palette_changed.connect(lambda *_: self._redraw())
        self.view.sigRangeChanged.connect(lambda *_: self._label())

    def _on_mode_picked(self, *_) -> None:
        self._mode_before_reads = None  # the student's own choice stays
        self._redraw()

    def set_compact(self, compact: bool) -> None:
        self.caption.setVisible(not compact)
        for combo in (self.array, self.mode):  # the stage has the room for whole names
            policy = "AdjustToContents" if compact else "AdjustToMinimumContentsLengthWithIcon"
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy[policy])

    def headline(self) -> str:
        return self.caption.text()

    def drawing(self) -> QWidget:
        return self.graphics

    def legend_in_drawing(self) -> list[tuple[tuple[int, int, int], str]]:
        return self.marks.scale_shown

    def set_on_screen(self, on_screen: bool) -> None:
        self._draw_when_shown.set_on_screen(on_screen)

    def busy(self) -> bool:
        return self._draw_when_shown.pending

    # ---- which array ---------------------------------------------------------------------------
    def _on_trace_changed(self, trace) -> None:
        self.array.blockSignals(True)
        self.array.clear()
        for aid, entry in enumerate(trace.meta.get("arrays", []) if trace is not None else []):
            self.array.addItem(array_words(entry), aid)
        if trace is not None and trace.accesses is not None:  # start on the first array something wrote
            written = trace.accesses["array"][trace.accesses["kind"] != READ]
            if len(written):
                self.array.setCurrentIndex(self.array.findData(int(written.min())))
        self.array.blockSignals(False)
        self._redraw()

    def current_array(self) -> int:
        return self.array.currentData() if self.array.count() else -1

    def legend_items(self) -> list[tuple[tuple[int, int, int], str]]:
        """What the colours mean (pictures put it beside the view)."""
        if self.state.trace is None:
            return []
        mode = READS if self._by_reads else self.mode.currentText()
        return data_legend(self.state.trace, self.state.palette_colours(), mode, self._most_reads)

    def _entry(self):
        return self.state.trace.meta["arrays"][self.current_array()]

    def _block(self) -> int | None:
        """Shared arrays: the selected thread's block (block 0 when none is selected)."""
        if self._entry()["space"] != "shared":
            return None
        selected = max(0, self.state.selected)
        return selected // int(np.prod(self.state.trace.block))

    def _on_selection_changed(self, gid: int) -> None:
        """Only a shared array's picture depends on the selection (its block's copy); else re-mark."""
        if self.state.trace is not None and self.current_array() >= 0 and self._block() != self._drawn_block:
            self._redraw()
        else:
            self._mark()

    # ---- drawing -------------------------------------------------------------------------------
    def _redraw(self) -> None:
        """Draw now, or once the view is shown; meanwhile nothing drawn from another picture stays, and
        nothing worked out for another trace keeps that trace in memory."""
        self._last = None
        if self._writers_of is not None and self._writers_of[0] is not self.state.trace:
            self._writers_of, self._writers = None, ()
            self._final_codes = self._first_write = self._count = None
            self.image.clear()
            self.races.setPath(QPainterPath())
        self._draw_when_shown()

    def _draw(self) -> None:
        trace = self.state.trace
        entry = self._entry() if trace is not None and self.current_array() >= 0 else None
        size = int(np.prod(entry["shape"])) if entry is not None and entry["shape"] else 1
        if entry is None or size == 0 or trace.accesses is None:
            self.image.clear()
            self.races.setPath(QPainterPath())
            self._last = None
            self._writers_of = None  # nothing computed stays: the next trace (maybe this one again) computes
            self.reads.setData(x=[], y=[])
            self.writes.setData(x=[], y=[])
            self.marks.clear()
            self.caption.setText(why_empty(trace, entry))
            return
        shape = tuple(entry["shape"]) or (1,)
        self._drawn_block = self._block()
        drawn = (trace, self.current_array(), self._drawn_block)
        if self._writers_of is None or self._writers_of[0] is not trace or self._writers_of[1:] != drawn[1:]:
            last, count = writers(trace, self.current_array(), size, self._drawn_block)
            self._writers = last, count, first_writes(trace, self.current_array(), size, self._drawn_block)
            self._writers_of = drawn  # a redraw of the same picture (new frames, a slice) reuses them
        self._last, self._count, self._first_write = self._writers
        last, count = self._last, self._count
        self._shape = picture_shape(shape)
        self.slice.setEnabled(len(shape) == 3)
        self.slice.setRange(0, shape[0] - 1 if len(shape) == 3 else 0)
        offset = self.slice.value() * self._shape[0] * self._shape[1] if len(shape) == 3 else 0
        palette = self.state.palette_colours()
        self._follow_the_array(written=bool((last >= 0).any()))  # atomics count as writes
        self._by_reads = self.mode.currentText() == READS
        if self._by_reads:
            self._reads = read_rows(trace, self.current_array(), self._drawn_block)
            totals = np.bincount(trace.accesses["index"][self._reads], minlength=size)
            self._most_reads = int(totals.max(initial=0))
            self._final_codes = read_codes(trace, self._reads, size, None, self._most_reads)
        else:
            self._final_codes = element_codes(trace, last, count, self.mode.currentText(), len(palette))
        unseen = unrecorded_changes(trace, entry, last)
        if unseen is not None and not self._by_reads:
            self._final_codes[unseen] = UNRECORDED
        self._offset = offset
        self.image.setLookupTable(lut(palette))
        self.cell_lines.setPath(cell_lines(*self._shape))
        where = f", block {self._block()}'s copy" if self._block() is not None else ""
        written = int((count > 0).sum())
        several = int((count > 1).sum())
        if self._by_reads:
            read = int((self._final_codes != NOT_READ).sum())
            unwritten = "no thread writes it, so " if not written else ""
            self.caption.setText(f"<b>{entry['name']}</b>{where}: {unwritten}each element is coloured by how many "
                                 f"times it is read: {read:,} of {size:,} elements read, at most {self._most_reads:,} "
                                 f"times (brightest); never read: dark.")  # fmt: skip
        else:
            races = badge_html(f"▨ {several:,} by several threads without atomics (hatched)", "race")
            self.caption.setText(
                f"<b>{entry['name']}</b>{where}: {written:,} of {size:,} elements written; {races}; never written: "
                "dark." + (f" {int(unseen.sum()):,} more changed, by blocks whose accesses were not recorded (purple)."
                           if unseen is not None else "")
            )  # fmt: skip
        self._paint()  # in the replay its caption, of the memory at the cursor, replaces the one above
        self._draw_marks()
        rows, columns = self._shape  # the picture and, where labels fit, room for them above and to the left
        whole = QRectF(-LABEL_ROOM, -LABEL_ROOM, columns + LABEL_ROOM, rows + LABEL_ROOM)
        self.view.setRange(self.marks.with_room(whole), padding=0.02)
        self._zoom_to_element()
        self._mark()

    def _follow_the_array(self, written: bool) -> None:
        """An array no thread writes is drawn by its reads, and the combo says so; the writers' colours the
        student had come back with the next array that is written."""
        wanted = None
        if not written and self.mode.currentText() != READS:
            self._mode_before_reads, wanted = self.mode.currentText(), READS
        elif written and self._mode_before_reads is not None and self.mode.currentText() == READS:
            wanted, self._mode_before_reads = self._mode_before_reads, None
        if wanted is not None:
            self.mode.blockSignals(True)
            self.mode.setCurrentText(wanted)
            self.mode.blockSignals(False)

    def _draw_marks(self) -> None:
        """Outline the elements of the scene's marks that are on the array (and copy, and slice) shown."""
        if self._last is None or self.current_array() < 0:
            self.marks.clear()
            return
        rows, columns = self._shape
        shown = []
        for mark in self.state.marks:
            if mark.elements is None or mark.array != self.current_array() or mark.block != self._drawn_block:
                continue
            local = mark.elements - self._offset
            local = local[(local >= 0) & (local < rows * columns)]
            shown.append((mark.label, local % columns, local // columns))
        self.marks.show(shown, self.legend_items() if self._by_reads else [])

    def _replaying(self) -> bool:
        return self.state.order == REPLAY and self.state.replay is not None

    def _paint(self) -> None:
        """The element colours: final writers, or in the replay those written by the cursor."""
        codes = self._final_codes
        if self._replaying() and self._by_reads:
            codes = read_codes(self.state.trace, self._reads, len(codes), self.state.frame, self._most_reads)
        elif self._replaying():
            shown = (self._first_write < self.state.frame) | (codes == UNRECORDED)  # when is not known: all along
            codes = np.where(shown, codes, NEVER).astype(np.uint8)
            self._caption_now()
        plane = np.full(self._shape[0] * self._shape[1], 255, np.uint8)
        part = codes[self._offset : self._offset + plane.size]
        plane[: len(part)] = part
        self.image.setImage(plane.reshape(self._shape), autoLevels=False, levels=(0, 255))
        self.races.setPath(hatched_cells(plane.reshape(self._shape), SEVERAL))
        self._label()

    def _caption_now(self) -> None:
        entry, frame = self._entry(), self.state.frame
        written = int((self._first_write < frame).sum())
        where = f", block {self._drawn_block}'s copy" if self._drawn_block is not None else ""
        unseen = int(np.count_nonzero(self._final_codes == UNRECORDED))
        self.caption.setText(f"<b>{entry['name']}</b>{where} after event {frame:,}: {written:,} of "
                             f"{len(self._first_write):,} elements written so far (dark: not yet); the last access "
                             f"flashes (cyan: read, white: write). Zoom in to see values."
                             + (f" Purple: {unseen:,} changed by blocks whose accesses were not recorded."
                                if unseen else ""))  # fmt: skip

    def _on_frame_changed(self, frame: int) -> None:
        if self._last is not None and self._replaying():
            self._paint()
            self._mark()

    def values_now(self) -> np.ndarray:
        """The shown array's values at the cursor (the replay), or after the launch (flat)."""
        trace, entry = self.state.trace, self._entry()
        if self._replaying():
            return self.state.replay.values_at(self.current_array(), self.state.frame, self._drawn_block)
        if entry["name"] in trace.args:
            return trace.after(entry["name"]).reshape(-1)
        return np.full(len(self._last), np.nan)

    def _label(self) -> None:
        """Values in the cells and indices along the edges, once the cells are big enough."""
        if self._last is None:
            return
        rows, columns = self._shape
        owner = np.arange(rows * columns).reshape(self._shape) + self._offset
        owner[owner >= len(self._last)] = -1
        values = self.values_now()
        self.values.label_cells(owner, lambda cells: [short(values[c]) for c in cells])
        self._label_axes(rows, columns)

    def _label_axes(self, rows: int, columns: int) -> None:
        """Column numbers above the cells, row numbers (1-D arrays: the row's first index) to their left."""
        if self.column_labels.pixels_per_cell() < 22 or rows * columns == 0:
            self.column_labels.clear()
            self.row_labels.clear()
            return
        x0, x1, y0, y1 = self.column_labels.visible(columns, rows)
        one_d = len(self._entry()["shape"]) <= 1
        self.column_labels.show([(x + 0.5, -0.1) for x in range(x0, x1)], [str(x) for x in range(x0, x1)], (0.5, 1))
        self.row_labels.show(
            [(-0.1, y + 0.5) for y in range(y0, y1)],
            [str(self._offset + y * columns if one_d else y) for y in range(y0, y1)],
            (1, 0.5),
        )

    def _mark(self) -> None:
        trace = self.state.trace
        if trace is None or self.current_array() < 0 or self._last is None:
            return
        reads = writes = np.zeros(0, np.int64)
        if self.state.line:
            writes = elements_on_line(trace, self.state.line, self.current_array())
        elif self.state.selected >= 0:  # the selected thread's accesses (in the replay: those made so far)
            rows = thread_accesses(trace, self.state.selected, self.state.frame if self._replaying() else None)
            if rows:
                mine = rows["array"] == self.current_array()
                reads = np.unique(rows["index"][mine & (rows["kind"] == READ)])
                writes = np.unique(rows["index"][mine & (rows["kind"] != READ)])
        elif self._replaying():  # the accesses of the last event flash
            frame = self.state.frame
            reads, writes = self.state.replay.touched_between(self.current_array(), frame - 1, frame)
        if self.state.element and self.state.element[0] == self.current_array():
            writes = np.union1d(writes, [self.state.element[1]])
        for item, indices in ((self.reads, reads), (self.writes, writes)):
            local = indices[(indices >= self._offset) & (indices < self._offset + self._shape[0] * self._shape[1])]
            local = local[:MAX_MARKS] - self._offset
            item.setData(x=local % self._shape[1] + 0.5, y=local // self._shape[1] + 0.5)

    # ---- the mouse -----------------------------------------------------------------------------
    def element_at(self, scene_pos) -> int:
        if self._last is None:
            return -1
        point = self.view.mapSceneToView(scene_pos)
        x, y = int(math.floor(point.x())), int(math.floor(point.y()))
        if not (0 <= x < self._shape[1] and 0 <= y < self._shape[0]):
            return -1
        index = self._offset + y * self._shape[1] + x
        return index if index < len(self._last) else -1

    def _on_mouse_moved(self, scene_pos) -> None:
        index = self.element_at(scene_pos)
        self.graphics.setToolTip(self.describe(index) if index >= 0 else "")

    def describe(self, index: int) -> str:
        trace, entry = self.state.trace, self._entry()
        lines = [f"{entry['name']}[{index}]"]
        if entry["name"] in trace.args:
            before, after = trace.before(entry["name"]).reshape(-1), trace.after(entry["name"]).reshape(-1)
            lines.append(f"before {number(before[index])}, after {number(after[index])}")
        writer = int(self._last[index])
        lines.append(f"last written by thread {writer:,}" if writer >= 0 else "never written")
        if self._count[index] > 1:
            lines.append(f"written by {int(self._count[index])} threads")
        if self._replaying():
            lines.append(f"at event {self.state.frame:,}: {short(self.values_now()[index])}")
        return "<br>".join(lines)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self.element_at(event.scenePos())
        if index >= 0:
            self._clicked = True  # picked here, where the student is looking: no zoom
            try:
                self.state.select_element((self.current_array(), index, self._block()))
            finally:
                self._clicked = False

    def _on_element_changed(self, element) -> None:
        if element is not None and element[0] != self.current_array():
            position = self.array.findData(element[0])
            if position >= 0:
                self.array.setCurrentIndex(position)
        self._mark()
        if self._last is not None and not self._clicked:
            self._zoom_to_element()

    def _zoom_to_element(self) -> None:
        """Where cells are too small to make out (a million elements), zoom to the picked element (by a
        lesson, a race row, the element story) and the few around it, values shown."""
        element = self.state.element
        if element is None or element[0] != self.current_array() or self.values.pixels_per_cell() >= MIN_CELL_PIXELS:
            return
        local = int(element[1]) - self._offset
        if not 0 <= local < self._shape[0] * self._shape[1]:
            return
        x, y = local % self._shape[1] + 0.5, local // self._shape[1] + 0.5
        self.view.setRange(xRange=(x - ZOOMED_CELLS / 2, x + ZOOMED_CELLS / 2),
                           yRange=(y - ZOOMED_CELLS / 4, y + ZOOMED_CELLS / 4), padding=0)  # fmt: skip
