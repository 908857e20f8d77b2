"""A thread's record as text for hover and the record panel: indices, warp, SM, times, accesses."""

from __future__ import annotations

import numpy as np

from gpuviz.core.trace.model import Trace

MAX_LISTED = 8


def thread_record(trace: Trace, gid: int) -> str:
    """A thread's record as HTML (also the hover text)."""
    t = trace.threads
    unit = trace.meta.get("time_unit", "tick")
    rows = [
        ("block", _dims(t["block_idx"][gid])),
        ("thread", _dims(t["thread_idx"][gid])),
        ("global id", f"{gid:,}"),
        ("warp / lane", f"{int(t['warp'][gid])} / {int(t['lane'][gid])}"),
        ("SM", str(int(t["sm"][gid]))),
        ("start / end", f"{int(t['t_start'][gid]):,} / {int(t['t_end'][gid]):,} {unit}"),
    ]
    rows += _accesses(trace, gid) + _errors(trace, gid)
    body = "".join(f"<tr><td style='color:#9aa'>{k}</td><td><b>{v}</b></td></tr>" for k, v in rows)
    return f"<table cellspacing='4'>{body}</table>"


def _accesses(trace: Trace, gid: int) -> list[tuple[str, str]]:
    if trace.accesses is None:
        return [("accesses", "not recorded (level threads)")]
    recorded = trace.meta.get("recorded_blocks")
    block = gid // int(np.prod(trace.block))
    if recorded is not None and block not in recorded:
        return [("accesses", f"not recorded for this block (recorded: {named_blocks(recorded)})")]
    acc = trace.accesses
    mine = np.flatnonzero(acc["thread"] == gid)
    names = trace.array_names()
    rows = []
    for label, kinds in (("read", (0,)), ("wrote", (1, 2))):
        chosen = mine[np.isin(acc["kind"][mine], kinds)]
        items = [f"{names[acc['array'][i]]}[{acc['index'][i]}] (line {acc['line'][i]})" for i in chosen[:MAX_LISTED]]
        more = f" and {len(chosen) - MAX_LISTED} more" if len(chosen) > MAX_LISTED else ""
        rows.append((label, ", ".join(items) + more if items else "nothing"))
    return rows


def _errors(trace: Trace, gid: int) -> list[tuple[str, str]]:
    """The thread's memory errors (among those the trace lists in full)."""
    mine = [e for e in trace.errors if e.get("thread") == gid]
    items = [_error_text(e) for e in mine[:MAX_LISTED]]
    return [("memory error", ", ".join(items))] if items else []


def _error_text(error: dict) -> str:
    where = f"of {error['array']}[{error['element']}] " if "array" in error and "element" in error else ""
    line = f"(line {error['line']})" if error.get("line") else ""
    return f"{error.get('kind', 'error')} {where}{line}".strip()


def named_blocks(blocks: list[int]) -> str:
    """'block 3', 'blocks 0 and 65,536', 'blocks 0, 5 and 9': the blocks a trace kept accesses of."""
    names = [f"{int(b):,}" for b in blocks]
    if len(names) <= 1:
        return f"block {names[0]}" if names else "no block"
    return f"blocks {', '.join(names[:-1])} and {names[-1]}"


def _dims(values) -> str:
    return "(" + ", ".join(str(int(v)) for v in values) + ")"


def device_summary(facts: dict, ran: bool = False) -> str:
    """One line about a device from its facts (a backend's or a trace's), never from constants."""
    parts = [f"{facts.get('sm_count', '?'):,} SMs" if isinstance(facts.get("sm_count"), int) else "SMs unknown"]
    if facts.get("max_threads_per_sm"):
        parts.append(f"{facts['max_threads_per_sm']:,} threads and {facts.get('max_blocks_per_sm', '?')} blocks per SM")
    parts.append(f"warp {facts.get('warp_size', 32)}")
    limit = facts.get("max_threads_per_block")
    tail = f"; at most {limit:,} threads per block" if limit else ""
    verb = "ran on" if ran else "device"
    return f"{verb}: {facts.get('name', 'unknown device')}: {', '.join(parts)}{tail}"
