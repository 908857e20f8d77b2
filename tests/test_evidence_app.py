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


def test_the_divergence_lesson_goes_back_to_its_first_launch_and_raises_the_compare_view(qtbot, window):  # noqa: F811
    pick(window, "divergence-cost")
    assert run_and_wait(qtbot, window) is True
    assert window.state.launch_index() == 1  # the run shows its last launch...
    window.tabs.setCurrentWidget(window.views["grid"])
    caption = answer(qtbot, window)
    state = window.state
    assert state.launch_index() == 0 and state.trace.kernel == "by_lane"  # ...the evidence is on the first
    assert "1,564 cycles (model)" in caption
    assert window.tabs.currentWidget() is window.views["compare"]


def test_the_warps_lesson_raises_the_memory_tab_at_its_line(qtbot, window):  # noqa: F811
    pick(window, "warps")
    assert run_and_wait(qtbot, window) is True
    window.tabs.setCurrentWidget(window.views["grid"])
    caption = answer(qtbot, window)
    state = window.state
    assert "line 11" in caption and "16 active lanes" in caption
    assert window.tabs.currentWidget() is window.views["memory"]
    assert state.line == 11 and state.selected == 0 and state.order == "replay" and state.frame == 1
    assert "lanes" in window.views["memory"].detail.text()


def test_the_barrier_lesson_stops_the_replay_where_the_block_waits(qtbot, window):  # noqa: F811
    pick(window, "barrier-divergence")
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
    pick(window, "grid-3d")
    assert run_and_wait(qtbot, window) is True
    answer(qtbot, window)
    state = window.state
    assert state.layer == 1 and window.views["animation"].layer.value() == 1
    assert state.trace.threads["block_idx"][state.selected].tolist() == [2, 1, 1]
    assert state.trace.threads["thread_idx"][state.selected].tolist() == [3, 0, 2]
    assert state.colour_mode == "value written" and window.tabs.currentWidget() is window.views["grid"]


def test_the_answer_outlines_the_threads_of_the_claim_and_says_what_they_share(qtbot, window):  # noqa: F811
    """The histogram lesson's evidence: the threads that read bins[0] are outlined in the grid, coloured by
    the value they read, with a call-out that counts them; the data view rings bins[0]."""
    pick(window, "histogram")
    assert run_and_wait(qtbot, window) is True
    answer(qtbot, window)
    state, grid, data = window.state, window.views["grid"], window.views["data"]
    assert state.colour_mode == "value read" and state.marks
    readers = state.marks[0]
    assert readers.label.endswith("read bins[0]: all saw 0") and readers.count > 1
    assert grid.marks.outlined() >= 1 and readers.label in grid.marks.callout_text()
    assert "read bins[0] = 0" in grid.marks.callout_text()  # the colours' meaning, beside the marks
    box = grid.marks.bounds()  # every reader's cell inside the outlines
    for gid in readers.threads[:20]:
        assert box.contains(grid.cell_center(int(gid)))
    window.tabs.setCurrentWidget(data)
    qtbot.waitUntil(lambda: not data.busy(), timeout=RUN_TIMEOUT)
    assert data.marks.outlined() == 1 and "bins[0] = " in data.marks.callout_text()
    pick(window, "segmented-reduction")  # the next lesson: no mark of this one stays
    assert state.marks == () and grid.marks.outlined() == 0 and not grid.marks.callout_text()


def test_the_timeline_draws_only_the_sms_a_launch_used(qtbot, window):  # noqa: F811
    import numpy as np

    import gpuviz

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1.0\n"
    trace = gpuviz.trace(src, backend="sim")[3, 32](np.zeros(96))
    window.state.set_trace(trace)
    timeline = window.views["timeline"]
    window.tabs.setCurrentWidget(timeline)
    qtbot.waitUntil(lambda: timeline.spans is not None, timeout=RUN_TIMEOUT)
    used = sorted(set(timeline.spans[0].tolist()))
    ticks = timeline.plot.getAxis("left")._tickLevels[0]
    assert [label for _, label in ticks] == [str(sm) for sm in used]  # whole SM numbers, one row each
    assert [row for row, _ in ticks] == list(range(len(used)))
    total = trace.meta["sm_count"]
    assert f"{total - len(used)} of the device's {total} SMs ran no block" in timeline.caption.text()


def test_an_array_no_thread_writes_is_drawn_by_its_reads(qtbot, window):  # noqa: F811
    """matmul's A: all dark by its writers; drawn by how often each element is read, and the combo says so;
    the writers' colours come back for an array that is written."""
    import numpy as np

    import gpuviz
    from gpuviz.core.data_codes import NOT_READ, READ_HIGH, READ_LOW, read_code

    src = "from numba import cuda\n@cuda.jit\ndef k(a, b):\n    i = cuda.grid(1)\n    b[i] = a[i % 4] + a[0]\n"
    trace = gpuviz.trace(src, backend="sim")[2, 32](np.arange(8.0), np.zeros(64))
    data = window.views["data"]
    window.tabs.setCurrentWidget(data)
    window.state.set_trace(trace)
    data.array.setCurrentIndex(data.array.findData(0))  # a
    qtbot.waitUntil(lambda: not data.busy() and data._last is not None, timeout=RUN_TIMEOUT)
    assert data.mode.currentText() == "times read"
    codes = data._final_codes
    assert codes[0] == READ_HIGH and READ_LOW <= codes[1] < READ_HIGH and codes[4] == NOT_READ  # a[0]: 80 reads
    legend = [text for _, text in data.legend_items()]
    assert legend[0] == "never read" and legend[1:] == ["read once", "read 80 times"]  # many counts: the ramp's ends
    few = gpuviz.trace(src.replace("a[i % 4] + a[0]", "a[i % 4] + a[i % 2] + a[i % 3]"), backend="sim")[1, 3](
        np.arange(8.0), np.zeros(3))  # fmt: skip
    window.state.set_trace(few)  # a[0] read 4 times, a[1] 3 times, a[2] twice, a[3] never
    data.array.setCurrentIndex(data.array.findData(0))
    qtbot.waitUntil(lambda: not data.busy() and data._last is not None, timeout=RUN_TIMEOUT)
    legend = data.legend_items()  # few counts: each named, once included (a replay passes through it)
    assert [text for _, text in legend] == ["never read", "read once", "read twice", "read 3 times", "read 4 times"]
    assert list(data._final_codes[:4]) == [read_code(4, 4), read_code(3, 4), read_code(2, 4), NOT_READ]
    assert len({rgb for rgb, _ in legend}) == len(legend)  # each count its own colour
    window.state.set_trace(trace)
    data.array.setCurrentIndex(data.array.findData(0))
    qtbot.waitUntil(lambda: not data.busy() and data._last is not None, timeout=RUN_TIMEOUT)
    data.array.setCurrentIndex(data.array.findData(1))  # b, written
    qtbot.waitUntil(lambda: not data.busy(), timeout=RUN_TIMEOUT)
    assert data.mode.currentText() == "writer's block"


def test_a_mark_too_small_to_see_gets_a_ring_until_zoomed_in(qtbot):
    """One cell of a big grid is a few pixels: its mark gets a ring RING_PIXELS wide around it, to be found from
    the back of a room; zoomed in so the cell itself is large, the ring goes."""
    import numpy as np
    import pyqtgraph as pg

    from gpuviz.app.widgets.mark_outlines import RING_PIXELS, MarkOutlines

    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    widget.resize(640, 480)
    view = widget.addViewBox()
    marks = MarkOutlines(view)
    widget.show()
    qtbot.waitExposed(widget)
    view.disableAutoRange()
    view.setRange(pg.QtCore.QRectF(0, 0, 1024, 768), padding=0)  # a cell is under a pixel
    marks.show([("one thread", np.array([10]), np.array([20])), ("a block", np.arange(64), np.zeros(64, int))])
    assert marks.ringed() == 1  # the one cell, not the 64-cell row
    view.setRange(pg.QtCore.QRectF(0, 0, 8, 6), padding=0)  # a cell now spans far more than RING_PIXELS
    qtbot.waitUntil(lambda: marks.ringed() == 0, timeout=2000)
    assert view.width() / 8 > RING_PIXELS
