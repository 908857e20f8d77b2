"""The simulator backend: runs an instrumented kernel on the CPU and returns its trace."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from gpuviz.backends.sim.device import DEFAULT_DEVICE, PRESETS, VirtualDevice, preset
from gpuviz.backends.sim.fast import compile_times
from gpuviz.backends.sim.fast.engine import (
    FastDeclined,
    FastNotCompiled,
    fast_state,
    forget_fast,
    remember_declined,
    run_fast,
)
from gpuviz.backends.sim.launch_limits import check_launch, check_read_only, writable
from gpuviz.backends.sim.recording import Recording, global_arrays, run_reference, run_vector
from gpuviz.backends.sim.stream_clock import StreamClock
from gpuviz.backends.sim.vector.memory import LaneFault, block_mask
from gpuviz.core.block_size import potential_block_size
from gpuviz.core.copies import implicit_copies
from gpuviz.core.errors import EngineError, GpuvizError, KernelError, KernelSourceError, LaunchError
from gpuviz.core.events import Notify, Progress, ignore
from gpuviz.core.launch import LaunchConfig, check_argument_count, check_cooperative_fits
from gpuviz.core.options import AUTO_ACCESS_LIMIT, AUTO_BLOCKS, RunOptions
from gpuviz.core.progress import time_left
from gpuviz.core.thread_record import named_blocks
from gpuviz.core.trace.columns import thread_layout
from gpuviz.core.trace.model import Trace, new_trace
from gpuviz.instrument.arguments import check_arguments
from gpuviz.instrument.gpu_rewrite import cache_dir
from gpuviz.instrument.reference_rewrite import build_reference_program
from gpuviz.instrument.rewrite import Program
from gpuviz.instrument.shared_memory import MAX_STATIC_SHARED, shared_bytes
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded, VectorUnsupported, build_vector_program

_programs: dict[object, Program] = {}
_vector_programs: dict[object, Program | VectorUnsupported] = {}
TIME_SOURCES = {"fast": "cost-model", "vector": "cost-model", "reference": "scheduler-steps"}


def program_for(py_func) -> Program:
    """The rewritten kernel, compiled once per Python function."""
    program = _programs.get(py_func)
    if program is None:
        program = _programs[py_func] = build_reference_program(py_func)
    return program


def vector_program_for(py_func) -> Program:
    """The kernel in the vector flavour, compiled once; VectorUnsupported (remembered) if it cannot be."""
    program = _vector_programs.get(py_func)
    if program is None:
        try:
            program = build_vector_program(py_func)
        except VectorUnsupported as exc:
            program = exc
        except KernelSourceError as exc:  # the reference rewrite words the kernel's own errors
            program = VectorUnsupported(f"{type(exc).__name__}: {exc}")
        _vector_programs[py_func] = program
    if isinstance(program, VectorUnsupported):
        raise program
    return program


class SimBackend:
    name = "sim"

    def unavailable_reason(self) -> str | None:
        return None  # the simulator runs wherever Python runs

    def device_facts(self, options: RunOptions) -> dict:
        return self.device(options).describe()

    def new_timeline(self) -> StreamClock:
        return StreamClock()

    def presets(self) -> dict[str, dict]:
        """Every device the simulator imitates, the default first."""
        names = [DEFAULT_DEVICE, *(name for name in PRESETS if name != DEFAULT_DEVICE)]
        return {name: PRESETS[name].describe() for name in names}

    def device(self, options: RunOptions) -> VirtualDevice:
        device = preset(options.device)
        return replace(device, sm_count=options.sms) if options.sms else device

    def suggested_block_size(self, py_func, args: tuple, options: RunOptions, shared_bytes_: int = 0) -> int:
        """The driver's occupancy calculator on this device's limits. The simulator compiles nothing, so
        registers are taken not to limit (a short kernel needs far fewer than 32 a thread)."""
        program = program_for(py_func)
        shared = shared_bytes(program) + shared_bytes_
        return potential_block_size(self.device_facts(options), registers=None, shared_bytes=shared)

    def run(self, py_func, config: LaunchConfig, args: tuple, options: RunOptions, notify: Notify = ignore) -> Trace:
        program = program_for(py_func)
        device = self.device(options)
        config.validate(device.max_threads_per_block)
        params = program.params
        check_argument_count(program.name, params, args)
        check_arguments(program, args)
        if program.cooperative:
            _check_cooperative(program.name, config, device, options)
        check_launch(program.name, config, shared_bytes(program), device, options)
        if options.stop_stuck:
            _refuse_endless(program)
        host_args, write_back = _host_arguments(args)
        host_args, read_only = writable(params, host_args)
        # Record arrays (the RNG states) have no numbers to show: no before/after snapshots for them.
        before = {n: np.array(v) for n, v in zip(params, host_args) if isinstance(v, np.ndarray) and not v.dtype.names}
        engine, note = _engine_for(py_func, program, config, options)
        level, options, auto_blocks = _level_for(config, options, engine)
        gc_was_enabled = gc.isenabled()
        gc.disable()  # millions of short-lived objects: collection passes only cost time
        try:
            with np.errstate(all="ignore"):
                if engine == "vector":
                    try:
                        launch = _Launch(py_func, program, config, params, host_args, device, options, level,
                                         notify, before)  # fmt: skip
                        recording, engine, note = launch.on_vector_engines()
                    except ReferenceEngineNeeded as exc:  # a named reason; anything else is a bug
                        _restore(params, host_args, before)
                        engine, note = "reference", f"vector engine stopped: {fallback_reason(exc)}"
                        level, auto_blocks = options.level_for(config.threads), ""  # it keeps no blocks' only
                    except (GpuvizError, MemoryError):
                        raise  # the kernel's own errors and the budget's, worded already
                    except Exception as exc:
                        raise EngineError(
                            f"{program.name}: the vector engine failed ({type(exc).__name__}: {exc}); "
                            "this is a bug in gpuviz: engine='reference' runs the launch"
                        ) from exc
                if engine == "reference":
                    recording = run_reference(program, config, params, host_args, device, options, level, notify)
        finally:
            if gc_was_enabled:
                gc.enable()
        check_read_only(program.name, read_only)
        for write in write_back:
            write()
        trace = _trace(program, config, params, host_args, before, recording, device, options, level)
        trace.meta["host_copies"] = implicit_copies(params, args)  # the script's arguments, as numba would copy them
        if recording.local_types is not None:
            trace.meta["local_types"] = recording.local_types
        trace.meta["engine"] = engine
        trace.meta["engine_note"] = note
        trace.meta["time_source"] = TIME_SOURCES[engine]  # known only now: the engine may have fallen back
        trace.meta["recorded_blocks"] = recording.recorded_blocks  # None: every block's accesses (up to the cap)
        trace.meta["blocks_ran"] = recording.blocks_ran if engine != "reference" else "one at a time"
        if auto_blocks:
            trace.meta["warnings"].append(auto_blocks)
        return trace


def _refuse_endless(program) -> None:
    """A loop that can never end would hang the run (and a GPU until the process is killed): said first."""
    endless = program.endless_loops()
    if endless:
        function, line = endless[0]
        raise KernelError(
            f"{program.name}: never ends: the loop on line {line} (in {function}) has a test that is "
            "always true and no break, return or raise; on a GPU it would run until the process is "
            "killed (`gpuviz run --timeout N` runs it all the same and stops it after N seconds)"
        )


@dataclass
class _Launch:
    """A launch the vector engine can run, and the engines that may run it in turn."""

    py_func: object
    program: Program
    config: LaunchConfig
    params: list[str]
    host_args: tuple
    device: VirtualDevice
    options: RunOptions
    level: str
    notify: Notify
    before: dict

    def on_vector_engines(self) -> tuple[Recording, str, str]:
        """(recording, engine, note): on the fast path first where asked (engine `fast`), or where it is
        compiled already (`auto`); else on the vector engine, which under `auto` hands a grouped run (blocks
        that share no memory) projected to be long to the fast path, where the fast path can take the kernel.
        A launch the fast path declines runs on the vector engine to its end."""
        engine = self.options.engine
        fast = fast_state(self.py_func, self.params, self.host_args) if engine == "auto" else ""
        if engine == "fast" or fast == "on disk":
            try:
                recording, ran, note = self.fast(may_compile=engine == "fast")
            except FastNotCompiled:  # on disk for other argument types only: as if it were not
                self.restore()
            else:
                return self.fast_or_vector(recording, ran, note)
        if not fast:  # not auto, or a kernel the fast path declines by declaration: nothing to hand over
            return self.vector(), "vector", ""
        watch = _SlowVectorRun(self.notify, compile_times.expected(cache_dir() / "fast"))
        try:
            return self.vector(watch), "vector", ""
        except _SwitchToFast:
            self.restore()
        recording, ran, note = self.fast_or_vector(*self.fast(may_compile=True))
        return recording, ran, watch.reason if ran == "fast" else note

    def fast_or_vector(self, recording: Recording | None, ran: str, note: str) -> tuple[Recording, str, str]:
        """The fast path's run where it stood, else the vector engine's; under `auto` a decline is kept, so
        that the kernel is not tried again (a decline such as lanes parting in a loop comes back)."""
        if ran == "fast":
            return recording, ran, note
        if self.options.engine == "auto":
            remember_declined(self.py_func, self.params, self.host_args, note)
        return self.vector(), "vector", note

    def vector(self, grouped_notify: Notify | None = None) -> Recording:
        return run_vector(vector_program_for(self.py_func), self.config, self.params, self.host_args, self.device,
                          self.options, self.level, self.notify, grouped_notify)  # fmt: skip

    def fast(self, may_compile: bool) -> tuple[Recording | None, str, str]:
        return _try_fast(self.py_func, self.program, self.config, self.params, self.host_args, self.device,
                         self.options, self.level, self.notify, self.restore, may_compile)  # fmt: skip

    def restore(self) -> None:
        _restore(self.params, self.host_args, self.before)


def _try_fast(py_func, program, config, params, host_args, device, options, level, notify, restore,
              may_compile: bool = True) -> tuple[Recording | None, str, str]:  # fmt: skip
    """The launch on the compiled fast path: (its recording, "fast", ""), or (None, "vector", why not) with the
    arguments as they were given, for the vector engine. FastNotCompiled passes through (may_compile False)."""
    arrays = global_arrays(params, host_args, program)
    try:
        run = run_fast(py_func, program, config, params, host_args, device, options, level, arrays, restore, notify,
                       may_compile)  # fmt: skip
    except FastNotCompiled:
        raise
    except FastDeclined as exc:
        restore()
        return None, "vector", str(exc)
    except (GpuvizError, MemoryError):
        raise
    except Exception as exc:  # numba's typing refused it, or the kernel raised: the vector engine words it
        restore()
        if type(exc).__module__.startswith("numba"):  # it would refuse it again: not tried again in this process
            forget_fast(py_func, f"numba could not compile it ({type(exc).__name__})")
        return None, "vector", f"the fast path stopped: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    recording = Recording(run.arrays, run.accesses, False, run.schedule, run.seconds, run.recorded_blocks,
                          blocks_ran="independent", warp_sync_divergence=0, local_types=run.local_types,
                          requests=run.requests)  # fmt: skip
    return recording, "fast", "compiled now" if run.compiled else ""


class _SwitchToFast(Exception):
    """The vector engine's run would take long enough that compiling the fast path pays."""


# Until this machine has compiled a kernel for the fast path: typing and compiling a tiled matmul took 7.9-9.5 s
# on the project's 2-core machine (docs/performance.md); the measured median replaces it after the first.
UNMEASURED_COMPILE_SECONDS = 10.0


class _SlowVectorRun:
    """The vector engine's progress, passed on; once the rest of the run is projected (from the blocks done
    so far, as the window's time left is: core/progress.py) to take more than twice a compile of the fast
    path, the run stops for the fast path, which on the bench kernels runs a launch 0.8-3.9 times as fast as
    the vector engine (docs/performance.md): compiling and running it then usually ends first, and the next
    launch of the kernel finds it on disk."""

    def __init__(self, notify: Notify, compile_seconds: float | None, clock: Callable[[], float] = time.perf_counter):
        self.notify, self.clock = notify, clock
        self.started = clock()
        self.compile_seconds = compile_seconds or UNMEASURED_COMPILE_SECONDS
        self.reason = ""  # why the run stopped, for the launch line

    def __call__(self, event) -> None:
        self.notify(event)
        if isinstance(event, Progress):
            elapsed = self.clock() - self.started
            rest = time_left(event.done, event.total, 0, elapsed)
            if rest is not None and rest > 2 * self.compile_seconds:
                self.reason = (f"the vector engine's run was projected at {elapsed + rest:.0f} s: compiled for "
                               f"the fast path (about {self.compile_seconds:.0f} s here, once)")  # fmt: skip
                raise _SwitchToFast


def _level_for(config: LaunchConfig, options: RunOptions, engine: str) -> tuple[str, RunOptions, str]:
    """The level to record at, the options to record with, and a warning when `auto` kept the accesses
    of a few blocks only: above AUTO_ACCESS_LIMIT threads every access would rarely fit, so the vector
    engine records every thread and the first and last blocks' accesses (the reference engine, which
    cannot pick blocks, records threads only)."""
    level = options.level_for(config.threads)
    if options.level != "auto" or level == "accesses" or engine != "vector":
        return level, options, ""
    blocks = options.blocks or AUTO_BLOCKS
    kept = np.flatnonzero(block_mask(blocks, config.blocks)).tolist()  # the blocks the log will keep
    warning = (f"accesses recorded for {named_blocks(kept)} only: level auto keeps every "
               f"access up to {AUTO_ACCESS_LIMIT:,} threads; threads are all recorded; --level accesses keeps "
               "every access the memory budget holds, --blocks chooses the blocks")  # fmt: skip
    return "accesses", options.with_(blocks=blocks), warning


def fallback_reason(exc: ReferenceEngineNeeded) -> str:
    if isinstance(exc, (LaneFault, ZeroDivisionError)):
        return "a thread faulted; the reference engine reports where"
    return str(exc)


def _engine_for(py_func, program: Program, config: LaunchConfig, options: RunOptions) -> tuple[str, str]:
    if options.engine == "reference":
        return "reference", "chosen"
    if options.schedule != "gpu":
        return "reference", f"the {options.schedule} schedule runs one thread at a time"
    if program.cooperative:
        return "reference", "a grid sync runs on the reference engine"
    if config.shared_bytes:
        return "reference", "dynamic shared memory runs on the reference engine"
    if program.unrecorded:  # each says what no hook sees: a module array's read, an access through a view
        return "reference", f"the reference engine runs it: {program.unrecorded[0]}"
    if shared_bytes(program) > MAX_STATIC_SHARED:
        return "reference", "over the static shared-memory limit: the reference engine words the refusal"
    try:
        vector_program_for(py_func)
    except VectorUnsupported as exc:
        return "reference", f"the vector engine cannot run {exc}"
    return "vector", ""


def _check_cooperative(name: str, config: LaunchConfig, device, options: RunOptions) -> None:
    """A grid-wide barrier needs every block resident at once, as a cooperative launch does."""
    check_cooperative_fits(name, config, device.blocks_per_sm(config.threads_per_block) * device.sm_count)
    if options.schedule != "gpu":
        raise LaunchError(f"{name} syncs the whole grid, which needs every block running at once: use schedule gpu")


def _restore(params, host_args, before) -> None:
    """Undo what a stopped vector run wrote, so the reference engine starts from the same inputs."""
    for name, value in zip(params, host_args):
        if name in before:
            np.copyto(value, before[name])


def _host_arguments(args: tuple) -> tuple[tuple, list]:
    """Device arrays of a real GPU library become host copies that are written back afterwards."""
    host, write_back = [], []
    for value in args:
        if not isinstance(value, np.ndarray) and hasattr(value, "__cuda_array_interface__"):
            copy = _to_host(value)
            host.append(copy)
            write_back.append(lambda value=value, copy=copy: _copy_back(value, copy))
        else:
            host.append(value)
    return tuple(host), write_back


def _to_host(value) -> np.ndarray:
    if hasattr(value, "copy_to_host"):
        return value.copy_to_host()
    return np.asarray(value.get())


def _copy_back(device_array, host: np.ndarray) -> None:
    if hasattr(device_array, "copy_to_device"):
        device_array.copy_to_device(host)
    else:
        device_array.set(host)


def _trace(program, config, params, host_args, before, recording: Recording, device, options, level) -> Trace:
    block_idx, thread_idx, warp, lane = thread_layout(config.grid, config.block, device.warp_size)
    schedule = recording.schedule
    threads = {
        "block_idx": block_idx,
        "thread_idx": thread_idx,
        "warp": warp,
        "lane": lane,
        "sm": np.repeat(schedule.block_sm, config.threads_per_block).astype(np.int32),
        "t_start": schedule.t_start,
        "t_end": schedule.t_end,
    }
    after = {n: np.array(v) for n, v in zip(params, host_args) if n in before}
    errors, syncs = recording.errors, recording.partial_syncs
    return new_trace(
        source=program.kernel.source, config=config, backend="sim", device_facts=device.describe(),
        time_unit="tick", param_names=params, values=host_args,
        snapshots={n: (before[n], after[n]) for n in before}, arrays=recording.arrays.entries, threads=threads,
        accesses=recording.accesses, level=level, schedule=options.schedule, seed=options.seed,
        truncated=recording.truncated, warnings=schedule.warnings, seconds=recording.seconds,
        errors=errors.errors, error_count=errors.count, printed=errors.printed, unrecorded=program.unrecorded,
        modelled=program.modelled, partial_syncwarps=syncs if None not in syncs else "too many",
        warp_sync_divergence=recording.warp_sync_divergence, requests=recording.requests,
    )  # fmt: skip
