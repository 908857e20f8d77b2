"""The two engines' runs of one launch, each ending in a Recording the backend turns into a trace.

The vector engine (masked SIMT, timed by the cost model) is the default; the generator engine is the
reference, for what the vector one cannot run, for the `sequential` schedule and for memory errors
(a fault stops the vector run, and the reference engine reports where, without stopping the launch).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from gpuviz.backends.sim.faults import ErrorLog
from gpuviz.backends.sim.reference.engine import MAX_WARNINGS, Executor
from gpuviz.backends.sim.reference.memory import AccessLog, ArrayTable, make_hooks
from gpuviz.backends.sim.spin import SpinWatch
from gpuviz.backends.sim.syncwarps import SyncwarpLog
from gpuviz.backends.sim.vector.engine import VectorExecutor
from gpuviz.backends.sim.vector.hooks import vector_hooks
from gpuviz.backends.sim.vector.independent import IndependentExecutor
from gpuviz.backends.sim.vector.memory import VectorLog, VectorMemory
from gpuviz.backends.sim.vector.sharing import BlockSharing, BlocksShareMemory, block_sharing
from gpuviz.core.budget import format_bytes
from gpuviz.core.events import Notify, ignore
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.options import RunOptions
from gpuviz.core.progress import BlockProgress
from gpuviz.instrument.shared_memory import shared_bytes
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded

# What a recording holds, for the memory budget: an event while recording (its lanes' indices and
# values, ~17 bytes) and in the trace's columns (39 bytes with its time); a thread's columns (52 bytes).
BYTES_PER_EVENT = 17 + 39
BYTES_PER_THREAD = 52
MAX_PARTIAL_SYNCS = 20_000  # syncwarps of part of a warp kept for the race analysis


@dataclass
class Recording:
    arrays: ArrayTable
    accesses: dict | None
    truncated: bool
    schedule: object  # the engine's schedule: block_sm, t_start, t_end, warnings
    seconds: float
    recorded_blocks: list | None = None  # None: every block's accesses (up to the cap)
    errors: ErrorLog = field(default_factory=ErrorLog)
    partial_syncs: list = field(default_factory=list)
    blocks_ran: str = "interleaved"  # the vector engine: "independent" (in groups) or "interleaved: why"
    # warps where lanes of a syncwarp's mask never reached a matching one; None: not judged (reference engine)
    warp_sync_divergence: int | None = None
    local_types: dict | None = None  # each local's type name (the vector engine's); None: not recorded
    requests: np.ndarray | None = None  # each access's warp request, where the engine numbered them as it logged


def run_vector(program, config: LaunchConfig, params, host_args, device, options: RunOptions, level,
               notify, grouped_notify: Notify | None = None) -> Recording:  # fmt: skip
    """Blocks in large groups when they share no memory (vector/sharing.py), else interleaved in time.
    `grouped_notify`: where given, the grouped run's events go there instead (the `auto` engine watches
    that run only: blocks that meet in memory would not stand on the fast path either)."""
    arrays = global_arrays(params, host_args, program)
    sharing = block_sharing(program, params, host_args, arrays.ids) if _grouping[0] else None
    if sharing is not None:
        try:
            return _run_vector(program, config, params, host_args, device, options, level, grouped_notify or notify,
                               sharing, arrays)  # fmt: skip
        except BlocksShareMemory as exc:
            sharing.restore()
            why = str(exc)
        except ReferenceEngineNeeded as exc:  # run out of time order, a block may fault on a value
            sharing.restore()  # another block had not written yet: the interleaved run decides
            why = f"the grouped run stopped ({type(exc).__name__}: {exc})"
    else:
        why = "two arguments share memory" if _grouping[0] else "chosen"
    fresh = global_arrays(params, host_args, program) if sharing is not None else arrays  # not the grouped run's
    recording = _run_vector(program, config, params, host_args, device, options, level, notify, None, fresh)
    recording.blocks_ran = f"interleaved: {why}"
    return recording


_grouping = [True]  # whether the vector engine tries grouped runs (blocks_interleaved() turns it off)


@contextmanager
def blocks_interleaved() -> Iterator[None]:
    """Launches inside run interleaved in time only: tests and benchmarks compare the two ways."""
    _grouping[0] = False
    try:
        yield
    finally:
        _grouping[0] = True


def _run_vector(program, config: LaunchConfig, params, host_args, device, options: RunOptions, level, notify,
                sharing: BlockSharing | None, arrays: ArrayTable) -> Recording:  # fmt: skip
    log = None
    if level == "accesses":
        log = VectorLog(event_cap(options, config, host_args), timed=True, blocks=options.blocks,
                        n_blocks=config.blocks, per_block=config.threads_per_block)  # fmt: skip
    memory = VectorMemory(arrays, log, config.grid, config.block)
    memory.sharing = sharing
    if options.stop_stuck:
        memory.spin = SpinWatch(program.name, arrays)
    warnings: list[str] = []
    partial_syncs: list = []
    errors = memory.errors = ErrorLog()
    syncwarps = SyncwarpLog(config.threads)
    fn = program.bind(vector_hooks(memory, warnings, config.grid, config.block, partial_syncs, errors, syncwarps))
    executor_class = VectorExecutor if sharing is None else IndependentExecutor
    executor = executor_class(fn, host_args, config, device, memory, notify, shared_bytes(program))
    started = time.perf_counter()
    schedule = executor.run(options.seed)
    schedule.warnings = warnings[:MAX_WARNINGS]
    diverged = syncwarps.report(config, errors, schedule.warnings, MAX_WARNINGS)
    seconds = time.perf_counter() - started
    if sharing is not None and log is not None and log.truncated:
        raise BlocksShareMemory("the access log reached its cap, which keeps the earliest accesses in time")
    accesses = None
    if log is not None:
        accesses = log.columns(executor.block_starts, executor.groups > 1)
    if log is not None and log.narrowed:
        schedule.warnings.append(narrowed_warning(options))
    if log is not None and log.truncated:
        schedule.warnings.append(capped_warning(log.cap, options))
    recorded = log.recorded_blocks() if log is not None else None
    return Recording(arrays, accesses, bool(log.truncated) if log else False, schedule, seconds, recorded, errors,
                     partial_syncs if len(partial_syncs) < MAX_PARTIAL_SYNCS else [None],
                     "independent" if sharing is not None else "interleaved", diverged,
                     {name: dtype.name for name, dtype in memory.local_types.items()},
                     log.requests if log is not None else None)  # fmt: skip


def run_reference(program, config: LaunchConfig, params, host_args, device, options: RunOptions, level,
                  notify: Notify = ignore) -> Recording:  # fmt: skip
    arrays = global_arrays(params, host_args, program)
    progress = BlockProgress(notify, config.blocks)
    log = AccessLog(event_cap(options, config, host_args)) if level == "accesses" else None  # the budget too
    errors = ErrorLog()
    partial_syncs: list = []
    spin = SpinWatch(program.name, arrays) if options.stop_stuck else None
    fn = program.bind(make_hooks(arrays, log, config.grid, config.block, config.shared_bytes, errors, spin))
    filenames = {f.source.filename for f in program.functions}
    executor = Executor(fn, host_args, config, device, program.name, filenames,
                        on_block_retired=lambda block: _retired(block, arrays, partial_syncs, progress),
                        on_cycle=log.maybe_flush if log is not None else None, errors=errors,
                        shared_bytes=shared_bytes(program))  # fmt: skip
    started = time.perf_counter()
    schedule = executor.run(options.schedule, options.seed)
    seconds = time.perf_counter() - started
    accesses = log.columns() if log is not None else None  # flushes, settling `truncated`
    truncated = bool(log.truncated) if log else False
    if truncated:
        schedule.warnings.append(capped_warning(log.cap, options))
    # Warp-sync divergence is not judged here (None): a lane runs from one memory access to the next in no
    # time, so a lane that ran on to its exit cannot be told from one that returned early.
    return Recording(arrays, accesses, truncated, schedule, seconds, None, errors, partial_syncs,
                     warp_sync_divergence=None)  # fmt: skip


def narrowed_warning(options: RunOptions) -> str:
    """What a launch whose accesses did not all fit the memory budget says (both engines keep the same blocks)."""
    return (f"accesses recorded for the first and last block only: every access would not fit the memory budget "
            f"({format_bytes(options.memory_budget)}); threads are all recorded; --blocks chooses others")  # fmt: skip


def capped_warning(cap: int, options: RunOptions) -> str:
    """What a launch whose access log kept its earliest accesses only says."""
    return (f"access log capped at {cap:,} events by the access cap and the memory budget "
            f"({format_bytes(options.memory_budget)}); threads are all recorded")  # fmt: skip


def event_cap(options: RunOptions, config: LaunchConfig, host_args: tuple) -> int:
    """Events the log may hold: the event cap, and what the memory budget leaves after the threads'
    columns and the arrays (the launch's own, and their before/after snapshots), at an event's bytes."""
    snapshots = sum(3 * a.nbytes for a in host_args if isinstance(a, np.ndarray))
    left = options.memory_budget - config.threads * BYTES_PER_THREAD - snapshots
    return max(0, min(options.access_cap, left // BYTES_PER_EVENT))


def global_arrays(params, host_args, program) -> ArrayTable:
    """The launch's arrays (its arguments) and the module arrays the kernel reads (as constants)."""
    arrays = ArrayTable()
    for name, value in zip(params, host_args):
        if isinstance(value, np.ndarray):
            arrays.add_global(name, value)
    for function in program.functions:
        for name, array in getattr(function, "global_arrays", {}).items():
            arrays.add_const(name, array)
    return arrays


def _retired(block, arrays: ArrayTable, partial_syncs: list, progress: BlockProgress) -> None:
    progress.finished()
    for array in block.shared.values():
        arrays.unbind(array)
    if len(partial_syncs) < MAX_PARTIAL_SYNCS:
        partial_syncs.extend(block.partial_syncs)
    elif block.partial_syncs:
        partial_syncs.append(None)  # too many to keep: the analysis then trusts no warp epoch
