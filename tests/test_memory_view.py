"""The memory view: per-line cost table, occupancy, divergence, and the selected warp's request."""

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from gpuviz.app.views.table import make_view  # noqa: E402
from gpuviz.core.analysis.report import analyse  # noqa: E402
from gpuviz.scene.state import AppState  # noqa: E402

TILE = """
from numba import cuda, float32

@cuda.jit
def transpose(a, b):
    tile = cuda.shared.array((8, 9), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 8 + ty, cuda.blockIdx.x * 8 + tx]
    cuda.syncthreads()
    b[cuda.blockIdx.x * 8 + ty, cuda.blockIdx.y * 8 + tx] = tile[tx, ty]
"""


@pytest.fixture
def shown(qtbot, sim_run):
    a, b = np.arange(16 * 16, dtype=np.float32).reshape(16, 16), np.zeros((16, 16), np.float32)
    trace = sim_run(TILE, (2, 2), (8, 8), a, b)
    trace.analysis = analyse(trace)
    state = AppState()
    view = make_view("memory", state)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    state.set_trace(trace)
    return state, view


def cell(view, row, column):
    from gpuviz.app.views.memory_view import COLUMNS

    return view.table.item(row, COLUMNS.index(column)).text()


def test_table_lists_each_line_and_array_with_its_cost(shown):
    state, view = shown
    assert view.table.rowCount() == len(state.trace.analysis["memory"]["lines"]) == 4
    shared = [r for r in range(4) if cell(view, r, "space") == "shared"]
    assert [cell(view, r, "conflicts or turns") for r in shared] == ["2-way, mean 2.00"] * 2
    assert "tile[ty, tx]" in cell(view, shared[0], "code")
    assert (
        "Theoretical occupancy 100%" in view.theoretical_words.text()
        and "warps per SM" in view.theoretical_words.text()
    )


def test_default_focus_is_the_costliest_line_with_its_request(shown):
    _, view = shown
    assert "2-way bank conflict" in view.detail.text() and "tile" in view.detail.text()


def test_picking_a_row_and_a_thread_draws_that_warps_request(qtbot, shown):
    state, view = shown
    row = next(r for r in range(4) if cell(view, r, "array") == "a")
    view.table.selectRow(row)
    assert state.line == int(cell(view, row, "line"))
    state.select(64 + 40)  # block 1, warp 1
    assert view.detail.text().startswith("warp 3, line")
    request = view.requests[view.execution.value() - 1]
    assert request.array == "a" and (request.cost, request.ideal) == (4, 4)
    assert "4</b> sectors where 4 would do" in view.detail.text()


def test_no_trace_and_threads_level(qtbot, sim_run):
    state = AppState()
    view = make_view("memory", state)
    qtbot.addWidget(view)
    state.set_trace(None)
    assert view.table.rowCount() == 0
    trace = sim_run(TILE, (2, 2), (8, 8), np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32),
                    level="threads")  # fmt: skip
    state.set_trace(trace)
    assert "No access log" in view.divergence.text() and view.table.rowCount() == 0


def test_divergence_names_the_selected_warps_paths(qtbot, sim_run):
    source = TILE.replace("    tile[ty, tx] = a", "    if tx % 2 == 0:\n        tile[ty, tx] = a")
    a, b = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32)
    trace = sim_run(source, (2, 2), (8, 8), a, b)
    state = AppState()
    view = make_view("memory", state)
    qtbot.addWidget(view)
    state.set_trace(trace)
    state.select(1)
    text = view.divergence.text()
    assert "<b>Warp 0</b>: 2 path(s) (lines, with accesses per lane): " in text
    assert "even lanes 0-30: line 10 x2, line 12 x2; odd lanes 1-31: line 12 x2" in text
