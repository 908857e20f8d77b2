"""The lessons' glossary (glossary.md): each term's meaning, and the terms a text uses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

GLOSSARY = Path(str(files("gpuviz.catalog") / "glossary.md"))
_ENTRY = re.compile(r"^\*\*(?P<term>[^*]+)\*\*(?:\s*\((?P<forms>[^)]*)\))?:\s*(?P<meaning>.+)$")


@dataclass(frozen=True)
class Term:
    term: str
    forms: tuple[str, ...]  # the term and the other words that mean it (plural, verb, ...)
    meaning: str


@cache
def glossary(path: Path = GLOSSARY) -> tuple[Term, ...]:
    terms = []
    for line in path.read_text().splitlines():
        match = _ENTRY.match(line.strip())
        if match:
            forms = [f.strip() for f in (match.group("forms") or "").split(",") if f.strip()]
            terms.append(Term(match.group("term"), (match.group("term"), *forms), match.group("meaning")))
    return tuple(terms)


def terms_used(text: str, terms: tuple[Term, ...] | None = None) -> list[Term]:
    """The glossary's terms that a text uses (any of their forms, as whole words), in glossary order.
    Acronyms (WAR, SM) match in capitals only, so that "war" or "sm" in prose do not."""
    return [term for term in (glossary() if terms is None else terms) if any(_uses(text, f) for f in term.forms)]


def _uses(text: str, form: str) -> bool:
    flags = 0 if form.isupper() else re.IGNORECASE
    return re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text, flags) is not None


def glossary_markdown(text: str) -> str:
    """A 'Words used here' section for a lesson's text ('' when it uses none)."""
    used = terms_used(text)
    if not used:
        return ""
    return "### Words used here\n\n" + "\n".join(f"- **{term.term}**: {term.meaning}" for term in used)
