"""The launch editor's choices reach the run: the device a student picks decides the trace's device
facts, its SMs and its occupancy, and is remembered."""

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from gpuviz.app.window.preferences import Preferences
from gpuviz.backends.sim.device import PRESETS
from gpuviz.core.analysis import occupancy
from tests.test_app import run_and_wait, window  # noqa: F401  (the fixture)

# 100 blocks of 640 threads (20 warps): an H200-like SM holds 3 of them, a T4-like one only 1.
SCRIPT = """import numpy as np
from numba import cuda

@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i

a = np.zeros(64000, np.float32)
fill[100, 640](a)
"""


def pick_device(window, name):  # noqa: F811
    box = window.launch.device_choice
    box.setCurrentIndex(box.findData(name))
    box.activated.emit(box.currentIndex())  # as a click on the item does


def open_script(window, tmp_path):  # noqa: F811
    path = tmp_path / "fill.py"
    path.write_text(SCRIPT)
    window.open_path(path)


def test_the_device_picked_reaches_the_trace_and_is_remembered(qtbot, window, tmp_path):  # noqa: F811
    window.launch.backend.setCurrentIndex(window.launch.backend.findData("sim"))
    assert window.launch.device_choice.isVisibleTo(window) and window.launch.device_name() == "h200"
    open_script(window, tmp_path)
    assert run_and_wait(qtbot, window) is True
    default = window.state.trace
    assert default.device_facts["sm_count"] == 132 and occupancy.theoretical(default)["blocks"] == 3

    pick_device(window, "t4")
    assert "T4" in window.launch.device.text() and "40 SMs" in window.launch.device.text()
    assert run_and_wait(qtbot, window) is True
    trace = window.state.trace
    assert trace.device_facts["sm_count"] == 40 and trace.device_facts["name"] == PRESETS["t4"].name
    assert trace.threads["sm"].max() < 40 < default.threads["sm"].max()
    assert occupancy.theoretical(trace)["blocks"] == 1 and occupancy.theoretical(trace)["occupancy"] == 20 / 32
    assert "ran on: gpuviz simulator (T4-like): 40 SMs" in window.launch.device.text()
    assert Preferences.load().device == "t4"  # the next session starts with it


def test_the_preferences_device_shows_in_the_launch_editor(qtbot, window):  # noqa: F811
    window.apply_preferences(Preferences(backend="sim", device="a100"))
    assert window.launch.device_name() == "a100" and "108 SMs" in window.launch.device.text()
    assert window._run_options().device == "a100"


def test_no_device_choice_on_a_real_gpu(qtbot, window, monkeypatch):  # noqa: F811
    from gpuviz.app.window import main_window

    facts = {"name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32}
    monkeypatch.setattr(main_window, "backend_for", lambda options: "gpu")
    monkeypatch.setattr(main_window, "facts_for", lambda options: facts)
    window._show_device()
    assert not window.launch.device_choice.isVisibleTo(window)
    assert "NVIDIA H100 80GB HBM3: 132 SMs" in window.launch.device.text()


def test_the_busy_bar_says_blocks_done_and_time_left(qtbot, window):  # noqa: F811
    from gpuviz.core.events import Progress

    window.feedback.set_running(True)
    bar = window.feedback.bar
    assert bar.isVisibleTo(window) and bar.text() == ""  # no count before the first message
    window.runs.progress.emit(Progress(100, 1000))  # as the worker's message arrives
    assert bar.text() == "blocks 100 of 1,000"  # the rate is not known yet
    started = window.feedback.launch.started
    window.feedback.on_progress(Progress(300, 1000), now=started + 2.0)  # 100 blocks a second
    assert bar.text() == "blocks 300 of 1,000, about 7 s left" and bar.value() == 300
    window.feedback.set_running(False)
    assert not bar.isVisibleTo(window)


# ---- asking before a big launch ------------------------------------------------------------------------
BIG = SCRIPT.replace("fill[100, 640](a)", "fill[56, 256](a)").replace("64000", "14336")  # 14,336 threads


def press_when_shown(qtbot, label, asked):
    """Press the dialog's button `label` once it is up (it runs its own event loop), noting its text."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def press():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, press)
            return
        asked.append((box.text(), [b.text() for b in box.buttons()]))
        next(b for b in box.buttons() if b.text() == label).click()

    QTimer.singleShot(0, press)


@pytest.fixture
def small_budget(window, tmp_path):  # noqa: F811
    """1 MiB: every thread of BIG fits (728 KiB), its accesses do not (434 KiB more)."""
    window.apply_preferences(Preferences(backend="sim", memory_budget_mib=1))
    path = tmp_path / "big.py"
    path.write_text(BIG)
    window.open_path(path)
    return window


def test_go_on_records_every_thread_and_the_first_and_last_blocks_accesses(qtbot, small_budget):
    asked = []
    press_when_shown(qtbot, "Go on", asked)
    assert run_and_wait(qtbot, small_budget) is True
    text, buttons = asked[0]
    assert sorted(buttons) == ["Cancel", "Go on", "Record threads only"]  # (their order is the platform's)
    assert "fill launches 14,336 threads" in text and "memory budget of 1.0 MiB" in text
    assert "accesses only for the first and last blocks" in text
    trace = small_budget.state.trace
    assert trace.n_threads == 14336 and trace.meta["recorded_blocks"] == [0, 55]
    assert set(np.unique(trace.accesses["thread"] // 256)) == {0, 55} and len(trace.accesses["thread"]) == 512
    assert "first and last blocks only" in small_budget.status.text()


def test_threads_only_records_no_access(qtbot, small_budget):
    asked = []
    press_when_shown(qtbot, "Record threads only", asked)
    assert run_and_wait(qtbot, small_budget) is True
    trace = small_budget.state.trace
    assert trace.meta["level"] == "threads" and trace.n_threads == 14336
    assert "threads only" in small_budget.state.output


def test_cancel_starts_no_worker(qtbot, small_budget, monkeypatch):
    asked, started = [], []
    monkeypatch.setattr(small_budget.runs, "start", started.append)
    press_when_shown(qtbot, "Cancel", asked)
    small_budget.run()
    assert asked and not started and "not run" in small_budget.status.text()


def test_a_launch_no_budget_holds_is_refused_before_it_starts(qtbot, window, monkeypatch, tmp_path):  # noqa: F811
    window.apply_preferences(Preferences(backend="sim", memory_budget_mib=1))
    path = tmp_path / "huge.py"
    path.write_text(SCRIPT.replace("fill[100, 640](a)", "fill[1024, 1024](a)"))
    window.open_path(path)
    asked, started = [], []
    monkeypatch.setattr(window.runs, "start", started.append)
    press_when_shown(qtbot, "Cancel", asked)
    window.run()
    text, buttons = asked[0]
    assert buttons == ["Cancel"] and "would be refused" in text and "1,048,576 threads" in text
    assert not started


def test_a_launch_that_fits_is_not_asked_about(qtbot, window, monkeypatch, tmp_path):  # noqa: F811
    from gpuviz.app.control import launch_check

    monkeypatch.setattr(launch_check, "choose", lambda *args: pytest.fail("asked about a small launch"))
    open_script(window, tmp_path)
    started = []
    monkeypatch.setattr(window.runs, "start", started.append)
    window.run()
    assert started and started[0].options.blocks == () and started[0].options.level == "auto"
    window.runner.running_changed.emit(False)


def test_the_device_choice_never_widens_the_launch_panel(qtbot, window):  # noqa: F811
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QDockWidget

    from gpuviz.app.window import screen_fit

    window.launch.backend.setCurrentIndex(window.launch.backend.findData("sim"))
    screen_fit.fit(window, QSize(1280, 720))
    window.resize(1280, 720)
    scroll = window.findChild(QDockWidget, "Launch").widget()
    for name in PRESETS:
        pick_device(window, name)
        qtbot.wait(20)
        assert not scroll.horizontalScrollBar().isVisible(), f"{name}: the launch panel scrolls sideways"


def test_the_guard_is_offered_for_gpu_runs_only_and_reaches_the_run(qtbot, window):  # noqa: F811
    from gpuviz.app.widgets.launch_editor import LaunchEditor

    editor = LaunchEditor(None)  # a machine with a usable GPU
    qtbot.addWidget(editor)
    editor.guard.setChecked(True)
    for backend, offered in (("auto", True), ("gpu", True), ("sim", False)):
        editor.backend.setCurrentIndex(editor.backend.findData(backend))
        assert editor.guard.isEnabled() is offered and editor.guarded() is offered
    without = LaunchEditor("no NVIDIA driver")
    qtbot.addWidget(without)
    without.guard.setChecked(True)
    assert not without.guard.isEnabled() and not without.guarded()

    window.launch.backend.setCurrentIndex(window.launch.backend.findData("sim"))
    window.launch.guard.setChecked(True)
    assert window._run_options().guard is False  # the simulator checks every access anyway
    window.launch.gpu_usable = True  # as where a GPU is usable
    window.launch.backend.setCurrentIndex(window.launch.backend.findData("gpu"))
    assert window._run_options().guard is True


def test_the_gpu_fault_line_names_the_apps_switch():
    from gpuviz.app.widgets.launch_editor import GUARD_LABEL
    from gpuviz.backends.gpu.backend import raise_if_faulted
    from gpuviz.core.errors import GpuvizError

    with pytest.raises(GpuvizError, match=r"CUDA_ERROR_ILLEGAL_ADDRESS") as raised:
        raise_if_faulted(RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS"), "k")
    assert f'"{GUARD_LABEL}"' in str(raised.value) and "\n" not in str(raised.value)
