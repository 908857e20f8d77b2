"""tools/execute_notebook.py fails a notebook on a cell's error or stray stderr, never on Python warnings alone
(numba warns that a small grid under-uses a GPU: the docs notebook's launches do, on the lent H200)."""

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "execute_notebook.py"
spec = importlib.util.spec_from_file_location("execute_notebook", TOOL)
execute_notebook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(execute_notebook)

NUMBA_WARNING = (
    "/opt/venv/numba_cuda/numba/cuda/dispatcher.py:748: NumbaPerformanceWarning: \x1b[1mGrid size 1 will likely "
    "result in GPU under-utilization due to low occupancy.\x1b[0m\n  warn(errors.NumbaPerformanceWarning(msg))\n"
)


def test_python_warnings_alone_are_not_problems():
    assert execute_notebook.only_warnings(NUMBA_WARNING)
    assert execute_notebook.only_warnings(NUMBA_WARNING * 2)


def test_a_traceback_or_other_stderr_is_a_problem():
    assert not execute_notebook.only_warnings("Traceback (most recent call last):\n  File x\nValueError: bad\n")
    assert not execute_notebook.only_warnings(NUMBA_WARNING + "something went wrong\n")
    assert not execute_notebook.only_warnings("")
