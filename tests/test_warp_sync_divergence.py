"""Warp-sync divergence: a lane named in a syncwarp's mask that has not exited and reaches no syncwarp with the
same mask (at any call site) is reported by the vector engine, which runs a warp's lanes in lockstep; what
CUDA allows is not. The reference engine does not judge it (a lane there runs from one memory access to the
next in no time), and says so. The rule itself is tested on hand-built meetings."""

import numpy as np
import pytest

from gpuviz.catalog.checks import evaluate, parse_check
from gpuviz.core.analysis.warp_sync import Meeting, first_per_warp, lane_ranges, unmatched
from gpuviz.core.error_report import error_report

HEADER = "import numpy as np\nfrom numba import cuda, float32\n"

# A tree sum over one block; each variant syncs the warp at another place.
REDUCTION = """
@cuda.jit
def k(values, out):
    partial = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    if t >= values.size:
        return
    partial[t] = values[t]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step and t + step < values.size:
            partial[t] += partial[t + step]
{inside}
{after}
        step //= 2
    if t == 0:
        out[0] = partial[0]
"""
CASES = {
    # name: (kernel, threads in the block, warps reported)
    "syncwarp_inside_the_if": (REDUCTION.format(inside="            cuda.syncwarp()", after=""), 64, 1),
    "syncwarp_after_the_if": (REDUCTION.format(inside="", after="        cuda.syncwarp()"), 64, 0),
    "a_partial_last_warp": (REDUCTION.format(inside="", after="        cuda.syncwarp()"), 48, 0),
    "lanes_that_returned_early": ("""
@cuda.jit
def k(values, out):
    t = cuda.threadIdx.x
    if t >= 40:
        return
    out[t] = values[t]
    cuda.syncwarp()
    out[t] += values[(t + 1) % 40]
""", 64, 0),
    "a_syncwarp_in_each_branch": ("""
@cuda.jit
def k(values, out):
    t = cuda.threadIdx.x
    if t % 2 == 0:
        out[t] = values[t]
        cuda.syncwarp()
    else:
        out[t] = -values[t]
        cuda.syncwarp()
""", 64, 0),
    "one_branch_syncs_twice_the_other_once": ("""
@cuda.jit
def k(values, out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncwarp()
        out[t] = values[t]
        cuda.syncwarp()
    else:
        cuda.syncwarp()
        for j in range(4):
            out[t] -= values[t]
""", 32, 1),
    "a_mask_that_names_only_the_lanes_there": ("""
@cuda.jit
def k(values, out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = values[t]
        cuda.syncwarp(0xFFFF)
""", 32, 0),
    "lanes_that_go_on_without_one": ("""
@cuda.jit
def k(values, out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncwarp()
    out[t] = values[t]
""", 32, 1),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_warp_sync_divergence_is_reported_where_cuda_leaves_it_undefined(name, sim_run):
    source, threads, reported = CASES[name]
    values = np.ones(threads, np.float32)
    trace = sim_run(HEADER + source, 1, threads, values, np.zeros(threads, np.float32), engine="vector")
    assert trace.meta["engine"] == "vector"
    assert trace.meta["warp_sync_divergence"] == reported, trace.meta["warnings"]
    said = [w for w in trace.meta["warnings"] if "warp-sync divergence" in w]
    assert len(said) == reported
    assert error_report(trace).divergent_warps == reported and error_report(trace).memory == 0


def test_the_warning_names_the_lanes_the_mask_and_the_line(sim_run):
    source, threads, _ = CASES["syncwarp_inside_the_if"]
    trace = sim_run(HEADER + source, 1, threads, np.ones(threads, np.float32), np.zeros(1, np.float32))
    (warning,) = [w for w in trace.meta["warnings"] if "warp-sync divergence" in w]
    line = next(n for n, text in enumerate((HEADER + source).splitlines(), 1) if "cuda.syncwarp()" in text)
    assert "block (0,0,0) warp 0: lanes 16-31 of mask 0xffffffff" in warning and f"line {line}" in warning
    (error,) = [e for e in trace.errors if e["kind"] == "warp-sync divergence"]
    assert error["thread"] == 16 and error["waiting"] == 0 and error["line"] == line
    assert "warp-sync divergence in 1 warp" in error_report(trace).summary()


def test_the_reference_engine_does_not_judge_it_and_a_check_of_it_has_nothing_to_measure(sim_run):
    source, threads, _ = CASES["syncwarp_inside_the_if"]
    trace = sim_run(HEADER + source, 1, threads, np.ones(threads, np.float32), np.zeros(1, np.float32),
                    engine="reference")  # fmt: skip
    assert "warp_sync_divergence" not in trace.meta
    outcome = evaluate(parse_check("warp_sync_divergence == 0"), trace)
    assert not outcome.passed and outcome.observed is None


def meeting(instance: int, elsewhere: tuple[int, ...], warp: int = 0, mask: int = 0xFFFFFFFF) -> Meeting:
    return Meeting(warp, mask, instance, (0,), elsewhere, 7)


def test_a_lane_elsewhere_matches_if_it_makes_as_many_syncwarps_with_the_mask():
    calls = {0xFFFFFFFF: np.array([2, 2, 1, 0])}
    found = unmatched([meeting(1, (1, 2)), meeting(2, (1, 2, 3))], calls)
    assert [(d.meeting.instance, d.missing) for d in found] == [(2, (2, 3))]
    assert unmatched([meeting(1, (3,), mask=0xFF)], calls)[0].missing == (3,)  # no syncwarp with that mask at all


def test_one_divergence_per_warp_and_lanes_as_ranges():
    found = unmatched([meeting(1, (5,)), meeting(2, (5,)), meeting(1, (37,), warp=32)], {0xFFFFFFFF: np.zeros(64)})
    assert [d.meeting.warp for d in first_per_warp(found)] == [0, 32]
    assert lane_ranges([16, 17, 18, 3, 5, 6]) == "3, 5-6, 16-18" and lane_ranges([]) == ""
