"""The simulator backend: runs an instrumented kernel on the CPU and returns its trace."""

from __future__ import annotations

import gc
import time

import numpy as np

from gpuviz.backends.sim.device import VirtualDevice
from gpuviz.backends.sim.engine import Executor
from gpuviz.backends.sim.faults import ErrorLog
from gpuviz.backends.sim.memory import AccessLog, ArrayTable, make_hooks
from gpuviz.core.errors import LaunchError
from gpuviz.core.events import Notify, ignore
from gpuviz.core.launch import LaunchConfig, check_argument_count
from gpuviz.core.options import RunOptions
from gpuviz.core.trace import Trace, new_trace, thread_layout
from gpuviz.instrument.arguments import check_arguments
from gpuviz.instrument.rewrite import Program, build_program

_programs: dict[object, Program] = {}
MAX_PARTIAL_SYNCS = 20_000  # syncwarps of part of a warp kept for the race analysis


def program_for(py_func) -> Program:
    """The rewritten kernel, compiled once per Python function."""
    program = _programs.get(py_func)
    if program is None:
        program = _programs[py_func] = build_program(py_func)
    return program


class SimBackend:
    name = "sim"

    def unavailable_reason(self) -> str | None:
        return None  # the simulator runs wherever Python runs

    def device_facts(self, options: RunOptions) -> dict:
        return self.device(options).describe()

    def device(self, options: RunOptions) -> VirtualDevice:
        return VirtualDevice(sm_count=options.sms) if options.sms else VirtualDevice()

    def run(self, py_func, config: LaunchConfig, args: tuple, options: RunOptions, notify: Notify = ignore) -> Trace:
        program = program_for(py_func)
        device = self.device(options)
        config.validate(device.max_threads_per_block)
        params = program.params
        check_argument_count(program.name, params, args)
        check_arguments(program, args)
        if program.cooperative:
            _check_cooperative(program.name, config, device, options)
        host_args, write_back = _host_arguments(args)
        arrays = ArrayTable()
        for name, value in zip(params, host_args):
            if isinstance(value, np.ndarray):
                arrays.add_global(name, value)
        for function in program.functions:
            for name, array in function.global_arrays.items():
                arrays.add_const(name, array)
        # Record arrays (the RNG states) have no numbers to show: no before/after snapshots for them.
        before = {n: np.array(v) for n, v in zip(params, host_args) if isinstance(v, np.ndarray) and not v.dtype.names}
        level = options.level_for(config.threads)
        log = AccessLog(options.access_cap) if level == "accesses" else None
        errors = ErrorLog()
        partial_syncs: list = []
        fn = program.bind(make_hooks(arrays, log, config.grid, config.block, config.shared_bytes, errors))
        filenames = {f.source.filename for f in program.functions}
        executor = Executor(fn, host_args, config, device, program.name, filenames,
                            on_block_retired=lambda block: _retired(block, arrays, partial_syncs),
                            on_cycle=log.maybe_flush if log is not None else None, errors=errors)  # fmt: skip
        started = time.perf_counter()
        gc_was_enabled = gc.isenabled()
        gc.disable()  # millions of short-lived generators: collection passes only cost time
        try:
            with np.errstate(all="ignore"):
                schedule = executor.run(options.schedule, options.seed)
        finally:
            if gc_was_enabled:
                gc.enable()
        seconds = time.perf_counter() - started
        for write in write_back:
            write()
        return _trace(program, config, params, args, host_args, before, arrays, log, schedule,
                      device, options, level, seconds, errors, partial_syncs)  # fmt: skip


def _check_cooperative(name: str, config: LaunchConfig, device, options: RunOptions) -> None:
    """A grid-wide barrier needs every block resident at once, as a cooperative launch does."""
    fits = device.blocks_per_sm(config.threads_per_block) * device.sm_count
    if config.blocks > fits:
        raise LaunchError(
            f"{name}: [720] Call to cuLaunchCooperativeKernel results in CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE "
            f"({config.blocks:,} blocks, but only {fits:,} of {config.threads_per_block} threads can be "
            f"co-resident; see {name}.max_cooperative_grid_blocks)"
        )
    if options.schedule != "gpu":
        raise LaunchError(f"{name} syncs the whole grid, which needs every block running at once: use schedule gpu")


def _retired(block, arrays: ArrayTable, partial_syncs: list) -> None:
    for array in block.shared.values():
        arrays.unbind(array)
    if len(partial_syncs) < MAX_PARTIAL_SYNCS:
        partial_syncs.extend(block.partial_syncs)
    elif block.partial_syncs:
        partial_syncs.append(None)  # too many to keep: the analysis then trusts no warp epoch


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


def _trace(program, config, params, args, host_args, before, arrays, log, schedule, device,
           options, level, seconds, errors: ErrorLog, partial_syncs: list) -> Trace:  # fmt: skip
    block_idx, thread_idx, warp, lane = thread_layout(config.grid, config.block, device.warp_size)
    threads = {
        "block_idx": block_idx,
        "thread_idx": thread_idx,
        "warp": warp,
        "lane": lane,
        "sm": np.repeat(schedule.block_sm, config.threads_per_block).astype(np.int32),
        "t_start": schedule.t_start,
        "t_end": schedule.t_end,
    }
    accesses = log.columns() if log is not None else None  # flushes, settling `truncated`
    after = {n: np.array(v) for n, v in zip(params, host_args) if n in before}
    return new_trace(
        source=program.kernel.source, config=config, backend="sim", device_facts=device.describe(),
        time_unit="tick", param_names=params, values=host_args,
        snapshots={n: (before[n], after[n]) for n in before}, arrays=arrays.entries, threads=threads,
        accesses=accesses, level=level, schedule=options.schedule, seed=options.seed,
        truncated=bool(log.truncated) if log else False, warnings=schedule.warnings, seconds=seconds,
        errors=errors.errors, error_count=errors.count, printed=errors.printed, unrecorded=program.unrecorded,
        partial_syncwarps=partial_syncs if None not in partial_syncs else "too many",
    )  # fmt: skip
