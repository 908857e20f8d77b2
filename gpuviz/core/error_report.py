"""What went wrong in a launch, in words and places: its memory errors and its barrier and warp-sync divergence,
from the trace's error records (pure; the window's banner, status, editor gutter and grid marks all read it)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from gpuviz.core.trace.model import Trace

DIVERGENCE = "barrier divergence"
WARP_SYNC = "warp-sync divergence"
NOT_MEMORY = (DIVERGENCE, WARP_SYNC)  # listed with the memory errors, but neither is one
VERBS = {"out-of-bounds read": "read", "out-of-bounds write": "wrote", "uninitialised shared read": "read"}


@dataclass(frozen=True)
class ErrorReport:
    memory: int = 0  # memory errors, all counted (out-of-bounds, uninitialised shared reads)
    divergent_blocks: int = 0  # blocks where threads skipped a barrier others wait at
    divergent_warps: int = 0  # warps where lanes of a syncwarp's mask never reached one with that mask
    lines: dict[int, int] = field(default_factory=dict)  # source line -> errors listed on it
    threads: tuple[int, ...] = ()  # the faulting threads listed, and those that skipped a barrier
    waiting: tuple[int, ...] = ()  # threads that wait at a barrier (or a syncwarp) others skipped
    sentences: tuple[str, ...] = ()  # one per kind: how many, and the first in full

    def __bool__(self) -> bool:
        return bool(self.memory or self.divergent_blocks or self.divergent_warps)

    def summary(self) -> str:
        """'24 memory errors', 'barrier divergence in 2 blocks', 'warp-sync divergence in 1 warp', some, or ''."""
        parts = []
        if self.memory:
            parts.append(f"{self.memory:,} memory error{'s' if self.memory != 1 else ''}")
        if self.divergent_blocks:
            parts.append(f"barrier divergence in {_count(self.divergent_blocks, 'block')}")
        if self.divergent_warps:
            parts.append(f"{WARP_SYNC} in {_count(self.divergent_warps, 'warp')}")
        return " and ".join(parts)


def error_report(trace: Trace) -> ErrorReport:
    records = trace.errors
    divergent = [e for e in records if e.get("kind") == DIVERGENCE]
    warp_sync = [e for e in records if e.get("kind") == WARP_SYNC]
    memory = [e for e in records if e.get("kind") not in NOT_MEMORY]
    memory_count = max(len(memory), trace.error_count - len(divergent) - len(warp_sync))
    by_kind = Counter(e.get("kind", "memory error") for e in memory)
    sentences = []
    for kind, listed in by_kind.items():
        count = memory_count if len(by_kind) == 1 else listed  # the ones past the list are of its one kind
        first = next(e for e in memory if e.get("kind") == kind)
        sentences.append(_memory_sentence(trace, kind, count, first))
    if divergent:
        sentences.append(_divergence_sentence(len(divergent), divergent[0]))
    if warp_sync:
        sentences.append(_warp_sync_sentence(len(warp_sync), warp_sync[0]))
    lines = Counter(int(e["line"]) for e in records if e.get("line"))
    waiting = tuple(int(e["waiting"]) for e in divergent + warp_sync if "waiting" in e)
    return ErrorReport(memory_count, len(divergent), len(warp_sync), dict(lines),
                       tuple(int(e["thread"]) for e in records), waiting, tuple(sentences))  # fmt: skip


def _memory_sentence(trace: Trace, kind: str, count: int, first: dict) -> str:
    name, line = first.get("array") or "an array", first.get("line")
    where = f" on line {line}" if line else ""
    element = first.get("element")
    index = ", ".join(map(_number, element)) if isinstance(element, list) else _number(element)
    verb = VERBS.get(kind, "touched")
    said = f"{_count(count, kind)}: first, thread {first['thread']:,} {verb} {name}[{index}]{where}"
    shape = next((a.get("shape") for a in trace.meta.get("arrays", []) if a.get("name") == name), None)
    if shape is not None:
        said += f"; {name} has {_count(math.prod(shape), 'element')}"
        if len(shape) > 1:
            said += f" ({' x '.join(map(str, shape))})"
    return said


def _divergence_sentence(blocks: int, first: dict) -> str:
    line = f" on line {first['line']}" if first.get("line") else ""
    said = f"{DIVERGENCE} in {_count(blocks, 'block')}: thread {first['thread']:,} never reached the barrier{line}"
    if "waiting" in first:
        said += f", where thread {first['waiting']:,} waits"
    return said


def _warp_sync_sentence(warps: int, first: dict) -> str:
    line = f" on line {first['line']}" if first.get("line") else ""
    said = f"{WARP_SYNC} in {_count(warps, 'warp')}: thread {first['thread']:,} never reached a syncwarp with the mask"
    if "waiting" in first:
        said += f" that thread {first['waiting']:,} waits at{line}"
    return said


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'s' if n != 1 else ''}"


def run_summary(traces: list[Trace]) -> str:
    """What went wrong in all of a run's launches: '24 memory errors', 'barrier divergence in 2 blocks', ''."""
    reports = [error_report(trace) for trace in traces]
    return ErrorReport(sum(r.memory for r in reports), sum(r.divergent_blocks for r in reports),
                       sum(r.divergent_warps for r in reports)).summary()  # fmt: skip
