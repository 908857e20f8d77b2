"""The lesson panel: the question and a prediction to commit to; after Run and a committed prediction,
whether it matched the run, the answer, with the views pointed at the evidence (a racing thread
selected, the waves shown); for a lesson with a bug, a check of the student's fix."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QScrollArea, QTextBrowser, QVBoxLayout, QWidget

from gpuviz.app.state import AppState
from gpuviz.app.views.fix_check_box import FAIL, PASS, FixCheckBox
from gpuviz.app.views.prediction_box import PredictionBox
from gpuviz.catalog.glossary import glossary_markdown
from gpuviz.catalog.predictions import Verdict, judge_choice, judge_numbers
from gpuviz.core.analysis.report import race_report
from gpuviz.core.element_story import element_story
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import REPLAY


class LessonView(QWidget):
    fix_check_requested = Signal(object)  # CatalogEntry: check the editor's code against its fix checks
    progress_made = Signal(str, dict)  # lesson name, what changed (catalog/progress.py's LessonProgress fields)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.text = FittingText()
        self.predict = PredictionBox()  # the answer stays hidden until the student has committed to one
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setObjectName("verdict")
        self.answer_button = QPushButton("Show the answer")
        self.answer_button.setObjectName("showAnswer")
        self.answer_button.setEnabled(False)
        self.fix = FixCheckBox()
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.words = FittingText()  # the glossary of the words the text uses, below what the student does
        layout = QVBoxLayout(self)
        for widget in (self.text, self.predict, self.verdict, self.answer_button, self.fix, self.evidence, self.words):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.answer_button.clicked.connect(self.show_answer)
        self.predict.committed.connect(self._on_committed)
        self.fix.check_requested.connect(lambda: self.fix_check_requested.emit(self.state.entry))
        state.entry_changed.connect(self._on_entry_changed)
        state.trace_changed.connect(self._on_trace_changed)
        self._on_entry_changed(None)

    @property
    def is_lesson(self) -> bool:
        entry = self.state.entry
        return entry is not None and bool(entry.sections)

    def _on_entry_changed(self, entry) -> None:
        self.evidence.setText("")
        self.verdict.setText("")
        self.answer_button.setEnabled(False)
        self.fix.reset()
        self.fix.setVisible(False)  # the fix step comes with the answer, which says what to change
        self.predict.setVisible(self.is_lesson)
        self.answer_button.setVisible(self.is_lesson)
        if not self.is_lesson:
            self.text.setMarkdown(f"## {entry.title}\n\n{entry.description}" if entry else "")
            self._show_words("")
            return
        try:
            self.predict.set_prediction(entry.prediction)
        except GpuvizError as exc:  # a teacher's lesson with a bad prediction: words instead, and why
            self.predict.set_prediction(None)
            self.verdict.setText(f"This lesson's prediction could not be read: {exc}")
        question = entry.sections.get("question", "")
        shown = f"## {entry.title}\n\n{entry.description}\n\n### Predict\n\n{question}"
        then = "*Commit your prediction below, then press Run (Ctrl+R).*"
        self.text.setMarkdown(f"{shown}\n\n{then}")
        self._show_words(shown)

    def _on_committed(self, said: str) -> None:
        self.progress_made.emit(self.state.entry.name, {"prediction": said})
        self._judge()

    def _on_trace_changed(self, trace) -> None:
        if trace is not None and self.is_lesson:
            self.progress_made.emit(self.state.entry.name, {"ran": True})
        self._judge()

    def _judge(self) -> None:
        """Once a prediction is committed and a run is shown: whether it matched, and the answer unlocked."""
        entry, trace = self.state.entry, self.state.trace
        committed = self.is_lesson and self.predict.locked
        self.answer_button.setEnabled(committed and trace is not None)
        if not committed:
            return
        if trace is None:
            self.verdict.setText(f"Locked in: <b>{escape(self.predict.said())}</b>. Now press Run (Ctrl+R).")
            return
        verdict = self._verdict(entry)
        if verdict is None:
            self.verdict.setText(f"You predicted: <b>{escape(self.predict.said())}</b>. Show the answer to compare.")
            return
        self.verdict.setText(_verdict_html(verdict))
        self.reveal(self.answer_button)
        self.progress_made.emit(entry.name, {"right": verdict.right, "run_matched": verdict.run_matched})

    def _verdict(self, entry) -> Verdict | None:
        prediction, launches, launch = self.predict.prediction, self.state.launches, entry.launch or 0
        if prediction is None:
            return None
        if prediction.choices:
            return judge_choice(prediction, self.predict.picked(), launches, launch)
        return judge_numbers(prediction, self.predict.numbers(), launches, launch)

    def show_fix_result(self, checked) -> None:
        self.fix.show_result(checked)
        self.reveal(self.fix.result)
        if self.is_lesson:
            self.progress_made.emit(self.state.entry.name, {"fix_passed": bool(checked.passed)})

    def show_fix_failure(self, message: str) -> None:
        self.fix.show_failure(message)
        self.reveal(self.fix.result)

    def show_answer(self) -> None:
        entry, trace = self.state.entry, self.state.trace
        sections = entry.sections
        yours = f"*You predicted: {self.predict.said()}*\n\n" if self.predict.locked else ""
        text = (
            f"## {entry.title}\n\n### Question\n\n{sections.get('question', '')}\n\n{yours}"
            f"### Answer\n\n{sections.get('answer', '')}\n\n### Why\n\n{sections.get('explanation', '')}"
        )
        if "fix" in sections:  # the fix step: the edit to make; the button below checks it
            text += f"\n\n### Fix it\n\n{sections['fix']}"
        if sections.get("fix checks"):
            text += "\n\nEdit the code, then press *Check my fix* below."
            self.fix.setVisible(True)
        self.text.setMarkdown(text)
        self._show_words(text)
        self.evidence.setText(self._point_at_evidence(entry, trace))
        self.reveal(None)

    def _show_words(self, text: str) -> None:
        words = glossary_markdown(text) if text else ""
        self.words.setMarkdown(words)
        self.words.setVisible(bool(words))

    def reveal(self, widget: QWidget | None) -> None:
        """Scroll the panel (its dock scrolls when small) to a widget, or to the top for None, once laid out."""
        area = self.parent()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parent()
        if area is None:
            return
        QTimer.singleShot(0, area, lambda: _scroll_to(area, widget))

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


class FittingText(QTextBrowser):
    """The lesson's text at its full height: the panel scrolls as one, so the question, the prediction
    and the verdict read in one column however small the dock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)

    def _fit(self, size) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(int(size.height()) + margins.top() + margins.bottom() + 2)


def _verdict_html(verdict: Verdict) -> str:
    """Whether the prediction matched the run (where the run gives a value) and the lesson's answer."""
    if verdict.run_matched is None:
        head, colour = ("Right!", PASS) if verdict.right else ("Not what the lesson says.", FAIL)
    else:
        head, colour = ("The run agrees with you.", PASS) if verdict.run_matched else ("The run disagrees.", FAIL)
    lines = "<br>".join(escape(line) for line in verdict.lines)
    return f"<b style='color:{colour}; font-size:large'>{head}</b><br>{lines}"


def _scroll_to(area: QScrollArea, widget: QWidget | None, tries: int = 10) -> None:
    """Once the widget has the height of its new text and the panel has grown to hold it (layouts settle
    over a few events), show it."""
    content = area.widget()
    if widget is None:
        area.verticalScrollBar().setValue(0)
    elif tries and (widget.hasHeightForWidth() and widget.heightForWidth(widget.width()) > widget.height()
                    or content.height() < content.sizeHint().height()):  # fmt: skip
        QTimer.singleShot(20, area, lambda: _scroll_to(area, widget, tries - 1))  # cancelled with the panel
    else:
        area.ensureWidgetVisible(widget, 0, 20)
