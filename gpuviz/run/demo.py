"""`gpuviz demo`: run a catalog entry, check it against its reference, or show its races (a student's fix of a
lesson is checked by run/fix_check.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuviz.catalog import CatalogEntry
from gpuviz.catalog.checks import Check, Outcome, check_launches
from gpuviz.core.analysis.races import format_report
from gpuviz.core.analysis.report import race_report, recorded_share
from gpuviz.core.errors import GpuvizError
from gpuviz.core.events import Notify, ignore
from gpuviz.program.script import ScriptError, run_script
from gpuviz.run.session import Session


@dataclass
class DemoResult:
    session: Session
    reference: str  # "reference: ok" or what differs
    races: list[str]  # one report per launch, for race lessons


def run_demo(entry: CatalogEntry, out_dir: str | Path | None, notify: Notify = ignore,
             grid=None, block=None, backend: str = "auto") -> DemoResult:  # fmt: skip
    overrides = {0: (grid, block)} if grid or block else {}
    session = Session(entry.run_options(backend), out_dir=out_dir, notify=notify, keep_traces=True,
                      overrides=overrides)  # fmt: skip
    try:
        run_script(entry.path, session)
        reference = "reference: ok"
    except ScriptError as exc:
        reference = "reference: differs: " + gist(str(exc))
    races = [format_report(race_report(t), t.kernel, recorded_share(t)) for t in session.traces
             if race_report(t) is not None]  # fmt: skip
    return DemoResult(session, reference, races if entry.racy else [])


def lesson_checks(entry: CatalogEntry, result: DemoResult, checks: list[Check] | None = None) -> list[Outcome]:
    """The numbers the lesson's text states (its `## Checks`, or the checks given), held against the run."""
    traces = result.session.traces
    backend = traces[0].meta.get("backend", "sim") if traces else "sim"
    return check_launches(entry.checks if checks is None else checks, traces, backend, entry.launch or 0)


def gist(message: str) -> str:
    """The telling lines of an assertion message: where it failed, how many elements differ."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    keep = [lines[0]] + [line for line in lines[1:] if line.startswith(("Mismatched", "Max absolute"))]
    return "; ".join(keep)


def parse_dims(text: str, what: str) -> tuple[int, ...]:
    """'1024', '32,32' or '(32, 32)' as a tuple of 1-3 positive ints; a one-line error otherwise."""
    parts = [p.strip() for p in text.strip("()[] ").split(",") if p.strip()]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise GpuvizError(f"--{what} {text!r}: give 1 to 3 positive whole numbers separated by commas, e.g. 16,16")
    return dims
