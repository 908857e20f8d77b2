"""A lesson's fix step in the app: "Check my fix" runs the lesson's fix checks on the editor's code (its
kernels, in a watched worker process: run/fix_check.py) and lists each check, passed or not, with the run's
value."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from gpuviz.core.display import code_as_html
from gpuviz.core.theme_colours import badge_html
from gpuviz.run.fix_check import HOST_RAN

PASS, FAIL = "good", "bad"  # badges (core/theme_colours.py): words on a colour that read on either theme


class FixCheckBox(QWidget):
    check_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.button = QPushButton("Check my fix")
        self.button.setObjectName("checkFix")
        self.button.setToolTip("Run the code in the editor and hold it against the lesson's fix checks")
        self.result = QLabel()
        self.result.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.result)
        self.button.clicked.connect(self._on_clicked)

    def reset(self) -> None:
        self.result.setText("")
        self.button.setEnabled(True)
        self.button.setText("Check my fix")

    def _on_clicked(self) -> None:
        self.button.setEnabled(False)
        self.button.setText("Checking the fix...")
        self.result.setText("Running your code with the lesson's settings...")
        self.check_requested.emit()

    def show_result(self, checked) -> None:
        """A FixResult: the verdict, whether the student's host code ran, the lesson's own reference, and each
        check with the run's value."""
        self.reset()
        verdict = "✓ Fix passed" if checked.passed else "✗ Not fixed yet"
        rows = [f"<b style='font-size:large'>{badge_html(verdict, PASS if checked.passed else FAIL)}</b>"]
        rows += [f"<i>Note: {escape(HOST_RAN)}</i>"] if checked.host_ran else []
        rows.append(escape(checked.reference))
        for outcome in checked.outcomes:
            mark = badge_html("✓", PASS) if outcome.passed else badge_html("✗", FAIL)  # a sign, not a colour alone
            value = outcome.value_text()
            rows.append(f"{mark} {code_as_html(outcome.check.text)} &nbsp;(the run: <b>{value}</b>)")
        self.result.setText("<br>".join(rows))

    def show_failure(self, message: str) -> None:
        self.reset()
        head = badge_html("✗ Your code did not run", FAIL)
        self.result.setText(f"<b style='font-size:large'>{head}</b><br>{escape(message)}")
