"""Memory errors of a launch listed like compute-sanitizer's memcheck: pure functions of a trace."""

from __future__ import annotations

from collections import Counter

import numpy as np

from gpuviz.core.launch import format_dims
from gpuviz.core.trace.columns import KIND_NAMES
from gpuviz.core.trace.model import Trace

MAX_KEPT = 1000
DIVERGENCES = ("barrier divergence", "warp-sync divergence")  # listed with the memory errors, but not ones

NOTE = (
    "gpuviz stops only the faulting threads (reads give 0, writes are dropped) and lets the launch finish; "
    "on a GPU an out-of-bounds access either aborts the launch with an illegal-address error or silently "
    "touches neighbouring memory"
)
UNWRITTEN = "uninitialised shared read"
UNWRITTEN_NOTE = (
    "a read of shared memory no thread of its block wrote gives 0 here and the thread goes on; on a GPU it "
    "gives whatever that memory held before (another block's leftovers), so the result can change from run to run"
)


def error_groups(trace: Trace) -> list[tuple[tuple, int, dict]]:
    """(kind, array, line), how many kept errors share it, and the first of them, in first-seen order."""
    counts = Counter((e["kind"], e.get("array"), e.get("line")) for e in trace.errors)
    first: dict[tuple, dict] = {}
    for error in trace.errors:
        first.setdefault((error["kind"], error.get("array"), error.get("line")), error)
    return [(key, counts[key], first[key]) for key in first]


def format_errors(trace: Trace, max_groups: int = 10) -> list[str]:
    """Lines for a report: a header with the count, one line per kind/array/line, and the note."""
    divergent = [e for e in trace.errors if e["kind"] in DIVERGENCES]
    total = trace.error_count - len(divergent)  # barrier and warp-sync divergence are listed with them, but are not
    lines = [f"{e['kind']} in {trace.kernel}: {_divergence(trace, e)}" for e in divergent[:max_groups]]
    if not total:
        return lines
    groups = [group for group in error_groups(trace) if group[0][0] not in DIVERGENCES]
    kinds = {kind for (kind, _, _), _, _ in groups}
    notes = [NOTE] * bool(kinds - {UNWRITTEN}) + [UNWRITTEN_NOTE] * (UNWRITTEN in kinds)  # what each kind does
    lines.append(f"memory errors: {total:,} in {trace.kernel} ({'; '.join(notes)})")
    for (kind, array, line), count, error in groups[:max_groups]:
        what = f"{kind} of '{array}'" if array else kind
        where = f" at line {line}" if line else ""
        lines.append(f"  {what}{where}: {count:,} thread(s), first {_thread(trace, error)}{_element(error)}")
    if len(groups) > max_groups:
        lines.append(f"  ... {len(groups) - max_groups} more kinds of error")
    kept = len(trace.errors) - len(divergent)
    if kept < total:
        lines.append(f"  (the first {kept:,} errors are kept in the trace)")
    return lines


def _divergence(trace: Trace, error: dict) -> str:
    if error["kind"] == "warp-sync divergence":
        said = f"{_thread(trace, error)} never reached a syncwarp with the mask of the one at line {error.get('line')}"
    else:
        said = f"{_thread(trace, error)} never reached the barrier at line {error.get('line')}"
    if "waiting" in error:
        said += f", where {_thread(trace, {'thread': error['waiting']})} waits"
    return said


def _thread(trace: Trace, error: dict) -> str:
    gid = int(error["thread"])
    if not 0 <= gid < trace.n_threads:
        return f"thread {gid}"
    block = trace.threads["block_idx"][gid]
    thread = trace.threads["thread_idx"][gid]
    return f"block {format_dims(block)} thread {format_dims(thread)}"


def _element(error: dict) -> str:
    element = error.get("element")
    if element is None:
        return ""
    shown = format_dims(element) if isinstance(element, list) else str(element)
    return f", element {shown}"


def recorded_out_of_bounds(accesses: dict[str, np.ndarray] | None, arrays: list[dict]) -> tuple[list[dict], int]:
    """Out-of-bounds accesses among those a backend recorded without stopping them (the GPU backend
    logs the element a thread touched; an element past the array's end is one): the first ones in
    full, and how many there were."""
    if accesses is None or not len(accesses["thread"]) or not arrays:
        return [], 0
    sizes = np.array([int(np.prod(a["shape"])) if a["shape"] else 1 for a in arrays], np.int64)
    sizes[sizes == 0] = np.iinfo(np.int64).max  # dynamic shared memory (declared size 0): sized by the launch
    bad = np.flatnonzero(accesses["index"] >= sizes[accesses["array"].astype(np.int64)])
    errors = [
        {"kind": f"out-of-bounds {KIND_NAMES[int(accesses['kind'][row])]}", "thread": int(accesses["thread"][row]),
         "line": int(accesses["line"][row]), "array": arrays[int(accesses["array"][row])]["name"],
         "element": int(accesses["index"][row])}
        for row in bad[:MAX_KEPT]
    ]  # fmt: skip
    return errors, len(bad)



def within_bounds(accesses: dict[str, np.ndarray] | None, arrays: list[dict]) -> dict[str, np.ndarray] | None:
    """The access log without the accesses past their array's end (reported as memory errors, as the
    simulator reports them: a faulting access is an error, not an element of the array)."""
    if accesses is None or not len(accesses["thread"]) or not arrays:
        return accesses
    sizes = np.array([int(np.prod(a["shape"])) if a["shape"] else 1 for a in arrays], np.int64)
    sizes[sizes == 0] = np.iinfo(np.int64).max  # dynamic shared memory: sized by the launch
    keep = accesses["index"] < sizes[accesses["array"].astype(np.int64)]
    return accesses if keep.all() else {name: column[keep] for name, column in accesses.items()}
