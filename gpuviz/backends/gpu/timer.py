"""How finely %globaltimer moves on this GPU: its update step, measured once a process.

The PTX manual promises nanoseconds but not how often the value changes; drivers update it every
32 ns to 1 us. Recorded times closer together than one step cannot be ordered."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.gpu.compat import numba_jit
from gpuviz.backends.gpu.intrinsics import globaltimer, simulated

READS = 4096
_step: list[int | None] = []


_READER = """
def read_timer(out):
    for k in range(out.size):
        out[k] = timer()
"""


def _reader():
    namespace = {"timer": globaltimer()}  # a global of the kernel, as numba resolves it when compiling
    exec(_READER, namespace)
    return numba_jit()(namespace["read_timer"])


def step_of(readings: np.ndarray) -> int | None:
    """The median of the changes between consecutive readings (None when it never changed)."""
    changes = np.diff(readings.astype(np.int64))
    changes = changes[changes > 0]
    return int(np.median(changes)) if len(changes) else None


def globaltimer_step_ns() -> int | None:
    """The timer's update step in ns on the current GPU (None under numba's CUDA simulator)."""
    if not _step:
        if simulated():
            _step.append(None)
        else:
            from gpuviz.backends.gpu.compat import import_numba_cuda

            cuda = import_numba_cuda()
            out = cuda.device_array(READS, np.uint64)
            _reader()[1, 1](out)
            _step.append(step_of(out.copy_to_host()))
    return _step[0]
