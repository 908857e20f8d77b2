"""Whatever damaged trace the reader accepts, every view draws it: no exception inside a Qt slot."""

from __future__ import annotations

from functools import cache

import pytest

pytest.importorskip("hypothesis", reason="fuzzing needs Hypothesis (the test extras)")

from hypothesis import given, settings
from hypothesis import strategies as st

import gpuviz
from gpuviz.core.errors import GpuvizError

from .test_fuzz import BUDGET, EXAMPLES, HEALTH, damaged, folder
from .trace_files import write_raw

pytest.importorskip("PySide6", reason="the views need PySide6")


@cache
def views():
    from gpuviz.app.views.table import VIEWS, make_view
    from gpuviz.scene.state import AppState

    state = AppState()
    built = [make_view(spec.name, state) for spec in VIEWS]
    for widget in built:
        widget.resize(400, 300)
        widget.show()
    return state, built


@pytest.mark.usefixtures("qapp")
@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=HEALTH)
@given(damage=damaged(), thread=st.integers(0, 63), frame=st.integers(-5, 10**6))
def test_accepted_traces_draw_in_every_view(damage, thread, frame):
    columns, raw = damage
    path = write_raw(folder() / "for-views.npz", columns, raw)
    try:
        trace = gpuviz.load(path, BUDGET)
    except GpuvizError:
        return  # refused in one line: the reader's tests check that
    state, _ = views()
    state.set_trace(trace)
    state.select(min(thread, trace.n_threads - 1))
    state.set_frame(frame)
    state.set_trace(None)
