"""The analysis of a launch, computed once where the launch runs and stored in its trace.

Views, lessons, `gpuviz demo` and `gpuviz races` read the stored result; nothing recomputes it on
the way (a big launch's race search takes seconds, and the app must never do it on its GUI thread).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpuviz.core.analysis import races
from gpuviz.core.analysis.memory import memory_report
from gpuviz.core.trace.model import Trace
from gpuviz.core.trace.reader import load


def analyse(trace: Trace) -> dict:
    """Everything worth knowing about a launch that costs time to find, as JSON-able data.

    Pure: the trace is not changed; the caller stores the result (`trace.analysis = analyse(trace)`).
    What the trace already stores is kept (a trace from an older gpuviz gets only what it lacks).
    """
    result = dict(trace.analysis)
    if "memory" not in result:
        result["memory"] = memory_report(trace)
    if "races" in result:
        return result
    if trace.accesses is None:
        return {**result, "races": None, "races_skipped": "level threads: no access log to look for races in"}
    return {**result, "races": races.find_races(trace).to_json()}


def race_report(trace: Trace) -> races.RaceReport | None:
    """The stored race report; None when the launch was recorded without accesses or never analysed."""
    data = trace.analysis.get("races")
    return None if data is None else races.RaceReport.from_json(data)


def memory_analysis(trace: Trace) -> dict:
    """The stored memory analysis (coalescing, bank conflicts, occupancy, divergence); computed here only
    for a trace written before gpuviz stored it, before it stored the totals, or before constant memory's turns."""
    stored = trace.analysis.get("memory")
    rows = (stored or {}).get("lines") or []
    before_turns = any("turns_per_request" not in row for row in rows)
    older = stored is not None and trace.accesses is not None and ("counts" not in stored or before_turns)
    return memory_report(trace) if stored is None or older else stored


def is_analysed(trace: Trace) -> bool:
    return "races" in trace.analysis and "memory" in trace.analysis


def race_summary(trace: Trace) -> str:
    """'races: none found', 'races: N locations in A arrays', or why races were not looked for."""
    report = race_report(trace)
    if report is not None:
        return report.summary(recorded_share(trace))
    if trace.accesses is None:
        return "races: not checked (level threads)"
    return "races: not analysed"


def races_in_run(traces: list[Trace]) -> str:
    """The races a run's launches were found to have, in a few words ('' where none was found): 'races: 16
    locations in 1 array', or over several launches 'races in 2 of 5 launches'."""
    reports = [race_report(trace) for trace in traces]
    racy = [(trace, report) for trace, report in zip(traces, reports) if report is not None and report.racy]
    if not racy:
        return ""
    if len(traces) == 1:
        trace, report = racy[0]
        return report.summary(recorded_share(trace))
    return f"races in {len(racy)} of {len(traces)} launches"


def recorded_share(trace: Trace) -> tuple[int, int] | None:
    """(blocks whose accesses were recorded, blocks of the launch) where not every block's were, else None."""
    blocks = trace.meta.get("recorded_blocks")
    return None if blocks is None else (len(blocks), int(np.prod(trace.grid)))


def as_trace(trace: Trace | str | Path) -> Trace:
    """A trace, or a trace file loaded, with its analysis (old files did not store it)."""
    if not isinstance(trace, Trace):
        trace = load(trace)
    if not is_analysed(trace):
        trace.analysis = analyse(trace)
    return trace
