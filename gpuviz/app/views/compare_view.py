"""Two launches side by side: this launch and another of the run (racy vs fixed, naive vs tiled),
their grids at the same point of their runs (one shared cursor, as a fraction of each run) and a
table of what differs."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuviz.app.views.base import Legend, View
from gpuviz.app.views.grid_view import GridView
from gpuviz.core.analysis.compare import compare_launches
from gpuviz.core.colors import shared_span
from gpuviz.scene.state import AppState


class CompareView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.other = QComboBox()
        self.other.setToolTip("the launch to put beside the one shown (another launch of the same run)")
        self.note = QLabel("Run a script with two launches (a racy and a fixed kernel, say) to compare them.")
        self.note.setWordWrap(True)
        self.mirrors = (AppState(), AppState())  # this launch and the other, each in its own grid
        self.grids = [GridView(mirror) for mirror in self.mirrors]
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["", "this launch", "the other"])
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)  # a long value wraps onto a second line rather than ending in "..."
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self._lay_out()
        self.other.currentIndexChanged.connect(self._on_other_chosen)
        state.launches_changed.connect(self._on_launches_changed)
        state.trace_changed.connect(lambda *_: self._show())
        state.partner_changed.connect(lambda *_: self._show())
        state.marks_changed.connect(lambda *_: self._mark_threads())
        state.selection_changed.connect(lambda *_: self._mark_threads())
        state.frame_changed.connect(self._on_frame_changed)
        state.colour_mode_changed.connect(self._on_colour_mode_changed)
        state.palette_changed.connect(lambda name: [m.set_palette(name) for m in self.mirrors])

    def _lay_out(self) -> None:
        """The choice of launch on top; under it the body: the two grids and the table (a picture's drawing)."""
        top = QHBoxLayout()
        top.addWidget(QLabel("compare with"))
        top.addWidget(self.other, 1)
        pictures = QSplitter()
        for grid in self.grids:
            pictures.addWidget(grid)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.note)
        body.addWidget(pictures, 3)
        body.addWidget(self.table, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.body, 1)

    def drawing(self) -> QWidget:
        return self.body

    def legend_items(self) -> Legend:
        """Both grids colour by the same mode: one legend says it for the two."""
        return self.grids[0].legend_items()

    def set_compact(self, compact: bool) -> None:
        """On the stage the two pictures keep their grids and give up their own title lines."""
        for grid in self.grids:
            grid.set_compact(compact)

    def _on_launches_changed(self, launches) -> None:
        self.other.blockSignals(True)
        self.other.clear()
        for index, trace in enumerate(launches):
            self.other.addItem(f"launch {trace.meta.get('launch', index)}: {trace.kernel}", index)
        self.other.blockSignals(False)

    def _on_other_chosen(self, *_) -> None:
        chosen = self.other.currentData()
        self.state.set_partner(chosen if chosen is not None else -1)

    def _other(self):
        """The launch the scene names as the partner (a lesson's evidence, or the choice above), or the
        first other launch of the run."""
        launches, trace = self.state.launches, self.state.trace
        chosen = self.state.partner
        if chosen is not None and 0 <= chosen < len(launches) and launches[chosen] is not trace:
            return launches[chosen]
        return next((t for t in launches if t is not trace), None)

    def _show(self) -> None:
        trace, other = self.state.trace, self._other()
        if trace is None or other is None:
            self.table.setRowCount(0)
            self.note.setVisible(True)
            return
        self.note.setVisible(False)
        shown_other = self.other.findData(self.state.launches.index(other))  # the combo names the launch beside
        if shown_other >= 0 and shown_other != self.other.currentIndex():
            self.other.blockSignals(True)
            self.other.setCurrentIndex(shown_other)
            self.other.blockSignals(False)
        span = shared_span([trace, other], self.state.colour_mode)  # one scale: a time or value compares across
        for mirror, shown in zip(self.mirrors, (trace, other)):
            mirror.set_colour_span(span)
            mirror.set_colour_mode(self.state.colour_mode)
            mirror.set_palette(self.state.palette)
            mirror.set_trace(shown)
        self._mark_threads()
        rows = compare_launches(trace, other)
        self.table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            differs = differing(cells)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if differs:  # what differs stands out from the back of the room, not only in its words
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                    item.setBackground(self.palette().highlight())
                    item.setForeground(self.palette().highlightedText())
                self.table.setItem(r, c, item)
        self._on_frame_changed(self.state.frame)

    def _mark_threads(self) -> None:
        """The scene's selection and marks (a lesson's evidence) on this launch's grid, where they were found;
        on the other's, the selected thread and its mark alone (named by its place, it is the same thread
        there), where the two launches have one shape."""
        this, other = self.mirrors
        if this.trace is None or this.trace is not self.state.trace:
            return
        this.apply(replace(this.scene(), selected=self.state.selected, marks=self.state.marks))
        if other.trace is None or (other.trace.grid, other.trace.block) != (this.trace.grid, this.trace.block):
            return
        selected = self.state.selected
        own = tuple(m for m in self.state.marks if m.threads is not None and m.threads.tolist() == [selected])
        other.apply(replace(other.scene(), selected=selected, marks=own))

    def _on_colour_mode_changed(self, mode: str) -> None:
        shown = [m.trace for m in self.mirrors if m.trace is not None]
        span = shared_span(shown, mode) if len(shown) == 2 else None
        for mirror in self.mirrors:
            mirror.set_colour_span(span)
            mirror.set_colour_mode(mode)

    def _on_frame_changed(self, frame: int) -> None:
        """One cursor for both: the same fraction of each run."""
        fraction = frame / max(1, self.state.plan.count - 1)
        for mirror in self.mirrors:
            if mirror.trace is not None:
                mirror.set_frame(round(fraction * (mirror.plan.count - 1)))

    def differing_rows(self) -> list[str]:
        """The names of the rows drawn as differing."""
        names = [self.table.item(r, 0) for r in range(self.table.rowCount())]
        return [name.text() for name in names if name.font().bold()]

    def rows(self) -> list[list[str]]:
        """The table as text (for tests and pictures)."""
        return [[self.table.item(r, c).text() for c in range(3)] for r in range(self.table.rowCount())]


SAME_BY_NATURE = {"kernel"}  # two launches are two kernels (or one kernel twice): its name says nothing


def differing(cells: list[str]) -> bool:
    """Whether a row of the table tells the two launches apart (its two values differ)."""
    return len(cells) == 3 and cells[0] not in SAME_BY_NATURE and cells[1] != cells[2]
