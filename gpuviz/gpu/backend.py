"""The GPU backend. Not built yet: it reports why it cannot run, cheaply, without importing CUDA."""

from __future__ import annotations

import ctypes
import ctypes.util


def driver_loadable() -> bool:
    """True when an NVIDIA driver library can be loaded (a cheap first test before numba-cuda)."""
    for name in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda"), "nvcuda.dll"):
        if not name:
            continue
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


class GpuBackend:
    name = "gpu"

    def unavailable_reason(self) -> str | None:
        if not driver_loadable():
            return "no NVIDIA driver found on this machine (libcuda cannot be loaded); use --backend sim"
        return "running on a real GPU is not built yet in this version of gpuviz; use --backend sim"

    def run(self, py_func, config, args, options):  # pragma: no cover - unavailable until built
        raise NotImplementedError
