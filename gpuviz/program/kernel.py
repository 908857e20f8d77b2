"""What `@cuda.jit` gives back under gpuviz: kernels launched with numba's syntax, and device functions."""

from __future__ import annotations

import functools

from gpuviz.core.errors import GpuvizError, LaunchError


class Kernel:
    """A kernel: `kernel[grid, block](*args)` (or `[grid, block, stream, shared_bytes]`) runs it
    through the active gpuviz session."""

    _gpuviz_is_kernel = True

    def __init__(self, py_func, signatures: tuple = (), **options):
        self.py_func = py_func
        self.signatures = signatures  # explicit ones, as given: numba compiles them eagerly
        self.options = options
        functools.update_wrapper(self, py_func)
        if options.get("link"):  # code compiled outside Python that the GPU backend must link as numba would
            link = options["link"]
            py_func._gpuviz_link = (link,) if isinstance(link, str) else tuple(link)

    def __getitem__(self, config) -> Launch:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError(
                f"launch {self.py_func.__name__} as kernel[grid, block](...), optionally with a "
                f"stream and shared-memory size after block"
            )
        shared_bytes = config[3] if len(config) == 4 else 0
        stream = config[2] if len(config) >= 3 else 0
        return Launch(self, config[0], config[1], shared_bytes, int(getattr(stream, "_gpuviz_stream", 0) or 0))

    def forall(self, ntasks: int, tpb: int = 0, stream=0, sharedmem: int = 0) -> ForAll:
        """numba's 1-D launch of `ntasks` threads, in blocks of `tpb` or of the driver's suggestion."""
        if ntasks < 0:
            raise LaunchError(f"forall of {self.py_func.__name__} needs a task count of 0 or more, not {ntasks}")
        return ForAll(self, int(ntasks), int(tpb), sharedmem)

    @property
    def overloads(self) -> _Overloads:
        """`kernel.overloads[signature]`: the compiled kernel for a signature (one per kernel here)."""
        return _Overloads(self)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize: int = 0) -> int:
        """How many blocks of this size can be co-resident, as a cooperative (grid-sync) launch needs."""
        from gpuviz.program.launcher import current

        session = current()
        facts = session.backend.device_facts(session.options)
        threads = functools.reduce(lambda a, b: a * b, blockdim) if isinstance(blockdim, tuple) else int(blockdim)
        per_sm = min(facts.get("max_blocks_per_sm", 32), facts.get("max_threads_per_sm", 2048) // max(threads, 1))
        return per_sm * facts["sm_count"]

    def __call__(self, *args):
        name = self.py_func.__name__
        raise GpuvizError(f"{name} is a kernel; launch it with {name}[grid, block](...)")


class _Overloads:
    def __init__(self, kernel: Kernel):
        self._kernel = kernel

    def __getitem__(self, signature) -> Kernel:
        return self._kernel

    def __len__(self) -> int:
        return max(1, len(self._kernel.signatures))


class Launch:
    def __init__(self, kernel: Kernel, grid, block, shared_bytes: int = 0, stream: int = 0):
        self.kernel, self.grid, self.block, self.shared_bytes = kernel, grid, block, shared_bytes
        self.stream = stream  # the timeline's number of the stream it was launched on (0: the default)

    def __call__(self, *args) -> None:
        from gpuviz.program.launcher import current
        from gpuviz.program.signatures import declared_arguments

        args = declared_arguments(self.kernel.signatures, args)  # numba passes numbers as the signature says
        current().launch(
            self.kernel.py_func, self.grid, self.block, args, shared_bytes=self.shared_bytes, stream=self.stream
        )


class ForAll:
    """`kernel.forall(n)(*args)`: as numba-cuda's ForAll, no launch for n = 0, and without `tpb` the block
    size CUDA's occupancy calculator gives for this kernel (cuOccupancyMaxPotentialBlockSize, up to 1,024),
    which the session's backend works out; the grid is n rounded up to whole blocks."""

    def __init__(self, kernel: Kernel, ntasks: int, tpb: int, shared_bytes: int):
        self.kernel, self.ntasks, self.tpb, self.shared_bytes = kernel, ntasks, tpb, shared_bytes

    def __call__(self, *args) -> None:
        from gpuviz.program.launcher import current
        from gpuviz.program.signatures import declared_arguments

        if self.ntasks == 0:
            return
        args = declared_arguments(self.kernel.signatures, args)
        session = current()
        block = self.tpb or session.suggested_block_size(self.kernel.py_func, args, self.shared_bytes)
        grid = -(-self.ntasks // block)
        session.launch(self.kernel.py_func, grid, block, args, shared_bytes=self.shared_bytes)


class DeviceFunction:
    """A `@cuda.jit(device=True)` function: callable from kernels only, as on a GPU."""

    def __init__(self, py_func, signatures: tuple = (), **options):
        self.py_func = py_func
        self.signatures = signatures
        self.options = options  # inline=, debug=, ...: no effect on what the simulator shows
        functools.update_wrapper(self, py_func)

    def __call__(self, *args):
        name = self.py_func.__name__
        raise GpuvizError(f"{name} is a device function; call it from inside a kernel")


def jit(func_or_signature=None, device: bool = False, **options):
    """numba.cuda.jit's forms: @jit, @jit(), @jit('void(float32[:])'), @jit(void(float32[:])),
    @jit([sig1, sig2]), @jit((int32[:],)), @jit(sig, device=True, inline=True)."""
    if _is_function(func_or_signature):
        return Kernel(func_or_signature, **options) if not device else DeviceFunction(func_or_signature, **options)
    signatures = _signatures(func_or_signature)

    def decorate(func):
        kind = DeviceFunction if device else Kernel
        return kind(func, signatures, **options)

    return decorate


def _is_function(value) -> bool:
    return callable(value) and hasattr(value, "__code__")


def _signatures(value) -> tuple:
    if value is None:
        return ()
    if isinstance(value, list):
        return tuple(value)
    return (value,)
