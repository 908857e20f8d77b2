"""Where a script's launches go: a stack of launchers (sessions), so `kernel[grid, block](...)` in a
user's script reaches the run layer without the program layer importing it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol


class Launcher(Protocol):
    """What a kernel launch needs: a session of the run layer fits."""

    backend: object
    options: object
    timeline: object  # core/streams.py's Timeline: copies, launches and events per stream

    def launch(self, py_func, grid, block, args: tuple, shared_bytes: int = 0, stream: int = 0): ...

    def finish(self) -> None:
        """The script has ended: the last launch's trace gets the whole run's timeline."""

    def suggested_block_size(self, py_func, args: tuple, shared_bytes: int = 0) -> int:
        """The block size `forall` launches with (the driver's occupancy calculator's)."""


_active: list[Launcher] = []
_default: list[Callable[[], Launcher]] = []  # registered by gpuviz/__init__.py: a quiet simulator session


def set_default_factory(factory: Callable[[], Launcher]) -> None:
    """The run layer says how to make the launcher used outside `gpuviz run` (the Python API)."""
    _default[:] = [factory]


def current() -> Launcher:
    """The launcher launches go to now; outside a run, a default one made once."""
    if not _active:
        _active.append(_default[0]())  # gpuviz/__init__.py registers it, before any subpackage loads
    return _active[-1]


@contextmanager
def activated(launcher: Launcher) -> Iterator[Launcher]:
    _active.append(launcher)
    try:
        yield launcher
    finally:
        _active.remove(launcher)
