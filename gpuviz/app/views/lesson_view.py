"""The lesson panel: the explanation and a question to predict; after Run, the answer, with the
views pointed at the frames that prove it (the lesson's `## Evidence`: catalog/evidence.py)."""

from __future__ import annotations

import html

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.app.views.lesson_text import LessonText
from gpuviz.catalog.evidence import Shown, resolve
from gpuviz.core.errors import GpuvizError


class LessonView(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.text = LessonText()
        self.answer_button = QPushButton("Show the answer")
        self.answer_button.setEnabled(False)
        self.prediction = QLineEdit()  # the answer stays hidden until the student has committed to one
        self.prediction.setPlaceholderText("Your prediction (a number or a choice), before Run")
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.prediction)
        layout.addWidget(self.evidence)
        layout.addWidget(self.answer_button)
        self.answer_button.clicked.connect(self.show_answer)
        self.prediction.textChanged.connect(lambda _: self._on_trace_changed(self.state.trace))
        state.entry_changed.connect(self._on_entry_changed)
        state.trace_changed.connect(self._on_trace_changed)
        state.trace_changed.connect(self._on_launch_shown)
        self._pending = None  # evidence waiting for the launch it is on

    def _on_entry_changed(self, entry) -> None:
        self.evidence.setText("")
        self._pending = None
        self.prediction.clear()
        self.answer_button.setEnabled(False)
        if entry is None or not entry.sections:
            self.text.setMarkdown(f"## {entry.title}\n\n{entry.description}" if entry else "")
            return
        question = entry.sections.get("question", "")
        shown = f"## {entry.title}\n\n{entry.description}\n\n### Predict\n\n{question}"
        self.text.show_markdown(f"{shown}\n\n*Then press Run (Ctrl+R).*")

    def _on_trace_changed(self, trace) -> None:
        entry = self.state.entry
        predicted = bool(self.prediction.text().strip())
        self.answer_button.setEnabled(trace is not None and entry is not None and bool(entry.sections) and predicted)

    def show_answer(self) -> None:
        entry = self.state.entry
        sections = entry.sections
        predicted = self.prediction.text().strip()
        yours = f"*You predicted: {predicted}*\n\n" if predicted else ""
        text = (f"## {entry.title}\n\n### Question\n\n{sections.get('question', '')}\n\n{yours}"
                f"### Answer\n\n{sections.get('answer', '')}\n\n### Why\n\n{sections.get('explanation', '')}")
        if "fix" in sections:  # the fix step: the edit to make, and the command that checks it
            number = entry.name.split("-")[0]
            text += f"\n\n### Fix it\n\n{sections['fix']}\n\nCheck your copy: `gpuviz demo {number} --check-fix FILE`."
        self.text.show_markdown(text)
        self._point_at_evidence()

    def _point_at_evidence(self) -> None:
        """The lesson's `## Evidence`, on the launch it names: asked for first when another one is shown
        (applied once it is), then the views set through the shared state."""
        entry, trace = self.state.entry, self.state.trace
        self._pending = None
        try:
            evidence = entry.evidence if entry is not None else None
        except GpuvizError as error:  # a teacher's lesson with a badly written section
            self._say(f"The lesson's evidence cannot be read: {error}")
            return
        if evidence is None or trace is None:
            return
        launch = evidence.launch if evidence.launch is not None else entry.launch or 0
        if launch >= len(self.state.launches):
            self._say(f"The evidence is on launch {launch + 1}, which this run did not make.")
            return
        if self.state.launch_index() != launch:
            self._pending = evidence
            self._say(f"Loading launch {launch + 1}, where the evidence is...")
            self.state.want_launch(launch)
            return
        try:
            shown = resolve(evidence, trace, self.state.replay)
        except GpuvizError as error:  # an edited script may no longer make the events the lesson names
            self._say(f"The evidence is not in this run: {error}")
            return
        self._apply(shown)
        self._say(shown.caption)
        self.state.set_caption(shown.caption)

    def _say(self, text: str) -> None:
        self.evidence.setText(f"<b>Look:</b> {html.escape(text)}")

    def _apply(self, shown: Shown) -> None:
        state = self.state
        if shown.colour:
            state.set_colour_mode(shown.colour)
        state.set_layer(shown.layer)
        state.set_order(shown.order)
        if shown.frame is not None:
            state.set_frame(shown.frame)
        state.select(shown.thread)
        state.select_element(shown.element)
        state.select_line(shown.line)
        state.show_view(shown.view)

    def _on_launch_shown(self, _trace) -> None:
        """A launch asked for by the evidence has arrived: point at it once the state has settled."""
        if self._pending is not None:
            QTimer.singleShot(0, self._point_at_evidence)
