"""The student's prediction: radio buttons for a lesson's choices, a number box per number asked (or
a line of words where the lesson asks for neither), and Commit, which locks them."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from gpuviz.catalog.predictions import Prediction, parse_number
from gpuviz.core.display import code_as_plain


class PredictionBox(QWidget):
    committed = Signal(str)  # the prediction in words, as the student will see it again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prediction: Prediction | None = None
        self.heading = QLabel("<b>Your prediction</b>")
        self.inputs = QWidget()
        self.commit_button = QPushButton("Commit")
        self.commit_button.setObjectName("commit")
        self.commit_button.setToolTip("Lock your prediction in: the answer is shown only after you commit")
        self.choice_buttons: list[QRadioButton] = []
        self.number_boxes: list[QLineEdit] = []
        self.words = QLineEdit()
        self._group = QButtonGroup(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.inputs)
        layout.addWidget(self.commit_button)
        self.commit_button.clicked.connect(self.commit)
        self.set_prediction(None)

    @property
    def locked(self) -> bool:
        return not self.inputs.isEnabled()

    def set_prediction(self, prediction: Prediction | None) -> None:
        """New inputs for a lesson's prediction (None: a line of words), unlocked and empty."""
        self.prediction = prediction
        self.layout().removeWidget(self.inputs)
        self.inputs.hide()  # deleted later: until then it must not draw under the new inputs
        self.inputs.deleteLater()
        self.inputs = QWidget()
        self.commit_button.setText("Commit")
        self.layout().insertWidget(1, self.inputs)
        self._group = QButtonGroup(self)
        self.choice_buttons, self.number_boxes = [], []
        if prediction is not None and prediction.choices:
            self._add_choices(prediction)
        elif prediction is not None:
            self._add_numbers(prediction)
        else:
            self.words = QLineEdit()
            self.words.setPlaceholderText("Your prediction, in words")
            self.words.textChanged.connect(self._on_input_changed)
            QVBoxLayout(self.inputs).addWidget(self.words)
        self.inputs.layout().setContentsMargins(0, 0, 0, 0)
        self._on_input_changed()

    def _add_choices(self, prediction: Prediction) -> None:
        column = QVBoxLayout(self.inputs)
        for index, choice in enumerate(prediction.choices):
            button = QRadioButton()
            self._group.addButton(button, index)
            column.addWidget(_wrapped(button, code_as_plain(choice.text)))
            self.choice_buttons.append(button)
        self._group.idToggled.connect(lambda *_: self._on_input_changed())

    def _add_numbers(self, prediction: Prediction) -> None:
        form = QFormLayout(self.inputs)
        for asked in prediction.numbers:
            box = QLineEdit()
            box.setPlaceholderText("a number")
            box.textChanged.connect(self._on_input_changed)
            label = QLabel(code_as_plain(asked.label))
            label.setWordWrap(True)
            form.addRow(label, box)
            self.number_boxes.append(box)

    def picked(self) -> int:
        return self._group.checkedId()

    def numbers(self) -> list[float | None]:
        return [parse_number(box.text()) for box in self.number_boxes]

    def ready(self) -> bool:
        if self.choice_buttons:
            return self.picked() >= 0
        if self.number_boxes:
            return all(number is not None for number in self.numbers())
        return bool(self.words.text().strip())

    def _on_input_changed(self, *_) -> None:
        self.commit_button.setEnabled(self.ready() and not self.locked)

    def commit(self) -> None:
        if not self.ready() or self.locked:
            return
        self.inputs.setEnabled(False)
        self.commit_button.setEnabled(False)
        self.commit_button.setText("Committed")
        self.committed.emit(self.said())

    def unlock(self) -> None:
        self.inputs.setEnabled(True)
        self.commit_button.setText("Commit")
        self._on_input_changed()

    def said(self) -> str:
        if self.choice_buttons:
            return self.prediction.choices[self.picked()].text
        if self.number_boxes:
            return "; ".join(f"{a.label}: {box.text().strip()}" for a, box in zip(self.prediction.numbers,
                                                                                   self.number_boxes))  # fmt: skip
        return self.words.text().strip()


def _wrapped(button: QRadioButton, text: str) -> QWidget:
    """A choice whose words wrap (a radio button's own text never does, and a long choice widened
    the lesson panel past a projector's width); a click on the words picks it too."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.mousePressEvent = lambda _event: button.click()
    button.setAccessibleName(text)
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
    layout.addWidget(label, 1)
    return row
