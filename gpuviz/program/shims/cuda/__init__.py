"""A stand-in for `numba.cuda` on the simulator: kernels, intrinsics, types and device-array helpers.

Intrinsics (threadIdx, syncthreads, atomic.add, ...) are never executed from here: the kernel
rewrite recognises them by name and replaces them. Called outside a kernel they say so.
Types (float32, int32, void, ...) are numba's own, as `numba.cuda` re-exports them.
docs/simulator.md has the table of every numba.cuda name and what supports it.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from gpuviz.core.errors import GpuvizError
from gpuviz.program.kernel import jit  # noqa: F401  (numba.cuda.jit)
from gpuviz.program.shims.cuda import random  # noqa: F401  (numba.cuda.random)
from gpuviz.program.shims.cuda.arrays import (  # noqa: F401  (numba.cuda's array helpers)
    DeviceArray,
    as_cuda_array,
    clock,
    device_array,
    device_array_like,
    is_cuda_array,
    managed_array,
    mapped_array,
    mapped_array_like,
    pinned_array,
    pinned_array_like,
    stream_number,
    to_device,
)
from gpuviz.program.shims.cuda.reduction import Reduce, reduce  # noqa: F401
from gpuviz.program.shims.cuda.types import TYPE_NAMES, types  # noqa: F401  (numba.cuda.types)

globals().update(TYPE_NAMES)


class _Intrinsic:
    """A name that only means something inside a kernel (cuda.threadIdx.x, cuda.atomic.add)."""

    def __init__(self, path: str):
        self._gpuviz_path = path

    def __getattr__(self, name: str) -> _Intrinsic:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Intrinsic(f"{self._gpuviz_path}.{name}")

    def __call__(self, *args, **kwargs):
        raise GpuvizError(f"cuda.{self._gpuviz_path}() can only be used inside a kernel")

    def __repr__(self) -> str:
        return f"<cuda.{self._gpuviz_path}>"


_INTRINSICS = """
threadIdx blockIdx blockDim gridDim laneid warpsize grid gridsize syncthreads syncthreads_count
syncthreads_and syncthreads_or syncwarp activemask shfl_sync shfl_up_sync shfl_down_sync
shfl_xor_sync ballot_sync all_sync any_sync eq_sync atomic shared local const threadfence nanosleep
threadfence_block threadfence_system popc brev clz ffs fma cbrt selp cg
""".split()
globals().update({name: _Intrinsic(name) for name in _INTRINSICS})


def In(ary):  # noqa: N802  (numba.cuda.In/Out/InOut: transfer hints, meaningless here)
    return ary


Out = InOut = In


def synchronize() -> None:
    """The host waits for every stream (on the model clock: the kernels themselves ran at their launch)."""
    clock().synchronize()


def is_available() -> bool:
    return True  # kernels run, on the simulator


class _Device:
    def __init__(self, facts: dict):
        self.name = facts["name"].encode()
        self.id = 0
        self.compute_capability = tuple(int(v) for v in str(facts.get("compute_capability", "9.0")).split("."))
        self.MULTIPROCESSOR_COUNT = facts["sm_count"]
        self.MAX_THREADS_PER_BLOCK = facts["max_threads_per_block"]
        self.WARP_SIZE = facts["warp_size"]
        self.MAX_BLOCK_DIM_X, self.MAX_BLOCK_DIM_Y, self.MAX_BLOCK_DIM_Z = 1024, 1024, 64
        self.MAX_GRID_DIM_X, self.MAX_GRID_DIM_Y, self.MAX_GRID_DIM_Z = 2**31 - 1, 65535, 65535
        self.MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024

    def reset(self) -> None:
        pass


def get_current_device() -> _Device:
    from gpuviz.program.launcher import current

    session = current()
    return _Device(session.backend.device_facts(session.options))


def select_device(device_id: int = 0) -> _Device:
    return get_current_device()


def detect() -> bool:
    device = get_current_device()
    print(f"Found 1 CUDA device (simulated)\nid 0 {device.name.decode()} [SMs: {device.MULTIPROCESSOR_COUNT}]")
    return True


def close() -> None:
    pass


class _Stream:
    """A stream: its copies and kernels run in order on the model clock (backends/sim/stream_clock.py)."""

    handle = None

    def __init__(self, number: int) -> None:
        self._gpuviz_stream = number

    def synchronize(self) -> None:
        clock().synchronize(self._gpuviz_stream)

    @contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def __int__(self) -> int:
        return self._gpuviz_stream

    def __repr__(self) -> str:
        return f"<gpuviz stream {self._gpuviz_stream}>"


class _Event:
    """An event: the model time at which its stream's earlier work is done; elapsed times are in ms, as
    CUDA's, and modelled."""

    def __init__(self) -> None:
        self._us: float | None = None

    def record(self, stream=0) -> None:
        self._us = clock().event(stream_number(stream))

    def synchronize(self) -> None:
        clock().wait_until(self._time())

    def wait(self, stream=0) -> None:
        pass  # later work on the stream would wait for it; the model orders streams at records only

    def query(self) -> bool:
        return self._us is not None and clock().host >= self._us

    def elapsed_time(self, later: _Event) -> float:
        ms = (later._time() - self._time()) / 1000.0
        clock().elapsed.append(ms)
        return ms

    def _time(self) -> float:
        if self._us is None:
            raise GpuvizError("this event was never recorded: call event.record() first")
        return self._us


def stream() -> _Stream:
    return _Stream(clock().new_stream())


def default_stream() -> _Stream:
    return _Stream(0)


legacy_default_stream = per_thread_default_stream = default_stream


def external_stream(ptr) -> _Stream:
    return _Stream(clock().new_stream())


@contextmanager
def _nothing(*args, **kwargs):
    yield args[0] if args else None


@contextmanager
def pinned(*arrays):
    """`cuda.pinned(a, b)`: the arrays are page-locked inside the block, so their copies are faster."""
    for array in arrays:
        clock().pin(array, True)
    try:
        yield
    finally:
        for array in arrays:
            clock().pin(array, False)


mapped = defer_cleanup = profiling = _nothing


def profile_start() -> None:
    """Profiling markers mean nothing on the simulator."""


profile_stop = profile_start


def event_elapsed_time(start: _Event, end: _Event) -> float:
    return start.elapsed_time(end)


def list_devices() -> list[_Device]:
    return [get_current_device()]


def current_context():
    return get_current_device()


def is_float16_supported() -> bool:
    return True


def event(timing: bool = True) -> _Event:
    return _Event()


class ExternalFunction:
    """`cuda.declare_device(name, signature, link=...)`: a device function compiled outside Python (CUDA
    C++, a library's LTO-IR) that a kernel links. The simulator cannot run code it has no source of: a
    kernel that calls one is refused, naming it (the rewrite reads `_gpuviz_external`)."""

    def __init__(self, name: str, signature, link=None, **options):
        self._gpuviz_external = name
        self.signature, self.link, self.options = signature, link, options

    def __call__(self, *args):
        raise GpuvizError(f"{self._gpuviz_external} is a linked device function; call it from inside a kernel")


def declare_device(name: str, sig, link=None, **options) -> ExternalFunction:
    return ExternalFunction(name, sig, link, **options)


def vectorize(ftylist_or_function=(), target: str = "cuda", **options):
    """numba.cuda.vectorize: one thread per element, traced like a kernel (program/ufunc.py)."""
    from gpuviz.program.ufunc import vectorize_for

    return vectorize_for(sys.modules[__name__])(ftylist_or_function, target=target, **options)


def guvectorize(*args, **options):
    from gpuviz.program.ufunc import guvectorize_for

    return guvectorize_for()(*args, **options)


def __getattr__(name: str):
    if name == "gpus":  # cuda.gpus: the one simulated device
        return list_devices()
    raise AttributeError(f"numba.cuda.{name} is not available in gpuviz's simulator")
