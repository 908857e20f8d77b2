"""The thread-to-data map: a kernel's arrays, each element coloured by the thread that last wrote it.

Elements written by several threads are red, never-written ones dark; the selected thread's reads
and writes (or the elements of the selected line) are marked. Shared arrays show the selected
thread's block's copy, rebuilt from the writes in the access log.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QComboBox, QGraphicsPathItem, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.core.analysis.links import elements_on_line, thread_accesses, writers
from gpuviz.core.colors import PALETTE
from gpuviz.core.trace import READ

NEVER, SEVERAL = 0, 13
MODES = ("block", "warp", "thread")
MAX_MARKS = 4000


class DataView(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.array = QComboBox()
        self.mode = QComboBox()
        self.mode.addItems(list(MODES))
        self.slice = QSpinBox()
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
        marks = {"symbol": "s", "pxMode": False, "brush": None}
        self.reads = pg.ScatterPlotItem(size=0.8, pen=pg.mkPen((0, 230, 255), width=0), **marks)
        self.writes = pg.ScatterPlotItem(size=0.55, pen=pg.mkPen("w", width=0), **marks)
        self.view.addItem(self.reads)
        self.view.addItem(self.writes)
        top = QHBoxLayout()
        for label, widget in (("array", self.array), ("colour by last writer's", self.mode), ("slice", self.slice)):
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
        self.array.currentIndexChanged.connect(lambda *_: self._redraw())
        self.mode.currentIndexChanged.connect(lambda *_: self._redraw())
        self.slice.valueChanged.connect(lambda *_: self._redraw())
        self.graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.graphics.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        state.trace_changed.connect(self._on_trace_changed)
        state.selection_changed.connect(self._on_selection_changed)
        state.element_changed.connect(self._on_element_changed)
        state.line_changed.connect(lambda *_: self._mark())

    # ---- which array ---------------------------------------------------------------------------
    def _on_trace_changed(self, trace) -> None:
        self.array.blockSignals(True)
        self.array.clear()
        for aid, entry in enumerate(trace.meta.get("arrays", []) if trace is not None else []):
            self.array.addItem(f"{entry['name']} ({entry['space']}, {entry['dtype']}{tuple(entry['shape'])})", aid)
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
        trace, lut, mode = self.state.trace, _lut(), self.mode.currentText()
        if trace is None:
            return []
        per_block = int(np.prod(trace.block))
        count = {"block": trace.n_threads // per_block, "warp": trace.n_threads // per_block * ((per_block + 31) // 32),
                 "thread": trace.n_threads}[mode]  # fmt: skip
        shown = min(count, len(PALETTE))
        again = f" (and every {len(PALETTE)}th after)" if count > len(PALETTE) else ""
        rgb = lambda code: tuple(int(c) for c in lut[code, :3])
        writers = [(rgb(k + 1), f"last written by {mode} {k}{again if k == 0 else ''}") for k in range(shown)]
        return [*writers, (rgb(SEVERAL), "written by several threads"), (rgb(NEVER), "never written")]

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
        trace = self.state.trace
        entry = self._entry() if trace is not None and self.current_array() >= 0 else None
        size = int(np.prod(entry["shape"])) if entry is not None and entry["shape"] else 1
        if entry is None or size == 0 or trace.accesses is None:
            self.image.clear()
            self._last = None
            self.reads.setData(x=[], y=[])
            self.writes.setData(x=[], y=[])
            self.caption.setText(_why_empty(trace, entry))
            return
        shape = tuple(entry["shape"]) or (1,)
        self._drawn_block = self._block()
        last, count = writers(trace, self.current_array(), size, self._drawn_block)
        self._last, self._count = last, count
        self._shape = _picture_shape(shape)
        self.slice.setEnabled(len(shape) == 3)
        self.slice.setRange(0, shape[0] - 1 if len(shape) == 3 else 0)
        offset = self.slice.value() * self._shape[0] * self._shape[1] if len(shape) == 3 else 0
        codes = _codes(trace, last, count, self.mode.currentText())
        plane = np.full(self._shape[0] * self._shape[1], 255, np.uint8)
        part = codes[offset : offset + plane.size]
        plane[: len(part)] = part
        self.image.setImage(plane.reshape(self._shape), autoLevels=False, levels=(0, 255))
        self.image.setLookupTable(_lut())
        self.cell_lines.setPath(_cell_lines(*self._shape))
        self.view.autoRange(padding=0.02)
        where = f", block {self._block()}'s copy" if self._block() is not None else ""
        written = int((count > 0).sum())
        several = int((count > 1).sum())
        self.caption.setText(
            f"<b>{entry['name']}</b>{where}: {written:,} of {size:,} elements written; "
            f"<span style='color:#ff4040'>{several:,} by several threads without atomics</span>; never written: dark."
        )
        self._offset = offset
        self._mark()

    def _mark(self) -> None:
        trace = self.state.trace
        if trace is None or self.current_array() < 0 or self._last is None:
            return
        reads = writes = np.zeros(0, np.int64)
        if self.state.line:
            writes = elements_on_line(trace, self.state.line, self.current_array())
        elif self.state.selected >= 0:
            rows = thread_accesses(trace, self.state.selected)
            if rows:
                mine = rows["array"] == self.current_array()
                reads = np.unique(rows["index"][mine & (rows["kind"] == READ)])
                writes = np.unique(rows["index"][mine & (rows["kind"] != READ)])
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
            lines.append(f"before {before[index]:g}, after {after[index]:g}")
        writer = int(self._last[index])
        lines.append(f"last written by thread {writer:,}" if writer >= 0 else "never written")
        if self._count[index] > 1:
            lines.append(f"written by {int(self._count[index])} threads")
        return "<br>".join(lines)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self.element_at(event.scenePos())
        if index >= 0:
            self.state.select_element((self.current_array(), index, self._block()))

    def _on_element_changed(self, element) -> None:
        if element is not None and element[0] != self.current_array():
            position = self.array.findData(element[0])
            if position >= 0:
                self.array.setCurrentIndex(position)
        self._mark()


def _cell_lines(rows: int, columns: int) -> QPainterPath:
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


def _picture_shape(shape: tuple) -> tuple[int, int]:
    if len(shape) == 1:
        width = shape[0] if shape[0] <= 64 else 64
        return math.ceil(shape[0] / width), width
    if len(shape) == 2:
        return shape[0], shape[1]
    return shape[1], shape[2]


def _why_empty(trace, entry) -> str:
    if trace is None:
        return "No trace yet."
    if entry is None:
        return "This launch has no arrays."
    if trace.accesses is None:
        return "Accesses were not recorded for this launch (level threads): run with level accesses to see them."
    return f"{entry['name']} has no elements."


def _codes(trace, last: np.ndarray, count: np.ndarray, mode: str) -> np.ndarray:
    per_block = int(np.prod(trace.block))
    writer = np.maximum(last, 0)
    warp = (writer // per_block) * ((per_block + 31) // 32) + trace.threads["warp"][writer]  # blocks of any size
    ids = {"thread": last, "block": last // per_block, "warp": warp}[mode]
    codes = (np.maximum(ids, 0) % len(PALETTE) + 1).astype(np.uint8)
    codes[last < 0] = NEVER
    codes[count > 1] = SEVERAL
    return codes


def _lut() -> np.ndarray:
    lut = np.zeros((256, 4), np.uint8)
    lut[:, 3] = 255
    lut[NEVER, :3] = (45, 45, 55)
    lut[1 : len(PALETTE) + 1, :3] = PALETTE
    lut[SEVERAL, :3] = (255, 40, 40)
    lut[255, :3] = (24, 24, 30)
    return lut


