"""The user's kernel as numba compiles it, without gpuviz's recording: run once on copies of the
inputs, so that a racy launch's trace shows what the unrecorded kernel gives next to the recorded one
(recording adds memory traffic and atomics, which changes how the threads of a race interleave)."""

from __future__ import annotations

import types

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit
from gpuviz.instrument.rewrite import environment, is_device_function

_plain: dict = {}
TIMED_LAUNCHES = 5  # after a first launch that compiles and warms the kernel
LONG_LAUNCH_MS = 100.0  # a first launch this long: one more is timed, not five


def plain_kernel(py_func, native):
    """numba's kernel for py_func, its globals made native (`native` as the backend's), device
    functions compiled by numba as they are."""
    if py_func not in _plain:
        link = list(getattr(py_func, "_gpuviz_link", ()))  # `@cuda.jit(link=...)`, as the script gave it
        _plain[py_func] = numba_jit()(**({"link": link} if link else {}))(_native_function(py_func, native, {}))
    return _plain[py_func]


def _native_function(py_func, native, done: dict):
    env = native(environment(py_func))
    for name, value in list(env.items()):
        if is_device_function(value) and name in py_func.__code__.co_names:
            if value.py_func not in done:
                done[value.py_func] = None  # a recursive device function: numba refuses it anyway
                done[value.py_func] = numba_jit()(device=True)(_native_function(value.py_func, native, done))
            env[name] = done[value.py_func]
    return types.FunctionType(py_func.__code__, env, py_func.__name__, py_func.__defaults__, py_func.__closure__)


def host_copy(cuda, value) -> np.ndarray:
    """A device array's contents on the host. numba's own copy keeps a record dtype (xoroshiro128p's
    states), which the array-interface view loses (it says only "|V16", which numba cannot type)."""
    if hasattr(value, "copy_to_host"):
        return value.copy_to_host()
    return cuda.as_cuda_array(value).copy_to_host()


def plain_outcomes(py_func, native, config, params: list[str], args: tuple) -> dict[str, np.ndarray]:
    """The array arguments after one uninstrumented launch on copies of the inputs."""
    return plain_run(py_func, native, config, params, args, launches=0)[0]


def plain_run(py_func, native, config, params: list[str], args: tuple, keep: bool = True,
              launches: int = TIMED_LAUNCHES) -> tuple[dict[str, np.ndarray], float | None]:  # fmt: skip
    """One uninstrumented launch on copies of the inputs: the array arguments after it (when `keep`), and,
    unless `launches` is 0, the kernel's time a launch (ms, CUDA events): that first launch compiled and
    warmed it, then the median of `launches` more, each on the inputs restored on the device outside the
    timed part, so that every launch does the same work."""
    cuda = import_numba_cuda()
    copies, names = _device_copies(cuda, params, args)
    kernel = plain_kernel(py_func, native)[config.grid, config.block, 0, config.shared_bytes]
    if launches:
        pristine = [_on_device_copy(cuda, c) for c in copies]  # before the first launch changes them
        first = _timed(cuda, kernel, copies)
    else:
        kernel(*copies)
        cuda.synchronize()
    arrays = [c for c in copies if hasattr(c, "copy_to_host")]
    outcomes = {f"{name}.plain": array.copy_to_host() for name, array in zip(names, arrays)} if keep else {}
    if not launches:
        return outcomes, None
    times = []
    for _ in range(launches if first < LONG_LAUNCH_MS else 1):  # a long kernel: one timed launch is enough
        for copy, source in zip(copies, pristine):
            if hasattr(copy, "copy_to_device"):
                copy.copy_to_device(source)
        times.append(_timed(cuda, kernel, copies))
    return outcomes, float(np.median(times))


def twin_launch(py_func, native, config, params: list[str], before: dict, args: tuple, stream):
    """The kernel as numba compiles it, ready to queue on `stream` on new device copies of its arrays as
    they were before the launch (`before`, by name; copied now). Calling the result queues it between
    two events recorded there and returns at once with (start event, stop event, the copies, which must
    live until the kernel is done)."""
    cuda = import_numba_cuda()
    kernel = plain_kernel(py_func, native)[config.grid, config.block, stream, config.shared_bytes]
    copies = [cuda.to_device(before[name]) if name in before else value for name, value in zip(params, args)]

    def queue():
        start, stop = cuda.event(), cuda.event()
        start.record(stream)
        kernel(*copies)
        stop.record(stream)
        return start, stop, copies

    return queue


def _timed(cuda, launch, arguments: list) -> float:
    start, stop = cuda.event(), cuda.event()
    start.record()
    launch(*arguments)
    stop.record()
    stop.synchronize()
    return float(start.elapsed_time(stop))


def _on_device_copy(cuda, value):
    """A device array copied on the device (much faster than sending its host array again); other
    arguments as they are."""
    if not hasattr(value, "copy_to_device"):
        return value
    copy = cuda.device_array_like(value)
    copy.copy_to_device(value)
    return copy


def _device_copies(cuda, params: list[str], args: tuple) -> tuple[list, list[str]]:
    """The arguments with every array copied to new device memory (numbers as they are), and the
    names of the arrays."""
    copies, names = [], []
    for name, value in zip(params, args):
        if isinstance(value, np.ndarray):
            # to_device makes its own copy: the host array stays as the user gave it
            copies.append(cuda.to_device(value if value.flags.c_contiguous else value.copy()))
            names.append(name)
        elif hasattr(value, "__cuda_array_interface__"):
            copies.append(cuda.to_device(host_copy(cuda, value)))
            names.append(name)
        else:
            copies.append(value)
    return copies, names


def plain_facts(py_func, native, device_args: list) -> dict[str, int]:
    """Registers and local memory a thread of the kernel compiled as it is uses for these arguments
    ({} where numba cannot compile it as it is)."""
    kernel = plain_kernel(py_func, native)
    try:
        overload = kernel.compile(tuple(kernel.typeof_pyval(a) for a in device_args))
    except Exception:
        return {}
    return {"registers_per_thread": int(overload.regs_per_thread),
            "local_bytes_per_thread": int(overload.local_mem_per_thread)}  # fmt: skip


def plain_registers(py_func, native, device_args: list) -> int | None:
    """Registers a thread of the kernel compiled as it is uses for these arguments (None where numba
    cannot compile it as it is)."""
    return plain_facts(py_func, native, device_args).get("registers_per_thread")


def forall_block_size(py_func, native, args: tuple, shared_bytes: int = 0) -> int:
    """The block size numba-cuda's own `forall` launches the kernel as it is with: its ForAll asks the
    driver (cuOccupancyMaxPotentialBlockSize, up to 1,024 threads) for the compiled kernel. Asked of the
    plain kernel, not the recorded one, whose extra registers could change the answer."""
    import_numba_cuda()
    from numba.cuda.dispatcher import ForAll

    kernel = plain_kernel(py_func, native)
    specialized = kernel.specialize(*args)
    return int(ForAll(kernel, 1, tpb=0, stream=0, sharedmem=shared_bytes)._compute_thread_per_block(specialized))
