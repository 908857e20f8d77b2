"""The memory view: what the memory system makes of the launch. Per source line, the cost of its warp
requests (sectors per request against the ideal, shared-memory bank conflicts) as a heat table next to
the code; occupancy (theoretical against measured, and what limits it); divergence; and the selected
warp's request at the selected line drawn lane by lane: lanes -> sectors (global) or lanes -> banks (shared).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,  # fmt: skip,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuviz.app.views.base import View
from gpuviz.core.analysis.memory_text import few_blocks, percent
from gpuviz.core.analysis.report import memory_analysis
from gpuviz.core.analysis.warp_detail import WarpRequest, lane_list, warp_line_requests, warp_of, warp_paths
from gpuviz.core.trace.model import Trace
from gpuviz.scene.state import AppState

COLUMNS = ("line", "array", "space", "kind", "requests", "sectors", "ideal", "efficiency",
           "bank conflicts", "split warps", "code")  # fmt: skip
LANE_PEN, CONFLICT_PEN = (0, 170, 220, 170), (255, 80, 60, 230)


def heat(badness: float) -> QColor:
    """Green (0: as good as it gets) to red (1: as bad as it gets)."""
    b = min(1.0, max(0.0, badness))
    return QColor(int(40 + 170 * b), int(150 - 100 * b), 60)


def row_badness(row: dict) -> float:
    """The share of bandwidth a line's requests waste, 0..1: sectors beyond the ideal, or bank cycles
    beyond the first (a 2-way conflict halves shared-memory bandwidth as 50% efficiency halves global)."""
    if row["bank_conflict_degree"]:
        return 1.0 - 1.0 / row["bank_conflict_degree"]["max"]
    return 1.0 - row["efficiency"]


class MemoryView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.report: dict | None = None
        self.theoretical, self.measured = QProgressBar(), QProgressBar()
        self.theoretical_words, self.measured_words = QLabel(), QLabel()
        self.occupancy = QLabel()
        self.occupancy.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.divergence = QLabel()
        self.divergence.setWordWrap(True)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.execution = QSpinBox()
        self.execution.setToolTip("Which memory instruction to show")
        self.execution.setPrefix("request ")
        self.plot = pg.PlotWidget(background=(24, 24, 30))
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.getViewBox().invertY(True)
        self.requests: list[WarpRequest] = []
        self.picked: dict | None = None  # the table row picked last: its request is drawn first
        self._layout()
        self.table.itemSelectionChanged.connect(self._on_row_picked)
        self.execution.valueChanged.connect(lambda _k: self._draw())
        state.trace_changed.connect(self._on_trace_changed)
        state.analysis_changed.connect(self._on_trace_changed)  # the same launch, now analysed
        state.selection_changed.connect(lambda _gid: self._show_detail())
        state.line_changed.connect(lambda _line: self._show_detail())

    def _layout(self) -> None:
        """The occupancy bars with their words wrapped beside them (a bar's own text cannot wrap), the table
        of lines and the divergence scroll on the left when the text is big; the request drawn on the right."""
        bars = QVBoxLayout()
        for bar, words in ((self.theoretical, self.theoretical_words), (self.measured, self.measured_words)):
            bar.setRange(0, 1000)
            bar.setTextVisible(True)
            words.setWordWrap(True)
            bars.addWidget(bar)
            bars.addWidget(words)
        bars.addWidget(self.occupancy)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.addLayout(bars)
        top_layout.addWidget(self.table, 1)
        top_layout.addWidget(self.divergence)
        self.table.setMinimumHeight(5 * self.table.verticalHeader().defaultSectionSize())
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        header = QHBoxLayout()
        header.addStretch(1)
        header.addWidget(self.execution)
        bottom_layout.addLayout(header)
        bottom_layout.addWidget(self.detail)
        bottom_layout.addWidget(self.plot, 1)
        splitter = QSplitter()
        left = QScrollArea()
        left.setWidget(top)
        left.setWidgetResizable(True)
        left.setFrameShape(QFrame.Shape.NoFrame)
        splitter.addWidget(left)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([600, 400])
        QVBoxLayout(self).addWidget(splitter)

    # ---- the launch ----------------------------------------------------------------------------
    def _on_trace_changed(self, trace: Trace | None) -> None:
        self.table.setRowCount(0)
        pending = trace is not None and self.state.analysis_pending  # never computed here meanwhile
        self.report = memory_analysis(trace) if trace is not None and not pending else None  # stored once per launch
        self._show_occupancy()
        if pending:
            self.divergence.setText("The memory analysis follows: the launch is shown while the run analyses it.")
            self._show_detail()
            return
        if self.report is None or self.report["lines"] is None:
            reason = "No trace yet." if trace is None else f"No access log: {self.report.get('skipped')}."
            self.divergence.setText(reason)
            self._show_detail()
            return
        self._fill_table(trace)
        self._show_divergence()
        self._show_detail()

    def _show_occupancy(self) -> None:
        report = self.report
        if report is None:
            self.occupancy.setText("")
            return
        theory, seen = report["occupancy"]["theoretical"], report["occupancy"]["measured"]
        self.theoretical.setValue(int(1000 * (theory["occupancy"] or 0)))
        self.theoretical.setFormat(f"theoretical occupancy {percent(theory['occupancy'])}")
        self.theoretical_words.setText(f"{theory['warps']} warps per SM, limited by {theory['limiter']}")
        self.measured.setValue(int(1000 * seen["occupancy"]))
        self.measured.setFormat(f"measured {percent(seen['occupancy'])}")
        self.measured_words.setText(f"at most {seen['blocks']} block(s) ({seen['warps']} warps) on one SM at once")
        unknown = ", ".join(theory.get("unknown") or [])
        shared = theory.get("shared_per_block", 0)
        self.occupancy.setText(f"shared memory per block: {shared:,} bytes" + (f"; unknown here: {unknown}"
                               if unknown else "") + few_blocks(report))  # fmt: skip

    def _fill_table(self, trace: Trace) -> None:
        source = trace.meta.get("source", "").splitlines()
        split = {d["line"]: d for d in self.report["divergence"]["lines"]}
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.report["lines"]))
        for r, row in enumerate(self.report["lines"]):
            code = source[row["line"] - 1].strip() if 0 < row["line"] <= len(source) else ""
            banks = row["bank_conflict_degree"]
            lines = split.get(row["line"], {})
            cells = (row["line"], row["array"], row["space"], row["kind"], row["requests"],
                     _number(row["sectors_per_request"]), _number(row["ideal_sectors_per_request"]),
                     "-" if row["efficiency"] is None else percent(row["efficiency"]),
                     f"{banks['max']}-way, mean {banks['mean']:.2f}" if banks else "-",
                     f"{lines.get('split_warps', 0)} of {lines.get('warps', 0)}", code)  # fmt: skip
            for c, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                if COLUMNS[c] in ("efficiency", "bank conflicts") and value != "-":
                    item.setBackground(heat(row_badness(row)))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.blockSignals(False)

    def _show_divergence(self, warp: int | None = None) -> None:
        div = self.report["divergence"]
        text = (f"<b>Divergence</b>: {div['diverged_warps']} of {div['warps']:,} warps{div.get('scope', '')} took "
                f"more than one path "
                f"(at most {div['max_paths']} group(s) of lanes). Not known: {div['unknown']}.")  # fmt: skip
        if self.report.get("truncated"):
            text += " The access log was truncated: requests near its end may miss lanes."
        if warp is not None:
            paths = warp_paths(self.state.trace, warp)
            groups = "; ".join(f"{lane_list(lanes)}: " + (", ".join(f"line {line} x{n}" for line, n in lines.items())
                               or "no memory access") for lanes, lines in paths)  # fmt: skip
            text += f"<br><b>Warp {warp}</b>: {len(paths)} path(s) (lines, with accesses per lane): {groups}"
        self.divergence.setText(text)

    # ---- the selected warp and line ------------------------------------------------------------
    def _on_row_picked(self) -> None:
        rows = self.table.selectedIndexes()
        if self.report is not None and rows:
            self.picked = self.report["lines"][rows[0].row()]
            if self.picked["line"] == self.state.line:
                self._show_detail()
            self.state.select_line(self.picked["line"])

    def focus(self) -> tuple[int, int] | None:
        """(warp, line) to draw: the selected ones, else the costliest line and its first warp."""
        trace, report = self.state.trace, self.report
        if trace is None or report is None or not report["lines"]:
            return None
        lines = {row["line"] for row in report["lines"]}
        if self.state.line not in lines:
            self.picked = max(report["lines"], key=row_badness)
        line = self.state.line if self.state.line in lines else self.picked["line"]
        if self.state.selected >= 0:
            return warp_of(trace, self.state.selected), line
        first = trace.accesses["thread"][np.argmax(trace.accesses["line"] == line)]
        return warp_of(trace, int(first)), line

    def _show_detail(self) -> None:
        focus = self.focus()
        self.requests = warp_line_requests(self.state.trace, *focus) if focus else []
        self.execution.blockSignals(True)
        self.execution.setRange(1, max(1, len(self.requests)))
        self.execution.setValue(1 + self._picked_request(focus))
        self.execution.setSuffix(f" of {len(self.requests)}")
        self.execution.blockSignals(False)
        if focus:
            self._select_row(focus[1])
            self._show_divergence(focus[0])
        self._draw(focus)

    def _picked_request(self, focus: tuple[int, int] | None) -> int:
        """The first of the warp's requests at the line that belongs to the picked table row."""
        picked = self.picked
        if focus is None or picked is None or picked["line"] != focus[1]:
            return 0
        same = [k for k, r in enumerate(self.requests) if (r.array, r.kind) == (picked["array"], picked["kind"])]
        return same[0] if same else 0

    def _select_row(self, line: int) -> None:
        picked = self.picked if self.picked is not None and self.picked["line"] == line else None
        self.table.blockSignals(True)
        for r, row in enumerate(self.report["lines"]):
            if row is picked or (picked is None and row["line"] == line):
                self.table.selectRow(r)
                break
        self.table.blockSignals(False)

    def _draw(self, focus: tuple[int, int] | None = None) -> None:
        self.plot.clear()
        focus = focus or self.focus()
        if not self.requests or focus is None:
            where = f" at line {focus[1]}" if focus else ""
            self.detail.setText(f"This warp made no memory request{where}." if focus else "")
            return
        request = self.requests[self.execution.value() - 1]
        self.detail.setText(_describe(request, *focus))
        draw_request(self.plot, request)


def _describe(request: WarpRequest, warp: int, line: int) -> str:
    what = f"warp {warp}, line {line}: {request.kind} of <b>{request.array}</b> by {len(request.lanes)} lanes"
    if request.space == "shared":
        verdict = "no conflict" if request.cost == 1 else f"<b>{request.cost}-way bank conflict</b>"
        return f"{what}: lanes -> banks, {verdict} (red dashes: banks serving more than one word)"
    return f"{what}: lanes -> 32-byte sectors, <b>{request.cost}</b> sectors where {request.ideal} would do"


def draw_request(plot: pg.PlotWidget, request: WarpRequest) -> None:
    """Lanes on the left, sectors or banks on the right, one line from each lane to where its element is."""
    if request.space == "shared":
        targets, labels = np.arange(32), [f"bank {b}" for b in range(32)]
        place_y = request.places.astype(float)
        words_in = {b: len(set(request.words[request.places == b].tolist())) for b in range(32)}
        bad = np.array([words_in[int(p)] > 1 for p in request.places])
    else:
        sectors = np.unique(request.places)
        targets = np.linspace(0, 31, len(sectors)) if len(sectors) > 1 else np.array([15.5])
        labels = [f"sector {s}" for s in sectors]
        place_y = targets[np.searchsorted(sectors, request.places)]
        bad = np.zeros(len(request.lanes), bool)
    for mask, pen in ((~bad, LANE_PEN), (bad, CONFLICT_PEN)):
        if mask.any():
            x = np.repeat([[0.0, 1.0]], mask.sum(), axis=0).ravel()
            y = np.column_stack([request.lanes[mask], place_y[mask]]).ravel()
            style = Qt.PenStyle.DashLine if pen == CONFLICT_PEN else Qt.PenStyle.SolidLine  # not by colour alone
            plot.addItem(pg.PlotDataItem(x, y, connect="pairs", pen=pg.mkPen(pen, width=2, style=style)))
    plot.addItem(pg.ScatterPlotItem(np.zeros(32), np.arange(32), size=7, brush=(200, 200, 200)))
    plot.addItem(pg.ScatterPlotItem(np.ones(len(targets)), targets, size=7, brush=(255, 200, 0)))
    for lane in range(0, 32, 4):
        _label(plot, f"lane {lane}", -0.02, lane, anchor=(1, 0.5))
    step = max(1, len(labels) // 16)
    for y, text in list(zip(targets, labels))[::step]:
        _label(plot, text, 1.02, y, anchor=(0, 0.5))
    plot.setXRange(-0.35, 1.35)
    plot.setYRange(-1, 32)


def _label(plot: pg.PlotWidget, text: str, x: float, y: float, anchor: tuple) -> None:
    item = pg.TextItem(text, color=(220, 220, 220), anchor=anchor)
    item.setPos(x, y)
    plot.addItem(item)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
