"""The explaining views, each on a real kernel, linked through one state; export and `gpuviz render`."""

import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtCore import QPointF, Qt

import gpuviz
from gpuviz.app.pictures.picture import PictureOptions
from gpuviz.app.pictures.render import render_picture
from gpuviz.app.views.table import PICTURE_VIEWS, VIEWS, make_view
from gpuviz.catalog import find
from gpuviz.cli import main
from gpuviz.run.demo import run_demo
from gpuviz.scene.scene import scene_at
from gpuviz.scene.state import AppState

HISTOGRAMS = Path(__file__).parent / "data" / "racy_and_atomic_histogram.py"  # lesson 11 with its fix, as two launches

HISTOGRAM = """
from numba import cuda

@cuda.jit
def histogram_racy(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1
"""


@pytest.fixture
def histogram_trace():
    data = np.arange(512, dtype=np.int32)
    return gpuviz.trace(HISTOGRAM, backend="sim", sms=2, repeat=4)[4, 128](data, np.zeros(8, np.int32))


@pytest.fixture
def views(qtbot, histogram_trace):
    state = AppState()
    built = {name: make_view(name, state) for name in PICTURE_VIEWS}
    for widget in built.values():
        qtbot.addWidget(widget)
        widget.resize(900, 600)
        widget.show()
    state.set_trace(histogram_trace, [histogram_trace])
    return state, built


def click_view(qtbot, graphics, view_box, point):
    scene = view_box.mapViewToScene(point)
    qtbot.mouseClick(graphics.viewport(), Qt.MouseButton.LeftButton, pos=graphics.mapFromScene(scene))


def test_selecting_a_thread_lights_up_every_view(views):
    state, v = views
    state.select(130)  # block 1, thread 2: reads data[130], updates bins[2]
    assert v["grid"].marker.isVisible()
    written = v["data"].writes.getData()
    assert v["data"].current_array() == 1 and list(written[0]) == [2.5]  # bins[2] marked
    assert v["code"].thread_lines == {8} and v["code"].counts == {8: 3}
    assert len(v["timeline"].highlight.opts["x0"]) == 1
    assert "Thread 130" not in v["races"].summary.text()


def test_clicking_an_element_bar_race_and_line_selects_everywhere(qtbot, views):
    state, v = views
    data = v["data"]
    click_view(qtbot, data.graphics, data.view, QPointF(3.5, 0.5))
    assert state.element == (1, 3, None)
    assert "bins[3]" in data.describe(3) and "written by" in data.describe(3)
    timeline = v["timeline"]
    sm, start, end = timeline.spans
    height = 0.9 / timeline.rows
    bar = QPointF((start[3] + end[3]) / 2, sm[3] - 0.45 + (timeline.slots[3] + 0.5) * height)
    click_view(qtbot, timeline.plot, timeline.plot.plotItem.vb, bar)
    assert state.selected == 3 * 128
    races = v["races"]
    assert races.races.count() == 8  # all eight bins race
    races.races.setCurrentRow(5)
    race = races.report.races[5]
    assert state.element == (1, race.index, None) and state.selected >= 0
    state.select_line(8)
    assert len(data.writes.getData()[0]) == 8  # every bin is accessed on line 8


def test_race_view_shows_outcomes_of_repeated_runs(views):
    state, v = views
    races = v["races"]
    assert "races: 8 locations in 1 array" in races.summary.text()
    text = races.outcomes.text()
    assert "over 4 runs" in text and "one thread at a time gives <b>64</b>" in text
    assert "lost updates per run" in text


def test_racy_versus_fixed_comparison(qtbot, tmp_path):
    result = run_demo(replace(find("histogram"), path=HISTOGRAMS), tmp_path, backend="sim")
    state = AppState()
    view = make_view("races", state)
    qtbot.addWidget(view)
    state.set_trace(result.session.traces[0], result.session.traces)
    assert "histogram_atomic" in view.compare.text() and "of 16 elements differ" in view.compare.text()


def test_views_on_a_tiled_matmul_and_a_3d_trace(qtbot, tmp_path):
    result = run_demo(find("matmul"), tmp_path, backend="sim")
    state = AppState()
    data = make_view("data", state)
    qtbot.addWidget(data)
    state.set_trace(result.session.traces[1])
    assert data.array.currentText().startswith("C (global")  # the first array written
    data.array.setCurrentIndex(data.array.findData(3))
    assert data.array.currentText().startswith("sA (shared") and "block 0's copy" in data.caption.text()
    state.select(64 * 4 + 9)  # a thread of block 4: the view switches to that block's copy
    assert "block 4's copy" in data.caption.text()
    volume = run_demo(find("grid-3d"), tmp_path / "v", backend="sim").session.traces[0]
    state.set_trace(volume)
    assert data.slice.isEnabled() and data.slice.maximum() == 5


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_every_view_exports(histogram_trace, tmp_path, suffix):
    scene = scene_at(histogram_trace)
    for name in PICTURE_VIEWS:
        path = render_picture(scene, name, tmp_path / f"{name}{suffix}", PictureOptions((900, 600)))
        content = path.read_bytes()
        if suffix == ".png":
            assert content.startswith(b"\x89PNG\r\n\x1a\n") and len(content) > 2000, name
        else:
            root = ElementTree.fromstring(content)
            assert root.tag.endswith("svg") and len(list(root.iter())) > 10, name
    with pytest.raises(gpuviz.GpuvizError, match="use a .png or .svg"):
        render_picture(scene, "grid", tmp_path / "view.jpg")


@pytest.mark.parametrize("view", PICTURE_VIEWS)
def test_render_command_draws_every_view(histogram_trace, tmp_path, view, capsys):
    trace_path = histogram_trace.save(tmp_path / "t.npz")
    out = tmp_path / f"{view}.png"
    assert main(["render", str(trace_path), "--view", view, "--out", str(out), "--size", "800x500"]) == 0
    assert out.read_bytes().startswith(b"\x89PNG") and f"wrote {out}" in capsys.readouterr().out


def test_render_refuses_bad_arguments(histogram_trace, tmp_path, capsys):
    trace_path = histogram_trace.save(tmp_path / "t.npz")
    assert main(["render", str(trace_path), "--out", str(tmp_path / "x.gif")]) == 1
    assert "use a .png or .svg" in capsys.readouterr().err
    assert main(["render", str(trace_path), "--out", str(tmp_path / "x.png"), "--size", "big"]) == 1
    assert "--size 'big'" in capsys.readouterr().err


GPU_TRACES = sorted((Path(__file__).parent / "data" / "gpu").glob("*.npz"))


@pytest.mark.parametrize("trace_path", GPU_TRACES, ids=lambda p: p.stem)
def test_every_view_draws_traces_recorded_on_the_h200(qtbot, trace_path, tmp_path):
    """Traces made on the GPU (tests/data/gpu, recorded on an H200) open in every view here."""
    trace = gpuviz.load(trace_path)
    assert trace.meta["backend"] == "gpu" and trace.meta["time_unit"] == "ns"
    state = AppState()
    for spec in VIEWS:
        widget = make_view(spec.name, state)
        qtbot.addWidget(widget)
        widget.resize(800, 500)
        widget.show()
    state.set_trace(trace)
    state.select(trace.n_threads - 1)
    for name in ("grid", "timeline", "races"):
        out = tmp_path / f"{name}.png"
        assert main(["render", str(trace_path), "--view", name, "--out", str(out), "--size", "640x400"]) == 0
        assert out.stat().st_size > 2000
    if "racy" in trace_path.stem:
        from gpuviz.core.analysis.races import find_races

        assert find_races(trace).arrays() == ["bins"]


RACE = """
from numba import cuda
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    a[0] += 0.5
    out[i] = i
"""


@pytest.fixture
def race_trace():
    return gpuviz.trace(RACE, backend="sim", level="accesses", sms=1)[4, 64](np.zeros(1), np.zeros(256))


def shown_views(qtbot, state: AppState, *names: str) -> dict:
    """Views of the table on one state, each shown at 800x500."""
    views = {name: make_view(name, state) for name in names}
    for widget in views.values():
        qtbot.addWidget(widget)
        widget.resize(800, 500)
        widget.show()
    return views


def test_the_data_view_shows_the_memory_at_the_cursor(qtbot, race_trace):
    from gpuviz.core.element_story import element_story
    from gpuviz.core.replay import state_at

    state = AppState()
    views = shown_views(qtbot, state, "data", "story", "grid")
    state.set_trace(race_trace)
    data = views["data"]
    story = element_story(race_trace, 0, 0)
    between = story.groups[0].last.position  # the first threads have read a[0]; none has written it
    assert story.groups[0].first.kind == "read" and story.groups[1].first.kind == "write"
    for name in ("a", "out"):
        data.array.setCurrentIndex(data.array.findData(race_trace.array_names().index(name)))
        for frame in (0, between, state.plan.count - 1):
            state.set_frame(frame)
            expected = state_at(race_trace, frame, state.replay)["arrays"][name].reshape(-1)
            assert np.array_equal(data.values_now(), expected), (name, frame)
    # The race table (a[0] is the first racing element) lists the reads and the writes, in order.
    table = views["story"].table
    kinds = [table.item(row, 3).text() for row in range(table.rowCount())]
    assert kinds[:2] == ["read", "wrote"] and "updates lost" in views["story"].summary.text()
    # Clicking the write row moves the replay there and selects its thread.
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualItemRect(table.item(1, 0)).center())
    assert state.frame == story.groups[1].last.position and state.selected == story.groups[1].last.thread


def test_render_frames_differ_across_the_replay(race_trace, tmp_path):
    path = race_trace.save(tmp_path / "race.npz")
    pictures = []
    for at in ("0", "0.5", "1.0"):
        out = tmp_path / f"grid-{at}.png"
        assert main(["render", str(path), "--view", "grid", "--at", at, "--out", str(out), "--size", "600x400"]) == 0
        pictures.append(out.read_bytes())
    assert len(set(pictures)) == 3
    story = tmp_path / "story.png"
    assert main(["render", str(path), "--view", "story", "--element", "a[0]", "--out", str(story)]) == 0
    assert main(["render", str(path), "--view", "grid", "--at", "x", "--out", str(story)]) == 1


def test_going_back_to_a_launch_redraws_its_memory_picture(qtbot, race_trace):
    """Launch 0, then one without accesses (or none), then launch 0 again: its picture is drawn anew."""
    state = AppState()
    data = shown_views(qtbot, state, "data")["data"]
    state.set_trace(race_trace)
    drawn = data.values_now().copy()
    state.set_trace(None)
    state.set_trace(race_trace)
    np.testing.assert_array_equal(data.values_now(), drawn)
    assert data._last is not None


def test_selecting_a_thread_outside_the_zoomed_grid_pans_to_it_keeping_the_zoom(qtbot):
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = gpuviz.trace(src, name="k", backend="sim")[400, 256](np.zeros(400 * 256))
    state = AppState()
    grid = shown_views(qtbot, state, "grid")["grid"]
    state.set_trace(trace)
    grid.view.setRange(xRange=(0, 20), yRange=(0, 12), padding=0)  # zoomed into the first block's corner
    (x0, x1), (y0, y1) = grid.view.viewRange()
    last = trace.n_threads - 1
    state.select(last)
    center = grid.cell_center(last)
    (a0, a1), (b0, b1) = grid.view.viewRange()
    assert a0 <= center.x() <= a1 and b0 <= center.y() <= b1  # the selected thread is in view
    assert abs((a1 - a0) - (x1 - x0)) < 1e-6 and abs((b1 - b0) - (y1 - y0)) < 1e-6  # at the same zoom
    state.select(last - 1)  # a neighbour already in view: the view stays put
    assert grid.view.viewRange() == [[a0, a1], [b0, b1]]


def test_a_grid_of_many_blocks_opens_whole_and_zooms_to_a_thread_picked_elsewhere(qtbot):
    """20,000 blocks: the view opens on the whole grid; a thread picked by another view is zoomed to
    (its cell too small to see), and one clicked in the grid itself leaves the zoom alone."""
    from gpuviz.app.views.grid_view import MIN_CELL_PIXELS

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = gpuviz.trace(src, backend="sim", level="threads")[20_000, 32](np.zeros(640_000, np.int8))
    state = AppState()
    grid = shown_views(qtbot, state, "grid")["grid"]
    state.set_trace(trace)
    height, width = grid.cells_shape
    (x0, x1), (y0, y1) = grid.view.viewRange()
    assert x0 <= 0 and y0 <= 0 and x1 >= width and y1 >= height  # the whole grid, not the cells drawn first
    assert grid.thread_labels.pixels_per_cell() < MIN_CELL_PIXELS
    last = 19_999 * 32 + 7
    state.select(last)
    (x0, x1), (y0, y1) = grid.view.viewRange()
    centre = grid.cell_center(last)
    assert x0 < centre.x() < x1 and y0 < centre.y() < y1
    assert grid.thread_labels.pixels_per_cell() >= 3 * MIN_CELL_PIXELS  # about two blocks across
    grid.view.setRange(xRange=(0, 330), yRange=(0, 330), padding=0)  # cells of about 2 pixels
    qtbot.wait(10)
    assert 1 < grid.thread_labels.pixels_per_cell() < MIN_CELL_PIXELS
    before = grid.view.viewRange()
    picked = 30 * 32 + 16  # block 30's thread 16 is a cell in the middle of its tile
    click_view(qtbot, grid.graphics, grid.view, grid.cell_center(picked))
    assert state.selected == picked and grid.view.viewRange() == before


def test_a_big_1d_array_is_a_square_picture():
    from gpuviz.core.data_codes import picture_shape

    assert picture_shape((1000,)) == (32, 32) and picture_shape((64,)) == (4, 16)  # small arrays: near square
    assert picture_shape((2**20,)) == (1024, 1024)  # a million elements: a square, not a 64-wide strip
    assert picture_shape((2**24 + 11,)) == (4097, 4096) and picture_shape((10,)) == (1, 10)


def test_the_data_view_zooms_to_an_element_picked_elsewhere_in_a_big_array(qtbot):
    """A lesson (or a race row) picks array[1324] of a million: the view zooms so its value shows;
    a click in the view itself keeps the zoom. In the replay the caption tells the memory at the cursor."""
    from gpuviz.app.views.data_view import MIN_CELL_PIXELS

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 0.5\n"
    trace = gpuviz.trace(src, backend="sim", level="accesses")[1024, 1024](np.zeros(2**20, np.float32))
    state = AppState()
    data = shown_views(qtbot, state, "data")["data"]
    state.set_trace(trace)
    assert data.values.pixels_per_cell() < MIN_CELL_PIXELS
    state.select_element((0, 1324, None))
    (x0, x1), (y0, y1) = data.view.viewRange()
    assert x0 < 300.5 < x1 and y0 < 1.5 < y1 and data.values.pixels_per_cell() >= 34  # values in the cells
    data.view.setRange(xRange=(0, 1024), yRange=(0, 1024), padding=0)
    before = data.view.viewRange()
    click_view(qtbot, data.graphics, data.view, QPointF(700.5, 700.5))
    assert state.element[1] // 1024 in (699, 700, 701) and data.view.viewRange() == before
    state.set_order("replay")
    state.set_frame(10)
    data._redraw()  # a redraw in the replay (new frames) keeps the cursor's caption
    assert "after event 10" in data.caption.text()


def test_the_data_view_shows_elements_changed_by_blocks_whose_accesses_were_not_kept(qtbot):
    """With the first and last blocks' accesses only, the elements the other blocks changed are not
    'never written': they have a colour of their own and the caption counts them, in the replay too."""
    from gpuviz.core.data_codes import NEVER, UNRECORDED

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = i + 1"
    trace = gpuviz.trace(src + "\n", backend="sim", level="accesses", blocks=(0, -1))[4, 32](np.zeros(120))
    state = AppState()
    data = shown_views(qtbot, state, "data")["data"]
    state.set_trace(trace)
    codes = data._final_codes
    assert (codes[32:96] == UNRECORDED).all() and (codes[:32] != UNRECORDED).all() and (codes[96:] != NEVER).all()
    assert "changed; its writer's accesses not recorded" in [text for _, text in data.legend_items()]
    assert state.order == "replay" and "Purple: 64 changed by blocks whose" in data.caption.text()
    state.set_frame(0)
    assert (data.image.image.reshape(-1)[32:96] == UNRECORDED).all()  # when they were written is not known
    state.set_order("logical")
    assert "64 more changed, by blocks whose accesses were not recorded" in data.caption.text()


def test_a_data_view_behind_another_tab_lets_go_of_the_previous_trace(qtbot, race_trace):
    import gc
    import weakref

    state = AppState()
    data = shown_views(qtbot, state, "data")["data"]
    first = gpuviz.trace(RACE, backend="sim", level="accesses", sms=1)[4, 64](np.zeros(1), np.zeros(256))
    state.set_trace(first)
    assert data._last is not None
    data.set_on_screen(False)  # its tab went behind another
    gone = weakref.ref(first)
    state.set_trace(race_trace)
    del first
    gc.collect()
    assert gone() is None  # nothing worked out for it keeps it alive until the tab comes back
    data.set_on_screen(True)
    assert data._last is not None and data._writers_of[0] is race_trace


def test_the_data_view_leaves_room_for_its_column_and_row_numbers(qtbot, race_trace):
    """A 1-element array fills a wide view: its column number above it must still be on screen."""
    state = AppState()
    data = shown_views(qtbot, state, "data")["data"]
    state.set_trace(race_trace)
    data.array.setCurrentIndex(data.array.findData(race_trace.array_names().index("a")))
    (x0, _), (y0, _) = data.view.viewRange()
    assert x0 <= -0.4 and y0 <= -0.4  # the numbers sit at -0.1 cells, a line of text high


def test_views_and_panels_bring_their_own_tooltips(qtbot):
    """Every control a view or panel makes carries its tooltip, with no window around it."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractSlider,
        QAbstractSpinBox,
        QComboBox,
        QListWidget,
        QScrollBar,  # fmt: skip
        QWidget,
    )

    from gpuviz.app.widgets.catalog_panel import CatalogPanel
    from gpuviz.app.widgets.launch_editor import LaunchEditor

    state = AppState()
    made = [make_view(spec.name, state) for spec in VIEWS] + [CatalogPanel(), LaunchEditor(None)]
    controls = (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QListWidget)
    bare = []
    for widget in made:
        qtbot.addWidget(widget)
        bare += [f"{type(widget).__name__}: {type(c).__name__} {c.objectName()}" for c in widget.findChildren(QWidget)
                 if isinstance(c, controls) and not isinstance(c, QScrollBar)
                 and not c.objectName().startswith(("qt_", "Scroll")) and not c.toolTip()]  # fmt: skip
    assert not bare, bare


@pytest.mark.parametrize("dtype", [np.complex64, np.bool_])
def test_the_race_view_charts_outcomes_of_complex_and_bool_arrays(qtbot, dtype):
    """Repeated runs of a complex array chart its real part (and say so); a bool array's as 0 and 1 (the
    fuzzed traces that found this crashed the view)."""
    trace = gpuviz.trace(RACE, backend="sim", level="accesses", sms=1)[4, 64](np.zeros(1), np.zeros(256))
    trace.outcomes = {"a.runs": np.array([[1 + 2j], [3 + 0j], [1 + 2j]]).astype(dtype)}
    state = AppState()
    views = shown_views(qtbot, state, "races")
    state.set_trace(trace)
    state.select_element((0, 0, None))
    text = views["races"].outcomes.text()
    assert "over 3 runs" in text and ("(real part)" in text) == (dtype is np.complex64)


def test_the_race_view_says_when_recording_moved_the_race(qtbot):
    """A recorded result unlike the kernel's own run without recording (the GPU backend's `.plain`
    outcome): the view prints both and says why they differ, and the note goes with a trace alike."""
    trace = gpuviz.trace(RACE, backend="sim", level="accesses", sms=1)[4, 64](np.zeros(1), np.zeros(256))
    state = AppState()
    views = shown_views(qtbot, state, "races")
    trace.outcomes = {"a.plain": trace.after("a") + 5}
    state.set_trace(trace)
    assert "without recording" in views["races"].outcomes.text()
    assert "level threads records no access" in views["races"].outcomes.text()
    same = gpuviz.trace(RACE, backend="sim", level="accesses", sms=1)[4, 64](np.zeros(1), np.zeros(256))
    same.outcomes = {"a.plain": same.after("a").copy()}
    state.set_trace(same)
    assert "the same result" in views["races"].outcomes.text()
    assert "level threads records no access" not in views["races"].outcomes.text()


def test_the_code_view_marks_a_library_call_that_ran_as_a_model(qtbot):
    """CCCL's block sum on the simulator: its line says "model" on a violet ground, and only its line."""
    source = ("import cuda.cccl.cooperative.experimental as coop\nfrom numba import cuda, float32\n"
              "block_sum = coop.block.sum(float32, 32)\n\n@cuda.jit(link=block_sum.files)\ndef k(a, out):\n"
              "    total = block_sum(a[cuda.threadIdx.x])\n"
              "    if cuda.threadIdx.x == 0:\n        out[0] = total\n")  # fmt: skip
    trace = gpuviz.trace(source, backend="sim")[1, 32](np.ones(32, np.float32), np.zeros(1, np.float32))
    state = AppState()
    code = make_view("code", state)
    qtbot.addWidget(code)
    state.set_trace(trace, [trace])
    assert list(code.modelled) == [7] and "CCCL block sum" in code.modelled[7]
    marked = {s.cursor.blockNumber() + 1 for s in code.extraSelections()}
    assert 7 in marked and trace.after("out")[0] == 32
