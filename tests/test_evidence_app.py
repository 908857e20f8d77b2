"""After the answer, the app shows it on the frames that prove it: the lesson's `## Evidence` moves the
replay's cursor, the selection and the raised view, through the shared state, on the launch it names."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtWidgets import QDockWidget

from gpuviz.catalog.evidence import resolve
from tests.test_app import RUN_TIMEOUT, commit_any_prediction, pick, run_and_wait, window  # noqa: F401  (the fixture)


def answer(qtbot, win):
    lesson = win.views["lesson"]
    commit_any_prediction(lesson.predict)
    lesson.show_answer()
    qtbot.waitUntil(lambda: lesson._pending is None and "Loading" not in lesson.evidence.text(), timeout=RUN_TIMEOUT)
    qtbot.waitUntil(lambda: win.runner.loader.idle, timeout=RUN_TIMEOUT)
    return lesson.evidence.text()


def test_the_warps_lesson_goes_back_to_its_first_launch_and_raises_the_memory_tab(qtbot, window):  # noqa: F811
    pick(window, "08. warps")
    assert run_and_wait(qtbot, window) is True
    assert window.state.launch_index() == 1  # the run shows its last launch...
    window.tabs.setCurrentWidget(window.views["grid"])
    caption = answer(qtbot, window)
    state = window.state
    assert state.launch_index() == 0 and state.trace.kernel == "diverge"  # ...the evidence is on the first
    assert "line 13" in caption and "16 active lanes" in caption
    assert window.tabs.currentWidget() is window.views["memory"]
    assert state.line == 13 and state.selected == 0 and state.order == "replay" and state.frame == 1
    assert "lanes" in window.views["memory"].detail.text()


def test_the_barrier_lesson_stops_the_replay_where_the_block_waits(qtbot, window):  # noqa: F811
    pick(window, "18. a barrier")
    assert run_and_wait(qtbot, window) is True
    window.tabs.setCurrentWidget(window.views["memory"])
    before = window.state.frame
    caption = answer(qtbot, window)
    state = window.state
    scene = resolve(state.entry.evidence, state.trace, state.replay)
    assert state.frame == scene.frame != before and state.selected == 63
    assert window.tabs.currentWidget() is window.views["grid"]
    states = state.thread_states()
    assert states.state[:63].tolist() == [2] * 63 and states.state[63] == 1  # 0-62 at the barrier, 63 running
    assert "Threads 0-62 of block 0 wait at the barrier" in caption and window.banner.text() in caption
    lesson_dock = next(d for d in window.findChildren(QDockWidget) if d.objectName() == "Lesson")
    assert not lesson_dock.visibleRegion().isEmpty()  # the answer stays in sight


def test_the_3d_lesson_shows_the_layer_of_the_thread_it_selects(qtbot, window):  # noqa: F811
    pick(window, "13. a 3-d grid")
    assert run_and_wait(qtbot, window) is True
    answer(qtbot, window)
    state = window.state
    assert state.layer == 1 and window.views["animation"].layer.value() == 1
    assert state.trace.threads["block_idx"][state.selected].tolist() == [2, 1, 1]
    assert state.trace.threads["thread_idx"][state.selected].tolist() == [3, 0, 2]
    assert state.colour_mode == "value written" and window.tabs.currentWidget() is window.views["grid"]
