"""Every number a lesson's text states (its `## Checks`) holds on a run of the lesson, and every
lesson with a bug has a fix (tests/lesson_fixes/) that passes its `## Fix checks` where the lesson
itself does not. The checks are parsed from the text; nothing here is filled in from a run."""

import os
from pathlib import Path

import pytest

from gpuviz.catalog import find, lessons
from gpuviz.catalog.checks import check_launches, parse_check, parse_checks
from gpuviz.cli import main
from gpuviz.core.errors import GpuvizError
from gpuviz.run.demo import lesson_checks, run_demo
from gpuviz.run.fix_check import check_fix
from tests import full_size
from tests.optional_libraries import missing_library

LESSONS = lessons()
FIXES = Path(__file__).parent / "lesson_fixes"
WITH_FIX = [entry for entry in LESSONS if entry.fix_checks]


def test_a_check_line_parses_into_its_parts():
    check = parse_check("launch 1: sim: sectors(17, C, write) >= 8")
    assert (check.launch, check.where, check.measure, check.args, check.op, check.value) == (
        1,
        "sim",
        "sectors",
        ("17", "C", "write"),
        ">=",
        8.0,
    )
    assert parse_check("array[0] == 0.5").args == ("array", "0")
    assert parse_check("lost(array) == 131,070").value == 131070
    assert [c.measure for c in parse_checks("# a comment\n\nraces == 0\n- `sum(c) == 4`\n")] == ["races", "sum"]


@pytest.mark.parametrize("line", ["races", "array[0] = 1", "volume(a) == 3", "races == many"])
def test_a_bad_check_line_says_how_to_write_one(line):
    with pytest.raises(GpuvizError, match="check"):
        parse_check(line)


@pytest.mark.parametrize("entry", full_size.entries(LESSONS))
def test_every_number_a_lesson_states_holds_on_the_simulator(entry, tmp_path):
    assert entry.checks, f"{entry.name} states no checkable number (add a `## Checks` section)"
    outcomes = lesson_checks(entry, run_demo(entry, tmp_path, backend="sim"))
    failed = [str(outcome) for outcome in outcomes if not outcome.passed]
    assert not failed, f"{entry.name}: " + "; ".join(failed)


@pytest.mark.gpu
@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_every_number_a_lesson_gives_for_hardware_holds_on_the_gpu(entry, tmp_path):
    """The checks not marked `sim:` (numbers that follow from the code, and measured hardware figures)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        pytest.skip("lessons launch up to 16.8 million threads: too slow for numba's CUDA simulator")
    missing = missing_library(entry.path)
    if missing:
        pytest.skip(f"the lesson imports {missing}, which is not installed here (gpuviz[nvmath] / gpuviz[cccl])")
    outcomes = lesson_checks(entry, run_demo(entry, tmp_path, backend="gpu"))
    failed = [str(outcome) for outcome in outcomes if not outcome.passed]
    assert not failed, f"{entry.name} on the GPU: " + "; ".join(failed)


@pytest.mark.parametrize("entry", full_size.entries(WITH_FIX))
def test_a_lessons_fix_passes_its_check_and_the_lesson_does_not(entry, tmp_path):
    fixed = FIXES / f"{entry.slug}.py"
    assert fixed.is_file(), f"no fixed version of {entry.name} in tests/lesson_fixes"
    result = check_fix(entry, fixed, tmp_path / "fixed", backend="sim")
    assert result.passed, "\n".join(result.lines())
    unfixed = check_fix(entry, entry.path, tmp_path / "unfixed", backend="sim")
    assert not unfixed.passed, f"{entry.name}'s own script already passes its fix check"


def test_a_check_on_a_launch_the_script_never_made_fails(tmp_path):
    entry = LESSONS[0]
    traces = run_demo(entry, tmp_path, backend="sim").session.traces
    (outcome,) = check_launches([parse_check("launch 5: races == 0")], traces, "sim")
    assert not outcome.passed and "nothing to measure" in str(outcome)


def test_the_cli_checks_a_fix_and_says_pass_or_not(tmp_path, capsys):
    lesson, fixed = find("missing-syncthreads"), str(FIXES / "missing-syncthreads.py")
    options = ["--backend", "sim", "--out", str(tmp_path / "t")]
    assert main(["demo", lesson.name, "--check-fix", fixed, *options]) == 0
    assert "fix check: passed" in capsys.readouterr().out
    assert main(["demo", lesson.name, "--check-fix", str(lesson.path), *options]) == 1
    assert "FAILED: races == 0" in capsys.readouterr().out
    assert main(["demo", "one-thread", "--check-fix", fixed, *options]) == 1
    assert "has no fix to check" in capsys.readouterr().err


TEACHER_SCRIPT = """from numba import cuda
import numpy as np


@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i


a = np.zeros(100, np.float32)
fill[1, 128](a)
"""
TEACHER_TEXT = """# Filling an array
One thread per element, one block of 128.

## Question
What is a[99]?

## Answer
99.

## Explanation
Thread i writes i.

## Checks
a[99] == {value}
sum(a) == 4950
"""


def test_a_teachers_lessons_are_listed_run_and_checked(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "01-fill.py").write_text(TEACHER_SCRIPT)
    (folder / "01-fill.md").write_text(TEACHER_TEXT.format(value=99))
    assert main(["list", "--lessons", str(folder)]) == 0
    assert any(line.startswith("01-fill") and "lesson" in line for line in capsys.readouterr().out.splitlines())
    options = ["--lessons", str(folder), "--backend", "sim", "--out", str(tmp_path / "t")]
    assert main(["demo", "01-fill", *options]) == 0
    assert "the lesson's numbers: 2 of 2 hold" in capsys.readouterr().out
    (folder / "01-fill.md").write_text(TEACHER_TEXT.format(value=98))  # a wrong text fails its check
    assert main(["demo", "01-fill", *options]) == 0
    assert "FAILED: a[99] == 98 (the run: 99)" in capsys.readouterr().out
    assert main(["list", "--lessons", str(tmp_path / "nope")]) == 1
    assert "no such folder" in capsys.readouterr().err
