"""The lesson panel: the question and a prediction to commit to; after Run and a committed prediction,
whether it matched the run, the answer, with the views pointed at the frames that prove it (the
lesson's `## Evidence`: catalog/evidence.py); for a lesson with a bug, a check of the student's fix."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.app.widgets.fix_check_box import FAIL, PASS, FixCheckBox
from gpuviz.app.widgets.lesson_text import FittingText, LessonText
from gpuviz.app.widgets.prediction_box import PredictionBox
from gpuviz.catalog.evidence import resolve
from gpuviz.catalog.glossary import glossary_markdown
from gpuviz.catalog.predictions import Verdict, judge_choice, judge_numbers
from gpuviz.core.display import code_as_html
from gpuviz.core.errors import GpuvizError
from gpuviz.core.plain_times import plain_time_section
from gpuviz.core.theme_colours import badge_html
from gpuviz.scene.state import AppState


class LessonView(QWidget, View):
    fix_check_requested = Signal(object)  # CatalogEntry: check the editor's code against its fix checks
    progress_made = Signal(str, dict)  # lesson name, what changed (catalog/student_progress.py's LessonProgress fields)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.text = LessonText()  # its terms are links: the mouse over one shows its meaning
        self.predict = PredictionBox()  # the answer stays hidden until the student has committed to one
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setObjectName("verdict")
        self.answer_button = QPushButton("Show the answer")
        self.answer_button.setToolTip("After a run: the answer, and the views pointed at the evidence")
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
        state.trace_changed.connect(self._on_launch_shown)
        state.launch_refused.connect(self._on_launch_refused)
        self._pending = None  # evidence waiting for the launch it is on
        self._committed_after = -1  # the runs started before the prediction was committed (-1: none committed)
        self._on_entry_changed(None)

    @property
    def is_lesson(self) -> bool:
        entry = self.state.entry
        return entry is not None and bool(entry.sections)

    def _on_entry_changed(self, entry) -> None:
        self.evidence.setText("")
        self._pending = None
        self._committed_after = -1
        self.reveal(None)  # a new lesson is read from its top
        self.verdict.setText("")
        self.answer_button.setEnabled(False)
        self.fix.reset()
        self.fix.setVisible(False)  # the fix step comes with the answer, which says what to change
        self.predict.setVisible(self.is_lesson)
        self.answer_button.setVisible(self.is_lesson)
        if not self.is_lesson:
            self.text.show_markdown(f"## {entry.title}\n\n{entry.description}" if entry else "", terms=False)
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
        self.text.show_markdown(f"{shown}\n\n{then}")
        self._show_words(shown)

    def _on_committed(self, said: str) -> None:
        self._committed_after = self.state.runs_started  # only a run started from now on can judge it
        self.progress_made.emit(self.state.entry.progress_key, {"prediction": said})
        self._judge()

    def _on_trace_changed(self, trace) -> None:
        if trace is not None and self.is_lesson:
            self.progress_made.emit(self.state.entry.progress_key, {"ran": True})
        self._judge()

    def judged_run(self) -> bool:
        """Whether the launches shown can judge the prediction: a run of this lesson started after the commit
        (never a run from before it, another lesson's run, or a trace opened from a file)."""
        run = self.state.run
        return run > self._committed_after >= 0 and self.state.lesson_of_run(run) is self.state.entry

    def _judge(self) -> None:
        """Once a prediction is committed and its own run is shown: whether it matched, and the answer unlocked."""
        entry, trace = self.state.entry, self.state.trace
        committed = self.is_lesson and self.predict.locked
        judged = committed and trace is not None and self.judged_run()
        self.answer_button.setEnabled(judged)
        if not committed:
            return
        if not judged:
            self.verdict.setText(f"Locked in: <b>{code_as_html(self.predict.said())}</b>. Now press Run (Ctrl+R).")
            return
        verdict = self._verdict(entry)
        if verdict is None:
            said = code_as_html(self.predict.said())
            self.verdict.setText(f"You predicted: <b>{said}</b>. Show the answer to compare.")
            return
        self.verdict.setText(_verdict_html(verdict))
        self.reveal(self.answer_button)
        self.progress_made.emit(entry.progress_key, {"right": verdict.right, "run_matched": verdict.run_matched})

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
            self.progress_made.emit(self.state.entry.progress_key, {"fix_passed": bool(checked.passed)})

    def show_fix_failure(self, message: str) -> None:
        self.fix.show_failure(message)
        self.reveal(self.fix.result)

    def show_answer(self) -> None:
        entry = self.state.entry
        sections = entry.sections
        yours = f"*You predicted: {self.predict.said()}*\n\n" if self.predict.locked else ""
        text = (
            f"## {entry.title}\n\n### Question\n\n{sections.get('question', '')}\n\n{yours}"
            f"### Answer\n\n{sections.get('answer', '')}\n\n### Why\n\n{sections.get('explanation', '')}"
        )
        measured = plain_time_section(self.state.launches) if self.judged_run() else ""
        if measured:  # a GPU ran it: this card's times beside the lesson's stored figures
            text += f"\n\n### On this GPU\n\n{measured}"
        if "fix" in sections:  # the fix step: the edit to make; the button below checks it
            text += f"\n\n### Fix it\n\n{sections['fix']}"
        if sections.get("fix checks"):
            text += "\n\nEdit the code, then press *Check my fix* below."
            self.fix.setVisible(True)
        self.text.show_markdown(text)
        self._show_words(text)
        self._point_at_evidence()
        self.reveal(None)

    def _show_words(self, text: str) -> None:
        words = glossary_markdown(text) if text else ""
        self.words.show_markdown(words)
        self.words.setVisible(bool(words))

    def reveal(self, widget: QWidget | None) -> None:
        """Scroll the panel (its dock scrolls when small) to a widget, or to the top for None, once laid out."""
        area = self.parent()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parent()
        if area is None:
            return
        QTimer.singleShot(0, area, lambda: _scroll_to(area, widget))

    def _point_at_evidence(self, asked_already: bool = False) -> None:
        """The lesson's `## Evidence`, on the launch it names: asked for first when another one is shown
        (applied once it is), then the views set through the shared state. It always ends in a line that
        says what the views show, or why they cannot show it."""
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
            if asked_already:  # the launch came back as another one: say so rather than wait for ever
                self._say(
                    f"Launch {launch + 1}, where the evidence is, could not be shown: pick it in the Launch panel."
                )
                return
            self._pending = evidence
            self._say(f"Loading launch {launch + 1}, where the evidence is...")
            self.state.request_launch(launch)
            return
        try:
            scene = resolve(evidence, trace, self.state.replay, tuple(self.state.launches))
        except GpuvizError as error:  # an edited script may no longer make the events the lesson names
            self._say(f"The evidence is not in this run: {error}")
            return
        self.state.apply(replace(scene, run=self.state.run))  # still the run that judged the prediction
        self._say(scene.caption)

    def _say(self, text: str) -> None:
        self.evidence.setText(f"<b>Look:</b> {code_as_html(text)}")

    def _on_launch_refused(self, index: int, why: str) -> None:
        if self._pending is not None:
            self._pending = None
            self._say(f"Launch {index + 1}, where the evidence is, cannot be shown: {why}.")

    def _on_launch_shown(self, _trace) -> None:
        """A launch asked for by the evidence has arrived: point at it once the state has settled."""
        if self._pending is not None:
            QTimer.singleShot(0, self, lambda: self._point_at_evidence(asked_already=True))


def _verdict_html(verdict: Verdict) -> str:
    """Whether the prediction matched the run (where the run gives a value) and the lesson's answer."""
    if verdict.run_matched is None:
        head, badge = ("✓ Right!", PASS) if verdict.right else ("✗ Not what the lesson says.", FAIL)
    else:
        head, badge = ("✓ The run agrees with you.", PASS) if verdict.run_matched else ("✗ The run disagrees.", FAIL)
    lines = "<br>".join(code_as_html(line) for line in verdict.lines)
    return f"<b style='font-size:large'>{badge_html(head, badge)}</b><br>{lines}"


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
