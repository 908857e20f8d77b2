"""The course around the lesson panel: the student's progress (kept in the user's data folder and
marked in the catalog), a teacher's folder of lessons beside the built-in ones, and checking a fix
in a worker process. The window makes one; the views it wires never call each other."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from gpuviz.app.control.fix_checker import FixChecker
from gpuviz.app.window.settings import data_dir
from gpuviz.catalog import catalog
from gpuviz.catalog.student_progress import ProgressBook
from gpuviz.core.errors import GpuvizError

PROGRESS_FILE = "progress.json"


class Course(QObject):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.lessons_folder = ""
        self.book = ProgressBook(data_dir() / PROGRESS_FILE)
        self._said = self.book.problem
        self.fixes = FixChecker(self)
        lesson = window.views["lesson"]
        lesson.progress_made.connect(self._on_progress)
        lesson.fix_check_requested.connect(self._check_fix)
        self.fixes.checked.connect(lesson.show_fix_result)
        self.fixes.failed.connect(lesson.show_fix_failure)
        window.catalog.show_progress(self.book)
        if self.book.problem:
            window.set_status(self.book.problem, error=True)

    def load_lessons(self, folder: str | Path | None) -> bool:
        """Show a teacher's folder of lessons after the built-in ones ("" or None: the built-in ones only);
        a folder that cannot be read keeps the catalog as it was and says why in one line."""
        folder = str(folder or "")
        if folder == self.lessons_folder:
            return True
        problems: list[str] = []
        try:
            entries = catalog(folder or None, problems)
        except GpuvizError as exc:
            self.window.set_status(f"error: {exc}", error=True)
            return False
        self.lessons_folder = folder
        self.window.catalog.set_entries(entries)
        self.window.catalog.show_progress(self.book)
        self.window.catalog.show_entry(self.window.state.entry)
        if folder:
            count = len(entries) - len(catalog())
            more = " ..." if len(problems) > 1 else ""
            skipped = f"; {len(problems)} left out: {problems[0]}{more}" if problems else ""
            self.window.set_status(f"{count} lesson(s) from {folder} follow the built-in ones in the Catalog{skipped}",
                                   error=bool(problems))  # fmt: skip
        return True

    def close(self) -> None:
        self.fixes.close()

    def _on_progress(self, lesson: str, changes: dict) -> None:
        if any(getattr(self.book.get(lesson), key) != value for key, value in changes.items()):
            self.book.update(lesson, **changes)
            self.window.catalog.show_progress(self.book)
            if self.book.problem and self.book.problem != self._said:  # a disk that stays full is said once
                self._said = self.book.problem
                self.window.set_status(f"error: {self.book.problem}", error=True)

    def _check_fix(self, entry) -> None:
        if entry is None:
            return
        self.fixes.check(entry, self.window.editor.toPlainText(), self.window.launch.backend_name())
