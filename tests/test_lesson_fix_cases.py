"""Fix checks judge the fix, not its lines: every lesson with a fix has cases in tests/lesson_fixes/SLUG/, each
the lesson's script with one edit and, on its first line, the verdict it must get (`# expect: pass`, or
`# expect: fail: ` and how the reason begins). Wrong fixes (the misconception the lesson names, a shortcut
that gets the numbers without the fix, a warp sync where a block barrier is needed) fail for their reason;
right fixes written otherwise than the lesson's, with more lines, pass."""

from dataclasses import replace
from pathlib import Path

import pytest

from gpuviz.catalog import lessons
from gpuviz.run.demo import run_demo
from gpuviz.run.fix_check import check_fix, judge
from tests.full_size import FULL_SIZE

FIXES = Path(__file__).parent / "lesson_fixes"
WITH_FIX = [entry for entry in lessons() if entry.fix_checks]
CASES = sorted(FIXES.glob("*/*.py"))


def expectation(case: Path) -> tuple[bool, str]:
    """(passes, how the reason begins) from the case's first line."""
    first = case.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{case}: the first line says `# expect: pass` or `# expect: fail: ...`"
    said = first.removeprefix("# expect: ")
    return said == "pass", said.removeprefix("fail: ")


def lines_of_code(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip() and not line.startswith("# expect:"))


@pytest.mark.parametrize("case", [
    pytest.param(case, id=f"{case.parent.name}/{case.stem}",
                 marks=[pytest.mark.slow] if case.parent.name in FULL_SIZE else []) for case in CASES
])  # fmt: skip
def test_a_fix_is_judged_as_its_case_says(case):
    (entry,) = [entry for entry in WITH_FIX if entry.slug == case.parent.name]
    passes, reason = expectation(case)
    result = check_fix(entry, case, backend="sim")
    assert result.passed is passes, "\n".join(result.lines())
    if not passes:
        assert result.ran and result.reason.startswith(reason), result.reason  # it failed for its reason


@pytest.mark.parametrize("entry", WITH_FIX, ids=lambda entry: entry.name)
def test_every_lesson_with_a_fix_has_a_wrong_fix_and_a_right_one_that_moves_lines(entry):
    """A right fix with another number of lines than the lesson's script moves the lines after it, which a
    check by line number would have measured in the wrong place."""
    cases = sorted((FIXES / entry.slug).glob("*.py"))
    verdicts = [expectation(case)[0] for case in cases]
    assert False in verdicts, f"{entry.name}: no wrong fix in tests/lesson_fixes/{entry.slug}/"
    script = lines_of_code(entry.path)
    moved = [case.name for case, passes in zip(cases, verdicts) if passes and lines_of_code(case) != script]
    assert moved, f"{entry.name}: no right fix with another number of lines than the lesson's script"


def test_a_fix_check_the_backend_cannot_judge_is_not_passed_there(tmp_path):
    """`sim: warp_sync_divergence == 0` on a GPU's run: not judged, so not passed (a syncwarp inside the `if`
    must not pass by choosing the GPU), and the reason says where it is judged."""
    (entry,) = [entry for entry in WITH_FIX if entry.slug == "missing-syncthreads"]
    fixed = replace(entry, path=FIXES / f"{entry.slug}.py")  # the lesson's own fix
    traces = run_demo(fixed, tmp_path, backend="sim").session.traces
    assert judge(entry, "reference: ok", traces).passed
    for trace in traces:
        trace.meta["backend"] = "gpu"
    result = judge(entry, "reference: ok", traces)
    assert not result.passed
    assert result.reason.startswith("sim: warp_sync_divergence == 0 does not hold (the run: nothing to measure: only "
                                    "the simulator judges it")  # fmt: skip
