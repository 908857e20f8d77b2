"""A lesson's `## Checks`: the numbers its text states, written so a test (and a fix check) can hold
them against a run.

One check a line, `[launch N:] [sim:|model:|gpu:] MEASURE OP NUMBER`, e.g.

    array[0] == 0.5                  element of an array after the launch
    launch 1: sum(bins) == 4096      sum of an array after the launch (launch 1 of the script)
    max(image) == 40                 largest (min: smallest) element of an array after the launch
    cycles(max) == 1808              the slowest thread's time from start to end (min: the fastest), in the
                                     trace's time unit (simulator: cycles; so mark it `sim:`)
    blocks == 16                     blocks of the launch (warps: warps of the launch; threads: its threads)
    resident_blocks == 2             the most blocks the run had on one SM at once (measured occupancy)
    sm_blocks == 8                   the most blocks one SM ran over the whole launch
    barrier_divergence == 0          blocks where not every thread reached a barrier
    warp_sync_divergence == 0        warps where a lane of a syncwarp's mask that had not exited never reached a
                                     syncwarp with that mask (the simulator's vector engine judges it: mark it `sim:`)
    errors == 245                    memory errors of the launch (out-of-bounds accesses, uninitialised shared
                                     reads, barrier divergence)
    races == 16                      racy locations the race analysis found
    races(same block) == 0           ... of one scope: same warp, same block or different blocks
    reads(A) == 9216                 reads of an array in the launch (every thread, every loop trip)
    reads(a, 5) == 10                ... by one thread, named by its global linear index
    atomics(bins) == 256             atomic updates of an array in the launch
    lost(array) >= 60000             updates lost on an array (writes not in its final value)
    sectors("A[row, k]", A) == 8     32-byte sectors per warp request of array A at the kernel lines whose code
                                     contains that text (catalog/places.py: spaces do not count)
    sectors(store-C, C, write) == 8  ... at the lines labelled `# check: store-C`; of one kind (read, write or
                                     atomic) where the lines have several
    sectors(matmul, C) == 4          ... at every line of the kernel (or device function) named matmul
    sectors(16, A) == 8              ... at source line 16: only in `## Checks` (a fix that adds a line moves it)
    lanes("out[i]", out) == 16       lanes per warp request there (fewer than 32: a branch or the bounds)
    conflicts(load-tile, tile) == 2  the worst shared-memory bank conflict degree of those requests
    turns("table[i]", table) == 32   the most turns a constant-memory request there takes (its distinct addresses)
    occupancy == 1.0                 theoretical occupancy
    blocks_per_sm == 4               the blocks one SM can hold in theory (the smallest of the limits)
    limit(shared memory) == 4        the blocks one SM could hold by one resource: threads, blocks, shared memory
    writes(warp_sums) == 32          writes of an array in the launch
    copies == 6                      arrays copied between host and device with the launch: numba copies each host
                                     (NumPy) argument in before it and back after it; a device or CuPy array, never
    copied_bytes == 24000            the bytes those copies moved, both ways
    bits(acc) == 64                  the width of the type numba gives a local of the kernel (`acc = 0.0`: float64);
                                     the simulator's vector engine records it, a GPU where numba kept its typing

OP is one of == != >= <= > <. A check applies to every backend unless marked `sim:` (the simulator
only), `model:` (the simulator only, and its number is the cost model's: a time, or a race's outcome
that the order of events decides; the text labels it "(model)", core/fidelity.py) or `gpu:` (hardware
only). The launch defaults to the lesson's `launch=N` flag, else 0.
Numbers are written by the lesson's author, never filled in from a run: a wrong text fails its check.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np

from gpuviz.catalog.places import Place, lines_of, place_of
from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.analysis.report import memory_analysis, race_report
from gpuviz.core.copies import copied_bytes, copies
from gpuviz.core.errors import GpuvizError
from gpuviz.core.fidelity import EXACT, MEASURED, MODEL
from gpuviz.core.local_types import bits
from gpuviz.core.numbers import number
from gpuviz.core.streams import measure, timeline_of
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace

OPERATORS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt,
             "<": operator.lt}  # fmt: skip
_HEAD = re.compile(r"^(?:launch (?P<launch>\d+):\s*)?(?:(?P<where>sim|model|gpu):\s*)?")
_TAIL = re.compile(r"(?P<op>==|!=|>=|<=|>|<)\s*(?P<value>-?[\d.,_]+)$")  # the last comparison: quoted text may hold one
_CALL = re.compile(r"^(?P<name>\w+)(?:\((?P<args>.*)\)|\[(?P<index>[^\]]*)\])?$")
PLACED = ("sectors", "lanes", "conflicts", "turns")  # measures whose first argument is a place (catalog/places.py)


@dataclass(frozen=True)
class Check:
    text: str  # the line as written
    measure: str  # "element", "sum", "races", "lost", "sectors", "conflicts", "occupancy"
    args: tuple[str, ...]
    op: str
    value: float
    launch: int | None = None  # None: the lesson's launch
    where: str | None = None  # "sim", "gpu" or None (both)
    modelled: bool = False  # `model:`: the simulator's cost model decides the number (core/fidelity.py)

    def fidelity(self, backend: str = "sim") -> str:
        """How far the number a run gives for this check can be trusted (core/fidelity.py): a time is the
        model's on the simulator and measured on a GPU; a `model:` check's number is the model's."""
        if self.measure in ("cycles", "timeline") or self.modelled:
            return MEASURED if backend == "gpu" else MODEL
        return EXACT


@dataclass(frozen=True)
class Outcome:
    check: Check
    observed: float | None
    passed: bool
    note: str = ""  # why there was nothing to measure, when it can be said

    def __str__(self) -> str:
        mark = "ok" if self.passed else "FAILED"
        return f"{mark}: {self.check.text} (the run: {self.value_text()})"

    def value_text(self) -> str:
        return self.note if self.observed is None and self.note else _number(self.observed)


def parse_checks(text: str) -> list[Check]:
    """The checks of a `## Checks` section's body; blank lines and `#` comments are skipped."""
    checks = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip().lstrip("- ").strip("`").strip()
        if line:
            checks.append(parse_check(line))
    return checks


def parse_check(line: str) -> Check:
    head, tail = _HEAD.match(line), _TAIL.search(line)
    measure_text = line[head.end() : tail.start()].strip() if tail else ""
    call = _CALL.match(measure_text) if measure_text else None
    if tail is None or call is None:
        raise GpuvizError(f"check {line!r}: write `MEASURE OP NUMBER`, e.g. `array[0] == 0.5` or `races == 0`")
    name, args, index = call.group("name"), call.group("args"), call.group("index")
    if index is not None:
        measure, parts = "element", (name, index)
    else:
        measure, parts = name, split_arguments(args or "")
    if measure not in MEASURES:
        raise GpuvizError(f"check {line!r}: unknown measure {measure!r}; known: array[i], {', '.join(MEASURES)}")
    launch = head.group("launch")
    try:
        value = float(tail.group("value").replace(",", "").replace("_", ""))
    except ValueError:
        raise GpuvizError(f"check {line!r}: {tail.group('value')!r} is not a number") from None
    if launch is not None and len(launch) > 6:
        raise GpuvizError(f"check {line!r}: launch {launch} is not a launch number")
    where = head.group("where")
    return Check(line, measure, parts, tail.group("op"), value, None if launch is None else int(launch),
                 "sim" if where == "model" else where, where == "model")  # fmt: skip


def split_arguments(text: str) -> tuple[str, ...]:
    """A measure's arguments, split at the commas outside quotes: `"C[row, col]", C` is two."""
    parts, current, quote = [], "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return tuple(part.strip() for part in parts if part.strip())


def place(check: Check) -> Place | None:
    """Where a check of `sectors`, `lanes`, `conflicts` or `turns` looks; None for other measures."""
    return place_of(check.args[0]) if check.measure in PLACED and check.args else None


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
    return Outcome(check, observed, passed, _nothing_because(check, trace) if observed is None else "")


def _nothing_because(check: Check, trace: Trace) -> str:
    """Why a check of a place measured nothing: its kernels have no such line, or no such access there."""
    where = place(check)
    if where is None:
        return ""
    if not lines_of(where, trace.meta.get("source", "")):
        return f"nothing to measure: {where.matches_nothing('the kernels')}"
    return f"nothing to measure: no access of {check.args[1]} at {where}"


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


def _threads(trace: Trace) -> float:
    return float(len(trace.threads["block_idx"]))


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


def _warp_sync_divergence(trace: Trace) -> float | None:
    count = trace.meta.get("warp_sync_divergence")  # absent where the run could not judge it
    return None if count is None else float(count)


def _errors(trace: Trace) -> float:
    return float(trace.error_count)


def _lost(trace: Trace, name: str) -> float | None:
    lost = lost_updates(trace)
    return float(lost[name].sum()) if name in lost else None


def _memory_rows(trace: Trace, at: str, array: str, kind: str | None) -> list[dict]:
    """The memory analysis's rows of an array's accesses at a place (every line it names)."""
    where = place_of(at)
    if where is None:
        raise ValueError(f'{at!r} is not a place: give "source text", a label or a line number')
    lines = set(lines_of(where, trace.meta.get("source", "")))
    rows = [r for r in memory_analysis(trace).get("lines") or []
            if r["line"] in lines and r["array"] == array and kind in (None, r["kind"])]  # fmt: skip
    kinds = sorted({r["kind"] for r in rows})
    if len(kinds) > 1:
        raise GpuvizError(f"{where} accesses {array} as {', '.join(kinds)}: name the kind, e.g. ({at}, {array}, write)")
    return rows


def _sectors(trace: Trace, at: str, array: str, kind: str | None = None) -> float | None:
    """Sectors per request over every request at the place (a weighted mean where it names several lines)."""
    rows = [r for r in _memory_rows(trace, at, array, kind) if r.get("sectors") is not None]
    requests = sum(r["requests"] for r in rows)
    return round(sum(r["sectors"] for r in rows) / requests, 3) if requests else None


def _lanes(trace: Trace, at: str, array: str, kind: str | None = None) -> float | None:
    rows = _memory_rows(trace, at, array, kind)
    requests = sum(r["requests"] for r in rows)
    return round(sum(r["lanes_per_request"] * r["requests"] for r in rows) / requests, 3) if requests else None


def _conflicts(trace: Trace, at: str, array: str, kind: str | None = None) -> float | None:
    degrees = [r["bank_conflict_degree"]["max"] for r in _memory_rows(trace, at, array, kind)
               if r["bank_conflict_degree"] is not None]  # fmt: skip
    return float(max(degrees)) if degrees else None


def _turns(trace: Trace, at: str, array: str, kind: str | None = None) -> float | None:
    turns = [r["turns_per_request"]["max"] for r in _memory_rows(trace, at, array, kind) if r.get("turns_per_request")]
    return float(max(turns)) if turns else None


def _copies(trace: Trace) -> float | None:
    count = copies(trace.meta)
    return None if count is None else float(count)


def _copied_bytes(trace: Trace) -> float | None:
    count = copied_bytes(trace.meta)
    return None if count is None else float(count)


def _bits(trace: Trace, name: str) -> float | None:
    width = bits(trace.meta, name)
    return None if width is None else float(width)


def _timeline(trace: Trace, what: str) -> float | None:
    """The stream timeline's copies, kernels, overlap, ... (core/streams.py); µs, a count or a percentage."""
    timeline = timeline_of(trace)
    return None if timeline is None else measure(timeline, what)


def _occupancy(trace: Trace) -> float | None:
    return memory_analysis(trace)["occupancy_theoretical"]


def _blocks_per_sm(trace: Trace) -> float:
    return float(memory_analysis(trace)["occupancy"]["theoretical"]["blocks"])


def _limit(trace: Trace, resource: str) -> float | None:
    limit = memory_analysis(trace)["occupancy"]["theoretical"]["limits"].get(resource)
    return None if limit is None else float(limit)


MEASURES = {"element": _element, "sum": _sum, "max": _max, "min": _min, "cycles": _cycles, "blocks": _blocks, "threads": _threads, "warps": _warps, "races": _races, "reads": _reads, "atomics": _atomics, "resident_blocks": _resident_blocks,
            "sm_blocks": _sm_blocks, "barrier_divergence": _barrier_divergence, "warp_sync_divergence": _warp_sync_divergence, "errors": _errors, "lost": _lost, "sectors": _sectors, "lanes": _lanes,
            "conflicts": _conflicts, "turns": _turns, "occupancy": _occupancy, "blocks_per_sm": _blocks_per_sm, "limit": _limit,
            "writes": _writes, "copies": _copies, "copied_bytes": _copied_bytes, "bits": _bits, "timeline": _timeline}  # fmt: skip


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
