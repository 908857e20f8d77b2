"""The script is a document: unsaved changes are asked about, lessons are saved as the user's copy,
autosave brings an edit back after the window died without closing."""

import pytest

from gpuviz.catalog import find

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtGui import QTextCursor

from gpuviz.app.control import document
from gpuviz.app.window.main_window import MainWindow
from tests.test_app import pick, window  # noqa: F401  (the fixture)


def type_text(win, text: str) -> None:
    """Type at the end of the script, as a person would (an undoable edit that marks it modified)."""
    win.editor.moveCursor(QTextCursor.MoveOperation.End)
    win.editor.insertPlainText(text)


def answer(monkeypatch, reply: str) -> list[str]:
    asked: list[str] = []
    monkeypatch.setattr(document, "ask", lambda parent, title, text: asked.append(text) or reply)
    return asked


def test_switching_lessons_with_unsaved_changes_asks(qtbot, window, monkeypatch):  # noqa: F811
    pick(window, "one-thread")
    assert window.windowTitle().startswith("01-one-thread.py (lesson) - gpuviz")
    type_text(window, "\n# my note\n")
    assert "*" in window.windowTitle()
    asked = answer(monkeypatch, "cancel")
    pick(window, "one-cell-per-thread")
    assert len(asked) == 1 and "01-one-thread.py" in asked[0]
    assert "# my note" in window.editor.toPlainText() and window.state.entry.slug == "one-thread"
    assert window.catalog.list.currentRow() == 0  # the catalog still shows the script being edited
    answer(monkeypatch, "discard")
    pick(window, "one-cell-per-thread")
    assert "# my note" not in window.editor.toPlainText() and window.state.entry.slug == "one-cell-per-thread"


def test_saving_a_lesson_writes_the_users_copy(qtbot, window, monkeypatch):  # noqa: F811
    pick(window, "one-thread")
    lesson = window.state.entry.path
    original = lesson.read_text()
    type_text(window, "\n# my note\n")
    asked = answer(monkeypatch, "save")
    pick(window, "one-cell-per-thread")  # saving from the question, then switching
    assert len(asked) == 1
    assert lesson.read_text() == original  # the package's lesson is untouched
    copy = document.own_copy(lesson)
    assert copy.read_text().endswith("# my note\n")
    pick(window, "one-thread")  # the lesson opens as the user's copy
    assert window.editor.toPlainText().endswith("# my note\n") and window.script_path == copy
    assert not window.document.modified


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(qtbot, window, monkeypatch):  # noqa: F811
    pick(window, "one-thread")
    type_text(window, "\n# my note\n")
    asked = answer(monkeypatch, "cancel")
    assert window.close() is False and window.isVisible()
    assert len(asked) == 1
    answer(monkeypatch, "discard")


def test_save_as_revert_and_recent_files(qtbot, window, tmp_path):  # noqa: F811
    script = tmp_path / "mine.py"
    script.write_text("x = 1\n")
    window.open_path(script)
    type_text(window, "y = 2\n")
    window.document.revert()  # asks (discard, by the tests' default), then reloads
    assert window.editor.toPlainText() == "x = 1\n"
    type_text(window, "y = 2\n")
    assert window.document.save_to(tmp_path / "other.py")
    assert (tmp_path / "other.py").read_text() == "x = 1\ny = 2\n" and script.read_text() == "x = 1\n"
    assert window.windowTitle().startswith("other.py - gpuviz")
    assert document.recent_files()[:2] == [str(tmp_path / "other.py"), str(script)]


def test_autosave_is_restored_after_the_window_died(qtbot, window, monkeypatch):  # noqa: F811
    pick(window, "grid-stride")
    type_text(window, "\n# unsaved work\n")
    qtbot.waitUntil(
        lambda: bool(window.document.slot.folder) and (window.document.slot.folder / "script.py").exists(),
        timeout=600_000,
    )  # fmt: skip  (a hang guard, not a speed check)
    window.hide()  # the app dies here: no closeEvent, no question, the autosave stays
    window.document.slot.forget()  # ... and the system lets go of its slot's lock
    monkeypatch.setattr(document, "offer", lambda parent, title, text: "grid-stride.py" in text)
    reborn = MainWindow()
    qtbot.addWidget(reborn)
    assert reborn.editor.toPlainText().endswith("# unsaved work\n")
    name = find("grid-stride").path.name  # the lesson's file today ("07-grid-stride.py"): its number may change
    assert reborn.document.modified and reborn.script_path.name == name
    assert reborn.windowTitle().startswith(f"{name} (lesson) * - gpuviz")
    # its lesson, its launch
    assert reborn.state.entry.slug == "grid-stride" and reborn.launch.grid[0].value() == 8
    reborn.document.editor.document().setModified(False)
    reborn.close()
    window.document.editor.document().setModified(False)


def test_undo_survives_switching_back(qtbot, window, monkeypatch):  # noqa: F811
    pick(window, "one-thread")
    original = window.editor.toPlainText()
    type_text(window, "\n# my note\n")
    answer(monkeypatch, "save")
    pick(window, "one-cell-per-thread")
    assert window.state.entry.slug == "one-cell-per-thread"
    pick(window, "one-thread")  # back to the saved copy: its document, with its undo history
    assert window.editor.toPlainText().endswith("# my note\n")
    window.editor.undo()
    assert window.editor.toPlainText() == original
    assert window.document.modified and "*" in window.windowTitle()
    answer(monkeypatch, "discard")
