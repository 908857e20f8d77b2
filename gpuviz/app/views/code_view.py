"""The code view: the kernel's file, with the lines the selected thread accessed memory on marked
and the number of accesses of each line in the gutter. In the replay, the lines where threads are
at the cursor are lit, with how many threads are there. A line whose library call ran as gpuviz's
model (a linked device function on the simulator) says "model" in the gutter, on a violet ground.
Clicking a line selects it everywhere."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QTextCursor, QTextFormat
from PySide6.QtWidgets import QTextEdit

from gpuviz.app.views.base import View
from gpuviz.app.widgets.editor import SourceEditor
from gpuviz.core.analysis.links import line_counts
from gpuviz.core.modelled import modelled_calls
from gpuviz.core.replay import AT_BARRIER, RUNNING
from gpuviz.core.theme_colours import EDITOR
from gpuviz.scene.state import AppState


class CodeView(SourceEditor, View):
    def __init__(self, state: AppState, parent=None) -> None:
        super().__init__(parent)
        self.state = state
        self.setReadOnly(True)
        self.counts: dict[int, int] = {}
        self.thread_lines: set[int] = set()
        self.here: dict[int, int] = {}  # the replay: line -> threads whose latest access was there
        self.modelled: dict[int, str] = {}  # line -> the library call that ran there as gpuviz's model
        state.trace_changed.connect(self._on_trace_changed)
        state.frame_changed.connect(self._on_frame_changed)
        state.selection_changed.connect(self._on_selection_changed)
        state.line_changed.connect(lambda _line: self._mark())
        self.cursorPositionChanged.connect(self._on_cursor_moved)

    def gutter_width(self) -> int:
        return super().gutter_width() + self.fontMetrics().horizontalAdvance("99999 ")

    def _on_trace_changed(self, trace) -> None:
        self.blockSignals(True)
        self.setPlainText(trace.meta.get("source", "") if trace is not None else "")
        self.blockSignals(False)
        self.counts = line_counts(trace) if trace is not None else {}
        self.modelled = modelled_calls(trace.meta) if trace is not None else {}
        self.thread_lines = set()
        self._update_margin()
        self._mark()
        if trace is not None:
            first = trace.meta.get("source_lines", [1, 1])[0]
            self.setTextCursor(QTextCursor(self.document().findBlockByNumber(max(0, first - 1))))
            self.centerCursor()

    def _on_frame_changed(self, frame: int) -> None:
        states = self.state.thread_states()
        here: dict[int, int] = {}
        if states is not None:
            active = ((states.state == RUNNING) | (states.state == AT_BARRIER)) & (states.line > 0)
            lines, counts = np.unique(states.line[active], return_counts=True)
            here = {int(line): int(count) for line, count in zip(lines, counts)}
        if here != self.here:
            self.here = here
            self._mark()

    def _on_selection_changed(self, gid: int) -> None:
        trace = self.state.trace
        if trace is None:
            return
        self.counts = line_counts(trace, gid if gid >= 0 else None)
        self.thread_lines = set(self.counts) if gid >= 0 else set()
        self._mark()

    def _on_cursor_moved(self) -> None:
        if self.state.trace is not None and self.hasFocus():
            self.state.select_line(self.textCursor().blockNumber() + 1)

    def _mark(self) -> None:
        selections = []
        marked = self.thread_lines | set(self.here) | set(self.modelled)
        for line in sorted(marked | ({self.state.line} if self.state.line else set())):
            block = self.document().findBlockByNumber(line - 1)
            selection = QTextEdit.ExtraSelection()
            behind = "thread line" if line in self.thread_lines else "line"
            behind = "modelled line" if line in self.modelled and line not in self.here else behind
            colour = QColor(EDITOR["selected line" if line == self.state.line else behind])
            selection.format.setBackground(colour)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)
            selections.append(selection)
        self.setExtraSelections(selections)
        self.gutter.update()

    def paint_line_numbers(self, event) -> None:
        super().paint_line_numbers(event)
        painter = QPainter(self.gutter)
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            count = self.counts.get(block.blockNumber() + 1)
            threads = self.here.get(block.blockNumber() + 1)
            if threads:  # the replay: threads are at this line now
                painter.setPen(QColor(EDITOR["here"]))
                painter.drawText(2, top, self.gutter.width(), height, Qt.AlignmentFlag.AlignLeft, f"\u25b6{threads:,}")
            elif block.blockNumber() + 1 in self.modelled:  # what ran there was gpuviz's model of a library
                painter.setPen(QColor("#c9a6ff"))
                painter.drawText(2, top, self.gutter.width(), height, Qt.AlignmentFlag.AlignLeft, "model")
            elif count:
                painter.setPen(QColor(EDITOR["count"]))
                painter.drawText(2, top, self.gutter.width(), height, Qt.AlignmentFlag.AlignLeft, f"{count:,}")
            block, top = block.next(), top + height
