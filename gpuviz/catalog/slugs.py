"""A lesson's stable id, its slug: the file's name without the course number ("11-the-race" is
"the-race"). Reordering the course changes the numbers, never the slugs, so a student's progress, own
copies and the texts' references to other lessons are keyed by slug."""

from __future__ import annotations

import re

NUMBERED = re.compile(r"^(\d+)-")


def slug_of(name: str) -> str:
    """The name without a leading course number ("11-the-race.py" -> "the-race.py"); other names as they are."""
    return NUMBERED.sub("", name)


def number_of(name: str) -> int | None:
    """The course number a name starts with, or None."""
    found = NUMBERED.match(name)
    return int(found.group(1)) if found else None
