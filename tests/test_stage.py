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
    pick(window, "grid-3d")
    commit_any_prediction(lesson.predict)
    assert run_and_wait(qtbot, window) is True
    answer(qtbot, window)
    assert window.state.trace is not None and window.state.caption and window.banner.isVisibleTo(window)
    assert lesson.verdict.text() and lesson.evidence.text()
    pick(window, "segmented-reduction")
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
    pick(window, "grid-3d")
    assert run_and_wait(qtbot, window) is True  # a run before the prediction
    commit_any_prediction(lesson.predict)
    assert "Now press Run" in lesson.verdict.text() and not lesson.answer_button.isEnabled()
    pick(window, "matmul")
    commit_any_prediction(lesson.predict)
    assert "Now press Run" in lesson.verdict.text()  # the last lesson's run never judges this one
    assert run_and_wait(qtbot, window) is True
    assert "The run" in lesson.verdict.text() and lesson.answer_button.isEnabled()
    assert window.state.lesson_of_run(window.state.run) is window.state.entry


def test_opening_a_script_leaves_lesson_mode(qtbot, window):  # noqa: F811
    pick(window, "grid-3d")
    assert window.state.entry is not None
    window.open_path(EXAMPLES / "vector_add.py")
    assert window.state.entry is None and window.state.trace is None and window.state.caption == ""
    assert not window.views["lesson"].predict.isVisibleTo(window)
    assert "def vecadd" in window.editor.toPlainText()


def test_show_the_answer_says_why_when_the_evidence_launch_cannot_come(qtbot, window):  # noqa: F811
    lesson = window.views["lesson"]
    pick(window, "divergence-cost")  # its evidence is on its first launch; the run shows its last
    commit_any_prediction(lesson.predict)
    assert run_and_wait(qtbot, window) is True
    window.runner.paths = []  # the run's files are gone (as after another script was picked and this one restored)
    lesson.show_answer()
    qtbot.waitUntil(lambda: "Loading" not in lesson.evidence.text(), timeout=10_000)
    assert "cannot be shown: its trace is not loaded here any more" in lesson.evidence.text()


# ---- the stage: presentation mode at a projector's 1280x720 ---------------------------------------------
import numpy as np  # noqa: E402
from PySide6.QtCore import QPoint, QRect, Qt  # noqa: E402
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel  # noqa: E402

import gpuviz  # noqa: E402
from gpuviz.app.window import screen_fit  # noqa: E402

PICTURES = ("grid", "data", "timeline")  # a view box: the picture drawn
COMPOSITE = ("compare", "memory", "story", "races")  # tables, text and small plots: the view's whole area
RACY = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    a[0] += 1.0\n    b[i] = i\n"


@pytest.fixture
def stage(qtbot, tmp_path, monkeypatch, request):
    """A window at 1280x720 on the stage, showing a racy launch of a two-launch run, with a caption."""
    from PySide6.QtCore import QSize

    from gpuviz.app.window.main_window import MainWindow

    theme, scale = request.param
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    win = MainWindow()
    qtbot.addWidget(win)
    screen_fit.fit(win, QSize(1280, 720))
    win.resize(1280, 720)
    win.look.set_theme(theme)
    win.look.font_scale = scale
    win.show()
    win.look.toggle_presentation()
    launches = [gpuviz.trace(RACY, backend="sim")[4, 64](np.zeros(1), np.zeros(256)) for _ in range(2)]
    win.state.set_trace(launches[0], launches)
    win.state.set_caption("Every thread read 0 and wrote 1: the race lost the updates of the others, as the "
                          "story shows, and the races panel lists where.")  # fmt: skip
    qtbot.waitUntil(lambda: win.stage.caption.isVisible(), timeout=10_000)
    yield win
    win.document.editor.document().setModified(False)
    win.close()


def drawing_share(win, name: str) -> float:
    """The share of the window the view's drawing covers, less what the caption over it hides."""
    import pyqtgraph as pg

    view = win.views[name]
    rect = QRect(view.mapTo(win, QPoint(0, 0)), view.size())
    if name in PICTURES:
        graphics = max((g for g in view.findChildren(pg.GraphicsView) if g.isVisible()), key=lambda g: g.width())
        box = max((i for i in graphics.scene().items() if isinstance(i, pg.ViewBox) and i.isVisible()),
                  key=lambda b: b.sceneBoundingRect().width())  # fmt: skip
        shape = graphics.mapFromScene(box.sceneBoundingRect()).boundingRect()
        rect = QRect(graphics.mapTo(win, shape.topLeft()), shape.size())
    rect = rect.intersected(win.rect())
    caption = win.stage.caption
    hidden = QRect(caption.mapTo(win, QPoint(0, 0)), caption.size()).intersected(rect)
    hidden = hidden if caption.isVisible() else QRect()
    return (rect.width() * rect.height() - hidden.width() * hidden.height()) / (win.width() * win.height())


def cut_texts(win) -> list[str]:
    """Visible labels, buttons and choices whose text does not fit them: a one-line text wider than its widget,
    a wrapped one taller. (The caption over the picture is two lines by design, its whole text one click away.)"""
    cut = []
    for widget in win.findChildren(QLabel) + win.findChildren(QAbstractButton) + win.findChildren(QComboBox):
        if not widget.isVisibleTo(win) or widget.width() <= 1 or widget is win.stage.caption:
            continue
        if isinstance(widget, QLabel):
            text = widget.text()
            fits = (widget.heightForWidth(widget.width()) <= widget.height() + 2 if widget.wordWrap()
                    else widget.sizeHint().width() <= widget.width() + 2)  # fmt: skip
        else:
            text = widget.currentText() if isinstance(widget, QComboBox) else widget.text().replace("&", "")
            arrow = 20 if isinstance(widget, QComboBox) else 0
            fits = widget.fontMetrics().horizontalAdvance(text) <= widget.contentsRect().width() - arrow
        if text and not fits:
            cut.append(f"{type(widget).__name__} {text[:40]!r}")
    return cut


SETTINGS = [("dark", 1.0), ("light", 1.0), ("dark", 2.0), ("light", 2.0)]


@pytest.mark.parametrize("stage", SETTINGS, indirect=True, ids=lambda s: f"{s[0]}-{s[1]}")
def test_on_the_stage_every_view_in_front_fills_most_of_the_window_and_no_text_is_cut(qtbot, stage):
    assert stage.stage.caption.lines_shown() <= 2  # collapsed
    assert stage.size().toTuple() == (1280, 720) and stage.minimumSizeHint().width() <= 1280  # not squeezed
    shares = {}
    for name in PICTURES + COMPOSITE:
        stage.stage.bring(name)
        qtbot.wait(20)
        assert stage.tabs.currentWidget() is stage.views[name]
        shares[name] = round(drawing_share(stage, name), 3)
        assert cut_texts(stage) == [], name
    assert min(shares.values()) >= 0.65, shares


@pytest.mark.parametrize("stage", [("dark", 1.0)], indirect=True, ids=["dark"])
def test_number_keys_bring_views_to_the_stage_and_text_boxes_keep_their_digits(qtbot, stage):
    stage.activateWindow()
    qtbot.waitUntil(stage.isActiveWindow, timeout=10_000)  # one-key shortcuts act in the active window
    stage.tabs.setFocus()
    for key, name in ((Qt.Key.Key_2, "data"), (Qt.Key.Key_4, "story"), (Qt.Key.Key_6, "races"), (Qt.Key.Key_1, "grid")):
        qtbot.keyClick(stage.tabs, key)
        assert stage.tabs.currentWidget() is stage.views[name]
    qtbot.keyClick(stage.tabs, Qt.Key.Key_L)  # the lesson text comes
    lesson_box = stage.views["lesson"].predict
    assert stage.views["lesson"].isVisibleTo(stage)
    stage.look.toggle_presentation()  # back to everyday: digits go to the editor
    stage.editor.setFocus()
    qtbot.keyClicks(stage.editor, "x = 23")
    assert "x = 23" in stage.editor.toPlainText() and stage.tabs.currentWidget() is stage.views["grid"]
    assert lesson_box is stage.views["lesson"].predict


@pytest.mark.parametrize("stage", [("light", 1.0)], indirect=True, ids=["light"])
def test_the_caption_opens_whole_and_the_stage_gives_the_everyday_window_back(qtbot, stage):
    caption = stage.stage.caption
    collapsed = caption.height()
    qtbot.mouseClick(caption, Qt.MouseButton.LeftButton)
    assert caption.height() >= collapsed and caption.expanded
    qtbot.keyClick(stage.tabs, Qt.Key.Key_C)
    assert not caption.expanded
    assert not stage.menuBar().isVisible() and not stage.tabs.tabBar().isVisible()
    stage.set_status("error: something went wrong", error=True)
    assert "something went wrong" in caption.text()
    stage.look.toggle_presentation()
    assert stage.menuBar().isVisible() and stage.tabs.tabBar().isVisible() and stage.statusBar().isVisible()
    assert not caption.isVisible() and stage.banner.isVisible()
    assert stage.tabs.indexOf(stage.views["story"]) < 0  # the Element story is back in its panel
    assert stage.views["animation"].isVisibleTo(stage)


@pytest.mark.slow
def test_race_then_one_cell_then_race_leaves_nothing_of_the_other_lesson(qtbot, window):  # noqa: F811
    """The classroom trial's own sequence, at the tutorials' sizes: the race's verdict and evidence never
    show under lesson 02, nor lesson 02's under the race."""
    lesson = window.views["lesson"]
    pick(window, "the-race")
    lesson.predict.choice_buttons[1].click()
    lesson.predict.commit()
    assert run_and_wait(qtbot, window) is True
    assert "Right" in lesson.verdict.text()
    pick(window, "one-cell-per-thread")
    assert window.state.trace is None and lesson.verdict.text() == "" and window.state.caption == ""
    commit_any_prediction(lesson.predict)
    assert "Now press Run" in lesson.verdict.text()  # the race's run does not judge it
    pick(window, "the-race")
    assert window.state.trace is None and lesson.verdict.text() == "" and not lesson.predict.locked
    lesson.predict.choice_buttons[1].click()
    lesson.predict.commit()
    assert "Now press Run" in lesson.verdict.text() and not lesson.answer_button.isEnabled()


def test_a_panel_a_lesson_opened_on_the_stage_closes_with_the_next_lesson(qtbot, window):  # noqa: F811
    """Lesson 4's evidence is in the Output panel: on the stage it opens beside the picture, and the next
    lesson's stage is the picture alone again."""
    from PySide6.QtWidgets import QDockWidget

    from gpuviz.app.views.table import BY_NAME

    window.look.toggle_presentation()
    output = window.findChild(QDockWidget, BY_NAME["output"].title)
    pick(window, "too-many-threads")
    window.state.request_view("output")
    assert output.isVisibleTo(window)
    pick(window, "add-arrays")
    assert not output.isVisibleTo(window) and window.stage.on


@pytest.mark.parametrize("stage", [("dark", 2.0)], indirect=True, ids=["dark-2.0"])
def test_the_caption_is_below_a_picture_of_cells_and_over_an_axis(qtbot, stage):
    """The Threads view's cells reach its bottom edge: the caption goes below them, so the last row of blocks
    shows. The SM timeline's bottom edge is an axis: the caption covers it, and the picture keeps its size."""
    import pyqtgraph as pg

    caption = stage.stage.caption
    for name, below in (("grid", True), ("timeline", False), ("data", True)):
        stage.stage.bring(name)
        qtbot.wait(20)
        graphics = max((g for g in stage.views[name].findChildren(pg.GraphicsView) if g.isVisible()),
                       key=lambda g: g.width())  # fmt: skip
        bottom = graphics.mapTo(stage, QPoint(0, graphics.height())).y()
        top = caption.mapTo(stage, QPoint(0, 0)).y()
        assert (bottom <= top + 1) == below, (name, bottom, top)


@pytest.mark.parametrize("stage", [("dark", 1.0)], indirect=True, ids=["dark"])
def test_a_run_that_stopped_with_nothing_to_show_has_its_whole_error_on_the_stage_once(qtbot, stage):
    from gpuviz.scene.scene import Scene

    caption = stage.stage.caption
    why = "k: no progress: threads of block 0 spin on line 7, reading flag[0] = 0 over and over " * 3
    stage.state.apply(Scene(stopped=why))  # as the run controller does when a run fails before any launch
    stage.set_status(f"error: {why}", error=True)
    assert caption.whole and caption.lines_shown() > 2 and caption.text().count("spin on line 7") == 3
    grid_caption = stage.views["grid"].caption
    assert grid_caption.property("error") and grid_caption.text().startswith("The run stopped before any launch")
    launches = [gpuviz.trace(RACY, backend="sim")[4, 64](np.zeros(1), np.zeros(256))]
    stage.state.set_trace(launches[0], launches)  # the next run shows a picture: the caption gives it the room
    stage.set_status("finished", error=False)
    assert not caption.whole and not stage.state.stopped and not grid_caption.property("error")
