"""Two launches side by side: the differences a teacher reads, and both grids following one cursor."""

from dataclasses import replace
from pathlib import Path

import pytest

from gpuviz.catalog import find
from gpuviz.core.analysis.compare import compare_launches
from gpuviz.core.numbers import number
from gpuviz.run.demo import run_demo

HISTOGRAMS = Path(__file__).parent / "data" / "racy_and_atomic_histogram.py"


@pytest.fixture(scope="module")
def histogram(tmp_path_factory):
    """The racy histogram of lesson 11 (launch 0) and the atomic one (launch 1), in one run."""
    entry = replace(find("histogram"), path=HISTOGRAMS)
    return run_demo(entry, tmp_path_factory.mktemp("h"), backend="sim").session.traces


def test_the_differences_of_a_racy_and_a_fixed_launch(histogram):
    racy, fixed = histogram
    rows = {what: (this, other) for what, this, other in compare_launches(racy, fixed)}
    assert rows["kernel"] == (racy.kernel, fixed.kernel)
    assert rows["races"][0].startswith("races: ") and rows["races"][0] != "races: none found"
    assert rows["races"][1] == "races: none found"
    assert "elements differ" in rows["bins after"][0]
    assert rows["bins after"][1] == f"sum {number(fixed.after('bins').sum())}"
    assert "over" in rows["global sectors per request"][0]


def test_a_launch_compared_with_itself_differs_in_nothing(histogram):
    rows = {what: (this, other) for what, this, other in compare_launches(histogram[1], histogram[1])}
    assert rows["bins after"][0].endswith("the same")


def test_the_compare_view_shows_both_at_one_cursor(qtbot, histogram):
    pytest.importorskip("PySide6", reason="the view needs PySide6")
    from gpuviz.app.views.table import make_view
    from gpuviz.scene.state import AppState

    state = AppState()
    view = make_view("compare", state)
    qtbot.addWidget(view)
    racy, fixed = histogram
    state.set_trace(racy, [racy, fixed])
    assert [row[0] for row in view.rows()][:2] == ["kernel", "launch"]
    assert view.mirrors[0].trace is racy and view.mirrors[1].trace is fixed
    state.set_frame(0)
    assert view.mirrors[0].frame == 0 and view.mirrors[1].frame == 0
    state.set_frame(state.plan.count - 1)
    assert view.mirrors[1].frame == view.mirrors[1].plan.count - 1  # both at the end of their runs
    differing = view.differing_rows()  # drawn bold on the highlight: exactly the rows whose values differ
    assert differing == [row[0] for row in view.rows() if row[0] != "kernel" and row[1] != row[2]]
    assert "races" in differing and "launch" not in differing
    from gpuviz.app.views.compare_view import differing

    assert not differing(["kernel", "histogram_racy", "histogram_atomic"])  # two kernels are two names
    assert not differing(["races", "none", "none"]) and differing(["races", "3", "none"])


def test_two_launches_on_one_colour_scale():
    """Coloured by duration, the slower launch is bright and the faster dark: one scale for both (each on
    its own scale, two uniform launches would both be the ramp's first colour)."""
    import numpy as np

    import gpuviz
    from gpuviz.core.colors import coloring, shared_span

    src = ("from numba import cuda\n@cuda.jit\ndef k(a, n):\n    i = cuda.grid(1)\n    s = 0.0\n"
           "    for j in range(n):\n        s += 1.0\n    a[i] = s\n")  # fmt: skip
    slow, fast = (gpuviz.trace(src, backend="sim")[2, 32](np.zeros(64), n) for n in (400, 50))
    span = shared_span([slow, fast], "duration")
    assert span[0] <= (fast.threads["t_end"] - fast.threads["t_start"]).min()
    slow_codes = coloring(slow, "duration", span=span).codes
    fast_codes = coloring(fast, "duration", span=span).codes
    assert slow_codes.min() > fast_codes.max()
    alone = [set(coloring(t, "duration").codes.tolist()) for t in (slow, fast)]
    assert alone[0] == alone[1]  # each on its own scale, the two would look the same
    assert shared_span([slow, fast], "block") is None


def test_launches_without_an_access_log_compare_without_memory_rows():
    """At level threads the memory report has no rows (None): the table says 'not measured', and the app's first
    frame, drawn before any report, does not fail on it."""
    import numpy as np

    import gpuviz

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
    traces = [gpuviz.trace(src, backend="sim", level="threads")[2, 32](np.zeros(64)) for _ in range(2)]
    rows = {what: (this, other) for what, this, other in compare_launches(*traces)}
    assert rows["global sectors per request"] == ("not measured", "not measured")


@pytest.fixture(scope="module")
def three_ways(tmp_path_factory):
    """The library-block-sum lesson's run: the tree (launch 0), CCCL's block sum (1), the matmul (2)."""
    entry = find("library-block-sum")
    return entry, run_demo(entry, tmp_path_factory.mktemp("l"), backend="sim").session.traces


def test_the_compare_view_shows_the_partner_a_scene_names(qtbot, three_ways):
    """The lesson's evidence names the launch beside the shown one; a scene naming another one (or the
    choice above the pictures) moves both the grid and the table to it."""
    pytest.importorskip("PySide6", reason="the view needs PySide6")
    from gpuviz.app.views.table import make_view
    from gpuviz.catalog.evidence import resolve
    from gpuviz.scene.state import AppState

    entry, traces = three_ways
    state = AppState()
    view = make_view("compare", state)
    qtbot.addWidget(view)
    shown = traces[entry.evidence.launch]
    state.apply(resolve(entry.evidence, shown, launches=tuple(traces)))
    assert view.mirrors[0].trace is shown and view.mirrors[1].trace is traces[entry.evidence.partner]
    assert view.rows()[0] == ["kernel", "library_sum", "tree_sum"]
    state.apply(replace(state.scene(), partner=2))  # the matmul, which is not the first other launch
    assert view.mirrors[1].trace is traces[2] and view.rows()[0] == ["kernel", "library_sum", "matmul_sum"]
    assert view.other.currentText().startswith("launch 2")
    with qtbot.waitSignal(state.partner_changed):
        view.other.setCurrentIndex(view.other.findData(0))  # the choice above the pictures is the scene's
    assert state.scene().partner == 0 and view.mirrors[1].trace is traces[0]


def test_a_partner_that_is_not_another_launch_is_one_line(three_ways):
    from gpuviz.core.errors import GpuvizError
    from gpuviz.scene.scene import Scene

    _, traces = three_ways
    with pytest.raises(GpuvizError, match=r"compare with launch 3: the run has launches 0 to 2$"):
        Scene(traces[1], tuple(traces), partner=3)
    with pytest.raises(GpuvizError, match="that is the launch shown"):
        Scene(traces[1], tuple(traces), partner=1)


def test_render_puts_the_launch_it_is_given_beside(tmp_path, three_ways, monkeypatch):
    from gpuviz.app.pictures import render
    from gpuviz.cli import main

    _, traces = three_ways
    paths = [traces[k].save(tmp_path / f"{k}.npz") for k in (1, 2)]
    drawn = []
    monkeypatch.setattr(render, "render_picture", lambda scene, view, out, options: drawn.append((scene, view)) or out)
    out = str(tmp_path / "c.png")
    assert main(["render", str(paths[0]), "--view", "compare", "--compare-with", str(paths[1]), "--out", out]) == 0
    ((scene, view),) = drawn
    assert view == "compare" and scene.trace.kernel == "library_sum"
    assert scene.launches[scene.partner].kernel == "matmul_sum"
    assert main(["render", str(paths[0]), "--compare-with", str(paths[1]), "--out", out]) == 1  # not --view compare
