"""The facts of the device a run will use, asked of the backend that will run it (never constants)."""

from __future__ import annotations

from functools import cache

from gpuviz.backends import backend_class, unavailable_reason
from gpuviz.core.options import RunOptions


@cache
def _gpu_unavailable() -> str | None:
    return unavailable_reason("gpu")


def backend_for(options: RunOptions) -> str:
    """The backend `options` pick: `auto` (and `gpu` where none is usable) means the GPU when one is usable."""
    name = options.backend
    if name == "auto" or (name == "gpu" and _gpu_unavailable() is not None):
        name = "gpu" if _gpu_unavailable() is None else "sim"
    return name


def facts_for(options: RunOptions) -> dict:
    """The device facts of the backend `options` pick."""
    return backend_class(backend_for(options))().device_facts(options)
