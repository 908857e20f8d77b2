"""The Python API: `gpuviz.trace(kernel)[grid, block](*args)` returns the launch's Trace."""

from __future__ import annotations

from dataclasses import fields

from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.model import Trace
from gpuviz.instrument.source import register_text
from gpuviz.program.kernel import Kernel
from gpuviz.program.signatures import declared_arguments
from gpuviz.run.session import Session


class Tracer:
    """Mirrors launch syntax: tracer[grid, block](*args) -> Trace."""

    def __init__(self, py_func, options: RunOptions, signatures: tuple = ()):
        self.py_func = py_func
        self.signatures = signatures  # an eager kernel's: numbers passed as they type them, other arrays refused
        self.session = Session(options)

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise GpuvizError("use gpuviz.trace(kernel)[grid, block](*args), or [grid, block, stream, shared_bytes]")
        grid, block = config[0], config[1]
        shared = config[3] if len(config) == 4 else 0  # dynamic shared memory, as numba takes it
        return lambda *args: self.session.launch(
            self.py_func, grid, block, declared_arguments(self.signatures, args), shared_bytes=shared
        )

    def __call__(self, *args, **kwargs):
        raise GpuvizError("give the launch first, as numba does: gpuviz.trace(kernel)[blocks, threads](*args)")


def trace(kernel, name: str | None = None, **options) -> Tracer:
    """Trace launches of `kernel`: a @cuda.jit kernel, a plain function, or source text.

    Options are those of RunOptions: backend, level, schedule, seed, sms, access_cap, guard, ...
    """
    kernel = kernel_from_text(kernel, name) if isinstance(kernel, str) else kernel
    signatures = getattr(kernel, "signatures", ())
    return Tracer(python_function(kernel), run_options(options), signatures if isinstance(signatures, tuple) else ())


def run_options(options: dict) -> RunOptions:
    """The options as RunOptions; a name it does not have is one line naming the ones it has."""
    known = [f.name for f in fields(RunOptions)]
    unknown = [name for name in options if name not in known]
    if unknown:
        raise GpuvizError(f"unknown option {unknown[0]!r}; the options are: {', '.join(known)}")
    return RunOptions(**options)


def python_function(kernel, name: str | None = None):
    if isinstance(kernel, str):
        return kernel_from_text(kernel, name).py_func
    py_func = getattr(kernel, "py_func", kernel)
    if not callable(py_func) or not hasattr(py_func, "__code__"):
        raise GpuvizError(f"cannot trace {kernel!r}: give a @cuda.jit kernel, a function or source text")
    return py_func


def kernel_from_text(text: str, name: str | None = None) -> Kernel:
    """Execute source text (with the simulator's stand-ins) and pick the kernel it defines."""
    from gpuviz.instrument.source import parse_file
    from gpuviz.program.script import shims_for

    filename = register_text(text)
    parse_file(text, filename)
    namespace: dict = {"__name__": "__gpuviz_source__"}
    with shims_for("sim"):
        try:
            exec(compile(text, filename, "exec"), namespace)
        except NameError as exc:  # most often `cuda` used without `from numba import cuda`
            hint = "; add `from numba import cuda` at its top" if exc.name == "cuda" else ""
            raise GpuvizError(f"the source uses {exc.name!r} but never defines or imports it{hint}") from None
    kernels = {k: v for k, v in namespace.items() if isinstance(v, Kernel)}
    if name is not None:
        if name not in kernels:
            if callable(namespace.get(name)):
                raise GpuvizError(f"{name!r} in the source is a plain function: decorate it with @cuda.jit")
            raise GpuvizError(f"no kernel named {name!r}; the source defines: {', '.join(kernels) or 'none'}")
        return kernels[name]
    if len(kernels) != 1:
        found = ", ".join(kernels) or "no @cuda.jit kernel"
        raise GpuvizError(f"the source defines {found}; pass name= to choose one")
    return next(iter(kernels.values()))


def run(kernel, grid, block, *args, **options) -> Trace:
    """One traced launch in a call: run(kernel, grid, block, *args, backend=..., ...)."""
    return trace(kernel, **options)[grid, block](*args)
