"""Checks name accesses by source text or a label in the script, not by line number: the text and the label
find the same lines after a line is added; a place that matches nothing in a lesson's script is a load-time
error naming the lesson, the section and the check; `## Fix checks` refuse line numbers."""

import numpy as np
import pytest

from gpuviz.catalog import lessons
from gpuviz.catalog.checks import evaluate, parse_check
from gpuviz.catalog.places import Place, lines_of, place_of

KERNEL = """import numpy as np
from numba import cuda


@cuda.jit
def copy_2d(a, b):
    row, col = cuda.grid(2)  # check: index
    if row < a.shape[0] and col < a.shape[1]:
        b[row, col] = a[row, col]  # check: copy, the-copy
    # a[row, col] in a comment is not code


rows = a[0, 0]  # a[row, col] outside a kernel is not one of its lines
"""


def test_a_check_with_quoted_text_parses_into_its_arguments():
    check = parse_check('launch 1: sim: sectors("b[y, x] = tile[tx, ty]", b, write) == 4')
    assert (check.launch, check.where, check.args, check.op, check.value) == (
        1, "sim", ('"b[y, x] = tile[tx, ty]"', "b", "write"), "==", 4.0)  # fmt: skip
    assert parse_check('lanes("if i < n == 3", out) <= 16').args == ('"if i < n == 3"', "out")
    assert [place_of(a) for a in ('"x[i]"', "store-C", "17", "a b")] == [
        Place("text", "x[i]"), Place("label", "store-C"), Place("line", "17"), None]  # fmt: skip


def test_text_and_labels_name_kernel_code_lines_only():
    assert lines_of(Place("text", "a[row,col]"), KERNEL) == [9]  # spaces do not count; not the comment or host
    assert lines_of(Place("text", "cuda.grid(2)"), KERNEL) == [7]
    assert lines_of(Place("label", "copy"), KERNEL) == [9] == lines_of(Place("label", "the-copy"), KERNEL)
    assert lines_of(Place("label", "nothing"), KERNEL) == [] == lines_of(Place("text", "c[row"), KERNEL)


def test_a_place_finds_its_line_after_a_line_is_added(sim_run):
    added = KERNEL.replace("    row, col = cuda.grid(2)  # check: index\n",
                           "    col, row = cuda.grid(2)  # check: index\n    row, col = col, row\n")  # fmt: skip
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    for source in (KERNEL, added):
        trace = sim_run(source.replace("rows = a[0, 0]", "rows = 0"), (2, 2), (32, 32), a, np.zeros_like(a),
                        level="accesses")  # fmt: skip
        by_text = evaluate(parse_check('sectors("b[row, col]", b) == 32'), trace)
        by_label = evaluate(parse_check("sectors(copy, a) == 32"), trace)
        assert by_text.passed and by_label.passed, (by_text, by_label)  # the row per lane: a sector per lane


@pytest.mark.parametrize(("body", "sectors"), [
    ("    row, col = cuda.grid(2)\n    b[row, col] = a[row, col]\n", 32),
    ("    x, y = cuda.grid(2)\n    b[x, y] = a[x, y]\n", 32),  # the same accesses, in other words
    ("    row, col = cuda.grid(2)\n    b[col, row] = a[col, row]\n", 4),  # x on the last index: coalesced
    ("    row, col = cuda.grid(2)\n    row, col = col, row\n    value = a[row, col]\n    b[row, col] = value\n", 4),
])  # fmt: skip
def test_a_kernels_name_is_every_line_of_it_however_they_are_written(sim_run, body, sectors):
    source = "from numba import cuda\n\n\n@cuda.jit\ndef copy_2d(a, b):\n" + body
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    trace = sim_run(source, (2, 2), (32, 32), a, np.zeros_like(a), level="accesses")
    assert evaluate(parse_check("sectors(copy_2d, a) == 0"), trace).observed == sectors
    assert evaluate(parse_check("sectors(copy_2d, b) == 0"), trace).observed == sectors


def test_a_place_the_run_does_not_have_fails_and_says_why(sim_run):
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    trace = sim_run(KERNEL.replace("rows = a[0, 0]", "rows = 0"), 1, (8, 8), a, np.zeros_like(a))
    missing = evaluate(parse_check('sectors("c[row, col]", b) == 4'), trace)
    assert not missing.passed and 'no line of the kernels contains "c[row, col]"' in str(missing)
    unlabelled = evaluate(parse_check("sectors(store, b) == 4"), trace)
    assert "none of the kernels is named store, and no line of them is labelled `# check: store`" in str(unlabelled)
    elsewhere = evaluate(parse_check("sectors(index, b) == 4"), trace)
    assert "no access of b at index" in str(elsewhere)


SCRIPT = KERNEL.replace("rows = a[0, 0]", "a = np.zeros((64, 64), np.float32)\ncopy_2d[(2, 2), (32, 32)](a, a.copy())")


@pytest.mark.parametrize(("section", "check", "words"), [
    ("Fix checks", 'sectors("c[row, col]", b) == 4', ['"c[row, col]"', "no line of the script's kernels contains"]),
    ("Checks", "sectors(store-b, b) == 4", ["none of the script's kernels is named store-b", "# check: store-b"]),
    ("Fix checks", "sectors(9, b) == 4", ["not by line number", "a fix that adds a line moves it"]),
    ("Checks", "sectors(a b, b) == 4", ["the first argument is where"]),
])  # fmt: skip
def test_a_place_that_matches_nothing_is_a_load_time_error_naming_lesson_section_and_check(tmp_path, section, check,
                                                                                             words):  # fmt: skip
    (tmp_path / "01-copy.py").write_text(SCRIPT)
    (tmp_path / "01-copy.md").write_text(f"# Copy\nA copy.\n\n## {section}\n{check}\n")
    problems: list[str] = []
    assert lessons(tmp_path, problems) == [] and len(problems) == 1
    assert problems[0].startswith(f"01-copy.md, ## {section}: {check!r}"), problems
    assert all(word in problems[0] for word in words), problems


def test_line_numbers_still_name_lines_of_the_lessons_own_numbers(tmp_path):
    (tmp_path / "01-copy.py").write_text(SCRIPT)
    (tmp_path / "01-copy.md").write_text('# Copy\nA copy.\n\n## Checks\nsectors(9, b) == 4\n\n## Fix checks\n'
                                         'sectors("b[row, col]", b) == 4\nsectors(copy, a) == 4\n')  # fmt: skip
    (entry,) = lessons(tmp_path, [])
    assert [c.args[0] for c in entry.checks + entry.fix_checks] == ["9", '"b[row, col]"', "copy"]
