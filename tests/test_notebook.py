"""gpuviz in Jupyter: traces show themselves, gpuviz.show draws pictures and clips, the %%gpuviz magic
traces a cell, and the example notebook runs from top to bottom on the simulator."""

import base64
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6", reason="pictures need PySide6")
pytest.importorskip("imageio", reason="clips need imageio")

import imageio.v3 as iio

import gpuviz
from gpuviz.core.frames import frame_plan
from gpuviz.core.options import RunOptions
from gpuviz.notebook import trace_cell

NOTEBOOK = Path(__file__).parent.parent / "gpuviz" / "catalog" / "examples" / "notebook_intro.ipynb"
SQUARE = """
from numba import cuda

@cuda.jit
def square(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * x[i]
"""


@pytest.fixture(scope="module")
def trace():
    return gpuviz.trace(SQUARE, backend="sim")[2, 32](np.arange(50, dtype=np.float32))


def test_load_ext_makes_a_trace_show_its_summary_and_its_grid(trace):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    formats = shell.display_formatter.formatters
    formats["text/html"].pop(gpuviz.Trace, None)
    formats["image/png"].pop(gpuviz.Trace, None)
    assert shell.display_formatter.format(trace)[0].keys() == {"text/plain"}  # nothing registered on import
    shell.run_cell("%load_ext gpuviz", store_history=False)
    data = shell.display_formatter.format(trace)[0]
    html = data["text/html"]
    for wanted in ("square (launch 0)", "grid 2 x 1 x 1, block 32 x 1 x 1: 64 threads", "x float32(50,)", "none found"):
        assert wanted in html, wanted
    png = base64.b64decode(html.split("base64,")[1].split("'")[0])
    assert png == data["image/png"] and iio.imread(png).shape[:2] == (450, 800)


def test_show_gives_a_picture_or_a_clip(trace, monkeypatch):
    from IPython.display import Image

    picture = gpuviz.show(trace, view="timeline", at=0.5, size=(640, 400), scale=2)
    assert isinstance(picture, Image) and iio.imread(picture.data).shape[:2] == (800, 1280)
    clip = gpuviz.show(trace, animate=True, size=(320, 200), fps=4)
    frames = iio.imread(clip.data, index=None)
    assert clip.format == "gif" and frames.shape[:3] == (frame_plan(trace, "logical").count, 200, 320)
    monkeypatch.setitem(sys.modules, "IPython.display", None)  # no IPython: the bytes
    assert gpuviz.show(trace, size=(320, 200)).startswith(b"\x89PNG")


def test_a_cell_runs_with_its_launches_traced(capsys):
    namespace, shown = {"np": np}, []
    code = SQUARE + "x = np.arange(40, dtype=np.float32)\nsquare[1, 64](x)\nsquare[2, 32](x)\n"
    traces = trace_cell(code, namespace, RunOptions(backend="sim"), shown.append)
    assert [t.block for t in traces] == [(64, 1, 1), (32, 1, 1)] and shown == traces
    np.testing.assert_array_equal(namespace["x"], np.arange(40, dtype=np.float32) ** 4)
    assert capsys.readouterr().out.count("[gpuviz] 00") == 2


def test_the_magic_shows_a_picture_under_each_launch():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell.display_pub.publish = lambda data, **_: shown.append(data)
    shell.run_cell("%load_ext gpuviz", store_history=False)
    cell = "%%gpuviz --view data\nimport numpy as np\n" + SQUARE + "square[1, 16](np.ones(16, np.float32))\n"
    assert shell.run_cell(cell, store_history=False).success
    assert len(shown) == 1 and iio.imread(shown[0]["image/png"] if isinstance(shown[0]["image/png"], bytes)
                                          else base64.b64decode(shown[0]["image/png"])).shape[2] >= 3  # fmt: skip
    assert [t.kernel for t in shell.user_ns["gpuviz_traces"]] == ["square"]


def test_the_example_notebook_runs_on_the_simulator(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    outputs = [[o for o in cell.outputs] for cell in notebook.cells if cell.cell_type == "code"]
    kinds = [{kind for o in cell for kind in o.get("data", {})} for cell in outputs]
    magic_cells = [i for i, cell in enumerate(notebook.cells) if cell.source.startswith("%%gpuviz")]
    assert magic_cells and all("image/png" in kinds[sum(c.cell_type == "code" for c in notebook.cells[:i])]
                               for i in magic_cells)  # fmt: skip
    assert any("image/gif" in k for k in kinds) and any("text/html" in k for k in kinds)
    errors = [o for cell in outputs for o in cell if o.output_type == "error" or o.get("name") == "stderr"]
    assert not errors, errors
