"""The memory view: what the memory system makes of the launch. Per source line, the cost of its warp
requests (sectors per request against the ideal, shared-memory bank conflicts) as a heat table next to
the code; occupancy (theoretical against measured, and what limits it); divergence; and the selected
warp's request at the selected line drawn lane by lane: lanes -> sectors (global) or lanes -> banks (shared).

At a projector's 1280x720 it fits: the bars carry no text of their own (words above them, never across a bar's
end), the table's columns wrap instead of running off its edge, and the drawing goes below the table where the
two do not fit side by side.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
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
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuviz.app.views.base import View
from gpuviz.app.widgets.fitting_table import FittingTable, breakable
from gpuviz.app.widgets.request_drawing import describe_request, draw_request, label_step
from gpuviz.core.analysis.memory_text import few_blocks, percent, register_words
from gpuviz.core.analysis.report import memory_analysis
from gpuviz.core.analysis.warp_detail import WarpRequest, lane_list, warp_line_requests, warp_of, warp_paths
from gpuviz.core.theme_colours import HEAT_TEXT, heat
from gpuviz.core.trace.model import Trace
from gpuviz.scene.state import AppState

COLUMNS = ("line", "array", "space", "kind", "requests", "sectors (ideal)", "efficiency", "bank conflicts",
           "split warps", "code")  # fmt: skip
HEADERS = tuple(name.replace(" ", "\n") for name in COLUMNS)  # two words on two lines: narrower columns
DRAWING_EMS = 22  # the request's drawing wants about this many characters' width beside the table


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
        self.table = FittingTable(0, HEADERS, optional=(COLUMNS.index("code"),), tall_for=10)  # the panel scrolls
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
        self._label_step = 0  # lanes between the drawing's labels
        self._layout()
        self.table.itemSelectionChanged.connect(self._on_row_picked)
        self.execution.valueChanged.connect(lambda _k: self._draw())
        self.plot.getViewBox().sigResized.connect(lambda *_: self._on_drawing_resized())
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
            bar.setTextVisible(False)  # text across a bar's end reads as neither colour: the words go above it
            bar.setMaximumHeight(max(8, self.fontMetrics().height() // 2))
            words.setWordWrap(True)
            bars.addWidget(words)
            bars.addWidget(bar)
        bars.addWidget(self.occupancy)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.addLayout(bars)
        top_layout.addWidget(self.table, 1)
        top_layout.addWidget(self.divergence)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        self.request = QWidget()  # the request drawn and its words; a picture of the view shows it alone
        request_layout = QVBoxLayout(self.request)
        request_layout.setContentsMargins(0, 0, 0, 0)
        request_layout.addWidget(self.detail)
        request_layout.addWidget(self.plot, 1)
        beside = QHBoxLayout()  # the request picker beside the drawing, not over it: the drawing keeps the height
        beside.addWidget(self.request, 1)
        beside.addWidget(self.execution, 0, Qt.AlignmentFlag.AlignTop)
        bottom_layout.addLayout(beside)
        self.splitter = splitter = QSplitter()
        self.panel = left = QScrollArea()  # the bars, the table and the divergence: it scrolls when short
        left.setWidget(top)
        left.setWidgetResizable(True)
        left.setFrameShape(QFrame.Shape.NoFrame)
        splitter.addWidget(left)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([600, 400])
        QVBoxLayout(self).addWidget(splitter)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """The drawing beside the table where both fit whole, else below it (a projector's 1280x720)."""
        table, drawing = self.table.narrowest() + 40, DRAWING_EMS * self.fontMetrics().averageCharWidth()
        fits = self.width() * 3 // 5 >= table and self.width() * 2 // 5 >= drawing  # the splitter's shares
        wanted = Qt.Orientation.Horizontal if fits else Qt.Orientation.Vertical
        if self.splitter.orientation() != wanted:
            self.splitter.setOrientation(wanted)
            self.splitter.setSizes([600, 400] if fits else [550, 450])  # below the table, the drawing needs height too

    def drawing(self) -> QWidget:
        """A picture shows the request drawn (the table and the bars are for working in the app)."""
        return self.request

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
        self.theoretical_words.setText(f"<b>Theoretical occupancy {percent(theory['occupancy'])}</b>: "
                                       f"{theory['warps']} warps per SM, limited by {theory['limiter']}")  # fmt: skip
        self.measured.setValue(int(1000 * seen["occupancy"]))
        self.measured_words.setText(f"<b>Measured {percent(seen['occupancy'])}</b>: at most {seen['blocks']} "
                                    f"block(s) ({seen['warps']} warps) on one SM at once")  # fmt: skip
        unknown = ", ".join(theory.get("unknown") or [])
        shared = theory.get("shared_per_block", 0)
        self.occupancy.setText(f"shared memory per block: {shared:,} bytes; {register_words(theory)}"
                               + (f"; unknown here: {unknown}" if unknown else "") + few_blocks(report))  # fmt: skip

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
                     _sectors(row),
                     "-" if row["efficiency"] is None else percent(row["efficiency"]),
                     f"{banks['max']}-way, mean {banks['mean']:.2f}" if banks else "-",
                     f"{lines.get('split_warps', 0)} of {lines.get('warps', 0)}", breakable(code, "."))  # fmt: skip
            for c, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                item.setToolTip(code)  # the code column may step aside at 1280x720: the row still says it
                if COLUMNS[c] in ("efficiency", "bank conflicts") and value != "-":
                    item.setBackground(QColor(*heat(row_badness(row))))  # green (good) to red, white words
                    item.setForeground(QColor(HEAT_TEXT))
                self.table.setItem(r, c, item)
        self.table.fit()
        self.table.blockSignals(False)
        self._arrange()

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
                QTimer.singleShot(0, self, lambda r=r: self._scroll_to_row(r))  # once laid out
                break
        self.table.blockSignals(False)

    def _scroll_to_row(self, row: int) -> None:
        """The selected row in sight where the panel scrolls (a projector's 1280x720): a lesson's evidence
        picks a line the student must see."""
        if row >= self.table.rowCount():
            return
        cell = self.table.visualRect(self.table.model().index(row, 0))
        where = self.table.viewport().mapTo(self.panel.widget(), cell.center())
        self.panel.ensureVisible(where.x(), where.y(), 0, cell.height())

    def _draw(self, focus: tuple[int, int] | None = None) -> None:
        self.plot.clear()
        focus = focus or self.focus()
        if not self.requests or focus is None:
            where = f" at line {focus[1]}" if focus else ""
            self.detail.setText(f"This warp made no memory request{where}." if focus else "")
            return
        request = self.requests[self.execution.value() - 1]
        self.detail.setText(describe_request(request, *focus))
        self._label_step = draw_request(self.plot, request)

    def _on_drawing_resized(self) -> None:
        """Labels as far apart as the drawing's new height allows (the splitter turned, the window changed)."""
        if self.requests and label_step(self.plot) != self._label_step:
            self._draw()


def _sectors(row: dict) -> str:
    """Sectors per request and, in brackets, the ideal; "-" for shared memory, which has no sectors."""
    if row["sectors_per_request"] is None:
        return "-"
    return f"{_number(row['sectors_per_request'])} ({_number(row['ideal_sectors_per_request'])})"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
