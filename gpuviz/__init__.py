"""gpuviz: see what a GPU really does when a CUDA kernel runs."""

from __future__ import annotations

__version__ = "0.1.0"

from gpuviz.api import run, trace  # noqa: E402
from gpuviz.errors import GpuvizError, KernelError, KernelSourceError, LaunchError  # noqa: E402
from gpuviz.launch import LaunchConfig  # noqa: E402
from gpuviz.options import RunOptions  # noqa: E402
from gpuviz.trace import Trace, load  # noqa: E402

__all__ = [
    "GpuvizError", "KernelError", "KernelSourceError", "LaunchConfig", "LaunchError",
    "RunOptions", "Trace", "__version__", "load", "run", "trace",
]  # fmt: skip


def __getattr__(name: str):
    if name == "cuda":  # `from gpuviz import cuda`: numba.cuda's stand-in, for machines without CUDA
        from gpuviz.shims import cuda

        return cuda
    raise AttributeError(f"module 'gpuviz' has no attribute {name!r}")
