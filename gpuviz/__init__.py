"""gpuviz: see what a GPU really does when a CUDA kernel runs."""

from __future__ import annotations

from gpuviz.core.errors import GpuvizError, KernelError, KernelSourceError, LaunchError  # noqa: E402
from gpuviz.core.launch import LaunchConfig  # noqa: E402
from gpuviz.core.options import RunOptions  # noqa: E402
from gpuviz.core.trace.model import Trace  # noqa: E402
from gpuviz.core.trace.reader import load  # noqa: E402
from gpuviz.core.version import __version__  # noqa: E402
from gpuviz.notebook import load_ipython_extension, replay, show  # noqa: E402  (`%load_ext gpuviz`; no Qt)
from gpuviz.program.launcher import set_default_factory  # noqa: E402
from gpuviz.run.api import run, trace  # noqa: E402
from gpuviz.run.session import Session  # noqa: E402

# Registered here, in the package's entry point (every `import gpuviz.X` runs it first): a launch outside
# `gpuviz run` and the Python API, e.g. a script using `gpuviz.cuda` directly, runs on a quiet simulator.
set_default_factory(Session)

__all__ = [
    "GpuvizError", "KernelError", "KernelSourceError", "LaunchConfig", "LaunchError",
    "RunOptions", "Trace", "__version__", "load", "load_ipython_extension", "replay", "run", "show", "trace",
]  # fmt: skip


def __getattr__(name: str):
    if name == "cuda":  # `from gpuviz import cuda`: numba.cuda's stand-in, for machines without CUDA
        from gpuviz.program.shims import cuda

        return cuda
    raise AttributeError(f"module 'gpuviz' has no attribute {name!r}")
