"""The app, driven as a person would: pick, change the launch, run, click, play, stop."""

import multiprocessing

import numpy as np
import pytest
from PySide6.QtCore import Qt

import gpuviz
from gpuviz.app.main_window import MainWindow
from gpuviz.core.frames import MAX_FRAMES
from gpuviz.core.layout import grid_layout

RUN_TIMEOUT = 60_000


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    yield win
    win.close()
    assert not multiprocessing.active_children(), "a worker process outlived the window"


def pick(win, name):
    for row in range(win.catalog.count()):
        if win.catalog.item(row).text().lower().startswith(name):
            win.catalog.setCurrentRow(row)
            return
    raise AssertionError(f"no catalog entry {name}")


def run_and_wait(qtbot, win):
    with qtbot.waitSignal(win.runs.finished, timeout=RUN_TIMEOUT) as blocker:
        qtbot.mouseClick(win.run_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def click_cell(qtbot, win, gid):
    grid = win.grid
    scene_point = grid.view.mapViewToScene(grid.cell_center(gid))
    widget_point = grid.graphics.mapFromScene(scene_point)
    qtbot.mouseClick(grid.graphics.viewport(), Qt.MouseButton.LeftButton, pos=widget_point)


def test_pick_change_launch_run_and_inspect(qtbot, window):
    pick(window, "vector add")
    assert "def vecadd" in window.editor.toPlainText()
    assert run_and_wait(qtbot, window) is True
    trace = window.state.trace
    assert trace.kernel == "vecadd" and trace.grid == (40, 1, 1)
    # Change the launch: half as many threads per block, covering the same 10,000 elements.
    window.launch.block[0].setValue(128)
    window.launch.cover.setValue(10_000)
    qtbot.mouseClick(window.launch.cover_button, Qt.MouseButton.LeftButton)
    assert window.launch.grid[0].value() == 79
    assert "10,112</b> threads" in window.launch.counts.text()
    assert run_and_wait(qtbot, window) is True
    trace = window.state.trace
    assert trace.grid == (79, 1, 1) and trace.block == (128, 1, 1)
    layout = grid_layout(trace.grid, trace.block)
    assert window.grid.cells_shape == (layout.height, layout.width)
    owners = window.grid._owner
    assert (owners >= 0).sum() == 79 * 128  # every thread has its cell, blocks are apart
    assert "79 blocks of 128" in window.grid.caption.text()
    # Clicking a cell selects that thread, and the record shows it.
    click_cell(qtbot, window, 1000)
    assert window.state.selected == 1000
    assert "Thread 1,000" in window.record.title.text()
    text = window.record.body.text()
    assert "(7, 0, 0)" in text and "(104, 0, 0)" in text and "c[1000]" in text


def test_animation_plays_and_steps(qtbot, window):
    pick(window, "racy counter")
    assert run_and_wait(qtbot, window) is True
    frames = window.grid.frames
    assert frames == min(64 * 8, MAX_FRAMES) and window.state.frame == frames - 1  # logical: a frame a warp
    window.animation.step(-1)
    assert window.state.frame == frames - 2
    window.animation.order.setCurrentText("as executed")  # one wave on 132 SMs: all start at once
    assert window.grid.frames == 1 and window.state.frame == 0
    window.animation.order.setCurrentText("logical")
    window.state.set_frame(0)
    lit_at_start = window.grid.lit_threads()
    qtbot.keyClick(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: window.state.frame >= 2, timeout=5000)
    window.animation.pause()
    assert window.grid.lit_threads() > lit_at_start
    window.animation.colour.setCurrentText("SM")
    assert "Colour by SM" in window.legend.text()


def test_stop_an_endless_kernel_and_run_again(qtbot, window, tmp_path):
    script = tmp_path / "endless.py"
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef spin(a):\n"
        "    while a[0] >= 0:\n        a[1] = a[1] + 1\na = np.zeros(2)\nspin[1, 32](a)\n"
    )
    window.open_path(script)
    qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "running spin" in window.status.text(), timeout=RUN_TIMEOUT)
    with qtbot.waitSignal(window.runs.finished, timeout=1000) as blocker:
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [False] and window.status.text() == "stopped"
    pick(window, "grid 2d")
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.kernel == "scale_2d"


def test_invalid_launch_is_refused_on_the_spot(qtbot, window):
    pick(window, "vector add")
    window.launch.block[0].setValue(2048)
    assert window.launch.message.text() == "block has 2048 threads; at most 1024 threads per block are allowed"
    assert not window.run_button.isEnabled()
    window.run()  # Ctrl+R anyway: refused with the same message
    assert "at most 1024 threads per block" in window.status.text() and not window.runs.running
    window.launch.block[0].setValue(256)
    assert window.run_button.isEnabled() and window.launch.message.text() == ""


def test_kernel_error_marks_the_line_and_the_app_goes_on(qtbot, window, tmp_path):
    script = tmp_path / "float_index.py"  # out-of-bounds accesses are recorded, not fatal: a float index is
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n"
        "    a[i / 2] = 1\nk[2, 64](np.zeros(100))\n"
    )
    window.open_path(script)
    assert run_and_wait(qtbot, window) is False
    assert "line 6: index 0.0 into 'a' is a float" in window.status.text()
    assert window.editor.error_line == 6
    pick(window, "grid 3d")
    assert run_and_wait(qtbot, window) is True


def test_open_a_saved_trace_and_bad_files(qtbot, window, tmp_path):
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    path = gpuviz.trace(source, backend="sim")[(2, 2, 2), (4, 4)](np.zeros(128)).save(tmp_path / "t.npz")
    window.open_path(path)
    assert window.state.trace.grid == (2, 2, 2)
    assert "layer z=0 of 2" in window.grid.caption.text()
    assert window.animation.layer.isEnabled() and window.animation.layer.maximum() == 1
    window.animation.layer.setValue(1)
    assert "layer z=1 of 2" in window.grid.caption.text()
    click_cell(qtbot, window, 64 + 5)
    assert window.state.selected == 69
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    window.open_path(bad)
    assert window.status.text().startswith("error: bad.npz is not a gpuviz trace")
    assert window.state.trace.grid == (2, 2, 2)  # what was open stays open


def test_lesson_asks_runs_and_points_at_the_evidence(qtbot, window):
    pick(window, "02. a race")
    window.launch.repeat.setValue(3)
    assert "Predict" in window.lesson.text.toPlainText()
    assert "What will array[0] be?" in window.lesson.text.toPlainText()
    assert not window.lesson.answer_button.isEnabled()
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.meta["device_facts"]["sm_count"] == 8  # the lesson's 8 virtual SMs
    qtbot.mouseClick(window.lesson.answer_button, Qt.MouseButton.LeftButton)
    assert "Far less than 32,768" in window.lesson.text.toPlainText()
    assert window.state.selected >= 0 and window.state.colour_mode == "value written"
    assert window.state.order == "by SM waves" and window.animation.order.currentText() == "by SM waves"
    assert "racing with thread" in window.lesson.evidence.text()
    assert window.state.trace.outcomes["array.runs"].shape == (3, 2)
    assert "over 3 runs" in window.races.outcomes.text()


def test_a_launch_edited_before_the_first_run_is_used(qtbot, window):
    pick(window, "vector add")
    window.launch.set_launch((3, 1, 1), (64, 1, 1))
    window._on_launch_changed(window.launch.config())  # as typing in the editor does
    assert run_and_wait(qtbot, window) is False  # the script's own check fails: too few threads
    trace = window.state.trace
    assert trace.grid == (3, 1, 1) and trace.block == (64, 1, 1)
    assert "raised AssertionError" in window.status.text() and window.editor.error_line > 0


def test_layers_have_their_own_frames(qtbot, window, tmp_path):
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = gpuviz.trace(source, backend="sim", sms=1)[(1, 1, 4), 1024](np.zeros(4096))
    window.open_path(trace.save(tmp_path / "t.npz"))
    window.animation.order.setCurrentText("as executed")
    window.animation.layer.setValue(3)
    assert window.animation.slider.maximum() == window.grid.frames - 1
    assert window.grid.lit_threads() == 1024  # the whole layer shown at the last frame
