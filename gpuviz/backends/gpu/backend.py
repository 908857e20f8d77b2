"""The GPU backend: runs the instrumented kernel on an NVIDIA GPU through numba-cuda.

numba.cuda and cupy are imported here, and only when a launch runs or `auto` asks whether a GPU is
usable, so the app starts fast without CUDA.
"""

from __future__ import annotations

import ast
import ctypes
import ctypes.util
import hashlib
import os
import re
import types
from dataclasses import dataclass
from datetime import date
from functools import cache, reduce

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit
from gpuviz.backends.gpu.decode import (
    accesses_of,
    final_writes_last,
    known_starts,
    per_thread,
    place_in_time,
    thread_times,
)
from gpuviz.backends.gpu.hooks import UNIT_SHIFT, device_function_decorator, hook_source, hooks
from gpuviz.backends.gpu.layout import WIDE, RecordLayout, choose_layout
from gpuviz.backends.gpu.local_types import local_types
from gpuviz.backends.gpu.log import DeviceLog, fill
from gpuviz.backends.gpu.meetings import partial_syncwarps
from gpuviz.backends.gpu.plain import (
    TIMED_LAUNCHES,
    forall_block_size,
    host_copy,
    plain_facts,
    plain_run,
    twin_launch,
)
from gpuviz.backends.gpu.stream_timer import EventTimer, MeasuredTimeline
from gpuviz.backends.gpu.timer import globaltimer_step_ns
from gpuviz.core.analysis.memcheck import recorded_out_of_bounds, within_bounds
from gpuviz.core.analysis.occupancy import REGISTERS_PER_SM, register_cap
from gpuviz.core.block_size import potential_block_size
from gpuviz.core.copies import implicit_copies
from gpuviz.core.dtypes import dtype_text
from gpuviz.core.errors import GpuvizError, KernelSourceError
from gpuviz.core.events import Notify, Stage, ignore
from gpuviz.core.launch import LaunchConfig, check_argument_count, check_cooperative_fits
from gpuviz.core.options import RunOptions
from gpuviz.core.streams import COPY_IN, COPY_OUT, KERNEL
from gpuviz.core.trace.columns import thread_layout
from gpuviz.core.trace.model import Trace, new_trace
from gpuviz.instrument.arguments import check_arguments
from gpuviz.instrument.gpu_rewrite import MAX_ARRAY_IDS, MAX_PARAM_IDS, GpuRewriter, SharedSites, read_only_params
from gpuviz.instrument.rewrite import CUDA_MODULES, Program, build_program
from gpuviz.instrument.shared_memory import check_declared_memory

DEVICE_ACCESS_CAP = 1 << 26  # 64 Mi events, about 1 GiB of device memory at most
SIMULATOR_ACCESS_CAP = 1 << 16  # under numba's CUDA simulator (tests), where buffers are host arrays


def _simulated() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def driver_loadable() -> bool:
    """True when an NVIDIA driver library can be loaded (a cheap first test before numba-cuda)."""
    for name in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda"), "nvcuda.dll"):
        if not name:
            continue
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


LINKING_LIBRARIES = ("nvmath.", "cuda.cccl.", "cuda.coop")  # modules of linked device functions


@dataclass
class Compiled:
    program: Program
    kernel: object  # numba CUDA dispatcher
    sites: SharedSites
    level: str
    layout: RecordLayout = WIDE


class GpuBackend:
    name = "gpu"
    _compiled: dict[tuple, Compiled] = {}
    _last = None  # (py_func, config, params, arguments before, arguments) of the last launch run

    def unavailable_reason(self) -> str | None:
        if _simulated():
            return None  # numba's CUDA simulator: lets the backend's logic run without a GPU (tests)
        if not driver_loadable():
            return "no NVIDIA driver found on this machine (libcuda cannot be loaded); use --backend sim"
        try:
            cuda = import_numba_cuda()
        except Exception as exc:  # numba-cuda missing or broken: say which
            return f"numba-cuda cannot be imported ({type(exc).__name__}: {exc})"
        if not cuda.is_available():
            return "numba-cuda finds no usable GPU"
        return None

    def presets(self) -> dict[str, dict]:
        return {}  # a real GPU is the device it is

    def new_timeline(self) -> MeasuredTimeline:
        return MeasuredTimeline(import_numba_cuda(), self.device_facts()["name"], self._twin_on)

    def _twin_on(self, stream):
        """The last launch's kernel as numba compiles it, ready to queue on the script's stream on copies of
        its arguments as they were before the launch (the recorded run wrote the arrays): its span on the
        timeline. None where numba cannot compile it as it is."""
        if self._last is None:
            return None
        py_func, config, params, before, args = self._last
        try:
            return twin_launch(py_func, native_globals, config, params, before, args, stream)
        except Exception:
            return None

    def device_facts(self, options: RunOptions | None = None) -> dict:
        """The real device's facts (the same keys as the simulator's)."""
        cuda = import_numba_cuda()
        device = cuda.get_current_device()
        name = getattr(device, "name", "numba CUDA simulator")
        return {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "sm_count": int(getattr(device, "MULTIPROCESSOR_COUNT", 1)),
            "max_threads_per_block": int(getattr(device, "MAX_THREADS_PER_BLOCK", 1024)),
            "warp_size": int(getattr(device, "WARP_SIZE", 32)),
            "max_shared_memory_per_block": int(getattr(device, "MAX_SHARED_MEMORY_PER_BLOCK", 48 * 1024)),
            "compute_capability": list(getattr(device, "compute_capability", (0, 0))),
        } | _per_sm_facts(device)

    def compile(self, py_func, level: str, notify: Notify = ignore, ndims: dict[str, int] | None = None,
                max_registers: int | None = None, flat: bool = False, guarded: bool = False) -> Compiled:  # fmt: skip
        """The instrumented kernel for a level and the axes of its array arguments (and a cap on its
        registers a thread, where it must not use more); `flat`: for launches of one axis only."""
        key = (py_func, level, tuple(sorted((ndims or {}).items())), max_registers, flat, guarded)
        if key not in self._compiled:
            notify(Stage("compiling", f"compiling {py_func.__name__} for the GPU ({level})..."))
            self._compiled[key] = _compile(py_func, level, ndims or {}, max_registers, flat, guarded)
        return self._compiled[key]

    def keep_occupancy(self, py_func, launch: PreparedLaunch, facts: dict, ndims: dict[str, int]) -> None:
        """Recompile the recorded kernel under a register cap where its extra registers would let an SM
        hold fewer blocks than the kernel as it is: the blocks running at once decide how a race's
        threads interleave. Registers over the cap spill to local memory, outside the kernel's own
        accesses."""
        overload, config = launch.overload, launch.config
        if overload is None:
            return
        warps = config.warps_per_block
        other = min(int(facts.get("max_threads_per_sm", 2048)) // (warps * 32), int(facts.get("max_blocks_per_sm", 32)))
        per_sm = int(facts.get("max_registers_per_sm", REGISTERS_PER_SM))
        # The kernel as it is, compiled once per signature: its registers are what occupancy reports.
        launch.plain = plain_facts(py_func, native_globals, launch.device_args)
        plain = launch.plain.get("registers_per_thread")
        if plain is None or overload.regs_per_thread <= register_cap(1, warps, other, per_sm):
            return  # within the cap of the fullest SM any kernel gets: the recording keeps its blocks
        cap = register_cap(plain, warps, other, per_sm)
        if overload.regs_per_thread > cap:
            layout = launch.compiled.layout
            launch.compiled = self.compile(py_func, launch.compiled.level, ndims=ndims, max_registers=cap,
                                           flat=layout.flat, guarded=layout.guarded)  # fmt: skip
            launch.compile_for_arguments()

    def suggested_block_size(self, py_func, args: tuple, options: RunOptions, shared_bytes: int = 0) -> int:
        """numba's own answer for the kernel as it is (numba's CUDA simulator has no driver to ask: there
        the occupancy calculator runs on the device's facts)."""
        if _simulated():
            return potential_block_size(self.device_facts(options), shared_bytes=shared_bytes)
        return forall_block_size(py_func, native_globals, args, shared_bytes)

    def run(self, py_func, config: LaunchConfig, args: tuple, options: RunOptions, notify: Notify = ignore) -> Trace:
        cuda = import_numba_cuda()
        facts = self.device_facts(options)
        config.validate(facts["max_threads_per_block"])
        level = options.level_for(config.threads)
        ndims = {name: value.ndim for name, value in zip(_parameters(py_func), args) if hasattr(value, "ndim")}
        guarded = options.guard and level == "accesses"  # level threads hooks no access: nothing to guard
        compiled = self.compile(py_func, level, notify, ndims, flat=config.flat, guarded=guarded)
        check_declared_memory(compiled.program)  # what ptxas refuses for the user's kernel (the recorder's own differs)
        check_argument_count(compiled.program.name, compiled.program.params, args)
        # numba's typeof refusals, in the simulator's words and line; numba's own device arrays pass as they
        # are (under numba's CUDA simulator they have no __cuda_array_interface__)
        check_arguments(compiled.program, tuple(None if hasattr(a, "copy_to_host") else a for a in args))
        cap = min(options.access_cap, SIMULATOR_ACCESS_CAP if _simulated() else DEVICE_ACCESS_CAP)
        # A grid-wide barrier needs a cooperative launch: its plain twin is not run (hung on an H100). With the
        # guard the twin runs after the recording, which cannot fault: a kernel that reaches outside an array
        # would fault as it is and end this process's CUDA context before anything was recorded.
        twin = not compiled.program.cooperative
        plain, plain_time = ({}, None)
        if twin and not guarded:
            plain, plain_time = self._plain_twin(py_func, config, compiled, args, facts, keep=level == "accesses")
        launch = PreparedLaunch(cuda, compiled, config, args, cap)
        launch.compile_for_arguments()
        self.keep_occupancy(py_func, launch, facts, ndims)
        if compiled.program.cooperative and launch.overload is not None:  # numba's own refusal names no line
            fits = launch.overload.max_cooperative_grid_blocks(config.block)
            check_cooperative_fits(compiled.program.name, config, int(fits))
        try:
            seconds = launch.run_timed()
        except Exception as exc:
            raise_if_faulted(exc, compiled.program.name)
            raise
        trace = launch.collect(facts, options, seconds)
        trace.meta["launch_times"] = launch.timer.pieces  # the session's timeline takes them (stream_timer.py)
        self._last = (py_func, config, compiled.program.params, launch.before, args)  # for _twin_on
        if twin and guarded:
            plain, plain_time = self._twin_after(py_func, config, compiled, launch, trace, facts)
        trace.outcomes.update(_written(plain, trace))
        if plain_time is not None:
            trace.meta["plain_time"] = plain_time
        return trace

    def _twin_after(self, py_func, config: LaunchConfig, compiled: Compiled, launch: PreparedLaunch, trace: Trace,
                    facts: dict) -> tuple[dict[str, np.ndarray], dict | None]:  # fmt: skip
        """The plain twin on the inputs as they were before the recorded launch, unless that launch found
        an access outside its array: the kernel as numba compiles it would touch that memory, and a fault
        there ends the CUDA context of this process (the trace says so instead)."""
        if trace.error_count:
            trace.meta.setdefault("warnings", []).append(
                "the kernel as numba compiles it was not run beside the recording: the recording found "
                f"{trace.error_count} access(es) outside their arrays, which on the GPU touch other memory or "
                "fault (CUDA_ERROR_ILLEGAL_ADDRESS) and end the process's CUDA context"
            )
            return {}, None
        params = compiled.program.params
        inputs = tuple(launch.before.get(name, value) for name, value in zip(params, launch.args))
        return self._plain_twin(py_func, config, compiled, inputs, facts, keep=True)

    @staticmethod
    def _plain_twin(py_func, config: LaunchConfig, compiled: Compiled, args: tuple, facts: dict,
                    keep: bool) -> tuple[dict[str, np.ndarray], dict | None]:  # fmt: skip
        """The kernel as numba compiles it, run on copies of the inputs: its outputs (when `keep`: a racy
        launch's trace shows them beside the recorded ones) and what it takes a launch on this card,
        measured today, which a lesson about speed states for this run. Nothing where numba cannot compile
        it as it is (the recorded run then reports the error); no time under numba's CUDA simulator, whose
        events time Python."""
        try:
            outcomes, ms = plain_run(py_func, native_globals, config, compiled.program.params, args, keep,
                                     launches=0 if _simulated() else TIMED_LAUNCHES)  # fmt: skip
        except Exception as exc:
            raise_if_faulted(exc, compiled.program.name)
            return {}, None
        if ms is None:
            return outcomes, None
        return outcomes, {"ms": ms, "launches": TIMED_LAUNCHES, "card": facts["name"], "date": date.today().isoformat()}


# Errors after which a CUDA context is lost (the driver's "sticky" launch errors): every later call fails too.
STICKY_FAULTS = (
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
)


def raise_if_faulted(exc: Exception, kernel: str) -> None:
    """A launch that faulted ends the process's CUDA context: say so in one line, with the way to see where
    (the guard). Other errors are left to the caller."""
    fault = next((name for name in STICKY_FAULTS if name in str(exc)), None)
    if fault is not None:
        raise GpuvizError(
            f"kernel {kernel} faulted on the GPU ({fault}: most often an index outside an array's memory), "
            "which ends this process's CUDA context; record it again with the guard (`gpuviz run --guard`, "
            '`guard=True`, or the app\'s "Check every access (GPU)"; level accesses) to see which line, thread '
            "and element"
        ) from None


# Per-SM limits by the driver's attribute names (CU_DEVICE_ATTRIBUTE_<name>); numba's simulator has none,
# and a trace without them takes the compute capability's preset (core/analysis/occupancy.py).
PER_SM_ATTRIBUTES = {
    "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
    "max_blocks_per_sm": "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "max_shared_memory_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "max_registers_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
}


def _per_sm_facts(device) -> dict:
    if _simulated():
        return {}
    facts = {key: int(getattr(device, attribute)) for key, attribute in PER_SM_ATTRIBUTES.items()}
    step = globaltimer_step_ns()
    return facts | ({"globaltimer_step_ns": step} if step else {})


def _written(plain: dict[str, np.ndarray], trace: Trace) -> dict[str, np.ndarray]:
    """The plain outcomes of the arrays that either run changed (read-only inputs are not repeated), of
    the element types a trace holds (not records, such as xoroshiro128p's states)."""
    kept = {}
    for key, values in plain.items():
        name = key[: -len(".plain")]
        if values.dtype.kind not in "fiubc":
            continue
        if name in trace.args and not (np.array_equal(values, trace.before(name), equal_nan=values.dtype.kind in "fc")
                                       and np.array_equal(trace.after(name), trace.before(name))):  # fmt: skip
            kept[key] = values
    return kept


def _parameters(py_func) -> list[str]:
    code = py_func.__code__
    return list(code.co_varnames[: code.co_argcount])


def _compile(py_func, level: str, ndims: dict[str, int], max_registers: int | None = None,
             flat: bool = False, guarded: bool = False) -> Compiled:  # fmt: skip
    cuda = import_numba_cuda()
    sites = SharedSites()
    program = build_program(py_func, GpuRewriter, accesses=level == "accesses", sites=sites, ndims=ndims)
    layout = choose_layout(sites.site_arrays, flat, guarded)
    function = program.bind(hooks(layout), native=lambda env: _native(env, cuda),
                            wrap_device=device_function_decorator())  # fmt: skip
    # numba cannot cache a kernel that references a global device array: compile those every time; nor
    # one that links files ("Cannot pickle CUDACodeLibrary with linking files"): `@cuda.jit(link=...)`,
    # or a library call that adds its own generated code (nvmath-python's device matmul does).
    link = linked_files(py_func)
    values = [v for f in program.functions for v in f.env.values()]
    cached = not link and not any(_is_device_array(v) or _from_linking_library(v) for v in values)
    options = ({"link": link} if link else {}) | ({"max_registers": max_registers} if max_registers else {})
    # numba's on-disk cache keys a kernel by its own bytecode, not by the hooks it calls nor by its
    # register cap: both go into the name its cache files take.
    function.__qualname__ = f"{function.__qualname__}_{_build_digest(max_registers, layout)}"
    kernel = numba_jit()(cache=cached, **options)(function)
    return Compiled(program, kernel, sites, level, layout)


@cache
def _build_digest(max_registers: int | None, layout: RecordLayout = WIDE) -> str:
    """What, besides the kernel's text, decides the code numba compiles for it."""
    return hashlib.sha1(f"{hook_source(layout)}|{max_registers}".encode()).hexdigest()[:12]


def linked_files(py_func) -> list[str]:
    """What the script's `@cuda.jit(link=...)` names for this kernel (the program layer keeps it)."""
    return list(getattr(py_func, "_gpuviz_link", ()))


def _from_linking_library(value) -> bool:
    """An object of a library whose device functions numba links as generated code."""
    return type(value).__module__.startswith(LINKING_LIBRARIES)


def _is_device_array(value) -> bool:
    return hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray)


def _native(env: dict, cuda) -> dict:
    """The user's globals with gpuviz's stand-ins for numba.cuda swapped for the real thing."""
    native = {}
    for name, value in env.items():
        if isinstance(value, types.ModuleType) and value.__name__ in CUDA_MODULES:
            value = cuda
        elif type(value).__name__ == "_Intrinsic":
            value = reduce(getattr, value._gpuviz_path.split("."), cuda)
        elif type(value).__name__ in ("DeviceFunction", "Kernel") and hasattr(value, "py_func"):
            value = _native_device(value.py_func)  # passed as a value or called: a device function, untraced
        native[name] = value
    return native


def native_globals(env: dict) -> dict:
    """A kernel's globals as numba itself compiles it (the plain twin's and its registers')."""
    return _native(env, import_numba_cuda())


@cache
def _native_device(py_func):
    return numba_jit()(device=True)(py_func)


class PreparedLaunch:
    """One launch: device copies of the arguments, recording buffers, the timed run, the trace."""

    def __init__(self, cuda, compiled: Compiled, config: LaunchConfig, args: tuple, cap: int):
        self.cuda, self.compiled, self.config = cuda, compiled, config
        self.args = args
        self.timer = EventTimer(cuda)  # the implicit copies and the kernel, for the run's stream timeline
        self.overload = None  # numba's compiled kernel, once compile_for_arguments ran on a GPU
        self.plain: dict[str, int] = {}  # registers and local memory of the kernel as it is (plain_facts)
        self.device_args, self.before, self._copy_back = self._device_arguments(args)
        n_warps = config.blocks * config.warps_per_block
        self.unsized: list[int] = []  # shared arrays whose shape the host cannot tell before the launch
        self.entries, self.remap = self._array_table()
        self.block_start = cuda.device_array(config.blocks, np.uint64)
        self.block_sm = cuda.device_array(config.blocks, np.uint32)
        self.warp_end = cuda.to_device(np.zeros(n_warps, np.uint64))
        timed = compiled.level == "accesses"
        if timed:
            _check_element_range(self.entries)
        self.warp_start = cuda.device_array(n_warps if timed else 1, np.uint64)
        self._mark_starts_unstored()
        logged = self._logged_ids() if timed else 0
        value_dtype = self._value_dtype(logged)
        self.log = DeviceLog(cuda, config.threads, cap, logged, value_dtype, compiled.layout) if timed else None

    def _mark_starts_unstored(self) -> None:
        """All ones in the start and SM buffers: a thread 0 or lane 0 that leaves the kernel without
        returning stores nothing there (decode.known_starts)."""
        for array in (self.block_start, self.block_sm, self.warp_start):
            fill(self.cuda, array, 0xFF)

    def _device_arguments(self, args: tuple):
        cuda, device_args, before, copy_back = self.cuda, [], {}, []
        params = self.compiled.program.params
        for name, value in zip(params, args):
            if isinstance(value, np.ndarray):
                before[name] = value.copy()
                on_device = self.timer.timed(COPY_IN, name, value.nbytes, lambda v=value: cuda.to_device(v))
                copy_back.append(
                    lambda d=on_device, host=value, name=name: self.timer.timed(
                        COPY_OUT, name, host.nbytes, lambda: d.copy_to_host(host)
                    )
                )
                device_args.append(on_device)
            elif hasattr(value, "__cuda_array_interface__"):
                before[name] = host_copy(cuda, value)
                device_args.append(value)
            else:
                device_args.append(value)
        return device_args, before, copy_back

    def _logged_ids(self) -> int:
        """The mask of array ids whose values the log stores: every shared array and every argument
        the kernel may write or that shares memory with another argument (a read-only one's loads
        see its inputs, which the host has)."""
        program = self.compiled.program
        arrays = {name: value.ndim for name, value in zip(program.params, self.args) if hasattr(value, "ndim")}
        read_only = read_only_params(program.kernel.source.node, arrays) - _sharing_memory(program.params, self.args)
        constants = self.compiled.sites.constants  # read-only too: the host has their values
        mask = sum(1 << k for k in range(MAX_PARAM_IDS, MAX_ARRAY_IDS) if k not in constants)
        for k, name in enumerate(program.params[:MAX_PARAM_IDS]):
            if name not in read_only:
                mask |= 1 << k
        return mask - (1 << 64) if mask >= 1 << 63 else mask  # as the int64 the kernel takes

    def _value_dtype(self, logged: int) -> np.dtype:
        """float32 when it holds every logged array's values exactly; complex128 when a logged array
        is complex (both parts kept); else float64."""
        aids = [int(np.flatnonzero(self.remap == k)[0]) for k in range(len(self.entries))]
        dtypes = [entry["dtype"] for aid, entry in zip(aids, self.entries) if (logged >> aid) & 1]
        if any(_kind(dtype) == "c" for dtype in dtypes):
            return np.dtype(np.complex128)
        return np.dtype(np.float32 if all(map(_fits_float32, dtypes)) else np.float64)

    def buffers(self) -> list:
        times = [self.block_start, self.block_sm, self.warp_end, self.warp_start]
        return times + (self.log.buffers() if self.log else [])

    def all_arguments(self) -> list:
        return [*self.device_args, *self.buffers()]

    def compile_for_arguments(self) -> None:
        kernel = self.compiled.kernel
        if not hasattr(kernel, "typeof_pyval"):  # numba's CUDA simulator compiles nothing
            return
        try:
            signature = tuple(kernel.typeof_pyval(a) for a in self.all_arguments())
            self.overload = kernel.compile(signature)
        except Exception as exc:
            raise _compile_error(exc, self.compiled.program) from None

    def launch(self) -> None:
        config = self.config
        self.compiled.kernel[config.grid, config.block, 0, config.shared_bytes](*self.all_arguments())

    def reset_counter(self) -> None:
        if self.log:
            self.log.reset()
        self.warp_end.copy_to_device(np.zeros(self.warp_end.shape, np.uint64))
        self._mark_starts_unstored()

    def run_timed(self) -> float:
        start, stop = self.cuda.event(), self.cuda.event()
        start.record()
        self.launch()
        stop.record()
        stop.synchronize()
        ms = start.elapsed_time(stop)
        self.timer.pieces.append([KERNEL, self.compiled.program.name, 0, float(ms), start, stop])
        return ms / 1000.0

    def collect(self, facts: dict, options: RunOptions, seconds: float) -> Trace:
        for copy in self._copy_back:
            copy()
        config = self.config
        block_idx, thread_idx, warp, lane = thread_layout(config.grid, config.block, facts["warp_size"])
        per_block = config.threads_per_block
        timed = self.compiled.level == "accesses"
        warp_start = self.warp_start.copy_to_host() if timed else None
        warp_end = self.warp_end.copy_to_host()
        block_start, warp_start, unstored = known_starts(self.block_start.copy_to_host(), warp_start, warp_end,
                                                         config.warps_per_block)  # fmt: skip
        t_start, t_end, first = thread_times(block_start, warp_start, warp_end, per_block)
        block_sm = np.where(unstored, 0, self.block_sm.copy_to_host()).astype(np.int32)
        threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
                   "sm": np.repeat(block_sm, per_block), "t_start": t_start, "t_end": t_end}  # fmt: skip
        accesses, truncated, partial = None, False, None
        snapshots = self._snapshots()
        if timed:
            warps = np.arange(config.blocks * config.warps_per_block, dtype=np.int64)
            warp_of_thread = per_thread(warps, per_block)
            start_units = per_thread(warp_start.astype(np.int64) >> UNIT_SHIFT, per_block)
            accesses, truncated, partial = self._accesses(start_units, warp_of_thread)
            accesses = final_writes_last(place_in_time(accesses, t_start, first), self._finals(snapshots))
        program = self.compiled.program
        errors, error_count = recorded_out_of_bounds(accesses, self.entries)
        accesses = within_bounds(accesses, self.entries)  # the faulting accesses are errors, not elements
        warnings = sized_by_accesses(self.entries, self.unsized, accesses) + _unstored_starts(unstored)
        return new_trace(
            source=program.kernel.source, config=config, backend="gpu", device_facts=facts, time_unit="ns",
            param_names=program.params, values=self.args, snapshots=snapshots, arrays=self.entries,
            threads=threads, accesses=accesses, level=self.compiled.level, schedule="hardware",
            truncated=truncated, seconds=seconds, errors=errors, error_count=error_count, time_source="globaltimer",
            kernel_facts=self._kernel_facts(), warnings=warnings, partial_syncwarps=partial,
            host_copies=implicit_copies(program.params, self.args),
            local_types=local_types(self.overload, program.params),
            counting_lines=self.compiled.sites.counting_lines(),
        )  # fmt: skip

    def _kernel_facts(self) -> dict:
        """Registers and memory of the kernel as it is (`registers_per_thread`, `local_bytes_per_thread`,
        from its plain compile) and of the recorded one (`recorded_registers_per_thread`: recording adds
        registers, and may be capped to keep the blocks an SM holds)."""
        overload = self.overload
        if overload is None:  # numba's CUDA simulator compiles nothing
            return {}
        return {
            "recorded_registers_per_thread": overload.regs_per_thread,
            "shared_bytes_per_block": overload.shared_mem_per_block + self.config.shared_bytes,
        } | self.plain

    def _finals(self, snapshots: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[int, np.ndarray]:
        """The arguments' contents after the launch, flat, by trace array position."""
        names = [entry["name"] for entry in self.entries]
        return {names.index(name): after.ravel() for name, (_, after) in snapshots.items() if name in names}

    def _snapshots(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        after = {}
        for name, value in zip(self.compiled.program.params, self.args):
            if isinstance(value, np.ndarray):
                after[name] = value.copy()
            elif hasattr(value, "__cuda_array_interface__"):
                after[name] = host_copy(self.cuda, value)
        return {name: (self.before[name], after[name]) for name in self.before}

    def _accesses(self, start_units: np.ndarray, warp_of_thread: np.ndarray) -> tuple[dict[str, np.ndarray], bool,
                                                                                      list | str | None]:  # fmt: skip
        """The access columns, whether records were dropped, and the syncwarps that left lanes out."""
        logged = self.log.logged
        params = self.compiled.program.params
        initial = {k: self.before[name].ravel() for k, name in enumerate(params[:MAX_PARAM_IDS])
                   if name in self.before and not (logged >> k) & 1}  # fmt: skip
        initial |= {aid: array.ravel() for aid, (_, array) in self.compiled.sites.constants.items()}
        sites = np.array(self.compiled.sites.site_table(), np.int64)
        records, truncated = self.log.records(start_units, warp_of_thread)
        partial = partial_syncwarps(records["syncwarps"], self.config.threads_per_block)
        return accesses_of(records, self.remap, sites, initial), truncated, partial

    def _array_table(self):
        """Trace array entries, and a map from the kernel's static array ids to their positions."""
        entries, remap = [], np.full(MAX_ARRAY_IDS, -1, np.int64)
        for k, (name, value) in enumerate(zip(self.compiled.program.params, self.args)):
            shape = getattr(value, "shape", None)
            if shape is not None and hasattr(value, "dtype") and k < MAX_PARAM_IDS:
                remap[k] = len(entries)
                entries.append({"name": name, "space": "global", "dtype": dtype_text(value.dtype),
                                "shape": list(shape)})  # fmt: skip
        for site in self.compiled.sites.sites:
            shape, dtype = self.compiled.sites.describe(site, self.config.shared_bytes, self.config.threads_per_block)
            remap[site.aid] = len(entries)
            if shape is None or not int(np.prod(shape)):  # sized after the launch, by its accesses
                self.unsized.append(len(entries))
            entries.append({"name": site.name, "space": "shared", "dtype": dtype, "shape": list(shape or (0,))})
        for aid, (name, array) in self.compiled.sites.constants.items():
            remap[aid] = len(entries)
            entries.append({"name": name, "space": "const", "dtype": dtype_text(array.dtype),
                            "shape": list(array.shape)})  # fmt: skip
        return entries, remap


def _unstored_starts(unstored: np.ndarray) -> list[str]:
    if not unstored.any():
        return []
    blocks = np.flatnonzero(unstored)
    return [f"{len(blocks)} block(s) (the first: block {int(blocks[0])}) recorded no start and no SM: their "
            f"thread 0 left the kernel without returning (numba turns a raise or a failed assert in a kernel into "
            f"a silent return); their bars begin at their first recorded time, and they are shown on SM 0"]  # fmt: skip


def sized_by_accesses(entries: list[dict], unsized: list[int], accesses: dict | None) -> list[str]:
    """Give each shared array whose shape the host could not tell (a shape from the kernel's locals,
    or dynamic shared memory with no bytes given) the flat extent its recorded accesses reach, so the
    trace saves and loads; one warning line each says so."""
    warnings = []
    for position in unsized:
        entry = entries[position]
        mine = accesses["index"][accesses["array"] == position] if accesses is not None else np.zeros(0, np.int64)
        extent = int(mine.max()) + 1 if len(mine) else 0
        entry["shape"] = [extent]
        warnings.append(f"shared array {entry['name']}: its shape is not known before the launch; shown flat, "
                        f"as the {extent:,} element(s) its recorded accesses reach")  # fmt: skip
    return warnings


def _check_element_range(entries: list[dict]) -> None:
    """The log keeps an element as 32 bits: refuse, in one line, arrays too big for it."""
    for entry in entries:
        size = int(np.prod(entry["shape"], dtype=np.float64))
        if size > 0xFFFFFFFF:
            raise GpuvizError(f"array {entry['name']} has {size:,} elements; level accesses on the GPU logs arrays "
                              f"of up to 4,294,967,295 elements (use level threads)")  # fmt: skip


def _kind(dtype: str) -> str:
    try:
        return np.dtype(dtype).kind
    except TypeError:  # a shared array whose dtype is not known here
        return "V"


def _fits_float32(dtype: str) -> bool:
    """Whether float32 holds every value of an array of this dtype exactly."""
    try:
        kind = np.dtype(dtype)
    except TypeError:  # a shared array whose dtype is not known here
        return False
    return kind == np.float32 or kind == np.float16 or (kind.kind in "biu" and kind.itemsize <= 2)


def _sharing_memory(params: list[str], args: tuple) -> set[str]:
    """The device-array arguments whose memory overlaps another argument's (NumPy arguments get
    copies of their own)."""
    spans = []
    for name, value in zip(params, args):
        interface = getattr(value, "__cuda_array_interface__", None)
        if interface is not None and not isinstance(value, np.ndarray):
            start = interface["data"][0]
            spans.append((name, start, start + value.size * value.dtype.itemsize))
    shared = set()
    for i, (a, a0, a1) in enumerate(spans):
        for b, b0, b1 in spans[i + 1 :]:
            if a0 < b1 and b0 < a1:
                shared |= {a, b}
    return shared


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _compile_error(exc: Exception, program: Program) -> KernelSourceError:
    """numba's error, cut to one line that names the user's line (numba-cuda 0.30 often loses it)."""
    text = _ANSI.sub("", str(exc))
    line = _error_line(exc, text, program)
    lines = [t.strip() for t in text.splitlines() if t.strip()]
    skip = ("Failed in", "During:", "File ", "Enable logging", "- Resolution", "There are", "- Of which")
    kept = [t for t in lines if not t.startswith(skip) and not t.startswith(("^", ">>>"))]
    first = kept[0] if kept else type(exc).__name__
    call = next((t[3:].strip() for t in lines if t.startswith(">>>")), None)
    if first.startswith("No implementation of function") and call:
        first = f"no implementation of {call}"
    where = f", line {line}" if line else ""
    error = KernelSourceError(f"{program.name}{where}: {first} (numba cannot compile it for the GPU)", line)
    error.details = text
    return error


def _error_line(exc: Exception, text: str, program: Program) -> int | None:
    """The last line numba names in one of the user's files (its own `loc` is often lost)."""
    files = {f.code.co_filename for f in program.functions}
    found = [(path, int(n)) for path, n in re.findall(r'File "([^"]*)", line (\d+)', text)]
    found += [(path, int(n)) for path, n in re.findall(r"at (\S+) \((\d+)\)", text)]
    in_user_files = [n for path, n in found if path in files]
    if in_user_files:
        return in_user_files[-1]
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "filename", None) in files:
        return int(loc.line)
    return _line_of_named_thing(text, program)


# What numba's messages name, and the syntax that names it in the user's code.
_NAMED = [
    (re.compile(r">>> (\w+)\("), lambda node, name: isinstance(node, ast.Call) and _callee(node) == name),
    (re.compile(r"[Uu]nknown attribute '(\w+)'"),
     lambda node, name: isinstance(node, ast.Attribute) and node.attr == name),
    (re.compile(r"[Uu]ntyped global name '(\w+)'"), lambda node, name: isinstance(node, ast.Name) and node.id == name),
]  # fmt: skip


def _line_of_named_thing(text: str, program: Program) -> int | None:
    """numba-cuda 0.30 drops the location of many typing errors (its type inference catches another
    TypingError class than overload resolution raises); find the line from what the message names."""
    for pattern, matches in _NAMED:
        found = pattern.search(text)
        if not found:
            continue
        for function in program.functions:
            lines = [n.lineno for n in ast.walk(function.source.node) if matches(n, found.group(1))]
            if lines:
                return min(lines)
    return None


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
