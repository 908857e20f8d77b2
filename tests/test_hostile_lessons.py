"""A teacher's folder of lessons is checked when it loads: a bad lesson is one line naming the file, the
section and the problem, every other lesson loads, and nothing hangs or gives a traceback."""

import os

import pytest

from gpuviz.catalog import LESSONS, find, lessons
from gpuviz.catalog.lesson_check import LessonProblem
from gpuviz.cli import main
from gpuviz.core.errors import GpuvizError

SCRIPT = (LESSONS / "01-one-thread.py").read_text()
TEXT = "# Good\nA lesson.\n\n## Checks\nmax(array) == 0.5\n"


def folder_with(tmp_path, name="02-bad", script=SCRIPT, text=TEXT):
    """A teacher's folder: one good lesson and one given lesson."""
    (tmp_path / "01-good.py").write_text(SCRIPT)
    (tmp_path / "01-good.md").write_text(TEXT)
    if script is not None:
        (tmp_path / f"{name}.py").write_text(script)
    if text is not None:
        (tmp_path / f"{name}.md").write_bytes(text if isinstance(text, bytes) else text.encode())
    return tmp_path


def only_problem(folder) -> str:
    problems: list[str] = []
    names = [entry.name for entry in lessons(folder, problems)]
    assert names == ["01-good"], names  # every other lesson loads
    assert len(problems) == 1 and "\n" not in problems[0], problems
    return problems[0]


@pytest.mark.parametrize(("text", "words"), [
    (b"# Bad\n\xff\xfe\n", ["02-bad.md", "not UTF-8"]),
    ("# Bad\n\n## Run\nsms=abc\n", ["02-bad.md, ## Run", "sms='abc'", "whole number"]),
    ("# Bad\n\n## Run\nsms=0\n", ["## Run", "from 1 to 100000"]),
    ("# Bad\n\n## Run\nsms=99999999999\n", ["## Run", "from 1 to 100000"]),
    ("# Bad\n\n## Run\nrace, fast\n", ["## Run", "unknown word 'fast'"]),
    ("# Bad\n\n## Run\nlaunch=3\n", ["## Run", "launch=3", "makes 1"]),
    ("# Bad\n\n## Checks\nmax(nosuch) == 1\n", ["02-bad.md, ## Checks", "no array 'nosuch'", "array"]),
    ("# Bad\n\n## Checks\narray[0] == 1.2.3\n", ["## Checks", "'1.2.3' is not a number"]),
    ("# Bad\n\n## Checks\narray[x] == 1\n", ["## Checks", "whole numbers"]),
    ("# Bad\n\n## Checks\nlaunch 99: max(array) == 1\n", ["## Checks", "launch 99", "makes 1"]),
    ("# Bad\n\n## Checks\nsum() == 1\n", ["## Checks", "sum takes 1 argument"]),
    ("# Bad\n\n## Checks\nbananas == 1\n", ["## Checks", "unknown measure"]),
    ("# Bad\n\n## Fix checks\nraces(same room) == 0\n", ["## Fix checks", "same warp"]),
    ("# Bad\n\n## Evidence\nview: compare\npartner: 2\ncaption: x\n", ["## Evidence", "partner 2", "makes 1"]),
    ("# Bad\n\n## Evidence\nview: compare\npartner: 0\ncaption: x\n", ["## Evidence", "partner 0", "shows"]),
], ids=["utf-8", "sms=abc", "sms=0", "sms huge", "unknown word", "launch=3", "unknown array", "bad number",
        "bad index", "launch 99", "arguments", "measure", "fix checks", "partner past", "partner shown"])  # fmt: skip
def test_a_bad_lesson_text_is_one_line(tmp_path, text, words):
    problem = only_problem(folder_with(tmp_path, text=text))
    assert all(word in problem for word in words), problem


def test_a_script_that_launches_nothing_cannot_be_checked(tmp_path):
    problem = only_problem(folder_with(tmp_path, script="x = 1\n"))
    assert "## Checks" in problem and "launches no kernel" in problem


@pytest.mark.parametrize("kind", ["link loop", "fifo script", "fifo text", "folder", "dangling link"])
def test_files_that_are_not_lessons_are_skipped_with_a_line(tmp_path, kind):
    folder = folder_with(tmp_path, script=None, text=None)
    script, text = folder / "02-bad.py", folder / "02-bad.md"
    if kind == "link loop":
        os.symlink(script.name, script)  # a script that links to itself: ELOOP
    elif kind == "fifo script":
        os.mkfifo(script)
    elif kind == "fifo text":
        script.write_text(SCRIPT)
        os.mkfifo(text)
    elif kind == "folder":
        script.mkdir()
    else:
        os.symlink("nowhere.py", script)
    problem = only_problem(folder)
    assert problem.startswith("02-bad.") and "cannot be read" in problem


def test_a_lesson_linked_to_a_real_file_loads(tmp_path):
    folder = folder_with(tmp_path, script=None, text=None)
    os.symlink(LESSONS / "01-one-thread.py", folder / "02-linked.py")
    assert [entry.name for entry in lessons(folder, [])] == ["01-good", "02-linked"]


def test_list_shows_every_good_lesson_and_exits_1_for_a_bad_one(tmp_path, capsys):
    folder = folder_with(tmp_path, text="# Bad\n\n## Run\nsms=abc\n")
    assert main(["list", "--lessons", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert "01-good" in out and "02-bad" not in out
    assert err.strip().splitlines() == [err.strip()] and err.startswith("error: 02-bad.md, ## Run")


@pytest.mark.parametrize("command", [["demo", "02-bad"], ["demo", "bad"], ["app"]])
def test_demo_and_app_of_a_bad_lesson_is_one_line(tmp_path, capsys, monkeypatch, command):
    folder = folder_with(tmp_path, text="# Bad\n\n## Run\nsms=abc\n")
    if command == ["app"]:  # the app is started with the folder: bad lessons are left out, not fatal
        import gpuviz.app

        monkeypatch.setattr(gpuviz.app, "main", lambda lessons=None: 0)
        assert main(["app", "--lessons", str(folder)]) == 0
        return
    assert main([*command, "--lessons", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "02-bad.md, ## Run" in err and "Traceback" not in err


def test_find_of_a_bad_lesson_says_why(tmp_path):
    folder = folder_with(tmp_path, text="# Bad\n\n## Run\nsms=abc\n")
    with pytest.raises(LessonProblem, match="## Run"):
        find("02-bad", folder)
    with pytest.raises(GpuvizError, match="no catalog entry"):
        find("no-such-lesson", folder)


def test_an_index_past_the_end_is_one_line_when_run(tmp_path, capsys):
    folder = folder_with(tmp_path, text="# Bad\n\n## Checks\narray[5000] == 0.5\n")
    assert main(["demo", "02-bad", "--lessons", str(folder), "--backend", "sim"]) == 1
    err = capsys.readouterr().err
    assert "array[5000]" in err and "cannot be measured" in err and "Traceback" not in err


def test_every_built_in_lesson_passes_its_load_checks():
    problems: list[str] = []
    assert len(lessons(LESSONS, problems)) >= 20 and problems == []


def test_the_app_loads_the_good_lessons_and_says_which_one_was_left_out(qtbot, tmp_path):
    pytest.importorskip("PySide6", reason="the app's tests need PySide6")
    from gpuviz.app.window.main_window import MainWindow

    (tmp_path / "lessons").mkdir()
    folder = folder_with(tmp_path / "lessons", text="# Bad\n\n## Run\nsms=abc\n")
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.course.load_lessons(folder)
    names = [win.catalog.item(row).text() for row in range(win.catalog.count())]
    assert any("Good" in name for name in names) and not any("Bad" in name for name in names)
    assert "1 left out: 02-bad.md, ## Run" in win.status.text()
