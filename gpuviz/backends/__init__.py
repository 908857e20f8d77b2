"""The backends a launch can run on, as a table; GPU libraries are imported only by the GPU backend."""

from __future__ import annotations

import importlib

from gpuviz.core.errors import BackendUnavailable

BACKENDS = {
    "sim": "gpuviz.backends.sim.backend:SimBackend",
    "gpu": "gpuviz.backends.gpu.backend:GpuBackend",
}


def backend_class(name: str):
    module_name, class_name = BACKENDS[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def unavailable_reason(name: str) -> str | None:
    """Why a backend cannot run here, or None when it can."""
    return backend_class(name)().unavailable_reason()


def get_backend(name: str):
    """The backend called `name`; `auto` is the GPU when one is usable, else the simulator."""
    if name == "auto":
        name = "gpu" if unavailable_reason("gpu") is None else "sim"
    if name not in BACKENDS:
        raise BackendUnavailable(f"backend {name!r} is not known; use one of: auto, {', '.join(BACKENDS)}")
    backend = backend_class(name)()
    reason = backend.unavailable_reason()
    if reason:
        raise BackendUnavailable(f"the {name} backend is not available: {reason}")
    return backend
