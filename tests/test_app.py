"""The app, driven as a person would: pick, change the launch, run, click, play, stop."""

import multiprocessing

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")
pytest.importorskip("pyqtgraph", reason="the app's tests need pyqtgraph")

from PySide6.QtCore import Qt

import gpuviz
from gpuviz.app.window.main_window import MainWindow
from gpuviz.core.frames import MAX_FRAMES
from gpuviz.core.layout import grid_layout

from .trace_files import members

RUN_TIMEOUT = 600_000  # ms: a hang fails instead of blocking the suite; never a speed check (a loaded laptop)


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    yield win
    win.close()
    assert not multiprocessing.active_children(), "a worker process outlived the window"


def pick(win, name):
    """A catalog entry by slug ("the-race"), by name or by the start of its row's text."""
    for row in range(win.catalog.count()):
        entry = win.catalog.entries[row]
        if name in (entry.slug, entry.name) or win.catalog.item(row).text().lower().startswith(name):
            win.catalog.setCurrentRow(row)
            return
    raise AssertionError(f"no catalog entry {name}")


def run_and_wait(qtbot, win):
    with qtbot.waitSignal(win.runs.finished, timeout=RUN_TIMEOUT) as blocker:
        qtbot.mouseClick(win.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.runner.loader.idle, timeout=RUN_TIMEOUT)  # traces load off the GUI thread
    return blocker.args[0]


def commit_any_prediction(predict) -> None:
    """Any prediction (the first choice, or 1 in every number box), committed: the answer opens only then."""
    if predict.choice_buttons:
        predict.choice_buttons[0].setChecked(True)
    for box in predict.number_boxes:
        box.setText("1")
    predict.commit()


def open_and_wait(qtbot, win, path):
    win.open_path(path)
    qtbot.waitUntil(lambda: win.runner.loader.idle, timeout=RUN_TIMEOUT)


def click_cell(qtbot, win, gid):
    grid = win.views["grid"]
    scene_point = grid.view.mapViewToScene(grid.cell_center(gid))
    widget_point = grid.graphics.mapFromScene(scene_point)
    qtbot.mouseClick(grid.graphics.viewport(), Qt.MouseButton.LeftButton, pos=widget_point)


def test_pick_change_launch_run_and_inspect(qtbot, window):
    pick(window, "vector add")
    assert "def vecadd" in window.editor.toPlainText()
    assert run_and_wait(qtbot, window) is True
    trace = window.state.trace
    assert trace.kernel == "vecadd" and trace.grid == (40, 1, 1)
    # Override the launch: half as many threads per block, covering the same 10,000 elements.
    window.launch.override.setChecked(True)
    window.launch.block[0].setValue(128)
    window.launch.cover.setValue(10_000)
    qtbot.mouseClick(window.launch.cover_button, Qt.MouseButton.LeftButton)
    assert window.launch.grid[0].value() == 79
    assert "10,112</b> threads" in window.launch.counts.text()
    assert run_and_wait(qtbot, window) is True
    trace = window.state.trace
    assert trace.grid == (79, 1, 1) and trace.block == (128, 1, 1)
    layout = grid_layout(trace.grid, trace.block)
    assert window.views["grid"].cells_shape == (layout.height, layout.width)
    owners = window.views["grid"]._owner
    assert (owners >= 0).sum() == 79 * 128  # every thread has its cell, blocks are apart
    assert "79 blocks of 128" in window.views["grid"].caption.text()
    # Clicking a cell selects that thread, and the record shows it.
    click_cell(qtbot, window, 1000)
    assert window.state.selected == 1000
    assert "Thread 1,000" in window.views["record"].title.text()
    text = window.views["record"].body.text()
    assert "(7, 0, 0)" in text and "(104, 0, 0)" in text and "c[1000]" in text


def test_animation_plays_and_steps(qtbot, window):
    pick(window, "racy counter")
    assert run_and_wait(qtbot, window) is True
    events = len(window.state.trace.accesses["thread"])
    assert window.state.order == "replay" and window.views["grid"].frames() == events + 1  # a frame an event
    assert window.state.frame == events  # a finished run shows its end
    window.views["animation"].unit.setCurrentText("thread")  # the selected thread's next access
    window.state.select(300)
    window.state.set_frame(0)
    window.views["animation"].step(1)
    assert 0 < window.state.frame < events and "thread 300 " in window.views["animation"].caption.text()
    assert "read array[0]" in window.views["animation"].caption.text()
    window.views["animation"].step(1)
    caption = window.views["animation"].caption.text()
    assert "thread 300 " in caption and "wrote array[0]" in caption
    window.views["animation"].order.setCurrentText("logical")
    frames = window.views["grid"].frames()
    assert frames == min(64 * 8, MAX_FRAMES) and window.state.frame == frames - 1  # logical: a frame a warp
    window.views["animation"].step(-1)
    assert window.state.frame == frames - 2
    window.views["animation"].order.setCurrentText("as executed")  # one wave on 132 SMs: a frame a start time
    starts = np.unique(window.state.trace.threads["t_start"])
    frames = window.views["grid"].frames()
    assert frames == min(len(starts), MAX_FRAMES) > 1 and window.state.frame == frames - 1
    window.views["animation"].order.setCurrentText("logical")
    window.state.set_frame(0)
    lit_at_start = window.views["grid"].lit_threads()
    qtbot.keyClick(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: window.state.frame >= 2, timeout=RUN_TIMEOUT)
    window.views["animation"].pause()
    assert window.views["grid"].lit_threads() > lit_at_start
    window.views["animation"].colour.setCurrentText("SM")
    assert "Colour by SM" in window.views["legend"].text()


def test_stop_an_endless_kernel_and_run_again(qtbot, window, tmp_path):
    script = tmp_path / "endless.py"
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef spin(a):\n"
        "    while a[0] >= 0:\n        a[1] = a[1] + 1\na = np.zeros(2)\nspin[1, 32](a)\n"
    )
    window.open_path(script)
    qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "running spin" in window.status.text(), timeout=RUN_TIMEOUT)
    with qtbot.waitSignal(window.runs.finished, timeout=RUN_TIMEOUT) as blocker:
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [False] and window.status.text() == "stopped"
    pick(window, "grid 2d")
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.kernel == "scale_2d"


def test_invalid_launch_is_refused_on_the_spot(qtbot, window):
    pick(window, "vector add")
    window.launch.override.setChecked(True)
    window.launch.block[0].setValue(2048)
    assert window.launch.message.text() == "block has 2048 threads; at most 1024 threads per block are allowed"
    assert not window.run_button.isEnabled()
    window.run()  # Ctrl+R anyway: refused with the same message
    assert "at most 1024 threads per block" in window.status.text() and not window.runs.running
    window.launch.block[0].setValue(256)
    assert window.run_button.isEnabled() and window.launch.message.text() == ""


def test_kernel_error_marks_the_line_and_the_app_goes_on(qtbot, window, tmp_path):
    script = tmp_path / "float_index.py"  # out-of-bounds accesses are recorded, not fatal: a float index is
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n"
        "    a[i / 2] = 1\nk[2, 64](np.zeros(100))\n"
    )
    pick(window, "grid 3d")
    assert run_and_wait(qtbot, window) is True  # a picture of an earlier run on screen
    window.open_path(script)
    assert run_and_wait(qtbot, window) is False
    assert "line 6: index 0.0 into 'a' is a float" in window.status.text()
    assert window.editor.error_line == 6
    caption = window.views["grid"].caption  # the main view says why it is empty, not "press Run"
    assert window.state.trace is None and caption.property("error")
    assert caption.text().startswith("The run stopped before any launch was traced") and "is a float" in caption.text()
    pick(window, "grid 3d")
    assert run_and_wait(qtbot, window) is True
    assert not window.state.stopped and not caption.property("error")


def test_open_a_saved_trace_and_bad_files(qtbot, window, tmp_path):
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    path = gpuviz.trace(source, backend="sim")[(2, 2, 2), (4, 4)](np.zeros(128)).save(tmp_path / "t.npz")
    open_and_wait(qtbot, window, path)
    assert window.state.trace.grid == (2, 2, 2)
    assert "layer z=0 of 2" in window.views["grid"].caption.text()
    assert window.views["animation"].layer.isEnabled() and window.views["animation"].layer.maximum() == 1
    window.views["animation"].layer.setValue(1)
    assert "layer z=1 of 2" in window.views["grid"].caption.text()
    click_cell(qtbot, window, 64 + 5)
    assert window.state.selected == 69
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    open_and_wait(qtbot, window, bad)
    assert window.status.text().startswith("error: bad.npz is not a gpuviz trace")
    assert window.state.trace.grid == (2, 2, 2)  # what was open stays open


@pytest.mark.slow
def test_lesson_asks_runs_and_points_at_the_evidence(qtbot, window):
    pick(window, "the-race")
    window.launch.repeat.setValue(3)
    assert "Predict" in window.views["lesson"].text.toPlainText()
    assert "What will array[0] be after the launch?" in " ".join(window.views["lesson"].text.toPlainText().split())
    assert not window.views["lesson"].answer_button.isEnabled()
    window.views["lesson"].predict.choice_buttons[0].click()  # the misconception: every update counts
    qtbot.mouseClick(window.views["lesson"].predict.commit_button, Qt.MouseButton.LeftButton)
    assert not window.views["lesson"].answer_button.isEnabled()  # committed, not run: the answer stays hidden
    assert run_and_wait(qtbot, window) is True
    assert window.state.trace.grid == (1024, 1, 1)  # the tutorial's launch: about four waves on 132 SMs
    qtbot.mouseClick(window.views["lesson"].answer_button, Qt.MouseButton.LeftButton)
    text = " ".join(window.views["lesson"].text.toPlainText().split())
    assert "Far less than 524,288" in text and "You predicted: 524,288: every update counts" in text
    assert window.state.selected >= 0 and window.state.colour_mode == "value read"
    assert window.state.order == "replay" and window.views["animation"].order.currentText() == "replay"
    evidence = window.views["lesson"].evidence.text()
    assert "writes array[0] next, the first write of the launch: every thread that has read it so far saw 0" in evidence
    assert "only 8 or 9 survive" in evidence and window.views["data"].values_now()[0] == 0.0
    # The replay stands just before the first lost update of array[0] lands: the data view is on array[0].
    aid = window.state.trace.array_names().index("array")
    assert window.state.element[:2] == (aid, 0) and window.views["data"].current_array() == aid
    story = window.views["story"]
    raise_dock_of(story)  # the Element story tab, behind the Lesson tab: told when clicked
    qtbot.waitUntil(lambda: story.story is not None, timeout=RUN_TIMEOUT)
    assert "updates lost" in story.summary.text() and story.table.item(0, 3).text() == "read"
    assert window.state.trace.outcomes["array.runs"].shape == (3, 2)
    assert "over 3 runs" in window.views["races"].outcomes.text()


def test_a_launch_overridden_before_the_first_run_is_used(qtbot, window):
    pick(window, "vector add")
    window.launch.override.setChecked(True)
    window.launch.set_launch((3, 1, 1), (64, 1, 1))
    assert run_and_wait(qtbot, window) is False  # the script's own check fails: too few threads
    trace = window.state.trace
    assert trace.grid == (3, 1, 1) and trace.block == (64, 1, 1)
    assert "raised AssertionError" in window.status.text() and window.editor.error_line > 0


def test_layers_have_their_own_frames(qtbot, window, tmp_path):
    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    trace = gpuviz.trace(source, backend="sim", sms=1)[(1, 1, 4), 1024](np.zeros(4096))
    open_and_wait(qtbot, window, trace.save(tmp_path / "t.npz"))
    window.views["animation"].order.setCurrentText("as executed")
    window.views["animation"].layer.setValue(3)
    assert window.views["animation"].slider.maximum() == window.views["grid"].frames() - 1
    assert window.views["grid"].lit_threads() == 1024  # the whole layer shown at the last frame


@pytest.fixture
def race_calls(monkeypatch):
    """Every find_races call, with the thread it ran on."""
    import threading

    from gpuviz.core.analysis import races

    calls, real = [], races.find_races

    def counted(*args, **kwargs):
        calls.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(races, "find_races", counted)
    return calls


def racy_trace_file(tmp_path, fmt="gpuviz-trace/3"):
    """A racy launch saved by a session (its analysis stored), or as an older gpuviz wrote it."""
    import json

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1.0\n"
    path = gpuviz.trace(source, backend="sim", level="accesses")[2, 64](np.zeros(1)).save(tmp_path / "r.npz")
    if fmt == "gpuviz-trace/1":
        columns = {key: values for key, values in members(path).items() if key != "analysis"}
        meta = json.loads(str(columns["meta"]))
        meta["args"] = meta.pop("param_names")
        columns.update(format=np.array(fmt), meta=np.array(json.dumps(meta)))
        np.savez(path, **columns)
    return path


def test_opening_a_saved_trace_never_searches_for_races_again(qtbot, window, tmp_path, race_calls):
    path = racy_trace_file(tmp_path)
    race_calls.clear()  # the session that ran the launch searched once
    open_and_wait(qtbot, window, path)
    assert "races: 1 location in 1 array" in window.views["races"].summary.text()
    assert race_calls == []


def test_an_old_trace_is_analysed_off_the_gui_thread(qtbot, window, tmp_path, race_calls):
    path = racy_trace_file(tmp_path, "gpuviz-trace/1")
    race_calls.clear()
    open_and_wait(qtbot, window, path)
    assert "races: 1 location in 1 array" in window.views["races"].summary.text()
    assert race_calls == [False]  # once, and not on the GUI thread


def test_a_launch_is_shown_before_its_analysis_arrives(qtbot, window, tmp_path, race_calls):
    """The worker sends a trace before analysing it: the app shows it at once, never analyses it
    itself, and fills the race view when the analysis arrives."""
    from gpuviz.run.messages import AnalysisReady, TraceReady

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1.0\n"
    trace = gpuviz.trace(source, backend="sim", level="accesses")[2, 64](np.zeros(1))
    analysis = trace.analysis
    trace.analysis = {}
    path = str(trace.save(tmp_path / "000-k.npz"))
    race_calls.clear()
    window.runner.run_number = window.state.begin_run()  # as a run the worker is reporting from
    window.runner._on_trace_ready(TraceReady(path, 0, "k", analysed=False))
    qtbot.waitUntil(lambda: window.runner.loader.idle and window.state.trace is not None, timeout=RUN_TIMEOUT)
    assert window.state.analysis_pending and "Looking for races" in window.views["races"].summary.text()
    assert race_calls == []  # not analysed in the app: the run does it
    trace.analysis = analysis
    trace.save(path)  # as the worker writes it again, with its analysis
    window.runner._on_analysis_ready(AnalysisReady(path, 0, analysis))
    assert not window.state.analysis_pending
    assert "races: 1 location in 1 array" in window.views["races"].summary.text()
    assert race_calls == []


RACE = """
from numba import cuda

@cuda.jit
def k(a):
    for i in range(a.size):
        a[i] += 0.5
"""


def raise_dock_of(widget) -> None:
    """Bring the dock tab holding `widget` to the front, as a click on its tab does."""
    from PySide6.QtWidgets import QDockWidget

    while not isinstance(widget, QDockWidget):
        widget = widget.parentWidget()
    widget.raise_()


def test_the_element_story_behind_another_tab_is_told_when_its_tab_comes_to_the_front(qtbot, window):
    """A hidden tab costs the first frame nothing: the story is worked out when its tab is raised."""
    trace = gpuviz.trace(RACE, name="k", backend="sim", level="accesses")[8, 64](np.zeros(2, np.float32))
    story = window.views["story"]
    window.state.set_trace(trace)
    assert story.story is None  # behind the Lesson tab: not worked out yet
    raise_dock_of(story)
    qtbot.waitUntil(lambda: story.story is not None, timeout=RUN_TIMEOUT)
    assert story.story.lost > 0 and "updates" in story.summary.text()
    window.state.set_trace(None)
    window.state.set_trace(trace)  # in front now: told at once
    assert story.story is not None


def test_views_in_centre_tabs_behind_the_front_one_draw_when_their_tab_comes_to_the_front(qtbot, window):
    """The data view and the SM timeline wait while the Threads tab is in front, so the first frame
    of a big launch does not pay for them; picked, they show this launch."""
    trace = gpuviz.trace(RACE, name="k", backend="sim", level="accesses")[8, 64](np.zeros(2, np.float32))
    data, timeline = window.views["data"], window.views["timeline"]
    assert window.tabs.currentWidget() is window.views["grid"]
    window.state.set_trace(trace)
    assert data._last is None and timeline.spans is None  # behind: nothing worked out
    window.tabs.setCurrentWidget(data)
    assert data._last is not None and "elements written" in data.caption.text()
    assert timeline.spans is None
    window.tabs.setCurrentWidget(timeline)
    assert timeline.spans is not None and "8 blocks" in timeline.caption.text()
    window.tabs.setCurrentWidget(window.views["grid"])
    window.state.set_trace(None)
    window.state.set_trace(trace)
    assert data._last is None and timeline.spans is None


def test_opening_another_script_leaves_nothing_of_the_last_run(qtbot, window, tmp_path):
    """A new script clears the picture: no block outlines, labels, thread counts or steps of the last launch."""
    pick(window, "vector add")
    assert run_and_wait(qtbot, window) is True
    grid = window.views["grid"]
    window.state.set_frame(0)  # the replay's counts of running and finished threads
    assert not grid.outlines.path().isEmpty() and window.views["animation"].position.text() != "0 / 0"
    script = tmp_path / "other.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef one(a):\n    a[0] = 1\n"
                      "a = np.zeros(1)\none[1, 1](a)\n")  # fmt: skip
    window.open_path(script)
    assert window.state.trace is None and grid.caption.text().startswith("No trace yet")
    assert grid.outlines.path().isEmpty() and grid.states.text() == ""
    assert not any(item.isVisible() for item in grid.block_labels.items)
    assert window.views["animation"].position.text() == "0 / 0"


def test_a_racy_run_says_its_races_when_it_finishes(qtbot, window, tmp_path):
    """Races are no error (a lesson may race on purpose), but the finished line says them, as the command
    line's launch line does; a run without races says nothing of them."""
    script = tmp_path / "racy.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef count(c):\n    c[0] += 1\n"
                      "c = np.zeros(1, np.int32)\ncount[4, 64](c)\n")  # fmt: skip
    window.open_path(script)
    assert run_and_wait(qtbot, window) is True
    qtbot.waitUntil(lambda: window.status.text().startswith("finished"), timeout=RUN_TIMEOUT)
    assert "races: 1 location in 1 array (the Races tab)" in window.status.text()
    pick(window, "vector add")
    assert run_and_wait(qtbot, window) is True
    qtbot.waitUntil(lambda: window.status.text().startswith("finished"), timeout=RUN_TIMEOUT)
    assert "races" not in window.status.text()
