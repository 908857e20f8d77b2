"""A lesson checked when it loads, before anything runs: its `## Run` line passes the checks the CLI's
options pass, and its `## Checks` and `## Fix checks` name measures with the right arguments, arrays the
script's kernel has and launches the script makes (read from the text, as program/dry_launches.py does). Each problem is one line naming the file, the section
and what is wrong (LessonProblem); the catalog skips that lesson and loads every other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from gpuviz.catalog.checks import PLACED, Check, parse_checks, place
from gpuviz.catalog.places import lines_of
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.core.streams import MEASURES as TIMELINE
from gpuviz.instrument.ufunc_kernel import is_vectorized, kernel_names

RUN_FLAGS = ("race", "host-fix")
RUN_NUMBERS = ("sms", "launch")
# measure: (fewest, most arguments), the position of its array argument (None: none)
ARGUMENTS = {
    "element": (2, 2, 0), "sum": (1, 1, 0), "max": (1, 1, 0), "min": (1, 1, 0), "cycles": (1, 1, None),
    "blocks": (0, 0, None), "threads": (0, 0, None), "warps": (0, 0, None), "races": (0, 1, None), "reads": (1, 2, 0),
    "atomics": (1, 2, 0), "writes": (1, 2, 0), "resident_blocks": (0, 0, None), "sm_blocks": (0, 0, None),
    "barrier_divergence": (0, 0, None), "warp_sync_divergence": (0, 0, None), "errors": (0, 0, None), "lost": (1, 1, 0), "sectors": (2, 3, 1),
    "lanes": (2, 3, 1), "conflicts": (2, 3, 1), "turns": (2, 3, 1), "occupancy": (0, 0, None), "blocks_per_sm": (0, 0, None),
    "limit": (1, 1, None), "copies": (0, 0, None), "copied_bytes": (0, 0, None), "bits": (1, 1, None), "timeline": (1, 1, None),
}  # fmt: skip
WORDS = {"cycles": ("max", "min"), "races": ("same warp", "same block", "different blocks"),
         "limit": ("threads", "blocks", "shared memory", "registers")}  # fmt: skip
KINDS = ("read", "write", "atomic")


class LessonProblem(GpuvizError):
    """One line: the file, the section and the problem."""


def run_settings(words: list[str], where: str) -> tuple[bool, bool, int | None, int | None]:
    """(race, host-fix, sms, launch) of a `## Run` line, each value held to what the CLI's options accept."""
    numbers: dict[str, int] = {}
    for word in words:
        key, equals, value = (part.strip() for part in word.partition("="))
        if not equals:
            if key not in RUN_FLAGS:
                raise LessonProblem(f"{where}: unknown word {key!r}; use {', '.join(RUN_FLAGS)}, sms=N or launch=N")
            continue
        if key not in RUN_NUMBERS:
            raise LessonProblem(f"{where}: unknown setting {key!r}; use sms=N or launch=N")
        if not value.isdigit() or len(value) > 12:
            raise LessonProblem(f"{where}: {key}={value!r} is not a whole number")
        numbers[key] = int(value)
    try:
        RunOptions(sms=numbers.get("sms"))  # the same limits as `gpuviz run --sms`
    except GpuvizError as exc:
        raise LessonProblem(f"{where}: {exc}") from None
    return "race" in words, "host-fix" in words, numbers.get("sms"), numbers.get("launch")


def checked(text: str, source: str, default_launch: int, where: str, line_numbers: bool = True) -> list[Check]:
    """The checks of a section, each held against the script's launches, kernel arrays and lines; places named
    by line number only where `line_numbers` (a fix that adds a line would move them)."""
    try:
        checks = parse_checks(text)
    except GpuvizError as exc:
        raise LessonProblem(f"{where}: {exc}") from None
    if not checks:
        return checks
    launches = _kernels_launched(source)
    count, repeats = launch_calls(source)
    if count == 0:
        raise LessonProblem(f"{where}: the script launches no kernel, so there is nothing to check")
    for check in checks:
        launch = default_launch if check.launch is None else check.launch
        if launch >= count and not repeats:
            raise LessonProblem(f"{where}: {check.text!r} names launch {launch}; the script makes {count} "
                                f"(launch 0 to {count - 1})")  # fmt: skip
        _check_arguments(check, where)
        _check_place(check, source, where, line_numbers)
        if not repeats:  # every launch written once, in order: launch N is launches[N]
            _check_array(check, _launch_arrays(source, launches, launch), where)
    return checks


def _check_arguments(check: Check, where: str) -> None:
    fewest, most, _ = ARGUMENTS[check.measure]
    args = check.args
    if not fewest <= len(args) <= most:
        wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
        raise LessonProblem(f"{where}: {check.text!r}: {check.measure} takes {wanted} argument(s), not {len(args)}")
    if check.measure == "element" and not all(part.strip().isdigit() for part in args[1].split(",")):
        raise LessonProblem(f"{where}: {check.text!r}: the index must be whole numbers, e.g. a[0] or a[1, 2]")
    if check.measure in WORDS and args and args[0] not in WORDS[check.measure]:
        raise LessonProblem(f"{where}: {check.text!r}: use one of {', '.join(WORDS[check.measure])}")
    if check.measure == "timeline" and args[0] not in TIMELINE and re.fullmatch(r"elapsed \d+", args[0]) is None:
        raise LessonProblem(f"{where}: {check.text!r}: use one of {', '.join(TIMELINE)}, or elapsed N")
    if check.measure in ("reads", "writes", "atomics") and len(args) == 2 and not args[1].isdigit():
        raise LessonProblem(f"{where}: {check.text!r}: the thread is a whole number (its global index)")
    if check.measure in PLACED:
        if place(check) is None:
            raise LessonProblem(f"{where}: {check.text!r}: the first argument is where: \"source text\" in quotes, "
                                "a label (`# check: NAME` on its line), a kernel's name or a line number")  # fmt: skip
        if len(args) == 3 and args[2] not in KINDS:
            raise LessonProblem(f"{where}: {check.text!r}: the kind is one of {', '.join(KINDS)}")


def _check_place(check: Check, source: str, where: str, line_numbers: bool) -> None:
    """A place must name lines of the script's kernels; a line number only where it cannot move."""
    named = place(check)
    if named is None:
        return
    if named.kind == "line":
        if not line_numbers:
            raise LessonProblem(f"{where}: {check.text!r}: name the access by its \"source text\" or a label "
                                "(`# check: NAME` on its line), not by line number: a fix that adds a line moves it")  # fmt: skip
        return
    if not lines_of(named, source):
        why = named.matches_nothing("the script's kernels")
        raise LessonProblem(f"{where}: {check.text!r}: {why}")


def _check_array(check: Check, arrays: set[str] | None, where: str) -> None:
    position = ARGUMENTS[check.measure][2]
    if position is None or arrays is None:
        return  # no array named, or a kernel this reading cannot see (defined elsewhere)
    name = check.args[position]
    if name not in arrays:
        known = ", ".join(sorted(arrays)) or "none"
        raise LessonProblem(f"{where}: {check.text!r}: the kernel has no array {name!r} (its names: {known})")


def launch_calls(source: str) -> tuple[int, bool]:
    """How many `kernel[grid, block](...)` calls the text has, and whether one sits in a loop or a function
    (so it may launch more times than it is written)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 1, True  # the run will say what is wrong with the script
    count, repeats = 0, False
    ufuncs = _ufuncs(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.comprehension)):
            repeats = repeats or any(_is_launch(inner, ufuncs) for inner in ast.walk(node))
        count += _is_launch(node, ufuncs)
    return count, repeats


def _is_launch(node: ast.AST, ufuncs: dict[str, ast.FunctionDef]) -> bool:
    """`kernel[grid, block](...)`, or a call of a `@vectorize` function (one launch of its kernel)."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in ufuncs
    return (
        isinstance(node.func, ast.Subscript)
        and isinstance(node.func.slice, ast.Tuple)
        and len(node.func.slice.elts) >= 2
    )


def _ufuncs(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and is_vectorized(n)}


def _kernels_launched(source: str) -> list[str]:
    """The kernel each `kernel[grid, block](...)` call of the text launches, in the order of the text."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    ufuncs = _ufuncs(tree)
    calls = sorted(
        (node for node in ast.walk(tree) if _is_launch(node, ufuncs)), key=lambda node: (node.lineno, node.col_offset)
    )
    return [node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func.value) for node in calls]


def _launch_arrays(source: str, launches: list[str], launch: int) -> set[str] | None:
    """The names a launch's kernel binds (its parameters and locals: shared arrays), or None when unknown."""
    if launch >= len(launches):
        return None
    name = launches[launch]
    tree = ast.parse(source)
    kernels = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == name]
    if len(kernels) != 1:
        return None
    kernel = kernels[0]
    names = {arg.arg for arg in kernel.args.args + kernel.args.kwonlyargs + kernel.args.posonlyargs}
    names |= {node.id for node in ast.walk(kernel) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    if is_vectorized(kernel):
        names.add(kernel_names(kernel)[1])  # the output array its kernel writes
    return names | _constant_tables(kernel)


def _constant_tables(kernel: ast.FunctionDef) -> set[str]:
    """The module arrays the kernel puts in constant memory: the trace names a table by them
    (`gains = cuda.const.array_like(GAINS)` reads GAINS)."""
    return {ast.unparse(node.args[0]) for node in ast.walk(kernel) if isinstance(node, ast.Call) and node.args
            and ast.unparse(node.func).endswith("const.array_like")}  # fmt: skip


def section(path: Path, heading: str) -> str:
    return f"{path.name}, ## {heading}"
