"""The race, replayed: the story of the selected element (or the first racing one): who read what and
wrote what, in order, which updates were lost, and the final against the expected value. Clicking a
row moves the replay to that access and selects its thread."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuviz.app.views.base import View
from gpuviz.app.widgets.fitting_table import FittingTable, breakable
from gpuviz.app.widgets.when_shown import WhenShown
from gpuviz.core.analysis.report import race_report
from gpuviz.core.element_story import ElementStory, element_story
from gpuviz.core.frames import REPLAY
from gpuviz.core.numbers import number
from gpuviz.core.theme_colours import BADGES
from gpuviz.scene.state import AppState

COLUMNS = ("events", "threads", "block", "does", "value", "line", "lost")
LOST = BADGES["race"]  # a lost update's row: white on the race colour, and a ✗ in its "lost" cell
LOST_MARK = "✗"


class StoryView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.summary = QLabel("Click an element in the Data view to see who read and wrote it.")
        self.summary.setWordWrap(True)
        self.table = FittingTable(0, COLUMNS)  # its columns wrap to the panel's width: the lost ones show
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self.story: ElementStory | None = None
        self._element = None  # the element whose story is told, or to be told once the view is shown
        self._tell_when_shown = WhenShown(lambda: self._tell(self._element))
        self.table.cellClicked.connect(self._on_row_clicked)
        # A new trace comes with its element (none picked yet): the story of the pick, else of the first race.
        state.element_changed.connect(lambda element: self._show(element or self._default_element()))
        state.analysis_changed.connect(lambda _trace: self._show(self.state.element or self._default_element()))

    def set_compact(self, compact: bool) -> None:
        self.summary.setVisible(not compact)

    def headline(self) -> str:
        return self.summary.text()

    def drawing(self) -> QWidget:
        return self.table

    def set_on_screen(self, on_screen: bool) -> None:
        self._tell_when_shown.set_on_screen(on_screen)

    def busy(self) -> bool:
        return self._tell_when_shown.pending

    def _default_element(self):
        """Without a pick, the first racing element: the race is the story worth telling."""
        trace = self.state.trace
        report = race_report(trace) if trace is not None else None
        if report is None or not report.races:
            return None
        race = report.races[0]
        block = None if race.block is None else trace.block_linear(race.block)
        return trace.array_names().index(race.array), race.index, block

    def _show(self, element) -> None:
        """Tell the element's story now, or when the view is next on screen: a hidden tab must not delay
        the launch's first frame (a race's story over a million threads takes most of a second)."""
        self._element = element
        self._tell_when_shown()

    def _tell(self, element) -> None:
        trace = self.state.trace
        self.table.setRowCount(0)
        self.story = None
        if trace is None or trace.accesses is None or element is None:
            self.summary.setText("Click an element in the Data view to see who read and wrote it."
                                 if trace is None or trace.accesses is not None
                                 else "Accesses were not recorded for this launch (level threads).")  # fmt: skip
            return
        times = self.state.replay.times if self.state.replay is not None else None
        self.story = element_story(trace, element[0], int(element[1]), element[2], shown=200, times=times)
        self.summary.setText(self._headline(self.story, trace))
        self._fill(self.story, int(np.prod(trace.block)))

    def _headline(self, story: ElementStory, trace) -> str:
        text = f"<b>{story.summary()}</b>"
        if story.lost > 0:
            text += (
                f"<br>{story.writes:,} threads each added their update, but {story.lost:,} of the updates were "
                "overwritten by threads that had read an older value (red rows marked ✗). Click a row to replay it."
            )
        if trace.meta.get("backend") == "gpu" and "time" not in trace.accesses:
            text += "<br>GPU trace: accesses of different threads are in no known order, so no update is named lost."
        return text

    def _fill(self, story: ElementStory, per_block: int) -> None:
        self.table.setRowCount(len(story.groups))
        for r, group in enumerate(story.groups):
            first, last = group.first, group.last
            events = f"{first.position:,}" if group.count == 1 else f"{first.position:,}-{last.position:,}"
            blocks = {first.thread // per_block, last.thread // per_block}
            does = {"read": "read", "write": "wrote", "atomic": "atomically updated to"}[first.kind]
            lost = f"{LOST_MARK} {group.lost:,}" if group.lost else ""
            cells = (events, group.threads(), "-".join(str(b) for b in sorted(blocks)), does,
                     number(first.value), str(first.line), lost)  # fmt: skip
            for c, text in enumerate(cells):
                item = QTableWidgetItem(breakable(text, "-") if c < 3 else text)  # a range may wrap after its dash
                if group.lost:  # its own colours, the same on either theme (contrast in core/theme_colours.py)
                    item.setForeground(QColor(LOST.text))
                    item.setBackground(QColor(LOST.background))
                self.table.setItem(r, c, item)
        self.table.fit()

    def _on_row_clicked(self, row: int, _column: int) -> None:
        if self.story is None or row >= len(self.story.groups):
            return
        chosen = self.story.groups[row].last
        if self.state.replay is not None:
            self.state.set_order(REPLAY)
            self.state.set_frame(chosen.position)
        self.state.select(chosen.thread)
