"""Timing a kernel with CUDA events: the same launch on the same device arrays, timed three times in a
row, and the bandwidth each time implies."""

import numpy as np
from numba import cuda

N = 1 << 16


@cuda.jit
def scale(a, out, factor):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = factor * a[i]


a = np.arange(N, dtype=np.float32)
d_a = cuda.to_device(a)
d_out = cuda.device_array_like(d_a)
start, end = cuda.event(), cuda.event()
times = []
for _ in range(3):
    start.record()
    scale[N // 256, 256](d_a, d_out, np.float32(2.0))
    end.record()
    end.synchronize()  # the launch returns at once: wait until the GPU has passed `end`
    times.append(start.elapsed_time(end))  # ms between the two events, on the GPU's clock
np.testing.assert_array_equal(d_out.copy_to_host(), 2 * a)
moved = 2 * a.nbytes  # each element read once and written once
for trial, ms in enumerate(times):
    print(f"timing {trial}: {ms:.4f} ms, {moved / ms / 1e6:.2f} GB/s")
