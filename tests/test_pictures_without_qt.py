"""Pictures and the replay widget without Qt: in a process where PySide6 and pyqtgraph cannot be imported,
the grid, data, timeline and story are drawn, gpuviz.show and a trace's notebook display work, and the
widget steps and selects. The widget's Python side (ReplayModel) is tested directly as well."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parent.parent
RACE = """
from numba import cuda

@cuda.jit
def add_half(array):
    for i in range(array.size):
        array[i] += 0.5
"""

WITHOUT_QT = textwrap.dedent(
    """
    import sys

    class NoQt:  # what an environment without the desktop app's libraries does on import
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "pyqtgraph"):
                raise ImportError(f"No module named {name!r} (refused: no Qt here)")

    sys.meta_path.insert(0, NoQt())
    import numpy as np
    import gpuviz
    from gpuviz.notebook import picture, trace_html

    trace = gpuviz.trace(RACE, backend="sim", sms=4)[4, 64](np.zeros(2, np.float32))
    for view in ("grid", "data", "timeline", "story"):
        assert picture(trace, view, at=0.5, size=(400, 240)).startswith(b"\\x89PNG"), view
    assert gpuviz.show(trace, animate=True, size=(200, 120)).data.startswith(b"GIF8")
    assert "base64," in trace_html(trace)
    widget = gpuviz.replay(trace, views=("grid", "data", "timeline", "story"))
    start = dict(widget.images)
    widget.frame = 0
    assert all(widget.images[v] != start[v] for v in ("grid", "data")), "the cursor moved the pictures"
    widget._on_message(widget, {"kind": "step", "unit": "event", "direction": 1}, [])
    assert widget.frame == 1
    try:
        picture(trace, "memory")
    except gpuviz.GpuvizError as exc:
        print(exc)
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph"))
    assert not loaded, loaded
    print("ok without Qt")
    """
).replace("RACE", repr(RACE))


def test_pictures_and_the_widget_work_with_qt_refused(tmp_path):
    pytest.importorskip("anywidget", reason="the widget needs the notebook extra (anywidget)")
    done = subprocess.run([sys.executable, "-c", WITHOUT_QT], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ok without Qt" in done.stdout and "the memory view is drawn by the desktop app" in done.stdout


@pytest.fixture(scope="module")
def race():
    import gpuviz

    return gpuviz.trace(RACE, backend="sim", sms=4)[4, 64](np.zeros(2, np.float32))


def test_the_grid_picture_has_the_app_states_colours_and_layout(race):
    from gpuviz.core.layout import grid_layout
    from gpuviz.images.grid import GridPicture
    from gpuviz.scene.scene import scene_at
    from gpuviz.scene.state import AppState

    state = AppState()
    state.apply(scene_at(race, order="logical"))
    codes, lut, _words = GridPicture().codes(state)
    layout = grid_layout(race.grid, race.block)
    assert codes.shape == (layout.height, layout.width)
    np.testing.assert_array_equal(codes[layout.y, layout.x], state.coloring.codes)  # the last frame: all lit
    state.set_frame(0)
    lit = GridPicture().codes(state)[0][layout.y, layout.x] != 0
    assert 0 < lit.sum() < race.n_threads  # the first frame lights the first warp only


def test_a_click_picks_in_each_view_and_selects_in_all(race):
    from gpuviz.widget.replay import ReplayModel

    model = ReplayModel(race)
    box = model.picture("grid")
    hits = {box.pick(x, y) for y in range(0, model.box[1], 3) for x in range(0, model.box[0], 3)} - {None}
    assert {kind for kind, _ in hits} == {"thread"} and len(hits) > 100
    x, y = next((x, y) for y in range(model.box[1]) for x in range(model.box[0]) if box.pick(x, y) == ("thread", 77))
    assert model.click("grid", x, y) and model.state.selected == 77
    data = model.picture("data")
    x, y = next((x, y) for y in range(model.box[1]) for x in range(model.box[0]) if data.pick(x, y) is not None)
    said = model.click("data", x, y)
    assert said.startswith("array[") and model.state.element[0] == 0 and model.state.selected >= 0
    story = model.picture("story")
    row = next(y for y in range(model.box[1]) if story.pick(10, y) is not None)
    position, thread = story.pick(10, row)[1]
    model.click("story", 10, row)
    assert model.state.frame == position and model.state.selected == thread


def test_steps_and_one_image_per_visible_view(race):
    from gpuviz.core.errors import GpuvizError
    from gpuviz.widget.replay import ReplayModel

    model = ReplayModel(race)
    assert model.steps == ("event", "barrier", "wave") and model.frames == len(race.accesses["thread"]) + 1
    model.set_frame(0)
    assert model.step("event") == 1 and model.step("event", -1) == 0
    assert model.line() == 0 and model.source()[model.step("event") and model.line() - 1].strip().startswith("array")
    assert set(model.images(["grid", "story"])) == {"grid", "story"}
    with pytest.raises(GpuvizError, match="steps for this trace: event, barrier, wave"):
        model.step("cycle")
    with pytest.raises(GpuvizError, match="views: grid, data, timeline, story"):
        model.click("memory", 0, 0)


RECORD_AND_REPLAY = ROOT / "docs" / "notebooks" / "record_and_replay.ipynb"


def test_the_record_and_replay_notebook_runs_on_the_simulator(tmp_path, monkeypatch):
    """The docs' notebook, its install cell (tagged `install`) left out: it records on the simulator here,
    saves, loads and shows the replay widget twice (gpuviz.replay and a trace as a cell's value)."""
    pytest.importorskip("anywidget", reason="the widget needs the notebook extra (anywidget)")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    from execute_notebook import execute  # the tool that runs it on the lent H100/H200

    executed = tmp_path / "executed.ipynb"
    problems = execute(RECORD_AND_REPLAY, executed, timeout=600)
    assert problems == []
    notebook = nbformat.read(executed, as_version=4)
    assert not any(cell.metadata.get("tags") == ["install"] for cell in notebook.cells)
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    errors = [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr"]
    assert not errors, errors
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == 2 and (tmp_path / "race.npz").exists() and (tmp_path / "matmul.npz").exists()
    text = "".join(o.get("text", "") for o in outputs)
    assert "recording on sim" in text and "C == A @ B: True" in text


def test_the_notebooks_views_without_qt_are_those_the_pictures_draw():
    from gpuviz.images.picture import VIEWS
    from gpuviz.notebook import QT_FREE_VIEWS

    assert tuple(VIEWS) == QT_FREE_VIEWS


def test_a_lesson_starts_the_widget_on_its_evidence_frame(race):
    pytest.importorskip("anywidget", reason="the widget needs the notebook extra (anywidget)")
    import gpuviz
    from gpuviz.catalog import find

    widget = gpuviz.replay(race, lesson="the-race")
    evidence = find("the-race").evidence
    assert evidence.view in widget.views and 0 < widget.frame < widget.frames - 1
    assert widget.caption.endswith(evidence.caption.split("}")[-1]) and widget.model.state.selected >= 0
    assert widget.model.state.marks and "array[0]" in widget.selection
    with pytest.raises(gpuviz.GpuvizError, match="no catalog entry 'no-such'"):
        gpuviz.replay(race, lesson="no-such")


WHAT_THEY_SHOW = textwrap.dedent(
    """
    import json, sys

    class NoQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "pyqtgraph"):
                raise ImportError(f"No module named {name!r} (refused: no Qt here)")

    sys.meta_path.insert(0, NoQt())
    import numpy as np
    import gpuviz
    from gpuviz.core.colors import RACE
    from gpuviz.images.canvas import HATCH
    from gpuviz.widget.replay import ReplayModel

    trace = gpuviz.trace(RACE_SOURCE, backend="sim", sms=4)[4, 64](np.zeros(2, np.float32))
    model = ReplayModel(trace)
    model.state.select(70)
    said = {}
    for view in ("grid", "data", "timeline", "story"):
        image = model.picture(view)
        said[view] = {"title": image.title, "caption": image.caption, "legend": [w for _, w in image.legend or []],
                      "outlines": [w for _, w in image.outlines], "shape": list(image.rgb.shape)}
    data = model.picture("data").rgb
    said["data"]["race pixels"] = int((data == RACE).all(axis=2).sum())
    said["data"]["hatch pixels"] = int((data == HATCH).all(axis=2).sum())
    said["grid"]["blocks named"] = model.pictures._drawers["grid"].labelled
    model.set_data_mode("times read")
    reads = model.picture("data")
    said["reads"] = {"title": reads.title, "legend": [w for _, w in reads.legend]}
    try:
        model.set_data_mode("colour by magic")
    except gpuviz.GpuvizError as exc:
        said["bad mode"] = str(exc)
    print(json.dumps(said))
    """
).replace("RACE_SOURCE", repr(RACE))


def test_each_picture_says_what_it_shows_with_qt_refused(tmp_path):
    """Each view's picture reads alone: its title says what it shows and what the colour means, its legend
    the colours shown (the app's words, core/data_codes.py and core/colors.py), outlines what is selected."""
    import json

    done = subprocess.run([sys.executable, "-c", WHAT_THEY_SHOW], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    grid, data, timeline, story = (said[v] for v in ("grid", "data", "timeline", "story"))
    assert grid["title"].startswith("Threads: 256 in 4 blocks of 64") and "coloured by block" in grid["title"]
    assert grid["legend"][:2] == ["not started yet", "block 0"] and "finished (dimmed)" in grid["legend"]
    assert grid["outlines"] == ["the selected thread"] and grid["blocks named"] == [f"block {b}" for b in range(4)]
    assert data["title"] == "array (global, float32(2,)): coloured by the block that last wrote each element"
    assert data["legend"][-2:] == ["written by several threads (hatched)", "never written"]
    assert data["race pixels"] > 0 and data["hatch pixels"] > 0, "both elements raced: red and hatched"
    assert "read by the selected thread" in data["outlines"] and "written by the selected thread" in data["outlines"]
    assert "2 of 2 elements written" in data["caption"] and "2 by several threads" in data["caption"]
    assert timeline["title"].startswith("SM timeline") and timeline["legend"][0] == "wave 0"
    assert "cycles (model)" in timeline["caption"] and timeline["outlines"] == ["the selected thread's block"]
    assert story["title"] == "Element story: who read and wrote array[0], in order"
    assert said["reads"]["title"].endswith("coloured by how many times each is read")
    assert said["reads"]["legend"][0] == "never read" and said["reads"]["legend"][-1].startswith("read ")
    assert said["bad mode"] == ("unknown data colour 'colour by magic'; colours: writer's block, writer's warp, "
                                "writer's thread, times read")  # fmt: skip
    assert {tuple(said[v]["shape"]) for v in ("grid", "data", "timeline", "story")} == {(380, 400, 3)}


def test_the_time_axis_ticks_are_round_and_within_the_span():
    from gpuviz.core.analysis.timeline import time_axis_words
    from gpuviz.images.timeline import round_ticks

    assert round_ticks(45, 3595, 5) == [1000, 2000, 3000]
    assert round_ticks(0, 100, 4) == [0, 50, 100]
    assert time_axis_words("tick") == "time in cycles (model)" and time_axis_words("ns") == "time in ns (measured)"
