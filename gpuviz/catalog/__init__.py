"""The catalog: lessons (`lessons/`, in course order) and the example scripts (`examples/`), shipped as
package data and found with importlib.resources, so a wheel install has them all.

A lesson is a plain numba-cuda script that checks its own result against NumPy, and a Markdown
text beside it: title, a line of description (neither may give the answer away), then `## Question`,
`## Choices` or `## Predict a number` (what the student commits to: predictions.py),
`## Answer`, `## Explanation`, `## Evidence` (the frames that show the answer: evidence.py), `## Checks`
(the numbers the text states, as lines checks.py parses and tests hold against a run), and for a lesson
with a bug `## Fix` (what to change) and `## Fix checks`
(what the student's fixed script must show: `gpuviz demo NN --check-fix FILE`).
The text's `## Run` line (`race, sms=8, launch=0`, after the fix checks) says how to run and judge it (a
race lesson, on 8 virtual SMs), which of its launches the text explains, and `host-fix` where the fix
must change host code (a fix check then runs the student's whole script, and says so); it is in the text, not the
script, because the script is shown before Run. `glossary.md` defines the words the texts
use (glossary.py). A lesson names another by its slug, the stable name after the number: `[[the-race]]` is
shown as the lesson's title with its number of the day (“Many threads, one element” (lesson N)), so
reordering the course renames files and changes no text. A teacher's folder of lessons in the same format joins the built-in ones
(`catalog(teacher=DIR)`, `gpuviz list --lessons DIR`). docs/lessons.md describes the format.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from importlib.resources import files
from pathlib import Path

from gpuviz.catalog.checks import Check, parse_checks
from gpuviz.catalog.evidence import Evidence, parse_evidence
from gpuviz.catalog.lesson_check import LessonProblem, checked, launch_calls, run_settings, section
from gpuviz.catalog.predictions import Prediction, parse_prediction
from gpuviz.catalog.slugs import number_of, slug_of
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.core.user_files import UnreadableFile, read_text

# Scripts run with runpy and need real files: package data of a normal install (wheel or editable) is.
LESSONS = Path(str(files("gpuviz.catalog") / "lessons"))
EXAMPLES = Path(str(files("gpuviz.catalog") / "examples"))
MAX_LESSON_BYTES = 1 << 20
_REFERENCE = re.compile(r"\[\[([^\]\n]*)\]\]")  # [[the-race]]: another lesson, by its slug
ORDER = [
    "vector_add", "grid_2d", "grid_3d", "shared_reduction", "tiled_matmul", "atomic_histogram",
    "racy_counter", "warp_shuffle_sum", "device_function", "two_launches", "cupy_vecadd",
]  # fmt: skip


@dataclass(frozen=True)
class CatalogEntry:
    name: str  # "11-the-race" for lessons (the number is the place in the course), "vector_add" for examples
    title: str
    description: str
    path: Path
    sections: dict[str, str] = field(default_factory=dict)  # question, answer, explanation
    racy: bool = False  # the lesson is about a race: judged by its races, not a reference
    sms: int | None = None  # run on this many virtual SMs (to show waves at a small size)
    launch: int | None = None  # the launch the lesson's text explains (`launch=N`), when the script makes several
    host_fix: bool = False  # `host-fix`: the fix changes host code, so a fix check runs the student's whole script

    @property
    def slug(self) -> str:
        """The lesson's stable id ("the-race"): its name without the course number, which reordering changes."""
        return slug_of(self.name) if self.is_lesson else self.name

    @property
    def progress_key(self) -> str:
        """Where a student's progress is kept: the slug for a built-in lesson; for a teacher's lesson the slug
        and its folder's name ("the-race@week3"), so that a teacher's lesson named like a built-in one keeps
        its own progress."""
        if not self.is_lesson or self.path.parent.resolve() == LESSONS.resolve():
            return self.slug
        return f"{self.slug}@{self.path.parent.name}"

    @property
    def number(self) -> int | None:
        """Its place in the course (the file's number); None for an example."""
        return number_of(self.name) if self.is_lesson else None

    @property
    def source(self) -> str:
        return self.path.read_text()

    @property
    def is_lesson(self) -> bool:
        return self.path.parent != EXAMPLES  # a built-in lesson or one from a teacher's folder

    def run_options(self, backend: str = "auto", repeat: int = 1) -> RunOptions:
        """How this entry runs, decided here for the app and `gpuviz demo` alike: race lessons record
        every access (they are judged by their races), and a lesson may ask for fewer SMs (waves)."""
        return RunOptions(backend=backend, sms=self.sms, level="accesses" if self.racy else "auto", repeat=repeat)

    @property
    def checks(self) -> list[Check]:
        return parse_checks(self.sections.get("checks", ""))

    @property
    def evidence(self) -> Evidence | None:
        """What to show once the answer is: the frames that prove it (`## Evidence`)."""
        return parse_evidence(self.sections.get("evidence", ""))

    @property
    def fix_checks(self) -> list[Check]:
        return parse_checks(self.sections.get("fix checks", ""))

    @property
    def prediction(self) -> Prediction | None:
        """What the student commits to before the answer: `## Choices` or `## Predict a number` (predictions.py)."""
        return parse_prediction(self.sections)


def catalog(teacher: Path | str | None = None, problems: list[str] | None = None) -> list[CatalogEntry]:
    """The lessons in course order, a teacher's lessons (NN-name.py + .md in their folder), then the examples.
    A teacher's lesson that fails its checks is left out, with one line in `problems`."""
    return lessons() + (teacher_lessons(Path(teacher), problems) if teacher else []) + examples()


def teacher_lessons(folder: Path, problems: list[str] | None = None) -> list[CatalogEntry]:
    if not folder.is_dir():
        raise GpuvizError(
            f"--lessons {folder}: no such folder; give a folder of NN-name.py lessons with their .md texts"
        )
    return lessons(folder, problems)


def lessons(folder: Path = LESSONS, problems: list[str] | None = None) -> list[CatalogEntry]:
    """The lessons of a folder; each bad one is left out with one line in `problems`."""
    if not folder.is_dir():
        return []
    entries = []
    for path in sorted(folder.glob("[0-9][0-9]-*.py")):
        try:
            entries.append(_lesson(path))
        except GpuvizError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    built_in = {} if folder == LESSONS else {e.slug: e for e in lessons()}
    known = built_in | {e.slug: e for e in entries}  # a teacher's lesson may name the built-in ones
    referred = []
    for entry in entries:
        try:
            referred.append(_with_references(entry, known))
        except GpuvizError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    return referred


def reference(entry: CatalogEntry) -> str:
    """How a text names a lesson: its title, with its number in the course of the day."""
    return f"“{entry.title}” (lesson {entry.number})"


def _with_references(entry: CatalogEntry, known: dict[str, CatalogEntry]) -> CatalogEntry:
    """The entry with every `[[slug]]` of its description and sections shown as that lesson's reference."""

    def named(found: re.Match) -> str:
        slug = found.group(1).strip()
        if slug not in known:
            raise LessonProblem(f"{entry.path.with_suffix('.md').name}: [[{slug}]] names no lesson; write the slug "
                                f"of one (the name after its number: {', '.join(list(known)[:3])}, ...)")  # fmt: skip
        return reference(known[slug])

    sections = {key: _REFERENCE.sub(named, text) for key, text in entry.sections.items()}
    return replace(entry, description=_REFERENCE.sub(named, entry.description), sections=sections)


def examples(folder: Path = EXAMPLES) -> list[CatalogEntry]:
    if not folder.is_dir():
        return []
    scripts = sorted(folder.glob("*.py"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))
    entries = []
    for path in scripts:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        title = path.stem.replace("_", " ").capitalize()
        entries.append(CatalogEntry(path.stem, title, doc.split("\n\n")[0].replace("\n", " "), path,
                                    racy="racy" in path.stem))  # fmt: skip
    return entries


def find(name: str, teacher: Path | str | None = None) -> CatalogEntry:
    """An entry by name, number ("02") or slug, the name without its number ("the-race"); the built-in
    lessons come first, so a teacher's lesson numbered like a built-in one is found by its full name."""
    problems: list[str] = []
    entries = catalog(teacher, problems)
    for entry in entries:
        if name in (entry.name, entry.name.split("-", 1)[0], entry.name.split("-", 1)[-1]):
            return entry
    for problem in problems:  # the lesson asked for is a bad one: say why
        if problem.startswith(name) or f"-{name}." in problem.split(":")[0]:
            raise LessonProblem(problem)
    known = ", ".join(entry.name for entry in entries)
    raise GpuvizError(f"no catalog entry {name!r}; `gpuviz list` shows them: {known}")


def _lesson(path: Path) -> CatalogEntry:
    """A lesson read and checked (lesson_check.py); LessonProblem names the file, the section and the problem."""
    source = _read(path, "script")
    text = _read(path.with_suffix(".md"), "text", missing=f"# {path.stem}\n")
    title, description, sections = _markdown(text)
    where = section(path.with_suffix(".md"), "Run") if "run" in sections else f"{path.name}, # gpuviz: line"
    words = [w.strip() for w in _run_settings(sections, source).split(",") if w.strip()]
    racy, host_fix, sms, launch = run_settings(words, where)
    count, repeats = launch_calls(source)
    if launch is not None and launch >= count and not repeats:
        raise LessonProblem(f"{where}: launch={launch}, but the script makes {count} launch(es)")
    _check_partner(sections, count, repeats, launch or 0, section(path.with_suffix(".md"), "Evidence"))
    for heading in ("Checks", "Fix checks"):  # a fix may add lines: its checks name no line numbers
        checked(sections.get(heading.lower(), ""), source, launch or 0, section(path.with_suffix(".md"), heading),
                line_numbers=heading == "Checks")  # fmt: skip
    return CatalogEntry(path.stem, title, description, path, sections, racy, sms, launch, host_fix)


def _check_partner(sections: dict[str, str], count: int, repeats: bool, launch: int, where: str) -> None:
    """The evidence's Compare partner is another launch the script makes (the rest of the evidence is
    checked against the run, where the lesson view says what is wrong)."""
    try:
        evidence = parse_evidence(sections.get("evidence", ""))
    except GpuvizError:
        return
    partner = evidence.partner if evidence is not None else None
    if partner is None or repeats:
        return
    shown = evidence.launch if evidence.launch is not None else launch
    if partner >= count:
        raise LessonProblem(f"{where}: partner {partner}, but the script makes {count} launch(es) (0 to {count - 1})")
    if partner == shown:
        raise LessonProblem(f"{where}: partner {partner} is the launch the evidence shows; name another one")


def _read(path: Path, what: str, missing: str | None = None) -> str:
    """A lesson's file as text: never a fifo, a link loop, a huge file or bytes that are not UTF-8."""
    try:
        text = read_text(path, MAX_LESSON_BYTES, follow=True)
    except UnreadableFile as exc:
        raise LessonProblem(f"{path.name}: the {what} cannot be read: {exc.reason}") from None
    if text is None:
        if missing is None:
            raise LessonProblem(f"{path.name}: the {what} is missing")
        return missing
    return text


def _run_settings(sections: dict[str, str], source: str) -> str:
    """The text's `## Run` line (`race, sms=8, launch=1`), kept out of the script the student reads before
    Run ("race" would give the answer away); a script's `# gpuviz: ...` line is still read when the text has none."""
    if "run" in sections:
        return sections["run"].strip("` \n")
    flags = re.search(r"^# gpuviz:(.*)$", source, re.MULTILINE)
    return flags.group(1) if flags else ""


def _markdown(text: str) -> tuple[str, str, dict[str, str]]:
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    head = parts[0].strip().splitlines()
    title = head[0].lstrip("# ").strip() if head else ""
    description = " ".join(line.strip() for line in head[1:]).strip()
    sections = {}
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        sections[heading.strip().lower()] = body.strip()
    return title, description, sections
