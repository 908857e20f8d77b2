"""The Streams view draws a run's copies and kernels per stream; a click on a bar says what it was."""

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtCore import Qt  # noqa: E402

from gpuviz.app.views.table import make_view  # noqa: E402
from gpuviz.catalog import find  # noqa: E402
from gpuviz.core.marks import Focus, resolve_mark  # noqa: E402
from gpuviz.core.streams import COPY_IN, KERNEL  # noqa: E402
from gpuviz.run.demo import run_demo  # noqa: E402
from gpuviz.scene.state import AppState  # noqa: E402


def test_the_view_shows_each_stream_and_a_click_names_the_bar(qtbot, tmp_path):
    result = run_demo(find("tiny-data"), out_dir=tmp_path)
    traces = result.session.traces
    state = AppState()
    view = make_view("streams", state)
    qtbot.addWidget(view)
    view.resize(1000, 500)
    view.show()
    state.set_trace(traces[0], traces, run=state.begin_run())
    assert view.placed.rows == ("host: compile", "default stream: copies", "default stream: kernels")
    assert len(view.timeline.spans) == 8  # the first launch's trace: 3 copies in, the compile, the kernel, 3 out
    state.set_streams(state.run, result.session.timeline.snapshot())
    assert len(view.timeline.spans) == 15 and "1 stream(s)" in view.caption.text()
    kernel = [i for i, s in enumerate(view.timeline.spans) if s.kind == KERNEL][-1]
    before = view.detail.text()
    x0, width, row = view._box(kernel)
    box = view.plot.plotItem.vb
    point = box.mapViewToScene(pg_point(x0 + width / 2, row))
    qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=view.plot.mapFromScene(point))
    assert view.detail.text() != before and view.detail.text().startswith("kernel add on the default stream")
    assert view.detail.text().endswith("(model)")
    copy = [i for i, s in enumerate(view.timeline.spans) if s.kind == COPY_IN][0]
    assert "4,000 bytes from pageable memory" in view.describe(copy)


def test_marks_on_spans_are_outlined_with_their_call_out(qtbot, tmp_path):
    result = run_demo(find("tiny-data"), out_dir=tmp_path)
    trace = result.session.traces[-1]
    state = AppState()
    view = make_view("streams", state)
    qtbot.addWidget(view)
    state.set_trace(trace, [trace])
    items = len(view._items)
    mark = resolve_mark("copies", trace, None, Focus())
    state.marks = (mark,)
    state.marks_changed.emit(state.marks)
    assert len(view._items) == items + 2  # the outlines (one item) and the call-out
    assert mark.label == "12 copies: 364.4 µs in all (model)"


def pg_point(x, y):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)
