"""The File menu: the script as a document (New, Open, Save, Save As, Revert, recent files) and
keeping the launch shown (Save trace as...)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu

from gpuviz.app.control.document import recent_files
from gpuviz.core.errors import GpuvizError
from gpuviz.core.files import write_file


def build(window: QMainWindow) -> QMenu:
    menu = window.menuBar().addMenu("&File")
    document = window.document
    actions = [
        ("New", "Ctrl+N", window.new_script, "An empty script (asks first when there are unsaved changes)"),
        ("Open...", "Ctrl+O", window.open_dialog, "Open a script (.py) or a saved trace (.npz)"),
        ("Save", "Ctrl+S", document.save, "Save the script; a lesson is saved as your own copy"),
        ("Save as...", "Ctrl+Shift+S", document.save_as, "Save the script under a new name"),
        ("Revert", "", document.revert, "Reload the script as it was last saved"),
        ("Save trace as...", "", lambda: save_trace_as(window), "Keep the launch shown as a .npz trace file"),
    ]
    for text, keys, slot, tip in actions:
        add_action(window, menu, text, keys, slot, tip)
    recent = menu.addMenu("Recent files")
    recent.aboutToShow.connect(lambda: _fill_recent(window, recent))
    menu.addSeparator()
    tip = "Close gpuviz (asks first about unsaved changes)"
    quit_action = add_action(window, menu, "Quit", "Ctrl+Q", window.close, tip)
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    return menu


def add_action(window: QMainWindow, menu: QMenu, text: str, keys: str, slot, tip: str = "") -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setToolTip(tip)
    action.setStatusTip(tip)
    action.triggered.connect(lambda *_: slot())
    window.addAction(action)
    menu.addAction(action)
    return action


def _fill_recent(window: QMainWindow, menu: QMenu) -> None:
    menu.clear()
    for path in recent_files():
        menu.addAction(Path(path).name, lambda p=path: window.open_path(p)).setToolTip(path)
    if menu.isEmpty():
        menu.addAction("(none yet)").setEnabled(False)


def save_trace_as(window: QMainWindow, target: str | None = None) -> bool:
    """Copy the shown launch's trace out of the session's folder (deleted on close) to a file of the user's."""
    runner = window.runner
    if not runner.paths:
        window.set_status("error: no trace to save yet; run a script first", error=True)
        return False
    source = Path(runner.paths[runner.shown])
    if target is None:
        target, _ = QFileDialog.getSaveFileName(window, "Save trace as", source.name, "gpuviz traces (*.npz)")
    if not target:
        return False
    try:
        write_file(target, lambda stream: stream.write(source.read_bytes()), "trace")
    except (GpuvizError, OSError) as exc:
        window.set_status(f"error: {exc}", error=True)
        return False
    window.set_status(f"saved the trace as {target}")
    return True
