"""The SM timeline: a Gantt chart of blocks on SMs over time, coloured by block or by wave.

Bars of one colour are one BarGraphItem, so thousands of blocks draw as a dozen items. Only the SMs the
launch used get a row (labelled with their SM numbers): 4 blocks on a 132-SM GPU are 4 rows, not 4 thin
bands in a chart of 132, and the caption says how many SMs sat idle.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.app.widgets.when_shown import WhenShown
from gpuviz.core.analysis.residency import residency_note
from gpuviz.core.analysis.timeline import (
    bar_legend,
    block_slots,
    block_spans,
    block_waves,
    most_at_once,
    time_axis_words,
)
from gpuviz.scene.state import AppState

MODES = ("wave", "block")


class TimelineView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.mode = QComboBox()
        self.mode.setToolTip("What the SM timeline shows")
        self.mode.addItems(list(MODES))
        self.caption = QLabel("No trace yet.")
        self.caption.setWordWrap(True)
        self.plot = pg.PlotWidget(background=(24, 24, 30))
        self.plot.invertY(True)
        self.plot.setLabel("left", "SM")
        self.plot.showGrid(x=True, y=False, alpha=0.2)
        self.highlight = pg.BarGraphItem(x0=[], x1=[], y0=[], height=[], brush=None, pen=pg.mkPen("w", width=2))
        top = QHBoxLayout()
        top.addWidget(QLabel("colour by"))
        top.addWidget(self.mode)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot, 1)
        self._bars = []
        self.spans = None
        self._show_when_shown = WhenShown(lambda: self._show_trace(self.state.trace))
        self.mode.currentIndexChanged.connect(lambda *_: self._draw())
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        state.trace_changed.connect(self._on_trace_changed)
        state.selection_changed.connect(self._on_selection_changed)
        state.palette_changed.connect(lambda *_: self._draw())

    def set_compact(self, compact: bool) -> None:
        self.caption.setVisible(not compact)

    def headline(self) -> str:
        return self.caption.text()

    def drawing(self) -> QWidget:
        return self.plot

    def set_on_screen(self, on_screen: bool) -> None:
        self._show_when_shown.set_on_screen(on_screen)

    def busy(self) -> bool:
        return self._show_when_shown.pending

    def _on_trace_changed(self, _trace) -> None:
        """Draw now, or once the view is shown; meanwhile no bars of another launch stay."""
        self.spans = None
        self._draw()
        self._show_when_shown()

    def _show_trace(self, trace) -> None:
        if trace is None:
            self.spans = None
            self._draw()
            return
        self.spans = block_spans(trace)
        self.waves = block_waves(trace)
        self.slots = block_slots(*self.spans)
        self.rows = int(self.slots.max()) + 1
        self.used_sms, self.sm_row = np.unique(self.spans[0], return_inverse=True)
        self._label_rows(trace)
        self._draw()
        sm, start, end = self.spans
        at_once = most_at_once(sm, start, end)
        unit = trace.meta.get("time_unit", "tick")
        self.plot.setLabel("bottom", time_axis_words(unit))
        self.caption.setText(
            f"<b>{len(sm):,} blocks on {len(self.used_sms)} SMs</b> in <b>{int(self.waves.max()) + 1} "
            f"wave(s)</b>; up to {at_once} blocks on one SM at once. A bar spans a block's first start to last end."
            + _idle_note(len(self.used_sms), int(trace.meta.get("sm_count", 0) or 0))
            + (f"<br>{note}" if (note := residency_note(trace)) else "")
        )

    def _draw(self) -> None:
        for item in self._bars:
            self.plot.removeItem(item)
        self._bars = []
        self.plot.removeItem(self.highlight)
        if self.spans is None:
            return
        sm, start, end = self.spans
        keys = self.waves if self.mode.currentText() == "wave" else np.arange(len(sm))
        palette = self.state.palette_colours()
        colour = keys % len(palette)
        width = np.maximum(end - start, max(1, int((end.max() - start.min()) * 0.002)))
        height = 0.9 / self.rows
        top = self.sm_row - 0.45 + self.slots * height
        for c in np.unique(colour):  # an outline of the bar's colour: a bar thinner than a pixel still shows
            mine = colour == c
            bars = pg.BarGraphItem(x0=start[mine], width=width[mine], y0=top[mine], height=height * 0.9,
                                   brush=pg.mkBrush(*palette[c]), pen=pg.mkPen(*palette[c]))  # fmt: skip
            self.plot.addItem(bars)
            self._bars.append(bars)
        self.plot.addItem(self.highlight)
        self._on_selection_changed(self.state.selected)

    def legend_items(self) -> list[tuple[tuple[int, int, int], str]]:
        """What the bars' colours mean (pictures put it beside the view)."""
        if self.spans is None:
            return []
        mode = self.mode.currentText()
        count = int(self.waves.max()) + 1 if mode == "wave" else len(self.spans[0])
        return bar_legend(count, self.state.palette_colours(), mode)

    def block_at(self, scene_pos) -> int:
        if self.spans is None:
            return -1
        point = self.plot.plotItem.vb.mapSceneToView(scene_pos)
        sm, start, end = self.spans
        row = int((point.y() - round(point.y()) + 0.45) / (0.9 / self.rows))
        hit = (self.sm_row == round(point.y())) & (self.slots == row) & (start <= point.x()) & (end >= point.x())
        found = np.flatnonzero(hit)
        return int(found[0]) if len(found) else -1

    def _on_mouse_moved(self, scene_pos) -> None:
        block = self.block_at(scene_pos)
        if block < 0:
            self.plot.setToolTip("")
            return
        sm, start, end = self.spans
        coords = self.state.trace.threads["block_idx"][block * int(np.prod(self.state.trace.block))]
        self.plot.setToolTip(f"block {tuple(int(v) for v in coords)} on SM {int(sm[block])}, wave "
                             f"{int(self.waves[block])}: {int(start[block]):,} to {int(end[block]):,}")  # fmt: skip

    def _on_mouse_clicked(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            block = self.block_at(event.scenePos())
            if block >= 0:
                self.state.select(block * int(np.prod(self.state.trace.block)))

    def _on_selection_changed(self, gid: int) -> None:
        if self.spans is None or gid < 0:
            self.highlight.setOpts(x0=[], width=[], y0=[], height=[])
            return
        block = gid // int(np.prod(self.state.trace.block))
        sm, start, end = self.spans
        height = 0.9 / self.rows
        self.highlight.setOpts(x0=[start[block]], width=[max(1, end[block] - start[block])],
                               y0=[self.sm_row[block] - 0.45 + self.slots[block] * height],
                               height=[height * 0.9])  # fmt: skip

    def _label_rows(self, trace) -> None:
        """A row per SM used, each tick an SM's number (a whole number: no SM 2.5); at most about 16
        labels, evenly spread, so they never overlap."""
        used = self.used_sms
        step = max(1, -(-len(used) // 16))
        self.plot.getAxis("left").setTicks([[(row, str(int(used[row]))) for row in range(0, len(used), step)], []])
        total = int(trace.meta.get("sm_count", 0) or 0)
        self.plot.setLabel("left", "SM" if total <= len(used) else f"SM (the {len(used)} used of {total})")
        self.plot.setYRange(-0.6, len(used) - 0.4, padding=0)


def _idle_note(used: int, total: int) -> str:
    if total <= used:
        return ""
    return f"<br>{total - used} of the device's {total} SMs ran no block of this launch (not drawn)."
