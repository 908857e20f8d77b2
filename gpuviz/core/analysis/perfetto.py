"""A launch's timeline as Chrome trace-event JSON, which Perfetto (and chrome://tracing, speedscope) opens:
one process per SM, one thread per warp slot (a resident block slot's warp), a complete slice per warp,
resident warps as a counter track per SM, and each race as a flow from one access to the other.

Pure: a trace in, a JSON-able dict out (`gpuviz export TRACE --format perfetto`; docs/perfetto.md)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.report import race_report
from gpuviz.core.analysis.timeline import block_slots, block_spans, block_waves
from gpuviz.core.trace.model import Trace
from gpuviz.core.version import __version__

ACCESS = {"read": 0, "write": 1, "atomic": 2}


def perfetto_trace(trace: Trace) -> dict:
    """{"traceEvents": [...], "displayTimeUnit", "otherData"}: metadata, warp slices, counters and flows."""
    scale = _microseconds_per_unit(trace)
    warps = warp_spans(trace)
    events = _metadata(trace, warps) + _slices(trace, warps, scale) + _counters(warps, scale)
    events += _race_flows(trace, warps, scale)
    other = {"gpuviz": __version__, "kernel": trace.kernel, "backend": trace.meta["backend"],
             "device": trace.meta["device"], "time_unit": trace.meta["time_unit"],
             "microseconds_per_unit": scale}  # fmt: skip
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}


def _microseconds_per_unit(trace: Trace) -> float:
    """The trace-event format counts microseconds: GPU times are ns; a simulator tick is shown as 1 us (the
    simulator's cost model has no clock rate; otherData says so)."""
    return 1e-3 if trace.meta["time_unit"] == "ns" else 1.0


def warp_spans(trace: Trace) -> dict[str, np.ndarray]:
    """Per warp of the launch (block by block): block, warp in block, SM, start, end, slot and wave of its block,
    thread count. A warp spans its threads' earliest start and latest end."""
    per_block = int(np.prod(trace.block))
    warp_size = int(trace.meta.get("warp_size", 32))
    per_block_warps = -(-per_block // warp_size)
    threads = trace.threads
    warp = np.arange(trace.n_threads) // per_block * per_block_warps + threads["warp"]
    first = np.flatnonzero(np.r_[True, warp[1:] != warp[:-1]]) if trace.n_threads else np.zeros(0, np.int64)
    sm, start, end = block_spans(trace)
    block = first // per_block
    return {"block": block, "warp": threads["warp"][first].astype(np.int64), "sm": sm[block].astype(np.int64),
            "start": np.minimum.reduceat(threads["t_start"], first) if len(first) else first,
            "end": np.maximum.reduceat(threads["t_end"], first) if len(first) else first,
            "slot": block_slots(sm, start, end)[block], "wave": block_waves(trace)[block],
            "threads": np.diff(np.r_[first, trace.n_threads]), "per_block_warps": np.int64(per_block_warps),
            "first_thread": first}  # fmt: skip


def _tid(warps: dict, index) -> np.ndarray:
    """A warp's track within its SM: its block's slot, then its number in the block (1-based: tid 0 is
    left to the SM's own counter events)."""
    return warps["slot"][index] * warps["per_block_warps"] + warps["warp"][index] + 1


def _metadata(trace: Trace, warps: dict) -> list[dict]:
    events = []
    for sm in np.unique(warps["sm"]).tolist():
        events.append(_meta("process_name", sm + 1, 0, {"name": f"SM {sm}"}))
        events.append(_meta("process_sort_index", sm + 1, 0, {"sort_index": sm}))
    tracks = np.unique(np.stack([warps["sm"], _tid(warps, slice(None))]), axis=1) if len(warps["sm"]) else []
    for sm, tid in np.asarray(tracks).T.tolist():
        slot, warp = divmod(tid - 1, int(warps["per_block_warps"]))
        events.append(_meta("thread_name", sm + 1, tid, {"name": f"slot {slot} warp {warp}"}))
        events.append(_meta("thread_sort_index", sm + 1, tid, {"sort_index": tid}))
    return events


def _meta(name: str, pid: int, tid: int, args: dict) -> dict:
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "ts": 0, "args": args}


def _slices(trace: Trace, warps: dict, scale: float) -> list[dict]:
    gx, gy, _ = trace.grid
    tids = _tid(warps, slice(None)).tolist()
    events = []
    for i, (block, warp, sm, start, end, wave, count) in enumerate(zip(
            warps["block"].tolist(), warps["warp"].tolist(), warps["sm"].tolist(), warps["start"].tolist(),
            warps["end"].tolist(), warps["wave"].tolist(), warps["threads"].tolist())):  # fmt: skip
        coords = (block % gx, block // gx % gy, block // (gx * gy))
        events.append({"ph": "X", "name": f"block ({coords[0]},{coords[1]},{coords[2]}) warp {warp}", "cat": "warp",
                       "pid": sm + 1, "tid": tids[i], "ts": start * scale, "dur": max(0, end - start) * scale,
                       "args": {"block": list(coords), "warp": warp, "threads": count, "wave": wave}})  # fmt: skip
    return events


def _counters(warps: dict, scale: float) -> list[dict]:
    """Resident warps on each SM, a value at every time one starts or ends (ends first at equal times)."""
    events = []
    for sm in np.unique(warps["sm"]).tolist():
        mine = warps["sm"] == sm
        times = np.r_[warps["start"][mine], warps["end"][mine]]
        delta = np.r_[np.ones(mine.sum(), np.int64), -np.ones(mine.sum(), np.int64)]
        order = np.lexsort((delta, times))
        times, level = times[order], np.cumsum(delta[order])
        last = np.r_[times[1:] != times[:-1], True]  # the level after everything at one time
        for t, value in zip(times[last].tolist(), level[last].tolist()):
            events.append({"ph": "C", "name": "resident warps", "pid": sm + 1, "tid": 0, "ts": t * scale,
                           "args": {"warps": value}})  # fmt: skip
    return events


def _race_flows(trace: Trace, warps: dict, scale: float) -> list[dict]:
    """A flow from each described race's first access to its second, each bound to its warp's slice."""
    report = race_report(trace)
    if report is None or trace.accesses is None or "time" not in trace.accesses:
        return []
    events = []
    for number, race in enumerate(report.races):
        ends = [_access(trace, warps, race, party) for party in (race.first, race.second)]
        if None in ends:
            continue
        (pid0, tid0, ts0), (pid1, tid1, ts1) = ends
        name = f"race {race.array}[{race.index}] {race.kind}"
        events.append({"ph": "s", "id": number, "name": name, "cat": "race", "pid": pid0, "tid": tid0,
                       "ts": ts0 * scale})  # fmt: skip
        events.append({"ph": "f", "bp": "e", "id": number, "name": name, "cat": "race", "pid": pid1, "tid": tid1,
                       "ts": max(ts0, ts1) * scale})  # fmt: skip
    return events


def _access(trace: Trace, warps: dict, race, party) -> tuple[int, int, int] | None:
    """(pid, tid, time) of a party's first access to the racing element, its time kept inside its warp's slice."""
    acc = trace.accesses
    gid = trace.global_id(party.block, party.thread)
    names = trace.array_names()
    mine = (acc["thread"] == gid) & (acc["index"] == race.index) & (acc["line"] == party.line)
    rows = np.flatnonzero(mine & (acc["array"] == names.index(race.array)) & (acc["kind"] == ACCESS[party.access]))
    if not len(rows):
        return None
    warp = np.searchsorted(warps["first_thread"], gid, side="right") - 1  # the warp holding the thread
    time = min(max(int(acc["time"][rows[0]]), int(warps["start"][warp])), int(warps["end"][warp]))
    return int(warps["sm"][warp]) + 1, int(_tid(warps, warp)), time
