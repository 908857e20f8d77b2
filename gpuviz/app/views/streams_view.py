"""The Streams view: the run's copies and kernels on a timeline, a copies row and a kernels row per stream,
numba's compile on a host row; events as ticks. Long idle gaps are cut short and their length written
(core/stream_layout.py). Every time it writes carries its label: (model) on the simulator, (measured:
CARD, DATE) on a GPU. A lesson's marks on spans (core/stream_marks.py) are outlined with their call-out.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.app.widgets.plot_theme import colours_of, follow
from gpuviz.core.stream_layout import StreamLayout, layout
from gpuviz.core.stream_marks import time_words
from gpuviz.core.streams import COMPILE, COPY_IN, COPY_OUT, EVENT, KERNEL, StreamTimeline, label_of, measure
from gpuviz.core.theme_colours import rgb
from gpuviz.scene.state import AppState

COLOURS = {COPY_IN: (80, 150, 240), COPY_OUT: (90, 200, 120), KERNEL: (245, 160, 50), COMPILE: (150, 150, 160)}
WORDS = {COPY_IN: "copy in (host to device)", COPY_OUT: "copy out (device to host)", KERNEL: "kernel",
         COMPILE: "numba compiling"}  # fmt: skip
EVENT_COLOUR = (240, 220, 90)  # events: dashed lines across the rows
KEY_WORDS = {COPY_IN: "copy in (to the device)", COPY_OUT: "copy out", KERNEL: "kernel", COMPILE: "compile"}
MAX_LABELS = 40  # span labels drawn at most; beyond that the tooltip says each span
TOP = -1.4  # where the call-outs start, over the first row (rows are at 0, 1, ...)


class StreamsView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.caption = QLabel("No run yet.")
        self.caption.setWordWrap(True)
        self.plot = pg.PlotWidget(background=(24, 24, 30), axisItems={"bottom": ClockAxis(self)})
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=True, y=False)
        layout_ = QVBoxLayout(self)
        layout_.addWidget(self.caption)
        layout_.addWidget(self.plot, 1)
        self.detail = QLabel("Click a bar: what it moved or ran, and for how long.")
        layout_.addWidget(self.detail)
        self.timeline: StreamTimeline | None = None
        self.placed: StreamLayout | None = None
        self._items: list = []
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        state.trace_changed.connect(self._on_trace_changed)
        state.streams_changed.connect(self._on_streams_changed)
        state.marks_changed.connect(lambda *_: self._draw())

    def set_compact(self, compact: bool) -> None:
        self.caption.setVisible(not compact)
        self.detail.setVisible(not compact)

    def headline(self) -> str:
        return self.caption.text()

    def drawing(self) -> QWidget:
        return self.plot

    def legend_items(self) -> list[tuple[tuple[int, int, int], str]]:
        if self.timeline is None:
            return []
        kinds = {s.kind for s in self.timeline.spans}
        events = [(EVENT_COLOUR, "event (dashed)")] if EVENT in kinds else []
        return [(COLOURS[k], KEY_WORDS[k]) for k in COLOURS if k in kinds] + events

    def _on_trace_changed(self, _trace) -> None:
        self._show(self.state.stream_timeline())

    def _on_streams_changed(self, _timeline) -> None:
        self._show(self.state.stream_timeline())

    def _show(self, timeline: StreamTimeline | None) -> None:
        self.timeline = timeline
        self.placed = layout(timeline) if timeline is not None else None
        self.caption.setText(_summary(timeline))
        self._draw()

    def _draw(self) -> None:
        for item in self._items:
            self.plot.removeItem(item)
        self._items = []
        if self.timeline is None or self.placed is None:
            return
        self._draw_bars()
        self._draw_cuts()
        self._draw_marks()
        self._draw_key()
        self._axes()

    def _add(self, item) -> None:
        self.plot.addItem(item)
        self._items.append(item)

    def _box(self, index: int) -> tuple[float, float, float]:
        """x0, width, row of a span as drawn (a span shorter than the picture can show keeps a sliver)."""
        span, placed = self.timeline.spans[index], self.placed
        x0, x1 = placed.x(span.start_us), placed.x(span.end_us)
        return x0, max(x1 - x0, self._total() * 0.002), placed.row_of[index]

    def _total(self) -> float:
        spans = self.timeline.spans
        return max(self.placed.x(max(s.end_us for s in spans)), 1e-6)

    def _draw_bars(self) -> None:
        spans = self.timeline.spans
        for kind, colour in COLOURS.items():
            mine = [i for i, s in enumerate(spans) if s.kind == kind]
            if not mine:
                continue
            boxes = [self._box(i) for i in mine]
            self._add(pg.BarGraphItem(x0=[b[0] for b in boxes], width=[b[1] for b in boxes],
                                      y0=[b[2] - 0.35 for b in boxes], height=0.7, brush=pg.mkBrush(*colour),
                                      pen=pg.mkPen(*colour)))  # fmt: skip
        labelled = [i for i, s in enumerate(spans) if s.kind != EVENT][:MAX_LABELS]
        for i in labelled:
            x0, width, row = self._box(i)
            if width > self._total() * 0.08:  # words only where the bar can hold them
                text = pg.TextItem(time_words(spans[i].us), color=(20, 20, 20), anchor=(0.5, 0.5))
                text.setPos(x0 + width / 2, row)
                self._add(text)
        dotted = pg.mkPen(*EVENT_COLOUR, width=2, style=Qt.PenStyle.DashLine)
        for s in (s for s in spans if s.kind == EVENT):
            self._add(pg.InfiniteLine(pos=self.placed.x(s.start_us), angle=90, pen=dotted))

    def _draw_cuts(self) -> None:
        """Each cut gap: a hatched band with its length written on it."""
        rows = len(self.placed.rows)
        for cut in self.placed.cuts:
            band = pg.LinearRegionItem((cut.at, cut.at + cut.width), movable=False, brush=pg.mkBrush(90, 90, 100, 90))
            self._add(band)
            text = pg.TextItem(f"{time_words(cut.end_us - cut.start_us)} idle {label_of(self.timeline)}, cut short",
                               anchor=(0, 0.5))  # fmt: skip
            text.setPos(cut.at + cut.width, 0 if rows == 1 else -0.5)  # beside the band, over the first row
            self._add(text)
            follow(text)

    def _draw_marks(self) -> None:
        marks = [m for m in self.state.marks if m.spans is not None]
        pen = rgb(colours_of(self.plot.plotItem).text)  # outlines in the theme's text colour: seen on either
        for k, mark in enumerate(marks):
            boxes = [self._box(i) for i in mark.spans if self.placed.row_of[i] >= 0]
            self._add(pg.BarGraphItem(x0=[b[0] for b in boxes], width=[b[1] for b in boxes],
                                      y0=[b[2] - 0.45 for b in boxes], height=0.9, brush=None,
                                      pen=pg.mkPen(pen, width=3)))  # fmt: skip
            text = pg.TextItem(mark.label, anchor=(0, 0.5))
            text.setPos(0, TOP + 0.4 * k)  # the call-outs stacked over the rows, top left
            self._add(text)
            follow(text)

    def _draw_key(self) -> None:
        """What the colours mean, top right (a picture of the view carries its key)."""
        words = "&nbsp;&nbsp;".join(f'<span style="color: rgb{colour}">&#9632;</span> {words}'
                                    for colour, words in self.legend_items())  # fmt: skip
        r, g, b = (int(c) for c in rgb(colours_of(self.plot.plotItem).text))
        key = pg.TextItem(html=f'<span style="color: rgb({r}, {g}, {b})">{words}</span>', anchor=(1, 0.5))
        key.setPos(self._total(), TOP - 0.6)
        self._add(key)

    def _axes(self) -> None:
        rows = self.placed.rows
        self.plot.getAxis("left").setTicks([[(k, name) for k, name in enumerate(rows)], []])
        marks = sum(1 for m in self.state.marks if m.spans is not None)
        self.plot.setYRange(TOP - 0.95, max(len(rows), marks) - 0.4, padding=0)
        self.plot.setXRange(0, self._total(), padding=0.02)
        self.plot.setLabel("bottom", f"time, µs {label_of(self.timeline)}")

    def span_at(self, scene_pos) -> int:
        """The span drawn under a point of the plot's scene, -1 for none."""
        if self.timeline is None:
            return -1
        point = self.plot.plotItem.vb.mapSceneToView(scene_pos)
        for i in range(len(self.timeline.spans)):
            x0, width, row = self._box(i)
            if row >= 0 and row == round(point.y()) and x0 <= point.x() <= x0 + width:
                return i
        return -1

    def describe(self, index: int) -> str:
        span = self.timeline.spans[index]
        memory = "pinned" if span.pinned else "pageable"
        size = f", {span.nbytes:,} bytes from {memory} memory" if span.kind in (COPY_IN, COPY_OUT) else ""
        where = "the host" if span.stream < 0 else "the default stream" if span.stream == 0 else f"stream {span.stream}"
        return f"{WORDS[span.kind]} {span.label} on {where}{size}: {time_words(span.us)} {label_of(self.timeline)}"

    def _on_mouse_moved(self, scene_pos) -> None:
        index = self.span_at(scene_pos)
        self.plot.setToolTip(self.describe(index) if index >= 0 else "")

    def _on_mouse_clicked(self, event) -> None:
        index = self.span_at(event.scenePos())
        if index >= 0:
            self.detail.setText(self.describe(index))


class ClockAxis(pg.AxisItem):
    """The time axis: ticks where the picture puts them, labelled with the clock's time (a cut gap shifts it)."""

    def __init__(self, view: StreamsView) -> None:
        super().__init__("bottom")
        self.view = view

    def tickStrings(self, values, scale, spacing) -> list[str]:  # noqa: N802  (pyqtgraph's name)
        placed = self.view.placed
        if placed is None:
            return super().tickStrings(values, scale, spacing)
        return ["" if placed.in_cut(v) else f"{placed.time_at(v):,.0f}" for v in values]


def _summary(timeline: StreamTimeline | None) -> str:
    if timeline is None:
        return "No copies or kernels on a stream timeline in this run."
    where = label_of(timeline)
    copies, kernels = measure(timeline, "copies"), measure(timeline, "kernels")
    overlap = measure(timeline, "overlap")
    return (f"<b>{int(measure(timeline, 'streams'))} stream(s)</b>: copies busy {time_words(copies)} {where}, "
            f"kernels {time_words(kernels)} {where}, both at once {time_words(overlap)} {where}.")  # fmt: skip
