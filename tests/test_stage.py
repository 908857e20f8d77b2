"""Everything on screen belongs to the lesson on screen: switching lessons, opening a script, and a
prediction judged only by a run of its own lesson started after it was committed."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from gpuviz.catalog import EXAMPLES  # noqa: E402
from tests.test_app import commit_any_prediction, pick, run_and_wait, window  # noqa: E402, F401  (the fixture)
from tests.test_evidence_app import answer  # noqa: E402


def scrolled_to(win) -> int:
    area = win.views["lesson"].parent()
    while area is not None and not hasattr(area, "verticalScrollBar"):
        area = area.parent()
    return area.verticalScrollBar().value()


def test_switching_lessons_leaves_nothing_of_the_last_one_on_screen(qtbot, window):  # noqa: F811
    lesson, story = window.views["lesson"], window.views["story"]
    pick(window, "13")
    commit_any_prediction(lesson.predict)
    assert run_and_wait(qtbot, window) is True
    answer(qtbot, window)
    assert window.state.trace is not None and window.state.caption and window.banner.isVisibleTo(window)
    assert lesson.verdict.text() and lesson.evidence.text()
    pick(window, "15")
    qtbot.waitUntil(lambda: scrolled_to(window) == 0, timeout=10_000)  # the new lesson is read from its top
    scene = window.state.scene()
    assert scene.trace is None and scene.launches == () and scene.caption == "" and scene.selected == -1
    assert not window.banner.isVisibleTo(window) and lesson.verdict.text() == "" and lesson.evidence.text() == ""
    assert not lesson.predict.locked and not lesson.answer_button.isEnabled()
    assert story.table.rowCount() == 0 and window.views["memory"].state.trace is None
    picker = window.launch.launch_picker
    assert all("(line" in picker.itemText(i) for i in range(picker.count()))  # the script's launches, not a run's


def test_a_prediction_is_judged_only_by_its_own_lessons_run_started_after_it(qtbot, window):  # noqa: F811
    lesson = window.views["lesson"]
    pick(window, "13")
    assert run_and_wait(qtbot, window) is True  # a run before the prediction
    commit_any_prediction(lesson.predict)
    assert "Now press Run" in lesson.verdict.text() and not lesson.answer_button.isEnabled()
    pick(window, "15")
    commit_any_prediction(lesson.predict)
    assert "Now press Run" in lesson.verdict.text()  # the last lesson's run never judges this one
    assert run_and_wait(qtbot, window) is True
    assert "The run" in lesson.verdict.text() and lesson.answer_button.isEnabled()
    assert window.state.lesson_of_run(window.state.run) is window.state.entry


def test_opening_a_script_leaves_lesson_mode(qtbot, window):  # noqa: F811
    pick(window, "13")
    assert window.state.entry is not None
    window.open_path(EXAMPLES / "vector_add.py")
    assert window.state.entry is None and window.state.trace is None and window.state.caption == ""
    assert not window.views["lesson"].predict.isVisibleTo(window)
    assert "def vecadd" in window.editor.toPlainText()


def test_show_the_answer_says_why_when_the_evidence_launch_cannot_come(qtbot, window):  # noqa: F811
    lesson = window.views["lesson"]
    pick(window, "08. warps")  # its evidence is on its first launch; the run shows its last
    commit_any_prediction(lesson.predict)
    assert run_and_wait(qtbot, window) is True
    window.runner.paths = []  # the run's files are gone (as after another script was picked and this one restored)
    lesson.show_answer()
    qtbot.waitUntil(lambda: "Loading" not in lesson.evidence.text(), timeout=10_000)
    assert "cannot be shown: its trace is not loaded here any more" in lesson.evidence.text()
