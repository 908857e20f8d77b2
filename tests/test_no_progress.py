"""A kernel that can never end is said in one line instead of hanging: a loop whose test is always true
and that has no way out (before it runs), and threads spinning on memory no running thread writes (while
it runs, on both engines). `--timeout` lets such a kernel run until the time is up instead."""

import ast
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpuviz
from gpuviz.core.errors import KernelError
from gpuviz.core.options import RunOptions
from gpuviz.instrument.endless import endless_loops
from gpuviz.run.session import Session

FLAG_WAIT = """from numba import cuda
@cuda.jit
def wait_for_flag(flag, out):
    i = cuda.grid(1)
    while flag[0] == 0:
        pass
    out[i] = 1
"""
LOCK_NEVER_RELEASED = """from numba import cuda
@cuda.jit
def lock_then_add(lock, total):
    if cuda.threadIdx.x == 0:
        while cuda.atomic.cas(lock, 0, 0, 1) != 0:
            pass
        total[0] += 1.0
"""
FLAG_SET_BY_ANOTHER_BLOCK = """from numba import cuda
@cuda.jit
def hand_over(flag, out):
    i = cuda.grid(1)
    if cuda.blockIdx.x == 0:
        out[i] = 1
        cuda.threadfence()
        if cuda.threadIdx.x == 0:
            flag[0] = 1
    else:
        while flag[0] == 0:
            pass
        out[i] = 2
"""
SAME_FEW_VALUES_A_WHILE = """from numba import cuda
@cuda.jit
def many_reads(a, out):
    i = cuda.grid(1)
    s = 0.0
    for k in range(2000):
        s += a[k % 4]
    out[i] = s
"""


@pytest.mark.parametrize("body, lines", [
    ("while True:\n    pass", [2]),
    ("while 1:\n    cuda.nanosleep(100)", [2]),
    ("while True:\n    for k in range(3):\n        break", [2]),  # the break is the inner loop's
    ("while True:\n    if a[0] > 1:\n        break", []),
    ("while True:\n    if a[0] > 1:\n        return", []),
    ("while a[0] == 0:\n    pass", []),
])  # fmt: skip
def test_loops_that_can_never_end_are_found_on_the_syntax_tree(body, lines):
    function = ast.parse("def k(a):\n" + textwrap.indent(body, "    ")).body[0]
    assert endless_loops(function) == [line for line in lines]


def test_a_kernel_that_never_ends_is_said_before_it_runs():
    src = "from numba import cuda\n@cuda.jit\ndef forever(out):\n    while True:\n        cuda.nanosleep(100)\n"
    with pytest.raises(KernelError, match=r"forever: never ends: the loop on line 4 .* no break, return or raise"):
        gpuviz.trace(src, backend="sim")[1, 32](np.zeros(32))


@pytest.mark.parametrize("engine", ["vector", "reference"])
@pytest.mark.parametrize("src, args, words", [
    (FLAG_WAIT, lambda: (np.zeros(1, np.int32), np.zeros(64, np.int32)), r"reading flag\[0\] = 0 over and over"),
    (LOCK_NEVER_RELEASED, lambda: (np.zeros(1, np.int32), np.zeros(1)), r"reading lock\[0\] = 1 over and over"),
])  # fmt: skip
def test_threads_spinning_on_memory_nobody_writes_are_stopped_with_the_line(src, args, words, engine):
    with pytest.raises(KernelError, match=r"no progress: .* spin on line \d+, " + words):
        gpuviz.trace(src, backend="sim", engine=engine)[2, 32](*args())


@pytest.mark.parametrize("src, args", [
    (FLAG_SET_BY_ANOTHER_BLOCK, lambda: (np.zeros(1, np.int32), np.zeros(64, np.int32))),
    (SAME_FEW_VALUES_A_WHILE, lambda: (np.ones(4), np.zeros(64))),
])  # fmt: skip
def test_kernels_that_end_are_not_stopped(src, args):
    trace = gpuviz.trace(src, backend="sim")[2, 32](*args())
    assert trace.n_threads == 64


def test_without_the_check_a_spinning_kernel_runs_until_stopped_from_outside():
    """`gpuviz run --timeout` turns the check off: the watchdog ends the run, saying where it was."""
    assert RunOptions().stop_stuck and not RunOptions(stop_stuck=False).stop_stuck
    Session(RunOptions(stop_stuck=False))  # accepted by a session


def test_the_command_line_says_it_in_one_line_and_timeout_waits_instead(tmp_path):
    script = tmp_path / "spin.py"
    script.write_text(FLAG_WAIT + "import numpy as np\nwait_for_flag[2, 32](np.zeros(1, np.int32), np.zeros(64, "
                      "np.int32))\n")  # fmt: skip
    run = [sys.executable, "-m", "gpuviz.cli", "run", str(script), "--backend", "sim", "--out", str(tmp_path / "o")]
    stuck = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert stuck.returncode == 1 and "no progress" in stuck.stderr and "Traceback" not in stuck.stderr
    waited = subprocess.run([*run, "--timeout", "2"], capture_output=True, text=True, timeout=300)
    assert waited.returncode != 0 and "timed out after 2 s" in waited.stderr and "no progress" not in waited.stderr


def test_reading_many_elements_over_and_over_is_not_a_spin():
    """A tiled matmul reads its tiles again and again between writes: more distinct reads than a spin makes
    (MAX_SEEN) is new data, never a spin, however long it goes on; a few elements read as long is one."""
    from gpuviz.backends.sim.reference.memory import ArrayTable
    from gpuviz.backends.sim.spin import CHECKS, MAX_SEEN, REPEATS, SpinWatch

    many = SpinWatch("tiles", ArrayTable())
    for k in range(CHECKS * 10):
        many.read(0, k % (MAX_SEEN + 1), 1.0, 23, lambda: "threads")
    few = SpinWatch("flag", ArrayTable())
    with pytest.raises(KernelError, match="no progress"):
        for k in range(CHECKS * 10):
            few.read(0, k % (CHECKS // REPEATS), 0.0, 5, lambda: "threads")


def test_many_threads_reading_one_tile_once_each_is_not_a_spin():
    """The reference engine runs a thread at a time and names it: 256 blocks of a tiled matmul read the same
    few tile elements with no write between, each thread each element once; that is not a spin. The same
    threads reading them again and again is."""
    from gpuviz.backends.sim.reference.memory import ArrayTable
    from gpuviz.backends.sim.spin import CHECKS, SpinWatch

    once = SpinWatch("tiles", ArrayTable())
    for k in range(CHECKS * 4):  # a new thread every 32 reads, the same 32 elements each time
        once.read(0, k % 32, float(k % 32), 23, lambda: "threads", thread=k // 32)
    again = SpinWatch("flag", ArrayTable())
    with pytest.raises(KernelError, match="no progress"):
        for k in range(CHECKS * 4):
            again.read(0, 0, 0.0, 5, lambda: "threads", thread=k % 64)
