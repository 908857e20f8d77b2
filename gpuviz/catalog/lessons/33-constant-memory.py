"""A signal of 32 channels, each scaled by its own gain from a table in constant memory: once with the
channels stored one after another (planar), once with their samples interleaved."""

import numpy as np
from numba import cuda

CHANNELS = 32
SAMPLES = 64
GAINS = np.linspace(0.5, 2.0, CHANNELS).astype(np.float32)


@cuda.jit
def scale_planar(x, out):
    gains = cuda.const.array_like(GAINS)
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * gains[i // SAMPLES]


@cuda.jit
def scale_interleaved(x, out):
    gains = cuda.const.array_like(GAINS)
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * gains[i % CHANNELS]


signal = np.random.default_rng(0).random((CHANNELS, SAMPLES), dtype=np.float32)
planar = signal.ravel()
out = np.zeros_like(planar)
scale_planar[16, 128](planar, out)
np.testing.assert_allclose(out.reshape(CHANNELS, SAMPLES), signal * GAINS[:, None], rtol=1e-6)

interleaved = signal.T.ravel()  # sample 0 of every channel, then sample 1, ...
out_interleaved = np.zeros_like(interleaved)
scale_interleaved[16, 128](interleaved, out_interleaved)
np.testing.assert_allclose(out_interleaved.reshape(SAMPLES, CHANNELS), signal.T * GAINS, rtol=1e-6)
print("both layouts scaled by their channel's gain")
