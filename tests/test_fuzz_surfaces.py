"""Property-based fuzzing of the other surfaces a person or a file can reach: lesson files, progress and
autosave files, the stored analysis member and render options. Each gives a result or one line (never a
traceback, never a hang); sized to run in well under a minute."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hypothesis", reason="fuzzing needs Hypothesis (the test extras)")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpuviz
from gpuviz.catalog import LESSONS, lessons
from gpuviz.catalog.student_progress import ProgressBook
from gpuviz.cli import main
from gpuviz.core.trace.analysis_schema import checked_analysis
from gpuviz.core.user_files import UnreadableFile, read_json

from .trace_files import good_trace, members, write_members

HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
EXAMPLES = int(os.environ.get("GPUVIZ_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=HEALTH)
SCRIPT = (LESSONS / "01-one-thread.py").read_text()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
SECTIONS = ["Run", "Checks", "Fix checks", "Question", "Answer", "Choices", "Predict a number", "Evidence"]
check_lines = st.from_regex(
    r"(launch [0-9]{1,3}: )?(sim: )?(array\[[0-9a-z,]{0,4}\]|sum\(\w{0,6}\)|races\([a-z ]{0,12}\)|blocks|"
    r"sectors\([0-9a-z, ]{0,10}\)|\w{1,8}) ?(==|>=|<|!=) ?-?[0-9.,_]{1,6}",
    fullmatch=True,
)
run_lines = st.lists(st.from_regex(r"(race|sms|launch|fast)(=[-0-9a-z]{0,12})?", fullmatch=True), max_size=3)


@st.composite
def lesson_texts(draw) -> str:
    parts = ["# A lesson\nIts description.\n"]
    for heading in draw(st.lists(st.sampled_from(SECTIONS), max_size=4)):
        if heading == "Run":
            body = ", ".join(draw(run_lines))
        elif "hecks" in heading:
            body = "\n".join(draw(st.lists(check_lines, max_size=3)))
        else:
            body = draw(st.text(max_size=30))
        parts.append(f"## {heading}\n{body}\n")
    return "\n".join(parts)


@FUZZ
@given(text=lesson_texts() | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_lesson_text_loads_or_is_one_line(text):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "01-fuzz.py").write_text(SCRIPT)
        (Path(folder) / "01-fuzz.md").write_text(text, encoding="utf-8", errors="surrogateescape")
        problems: list[str] = []
        loaded = lessons(Path(folder), problems)
        assert len(loaded) + len(problems) == 1
        assert all(p.startswith("01-fuzz.") and "\n" not in p for p in problems), problems
        for entry in loaded:  # what loaded can be asked for without surprises
            entry.run_options()
            assert entry.checks is not None and entry.fix_checks is not None


@FUZZ
@given(value=json_values, raw=st.binary(max_size=100), use_raw=st.booleans())
def test_any_progress_file_reads_or_is_set_aside(value, raw, use_raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "progress.json"
        path.write_bytes(raw if use_raw else json.dumps({"format": "gpuviz-progress/1", "lessons": value}).encode())
        book = ProgressBook(path)
        assert "\n" not in book.problem
        if book.problem:
            assert book.lessons == {} and "moved aside" in book.problem
        book.update("one-thread", ran=True)
        assert ProgressBook(path).get("one-thread").ran  # saved whole, read back


@FUZZ
@given(about=json_values, raw=st.binary(max_size=60))
def test_any_autosave_is_offered_or_set_aside(about, raw):
    from gpuviz.app.control.autosave_slots import orphans  # Qt-free, though it lives with the app

    with tempfile.TemporaryDirectory() as folder:
        slot = Path(folder) / "1-gone"
        slot.mkdir()
        (slot / "lock").touch()
        (slot / "script.py").write_bytes(raw)
        (slot / "about.json").write_text(json.dumps(about))
        found, problems = orphans(Path(folder))
        assert len(found) + len(problems) == 1 and all("\n" not in p for p in problems)


@FUZZ
@given(raw=st.binary(max_size=80))
def test_read_json_never_raises_anything_but_its_own_error(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.json"
        path.write_bytes(raw)
        try:
            read_json(path)
        except UnreadableFile as exc:
            assert "\n" not in exc.reason


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return good_trace(tmp_path_factory.mktemp("good"))


@FUZZ
@given(value=json_values, races=st.booleans())
def test_any_analysis_member_is_kept_or_dropped_with_one_line(good, value, races):
    meta = gpuviz.load(good).meta
    analysis = {"races": value} if races else value
    kept, line = checked_analysis(analysis, meta)
    assert (kept, line) == (analysis, "") or (kept == {} and line and "\n" not in line)


@FUZZ
@given(value=json_values)
def test_a_loaded_trace_with_any_analysis_can_be_analysed(good, value):
    with tempfile.TemporaryDirectory() as folder:
        columns = members(good)
        columns["analysis"] = np.array(json.dumps({"memory": value}))
        trace = gpuviz.load(write_members(Path(folder) / "t.npz", columns))
        from gpuviz.core.analysis.report import memory_analysis

        assert isinstance(memory_analysis(trace), dict)


@settings(max_examples=max(10, EXAMPLES // 4), deadline=None, suppress_health_check=HEALTH)
@given(view=st.sampled_from(["grid", "memory", "nope", ""]), size=st.from_regex(r"-?[0-9x]{0,9}", fullmatch=True),
       at=st.sampled_from(["0", "end", "-1", "1e99", "x", "50%"]),
       suffix=st.sampled_from([".png", ".svg", ".txt", ""]))  # fmt: skip
def test_any_render_options_give_a_picture_or_one_line(good, capsys, view, size, at, suffix):
    pytest.importorskip("PySide6", reason="pictures need PySide6")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / f"p{suffix}"
        try:
            code = main(["render", str(good), f"--view={view}", f"--size={size}", f"--at={at}", "--out", str(out)])
        except SystemExit as exc:  # argparse's own refusal: its usage and one line, exit 2
            code = exc.code
        captured = capsys.readouterr()
        if code == 0:
            assert out.is_file() and out.stat().st_size > 0
        else:
            err = captured.err.strip()
            assert code in (1, 2) and "Traceback" not in err and err
            assert sorted(p.name for p in Path(folder).iterdir()) == []
