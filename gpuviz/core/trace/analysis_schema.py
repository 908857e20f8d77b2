"""The stored `analysis` member checked like the columns: its layout, and every array, element, block,
thread and line it names against the trace's own. Its declared size is checked before it is inflated.
A member that fails is dropped with one line (in the trace's warnings), and the analysis is worked out
again from the trace where something needs it (core/analysis/report.py)."""

from __future__ import annotations

import math

MAX_ANALYSIS_BYTES = 32 << 20  # declared size of the member (UTF-32 text): a real one is a few MB at most
MAX_RACES = 2000  # find_races describes at most twice its 1000 locations
MAX_ROWS = 100_000  # memory rows: one per (source line, array, kind)
MAX_LINE = 10**7
DROPPED = "__dropped__"  # the reader's note that it left a member unread (read_members)
RACE_KEYS = {"racy": bool, "races": list, "benign": list, "truncated": bool, "locations": int, "racy_arrays": list,
             "barrier_divergence": list}  # fmt: skip
ACCESSES = ("read", "write", "atomic")
KINDS = ("RAW", "WAR", "WAW")
SCOPES = ("same warp", "same block", "different blocks")


class _Wrong(Exception):
    """What is wrong with the stored analysis, in a few words."""


def checked_analysis(analysis: object, meta: dict) -> tuple[dict, str]:
    """(the analysis, "") when it holds up, else ({}, one line saying why it was dropped)."""
    try:
        _check(analysis, meta)
    except _Wrong as exc:
        return {}, f"its stored analysis was dropped ({exc}); it is worked out again from the trace"
    return analysis, ""


def _check(analysis: object, meta: dict) -> None:
    if not isinstance(analysis, dict):
        raise _Wrong("not a JSON object")
    if DROPPED in analysis:
        raise _Wrong(str(analysis[DROPPED])[:200])
    unknown = set(analysis) - {"memory", "races", "races_skipped"}
    if unknown:
        raise _Wrong(f"unknown entry {sorted(unknown)[0]!r}")
    sizes = {a["name"]: math.prod(a["shape"]) for a in meta.get("arrays", [])}
    if analysis.get("races") is not None:
        _races(analysis["races"], sizes, meta)
    if "memory" in analysis:
        _memory(analysis["memory"], sizes)


def _races(races: object, sizes: dict[str, int], meta: dict) -> None:
    _keys(races, RACE_KEYS, "races")
    for key in ("races", "benign"):
        if len(races[key]) > MAX_RACES:
            raise _Wrong(f"{len(races[key]):,} stored {key}; an analysis describes at most {MAX_RACES:,}")
        for race in races[key]:
            _race(race, sizes, meta)
    if not 0 <= races["locations"] <= 2**62 or not all(name in sizes for name in races["racy_arrays"]):
        raise _Wrong("its race counts or arrays do not fit the trace")
    if not all(isinstance(line, str) for line in races["barrier_divergence"]):
        raise _Wrong("its barrier divergence is not a list of lines")


def _race(race: object, sizes: dict[str, int], meta: dict) -> None:
    _keys(race, {"array": str, "space": str, "index": int, "kind": str, "scope": str, "first": dict,
                 "second": dict, "pairs": int}, "a race")  # fmt: skip
    name = race["array"]
    if name not in sizes:
        raise _Wrong(f"a race on array {name[:40]!r}, which the trace does not have")
    if not 0 <= race["index"] < sizes[name]:
        raise _Wrong(f"a race at element {race['index']:,} of {name}, which has {sizes[name]:,}")
    if race["space"] not in ("global", "shared") or race["kind"] not in KINDS or race["scope"] not in SCOPES:
        raise _Wrong(f"a race on {name} of an unknown space, kind or scope")
    block = race.get("block")
    if race["pairs"] < 1 or (block is not None and not _inside(block, meta["grid"])):
        raise _Wrong(f"a race on {name} with no pairs or a block outside the launch")
    for side in ("first", "second"):
        party = race[side]
        _keys(party, {"block": list, "thread": list, "line": int, "access": str}, "a race's thread")
        if not (_inside(party["block"], meta["grid"]) and _inside(party["thread"], meta["block"])):
            raise _Wrong(f"a race names block {party['block']} thread {party['thread']}, outside the launch")
        if not 0 <= party["line"] <= MAX_LINE or party["access"] not in ACCESSES:
            raise _Wrong(f"a race names line {party['line']} or access {str(party['access'])[:20]!r}")


def _memory(memory: object, sizes: dict[str, int]) -> None:
    _keys(memory, {"occupancy": dict}, "memory")
    for key in ("occupancy_theoretical", "occupancy_measured"):
        if key not in memory or not _number_or_none(memory[key]):
            raise _Wrong(f"memory {key} is missing or not a number")
    occupancy = memory["occupancy"]
    for part, required in (("theoretical", ("blocks", "warps", "occupancy", "limits")),
                           ("measured", ("blocks", "warps", "occupancy"))):  # fmt: skip
        values = occupancy.get(part)
        if not isinstance(values, dict) or not all(key in values for key in required):
            raise _Wrong(f"memory occupancy {part} is missing or incomplete")
        if not all(_number_or_none(values[key]) for key in required if key != "limits"):
            raise _Wrong(f"memory occupancy {part} holds a value that is not a number")
    if not isinstance(occupancy["theoretical"]["limits"], dict):
        raise _Wrong("memory occupancy limits are not a table")
    for key in ("lines", "arrays"):
        rows = memory.get(key)
        if rows is None:
            continue
        if not isinstance(rows, list) or len(rows) > MAX_ROWS:
            raise _Wrong(f"memory {key} is not a list of at most {MAX_ROWS:,} rows")
        for row in rows:
            _row(row, sizes, key)
    if memory.get("divergence") is not None and not isinstance(memory["divergence"], dict):
        raise _Wrong("memory divergence is not a table")


def _row(row: object, sizes: dict[str, int], key: str) -> None:
    needed = {"array": str, "space": str, "requests": int}
    if key == "lines":
        needed |= {"line": int, "kind": str}
    _keys(row, needed, f"a memory {key[:-1]} row")
    if row["array"] not in sizes:
        raise _Wrong(f"a memory row names array {row['array'][:40]!r}, which the trace does not have")
    if key == "lines" and (not 0 <= row["line"] <= MAX_LINE or row["kind"] not in ACCESSES):
        raise _Wrong(f"a memory row names line {row['line']} or kind {row['kind'][:20]!r}")
    for name in ("sectors_per_request", "lanes_per_request", "efficiency"):
        if name in row and not _number_or_none(row[name]):
            raise _Wrong(f"a memory row's {name} is not a number")
    degree = row.get("bank_conflict_degree")
    if degree is not None and not (isinstance(degree, dict) and _number_or_none(degree.get("max"))):
        raise _Wrong("a memory row's bank conflict degree is not a table with a max")


def _keys(value: object, types: dict[str, type], what: str) -> None:
    if not isinstance(value, dict):
        raise _Wrong(f"{what} is not a table")
    for key, kind in types.items():
        item = value.get(key)
        if key not in value or not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
            raise _Wrong(f"{what} has no {kind.__name__} {key!r}")


def _inside(coords: object, dims: list[int]) -> bool:
    if not (isinstance(coords, list) and len(coords) == 3):
        return False
    return all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < d for c, d in zip(coords, dims))


def _number_or_none(value: object) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))
