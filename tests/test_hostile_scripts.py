"""`gpuviz run` from the shell runs the script in a process of its own: a script that kills its
interpreter (a signal, os._exit) leaves one line saying which launch and line it had reached."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """import numpy as np
from numba import cuda

@cuda.jit
def double(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2 * a[i]

a = np.ones(64)
double[2, 32](a)
double[2, 32](a)
"""


def gpuviz_run(tmp_path, tail: str, *more: str) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT + tail)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "gpuviz", "run", str(script), "--backend", "sim",
                           "--out", str(tmp_path / "out"), *more], capture_output=True, text=True, env=env,
                          timeout=240)  # fmt: skip


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a process of its own needs fork")
@pytest.mark.parametrize(("tail", "words"), [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "killed by SIGSEGV during launch 1 (double, line 12"),
    ("import os\nos._exit(3)\n", "ended its Python process (exit status 3) during launch 1"),
], ids=["sigsegv", "os._exit"])  # fmt: skip
def test_a_script_that_kills_its_interpreter_leaves_one_line(tmp_path, tail, words):
    done = gpuviz_run(tmp_path, tail)
    assert done.returncode != 0 and done.returncode != -11
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and words in errors[0], done.stderr
    assert len(list((tmp_path / "out").glob("*.npz"))) == 2  # what it had traced is kept


def test_a_script_that_ends_well_keeps_its_output_and_status(tmp_path):
    done = gpuviz_run(tmp_path, "print('the end')\n")
    assert done.returncode == 0 and "the end" in done.stdout and "error" not in done.stderr


def test_a_script_error_is_still_one_line(tmp_path):
    done = gpuviz_run(tmp_path, "double[0, 32](a)\n")
    assert done.returncode == 1
    assert [line for line in done.stderr.splitlines() if line.startswith("error:")], done.stderr


def test_a_run_past_its_timeout_that_cannot_be_interrupted_is_still_one_line(tmp_path):
    tail = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(1000)\n"
    done = gpuviz_run(tmp_path, tail, "--timeout", "2")
    assert done.returncode == 124
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: timed out after 2 s"), done.stderr


@pytest.mark.parametrize("line", ["from numba.cuda import libdevice", "import numba.cuda.libdevice"])
def test_a_numba_cuda_module_the_simulator_lacks_is_named_in_words(tmp_path, line):
    done = gpuviz_run(tmp_path, line + "\n")
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode == 1 and len(errors) == 1, done.stderr
    assert "numba.cuda.libdevice is not available in gpuviz's simulator; run the script with --backend gpu" in errors[0]
    assert "shims" not in errors[0] and "RecursionError" not in errors[0]
