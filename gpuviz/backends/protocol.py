"""What every backend is: the contract the rest of gpuviz may rely on (and nothing else of a backend)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gpuviz.core.events import Notify
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.model import Trace


@runtime_checkable
class Backend(Protocol):
    """Runs one launch of an instrumented kernel and gives back its trace."""

    name: str  # "sim", "gpu": the key in the registry (backends/__init__.py)

    def unavailable_reason(self) -> str | None:
        """Why this backend cannot run here, in one line; None when it can."""

    def device_facts(self, options: RunOptions) -> dict:
        """The device a run with `options` would use: name, sm_count, warp_size, residency limits."""

    def presets(self) -> dict[str, dict]:
        """The devices this backend can imitate, by name, with their facts (a real GPU imitates none)."""

    def suggested_block_size(self, py_func, args: tuple, options: RunOptions, shared_bytes: int = 0) -> int:
        """The block size CUDA's occupancy calculator gives this kernel (numba's `forall` launches with it)."""

    def new_timeline(self):
        """A run's timeline of copies, launches and events per stream (core/streams.py's Timeline)."""

    def run(self, py_func, config: LaunchConfig, args: tuple, options: RunOptions, notify: Notify) -> Trace:
        """Run the launch and return its trace; `notify` hears its stages and progress."""
