"""A race report in compute-sanitizer racecheck's layout, so that log parsers written for racecheck read
gpuviz's findings (`gpuviz races --format sanitizer`). The layout follows a real racecheck capture
(tests/data/racecheck/); docs/races.md says where the two differ.

racecheck counts a hazard per byte of shared memory, so a racing element of a 4-byte type is 4 hazards;
gpuviz lists each racing element once (at its first byte) and counts its bytes the same way."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpuviz.core.analysis.races import Party, Race, RaceReport
from gpuviz.core.trace.model import Trace

BAR = "========="
MODES = ("analysis", "hazard")


def racecheck_text(report: RaceReport, trace: Trace, mode: str = "analysis") -> str:
    """The report as racecheck prints it with `--racecheck-report analysis` (one entry per pair of source
    accesses, its default) or `hazard` (one entry per racing location), and its summary line."""
    if mode not in MODES:
        raise ValueError(f"racecheck report {mode!r}: one of {', '.join(MODES)}")
    lines = [f"{BAR} COMPUTE-SANITIZER"]
    entries = _analysis(report, trace) if mode == "analysis" else _hazards(report, trace)
    for entry in entries:
        lines += entry
        lines.append(f"{BAR} ")
    warnings = sum(_bytes(trace, race) for race in report.races if _is_warning(race))
    errors = sum(_bytes(trace, race) for race in report.races) - warnings
    if mode == "analysis":  # racecheck's analysis summary counts the entries it shows
        errors = sum(1 for entry in entries if " Error: " in entry[0])
        warnings = len(entries) - errors
    lines.append(f"{BAR} RACECHECK SUMMARY: {len(entries)} hazard{'s' * (len(entries) != 1)} displayed "
                 f"({errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)})")  # fmt: skip
    return "\n".join(lines)


def _is_warning(race: Race) -> bool:
    """racecheck says Warning, "(Warp Level Programming)", for hazards between lanes of one warp."""
    return race.scope == "same warp"


def _severity(race: Race) -> str:
    return "Warning" if _is_warning(race) else "Error"


def _hazards(report: RaceReport, trace: Trace) -> list[list[str]]:
    entries = []
    for race in report.races:
        warp = " (Warp Level Programming)" if _is_warning(race) else ""
        block = race.block if race.block is not None else race.first.block
        head = (f"{BAR} {_severity(race)}:{warp} Potential {race.kind} hazard detected at __{race.space}__ "
                f"{_address(trace, race):#x} in block {_dims(block)} :")  # fmt: skip
        parties = [f"{BAR}     {_who(trace, race, party)}" for party in (race.first, race.second)]
        entries.append([head, *parties])
    return entries


def _analysis(report: RaceReport, trace: Trace) -> list[list[str]]:
    """One entry per (severity, first access and line, second access and line), with its hazards counted."""
    groups: dict[tuple, int] = {}
    for race in report.races:
        key = (_severity(race), race.first.access, race.first.line, race.second.access, race.second.line)
        groups[key] = groups.get(key, 0) + _bytes(trace, race)
    entries = []
    for (severity, first, first_line, second, second_line), hazards in groups.items():
        entries.append([
            f"{BAR} {severity}: Race reported between {first.title()} access at {_place(trace, first_line)}",
            f"{BAR}     and {second.title()} access at {_place(trace, second_line)} [{hazards} hazards]",
        ])  # fmt: skip
    return entries


def _who(trace: Trace, race: Race, party: Party) -> str:
    block = f" in block {_dims(party.block)}" if race.scope == "different blocks" else ""
    return f"{party.access.title()} Thread {_dims(party.thread)}{block} at {_place(trace, party.line)}"


def _place(trace: Trace, line: int) -> str:
    return f"{trace.kernel} in {Path(trace.meta.get('source_file') or '?').name}:{line}"


def _dims(dims) -> str:
    return "(" + ",".join(str(int(v)) for v in dims) + ")"


def _itemsize(trace: Trace, name: str) -> int:
    entry = next(a for a in trace.meta.get("arrays", []) if a["name"] == name)
    return np.dtype(entry["dtype"]).itemsize


def _bytes(trace: Trace, race: Race) -> int:
    return _itemsize(trace, race.array)


def _address(trace: Trace, race: Race) -> int:
    """A byte offset: in the block's shared memory, the shared arrays laid out one after another in the order
    the kernel declares them (not the GPU's addresses, which start past memory the driver reserves); in
    global memory, from the array's start."""
    offset = 0
    if race.space == "shared":
        for entry in trace.meta.get("arrays", []):
            if entry["name"] == race.array:
                break
            if entry["space"] == "shared":
                offset += int(np.prod(entry["shape"])) * np.dtype(entry["dtype"]).itemsize
    return offset + race.index * _itemsize(trace, race.array)
