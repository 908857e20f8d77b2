"""The facts of the device a run will use, asked of the backend that will run it (never constants)."""

from __future__ import annotations

from functools import cache

from gpuviz.backends import backend_class, unavailable_reason
from gpuviz.core.options import RunOptions


@cache
def _gpu_unavailable() -> str | None:
    return unavailable_reason("gpu")


def facts_for(options: RunOptions) -> dict:
    """The device facts of the backend `options` pick (`auto`: the GPU when one is usable)."""
    name = options.backend
    if name == "auto" or (name == "gpu" and _gpu_unavailable() is not None):
        name = "gpu" if _gpu_unavailable() is None else "sim"
    return backend_class(name)().device_facts(options)
