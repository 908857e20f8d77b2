"""The catalog panel: the lessons in course order, a teacher's lessons, then the examples, each lesson
with the student's progress mark; and opening one's own script."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from gpuviz.catalog import CatalogEntry, catalog
from gpuviz.catalog.student_progress import ProgressBook


class CatalogPanel(QWidget):
    entry_picked = Signal(object)  # CatalogEntry
    open_requested = Signal()

    def __init__(self, entries: list[CatalogEntry] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries: list[CatalogEntry] = []
        self.marks: dict[str, str] = {}
        self.list = QListWidget()
        self.list.setToolTip("Lessons in course order, then examples: click one to open it")
        self.list.setWordWrap(True)
        self.open_button = QPushButton("Open script...")
        self.open_button.setToolTip("Open your own script (.py) or a saved trace (.npz) (Ctrl+O)")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Kernels</b>"))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.open_button)
        self.list.currentItemChanged.connect(self._on_item_changed)
        self.open_button.clicked.connect(self.open_requested)
        self.set_entries(catalog() if entries is None else entries)

    def set_entries(self, entries: list[CatalogEntry]) -> None:
        """Show these entries (the built-in catalog with or without a teacher's lessons)."""
        self.list.blockSignals(True)
        self.list.clear()
        self.entries = list(entries)
        for index, entry in enumerate(self.entries):
            item = QListWidgetItem(self._label(entry))
            item.setData(Qt.ItemDataRole.UserRole, index)
            item.setToolTip(f"{entry.description}\n{entry.path}" if not entry.is_lesson else entry.description)
            self.list.addItem(item)
        self.list.blockSignals(False)

    def show_progress(self, book: ProgressBook) -> None:
        """Each lesson's mark: ✓ done (ran with a prediction committed), ▶ ran, the prediction and the fix."""
        self.marks = {entry.name: book.get(entry.progress_key).mark() for entry in self.entries if entry.is_lesson}
        for row, entry in enumerate(self.entries):
            self.list.item(row).setText(self._label(entry))

    def _label(self, entry: CatalogEntry) -> str:
        number = f"{entry.name[:2]}. " if entry.is_lesson else ""
        mark = self.marks.get(entry.name, "")
        return f"{number}{entry.title}{'   ' + mark if mark else ''}\n    {entry.description}"

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
