"""Fix checks that cannot be fooled: a student who wants "passed" without fixing the bug gets a failed check with
a one-line reason, whatever the file does: its host code never runs (a monkeypatch of the checker, os._exit,
a printed verdict, a trace file of its own), its kernels reach nothing a kernel cannot, and the worker is
stopped past its time or its resident memory. A lesson whose fix changes host code runs it, and says so."""

import shutil
from pathlib import Path

import pytest

from gpuviz.catalog import find, lessons
from gpuviz.cli import main
from gpuviz.run.fix_check import HOST_RAN, FixLimits, check_fix

LESSON = find("missing-syncthreads")
BUGGY = LESSON.source
FIXED = (Path(__file__).parent / "lesson_fixes" / "missing-syncthreads.py").read_text()
QUICK = FixLimits(seconds=20, startup=60)
FIRST = "    t = cuda.threadIdx.x\n"  # the kernel's first line: tricks in a kernel go after it

HOST_TRICKS = {
    # name: (host code, and whether it goes after the launch, where it would replace the run's trace)
    "the_checkers_operators_replaced": (
        "import gpuviz.catalog.checks as checks\n"
        "checks.OPERATORS = {op: (lambda a, b: True) for op in checks.OPERATORS}\n", False),
    "os_exit_0": ("import os\nos._exit(0)\n", False),
    "a_printed_verdict": ("print('fix check: passed')\nraise SystemExit(0)\n", False),
    "its_own_trace_file": (
        "import glob, shutil\n"
        "for folder in glob.glob(GLOB, recursive=True):\n"
        "    shutil.copy(GOOD, folder + '/000-block_sum.npz')\n", True),
    "an_endless_loop": ("while True:\n    pass\n", False),
    "memory_growth": ("grown = []\nwhile True:\n    grown.append(b'x' * (64 << 20))\n", False),
}  # fmt: skip


def with_trick(script: str, name: str, **words: str) -> str:
    """The script with a trick of host code where it would work, if host code ran."""
    trick, after = HOST_TRICKS[name]
    for word, value in words.items():
        trick = trick.replace(word, repr(value))
    at = len(script) if after else script.index("values = np.ones")
    return script[:at] + trick + script[at:]


@pytest.fixture(scope="module")
def good_trace(tmp_path_factory) -> Path:
    """A trace of the fixed lesson, which passes: what a forger would copy."""
    out = tmp_path_factory.mktemp("good")
    script = out / LESSON.path.name
    script.write_text(FIXED)
    assert check_fix(LESSON, script, out / "traces", backend="sim").passed
    return next((out / "traces").glob("*/000-*.npz"))


@pytest.mark.parametrize("name", sorted(HOST_TRICKS))
def test_host_code_never_runs_so_no_trick_there_passes(name, tmp_path, good_trace, capfd):
    script = tmp_path / LESSON.path.name
    script.write_text(with_trick(BUGGY, name, GLOB=str(tmp_path / "**" / "fix-check-*"), GOOD=str(good_trace)))
    options = ["--backend", "sim", "--out", str(tmp_path / "traces"), "--timeout", "20"]
    assert main(["demo", LESSON.name, "--check-fix", str(script), *options]) == 1
    out = capfd.readouterr().out
    verdicts = [line for line in out.splitlines() if line.startswith("fix check:")]
    assert len(verdicts) == 1 and verdicts[0].startswith("fix check: not yet: ")
    assert "does not hold" in verdicts[0]  # the lesson's script ran with the buggy kernel, to its end
    (trace,) = tmp_path.glob("traces/fix-check-*/*.npz")
    assert trace.read_bytes() != good_trace.read_bytes()  # the run's own trace, not a copy of a good one


KERNEL_TRICKS = {
    # name: (a line added to the kernel, the reason's words)
    "os_in_a_kernel": ("os.abort()", "'os' is not something a kernel in a fix check may use"),
    "os_exit_in_a_kernel": ("os._exit(0)", "._exit: attributes that start with _ are not for kernels"),
    "a_trace_file_written_by_a_kernel": ("np.save('000-block_sum.npz', values)", "np.save is not something"),
    "the_checker_reached_from_a_kernel": ("cuda.jit.__globals__", "attributes that start with _"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(KERNEL_TRICKS))
def test_a_kernel_reaches_nothing_a_kernel_cannot(name, tmp_path):
    line, words = KERNEL_TRICKS[name]
    script = tmp_path / LESSON.path.name
    script.write_text("import os\n" + FIXED.replace(FIRST, f"{FIRST}    {line}\n"))
    result = check_fix(LESSON, script, backend="sim", limits=QUICK)
    assert not result.passed and not result.ran and words in result.reason and "\n" not in result.reason
    assert result.reason.startswith(f"line {script.read_text().splitlines().index('    ' + line) + 1}: ")


def test_what_a_kernel_prints_never_reaches_the_verdict(tmp_path, capfd):
    script = tmp_path / LESSON.path.name
    script.write_text(BUGGY.replace(FIRST, f"{FIRST}    print('fix check: passed')\n"))
    assert main(["demo", LESSON.name, "--check-fix", str(script), "--backend", "sim", "--out", str(tmp_path)]) == 1
    printed = capfd.readouterr()
    assert "fix check: passed" not in printed.out + printed.err and "fix check: not yet" in printed.out


def test_an_endless_kernel_is_stopped_and_says_where(tmp_path):
    script = tmp_path / LESSON.path.name
    script.write_text(BUGGY.replace(FIRST, f"{FIRST}    while t >= 0:\n        t += 1\n"))
    result = check_fix(LESSON, script, backend="sim", limits=FixLimits(seconds=3, startup=60))
    assert not result.passed and not result.ran and "\n" not in result.reason
    loop = [n for n, line in enumerate(script.read_text().splitlines(), 1) if "t >= 0" in line or "t += 1" in line]
    assert result.reason.startswith("timed out after 3 s in kernel block_sum")
    assert any(f"line {n};" in result.reason for n in loop), result.reason


def test_work_python_cannot_interrupt_is_stopped_from_outside(tmp_path):
    script = tmp_path / LESSON.path.name
    script.write_text(BUGGY.replace("THREADS = 64\n", "THREADS = 64\nHUGE = 10 ** 10 ** 10\n"))  # a constant: taken
    result = check_fix(LESSON, script, backend="sim", limits=FixLimits(seconds=2, startup=10))
    assert not result.passed and not result.ran and result.reason.startswith("stopped")


def test_memory_growth_is_stopped_by_resident_memory(tmp_path):
    script = tmp_path / LESSON.path.name
    script.write_text(BUGGY.replace("THREADS = 64\n", "THREADS = 64\nPAD = (0,) * (300 * 1000 * 1000)\n"))
    result = check_fix(LESSON, script, backend="sim", limits=FixLimits(memory=512 << 20))
    assert not result.passed and not result.ran
    assert result.reason.startswith("stopped: it held ") and "over the limit of 512.0 MiB" in result.reason


HOST_LESSON = """from numba import cuda
import numpy as np


@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i


a = np.zeros(100, np.float32)
fill[1, 64](a)
"""
HOST_TEXT = """# Filling an array
One block of 64 threads fills an array.

## Question
What is a[99]?

## Answer
0: only 64 threads.

## Fix
Launch two blocks: `fill[2, 64](a)`.

## Fix checks
a[99] == 99

## Run
host-fix
"""


@pytest.fixture
def host_lesson(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "01-fill.py").write_text(HOST_LESSON)
    (folder / "01-fill.md").write_text(HOST_TEXT)
    (entry,) = lessons(folder)
    return entry


@pytest.mark.parametrize(("change", "words"), [
    ("fill[2, 64](a)", None),
    ("import os\nos._exit(0)", "the script ended its Python process (exit status 0) before the lesson's script"),
    (HOST_TRICKS["memory_growth"][0], "stopped: it held "),
    (HOST_TRICKS["an_endless_loop"][0], "timed out after 5 s in 01-fill.py line 1"),
])  # fmt: skip
def test_a_lesson_whose_fix_changes_host_code_runs_it_watched_and_says_so(host_lesson, tmp_path, change, words):
    assert host_lesson.host_fix
    script = tmp_path / "01-fill.py"
    script.write_text(HOST_LESSON.replace("fill[1, 64](a)", change))
    result = check_fix(host_lesson, script, backend="sim", limits=FixLimits(seconds=5, memory=512 << 20))
    assert result.host_ran and (words is None) == result.passed
    if words is None:
        assert result.lines()[:2] == ["fix check: passed", f"note: {HOST_RAN}"]
    else:
        assert not result.ran and result.reason.startswith(words) and "\n" not in result.reason


def test_a_check_the_app_stops_ends_its_worker(tmp_path):
    import threading

    cancel = threading.Event()
    cancel.set()
    shutil.copy(LESSON.path, tmp_path / LESSON.path.name)
    result = check_fix(LESSON, tmp_path / LESSON.path.name, backend="sim", cancel=cancel)
    assert not result.ran and result.reason == "stopped before it finished"


@pytest.mark.parametrize(("options", "said"), [
    (["--timeout", "5"], "--timeout 5 limits a fix check: give --check-fix FILE too"),
    (["--check-fix", str(LESSON.path), "--timeout", "0"], "--timeout 0: give a number of seconds above 0"),
    (["--check-fix", str(LESSON.path), "--timeout", "nan"], "--timeout nan: give a number of seconds above 0"),
])  # fmt: skip
def test_a_bad_timeout_is_one_line(options, said, capsys):
    assert main(["demo", LESSON.name, *options]) == 1
    assert capsys.readouterr().err.strip() == f"error: {said}"
