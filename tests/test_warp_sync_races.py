"""Race verdicts for warp-synchronous kernels: syncwarp orders the lanes of a warp; shuffles and votes
exchange registers and order no memory; syncwarp orders no other warp. No false positives, no misses."""

import numpy as np
import pytest

HEADER = "import numpy as np\nfrom numba import cuda, int32\n"

CASES = {
    # name: (kernel body, block, racy)
    "write_syncwarp_read": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    if i == 0:
        a[0] = 42
    cuda.syncwarp()
    out[i] = a[0]
""", 32, False),
    "write_read_without_syncwarp": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    if i == 0:
        a[0] = 42
    out[i] = a[0]
""", 32, True),
    "shuffle_is_not_a_memory_barrier": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    if i == 0:
        a[0] = 42
    v = cuda.shfl_sync(0xFFFFFFFF, i, 0)
    out[i] = a[0] + v
""", 32, True),
    "ballot_is_not_a_memory_barrier": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    if i == 0:
        a[0] = 42
    b = cuda.ballot_sync(0xFFFFFFFF, i == 0)
    out[i] = a[0] + b
""", 32, True),
    "syncwarp_does_not_order_other_warps": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    if i == 0:
        a[0] = 42
    cuda.syncwarp()
    out[i] = a[0]
""", 64, True),
    "warp_reduction_with_syncwarp": ("""
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncwarp()
    step = 16
    while step > 0:
        if i < step:
            v = s[i + step]
        cuda.syncwarp()
        if i < step:
            s[i] += v
        cuda.syncwarp()
        step //= 2
    if i == 0:
        out[0] = s[0]
""", 32, False),
    "warp_reduction_without_syncwarp": ("""
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    step = 16
    while step > 0:
        if i < step:
            s[i] += s[i + step]
        step //= 2
    if i == 0:
        out[0] = s[0]
""", 32, True),
    "shuffle_reduction_in_registers": ("""
@cuda.jit
def k(a, out):
    i = cuda.threadIdx.x
    v = a[i]
    step = 16
    while step > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, step)
        step //= 2
    if i == 0:
        out[0] = v
""", 32, False),
    "partial_syncwarps_order_the_lanes_they_name": ("""
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncwarp()
    if i < 16:
        s[i] += s[i + 16]
        cuda.syncwarp(0xFFFF)
    if i < 8:
        s[i] += s[i + 8]
        cuda.syncwarp(0xFF)
    if i == 0:
        out[0] = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]
    cuda.syncthreads()
""", 32, False),
    "lane_left_out_of_a_partial_syncwarp_is_not_ordered": ("""
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncwarp()
    if i < 16:
        s[i] += s[i + 16]
        cuda.syncwarp(0xFFFF)
        s[0] = 7
    else:
        out[i] = s[0]
    cuda.syncthreads()
""", 32, True),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_warp_synchronous_race_verdicts(name, sim_run):
    body, block, racy = CASES[name]
    a = np.arange(block, dtype=np.int32)
    out = np.zeros(block, np.int32)
    trace = sim_run(HEADER + body, 1, block, a, out)
    assert trace.analysis["races"]["racy"] is racy
    if ("reduction" in name or "partial" in name) and not racy:
        assert out[0] == a[:32].sum()


def test_header_counts_every_racy_array_not_only_the_described_ones(sim_run, tmp_path):
    from gpuviz.cli import main

    src = HEADER + """
@cuda.jit
def k(a, b):
    a[0] += 1
    b[cuda.threadIdx.x % 2] += 1
"""
    trace = sim_run(src, 1, 32, np.zeros(1), np.zeros(2))
    path = trace.save(tmp_path / "t.npz")
    from gpuviz.core.analysis.races import find_races

    report = find_races(trace, max_locations=1)
    assert report.locations == 3 and report.summary() == "races: 3 locations in 2 arrays"
    assert main(["races", str(path), "--max", "1"]) == 0
