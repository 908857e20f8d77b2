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
    pattern = rf"(?<![\w-]){_spaced(form)}(?![\w-])"
    return re.subn(pattern, lambda match: " " * len(match.group()), text, flags=flags)


def _spaced(form: str) -> str:
    """A form as a pattern whose spaces match any run of white space (a term may wrap across lines)."""
    return r"\s+".join(re.escape(word) for word in form.split())


LINK = "gloss:"  # a term's link in a lesson's text: gloss:N, N its place in the glossary
_CODE = re.compile(r"(```.*?```|`[^`]*`)", re.DOTALL)


def linked_markdown(text: str, terms: tuple[Term, ...] | None = None) -> str:
    """The text with every glossary term in it (any form, whole words, outside `code`) made a link to
    its entry, so that the lesson panel can show the meaning when the mouse is over it."""
    terms = glossary() if terms is None else terms
    forms = sorted(((form, i) for i, term in enumerate(terms) for form in term.forms), key=lambda f: -len(f[0]))
    if not forms:
        return text
    index = {(form if form.isupper() else form.lower()): i for form, i in forms}
    words = "|".join(_spaced(form) if form.isupper() else f"(?i:{_spaced(form)})" for form, _ in forms)
    pattern = re.compile(rf"(?<![\w\[/-])(?:{words})(?![\w-]|\.\w)")  # not inside a path: docs/races.md

    def link(match: re.Match) -> str:
        word = " ".join(match.group(0).split())
        return f"[{word}]({LINK}{index.get(word, index.get(word.lower()))})"

    parts = _CODE.split(text)
    return "".join(part if k % 2 else pattern.sub(link, part) for k, part in enumerate(parts))


def term_for_link(href: str, terms: tuple[Term, ...] | None = None) -> Term | None:
    """The glossary entry a `gloss:N` link points at (None for any other link)."""
    terms = glossary() if terms is None else terms
    number = href.removeprefix(LINK)
    if not href.startswith(LINK) or not number.isdigit() or int(number) >= len(terms):
        return None
    return terms[int(number)]


def glossary_markdown(text: str) -> str:
    """A 'Words used here' section for a lesson's text ('' when it uses none)."""
    used = terms_used(text)
    if not used:
        return ""
    return "### Words used here\n\n" + "\n".join(f"- **{term.term}**: {term.meaning}" for term in used)
