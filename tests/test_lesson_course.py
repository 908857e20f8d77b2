"""The course's order and its stable lesson ids: lessons are named by slug, texts refer to other lessons
by `[[slug]]` (shown as title and today's number), no text or doc hard-codes a lesson's number, and a
student's progress and own copies follow a lesson whose number changed."""

import json
import re
from pathlib import Path

import pytest

from gpuviz.catalog import LESSONS as LESSON_FOLDER
from gpuviz.catalog import find, lessons
from gpuviz.catalog.student_progress import ProgressBook

ROOT = Path(__file__).resolve().parent.parent
LESSONS = lessons()
HARD_CODED = re.compile(r"\blessons? (?:\d|NN\b)", re.IGNORECASE)


def texts_that_name_lessons() -> list[Path]:
    """Lesson files, docs, the README and the app's own words."""
    return sorted([*LESSON_FOLDER.glob("*.md"), *LESSON_FOLDER.glob("*.py"), *(ROOT / "docs").glob("*.md"),
                   ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "gpuviz" / "app").rglob("*.py"),
                   *(ROOT / "gpuviz" / "catalog" / "examples").glob("*.py")])  # fmt: skip


@pytest.mark.parametrize("path", texts_that_name_lessons(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_text_names_a_lesson_by_a_hard_coded_number(path):
    found = [m.group() for m in HARD_CODED.finditer(path.read_text(encoding="utf-8"))]
    assert not found, f"{path.name}: {found}: name the lesson by slug (`the-race`) or, in a lesson, `[[the-race]]`"


def test_the_reorderings_the_course_needs_hold():
    at = {entry.slug: entry.number for entry in LESSONS}
    assert at["add-arrays"] < at["vector-add-bounds"]  # the recipe before the bounds lesson
    assert at["segmented-reduction"] < min(at["privatised-histogram"], at["matmul"], at["barrier-divergence"])
    assert at["missing-syncthreads"] == at["segmented-reduction"] + 1  # right after the reduction it breaks
    assert at["segmented-reduction"] < at["two-level-reduction"]  # shuffles after reductions
    assert at["library-block-sum"] == at["two-level-reduction"] + 1  # the library's way after both by hand
    assert at["coalescing"] < at["matmul"]  # matmul's fix applies the coalescing lesson's, never gives it away
    assert "shfl" not in find("warps").source and "sector" not in find("warps").sections["answer"]


def test_a_reference_shows_the_lessons_title_and_number_of_the_day():
    race = find("the-race")
    assert race.description.startswith(f"The kernel of “{find('one-thread').title}” (lesson 1) on a")
    assert "[[" not in race.description


def test_a_reference_to_no_lesson_is_a_load_time_error(tmp_path):
    for suffix in (".py", ".md"):
        (tmp_path / f"01-mine{suffix}").write_text(find("one-thread").path.with_suffix(suffix).read_text())
    text = (tmp_path / "01-mine.md").read_text().replace("## Question", "See [[no-such-lesson]].\n\n## Question", 1)
    (tmp_path / "01-mine.md").write_text(text)
    problems: list[str] = []
    assert lessons(tmp_path, problems) == []
    assert problems[0].startswith("01-mine.md: [[no-such-lesson]] names no lesson"), problems


def test_a_teachers_lesson_may_name_a_built_in_one(tmp_path):
    for suffix in (".py", ".md"):
        (tmp_path / f"01-mine{suffix}").write_text(find("one-thread").path.with_suffix(suffix).read_text())
    text = (tmp_path / "01-mine.md").read_text().replace("## Question", "After [[the-race]].\n\n## Question", 1)
    (tmp_path / "01-mine.md").write_text(text)
    (mine,) = lessons(tmp_path)
    assert f"After “{find('the-race').title}” (lesson {find('the-race').number})." in mine.description


def test_progress_kept_under_old_numbers_follows_the_renumbered_lessons(tmp_path):
    """A book written when the race was lesson 10 and the bounds lesson 03 (numbered keys) is read under
    the slugs: the race is lesson 11 now and the bounds lesson 04, and their progress is found."""
    path = tmp_path / "progress.json"
    old = {"10-the-race": {"ran": True, "prediction": "4", "right": True, "run_matched": True, "fix_passed": True},
           "03-vector-add-bounds": {"ran": True, "prediction": "245", "right": False, "run_matched": None,
                                    "fix_passed": None}}  # fmt: skip
    path.write_text(json.dumps({"format": "gpuviz-progress/1", "lessons": old}))
    book = ProgressBook(path)
    race, bounds = find("the-race"), find("vector-add-bounds")
    assert race.name == "11-the-race" and bounds.name == "04-vector-add-bounds"
    assert book.get(race.slug).fix_passed and book.get(race.name).prediction == "4"
    assert book.get(bounds.slug).ran and book.get(bounds.slug).right is False
    book.update(race.slug, ran=True)
    assert set(json.loads(path.read_text())["lessons"]) == {"the-race", "vector-add-bounds"}


def test_a_slugs_own_entry_wins_over_an_old_numbered_one(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text(
        json.dumps(
            {
                "format": "gpuviz-progress/1",
                "lessons": {
                    "the-race": {"ran": True, "prediction": "new"},
                    "10-the-race": {"ran": True, "prediction": "old"},
                },
            }
        )
    )
    assert ProgressBook(path).get("the-race").prediction == "new"


def test_an_own_copy_saved_under_an_old_number_follows_its_lesson(tmp_path, monkeypatch):
    """The student saved the race as my-scripts/10-the-race.py when it was lesson 10; it is lesson 11 now,
    and picking it opens that copy, moved to its slug's name."""
    monkeypatch.setenv("GPUVIZ_DATA", str(tmp_path / "data"))
    from gpuviz.app.control.document import own_copy

    mine = tmp_path / "data" / "my-scripts"
    mine.mkdir(parents=True)
    (mine / "10-the-race.py").write_text("# my own race\n")
    copy = own_copy(find("the-race").path)
    assert copy == mine / "the-race.py" and copy.read_text() == "# my own race\n"
    assert not (mine / "10-the-race.py").exists()
    assert own_copy(find("vector-add-bounds").path) == mine / "vector-add-bounds.py"  # none saved: where one goes
    assert not (mine / "vector-add-bounds.py").exists()


def test_the_course_map_in_the_docs_is_the_catalogs_order():
    rows = re.findall(r"^\| (\d+) \| `([a-z0-9-]+)` \|", (ROOT / "docs" / "lessons.md").read_text(), re.MULTILINE)
    assert [(int(n), slug) for n, slug in rows] == [(entry.number, entry.slug) for entry in LESSONS]


def test_a_teachers_lesson_named_like_a_built_in_one_keeps_its_own_progress(tmp_path):
    folder = tmp_path / "week3"
    folder.mkdir()
    for suffix in (".py", ".md"):
        (folder / f"01-the-race{suffix}").write_text(find("the-race").path.with_suffix(suffix).read_text())
    (mine,) = lessons(folder)
    built_in = find("the-race")
    assert mine.slug == built_in.slug == "the-race"
    assert built_in.progress_key == "the-race" and mine.progress_key == "the-race@week3"
    book = ProgressBook(tmp_path / "progress.json")
    book.update(mine.progress_key, ran=True, prediction="4")
    again = ProgressBook(tmp_path / "progress.json")
    assert again.get(mine.progress_key).prediction == "4" and again.get(built_in.progress_key).prediction == ""
