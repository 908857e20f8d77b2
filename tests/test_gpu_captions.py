"""The race view and the SM timeline say what the GPU recorder found: the kernel's result without
recording, and recorded block times that cannot show residency."""

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

import gpuviz  # noqa: E402
from gpuviz.app.views.table import make_view  # noqa: E402
from gpuviz.scene.state import AppState  # noqa: E402

RACE = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1\n"


def _shown(qtbot, name, trace):
    state = AppState()
    view = make_view(name, state)
    qtbot.addWidget(view)
    state.set_trace(trace, [trace])
    return view


def test_the_race_view_shows_the_result_without_recording_next_to_the_recorded_one(qtbot):
    trace = gpuviz.trace(RACE, backend="sim")[2, 64](np.zeros(1, np.int64))
    trace.outcomes["a.plain"] = np.array([17], np.int64)
    text = _shown(qtbot, "races", trace).outcomes.text()
    assert f"a: recorded [{trace.after('a')[0]}]; without recording [17]" in text
    assert "Set repeat above 1" in text


def test_the_timeline_says_when_recorded_times_show_more_blocks_than_an_sm_holds(qtbot):
    trace = gpuviz.trace(RACE, backend="sim", level="threads")[3, 1024](np.zeros(1, np.int64))
    trace.meta["device_facts"] = {**trace.device_facts, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32}
    trace.meta["time_source"] = "globaltimer"
    trace.threads["sm"][:] = 0
    trace.threads["t_start"][:] = np.repeat([0, 10, 90], 1024)
    trace.threads["t_end"][:] = np.repeat([100, 130, 200], 1024)
    caption = _shown(qtbot, "timeline", trace).caption.text()
    assert "up to 3 blocks of 1,024 threads on one SM at once, but an SM holds at most 2" in caption
