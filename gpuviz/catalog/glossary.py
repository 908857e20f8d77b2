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
    Longer forms match first and take their words with them, so "barrier divergence" is not also
    "divergence". Acronyms (WAR, SM) match in capitals only, so that "war" or "sm" in prose do not."""
    terms = glossary() if terms is None else terms
    found = set()
    for form, term in sorted(((f, t.term) for t in terms for f in t.forms), key=lambda pair: -len(pair[0])):
        text, count = _take(text, form)
        if count:
            found.add(term)
    return [term for term in terms if term.term in found]


def _take(text: str, form: str) -> tuple[str, int]:
    """The text with each whole-word use of the form blanked out, and how many there were."""
    flags = 0 if form.isupper() else re.IGNORECASE
    pattern = rf"(?<![\w-]){re.escape(form)}(?![\w-])"
    return re.subn(pattern, lambda match: " " * len(match.group()), text, flags=flags)


def glossary_markdown(text: str) -> str:
    """A 'Words used here' section for a lesson's text ('' when it uses none)."""
    used = terms_used(text)
    if not used:
        return ""
    return "### Words used here\n\n" + "\n".join(f"- **{term.term}**: {term.meaning}" for term in used)
