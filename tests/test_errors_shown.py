"""Errors where they happened: after a run with memory errors or barrier divergence, the faulting line is
marked in the editor with its count, the threads in the grid, and a banner and the status say it in words."""

import subprocess
import sys

import pytest

pytest.importorskip("PySide6", reason="the app's tests need PySide6")

from gpuviz.catalog import find

from .test_app import pick, run_and_wait, window  # noqa: F401 (the fixture)

SCRIPT = """\
import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    {body}


n = 1000
a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
add[4, 256](a, b, c)  # 1,024 threads for 1,000 elements: no bounds check
"""


def run_script_in(qtbot, win, tmp_path, body: str) -> None:
    path = tmp_path / "oob.py"
    path.write_text(SCRIPT.format(body=body))
    win.open_path(path)
    assert run_and_wait(qtbot, win) is True
    qtbot.waitUntil(lambda: win.status.text().startswith("finished"), timeout=10_000)


@pytest.mark.parametrize("body, said", [
    ("c[i] = a[i] + b[i]", "24 out-of-bounds reads: first, thread 1,000 read a[1,000] on line 8; a has 1,000 elements"),
    ("c[i] = 1.0", "24 out-of-bounds writes: first, thread 1,000 wrote c[1,000] on line 8; c has 1,000 elements"),
])  # fmt: skip
def test_out_of_bounds_accesses_are_marked_where_they_happened(qtbot, window, tmp_path, body, said):  # noqa: F811
    run_script_in(qtbot, window, tmp_path, body)
    assert window.status.text().startswith("finished with 24 memory errors: 1 launch(es) traced")
    assert window.editor.error_counts == {8: 24}  # the faulting line, with its count in the gutter
    assert window.views["grid"].faults.marked() == 24  # the faulting threads, marked in the grid
    assert window.error_banner.isVisible() and said in window.error_banner.text()


def test_a_clean_run_says_finished_and_marks_nothing(qtbot, window, tmp_path):  # noqa: F811
    run_script_in(qtbot, window, tmp_path, "if i < c.size:\n        c[i] = a[i] + b[i]")
    assert window.status.text().startswith("finished: 1 launch(es) traced")
    assert window.editor.error_counts == {} and not window.error_banner.isVisible()
    assert window.views["grid"].faults.marked() == 0


def test_barrier_divergence_is_named_as_such(qtbot, window):  # noqa: F811
    pick(window, "barrier-divergence")
    assert run_and_wait(qtbot, window) is True
    qtbot.waitUntil(lambda: window.status.text().startswith("finished"), timeout=10_000)
    status = window.status.text()
    assert status.startswith("finished with barrier divergence in 2 blocks") and "memory error" not in status
    banner = window.error_banner.text()
    said = "barrier divergence in 2 blocks: thread 63 never reached the barrier on line 15, where thread 0 waits"
    assert said in banner
    assert "memory error" not in banner
    assert window.editor.error_counts == {15: 2}
    assert window.views["grid"].faults.marked() == 4  # 63 and 127 skipped; 0 and 64 wait
    output = window.state.output
    assert "memory errors" not in output and "thread (63,0,0) never reached the barrier" in output


def test_the_cli_still_exits_1_on_barrier_divergence(tmp_path):
    script = str(find("barrier-divergence").path)
    done = subprocess.run([sys.executable, "-m", "gpuviz", "run", script, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1 and "barrier divergence" in done.stderr + done.stdout
