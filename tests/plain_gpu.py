"""A kernel's source run as plain numba-cuda on the GPU, for the gpu-marked tests that compare the simulator with it."""

from __future__ import annotations

import numpy as np


def run_plain(source: str, grid, block, *arrays: np.ndarray, name: str = "k") -> list[np.ndarray]:
    """Compile `name` from `source` with numba-cuda, launch it on copies of `arrays`, and return what the GPU left
    in them; numba-cuda's typing and lowering errors propagate."""
    from numba import cuda

    namespace: dict = {}
    exec(compile(source, "<plain>", "exec"), namespace)
    device = [cuda.to_device(a) for a in arrays]
    namespace[name][grid, block](*device)
    cuda.synchronize()
    return [d.copy_to_host() for d in device]
