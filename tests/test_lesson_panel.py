"""The lesson panel driven as a student would: commit a prediction, run, see whether the run agrees;
check a fix in the app; progress kept across restarts; a teacher's folder of lessons in the catalog."""

import json
import multiprocessing
import shutil

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from pathlib import Path

from PySide6.QtCore import Qt

from gpuviz.app.window.main_window import MainWindow
from gpuviz.app.window.preferences import Preferences
from gpuviz.app.window.settings import data_dir
from gpuviz.catalog import find
from gpuviz.catalog.student_progress import ProgressBook
from gpuviz.cli import main
from tests.test_app import RUN_TIMEOUT, pick, run_and_wait, window  # noqa: F401  (the fixture)

FIXES = Path(__file__).parent / "lesson_fixes"


def click(qtbot, button):
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def progress() -> dict:
    return json.loads((data_dir() / "progress.json").read_text())["lessons"]


def test_a_number_is_committed_locked_and_held_against_the_run(qtbot, window):  # noqa: F811
    pick(window, "occupancy")
    lesson = window.views["lesson"]
    predict = lesson.predict
    assert len(predict.number_boxes) == 1 and not predict.commit_button.isEnabled()
    predict.number_boxes[0].setText("many")
    assert not predict.commit_button.isEnabled()  # not a number
    assert run_and_wait(qtbot, window) is True
    assert not lesson.answer_button.isEnabled()  # ran, but nothing committed: the answer stays hidden
    assert "196 KiB" not in lesson.text.toPlainText() and lesson.verdict.text() == ""
    predict.number_boxes[0].setText("4")
    click(qtbot, predict.commit_button)
    assert predict.locked and not predict.number_boxes[0].isEnabled() and predict.commit_button.text() == "Committed"
    # The run on screen began before the prediction: it cannot judge it (nor give the answer away).
    assert "Now press Run" in lesson.verdict.text() and not lesson.answer_button.isEnabled()
    assert run_and_wait(qtbot, window) is True
    assert "The run agrees with you" in lesson.verdict.text() and "the run gave 4 (a match)" in lesson.verdict.text()
    assert lesson.answer_button.isEnabled()
    click(qtbot, lesson.answer_button)
    assert "4 x 49 KiB = 196 KiB" in lesson.text.toPlainText()
    saved = progress()[find("occupancy").slug]
    assert saved["ran"] and saved["right"] and saved["run_matched"] and "4" in saved["prediction"]
    assert (
        "✓" in window.catalog.item(find("occupancy").number - 1).text()
        and "predicted ✓" in window.catalog.item(find("occupancy").number - 1).text()
    )


def test_a_choice_committed_before_run_waits_for_the_run(qtbot, window):  # noqa: F811
    pick(window, "grid-3d")
    lesson = window.views["lesson"]
    lesson.predict.choice_buttons[0].click()  # "(11, 4, 6)": not the answer
    click(qtbot, lesson.predict.commit_button)
    assert "Now press Run" in lesson.verdict.text() and not lesson.answer_button.isEnabled()
    assert run_and_wait(qtbot, window) is True
    assert "Not what the lesson says" in lesson.verdict.text() and "That is not the answer" in lesson.verdict.text()
    assert lesson.answer_button.isEnabled()
    pick(window, "segmented-reduction")  # another lesson: a fresh, unlocked prediction
    pick(window, "grid-3d")
    assert not lesson.predict.locked and lesson.predict.picked() == -1 and lesson.verdict.text() == ""
    assert progress()[find("grid-3d").slug]["right"] is False


def check_fix(qtbot, win, text: str) -> str:
    win.editor.setPlainText(text)
    fix = win.views["lesson"].fix
    with qtbot.waitSignal(win.course.fixes.checked, timeout=RUN_TIMEOUT):
        click(qtbot, fix.button)
        assert "Running your code" in fix.result.text()
        qtbot.waitUntil(lambda: bool(multiprocessing.active_children()), timeout=RUN_TIMEOUT)  # in a worker
    return fix.result.text()


def test_check_my_fix_runs_the_editors_code_in_a_worker(qtbot, window):  # noqa: F811
    pick(window, "scan")
    lesson = window.views["lesson"]
    fix = lesson.fix
    assert not fix.isVisibleTo(lesson)  # the fix step comes with the answer, which says what to change
    lesson.predict.choice_buttons[1].click()
    click(qtbot, lesson.predict.commit_button)
    assert run_and_wait(qtbot, window) is True
    click(qtbot, lesson.answer_button)
    assert fix.isVisibleTo(lesson) and fix.button.isEnabled() and "Check my fix" in lesson.text.toPlainText()
    unfixed = check_fix(qtbot, window, find("scan").source)
    assert "Not fixed yet" in unfixed and "✗&nbsp;</span> races == 0 &nbsp;(the run: <b>62</b>)" in unfixed
    assert (
        progress()[find("scan").slug]["fix_passed"] is False
        and "fix ✗" in window.catalog.item(find("scan").number - 1).text()
    )
    fixed = check_fix(qtbot, window, (FIXES / "scan.py").read_text())
    assert "Fix passed" in fixed and "reference: ok" in fixed and "✗" not in fixed
    assert "✓&nbsp;</span> races == 0 &nbsp;(the run: <b>0</b>)" in fixed and "(the run: <b>64</b>)" in fixed
    assert (
        progress()[find("scan").slug]["fix_passed"] is True
        and "fix ✓" in window.catalog.item(find("scan").number - 1).text()
    )
    broken = window.editor.toPlainText().replace("def inclusive_scan", "def inclusive_scan(:")
    window.editor.setPlainText(broken)
    with qtbot.waitSignal(window.course.fixes.failed, timeout=RUN_TIMEOUT):
        click(qtbot, fix.button)
    assert "did not run" in fix.result.text() and fix.button.isEnabled()
    pick(window, "segmented-reduction")
    assert not fix.isVisibleTo(window.views["lesson"])  # no bug, no fix to check


def test_progress_is_restored_and_a_corrupt_file_starts_afresh(qtbot, tmp_path):
    book = ProgressBook(data_dir() / "progress.json")
    book.update(find("one-thread").slug, ran=True, prediction="0.5 in every element", right=True)
    book.update(find("scan").slug, ran=True, fix_passed=False)
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.catalog.item(0).text().startswith("01. One thread, one loop   ✓  predicted ✓")
    assert "▶  fix ✗" in win.catalog.item(find("scan").number - 1).text() and "✓" not in win.catalog.item(1).text()
    win.close()
    (data_dir() / "progress.json").write_text("{not json")
    win = MainWindow()
    qtbot.addWidget(win)
    assert "could not be read" in win.status.text() and "starting afresh" in win.status.text()
    assert "✓" not in win.catalog.item(0).text()
    win.course.book.update(find("one-cell-per-thread").slug, ran=True)  # the next change writes a good file
    assert list(progress()) == [find("one-cell-per-thread").slug]
    win.close()


def teacher_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my_lessons"
    folder.mkdir()
    for suffix in (".py", ".md"):
        shutil.copy(find("occupancy").path.with_suffix(suffix), folder / f"01-my-reduction{suffix}")
    text = (folder / "01-my-reduction.md").read_text().replace("# Occupancy and its limits", "# My own reduction")
    (folder / "01-my-reduction.md").write_text(text)
    return folder


def test_a_teachers_lessons_follow_the_built_in_ones(qtbot, tmp_path):
    folder = teacher_folder(tmp_path)
    win = MainWindow(lessons=str(folder))
    qtbot.addWidget(win)
    rows = [win.catalog.item(row).text() for row in range(win.catalog.count())]
    built_in = sum(1 for entry in win.catalog.entries if entry.path.parent == find("one-thread").path.parent)
    assert rows[built_in].startswith("01. My own reduction")
    win.catalog.setCurrentRow(built_in)
    assert "My own reduction" in win.views["lesson"].text.toPlainText()
    assert len(win.views["lesson"].predict.number_boxes) == 1
    win.close()


def test_the_lessons_folder_preference_and_a_bad_folder(qtbot, tmp_path):
    win = MainWindow()
    qtbot.addWidget(win)
    count = win.catalog.count()
    win.apply_preferences(Preferences(lessons_folder=str(tmp_path / "nowhere")))
    assert win.status.text().startswith("error: --lessons") and win.catalog.count() == count
    win.apply_preferences(Preferences(lessons_folder=str(teacher_folder(tmp_path))))
    assert win.catalog.count() == count + 1 and "1 lesson(s) from" in win.status.text()
    win.close()


def test_the_app_command_refuses_a_missing_lessons_folder(capsys, tmp_path):
    assert main(["app", "--lessons", str(tmp_path / "nowhere")]) == 1
    assert "error: --lessons" in capsys.readouterr().err


def test_the_preferences_dialog_keeps_the_lessons_folder(qtbot, tmp_path):
    from gpuviz.app.window.preferences import PreferencesDialog

    dialog = PreferencesDialog(Preferences(lessons_folder="/somewhere"))
    qtbot.addWidget(dialog)
    assert dialog.chosen().lessons_folder == "/somewhere"
    dialog.lessons_folder.setText(f"  {tmp_path}  ")
    chosen = dialog.chosen()
    chosen.save()
    assert Preferences.load().lessons_folder == str(tmp_path)


def test_a_long_choice_wraps_instead_of_widening_the_panel_and_its_words_pick_it(qtbot):
    """vector-add-bounds's choices are long sentences: the box stays narrow enough for a projector's docks."""
    from PySide6.QtWidgets import QLabel

    from gpuviz.app.widgets.prediction_box import PredictionBox

    box = PredictionBox()
    qtbot.addWidget(box)
    box.set_prediction(find("vector-add-bounds").prediction)
    box.resize(320, 400)
    box.show()
    assert box.minimumSizeHint().width() < 250
    words = [
        label
        for label in box.findChildren(QLabel)
        if label.text().startswith("they read and write past the end of the arrays, and the check still")
    ]
    qtbot.mouseClick(words[0], Qt.MouseButton.LeftButton)
    assert box.picked() == 2 and box.commit_button.isEnabled()


def test_the_course_needs_only_the_panels_it_wires(qtbot, tmp_path):
    """Built from stand-ins, with no main window: progress reaches the book and the catalog's marks, a bad
    teacher's folder is one status line, and a fix is checked on the code and backend it is given."""
    from gpuviz.app.control.course import Course
    from gpuviz.app.views.lesson_view import LessonView
    from gpuviz.app.widgets.catalog_panel import CatalogPanel
    from gpuviz.catalog import catalog
    from gpuviz.scene.state import AppState

    state, said, checked = AppState(), [], []
    lesson, panel = LessonView(state), CatalogPanel()
    qtbot.addWidget(lesson)
    qtbot.addWidget(panel)
    panel.set_entries(catalog())
    course = Course(lesson, panel, state, lambda text, error=False: said.append((text, error)),
                    lambda: "the editor's code", lambda: "sim")  # fmt: skip
    course.fixes.check = lambda entry, code, backend: checked.append((entry.name, code, backend))
    entry = find("the-race")
    lesson.progress_made.emit(entry.name, {"ran": True})
    assert course.book.get(entry.name).ran
    lesson.fix_check_requested.emit(entry)
    assert checked == [(entry.name, "the editor's code", "sim")]
    assert not course.load_lessons(tmp_path / "no such folder")
    assert said and said[-1][1] and "no such folder" in said[-1][0]
    course.close()


def test_the_answer_of_a_gpu_run_states_this_cards_times(qtbot, window):  # noqa: F811
    """A run on a GPU carries each kernel's plain time (backends/gpu/plain.py): the answer lists them,
    labelled with the card and the day; a simulated run's answer has no such part."""
    pick(window, "transpose")
    lesson = window.views["lesson"]
    for box in lesson.predict.number_boxes:
        box.setText("32")
    click(qtbot, lesson.predict.commit_button)
    assert run_and_wait(qtbot, window) is True
    click(qtbot, lesson.answer_button)
    assert "On this GPU" not in lesson.text.toPlainText()
    for trace in window.state.launches:  # as a GPU run would have them
        trace.meta["plain_time"] = {"ms": 0.25, "launches": 5, "card": "NVIDIA H200", "date": "2026-11-26"}
    click(qtbot, lesson.answer_button)
    shown = lesson.text.toPlainText()
    assert "On this GPU" in shown and shown.count("0.25 ms (measured: NVIDIA H200, 2026-11-26)") == len(
        window.state.launches
    )
