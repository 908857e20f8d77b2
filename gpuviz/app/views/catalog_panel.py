"""The catalog panel: the lessons in course order, then the examples; and opening one's own script."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from gpuviz.catalog import catalog


class CatalogPanel(QWidget):
    entry_picked = Signal(object)  # CatalogEntry
    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries = catalog()
        self.list = QListWidget()
        self.list.setWordWrap(True)
        for index, entry in enumerate(self.entries):
            number = f"{entry.name[:2]}. " if entry.is_lesson else ""
            item = QListWidgetItem(f"{number}{entry.title}\n    {entry.description}")
            item.setData(Qt.ItemDataRole.UserRole, index)
            item.setToolTip(entry.description)
            self.list.addItem(item)
        self.open_button = QPushButton("Open script...")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Kernels</b>"))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.open_button)
        self.list.currentItemChanged.connect(self._on_item_changed)
        self.open_button.clicked.connect(self.open_requested)

    def count(self) -> int:
        return self.list.count()

    def item(self, row: int) -> QListWidgetItem:
        return self.list.item(row)

    def setCurrentRow(self, row: int) -> None:  # noqa: N802  (as QListWidget, for callers and tests)
        self.list.setCurrentRow(row)

    def show_entry(self, entry) -> None:
        """Mark an entry (None: none) as the one shown, without picking it again."""
        self.list.blockSignals(True)
        self.list.setCurrentRow(self.entries.index(entry) if entry in self.entries else -1)
        self.list.blockSignals(False)

    def _on_item_changed(self, item, _previous) -> None:
        if item is not None:
            self.entry_picked.emit(self.entries[item.data(Qt.ItemDataRole.UserRole)])
