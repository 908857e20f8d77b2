"""What one thread was and did: its record, for the selected thread."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.core.thread_record import thread_record
from gpuviz.scene.state import AppState


class RecordView(QWidget, View):
    """The selected thread's record; follows the shared selection."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.title = QLabel("<b>Thread</b>")
        self.body = QLabel("Click a thread in the grid.")
        self.body.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)
        state.selection_changed.connect(self._on_selection_changed)

    def _on_selection_changed(self, gid: int) -> None:
        trace = self.state.trace
        if trace is None or gid < 0:
            self.title.setText("<b>Thread</b>")
            self.body.setText("Click a thread in the grid.")
            return
        self.title.setText(f"<b>Thread {gid:,}</b>")
        self.body.setText(thread_record(trace, gid))
