"""The fast path: a kernel translated for numba's CPU target (fast/translate.py), compiled once and cached on
disk, runs each block as loops over its threads; the result is the vector engine's grouped run
(vector/independent.py) where it can stand, and FastDeclined says why where it cannot.

It can stand when no two threads touched one element between the same barriers with a write among them
(no two blocks touched one element one of them writes), no access fell outside its array, no barrier was
missed and every warp's lanes took one path (a thread's clock is then its warp's). Blocks then place
themselves as in the grouped run: every block timed from 0, then dispatched in block order.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba.core import config as numba_config
from numba.core.caching import UserProvidedCacheLocator

from gpuviz.backends.sim.fast import compile_times, kept_types
from gpuviz.backends.sim.fast.hooks import CONFLICT, STOPPED, cross_lane_conflict
from gpuviz.backends.sim.fast.log_rows import UnevenLoops, log_rows
from gpuviz.backends.sim.fast.translate import COSTS, FastUnsupported, Translation, translate
from gpuviz.backends.sim.recording import event_cap, narrowed_warning
from gpuviz.backends.sim.reference.engine import Schedule
from gpuviz.backends.sim.reference.memory import ArrayTable
from gpuviz.backends.sim.vector.cost import _costs, issue_share
from gpuviz.backends.sim.vector.independent import GROUP_LANES, place_blocks
from gpuviz.backends.sim.vector.memory import block_mask
from gpuviz.core.events import Notify, Progress, Stage, ignore
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.local_types import typemap_locals
from gpuviz.core.options import RunOptions
from gpuviz.core.progress import REPORT_EVERY
from gpuviz.core.trace.columns import ACCESS_COLUMNS
from gpuviz.instrument.gpu_rewrite import cache_dir, read_only_params
from gpuviz.instrument.shared_memory import shared_bytes

WARP = 32
NARROWED = (0, -1)  # the blocks whose accesses are kept when every access would not fit (as the vector engine)
BLOCKS_PER_CALL = 256  # blocks per compiled call at most, so that progress shows between calls
LANES = 0  # threads that run a launch's calls (0: one per core this process may use); tests set it


class FastDeclined(Exception):
    """The fast path did not run this launch (or its run cannot stand); the message says why."""


class FastNotCompiled(FastDeclined):
    """The launch would need a compile, and the caller allowed none."""


@dataclass
class FastRun:
    """What the fast path produced: what the backend's Recording needs."""

    arrays: ArrayTable
    accesses: dict | None
    schedule: Schedule
    seconds: float
    recorded_blocks: list | None
    compiled: bool  # whether this launch compiled the kernel (not found in numba's cache on disk)
    requests: np.ndarray | None = None  # each access's warp request (fast/log_rows.py), as Trace.requests
    local_types: dict[str, str] | None = None  # each local's type as numba typed the translation (None: unknown)


_translations: dict[tuple, Translation | FastUnsupported] = {}
_modules: dict[str, object] = {}
_log_sizes: dict[tuple, tuple] = {}  # (kernel, launch, blocks, cap) -> (each logged thread's accesses, narrowed)
KEPT_SIZES = 16  # launches whose log sizes are kept (a 2^20-thread launch's take 4 MB)
_refused: dict[object, str] = {}  # kernels numba would not compile or run: not tried again
_kept: dict[tuple, dict | None] = {}  # (translation, argument types) -> its kept locals' dtypes ({}: not learnable)
_local_types: dict[tuple, dict | None] = {}  # (translation, argument types) -> its locals' types (None: unknown)
_signatures: dict[tuple, tuple] = {}  # (translation, level, argument kinds) -> the runner's numba types


def forget_fast(py_func, why: str) -> None:
    """Not to try this kernel on the fast path again in this process."""
    _refused[py_func] = why


def translation_for(py_func, kinds: tuple, kept_dtypes: dict[str, str] | None = None) -> Translation:
    if py_func in _refused:
        raise FastDeclined(f"the fast path cannot run it: {_refused[py_func]}")
    key = (py_func, kinds, tuple(sorted((kept_dtypes or {}).items())))
    if key not in _translations:
        try:
            _translations[key] = translate(py_func, dict(kinds), kept_dtypes)
        except FastUnsupported as exc:
            _translations[key] = exc
    found = _translations[key]
    if isinstance(found, FastUnsupported):
        raise FastDeclined(f"the fast path cannot run {found}")
    return found


def argument_kinds(params: list[str], host_args: tuple) -> tuple:
    """Each parameter's axes (0: a number); arguments the fast path takes no other kind of are declined."""
    kinds = []
    arrays = [a for a in host_args if isinstance(a, np.ndarray)]
    for name, value in zip(params, host_args):
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "biuf" or not 1 <= value.ndim <= 3:
                raise FastDeclined(f"the fast path takes arrays of numbers of 1 to 3 axes ({name}: {value.dtype}, "
                                   f"{value.ndim} axes)")  # fmt: skip
            kinds.append((name, value.ndim))
        elif isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
            kinds.append((name, 0))
        else:
            raise FastDeclined(f"the fast path takes arrays and numbers ({name} is {type(value).__name__})")
    for k, a in enumerate(arrays):
        if any(np.may_share_memory(a, b) for b in arrays[k + 1 :]):
            raise FastDeclined("two arguments share memory")
    return tuple(kinds)


def compiled(translation: Translation):
    """The compiled block runner, its source written once to gpuviz's cache so numba caches the machine code."""
    module = _modules.get(translation.digest)
    if module is not None:
        return module.run_blocks
    path = _generated_path(translation)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(translation.source.replace("def run_blocks", f"{RUNNER}\ndef run_blocks", 1)
                       .replace("import math\n", "import math\n\nfrom numba import njit\n", 1))  # fmt: skip
        tmp.replace(path)
    name = f"gpuviz_fast_{translation.digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _modules[translation.digest] = module
    return module.run_blocks


# The runner's decorator: it releases Python's lock, so that threads run a launch's blocks side by side (_call).
RUNNER = "@njit(cache=True, nogil=True)"
# What a compile leaves beside the file: the locals' types (_remember_local_types). Files compiled before a
# change here are not used (their sidecars would be missing).
BESIDE = "the types of the kernel's own locals"


def _generated_path(translation: Translation) -> Path:
    """The translation's file: its text's digest, and the decorator's (a file written with another stays)."""
    runner = hashlib.sha1(f"{RUNNER} {BESIDE}".encode()).hexdigest()[:6]
    return cache_dir() / "fast" / f"{translation.name}_{translation.digest}_{runner}.py"


def _sidecar(translation: Translation) -> Path:
    """Where the dtypes of a translation's kept locals are kept (fast/kept_types.py)."""
    return _generated_path(translation).with_suffix(".kept.json")


def _on_disk(translation: Translation) -> bool:
    """Whether numba's cache holds machine code of this translation (its index file: beside the source, or
    under NUMBA_CACHE_DIR where the user set one, as numba's own locators choose)."""
    path = _generated_path(translation)
    folder = path.parent / "__pycache__"
    if numba_config.CACHE_DIR:
        folder = Path(numba_config.CACHE_DIR) / UserProvidedCacheLocator.get_suitable_cache_subpath(str(path))
    return any(folder.glob(f"{path.stem}.run_blocks-*.nbi"))


def run_fast(py_func, program, config: LaunchConfig, params: list[str], host_args: tuple, device,
             options: RunOptions, level: str, arrays: ArrayTable, restore: Callable[[], None],
             notify: Notify = ignore, may_compile: bool = True) -> FastRun:  # fmt: skip
    """Run the launch on the fast path; FastDeclined says why not (the caller then restores the arguments).
    `may_compile` False: only with machine code already compiled (in this process or on disk)."""
    kinds = argument_kinds(params, host_args)
    translation = translation_for(py_func, kinds)
    per_sm = device.blocks_per_sm(config.threads_per_block, shared_bytes(program))
    keep = _kept_blocks(config, options, level)
    compiling = time.perf_counter()
    if translation.kept:  # locals kept across a barrier: their arrays made up front where their types are known
        dtypes = (_kept_dtypes(translation, config, device, per_sm, host_args, keep, notify) if may_compile
                  else _kept.get((translation.digest, kept_types.arguments_key(host_args)))
                  or kept_types.known(_sidecar(translation), kept_types.arguments_key(host_args)))  # fmt: skip
        translation = translation_for(py_func, kinds, dtypes) if dtypes else translation
    runner = compiled(translation)
    signature = _signature(runner, translation, config, device, per_sm, host_args, keep)
    compiled_now = not _loaded(runner, signature)
    if compiled_now:
        if not may_compile:
            raise FastNotCompiled("the fast path is not compiled for this kernel and these argument types yet")
        notify(Stage("compiling", f"compiling {translation.name} for the fast path (once: kept on disk)..."))
        runner.compile(signature)
        compile_times.remember(cache_dir() / "fast", time.perf_counter() - compiling)
        _remember_local_types(runner, signature, translation, params, host_args)
    compile_seconds = time.perf_counter() - compiling if compiled_now else 0.0
    try:
        started = time.perf_counter()
        # The log's slots of each thread: as many as it made accesses last time, or counted by a first run that
        # logs nothing (the kernel is cheap next to the log; a log sized by guess would waste memory, and one
        # sized by the busiest thread wastes it where a few threads make most accesses: a reduction's).
        # A launch whose first and last block alone show it far over the budget skips that counting run.
        cap = event_cap(options, config, host_args)
        known = (translation.digest, config, options.blocks, cap)
        sizes, narrowed = _log_sizes.get(known, (None, False)) if keep is not None else (None, False)
        if keep is not None and sizes is None and not options.blocks:
            watched = _watched(program, kinds, host_args, params)
            sizes, narrowed = _narrowed_by_probe(runner, translation, config, device, per_sm, host_args, watched, cap,
                                                 restore)  # fmt: skip
        if narrowed:
            keep = block_mask(NARROWED, config.blocks)
        watched_for = lambda: _watched(program, kinds, host_args, params)  # noqa: E731
        while True:
            state = _State(config, keep, sizes, len(translation.shared))
            _call(runner, translation, config, device, per_sm, host_args, watched_for, state, notify,
                  options.memory_budget)
            kept = state.kept_counts()
            # Over the budget: the chosen blocks' accesses, or where none were chosen every block's (each thread
            # counted its own, kept or not), which decides whether the first and last block alone are kept.
            over = int((kept if options.blocks else state.count).sum()) > cap
            if state.F[0] != 0 or (state.all_logged() and over == narrowed):
                break
            restore()  # the arguments as they were given, for the run that logs
            if over and options.blocks:
                raise FastDeclined("the access log would not fit its memory budget (the vector engine keeps the "
                                   "earliest accesses)")  # fmt: skip
            narrowed = over  # as the vector engine narrows
            keep = block_mask(NARROWED, config.blocks) if narrowed else _kept_blocks(config, options, level)
            sizes = state.blocks_counts(keep, config.threads_per_block).reshape(-1)
            if int(sizes.sum()) > cap:
                raise FastDeclined("the access log would not fit its memory budget (the vector engine keeps the "
                                   "earliest accesses)")  # fmt: skip
            _remember_sizes(known, sizes, narrowed)
        run = _finish(translation, config, device, per_sm, options, arrays, params, host_args, state, keep, started,
                      compiled_now)  # fmt: skip
    except FastDeclined as declined:  # the time the launch took went mostly on the compile: the line says so
        if not compiled_now:
            raise
        raise FastDeclined(f"{declined}; the fast path was compiled for it first, {compile_seconds:.1f} s of the "
                           "time") from None
    if narrowed:
        run.schedule.warnings.append(narrowed_warning(options))
    known_types = (translation.digest, kept_types.arguments_key(host_args))
    if known_types not in _local_types:  # kept on disk by the compile (_remember_local_types): read once
        _local_types[known_types] = kept_types.known(_locals_file(translation), known_types[1])
    run.local_types = _local_types[known_types]
    return run


def _locals_file(translation: Translation) -> Path:
    """Where the types numba gave the kernel's locals are kept (numba's cache keeps no typing)."""
    return _generated_path(translation).with_suffix(".locals.json")


def _remember_local_types(runner, signature: tuple, translation: Translation, params: list[str], host_args) -> None:
    """The kernel's locals as numba typed them in the compile just made (the vector engine records them as
    it runs: lessons and explanations name them, `acc` float64)."""
    annotation = getattr(runner.overloads.get(signature), "type_annotation", None)
    if annotation is None:
        return
    key = kept_types.arguments_key(host_args)
    found = typemap_locals(annotation.typemap, params)
    _local_types[(translation.digest, key)] = {name: kind for name, kind in found.items() if name in translation.locals}
    kept_types.remember(_locals_file(translation), key, _local_types[(translation.digest, key)])


def _remember_sizes(known: tuple, sizes: np.ndarray, narrowed: bool) -> None:
    """Each logged thread's accesses in a launch, for the next launch like it (the latest KEPT_SIZES kept)."""
    _log_sizes.pop(known, None)
    _log_sizes[known] = (sizes.astype(np.int32), narrowed)
    while len(_log_sizes) > KEPT_SIZES:
        _log_sizes.pop(next(iter(_log_sizes)))


def _narrowed_by_probe(runner, translation, config, device, per_sm: int, host_args, watched: tuple, cap: int,
                       restore: Callable[[], None]) -> tuple[np.ndarray | None, bool]:  # fmt: skip
    """(each logged thread's accesses, narrowed) for a launch whose log sizes are not known yet (None: count
    them): its first and last block are
    run alone, counting, and where their accesses times the blocks would be over twice the log's budget,
    the launch is taken to keep those two blocks' accesses only (the vector engine's choice when all would
    not fit), so that it runs once, logging them, instead of a counting run and a run that logs. Where
    the launch turns out to fit after all, run_fast runs it again, logging every block."""
    mask = block_mask(NARROWED, config.blocks)
    if mask.all():
        return None, False
    probe = _State(config, mask, None, len(translation.shared))
    fixed = _launch_arguments(translation, config, device, per_sm)
    runner(np.flatnonzero(mask).astype(np.int64), probe.slot_base, *host_args, *fixed, probe.L, watched, probe.F,
           probe.clk, probe.end, probe.hsh)  # fmt: skip
    restore()
    counts = probe.kept_counts()
    if probe.F[0] or not counts.size or counts.sum() * (config.blocks / mask.sum()) <= 2 * cap:
        return None, False
    return counts.copy(), True


class _State:
    """The launch's clocks, path hashes, log and watch state, as the compiled code takes them."""

    def __init__(self, config: LaunchConfig, keep: np.ndarray | None, sizes: np.ndarray | None, shared: int):
        """`sizes`: each logged thread's slots, in the log's order of threads (None: log nothing, count)."""
        n, tpb = config.threads, config.threads_per_block
        self.clk = np.zeros(n, np.int64)
        self.end = np.zeros(n, np.int64)
        self.hsh = np.zeros(n, np.uint64)
        from gpuviz.backends.sim.fast.hooks import FLAGS

        self.F = np.zeros(FLAGS, np.int64)
        self.slot_base = np.full(config.blocks, -1, np.int64)
        if keep is not None:  # the kept blocks' threads first, then the others', which only count (_log)
            order = np.concatenate([np.flatnonzero(keep), np.flatnonzero(~keep)])
            self.slot_base[order] = np.arange(config.blocks, dtype=np.int64) * tpb
        self.n_log = 0 if keep is None else int(keep.sum()) * tpb
        self.sizes = np.zeros(self.n_log, np.int32) if sizes is None else sizes  # as kept: no copy
        if self.sizes.size != self.n_log:
            raise ValueError(f"log sizes for {self.sizes.size} threads, {self.n_log} logged")
        offsets = np.zeros(max(self.n_log, 1) + 1, np.int64)  # thread s's slots: offsets[s] to offsets[s + 1]
        np.cumsum(self.sizes, out=offsets[1 : self.n_log + 1])
        size = int(offsets[self.n_log])
        self.count = np.zeros(0 if keep is None else n, np.int64)  # every thread's accesses, kept ones first
        # index, value, time, site, epoch, phase; each thread's count, the threads' first slots, threads logged
        # Not cleared: a slot is read only once its thread has written it (fast/log_rows.py, hooks.py: settle).
        self.L = (np.empty(size, np.int64), np.empty(size, np.float64), np.empty(size, np.int64),
                  np.empty(size, np.int16), np.empty(size, np.int32), np.empty(size, np.int32), self.count,
                  offsets, max(self.n_log, 1))  # fmt: skip

    def all_logged(self) -> bool:
        """Whether every logged thread's accesses fitted its slots."""
        return bool((self.kept_counts() <= self.sizes).all())

    def kept_counts(self) -> np.ndarray:
        """Each kept thread's accesses, logged or not (in the log's order of threads)."""
        return self.count[: self.n_log]

    def blocks_counts(self, keep: np.ndarray, tpb: int) -> np.ndarray:
        """Each thread's accesses, block by block in launch order, of the blocks `keep` marks."""
        by_place = self.count.reshape(-1, tpb)
        return by_place[(self.slot_base[keep] // tpb)]


def _kept_blocks(config: LaunchConfig, options: RunOptions, level: str) -> np.ndarray | None:
    """The blocks whose accesses are logged (None at level threads)."""
    if level != "accesses":
        return None
    if options.blocks:
        return block_mask(options.blocks, config.blocks)
    return np.ones(config.blocks, bool)


def _watched(program, kinds: tuple, host_args: tuple, params: list[str]) -> tuple:
    from gpuviz.backends.sim.fast.hooks import global_watch, unwatched

    ndims = {name: ndim for name, ndim in kinds if ndim}
    read_only = program.memo(("read_only", tuple(ndims.items())),
                             lambda: read_only_params(program.kernel.source.node, ndims))  # fmt: skip
    by_name = dict(zip(params, host_args))
    return tuple(unwatched() if name in read_only else global_watch(by_name[name].size) for name in ndims)


def _call(runner, translation, config, device, per_sm: int, host_args, watched_for: Callable[[], tuple],
          state: _State, notify: Notify, budget: int) -> None:  # fmt: skip
    """The launch's blocks, in calls of the runner on as many threads of this process as the machine has cores
    (the runner releases Python's lock): each thread runs every `lanes`-th call with a watch state and flags
    of its own, so that what one thread's blocks did is seen by its own watch only; afterwards the states
    are merged, and two threads' blocks that touched one element, one of them writing, cannot stand."""
    fixed = _launch_arguments(translation, config, device, per_sm)
    first = watched_for()
    lanes = min(config.blocks, _lanes(), _lanes_that_fit(first, budget))
    size = min(BLOCKS_PER_CALL, -(-config.blocks // (4 * lanes)))  # a few calls a lane: lanes end close together
    calls = [np.arange(first, min(config.blocks, first + size), dtype=np.int64)
             for first in range(0, config.blocks, size)]  # fmt: skip
    flags = [state.F] + [np.zeros_like(state.F) for _ in range(lanes - 1)]
    watches = [first] + [watched_for() for _ in range(lanes - 1)]
    done, stop = [0] * lanes, [False]

    def run(lane: int) -> None:
        for blocks in calls[lane::lanes]:
            if stop[0] or any(f[0] for f in flags):  # the run cannot stand, or stopped: no lane goes on
                return
            runner(blocks, state.slot_base, *host_args, *fixed, state.L, watches[lane], flags[lane], state.clk,
                   state.end, state.hsh)  # fmt: skip
            done[lane] += blocks.size
            if lanes == 1:
                notify(Progress(int(blocks[-1]) + 1, config.blocks))

    if lanes == 1:
        run(0)
        return
    with ThreadPoolExecutor(lanes) as pool:
        pending, told = {pool.submit(run, lane) for lane in range(lanes)}, 0
        try:
            while pending:  # progress from this thread only (notify may write to a pipe)
                finished, pending = wait(pending, timeout=REPORT_EVERY)
                for future in finished:
                    future.result()  # a kernel's own exception, raised here as on one thread
                if sum(done) > told:
                    told = sum(done)
                    notify(Progress(told, config.blocks))
        except BaseException:  # a lane's exception, or a time-out's in this thread: every lane stops now
            stop[0] = True
            for lane_flags in flags:  # every loop of the compiled code tests F[0]: a lane leaves its call
                lane_flags[0] = lane_flags[0] or STOPPED
            raise
    faulted = [f for f in flags if f[0]]
    if faulted:
        state.F[:] = faulted[0]
        return
    for k in range(len(watches[0])):  # each watched array: its owners and flags, lane by lane
        thread = cross_lane_conflict(tuple(w[k][0] for w in watches), tuple(w[k][1] for w in watches),
                                     config.threads_per_block)  # fmt: skip
        if thread >= 0:
            state.F[0], state.F[2] = CONFLICT, thread
            return


MAX_LANES = 8  # more cores than this share the blocks little better and cost a watch state each


def _lanes_that_fit(watch: tuple, budget: int) -> int:
    """Lanes whose watch states (one per lane like `watch`, 21 bytes an element of every array the kernel may
    write) together take at most a quarter of the memory budget; at least one."""
    sizes = sum(part.nbytes for array_watch in watch for part in array_watch)
    return max(1, min(MAX_LANES, budget // 4 // max(sizes, 1)))


def _lanes() -> int:
    """Threads to run the blocks on: LANES, else the cores this process may use."""
    if LANES:
        return LANES
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _launch_arguments(translation, config, device, per_sm: int) -> tuple:
    """The runner's arguments that stay the same for every block: the launch's sizes and the costs."""
    tpb = config.threads_per_block
    resident = min(per_sm, -(-config.blocks // device.sm_count))
    costs = _costs(issue_share(resident * -(-tpb // WARP), device.schedulers_per_sm))
    cost = np.array([costs[name] for name in COSTS], np.int64)
    by_name = {f"_C_{short}": costs[name] for short, name in zip(("ALU", "BR", "GL", "GS", "SL", "SS", "BAR"), COSTS)}
    by_name["0"] = 0
    phase_costs = np.zeros((max(1, len(translation.phases)), 64), np.int64)
    for k, points in enumerate(translation.phases):
        phase_costs[k, : len(points)] = [by_name[p] for p in points]
    site_points = np.array([site[3] for site in translation.sites] or [0], np.int64)
    dims = np.array([*config.block, *config.grid], np.int64)
    return dims, cost, phase_costs, site_points


def _kept_dtypes(translation: Translation, config, device, per_sm: int, host_args, keep, notify: Notify
                 ) -> dict[str, str] | None:  # fmt: skip
    """The dtypes of the translation's kept locals for these argument types: known in this process, kept on
    disk, or learnt now from numba's typing of the translation (once per kernel and argument types)."""
    key = kept_types.arguments_key(host_args)
    known = (translation.digest, key)
    if known not in _kept:
        _kept[known] = kept_types.known(_sidecar(translation), key)
    if _kept[known] is None:
        notify(Stage("compiling", f"typing {translation.name} for the fast path (once: kept on disk)..."))
        runner = compiled(translation)
        found = kept_types.learn(runner.py_func, _signature(runner, translation, config, device, per_sm, host_args,
                                                            keep))  # fmt: skip
        _kept[known] = found if found and set(found) == set(translation.kept) else {}  # {}: lazy arrays, not again
        if _kept[known]:
            kept_types.remember(_sidecar(translation), key, _kept[known])
    return _kept[known] or None


def _signature(runner, translation: Translation, config, device, per_sm: int, host_args, keep) -> tuple:
    """The numba types the block runner is called with for this launch (the arrays' sizes aside): worked
    out once per kind of arguments (numba's typing of every argument costs a small launch a tenth)."""
    known = (translation.digest, keep is None, *map(_kind_of, host_args))
    if known not in _signatures:
        _signatures[known] = _typed_signature(runner, translation, config, device, per_sm, host_args, keep)
    return _signatures[known]


def _kind_of(value) -> tuple:
    """What numba's type of an argument depends on: an array's dtype, axes, layout, writability and alignment;
    a number's own type (a Python int of 2^63 or more is a uint64)."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (value.dtype.str, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, flags.aligned)
    from numba import typeof

    return (str(typeof(value)),)


def _typed_signature(runner, translation: Translation, config, device, per_sm: int, host_args, keep) -> tuple:
    from gpuviz.backends.sim.fast.hooks import unwatched

    tiny = _State(LaunchConfig.of(1, config.block), None if keep is None else np.ones(1, bool), None,
                  len(translation.shared))  # fmt: skip
    unwatched_arrays = tuple(unwatched() for _ in translation.array_params)  # typed as the watched ones
    sample = (np.zeros(1, np.int64), tiny.slot_base, *host_args, *_launch_arguments(translation, config, device,
              per_sm), tiny.L, unwatched_arrays, tiny.F, tiny.clk, tiny.end, tiny.hsh)  # fmt: skip
    return tuple(runner.typeof_pyval(a) for a in sample)


def _loaded(runner, signature: tuple) -> bool:
    """Whether the runner has machine code for `signature`, from this process or loaded now from numba's
    cache on disk (as numba's own call would, without compiling when the cache has none)."""
    if signature in runner.overloads:
        return True
    cres = runner._cache.load_overload(signature, runner.targetctx)  # numba's Dispatcher.compile does the same
    if cres is None:
        return False
    runner._cache_hits[signature] += 1  # as numba counts it (runner.stats)
    runner.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
    runner.add_overload(cres)
    return True


def fast_state(py_func, params: list[str], host_args: tuple) -> str:
    """"on disk" where an earlier launch left this kernel's fast path for these kinds of argument on disk
    (numba's cache index of its translation, or this process's), "translatable" where it has not been
    compiled, "" where the fast path declines the kernel by declaration. Cheap: no machine code loaded;
    run_fast with may_compile False then checks the exact argument types."""
    try:
        kinds = argument_kinds(params, host_args)
        translation = translation_for(py_func, kinds)
    except FastDeclined:
        return ""
    key = kept_types.arguments_key(host_args)
    if key in kept_types.read_table(_declines_file(translation)):
        return ""  # it declined a launch with these arguments' types before: `auto` leaves it to the vector engine
    if translation.kept:
        dtypes = kept_types.known(_sidecar(translation), key)
        translation = translation_for(py_func, kinds, dtypes) if dtypes else translation
    return "on disk" if translation.digest in _modules or _on_disk(translation) else "translatable"


def remember_declined(py_func, params: list[str], host_args: tuple, why: str) -> None:
    """A launch of this kernel the fast path declined at run time (lanes that part in a loop, a race, a
    spin, ...): kept on disk, so that the `auto` engine neither tries nor compiles it again for arguments
    of these types (`--engine fast` still does)."""
    try:
        translation = translation_for(py_func, argument_kinds(params, host_args))
    except FastDeclined:
        return
    kept_types.remember(_declines_file(translation), kept_types.arguments_key(host_args), {"why": why[:300]})


def _declines_file(translation: Translation) -> Path:
    return _generated_path(translation).with_suffix(".declined.json")



def _finish(translation, config, device, per_sm: int, options, arrays, params, host_args, state: _State, keep,
            started, compiled_now: bool) -> FastRun:  # fmt: skip
    from gpuviz.backends.sim.fast.hooks import REASONS

    if state.F[0]:
        raise FastDeclined(f"{REASONS[int(state.F[0])]} (thread {int(state.F[2])})")
    tpb = config.threads_per_block
    durations = state.end.reshape(config.blocks, tpb).max(axis=1)
    starts, slots = place_blocks(durations, options.seed, device.sm_count * per_sm)
    lane_starts = np.repeat(starts, tpb)
    schedule = Schedule((slots % device.sm_count).astype(np.int32), lane_starts, state.end + lane_starts)
    seconds = time.perf_counter() - started
    ids = _array_ids(translation, arrays, params, host_args)  # shared arrays are listed at any level
    accesses, requests = None, None
    if keep is not None:
        accesses = _columns(translation, config, ids, state, keep, starts)
        requests = accesses.pop("request")
    recorded = None if keep is None or keep.all() else np.flatnonzero(keep).tolist()
    return FastRun(arrays, accesses, schedule, seconds, recorded, compiled_now, requests)


def _columns(translation, config, ids: list[int], state: _State, keep, starts) -> dict:
    """The access log's columns in the vector engine's order and each row's warp request (fast/log_rows.py);
    the log is let go."""
    log, state.L = list(state.L), None
    log[6] = state.kept_counts()  # the threads of blocks that were not kept only counted their accesses
    per_group = max(1, GROUP_LANES // config.threads_per_block)
    site_table = np.array(translation.sites, np.int64).reshape(-1, 4)
    kept = np.flatnonzero(keep).astype(np.int64)
    try:
        out = log_rows(log, site_table, kept, config.threads_per_block, per_group, np.asarray(starts, np.int64),
                       np.array(ids, np.int64), lanes=_lanes())  # fmt: skip
    except UnevenLoops as uneven:
        raise FastDeclined(f"threads ran a loop a different number of times or by different paths, so the order of "
                           f"their accesses is the vector engine's to say (thread {uneven.args[0]})") from None
    return {name: out[name] for name in (*ACCESS_COLUMNS, "time", "request")}


def _array_ids(translation: Translation, arrays: ArrayTable, params, host_args) -> list[int]:
    by_name = dict(zip(params, host_args))
    ids = [arrays.ids[id(by_name[name])] for name in translation.array_params]
    ids += [arrays.shared_site(s.site, s.name, s.dtype, s.shape) for s in translation.shared]
    return ids
