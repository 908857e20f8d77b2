"""The student's progress file: kept, read back, and a bad file reported in one line, never fatal."""

import json

import pytest

from gpuviz.catalog.student_progress import FORMAT, LessonProgress, ProgressBook


def test_progress_is_saved_at_once_and_read_back(tmp_path):
    path = tmp_path / "sub" / "progress.json"
    book = ProgressBook(path)
    assert book.get("the-race") == LessonProgress() and book.problem == ""
    book.update("the-race", ran=True, prediction="32768", right=False, run_matched=False)
    book.update("the-race", fix_passed=True)
    again = ProgressBook(path)
    assert again.get("the-race") == LessonProgress(True, "32768", False, False, True)
    assert json.loads(path.read_text())["format"] == FORMAT


@pytest.mark.parametrize("text", ["{not json", "[]", '{"format": "other/9", "lessons": {}}',
                                  '{"format": "gpuviz-progress/1", "lessons": {"a": 3}}', "\xff\xfe"])  # fmt: skip
def test_a_bad_progress_file_starts_afresh_with_one_line(tmp_path, text):
    path = tmp_path / "progress.json"
    path.write_text(text, encoding="latin-1")
    book = ProgressBook(path)
    assert book.lessons == {} and "could not be read" in book.problem and "\n" not in book.problem
    book.update("one-thread", ran=True)
    assert ProgressBook(path).get("one-thread").ran


def test_marks_say_what_is_done():
    assert LessonProgress().mark() == ""
    assert LessonProgress(ran=True).mark() == "▶"
    assert LessonProgress(True, "0.5", True, True).mark() == "✓  predicted ✓"
    assert LessonProgress(True, "0.5", False, None, False).mark() == "▶  predicted ✗  fix ✗"
    assert LessonProgress(False, "0.5", False).mark() == "predicted"  # no verdict before the run
    # ran before the prediction was committed: that run judges nothing, so no ✗ for a right answer
    assert LessonProgress(True, "far less", None).mark() == "✓  predicted"
    assert not LessonProgress(True, "0.5", True, True, False).done  # the fix was checked and failed
