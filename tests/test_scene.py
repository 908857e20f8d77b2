"""The Scene: one value for what the views show, applied in one place (scene/state.py: AppState.apply)."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("psygnal", reason="the app state is evented with psygnal")

import gpuviz  # noqa: E402
from gpuviz.catalog import find  # noqa: E402
from gpuviz.catalog.evidence import parse_evidence, resolve  # noqa: E402
from gpuviz.core.errors import GpuvizError  # noqa: E402
from gpuviz.core.frames import ORDERS, REPLAY  # noqa: E402
from gpuviz.scene.scene import Scene, scene_at  # noqa: E402
from gpuviz.scene.state import AppState  # noqa: E402

RACE = """
from numba import cuda

@cuda.jit
def add_one(a):
    a[0] += 1
"""
COPY = """
from numba import cuda

@cuda.jit
def copy(src, dst):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]
"""


@pytest.fixture(scope="module")
def traces():
    race = gpuviz.trace(RACE, backend="sim", sms=2)[2, 64](np.zeros(1, np.float32))
    copy = gpuviz.trace(COPY, backend="sim", sms=2)[4, 32](np.arange(128.0), np.zeros(128))
    return race, copy


def scene_of(trace, **fields) -> Scene:
    return Scene(trace, (trace,), **fields)


def test_a_second_scene_leaves_nothing_of_the_first(traces):
    race, copy = traces
    first = scene_of(race, order=REPLAY, frame=5, selected=70, element=(0, 0, None), line=7, colour="warp",
                     view="data", caption="every thread read 0")  # fmt: skip
    second = scene_of(copy, order=ORDERS[1], frame=2, selected=3, element=(1, 9, None), line=9, colour="SM",
                      view="grid", caption="thread 3 wrote dst[3]")  # fmt: skip
    state = AppState()
    state.apply(first)
    assert state.scene() == first
    state.apply(second)
    now = state.scene()
    assert now == second
    for field in dataclasses.fields(Scene):
        if getattr(first, field.name) != getattr(second, field.name):
            assert getattr(now, field.name) != getattr(first, field.name), field.name


def test_a_fresh_scene_empties_every_view_field(traces):
    race, _ = traces
    state = AppState()
    state.apply(scene_of(race, selected=3, element=(0, 0, None), line=7, colour="warp", caption="look"))
    state.apply(Scene())
    assert state.scene() == Scene(order=state.scene().order)
    assert (state.trace, state.launches, state.selected, state.element, state.caption) == (None, [], -1, None, "")


def test_picking_a_lesson_starts_on_a_fresh_scene(traces):
    race, _ = traces
    state = AppState()
    state.apply(scene_of(race, selected=3, colour="warp", caption="the race lesson's evidence"))
    state.set_entry(find("one-cell-per-thread"))
    assert state.trace is None and state.caption == "" and state.selected == -1 and state.colour_mode == Scene().colour


def test_each_signal_fires_once_and_only_for_what_changed(traces):
    race, _ = traces
    state = AppState()
    state.apply(scene_of(race, selected=3))
    fired = []
    for name in ("trace_changed", "selection_changed", "frame_changed", "line_changed", "caption_changed",
                 "colour_mode_changed", "element_changed", "frames_changed", "view_requested"):  # fmt: skip
        getattr(state, name).connect(lambda *_, name=name: fired.append(name))
    state.apply(dataclasses.replace(state.scene(), selected=9, caption="thread 9", view="grid"))
    assert sorted(fired) == ["caption_changed", "selection_changed", "view_requested"]
    fired.clear()
    state.apply(state.scene())  # the same scene again: nothing changed, nothing said (the front view is asked again)
    assert fired == ["view_requested"]


def test_a_lesson_evidence_resolves_to_a_whole_scene_of_its_launch(traces):
    race, copy = traces
    evidence = parse_evidence("view: data\nthread: block 1 thread 3\nelement: a[0]\nline: 6\ncaption: {thread} ran")
    scene = resolve(evidence, race, launches=(copy, race))
    assert scene == Scene(race, (copy, race), REPLAY, 0, None, 64 + 3, (0, 0, None), 6, Scene().colour, "data",
                          "Thread 3 of block 1 ran")  # fmt: skip
    state = AppState()
    state.apply(scene)
    assert state.launch_index() == 1 and state.frame == len(race.accesses["thread"])


def test_scene_at_places_the_cursor_as_the_command_line_says(traces):
    race, _ = traces
    events = len(race.accesses["thread"])
    assert scene_at(race).frame == events  # the last frame: everything shown
    assert scene_at(race, at=0.5).frame == round(0.5 * events)
    assert scene_at(race, at=3, select=5, element="a[0]").element == (0, 0, None)
    with pytest.raises(GpuvizError, match="--select 999"):
        scene_at(race, select=999)
    with pytest.raises(GpuvizError, match="unknown colours"):
        scene_at(race, colour="purple")
    with pytest.raises(GpuvizError, match="no array 'b'"):
        scene_at(race, element="b[0]")


def test_the_scene_and_the_state_import_no_qt():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'pyqtgraph'):\n"
        "            raise ImportError(name + ' is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from gpuviz.scene.state import AppState\n"
        "from gpuviz.scene.scene import Scene\n"
        "AppState().apply(Scene())\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("first, second", [("01", "20"), ("20", "01")])
def test_a_lessons_evidence_scene_then_anothers_leaves_nothing_of_the_first(first, second, tmp_path):
    from gpuviz.run.demo import run_demo

    scenes = []
    for name in (first, second):
        entry = find(name)
        traces = tuple(run_demo(entry, tmp_path / name, backend="sim").session.traces)
        launch = entry.evidence.launch if entry.evidence.launch is not None else entry.launch or 0
        scenes.append(resolve(entry.evidence, traces[launch], launches=traces))
    state = AppState()
    state.apply(scenes[0])
    state.apply(scenes[1])
    assert state.scene() == scenes[1]
    left = [f.name for f in dataclasses.fields(Scene)
            if getattr(scenes[0], f.name) != getattr(scenes[1], f.name)
            and getattr(state.scene(), f.name) == getattr(scenes[0], f.name)]  # fmt: skip
    assert left == []


def test_scenes_of_two_different_traces_compare_without_looking_into_their_columns(traces):
    race, copy = traces
    assert scene_of(race) != scene_of(copy) and scene_of(race) == scene_of(race)
    state = AppState()
    state.apply(scene_of(race))
    state.set_trace(copy, [race, copy])  # a run's launches replaced by another's
    assert state.launches == [race, copy] and state.trace is copy
