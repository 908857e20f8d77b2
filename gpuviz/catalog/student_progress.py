"""A student's progress through the lessons, kept in a small JSON file: which lessons ran, the
prediction made on each (and whether it was right and matched the run), and whether the fix passed.

    {"format": "gpuviz-progress/1", "lessons": {"the-race": {"ran": true, "prediction": "32768",
     "right": false, "run_matched": false, "fix_passed": true}}}

Lessons are keyed by slug (catalog/slugs.py), so progress follows a lesson whose number changed; a
book written when keys were numbered names ("10-the-race") is read under the slugs.

A file that cannot be read (corrupt, another layout, huge, a fifo, a link) is reported in one line,
set aside with a name that says when and why, and progress starts afresh; a save that fails is said
once and the book carries on in memory. Neither is ever fatal.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from gpuviz.catalog.slugs import slug_of
from gpuviz.core.files import WriteError, write_text
from gpuviz.core.user_files import UnreadableFile, problem_line, read_json

FORMAT = "gpuviz-progress/1"
MAX_BYTES = 1 << 20  # a course of a hundred lessons takes a few kB
MAX_LESSONS = 1000  # so every save rewrites a bounded file
MAX_PREDICTION = 200
_TYPES = {"ran": (bool,), "prediction": (str,), "right": (bool, type(None)), "run_matched": (bool, type(None)),
          "fix_passed": (bool, type(None))}  # fmt: skip


@dataclass(frozen=True)
class LessonProgress:
    ran: bool = False
    prediction: str = ""  # what the student committed to, as shown to them
    right: bool | None = None  # the prediction matched the lesson's answer
    run_matched: bool | None = None  # ... and the run's value, where the run gives one
    fix_passed: bool | None = None  # None: no fix checked yet

    @property
    def done(self) -> bool:
        """Ran with a prediction committed (and, for a lesson whose fix was checked, the fix passed)."""
        return self.ran and bool(self.prediction) and self.fix_passed is not False

    def mark(self) -> str:
        """A short mark for the catalog: what is done, at a glance."""
        parts = ["✓" if self.done else ("▶" if self.ran else "")]
        if self.prediction and (not self.ran or self.right is None):  # no verdict yet: it waits for a run
            parts.append("predicted")  # started after the commit (a run before it judges nothing)
        elif self.prediction:
            parts.append("predicted ✓" if self.right else "predicted ✗")
        if self.fix_passed is not None:
            parts.append("fix ✓" if self.fix_passed else "fix ✗")
        return "  ".join(part for part in parts if part)


class ProgressBook:
    """Every lesson's progress, read from and written to one file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.lessons: dict[str, LessonProgress] = {}
        self.problem = ""  # one line when the file could not be read
        self._read()

    def get(self, lesson: str) -> LessonProgress:
        """A lesson's progress, by slug or by its numbered name."""
        return self.lessons.get(slug_of(lesson), LessonProgress())

    def update(self, lesson: str, **changes) -> LessonProgress:
        """Record what the student did on a lesson and save the book at once."""
        key = slug_of(lesson)
        self.lessons[key] = replace(self.get(key), **changes)
        self.save()
        return self.lessons[key]

    def save(self) -> None:
        """Write the book; a failure becomes `problem` (one line, said by the caller once)."""
        data = {"format": FORMAT, "lessons": {name: asdict(entry) for name, entry in sorted(self.lessons.items())}}
        try:
            write_text(self.path, json.dumps(data, indent=1), "progress file")
        except WriteError as exc:
            self.problem = f"{exc}; progress is kept until the app closes"
        else:
            self.problem = ""

    def _read(self) -> None:
        try:
            self.lessons = _lessons(read_json(self.path, MAX_BYTES), self.path)
        except UnreadableFile as exc:
            self.lessons = {}
            self.problem = problem_line(exc, "progress file") + "; starting afresh"


def _lessons(data, path: Path) -> dict[str, LessonProgress]:
    """The lessons of a progress book's JSON value, or UnreadableFile saying what in it is wrong."""
    if data is None:
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise UnreadableFile(path, f"format {str(found)[:40]!r}, expected {FORMAT!r}")
    lessons = data.get("lessons")
    if not isinstance(lessons, dict) or len(lessons) > MAX_LESSONS:
        raise UnreadableFile(path, f"'lessons' is not a table of at most {MAX_LESSONS} lessons")
    found = {}
    for name, entry in sorted(lessons.items(), key=lambda item: slug_of(str(item[0])) == str(item[0])):
        found[slug_of(str(name))[:100]] = _entry(entry, path)  # a slug's own entry wins over a numbered one
    return found


def _entry(entry, path: Path) -> LessonProgress:
    if not isinstance(entry, dict):
        raise UnreadableFile(path, "a lesson's entry is not a table")
    known = {f.name for f in fields(LessonProgress)}
    values = {key: value for key, value in entry.items() if key in known}
    for key, value in values.items():
        if not isinstance(value, _TYPES[key]):
            raise UnreadableFile(path, f"a lesson's {key!r} is a {type(value).__name__}")
    values["prediction"] = values.get("prediction", "")[:MAX_PREDICTION]
    return LessonProgress(**values)
