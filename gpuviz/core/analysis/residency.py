"""Whether a trace's block times can show residency: the blocks it shows on one SM at once against
the blocks the SM can hold (occupancy.theoretical), and by how much the recorded times overlap."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.occupancy import peak_resident_blocks, sm_facts, theoretical
from gpuviz.core.analysis.timeline import block_spans
from gpuviz.core.trace.model import Trace


@dataclass(frozen=True)
class Residency:
    peak: int  # most blocks the recorded times show on one SM at once
    limit: int | None  # most blocks of this launch an SM can hold (None: the trace cannot tell)
    over: int = 0  # blocks that start while `limit` others are still shown running on their SM
    excess: int = 0  # the most time such a block would have to start later to fit, in the trace's unit
    peak_warps: int = 0  # most warps the recorded times show on one SM at once (counted where over)
    limiter: str = ""  # the resource that sets `limit`

    @property
    def possible(self) -> bool:
        return self.limit is None or self.peak <= self.limit


def excess_overlap(sm: np.ndarray, start: np.ndarray, end: np.ndarray, limit: int) -> tuple[int, int]:
    """Blocks that start while `limit` others run on their SM, and the longest wait that would have
    let each fit (until enough of the running blocks had ended)."""
    over, excess = 0, 0
    for s in np.unique(sm):
        mine = np.flatnonzero(sm == s)
        running: list[int] = []  # ends of the blocks running on this SM, a heap
        for block in mine[np.argsort(start[mine], kind="stable")]:
            while running and running[0] <= start[block]:
                heapq.heappop(running)
            if len(running) >= limit:
                over += 1
                must_end = heapq.nsmallest(len(running) - limit + 1, running)[-1]
                excess = max(excess, int(must_end - start[block]))
            heapq.heappush(running, int(end[block]))
    return over, excess


def peak_resident_warps(trace: Trace) -> int:
    """The most warps the trace shows on one SM at the same time (each warp spans its threads)."""
    threads, warp_size = trace.threads, int(trace.meta.get("warp_size", 32))
    if not trace.n_threads:
        return 0
    per_block = int(np.prod(trace.block))
    warp = np.arange(trace.n_threads) // per_block * -(-per_block // warp_size) + threads["warp"]
    first = np.flatnonzero(np.r_[True, warp[1:] != warp[:-1]])
    sm = threads["sm"][first]
    start = np.minimum.reduceat(threads["t_start"], first)
    end = np.maximum.reduceat(threads["t_end"], first)
    delta = np.r_[np.ones(len(sm), np.int64), -np.ones(len(sm), np.int64)]
    order = np.lexsort((delta, np.r_[start, end], np.r_[sm, sm]))  # per SM, by time, ends before starts
    return int(np.cumsum(delta[order]).max())


def residency(trace: Trace) -> Residency:
    found = theoretical(trace)
    limit = found["blocks"] or None
    peak = peak_resident_blocks(trace)
    if limit is None or peak <= limit:
        return Residency(peak, limit)
    over, excess = excess_overlap(*block_spans(trace), limit)
    return Residency(peak, limit, over, excess, peak_resident_warps(trace), found["limiter"])


def residency_note(trace: Trace) -> str | None:
    """A plain sentence when the recorded times show more blocks on one SM than it can hold; None
    when they are consistent with the SM's limits."""
    found = residency(trace)
    if found.possible:
        return None
    unit = trace.meta.get("time_unit", "tick")
    step = trace.device_facts.get("globaltimer_step_ns")
    per_block = int(np.prod(trace.block))
    text = (f"The recorded times show up to {found.peak} blocks of {per_block:,} threads on one SM at once, but an "
            f"SM holds at most {found.limit}: {found.over:,} block(s) start up to {found.excess:,} {unit} before "
            f"enough others have ended.")  # fmt: skip
    if trace.meta.get("time_source") != "globaltimer":
        return text
    reason = (" The times are the warps' own %globaltimer readings (a warp reads its start at its first "
              "instruction and its end at its last), not when the SM reserved and freed the block, so this "
              "timeline cannot show which blocks were resident together at that scale.")  # fmt: skip
    max_warps = int(sm_facts(trace).get("max_threads_per_sm", 0)) // int(trace.meta.get("warp_size", 32))
    if step and found.excess <= step:
        reason = f" That is within the GPU timer's step ({step:,} ns): the times cannot tell these apart."
    elif "threads" in found.limiter.split(" and ") and 0 < found.peak_warps <= max_warps:
        reason = (f" Counted by warps they never show more than {found.peak_warps} of the SM's {max_warps} warps at "
                  "once: a block starts once enough warps of the earlier ones have finished, so a bar (first warp "
                  "start to last warp end) overlaps the blocks before it.")  # fmt: skip
    return text + reason
