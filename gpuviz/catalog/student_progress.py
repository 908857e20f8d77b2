"""A student's progress through the lessons, kept in a small JSON file: which lessons ran, the
prediction made on each (and whether it was right and matched the run), and whether the fix passed.

    {"format": "gpuviz-progress/1", "lessons": {"10-the-race": {"ran": true, "prediction": "32768",
     "right": false, "run_matched": false, "fix_passed": true}}}

A file that cannot be read is reported in one line and progress starts afresh; it is never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

FORMAT = "gpuviz-progress/1"


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
        if self.prediction and not self.ran:  # no verdict before the run: the prediction waits for it
            parts.append("predicted")
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
        return self.lessons.get(lesson, LessonProgress())

    def update(self, lesson: str, **changes) -> LessonProgress:
        """Record what the student did on a lesson and save the book at once."""
        self.lessons[lesson] = replace(self.get(lesson), **changes)
        self.save()
        return self.lessons[lesson]

    def save(self) -> None:
        data = {"format": FORMAT, "lessons": {name: asdict(entry) for name, entry in sorted(self.lessons.items())}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(partial, self.path)  # a crash mid-write never leaves half a file

    def _read(self) -> None:
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            known = {f.name for f in fields(LessonProgress)}
            self.lessons = {
                str(name): LessonProgress(**{k: v for k, v in entry.items() if k in known})
                for name, entry in data["lessons"].items()
            }
        except (OSError, ValueError, TypeError, AttributeError, KeyError) as exc:
            self.lessons = {}
            self.problem = f"progress file {self.path} could not be read ({exc}); starting afresh"
