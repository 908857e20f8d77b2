"""Whether recorded block times can show residency: pure functions of a trace."""

import numpy as np

from gpuviz.core.analysis.residency import excess_overlap, peak_resident_warps, residency, residency_note
from gpuviz.core.trace.model import Trace

FACTS = {"name": "test GPU", "sm_count": 2, "warp_size": 32, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32,
         "compute_capability": [9, 0]}  # fmt: skip


def _trace(spans, per_block=1024, warp_spans=None, source="globaltimer", facts=FACTS):
    """Blocks given as (sm, start, end); warp_spans optionally per block: [(start, end) per warp]."""
    n = len(spans)
    warps = per_block // 32
    sm = np.repeat([s for s, _, _ in spans], per_block).astype(np.int32)
    if warp_spans is None:
        warp_spans = [[(a, b)] * warps for _, a, b in spans]
    start = np.repeat([a for block in warp_spans for a, _ in block], 32).astype(np.int64)
    end = np.repeat([b for block in warp_spans for _, b in block], 32).astype(np.int64)
    t = np.arange(n * per_block)
    zeros = np.zeros((n * per_block, 3), np.int32)
    threads = {"block_idx": zeros, "thread_idx": zeros,
               "warp": ((t % per_block) // 32).astype(np.int32), "lane": (t % 32).astype(np.int32), "sm": sm,
               "t_start": start, "t_end": end}  # fmt: skip
    meta = {"grid": [n, 1, 1], "block": [per_block, 1, 1], "device_facts": dict(facts), "warp_size": 32,
            "time_unit": "ns", "time_source": source, "sm_count": 2, "arrays": []}  # fmt: skip
    return Trace(meta=meta, threads=threads)


def test_blocks_within_the_sms_limit_need_no_note():
    trace = _trace([(0, 0, 100), (0, 0, 100), (0, 100, 200), (1, 0, 50)])
    found = residency(trace)
    assert found.possible and found.peak == 2 and found.limit == 2
    assert residency_note(trace) is None


def test_a_third_block_of_1024_threads_on_one_sm_is_named_with_its_overlap():
    trace = _trace([(0, 0, 100), (0, 10, 130), (0, 90, 200), (1, 0, 50)])
    found = residency(trace)
    assert not found.possible and (found.peak, found.limit, found.over, found.excess) == (3, 2, 1, 10)
    note = residency_note(trace)
    assert "up to 3 blocks of 1,024 threads on one SM" in note and "at most 2" in note and "10 ns" in note
    assert "cannot show" in note


def test_an_overlap_within_the_timer_step_is_put_down_to_the_timer():
    trace = _trace([(0, 0, 100), (0, 10, 130), (0, 90, 200)], facts=FACTS | {"globaltimer_step_ns": 32})
    assert "within the GPU timer's step (32 ns)" in residency_note(trace)


def test_blocks_overlapping_only_where_earlier_warps_had_finished_are_explained_by_warps():
    early = [(0, 50)] * 16 + [(0, 100)] * 16  # half the warps of each first block finish at 50
    trace = _trace([(0, 0, 100), (0, 0, 100), (0, 60, 200)], warp_spans=[early, early, [(60, 200)] * 32])
    assert peak_resident_warps(trace) == 64
    note = residency_note(trace)
    assert "never show more than 64 of the SM's 64 warps" in note


def test_the_warps_explain_it_when_registers_limit_the_sm_to_as_many_blocks_as_threads_do():
    early = [(0, 50)] * 16 + [(0, 100)] * 16
    trace = _trace([(0, 0, 100), (0, 0, 100), (0, 60, 200)], warp_spans=[early, early, [(60, 200)] * 32])
    trace.meta["registers_per_thread"] = 30  # 2 blocks of 1,024 threads by registers too (the recorder's kernel)
    assert residency(trace).limiter == "threads and registers"
    assert "never show more than 64 of the SM's 64 warps" in residency_note(trace)


def test_excess_overlap_counts_the_wait_until_enough_blocks_end():
    sm = np.zeros(4, np.int64)
    over, excess = excess_overlap(sm, np.array([0, 0, 0, 5]), np.array([10, 20, 30, 40]), limit=2)
    assert (over, excess) == (2, 15)  # the third waits 10 (until 10), the fourth 15 (two of three must end: 20)
