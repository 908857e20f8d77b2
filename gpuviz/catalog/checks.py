"""A lesson's `## Checks`: the numbers its text states, written so a test (and a fix check) can hold
them against a run.

One check a line, `[launch N:] [sim:|gpu:] MEASURE OP NUMBER`, e.g.

    array[0] == 0.5                  element of an array after the launch
    launch 1: sum(bins) == 4096      sum of an array after the launch (launch 1 of the script)
    max(image) == 40                 largest (min: smallest) element of an array after the launch
    cycles(max) == 1808              the slowest thread's time from start to end (min: the fastest), in the
                                     trace's time unit (simulator: cycles; so mark it `sim:`)
    blocks == 16                     blocks of the launch (warps: warps of the launch)
    resident_blocks == 2             the most blocks the run had on one SM at once (measured occupancy)
    sm_blocks == 8                   the most blocks one SM ran over the whole launch
    barrier_divergence == 0          blocks where not every thread reached a barrier
    errors == 245                    memory errors of the launch (out-of-bounds accesses, uninitialised shared
                                     reads, barrier divergence)
    races == 16                      racy locations the race analysis found
    races(same block) == 0           ... of one scope: same warp, same block or different blocks
    reads(A) == 9216                 reads of an array in the launch (every thread, every loop trip)
    reads(a, 5) == 10                ... by one thread, named by its global linear index
    atomics(bins) == 256             atomic updates of an array in the launch
    lost(array) >= 60000             updates lost on an array (writes not in its final value)
    sectors(16, A) == 8              32-byte sectors per warp request at source line 16, array A
    sectors(17, C, write) == 8       ... of one kind (read, write or atomic) where a line has several
    lanes(13, out) == 16             lanes per warp request at that line (fewer than 32: a branch or the bounds)
    conflicts(30, tile) == 2         the worst shared-memory bank conflict degree of that line's requests
    occupancy == 1.0                 theoretical occupancy
    blocks_per_sm == 4               the blocks one SM can hold in theory (the smallest of the limits)
    limit(shared memory) == 4        the blocks one SM could hold by one resource: threads, blocks, shared memory
    writes(warp_sums) == 32          writes of an array in the launch

OP is one of == != >= <= > <. A check applies to every backend unless marked `sim:` (the simulator
only) or `gpu:` (hardware only). The launch defaults to the lesson's `launch=N` flag, else 0.
Numbers are written by the lesson's author, never filled in from a run: a wrong text fails its check.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.analysis.report import memory_analysis, race_report
from gpuviz.core.errors import GpuvizError
from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace

OPERATORS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt,
             "<": operator.lt}  # fmt: skip
_LINE = re.compile(r"^(?:launch (?P<launch>\d+):\s*)?(?:(?P<where>sim|gpu):\s*)?(?P<measure>.+?)\s*"
                   r"(?P<op>==|!=|>=|<=|>|<)\s*(?P<value>-?[\d.,_]+)$")  # fmt: skip
_CALL = re.compile(r"^(?P<name>\w+)(?:\((?P<args>[^()]*)\)|\[(?P<index>[^\]]*)\])?$")


@dataclass(frozen=True)
class Check:
    text: str  # the line as written
    measure: str  # "element", "sum", "races", "lost", "sectors", "conflicts", "occupancy"
    args: tuple[str, ...]
    op: str
    value: float
    launch: int | None = None  # None: the lesson's launch
    where: str | None = None  # "sim", "gpu" or None (both)


@dataclass(frozen=True)
class Outcome:
    check: Check
    observed: float | None
    passed: bool

    def __str__(self) -> str:
        mark = "ok" if self.passed else "FAILED"
        return f"{mark}: {self.check.text} (the run: {_number(self.observed)})"


def parse_checks(text: str) -> list[Check]:
    """The checks of a `## Checks` section's body; blank lines and `#` comments are skipped."""
    checks = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip().lstrip("- ").strip("`").strip()
        if line:
            checks.append(parse_check(line))
    return checks


def parse_check(line: str) -> Check:
    match = _LINE.match(line)
    call = _CALL.match(match.group("measure").strip()) if match else None
    if match is None or call is None:
        raise GpuvizError(f"check {line!r}: write `MEASURE OP NUMBER`, e.g. `array[0] == 0.5` or `races == 0`")
    name, args, index = call.group("name"), call.group("args"), call.group("index")
    if index is not None:
        measure, parts = "element", (name, index)
    else:
        measure, parts = name, tuple(a.strip() for a in (args or "").split(",") if a.strip())
    if measure not in MEASURES:
        raise GpuvizError(f"check {line!r}: unknown measure {measure!r}; known: array[i], {', '.join(MEASURES)}")
    launch = match.group("launch")
    try:
        value = float(match.group("value").replace(",", "").replace("_", ""))
    except ValueError:
        raise GpuvizError(f"check {line!r}: {match.group('value')!r} is not a number") from None
    if launch is not None and len(launch) > 6:
        raise GpuvizError(f"check {line!r}: launch {launch} is not a launch number")
    return Check(line, measure, parts, match.group("op"), value, None if launch is None else int(launch),
                 match.group("where"))  # fmt: skip


def applies(check: Check, backend: str) -> bool:
    return check.where is None or check.where == backend


def evaluate(check: Check, trace: Trace) -> Outcome:
    """The check held against one launch's trace; a check the trace cannot answer (no such array, an
    index past its end) is one line."""
    try:
        observed = MEASURES[check.measure](trace, *check.args)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise GpuvizError(f"check {check.text!r} cannot be measured on this run: {_why(exc)}") from None
    passed = observed is not None and bool(OPERATORS[check.op](observed, check.value))
    return Outcome(check, observed, passed)


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no array {exc.args[0]!r}"
    return str(exc) or type(exc).__name__


def _element(trace: Trace, name: str, index: str) -> float:
    position = tuple(int(i) for i in index.split(","))
    return float(trace.after(name)[position])


def _sum(trace: Trace, name: str) -> float:
    return float(np.sum(trace.after(name)))


def _max(trace: Trace, name: str) -> float:
    return float(np.max(trace.after(name)))


def _min(trace: Trace, name: str) -> float:
    return float(np.min(trace.after(name)))


def _cycles(trace: Trace, which: str) -> float:
    duration = trace.threads["t_end"] - trace.threads["t_start"]
    return float({"max": np.max, "min": np.min}[which](duration))


def _blocks(trace: Trace) -> float:
    return float(len(np.unique(trace.threads["block_idx"], axis=0)))


def _warps(trace: Trace) -> float:
    return float(np.unique(np.stack([_block_ids(trace), trace.threads["warp"]]), axis=1).shape[1])


def _block_ids(trace: Trace) -> np.ndarray:
    """Each thread's block as one number."""
    return np.unique(trace.threads["block_idx"], axis=0, return_inverse=True)[1].reshape(-1)


def _races(trace: Trace, scope: str | None = None) -> float | None:
    report = race_report(trace)
    if report is None:
        return None
    if scope is None:
        return float(report.locations)
    return float(sum(1 for race in report.races if race.scope == scope))


def _accesses(trace: Trace, name: str, kind: str, thread: str | None = None) -> float | None:
    if trace.accesses is None or name not in trace.array_names():
        return None
    acc = trace.accesses
    mine = (acc["array"] == trace.array_names().index(name)) & (acc["kind"] == KIND_NAMES.index(kind))
    if thread is not None:  # one thread's, by its global linear id
        mine &= acc["thread"] == int(thread)
    return float(np.count_nonzero(mine))


def _reads(trace: Trace, name: str, thread: str | None = None) -> float | None:
    return _accesses(trace, name, "read", thread)


def _writes(trace: Trace, name: str, thread: str | None = None) -> float | None:
    return _accesses(trace, name, "write", thread)


def _atomics(trace: Trace, name: str, thread: str | None = None) -> float | None:
    return _accesses(trace, name, "atomic", thread)


def _resident_blocks(trace: Trace) -> float:
    return float(memory_analysis(trace)["occupancy"]["measured"]["blocks"])


def _sm_blocks(trace: Trace) -> float:
    pairs = np.unique(np.stack([_block_ids(trace), trace.threads["sm"]]), axis=1)
    return float(np.bincount(pairs[1]).max())


def _barrier_divergence(trace: Trace) -> float | None:
    report = race_report(trace)
    return None if report is None else float(len(report.divergence))


def _errors(trace: Trace) -> float:
    return float(trace.error_count)


def _lost(trace: Trace, name: str) -> float | None:
    lost = lost_updates(trace)
    return float(lost[name].sum()) if name in lost else None


def _memory_row(trace: Trace, line: str, array: str, kind: str | None) -> dict | None:
    rows = [r for r in memory_analysis(trace).get("lines") or []
            if r["line"] == int(line) and r["array"] == array and kind in (None, r["kind"])]  # fmt: skip
    if len(rows) > 1:
        kinds = ", ".join(r["kind"] for r in rows)
        raise GpuvizError(f"line {line} accesses {array} as {kinds}: name the kind, e.g. ({line}, {array}, write)")
    return rows[0] if rows else None


def _sectors(trace: Trace, line: str, array: str, kind: str | None = None) -> float | None:
    row = _memory_row(trace, line, array, kind)
    return None if row is None else row["sectors_per_request"]


def _lanes(trace: Trace, line: str, array: str, kind: str | None = None) -> float | None:
    row = _memory_row(trace, line, array, kind)
    return None if row is None else row["lanes_per_request"]


def _conflicts(trace: Trace, line: str, array: str, kind: str | None = None) -> float | None:
    row = _memory_row(trace, line, array, kind)
    return None if row is None or row["bank_conflict_degree"] is None else float(row["bank_conflict_degree"]["max"])


def _occupancy(trace: Trace) -> float | None:
    return memory_analysis(trace)["occupancy_theoretical"]


def _blocks_per_sm(trace: Trace) -> float:
    return float(memory_analysis(trace)["occupancy"]["theoretical"]["blocks"])


def _limit(trace: Trace, resource: str) -> float | None:
    limit = memory_analysis(trace)["occupancy"]["theoretical"]["limits"].get(resource)
    return None if limit is None else float(limit)


MEASURES = {"element": _element, "sum": _sum, "max": _max, "min": _min, "cycles": _cycles, "blocks": _blocks, "warps": _warps, "races": _races, "reads": _reads, "atomics": _atomics, "resident_blocks": _resident_blocks,
            "sm_blocks": _sm_blocks, "barrier_divergence": _barrier_divergence, "errors": _errors, "lost": _lost, "sectors": _sectors, "lanes": _lanes,
            "conflicts": _conflicts, "occupancy": _occupancy, "blocks_per_sm": _blocks_per_sm, "limit": _limit,
            "writes": _writes}  # fmt: skip


def _number(value: float | None) -> str:
    return "nothing to measure" if value is None else number(value)


def check_launches(checks: list[Check], traces: list[Trace], backend: str, default_launch: int = 0) -> list[Outcome]:
    """Every check that applies to this backend, held against its launch; a missing launch fails."""
    outcomes = []
    for check in (c for c in checks if applies(c, backend)):
        launch = default_launch if check.launch is None else check.launch
        if launch >= len(traces):
            outcomes.append(Outcome(check, None, False))
        else:
            outcomes.append(evaluate(check, traces[launch]))
    return outcomes
