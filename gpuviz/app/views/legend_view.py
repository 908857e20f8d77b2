"""The legend: what the grid's colours mean, for the colour mode chosen."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpuviz.app.views.base import View
from gpuviz.core.colors import distinct_entries
from gpuviz.scene.state import AppState


class LegendView(QWidget, View):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.label = QLabel()
        self.label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        state.coloring_changed.connect(self._on_coloring_changed)
        self._on_coloring_changed(state.coloring)

    def text(self) -> str:
        return self.label.text()

    def _on_coloring_changed(self, colours) -> None:
        legend = distinct_entries(colours.legend) if colours is not None else []
        items = "".join(f"<span style='color: rgb{c}'>&#9632;</span> {label}&nbsp;&nbsp; " for c, label in legend)
        self.label.setText(f"<b>Colour by {self.state.colour_mode}</b><br>{items}")
