"""The app in a classroom: it fits a 1280x720 projector through a lesson, one font scale reaches
every view's text (labels, plot axes, plot text items, cell labels), and a script runs with its own
launch unless the launch is explicitly overridden."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetricsF

from gpuviz.app.control import document
from gpuviz.app.window import appearance, screen_fit
from gpuviz.backends.sim.device import PRESETS
from tests.test_app import RUN_TIMEOUT, pick, run_and_wait, window  # noqa: F401  (the fixture)

PROJECTOR = QSize(1280, 720)


def within(size: QSize, bound: QSize) -> bool:
    return size.width() <= bound.width() and size.height() <= bound.height()


@pytest.mark.slow
def test_window_fits_a_projector_through_a_lesson(qtbot, window):  # noqa: F811
    window.resize(1500, 900)
    screen_fit.fit(window, PROJECTOR)
    steps = {"start": lambda: None, "picked": lambda: pick(window, "one-cell-per-thread"),
             "ran": lambda: run_and_wait(qtbot, window),
             "committed": lambda: commit_first_choice(qtbot, window),
             "answered": lambda: qtbot.mouseClick(window.views["lesson"].answer_button, Qt.MouseButton.LeftButton),
             "selected": lambda: window.state.select(last_thread(window.state.trace)),
             "presenting": window.look.toggle_presentation, "bigger text": lambda: window.look.zoom(3),
             "back": window.look.toggle_presentation}  # fmt: skip
    for step, act in steps.items():
        act()
        qtbot.wait(50)
        assert within(window.size(), PROJECTOR), f"{step}: window {window.size().toTuple()}"
        # Nothing inside asks for more than the projector: the window is not squeezed, it fits.
        assert within(window.minimumSizeHint(), PROJECTOR), f"{step}: needs {window.minimumSizeHint().toTuple()}"
    assert "Thread" in window.views["record"].title.text()


def commit_first_choice(qtbot, win) -> None:
    """Any prediction (the first choice, or 1 in every number box), committed with a click."""
    predict = win.views["lesson"].predict
    if predict.choice_buttons:
        predict.choice_buttons[0].click()
    for box in predict.number_boxes:
        box.setText("1")
    qtbot.mouseClick(predict.commit_button, Qt.MouseButton.LeftButton)


def last_thread(trace) -> int:
    return int(np.prod(trace.grid)) * int(np.prod(trace.block)) - 1


def rendered_height(item: pg.TextItem) -> float:
    """The height a text item draws, less the fixed margin around its text."""
    return item.textItem.boundingRect().height() - 2 * item.textItem.document().documentMargin()


def text_heights(win) -> dict[str, float]:
    """Rendered text heights in a label, the editor, a plot axis, a plot text item and a cell label."""
    win.status.ensurePolished()
    axis = win.views["timeline"].plot.getPlotItem().getAxis("bottom")
    texts = [item for item in win.views["memory"].findChild(pg.GraphicsView).scene().items()
             if isinstance(item, pg.TextItem)]  # fmt: skip
    cells = [item for item in win.views["data"].values.items if item.isVisible()]
    return {
        "label": win.status.fontInfo().pixelSize(),
        "editor": win.editor.fontInfo().pixelSize(),
        "axis": QFontMetricsF(axis.style["tickFont"]).height() if axis.style["tickFont"] else 0,
        "text item": rendered_height(texts[0]),
        "cell label": rendered_height(cells[0]),
    }


def test_font_scale_reaches_every_view(qtbot, window):  # noqa: F811
    pick(window, "host-and-device")
    assert run_and_wait(qtbot, window) is True
    window.tabs.setCurrentWidget(window.views["data"])
    window.views["data"].view.setRange(xRange=(0, 3), yRange=(0, 3), padding=0)  # cells big enough for values
    qtbot.wait(100)
    window.look.zoom(0)
    before = text_heights(window)
    for _ in range(4):
        window.look.zoom(1)
    qtbot.wait(100)
    after = text_heights(window)
    for what, height in before.items():
        assert height > 0 and after[what] >= 1.5 * height, f"{what}: {height} -> {after[what]}"
    window.look.zoom(0)
    assert text_heights(window)["label"] == before["label"]
    assert appearance.scale() == 1.0


def test_presentation_mode_and_theme(qtbot, window):  # noqa: F811
    docks_before = {dock for dock in window.findChildren(pg.QtWidgets.QDockWidget) if dock.isVisible()}
    window.look.toggle_presentation()
    shown = {dock.objectName() for dock in window.findChildren(pg.QtWidgets.QDockWidget) if dock.isVisible()}
    assert shown == set() and window.stage.bar.isVisible()  # the stage: the picture, and one row of controls
    window.stage.toggle_lesson()
    shown = {dock.objectName() for dock in window.findChildren(pg.QtWidgets.QDockWidget) if dock.isVisible()}
    assert shown == {"Lesson"}
    assert appearance.scale() == pytest.approx(appearance.PRESENTATION_SCALE * window.look.font_scale, abs=0.01)
    window.look.toggle_presentation()
    assert {dock for dock in window.findChildren(pg.QtWidgets.QDockWidget) if dock.isVisible()} == docks_before
    window.look.set_theme("light")
    assert "#f3f3f6" in window.styleSheet()
    window.look.set_theme("dark")
    assert "#1b1c24" in window.styleSheet()


def test_script_launch_is_kept_unless_overridden(qtbot, window):  # noqa: F811
    pick(window, "mandelbrot")  # the Mandelbrot lesson launches [(4, 3), (16, 16)]
    launch = window.launch
    assert [box.value() for box in launch.grid + launch.block] == [4, 3, 1, 16, 16, 1]
    assert not launch.overridden() and launch.launch_picker.currentText().startswith("mandelbrot[(4, 3), (16, 16)]")
    launch.block[0].setValue(8)  # touched, not overridden: the script's launch runs
    assert "Override" in launch.hint.text()
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.grid == (4, 3, 1) and window.state.trace.block == (16, 16, 1)
    assert "overridden" not in window.status.text() and "overridden" not in window.state.output
    launch.override.setChecked(True)
    launch.grid[0].setValue(8)
    launch.grid[1].setValue(6)
    launch.block[0].setValue(8)
    launch.block[1].setValue(8)
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.grid == (8, 6, 1) and window.state.trace.block == (8, 8, 1)
    assert "overridden" in window.status.text() and "launch 1 overridden" in window.state.output


def test_running_shows_busy_progress_and_time(qtbot, window):  # noqa: F811
    pick(window, "vector add")
    seen = []
    window.runs.progress.connect(lambda progress: seen.append(
        (progress.done, progress.total, window.run_button.text(), window.stop_button.property("busy"),
         window.feedback.bar.isVisibleTo(window), window.feedback.bar.value())))  # fmt: skip
    assert run_and_wait(qtbot, window) is True
    assert seen, "no progress reached the window"
    done, total, text, busy, bar_shown, value = seen[-1]
    assert done == total == 40 and value == 40 and bar_shown
    assert text.startswith("Running...") and busy is True
    assert window.run_button.text() == "Run" and not window.stop_button.property("busy")
    assert not window.feedback.bar.isVisibleTo(window) and window.feedback.clock.text().startswith("last run")


def test_a_run_shorter_than_a_tick_shows_its_own_time(window, monkeypatch):  # noqa: F811
    from gpuviz.app.control import run_feedback

    now = [100.0]
    monkeypatch.setattr(run_feedback.time, "monotonic", lambda: now[0])
    window.feedback.set_running(True)
    now[0] += 0.47  # over before the clock's first tick
    window.feedback.set_running(False)
    assert window.feedback.clock.text() == "last run 0.5 s"


def test_a_compile_in_mid_run_turns_the_bar_busy_and_the_count_starts_again(qtbot, window):  # noqa: F811
    """The default engine may run part of a launch on the vector engine, then compile the fast path (a stage
    with no blocks to count) and run the launch there: the bar must not stand at the old count and time."""
    from gpuviz.core.events import Progress, Stage

    feedback = window.feedback
    feedback.set_running(True)
    feedback.on_progress(Progress(1024, 4096), now=0.0)
    feedback.on_progress(Progress(2048, 4096), now=5.0)
    assert (feedback.bar.maximum(), feedback.bar.value()) == (4096, 2048) and "left" in feedback.bar.format()
    window.runs.stage.emit(Stage("compiling", "compiling matmul_tiled for the fast path (once: kept on disk)..."))
    assert feedback.bar.maximum() == 0 and feedback.bar.format() == ""  # busy, with nothing counted
    assert "compiling matmul_tiled" in feedback.bar.toolTip() and "compiling matmul_tiled" in window.status.text()
    feedback.on_progress(Progress(256, 4096), now=20.0)
    assert (feedback.bar.maximum(), feedback.bar.value()) == (4096, 256) and "left" not in feedback.bar.format()
    assert "blocks" in feedback.bar.toolTip()
    feedback.set_running(False)


def test_on_the_stage_a_run_shows_its_time_bar_words_and_stop(qtbot, window, tmp_path):  # noqa: F811
    """Presentation mode hides the launch panel and the status bar: the stage must show the run (its time on Run,
    a bar of blocks and Stop on the row, what it is doing over the picture), then give the transport its place
    back."""
    from gpuviz.core.events import Progress, Stage

    pick(window, "vector add")
    window.look.toggle_presentation()
    row, animation = window.stage.bar, window.views["animation"]
    assert animation.isVisibleTo(window) and not row.stop_button.isVisibleTo(window)
    seen = []
    window.runs.progress.connect(lambda progress: seen.append(
        (row.run_button.text(), row.stop_button.isVisibleTo(window), row.progress.isVisibleTo(window),
         row.progress.value(), window.stage.caption._text, animation.isVisibleTo(window))))  # fmt: skip
    with qtbot.waitSignal(window.runs.finished, timeout=RUN_TIMEOUT):
        qtbot.mouseClick(row.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.runner.loader.idle, timeout=RUN_TIMEOUT)
    assert seen, "no progress reached the window"
    text, stop_shown, bar_shown, value, words, transport_shown = seen[-1]
    assert text.startswith("Running...") and stop_shown and bar_shown and value == 40 and not transport_shown
    assert "running vecadd" in words.split("<br>")[0]
    assert row.run_button.text() == "Run" and not row.stop_button.isVisibleTo(window)
    assert "running vecadd" not in window.stage.caption._text
    assert animation.isVisibleTo(window) and not row.progress.isVisibleTo(window)
    window.feedback.set_running(True)  # a compile in mid-run: a busy bar cannot say it, the caption does
    window.stage.set_running(True)
    window.runs.stage.emit(Stage("running", "running matmul_tiled (1,048,576 threads)"))
    window.runs.stage.emit(Stage("compiling", "compiling matmul_tiled for the fast path (once: kept on disk)..."))
    assert row.progress.maximum() == 0 and "compiling matmul_tiled" in window.stage.caption._text.split("<br>")[0]
    window.feedback.on_progress(Progress(256, 4096))  # counting again: the run's own words are back
    assert row.progress.value() == 256 and "running matmul_tiled" in window.stage.caption._text.split("<br>")[0]
    window.feedback.set_running(False)
    window.stage.set_running(False)
    script = tmp_path / "endless.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef spin(a):\n"
                      "    while a[0] >= 0:\n        a[1] = a[1] + 1\na = np.zeros(2)\nspin[1, 32](a)\n")  # fmt: skip
    window.open_path(script)
    qtbot.mouseClick(row.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "running spin" in window.stage.caption._text, timeout=RUN_TIMEOUT)
    with qtbot.waitSignal(window.runs.finished, timeout=RUN_TIMEOUT) as blocker:
        qtbot.mouseClick(row.stop_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [False] and not row.stop_button.isVisibleTo(window)
    window.look.toggle_presentation()
    assert animation.isVisibleTo(window)


CONTROLS = (pg.QtWidgets.QAbstractButton, pg.QtWidgets.QComboBox, pg.QtWidgets.QAbstractSpinBox,
            pg.QtWidgets.QAbstractSlider, pg.QtWidgets.QListWidget)  # fmt: skip


def test_every_control_has_a_tooltip_and_f1_lists_the_keys(qtbot, window):  # noqa: F811
    controls = [
        w
        for w in window.findChildren(pg.QtWidgets.QWidget)
        if isinstance(w, CONTROLS)  # Qt's own parts aside
        and not isinstance(w, pg.QtWidgets.QScrollBar)
        and not w.objectName().startswith(("qt_", "Scroll"))
    ]
    bare = sorted({f"{type(w).__name__} {w.objectName() or getattr(w, 'text', lambda: '')()}" for w in controls
                   if not w.toolTip()})  # fmt: skip
    assert not bare, f"controls without a tooltip: {bare}"
    assert "Welcome" in window.status.text() and "first lesson" in window.editor.placeholderText()
    assert "Pick the first lesson" in window.views["lesson"].text.toPlainText()
    window.help.toggle()
    assert window.help.isVisible()
    for keys in ("Ctrl+R", "F5", "F1", "Ctrl+S", "Ctrl+="):
        assert keys in window.help.text.text()
    qtbot.keyClick(window.help, Qt.Key.Key_Escape)
    assert not window.help.isVisible()


def test_preferences_reach_the_run(qtbot, window, monkeypatch):  # noqa: F811
    from gpuviz.app.window.preferences import Preferences

    chosen = Preferences(theme="light", font_scale=1.3, backend="sim", device=next(iter(PRESETS)),
                         keep_traces=True, run_timeout=30, memory_budget_mib=512)  # fmt: skip
    chosen.save()
    assert Preferences.load() == chosen
    window.apply_preferences(chosen)
    assert appearance.scale() == pytest.approx(1.3) and "#f3f3f6" in window.styleSheet()
    assert window.launch.backend_name() == "sim"
    requests = []
    monkeypatch.setattr(window.runs, "start", requests.append)
    pick(window, "one-thread")
    window.run()
    request = requests[0]
    assert request.timeout == 30 and request.options.memory_budget == 512 << 20
    assert request.options.device == chosen.device and request.options.backend == "sim"
    assert Path(request.out_dir).is_relative_to(document.data_dir("traces"))
    window.runner.running_changed.emit(False)
