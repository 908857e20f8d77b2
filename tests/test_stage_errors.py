"""The stage beside the picture: Play that moves through any launch, an editor that indents, File > Quit."""

import math

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")

from PySide6.QtCore import Qt

from gpuviz.app.widgets.editor import SourceEditor, next_indent
from gpuviz.core.playback import DEFAULT_RATE, auto_step, play_seconds

from .test_app import pick, run_and_wait, window  # noqa: F401 (the fixture)


def test_play_time_follows_the_launch_not_its_events():
    for events in (10, 50, 768, 4_194_304, 50_000_000):
        assert 10 <= play_seconds(events) <= 30, events
    assert play_seconds(4_194_304, step=1) > 3 * 24 * 3600  # event by event: days, as the issue found
    assert auto_step(4_194_304) == math.ceil(4_194_304 / 300)
    assert play_seconds(4_194_304, rate=4 * DEFAULT_RATE) < play_seconds(4_194_304) / 3  # speed still counts


@pytest.mark.parametrize("lesson", ["the-race", "one-thread"])  # the race (4.2 M events) and one thread
def test_default_play_time_of_a_lesson(qtbot, window, lesson):  # noqa: F811
    pick(window, lesson)
    assert run_and_wait(qtbot, window) is True
    bar = window.views["animation"]
    events = bar.frames() - 1
    assert (events > 4_000_000) if lesson == "the-race" else (window.state.trace.grid == (1, 1, 1))
    assert bar.unit.currentText() == "auto" and bar.speed.currentText() == "15 steps/s"
    assert 10 <= bar.play_seconds() <= 30
    assert bar.slider.pageStep() >= events // 20 and bar.slider.singleStep() == auto_step(events)
    window.state.set_frame(0)
    bar.step(1)
    assert window.state.frame == auto_step(events)
    bar.unit.setCurrentText("event")  # event by event stays one choice away
    bar.step(1)
    assert window.state.frame == auto_step(events) + 1


def test_enter_keeps_the_indent_and_indents_after_a_colon(qtbot):
    assert next_indent("    if i < n:") == " " * 8
    assert next_indent("    x = 1  # a: b") == " " * 4
    assert next_indent("def f(a):  # the kernel") == " " * 4
    editor = SourceEditor()
    qtbot.addWidget(editor)
    qtbot.keyClicks(editor, "def add(a):")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "i = 1")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "if i < n:")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "a[i] = 0")
    assert editor.toPlainText() == "def add(a):\n    i = 1\n    if i < n:\n        a[i] = 0"


def test_file_quit_closes_the_window(qtbot, window):  # noqa: F811
    quit_action = next(a for a in window.actions() if a.text() == "Quit")
    assert quit_action.shortcut().toString() == "Ctrl+Q"
    quit_action.trigger()
    assert not window.isVisible()


def test_a_worker_started_ahead_runs_the_first_run_and_ends_with_the_window(qtbot, tmp_path, monkeypatch):
    import multiprocessing

    from gpuviz.app.window.main_window import MainWindow

    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    assert MainWindow().runs.spare_process is None  # the suite's windows start none (conftest)
    win = MainWindow(warm_worker=True)
    qtbot.addWidget(win)
    spare = win.runs.spare_process
    assert spare is not None and spare.is_alive()
    pick(win, "vector add")
    assert run_and_wait(qtbot, win) is True
    assert win.state.trace is not None and spare.exitcode == 0  # the run was the spare's: it ended after it
    qtbot.waitUntil(lambda: win.runs.spare_process is not None, timeout=10_000)  # another waits for the next run
    win.close()
    assert not multiprocessing.active_children(), "a worker process outlived the window"
