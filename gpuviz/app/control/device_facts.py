"""The facts of the device a run will use, asked of the backend that will run it (never constants)."""

from __future__ import annotations

from gpuviz import backends
from gpuviz.core.options import RunOptions


def backend_for(options: RunOptions) -> str:
    """The backend `options` pick: `auto` (and `gpu` where none is usable) means the GPU when one is usable."""
    return backends.resolve(options.backend, fall_back=True)


def facts_for(options: RunOptions) -> dict:
    """The device facts of the backend `options` pick."""
    return backends.device_facts(options.backend, options)
