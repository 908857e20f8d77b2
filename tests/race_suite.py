"""A labelled suite of small kernels, racy and race-free, for the race analysis.

Each entry: kernel source (lines that take part in a race end with `# race`, lines of benign
same-value writes with `# benign`), launch, input builder, and the arrays expected to race.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

HEADER = "import math\nfrom numba import cuda, float32, int32, int64\n"


@dataclass(frozen=True)
class RaceCase:
    name: str
    body: str
    grid: object
    block: object
    make: object
    racy_arrays: frozenset = field(default_factory=frozenset)
    benign_arrays: frozenset = field(default_factory=frozenset)
    divergent: bool = False
    warp_level: bool = False  # uses warp intrinsics (numba's CUDA simulator lacks them)

    @property
    def source(self) -> str:
        return HEADER + self.body

    def lines(self, mark: str) -> set[int]:
        return {n for n, text in enumerate(self.source.splitlines(), 1) if text.rstrip().endswith(f"# {mark}")}


def ints(n, value=0):
    return lambda: (np.full(n, value, np.int64),)


CASES: list[RaceCase] = []


def case(name, body, grid, block, make, racy=(), benign=(), **flags):
    CASES.append(RaceCase(name, body, grid, block, make, frozenset(racy), frozenset(benign), **flags))


case("vecadd_with_bounds_check", """
@cuda.jit
def k(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
""", 2, 64, lambda: (np.ones(100), np.ones(100), np.zeros(100)))

case("racy_counter", """
@cuda.jit
def k(a):
    a[0] += 1  # race
""", 2, 64, ints(1), racy={"a"})

case("racy_loop_over_array", """
@cuda.jit
def k(a):
    for i in range(a.size):
        a[i] += 0.5  # race
""", 4, 32, lambda: (np.zeros(2, np.float32),), racy={"a"})

case("atomic_counter", """
@cuda.jit
def k(a):
    cuda.atomic.add(a, 0, 1)
""", 2, 64, ints(1))

case("histogram_racy", """
@cuda.jit
def k(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1  # race
""", 2, 64, lambda: (np.arange(128, dtype=np.int64), np.zeros(8, np.int64)), racy={"bins"})

case("histogram_atomic", """
@cuda.jit
def k(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)
""", 2, 64, lambda: (np.arange(128, dtype=np.int64), np.zeros(8, np.int64)))

case("reduction_with_barriers", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]
""", 2, 64, lambda: (np.ones(128, np.float32), np.zeros(2, np.float32)))

case("reduction_missing_barrier_in_loop", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]  # race
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]  # race
""", 2, 64, lambda: (np.ones(128, np.float32), np.zeros(2, np.float32)), racy={"s"})

case("reduction_missing_first_barrier", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]  # race
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]  # race
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]
""", 2, 64, lambda: (np.ones(128, np.float32), np.zeros(2, np.float32)), racy={"s"})

case("stencil_in_place", """
@cuda.jit
def k(a):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        a[i] = (a[i - 1] + a[i + 1]) / 2  # race
""", 2, 32, lambda: (np.arange(64, dtype=np.float64),), racy={"a"})

case("stencil_out_of_place", """
@cuda.jit
def k(a, b):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        b[i] = (a[i - 1] + a[i + 1]) / 2
""", 2, 32, lambda: (np.arange(64, dtype=np.float64), np.zeros(64)))

case("shared_tile_transpose", """
@cuda.jit
def k(a, b):
    tile = cuda.shared.array((8, 8), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    b[ty, tx] = tile[tx, ty]
""", 1, (8, 8), lambda: (np.arange(64, dtype=np.float32).reshape(8, 8), np.zeros((8, 8), np.float32)))

case("shared_tile_without_barrier", """
@cuda.jit
def k(a, b):
    tile = cuda.shared.array((8, 8), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx]  # race
    b[ty, tx] = tile[tx, ty]  # race
""", 1, (8, 8), lambda: (np.arange(64, dtype=np.float32).reshape(8, 8), np.zeros((8, 8), np.float32)),
    racy={"tile"})

MATMUL = """
@cuda.jit
def k(A, B, C):
    sA = cuda.shared.array((4, 4), float32)
    sB = cuda.shared.array((4, 4), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = 0.0
    for t in range(A.shape[1] // 4):
        sA[tx, ty] = A[x, t * 4 + ty]  # race
        sB[tx, ty] = B[t * 4 + tx, y]  # race
        cuda.syncthreads()
        for j in range(4):
            acc += sA[tx, j] * sB[j, ty]  # race
        SECOND_BARRIER
    C[x, y] = acc
"""


def _matmul_inputs():
    return (np.ones((8, 8), np.float32), np.ones((8, 8), np.float32), np.zeros((8, 8), np.float32))


case("tiled_matmul", MATMUL.replace("SECOND_BARRIER", "cuda.syncthreads()").replace("  # race", ""),
     (2, 2), (4, 4), _matmul_inputs)
case("tiled_matmul_missing_second_barrier", MATMUL.replace("SECOND_BARRIER", "pass"),
     (2, 2), (4, 4), _matmul_inputs, racy={"sA", "sB"})

case("warp_shuffle_reduction", """
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v
""", 1, 64, lambda: (np.arange(64, dtype=np.int64), np.zeros(2, np.int64)), warp_level=True)

case("warp_ballot", """
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    mask = cuda.ballot_sync(0xFFFFFFFF, a[i] > 10)
    if cuda.laneid == 0:
        out[i // 32] = mask
""", 1, 64, lambda: (np.arange(64, dtype=np.int64), np.zeros(2, np.int64)), warp_level=True)

case("grid_stride_loop", """
@cuda.jit
def k(a):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = a[i] * 2
""", 2, 32, lambda: (np.arange(300, dtype=np.int64),))

case("grid_stride_with_wrong_stride", """
@cuda.jit
def k(a):
    for i in range(cuda.grid(1), a.size, cuda.blockDim.x):
        a[i] = a[i] * 2  # race
""", 2, 32, lambda: (np.arange(300, dtype=np.int64),), racy={"a"})

case("two_phase_with_barrier", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, int64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)] * 2
    cuda.syncthreads()
    out[cuda.grid(1)] = s[(t + 1) % 64]
""", 2, 64, lambda: (np.arange(128, dtype=np.int64), np.zeros(128, np.int64)))

case("two_phase_without_barrier", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(64, int64)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)] * 2  # race
    out[cuda.grid(1)] = s[(t + 1) % 64]  # race
""", 2, 64, lambda: (np.arange(128, dtype=np.int64), np.zeros(128, np.int64)), racy={"s"})

case("benign_flag_same_value", """
@cuda.jit
def k(a, flag):
    i = cuda.grid(1)
    a[i] = i
    flag[0] = 1  # benign
""", 2, 32, lambda: (np.zeros(64, np.int64), np.zeros(1, np.int64)), benign={"flag"})

case("benign_shared_init_same_value", """
@cuda.jit
def k(out):
    s = cuda.shared.array(1, int64)
    s[0] = 0  # benign
    cuda.syncthreads()
    out[cuda.grid(1)] = s[0]
""", 2, 32, lambda: (np.ones(64, np.int64),), benign={"s"})

case("different_values_to_one_cell", """
@cuda.jit
def k(out):
    out[0] = cuda.grid(1)  # race
""", 2, 32, ints(1), racy={"out"})

case("atomic_and_plain_read_same_element", """
@cuda.jit
def k(c, seen):
    i = cuda.grid(1)
    cuda.atomic.add(c, 0, 1)  # race
    seen[i] = c[0]  # race
""", 2, 32, lambda: (np.zeros(1, np.int64), np.zeros(64, np.int64)), racy={"c"})

case("atomic_then_barrier_then_read_one_block", """
@cuda.jit
def k(c, seen):
    i = cuda.grid(1)
    cuda.atomic.add(c, 0, 1)
    cuda.syncthreads()
    seen[i] = c[0]
""", 1, 64, lambda: (np.zeros(1, np.int64), np.zeros(64, np.int64)))

case("divergent_barrier", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int64)
    t = cuda.threadIdx.x
    if t >= 16:
        return
    s[t] = a[t]
    cuda.syncthreads()
    out[t] = s[t ^ 1]
""", 1, 32, lambda: (np.arange(32, dtype=np.int64), np.zeros(32, np.int64)), divergent=True)

case("shared_counter_racy", """
@cuda.jit
def k(out):
    s = cuda.shared.array(1, int64)
    if cuda.threadIdx.x == 0:
        s[0] = 0
    cuda.syncthreads()
    s[0] += 1  # race
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = s[0]
""", 2, 32, lambda: (np.zeros(2, np.int64),), racy={"s"})

case("private_outputs", """
@cuda.jit
def k(out):
    i = cuda.grid(1)
    out[i] = i * i
""", 4, 32, lambda: (np.zeros(128, np.int64),))

case("everyone_reads_one_cell", """
@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = a[0] + i
""", 2, 32, lambda: (np.full(1, 5, np.int64), np.zeros(64, np.int64)))

case("in_place_own_element", """
@cuda.jit
def k(a):
    i = cuda.grid(1)
    a[i] *= 2
""", 2, 32, lambda: (np.arange(64, dtype=np.int64),))

case("grid_2d_private", """
@cuda.jit
def k(out):
    x, y = cuda.grid(2)
    out[y, x] = x + 10 * y
""", (2, 2), (4, 4), lambda: (np.zeros((8, 8), np.int64),))

case("grid_2d_row_sum_racy", """
@cuda.jit
def k(out):
    x, y = cuda.grid(2)
    out[y, 0] += x  # race
""", (2, 2), (4, 4), lambda: (np.zeros((8, 8), np.int64),), racy={"out"})

case("shared_per_block_copies_do_not_race", """
@cuda.jit
def k(out):
    s = cuda.shared.array(1, int64)
    if cuda.threadIdx.x == 0:
        s[0] = cuda.blockIdx.x
    cuda.syncthreads()
    out[cuda.grid(1)] = s[0]
""", 4, 32, lambda: (np.zeros(128, np.int64),))

case("warp_synchronous_without_syncwarp", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int64)
    t = cuda.threadIdx.x
    s[t] = a[t]  # race
    if t < 16:
        s[t] += s[t + 16]  # race
    if t == 0:
        out[0] = s[0]  # race
""", 1, 32, lambda: (np.arange(32, dtype=np.int64), np.zeros(1, np.int64)), racy={"s"})

case("neighbour_exchange_in_loop_with_barriers", """
@cuda.jit
def k(a, out):
    s = cuda.shared.array(32, int64)
    t = cuda.threadIdx.x
    v = a[t]
    for _ in range(3):
        s[t] = v
        cuda.syncthreads()
        v = s[(t + 1) % 32] + 1
        cuda.syncthreads()
    out[t] = v
""", 1, 32, lambda: (np.arange(32, dtype=np.int64), np.zeros(32, np.int64)))

case("device_function_with_race", """
@cuda.jit(device=True)
def bump(counter):
    counter[0] += 1  # race

@cuda.jit
def k(counter):
    bump(counter)
""", 2, 32, ints(1), racy={"counter"})
