"""The lesson panel: the explanation and a question to predict; after Run, the answer, with the
views pointed at the evidence (a racing thread selected, the waves shown)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.catalog.glossary import glossary_markdown
from gpuviz.core.analysis.report import race_report
from gpuviz.core.element_story import element_story
from gpuviz.core.frames import REPLAY


class LessonView(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(False)
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

    def _on_entry_changed(self, entry) -> None:
        self.evidence.setText("")
        self.prediction.clear()
        self.answer_button.setEnabled(False)
        if entry is None or not entry.sections:
            self.text.setMarkdown(f"## {entry.title}\n\n{entry.description}" if entry else "")
            return
        question = entry.sections.get("question", "")
        shown = f"## {entry.title}\n\n{entry.description}\n\n### Predict\n\n{question}"
        self.text.setMarkdown(f"{shown}\n\n*Then press Run (Ctrl+R).*\n\n{glossary_markdown(shown)}")

    def _on_trace_changed(self, trace) -> None:
        entry = self.state.entry
        predicted = bool(self.prediction.text().strip())
        self.answer_button.setEnabled(trace is not None and entry is not None and bool(entry.sections) and predicted)

    def show_answer(self) -> None:
        entry, trace = self.state.entry, self.state.trace
        sections = entry.sections
        predicted = self.prediction.text().strip()
        yours = f"*You predicted: {predicted}*\n\n" if predicted else ""
        text = (f"## {entry.title}\n\n### Question\n\n{sections.get('question', '')}\n\n{yours}"
                f"### Answer\n\n{sections.get('answer', '')}\n\n### Why\n\n{sections.get('explanation', '')}")
        if "fix" in sections:  # the fix step: the edit to make, and the command that checks it
            number = entry.name.split("-")[0]
            text += f"\n\n### Fix it\n\n{sections['fix']}\n\nCheck your copy: `gpuviz demo {number} --check-fix FILE`."
        self.text.setMarkdown(f"{text}\n\n{glossary_markdown(text)}")
        self.evidence.setText(self._point_at_evidence(entry, trace))

    def _point_at_evidence(self, entry, trace) -> str:
        notes = []
        report = race_report(trace) if entry.racy and trace is not None else None
        if report is not None and report.races:
            notes.append(self._show_race(trace, report.races[0]))
        elif entry.sms and trace is not None:
            self.state.set_order("by SM waves")
            notes.append(f"Order: by SM waves ({entry.sms} virtual SMs): press Play to watch the waves.")
        return " ".join(notes)

    def _show_race(self, trace, race) -> str:
        """The replay at the moment the race is lost: the first run of threads has read the element's
        value and not one has written it back yet; the element's story lists who."""
        gid = trace.global_id(race.second.block, race.second.thread)
        element = (trace.array_names().index(race.array), race.index,
                   None if race.block is None else trace.block_linear(race.block))  # fmt: skip
        self.state.set_colour_mode("value written")
        self.state.select(gid)
        self.state.select_element(element)
        note = (f"Selected: thread {race.second.thread} of block {race.second.block}, which {race.second.access}s "
                f"{race.array}[{race.index}] on line {race.second.line}, racing with thread {race.first.thread} of "
                f"block {race.first.block}.")  # fmt: skip
        if self.state.replay is None:
            return note
        story = element_story(trace, element[0], element[1], element[2], shown=2)
        first = story.groups[0] if story.groups else None
        if first is not None and first.first.kind == "read":
            self.state.set_order(REPLAY)
            self.state.set_frame(first.last.position)
            note += (f" The replay stops where threads {first.threads()} have all read {race.array}[{race.index}] = "
                     f"{first.first.value:g} and none has written it back: each will write its own update over the "
                     f"others'. The Element story tab lists every access.")  # fmt: skip
        return note
