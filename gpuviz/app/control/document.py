"""The script in the editor as a document: New, Open, Save, Save As, Revert, recent files, a title
with the file's name and a modified mark, a question before unsaved work is replaced, and an
autosave that is offered back after a crash. A lesson is never overwritten: saving one writes the
user's own copy, which is opened the next time the lesson is picked."""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

import gpuviz.catalog
from gpuviz.app.control.autosave_slots import Slot, discard, orphans
from gpuviz.app.widgets.editor import SourceEditor
from gpuviz.app.window.settings import data_dir, remember, settings
from gpuviz.catalog.slugs import slug_of
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import write_text
from gpuviz.core.user_files import UnreadableFile, read_text

PACKAGE_DATA = Path(gpuviz.catalog.__file__).resolve().parent
AUTOSAVE_MS = 2000  # after the last keystroke
MAX_RECENT = 8
SAVE, DISCARD, CANCEL = "save", "discard", "cancel"
_BUTTONS = {QMessageBox.StandardButton.Save: SAVE, QMessageBox.StandardButton.Discard: DISCARD}


def ask(parent: QWidget, title: str, text: str) -> str:
    """Save, discard or cancel? (One place, so tests can answer it.)"""
    buttons = QMessageBox.StandardButton
    answer = QMessageBox.question(parent, title, text, buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save)
    return _BUTTONS.get(answer, CANCEL)


def offer(parent: QWidget, title: str, text: str) -> bool:
    """Yes or no? (One place, so tests can answer it.)"""
    buttons = QMessageBox.StandardButton
    return QMessageBox.question(parent, title, text, buttons.Yes | buttons.No, buttons.Yes) == buttons.Yes


def is_package_data(path: Path) -> bool:
    return path.resolve().is_relative_to(PACKAGE_DATA)


def own_copy(path: Path) -> Path:
    """Where the user's copy of a lesson or example lives: a lesson's under its slug, so that the copy
    follows the lesson when the course is reordered. A copy saved under a numbered name (any number: the
    lesson may have moved since) is moved to the slug's name the first time it is looked for."""
    folder = data_dir("my-scripts")
    copy = folder / slug_of(path.name)
    if copy.name != path.name and not copy.exists():
        for old in sorted(folder.glob(f"[0-9]*-{copy.name}")):
            if slug_of(old.name) == copy.name:
                with contextlib.suppress(OSError):  # a folder that cannot be written: the old copy stays found
                    old.rename(copy)
                return copy if copy.exists() else old
    return copy


class ScriptDocument(QObject):
    title_changed = Signal(str)
    status = Signal(str, bool)  # text, is an error

    def __init__(self, editor: SourceEditor, parent: QWidget) -> None:
        super().__init__(parent)
        self.editor, self.dialog_parent = editor, parent
        self.path: Path | None = None
        self._kept: dict[Path, QTextDocument] = {}  # each script's document: its undo survives switching back
        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(AUTOSAVE_MS)
        self._autosave.timeout.connect(self.autosave)
        self.slot = Slot(data_dir("autosave"))
        self._said = ""  # the last autosave failure shown: a disk that stays full is said once
        editor.document().modificationChanged.connect(lambda _: self.title_changed.emit(self.title()))
        editor.textChanged.connect(self._on_text_changed)

    # ---- what it is ----------------------------------------------------------------------------------
    @property
    def modified(self) -> bool:
        return self.editor.document().isModified()

    def name(self) -> str:
        return self.path.name if self.path else "untitled.py"

    def title(self) -> str:
        lesson = " (lesson)" if self.path is not None and is_package_data(self.path) else ""
        return f"{self.name()}{lesson}{' *' if self.modified else ''}"

    # ---- replacing the text ---------------------------------------------------------------------------
    def may_replace(self) -> bool:
        """Ask before unsaved changes are replaced; False when the user cancels (or a save fails)."""
        if not self.modified:
            return True
        answer = ask(self.dialog_parent, "Unsaved changes", f"{self.name()} has changes that are not saved. Save them?")
        return answer == DISCARD or (answer == SAVE and self.save())

    def load(self, path: Path) -> bool:
        """Show a script; a lesson the user saved before opens as the user's copy."""
        if is_package_data(path) and own_copy(path).exists():
            path = own_copy(path)
            self.status.emit(f"your copy of {path.name} (Revert reloads it; the lesson itself is unchanged)", False)
        try:
            text = read_text(path)  # never a fifo, a link loop or a huge file
        except UnreadableFile as exc:
            self.status.emit(f"error: cannot read {exc}", True)
            return False
        if text is None:
            self.status.emit(f"error: cannot read {path}: no such file", True)
            return False
        self.path = path
        self._show(text, path)
        if not is_package_data(path):
            remember_recent(path)
        return True

    def new(self) -> None:
        self.path = None
        self._show("", None)

    def revert(self) -> None:
        if self.path is not None and (not self.modified or self.may_replace()):
            self.load(self.path)

    def _show(self, text: str, path: Path | None) -> None:
        """The script's own document again when it still holds this text (its undo history with it),
        else a new one."""
        kept = self._kept.get(path) if path is not None else None
        if kept is not None and not kept.isModified() and kept.toPlainText() == text:
            self.editor.use_document(kept)
        else:
            kept = self.editor.new_document(text)
            kept.modificationChanged.connect(lambda _: self.title_changed.emit(self.title()))
            if path is not None:
                self._kept[path] = kept
        self.title_changed.emit(self.title())

    # ---- saving ---------------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        target = own_copy(self.path) if is_package_data(self.path) else self.path
        return self.save_to(target)

    def save_as(self) -> bool:
        start = str(own_copy(self.path) if self.path else data_dir("my-scripts") / self.name())
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, "Save script as", start, "Python scripts (*.py)")
        return bool(path) and self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        if is_package_data(path):
            path = own_copy(path)
        try:
            write_text(path, self.editor.toPlainText(), "script")
        except GpuvizError as exc:
            self.status.emit(f"error: {exc}", True)
            return False
        copied = self.path is not None and is_package_data(self.path)
        self.path = path
        self._kept[path] = self.editor.document()  # the saved file's document, undo history and all
        self.editor.document().setModified(False)
        self.title_changed.emit(self.title())
        remember_recent(path)
        self.discard_autosave()
        self.status.emit(f"saved {'your copy as ' if copied else ''}{path}", False)
        return True

    # ---- autosave ------------------------------------------------------------------------------------
    def _on_text_changed(self) -> None:
        if self.modified:
            self._autosave.start()

    def autosave(self) -> None:
        """The unsaved text and where it came from, in this app's own slot of the data folder."""
        if not self.modified:
            return
        try:
            self.slot.write(self.editor.toPlainText(), self.path)
        except GpuvizError as exc:
            if str(exc) != self._said:
                self._said = str(exc)
                self.status.emit(f"error: autosave: {exc}", True)
        else:
            self._said = ""

    def discard_autosave(self) -> None:
        self._autosave.stop()
        self.slot.clear()

    def restore_autosave(self) -> bool:
        """After a crash: offer back the unsaved text of an app that is gone (it stays unsaved, marked
        modified); an autosave that cannot be read is set aside and said in one line."""
        found, problems = orphans(self.slot.root)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.status.emit(f"error: {problems[0]}{more}", True)
        if not found:
            return False
        orphan = found[0]
        name = orphan.origin.name if orphan.origin else "an untitled script"
        question = f"gpuviz closed with unsaved changes to {name}. Restore them?"
        if not offer(self.dialog_parent, "Restore unsaved work", question):
            discard(orphan)
            return False
        self.path = orphan.origin
        self._show(orphan.text, None)
        self.editor.document().setModified(True)
        self.slot.adopt(orphan)
        self.title_changed.emit(self.title())
        self.status.emit(f"restored unsaved changes to {name}: save them with Ctrl+S", False)
        return True


def recent_files() -> list[str]:
    """The recent files kept in the settings; anything else found under that key is ignored."""
    files = settings().value("recent", []) or []
    files = [files] if isinstance(files, str) else files
    return [f for f in files if isinstance(f, str)][:MAX_RECENT] if isinstance(files, list) else []


def remember_recent(path: Path) -> None:
    files = [str(path)] + [f for f in recent_files() if f != str(path)]
    remember(recent=files[:MAX_RECENT])
