"""The backends a launch can run on, as a table: the only door to a backend (nothing outside backends/
imports a backend's modules). GPU libraries are imported only by the GPU backend."""

from __future__ import annotations

import importlib
from functools import cache

from gpuviz.backends.protocol import Backend
from gpuviz.core.errors import BackendUnavailable

BACKENDS = {
    "sim": "gpuviz.backends.sim.backend:SimBackend",
    "gpu": "gpuviz.backends.gpu.backend:GpuBackend",
}
AUTO = "auto"  # the GPU where one is usable, else the simulator


def new_backend(name: str) -> Backend:
    """A backend of the table by name, whether or not it can run here (`get_backend` checks)."""
    module_name, class_name = BACKENDS[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)()


def unavailable_reason(name: str) -> str | None:
    """Why a backend cannot run here, or None when it can."""
    return new_backend(name).unavailable_reason()


@cache
def _gpu_unavailable() -> str | None:
    return unavailable_reason("gpu")


def resolve(name: str, fall_back: bool = False) -> str:
    """The one rule for `auto`: the GPU where one is usable, else the simulator. With `fall_back`, a GPU asked
    for where none is usable is the simulator too (the app's device panel shows what a run would use)."""
    if name == AUTO or (fall_back and name == "gpu" and _gpu_unavailable() is not None):
        return "gpu" if _gpu_unavailable() is None else "sim"
    return name


def get_backend(name: str) -> Backend:
    """The backend called `name` (or `auto`), ready to run; one line when it is unknown or cannot run here."""
    if name != AUTO and name not in BACKENDS:
        raise BackendUnavailable(f"backend {name!r} is not known; use one of: {AUTO}, {', '.join(BACKENDS)}")
    name = resolve(name)
    backend = new_backend(name)
    reason = backend.unavailable_reason()
    if reason:
        raise BackendUnavailable(f"the {name} backend is not available: {reason}")
    return backend


def device_facts(name: str, options) -> dict:
    """The facts of the device a backend (by name, `auto` resolved, a missing GPU falling back) would use."""
    return new_backend(resolve(name, fall_back=True)).device_facts(options)


def real_numba_cuda():
    """numba-cuda's own `cuda` module and its jit, for a script run against the real GPU (imported here
    only when asked: the GPU backend is the one place that knows numba-cuda's import quirks)."""
    from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit

    return import_numba_cuda(), numba_jit


def measured_host_calls(timeline):
    """A context in which a script's own numba.cuda copies, streams and events are timed onto the GPU
    backend's measured timeline (`timeline()`, the session's); numba's functions are put back after."""
    from gpuviz.backends.gpu.compat import import_numba_cuda
    from gpuviz.backends.gpu.host_calls import measured_host_calls as measured

    return measured(import_numba_cuda(), timeline)


def simulated_devices() -> dict[str, dict]:
    """The devices the simulator can imitate, by preset name, with their facts (the first is the default)."""
    return new_backend("sim").presets()
