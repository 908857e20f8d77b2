"""What `@cuda.jit` gives back under gpuviz: kernels launched with numba's syntax, and device functions."""

from __future__ import annotations

import functools

from gpuviz.core.errors import GpuvizError, LaunchError


class Kernel:
    """A kernel: `kernel[grid, block](*args)` runs it through the active gpuviz session."""

    _gpuviz_is_kernel = True

    def __init__(self, py_func, **options):
        self.py_func = py_func
        self.options = options
        functools.update_wrapper(self, py_func)

    def __getitem__(self, config) -> Launch:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError(
                f"launch {self.py_func.__name__} as kernel[grid, block](...), optionally with a "
                f"stream and shared-memory size after block"
            )
        if len(config) == 4 and config[3]:
            raise LaunchError(
                f"dynamic shared memory ({self.py_func.__name__}[grid, block, stream, {config[3]}]) is not "
                f"supported by gpuviz yet; give cuda.shared.array a constant size instead"
            )
        return Launch(self, config[0], config[1])

    def forall(self, ntasks: int, tpb: int = 0) -> Launch:
        block = tpb or 128
        return Launch(self, max(1, -(-int(ntasks) // block)), block)

    def __call__(self, *args):
        name = self.py_func.__name__
        raise GpuvizError(f"{name} is a kernel; launch it with {name}[grid, block](...)")


class Launch:
    def __init__(self, kernel: Kernel, grid, block):
        self.kernel, self.grid, self.block = kernel, grid, block

    def __call__(self, *args) -> None:
        from gpuviz.program.launcher import current

        current().launch(self.kernel.py_func, self.grid, self.block, args)


class DeviceFunction:
    """A `@cuda.jit(device=True)` function: callable from kernels only, as on a GPU."""

    def __init__(self, py_func, **options):
        self.py_func = py_func
        self.options = options
        functools.update_wrapper(self, py_func)

    def __call__(self, *args):
        name = self.py_func.__name__
        raise GpuvizError(f"{name} is a device function; call it from inside a kernel")


def jit(func_or_signature=None, device: bool = False, **options):
    """numba.cuda.jit's forms: @jit, @jit(), @jit('void(float32[:])'), @jit(device=True)."""

    def decorate(func):
        return DeviceFunction(func, **options) if device else Kernel(func, **options)

    if callable(func_or_signature) and not isinstance(func_or_signature, (str, list, tuple)):
        return decorate(func_or_signature)
    return decorate
