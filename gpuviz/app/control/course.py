"""The course around the lesson panel: the student's progress (kept in the user's data folder and
marked in the catalog), a teacher's folder of lessons beside the built-in ones, and checking a fix
in a worker process. It is given the panels it wires (never the window); they never call each other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from gpuviz.app.control.fix_checker import FixChecker
from gpuviz.app.views.lesson_view import LessonView
from gpuviz.app.widgets.catalog_panel import CatalogPanel
from gpuviz.app.window.settings import data_dir
from gpuviz.catalog import catalog
from gpuviz.catalog.student_progress import ProgressBook
from gpuviz.core.errors import GpuvizError
from gpuviz.scene.state import AppState

PROGRESS_FILE = "progress.json"


Status = Callable[..., None]  # status(text, error=False): one line in the window's status bar


class Course(QObject):
    def __init__(
        self, lesson: LessonView, catalog: CatalogPanel, state: AppState, status: Status,
        code: Callable[[], str], backend: Callable[[], str], parent: QObject | None = None,
    ) -> None:  # fmt: skip
        """`code` gives the editor's text and `backend` the backend a run would use, when a fix is checked."""
        super().__init__(parent)
        self.catalog, self.state, self.status = catalog, state, status
        self.code, self.backend = code, backend
        self.lessons_folder = ""
        self.book = ProgressBook(data_dir() / PROGRESS_FILE)
        self._said = self.book.problem
        self.fixes = FixChecker(self)
        lesson.progress_made.connect(self._on_progress)
        lesson.fix_check_requested.connect(self._check_fix)
        self.fixes.checked.connect(lesson.show_fix_result)
        self.fixes.failed.connect(lesson.show_fix_failure)
        catalog.show_progress(self.book)
        if self.book.problem:
            status(self.book.problem, error=True)

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
            self.status(f"error: {exc}", error=True)
            return False
        self.lessons_folder = folder
        self.catalog.set_entries(entries)
        self.catalog.show_progress(self.book)
        self.catalog.show_entry(self.state.entry)
        if folder:
            count = len(entries) - len(catalog())
            more = " ..." if len(problems) > 1 else ""
            skipped = f"; {len(problems)} left out: {problems[0]}{more}" if problems else ""
            self.status(f"{count} lesson(s) from {folder} follow the built-in ones in the Catalog{skipped}",
                                   error=bool(problems))  # fmt: skip
        return True

    def close(self) -> None:
        self.fixes.close()

    def _on_progress(self, lesson: str, changes: dict) -> None:
        if any(getattr(self.book.get(lesson), key) != value for key, value in changes.items()):
            self.book.update(lesson, **changes)
            self.catalog.show_progress(self.book)
            if self.book.problem and self.book.problem != self._said:  # a disk that stays full is said once
                self._said = self.book.problem
                self.status(f"error: {self.book.problem}", error=True)

    def _check_fix(self, entry) -> None:
        if entry is None:
            return
        self.fixes.check(entry, self.code(), self.backend())
