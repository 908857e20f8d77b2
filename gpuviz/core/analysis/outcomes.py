"""What a race did to the result: lost updates per element, and outcomes over repeated runs."""

from __future__ import annotations

import numpy as np

from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import READ
from gpuviz.core.trace.model import Trace


def lost_updates(trace: Trace) -> dict[str, np.ndarray]:
    """For every global array, per element: writes that did not make it into the final value.

    Each write extends the chain of the value it was computed from: the version its thread last
    read of that element (an atomic reads the current version). The final value carries the
    chain of the last write; every write not on that chain was lost. A serial schedule loses
    none; `a[0] += 1` by n threads that all read before any writes loses n - 1.
    """
    if trace.accesses is None:
        return {}
    acc = trace.accesses
    result = {}
    for aid, entry in enumerate(trace.meta.get("arrays", [])):
        if entry["space"] != "global":
            continue
        size = int(np.prod(entry["shape"])) if entry["shape"] else 1
        mask = acc["array"] == aid
        lost = np.zeros(size, np.int64)
        if mask.any() and trace.meta.get("backend") == "gpu":
            before = trace.before(entry["name"]).reshape(-1) if entry["name"] in trace.args else None
            after = trace.after(entry["name"]).reshape(-1) if entry["name"] in trace.args else None
            _lost_from_values(lost, acc["index"][mask], acc["kind"][mask], acc["thread"][mask],
                              acc["value"][mask], before, after)  # fmt: skip
        elif mask.any():
            elements, counts = lost_per_element(acc["index"][mask], acc["kind"][mask], acc["thread"][mask])
            lost[elements] = counts
        result[entry["name"]] = lost.reshape(entry["shape"]) if entry["shape"] else lost
    return result


def lost_per_element(index: np.ndarray, kind: np.ndarray, thread: np.ndarray):
    order = np.argsort(index, kind="stable")  # by element, then time
    element, kind, thread = index[order].astype(np.int64), kind[order], thread[order].astype(np.int64)
    n = len(element)
    starts = _run_starts(element)
    element_id = np.cumsum(starts) - 1
    is_write = kind != READ
    writes_before = np.cumsum(is_write) - is_write
    version = writes_before - writes_before[np.flatnonzero(starts)][element_id]  # writes seen so far
    read_version = _last_read_version(element_id, thread, kind, version)
    parent_version = np.where(kind == READ, -1, np.where(kind == 1, read_version, version))
    # Global numbering of writes in (element, time) order; a write's parent made `parent_version`.
    write_rows = np.flatnonzero(is_write)
    write_number = np.full(n, -1, np.int64)
    write_number[write_rows] = np.arange(len(write_rows))
    firsts = np.full(element_id[-1] + 1, -1, np.int64)
    seen = write_rows[::-1]
    firsts[element_id[seen]] = write_number[seen]  # the last assignment wins: the first write
    parent = np.where(parent_version[write_rows] >= 1,
                      firsts[element_id[write_rows]] + parent_version[write_rows] - 1, -1)  # fmt: skip
    depth = _chain_depths(parent)
    last_write = np.full(element_id[-1] + 1, -1, np.int64)
    last_write[element_id[write_rows]] = write_number[write_rows]
    writes = np.bincount(element_id[write_rows], minlength=element_id[-1] + 1)
    has_writes = writes > 0
    chain = np.zeros(len(writes), np.int64)
    chain[has_writes] = depth[last_write[has_writes]]
    return element[np.flatnonzero(starts)], writes - chain


MAX_VALUE_CHAIN_ELEMENTS = 10_000


def _lost_from_values(lost, index, kind, thread, value, before, after) -> None:
    """GPU traces: the log's order is the time order only within a thread, so the chain of a value
    is followed through the values themselves: a write of w after its thread read r makes w one
    step longer than r. Elements that one write or none touched lose nothing."""
    if before is None or after is None:
        return
    writes = kind != READ
    per_element = np.bincount(index[writes], minlength=len(lost))
    crowded = np.flatnonzero(per_element > 1)[:MAX_VALUE_CHAIN_ELEMENTS]
    chosen = np.isin(index, crowded)
    order = np.lexsort((np.arange(int(chosen.sum())), thread[chosen], index[chosen]))
    rows = np.flatnonzero(chosen)[order]
    for element in crowded:
        mine = rows[index[rows] == element]
        edges, atomics, last_read = [], 0, {}
        for k, t, v in zip(kind[mine].tolist(), thread[mine].tolist(), value[mine].tolist()):
            if k == READ:
                last_read[t] = v
            elif k == 1:
                edges.append((last_read.get(t), v))
            else:
                atomics += 1
        edges.sort(key=lambda edge: (edge[0] is not None, edge[0] or 0.0))  # increments settle in one pass
        depth = {float(np.float32(before[element])): 0}
        for _ in range(len(edges) + 1):  # relax until no chain grows (values form a DAG)
            changed = False
            for source, target in edges:
                d = 1 if source is None else depth.get(source, 0) + 1
                if d > depth.get(target, -1):
                    depth[target], changed = d, True
            if not changed:
                break
        chain = depth.get(float(np.float32(after[element])), 0) + atomics
        lost[element] = max(0, int(per_element[element]) - chain)


def _run_starts(values: np.ndarray) -> np.ndarray:
    starts = np.ones(len(values), bool)
    starts[1:] = values[1:] != values[:-1]
    return starts


def _last_read_version(element_id, thread, kind, version) -> np.ndarray:
    """For every event: the version its thread saw at its latest read of the element, or -1."""
    n = len(element_id)
    order = np.lexsort((np.arange(n), thread, element_id))
    group_start = _run_starts(element_id[order]) | _run_starts(thread[order])
    positions = np.arange(n)
    is_read = kind[order] == READ
    marker = np.where(is_read | group_start, positions, 0)
    latest = np.maximum.accumulate(marker)
    found = is_read[latest]
    # A write's own position is not a read, so `latest` is the latest read before it (or the run start).
    seen = np.where(found, version[order][latest], -1)
    result = np.empty(n, np.int64)
    result[order] = seen
    return result


def _chain_depths(parent: np.ndarray) -> np.ndarray:
    """Length of the chain ending at each node of a forest given by parent pointers (pointer jumping)."""
    rank = (parent >= 0).astype(np.int64)
    jump = parent.copy()
    while (jump >= 0).any():
        live = jump >= 0
        target = jump[live]
        rank_next = rank.copy()
        rank_next[live] += rank[target]
        jump_next = jump.copy()
        jump_next[live] = jump[target]
        rank, jump = rank_next, jump_next
    return rank + 1


def serial_answers(outcomes: dict[str, np.ndarray], name: str, element: int) -> tuple[float, ...]:
    """What one thread at a time gave for an element: (value,) when the order of the threads does not
    matter; (in thread order, in reverse order) when it does; () when no serial run was made.

    One thread at a time loses no update, so for `a[0] += 1` by many threads it gives *the* answer
    the race misses, in any order. But threads that read what other threads write without a barrier
    between (a reduction missing its `syncthreads`, a scan in one buffer) depend on the order itself:
    thread 0 running its whole loop first reads partial sums not yet made. Then the two orders differ,
    and neither is an answer to compare the runs with.
    """
    found = [outcomes[f"{name}.{order}"].reshape(-1)[element].item() for order in ("sequential", "reversed")
             if f"{name}.{order}" in outcomes]  # fmt: skip
    if len(found) == 2 and _same(np.array(found[:1]), np.array(found[1:]))[0]:
        return tuple(found[:1])
    return tuple(found)


def serial_text(answers: tuple[float, ...]) -> str:
    """The serial answers in words ('' for none)."""
    if len(answers) == 1:
        return f"one thread at a time gives {number(answers[0])}"
    if len(answers) == 2:
        forward, backward = (number(answer) for answer in answers)
        return (f"one thread at a time gives {forward} in thread order but {backward} in reverse order: "
                "the threads depend on each other's order, so there is no serial answer to compare with")  # fmt: skip
    return ""


def outcome_summary(runs: np.ndarray, outcomes: dict[str, np.ndarray], name: str, element: int) -> dict:
    """The values one element took over repeated runs, against the serial answer(s)."""
    flat = runs.reshape(len(runs), -1)[:, element]
    values, counts = np.unique(flat, return_counts=True)
    summary = {"values": values.tolist(), "counts": counts.tolist()}
    answers = serial_answers(outcomes, name, element)
    if len(answers) == 1:
        summary["sequential"] = answers[0]
    elif answers:
        summary["sequential"], summary["reversed"] = answers
    return summary


def plain_vs_recorded(trace: Trace, shown: int = 4) -> list[str]:
    """One line per array the GPU backend also ran without recording ("<name>.plain"): the recorded
    run's first values next to the unrecorded kernel's, and how many elements differ. Recording adds
    memory traffic and atomics, so a race may interleave differently than in the student's own kernel."""
    lines = []
    for name, recorded, flat in _recorded_and_plain(trace):
        differ = int(np.count_nonzero(~_same(recorded, flat)))
        first = ", ".join(f"{number(v)}" for v in recorded[:shown].tolist())
        unrecorded = ", ".join(f"{number(v)}" for v in flat[:shown].tolist())
        more = ", ..." if flat.size > shown else ""
        verdict = f"{differ:,} of {flat.size:,} elements differ" if differ else "the same result"
        lines.append(f"{name}: recorded [{first}{more}]; without recording [{unrecorded}{more}] ({verdict})")
    return lines


RECORDING_MOVED_THE_RACE = (
    "Recording every access changes how a race interleaves on a GPU (the records' stores sit among the "
    "kernel's own accesses), so the recorded result above is not the kernel's own; level threads records "
    "no access and keeps a race's outcomes as the kernel has them (docs/gpu.md)."
)


def recording_note(trace: Trace) -> str | None:
    """What to tell a reader whose recorded result differs from the kernel run without recording: why,
    and which level keeps the race (measured on an H100 and an H200: docs/gpu.md, "What moves a
    one-address race"). None where nothing differs or no access was recorded."""
    if trace.meta.get("level") != "accesses":
        return None
    differ = any(not _same(recorded, plain).all() for _, recorded, plain in _recorded_and_plain(trace))
    return RECORDING_MOVED_THE_RACE if differ else None


def _recorded_and_plain(trace: Trace):
    """(name, recorded result, result without recording), both flat, of each array the GPU backend also
    ran without recording ("<name>.plain")."""
    for name in trace.args:
        plain = trace.outcomes.get(f"{name}.plain")
        if plain is not None:
            yield name, trace.after(name).reshape(-1), plain.reshape(-1)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    both_nan = (a != a) & (b != b)  # noqa: PLR0124 - NaN is the only value unequal to itself
    return (a == b) | both_nan
