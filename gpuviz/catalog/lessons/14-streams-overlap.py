"""An array in four chunks: each chunk copied to the device, processed and copied back on a stream of its
own, from page-locked (pinned) host memory."""

import numpy as np
from numba import cuda

CHUNKS = 4
M = 1 << 14  # values per chunk
STEPS = 2048


@cuda.jit
def smooth(x, out, steps):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(steps):
            v = 0.5 * v + 1.0
        out[i] = v


host_in = cuda.pinned_array((CHUNKS, M), np.float32)
host_in[:] = np.random.default_rng(0).random((CHUNKS, M), dtype=np.float32)
host_out = cuda.pinned_array((CHUNKS, M), np.float32)
streams = [cuda.stream() for _ in range(CHUNKS)]
for k, stream in enumerate(streams):
    d_in = cuda.to_device(host_in[k], stream=stream)  # returns at once: the copy is queued on the stream
    d_out = cuda.device_array(M, np.float32, stream=stream)
    smooth[M // 256, 256, stream](d_in, d_out, STEPS)
    d_out.copy_to_host(host_out[k], stream=stream)
cuda.synchronize()  # wait for every stream
expected = host_in.astype(np.float64)
for _ in range(STEPS):
    expected = 0.5 * expected + 1.0
np.testing.assert_allclose(host_out, expected, rtol=1e-5)
print("four chunks processed on", len(streams), "streams")
