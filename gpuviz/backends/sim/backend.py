"""The simulator backend: runs an instrumented kernel on the CPU and returns its trace."""

from __future__ import annotations

import gc
import time
from dataclasses import replace

import numpy as np

from gpuviz.backends.sim.device import VirtualDevice, preset
from gpuviz.backends.sim.engine import MAX_WARNINGS, Executor
from gpuviz.backends.sim.memory import AccessLog, ArrayTable, make_hooks
from gpuviz.backends.sim.simt_engine import VectorExecutor
from gpuviz.backends.sim.simt_hooks import vector_hooks
from gpuviz.backends.sim.simt_memory import LaneFault, VectorLog, VectorMemory
from gpuviz.core.budget import format_bytes
from gpuviz.core.events import Notify, ignore
from gpuviz.core.launch import LaunchConfig, check_argument_count
from gpuviz.core.options import RunOptions
from gpuviz.core.trace import Trace, new_trace, thread_layout
from gpuviz.instrument.rewrite import Program, build_program
from gpuviz.instrument.shared_memory import shared_bytes
from gpuviz.instrument.vector_rewrite import VectorUnsupported, build_vector_program

_programs: dict[object, Program] = {}
_vector_programs: dict[object, Program | VectorUnsupported] = {}
TIME_SOURCES = {"vector": "cost-model", "reference": "scheduler-steps"}
# What a recording holds, for the memory budget: an event while recording (its lanes' indices and
# values, ~17 bytes) and in the trace's columns (39 bytes with its time); a thread's columns (52 bytes).
BYTES_PER_EVENT = 17 + 39
BYTES_PER_THREAD = 52


def program_for(py_func) -> Program:
    """The rewritten kernel, compiled once per Python function."""
    program = _programs.get(py_func)
    if program is None:
        program = _programs[py_func] = build_program(py_func)
    return program


def vector_program_for(py_func) -> Program:
    """The kernel in the vector flavour, compiled once; VectorUnsupported (remembered) if it cannot be."""
    program = _vector_programs.get(py_func)
    if program is None:
        try:
            program = build_vector_program(py_func)
        except VectorUnsupported as exc:
            program = exc
        except Exception as exc:  # noqa: BLE001 - the reference rewrite words the kernel's own errors
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

    def device(self, options: RunOptions) -> VirtualDevice:
        device = preset(options.device)
        return replace(device, sm_count=options.sms) if options.sms else device

    def run(self, py_func, config: LaunchConfig, args: tuple, options: RunOptions, notify: Notify = ignore) -> Trace:
        program = program_for(py_func)
        device = self.device(options)
        config.validate(device.max_threads_per_block)
        params = program.params
        check_argument_count(program.name, params, args)
        host_args, write_back = _host_arguments(args)
        before = {n: np.array(v) for n, v in zip(params, host_args) if isinstance(v, np.ndarray)}
        level = options.level_for(config.threads)
        engine, note = _engine_for(py_func, options)
        gc_was_enabled = gc.isenabled()
        gc.disable()  # millions of short-lived objects: collection passes only cost time
        try:
            with np.errstate(all="ignore"):
                if engine == "vector":
                    try:
                        result = _run_vector(py_func, config, params, host_args, device, options, level, notify)
                    except Exception as exc:  # noqa: BLE001 - anything it cannot run goes to the reference engine
                        _restore(params, host_args, before)
                        engine, note = "reference", f"vector engine stopped: {fallback_reason(exc)}"
                if engine == "reference":
                    result = _run_reference(program, config, params, host_args, device, options, level)
        finally:
            if gc_was_enabled:
                gc.enable()
        for write in write_back:
            write()
        arrays, accesses, truncated, schedule, seconds, recorded = result
        trace = _trace(program, config, params, args, host_args, before, arrays, accesses, truncated, schedule,
                       device, options, level, seconds)  # fmt: skip
        trace.meta["engine"] = engine
        trace.meta["engine_note"] = note
        trace.meta["time_source"] = TIME_SOURCES[engine]  # known only now: the engine may have fallen back
        trace.meta["recorded_blocks"] = recorded  # None: every block's accesses (up to the cap)
        return trace


def fallback_reason(exc: Exception) -> str:
    if isinstance(exc, VectorUnsupported):
        return str(exc)
    if isinstance(exc, (LaneFault, ZeroDivisionError)):
        return "a thread faulted; the reference engine reports where"
    return f"{type(exc).__name__}: {exc}"


def _engine_for(py_func, options: RunOptions) -> tuple[str, str]:
    if options.engine == "reference":
        return "reference", "chosen"
    if options.schedule != "gpu":
        return "reference", f"the {options.schedule} schedule runs one thread at a time"
    try:
        vector_program_for(py_func)
    except VectorUnsupported as exc:
        return "reference", f"the vector engine cannot run {exc}"
    return "vector", ""


def _run_vector(py_func, config, params, host_args, device, options, level, notify):
    program = vector_program_for(py_func)
    arrays = _global_arrays(params, host_args)
    log = None
    if level == "accesses":
        log = VectorLog(_event_cap(options, config, host_args), timed=True, blocks=options.blocks,
                        n_blocks=config.blocks, per_block=config.threads_per_block)  # fmt: skip
    memory = VectorMemory(arrays, log, config.grid, config.block)
    warnings: list[str] = []
    fn = program.bind(vector_hooks(memory, warnings, config.grid, config.block))
    executor = VectorExecutor(fn, host_args, config, device, memory, notify, shared_bytes(program))
    started = time.perf_counter()
    schedule = executor.run(options.seed)
    schedule.warnings = warnings[:MAX_WARNINGS]
    seconds = time.perf_counter() - started
    accesses = log.columns() if log is not None else None
    if log is not None and log.narrowed:
        schedule.warnings.append(f"accesses recorded for the first and last block only: every access would not fit the "
                                 f"memory budget ({format_bytes(options.memory_budget)}); threads are all recorded; "
                                 "--blocks chooses others")  # fmt: skip
    if log is not None and log.truncated:
        schedule.warnings.append(f"access log capped at {log.cap:,} events by the access cap and the memory budget "
                                 f"({format_bytes(options.memory_budget)}); threads are all recorded")  # fmt: skip
    recorded = log.recorded_blocks() if log is not None else None
    return arrays, accesses, bool(log.truncated) if log else False, schedule, seconds, recorded


def _event_cap(options: RunOptions, config: LaunchConfig, host_args: tuple) -> int:
    """Events the log may hold: the event cap, and what the memory budget leaves after the threads'
    columns and the arrays (the launch's own, and their before/after snapshots), at an event's bytes."""
    snapshots = sum(3 * a.nbytes for a in host_args if isinstance(a, np.ndarray))
    left = options.memory_budget - config.threads * BYTES_PER_THREAD - snapshots
    return max(0, min(options.access_cap, left // BYTES_PER_EVENT))


def _run_reference(program, config, params, host_args, device, options, level):
    arrays = _global_arrays(params, host_args)
    log = AccessLog(options.access_cap) if level == "accesses" else None
    fn = program.bind(make_hooks(arrays, log, config.grid, config.block))
    filenames = {f.source.filename for f in program.functions}
    executor = Executor(fn, host_args, config, device, program.name, filenames,
                        on_block_retired=lambda block: _free_shared(block, arrays),
                        on_cycle=log.maybe_flush if log is not None else None,
                        shared_bytes=shared_bytes(program))  # fmt: skip
    started = time.perf_counter()
    schedule = executor.run(options.schedule, options.seed)
    seconds = time.perf_counter() - started
    accesses = log.columns() if log is not None else None  # flushes, settling `truncated`
    return arrays, accesses, bool(log.truncated) if log else False, schedule, seconds, None


def _global_arrays(params, host_args) -> ArrayTable:
    arrays = ArrayTable()
    for name, value in zip(params, host_args):
        if isinstance(value, np.ndarray):
            arrays.add_global(name, value)
    return arrays


def _restore(params, host_args, before) -> None:
    """Undo what a stopped vector run wrote, so the reference engine starts from the same inputs."""
    for name, value in zip(params, host_args):
        if name in before:
            np.copyto(value, before[name])


def _free_shared(block, arrays: ArrayTable) -> None:
    for array in block.shared.values():
        arrays.unbind(array)


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


def _trace(program, config, params, args, host_args, before, arrays, accesses, truncated, schedule, device,
           options, level, seconds) -> Trace:  # fmt: skip
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
    after = {n: np.array(v) for n, v in zip(params, host_args) if isinstance(v, np.ndarray)}
    return new_trace(
        source=program.kernel.source, config=config, backend="sim", device_facts=device.describe(),
        time_unit="tick", param_names=params, values=host_args,
        snapshots={n: (before[n], after[n]) for n in before}, arrays=arrays.entries, threads=threads,
        accesses=accesses, level=level, schedule=options.schedule, seed=options.seed,
        truncated=truncated, warnings=schedule.warnings, seconds=seconds,
    )  # fmt: skip
