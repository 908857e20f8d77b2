"""The race view: the races of the launch, what repeated runs gave, and racy-vs-fixed comparisons."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.core.analysis.outcomes import plain_vs_recorded, recording_note, serial_answers, serial_text
from gpuviz.core.analysis.report import race_report, recorded_share
from gpuviz.core.display import code_as_html
from gpuviz.core.numbers import number
from gpuviz.core.trace.model import Trace
from gpuviz.scene.state import AppState

RACE_MARK, BENIGN_MARK = "✗", "="  # a race that changes the result; one where both threads wrote the same value


class RaceView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.summary = QLabel("No trace yet.")
        self.summary.setWordWrap(True)
        self.races = QListWidget()
        self.races.setToolTip("Each race found: click one to select the racing threads")
        self.outcomes = QLabel()
        self.outcomes.setWordWrap(True)
        self.plot = pg.PlotWidget(background=(24, 24, 30))
        self.plot.setLabel("bottom", "value after the launch")
        self.plot.setLabel("left", "runs")
        self.plot.setMinimumHeight(160)
        self.compare = QLabel()
        self.compare.setWordWrap(True)
        self.body = QWidget()  # all but the title line: what a picture of the view shows
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        shares = ((self.races, 1), (self.outcomes, 0), (self.plot, 2), (self.compare, 0))
        for widget, stretch in shares:  # the list of races keeps a share of the height beside the plot
            body.addWidget(widget, stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.body, 1)
        self.report = None
        # Selection, not the current row: Qt makes the first row current when the list gets focus.
        self.races.itemSelectionChanged.connect(lambda: self._on_race_picked(self._selected_row()))
        state.trace_changed.connect(self._on_trace_changed)
        state.analysis_changed.connect(self._on_trace_changed)  # the same launch, now analysed
        state.element_changed.connect(lambda element: self._show_outcomes(element))

    def set_compact(self, compact: bool) -> None:
        self.summary.setVisible(not compact)

    def headline(self) -> str:
        return self.summary.text()

    def drawing(self) -> QWidget:
        return self.body

    def _on_trace_changed(self, trace) -> None:
        self.races.clear()
        self.plot.clear()
        self.report = None
        if trace is None:
            self.summary.setText("No trace yet.")
            return
        if trace.accesses is None:
            self.summary.setText("Races were not looked for: the launch was recorded at level threads.")
            self._show_outcomes(None)
            self._show_comparison(trace)
            return
        self.report = race_report(trace)  # found once, where the launch ran
        if self.report is None and self.state.analysis_pending:
            self.summary.setText("Looking for races: the launch is shown while the run analyses it.")
            return
        if self.report is None:
            self.summary.setText("Races were not analysed for this trace.")
            return
        summary = self.report.summary(recorded_share(trace))
        self.summary.setText(f"<b>{summary}</b>" + "".join(f"<br>{d}" for d in self.report.divergence))
        self.races.blockSignals(True)  # filling the list must not select a race
        for race in self.report.races + self.report.benign:
            benign = " (benign: same value)" if race in self.report.benign else ""
            mark = BENIGN_MARK if benign else RACE_MARK  # a sign for each kind of row, not a colour
            item = QListWidgetItem(
                f"{mark} {race.array}[{race.index}] {race.kind}, {race.scope}{benign}: thread {race.first.thread} of "
                f"block {race.first.block} line {race.first.line} {race.first.access}, then thread "
                f"{race.second.thread} of block {race.second.block} line {race.second.line} {race.second.access}"
            )
            self.races.addItem(item)
        self.races.setCurrentRow(-1)
        self.races.blockSignals(False)
        self._show_outcomes(None)
        self._show_comparison(trace)

    def _selected_row(self) -> int:
        rows = self.races.selectedIndexes()
        return rows[0].row() if rows else -1

    def _on_race_picked(self, row: int) -> None:
        if self.report is None or row < 0:
            return
        race = (self.report.races + self.report.benign)[row]
        trace = self.state.trace
        names = trace.array_names()
        shared_block = None if race.block is None else trace.block_linear(race.block)
        self.state.select(trace.global_id(race.second.block, race.second.thread))
        self.state.select_element((names.index(race.array), race.index, shared_block))

    def _show_outcomes(self, element) -> None:
        trace = self.state.trace
        self.plot.clear()
        plain = "<br>".join(plain_vs_recorded(trace)) if trace is not None else ""
        note = recording_note(trace) if trace is not None else None
        plain += f"<br><i>{note}</i>" if note else ""
        if trace is None or not any(key.endswith(".runs") for key in trace.outcomes):
            self.outcomes.setText((plain + "<br>" if plain else "") + code_as_html(
                "Set repeat above 1 and Run (or `gpuviz run --repeat N`) to see here what N runs from the same "
                "inputs gave."))  # fmt: skip
            return
        name, index = self._outcome_target(trace, element)
        runs = trace.outcomes[f"{name}.runs"].reshape(len(trace.outcomes[f"{name}.runs"]), -1)[:, index]
        part = " (real part)" if runs.dtype.kind == "c" else ""  # a complex element: its real part is charted
        values, counts = np.unique(np.real(runs).astype(np.float64), return_counts=True)  # bools as 0 and 1
        self.plot.addItem(pg.BarGraphItem(x=values, height=counts, width=_bar_width(values), brush=(0, 170, 220)))
        seen = ", ".join(f"{number(v)} x{c:,}" for v, c in zip(values, counts))
        text = f"<b>{name}[{index}]</b>{part} over {len(runs):,} runs: {seen}"
        serial = serial_answers(trace.outcomes, name, index)
        if len(serial) == 1:
            value = float(np.real(serial[0]))
            span = max(1.0, float(values.max() - values.min()))
            if values.min() - 2 * span <= value <= values.max() + 2 * span:
                self.plot.addItem(pg.InfiniteLine(value, angle=90, pen=pg.mkPen((255, 200, 0), width=2)))
                text += f"; one thread at a time gives <b>{number(value)}</b> (yellow line)"
            else:  # far off the chart: drawing it would squeeze the bars into a line
                text += f"; one thread at a time gives <b>{number(value)}</b>, far off this chart"
        elif serial:  # the serial order itself decides: no line to measure the runs against
            text += f"; {serial_text(serial)}"
        lost = trace.outcomes.get(f"{name}.lost")
        if lost is not None:
            text += f"; lost updates per run: {int(lost.reshape(len(lost), -1)[:, index].mean()):,} on average"
        self.outcomes.setText(text + (f"<br>{plain}" if plain else ""))

    def _outcome_target(self, trace: Trace, element) -> tuple[str, int]:
        names = trace.array_names()
        if element is not None and f"{names[element[0]]}.runs" in trace.outcomes:
            return names[element[0]], int(element[1])
        if self.report is not None and self.report.races and f"{self.report.races[0].array}.runs" in trace.outcomes:
            return self.report.races[0].array, self.report.races[0].index
        first = next(key for key in trace.outcomes if key.endswith(".runs"))
        return first[: -len(".runs")], 0

    def _show_comparison(self, trace: Trace) -> None:
        """Racy vs fixed: other launches of the run over arrays of the same name."""
        lines = []
        for other in self.state.launches:
            if other is trace:
                continue
            for name in set(trace.args) & set(other.args):
                a, b = trace.after(name), other.after(name)
                if a.shape == b.shape and not np.array_equal(a, b):
                    lines.append(f"{name}: this launch ({trace.kernel}) sums to {number(a.sum())}, launch "
                                 f"{other.meta.get('launch')} ({other.kernel}) to {number(b.sum())}; "
                                 f"{int((a != b).sum()):,} of {a.size:,} elements differ")  # fmt: skip
        self.compare.setText("<b>Compared with the other launches</b><br>" + "<br>".join(lines) if lines else "")


def _bar_width(values: np.ndarray) -> float:
    return float(np.diff(values).min()) * 0.8 if len(values) > 1 else 0.4
