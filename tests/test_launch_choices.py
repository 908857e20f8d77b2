"""The launch editor's choices reach the run: the device a student picks decides the trace's device
facts, its SMs and its occupancy, and is remembered."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from gpuviz.app.preferences import Preferences
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
    from gpuviz.app import main_window

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
