"""Thread scheduling for the simulator.

Each simulated thread is a generator (the rewritten kernel) that stops at every memory access,
barrier and warp collective. Two schedules drive them:
- `gpu`: blocks become resident on virtual SMs up to the residency limit (so launches run in
  waves); every cycle each resident warp advances all its lanes by one step, in lockstep, so a
  non-atomic read-modify-write by many threads loses updates the way hardware does. The first
  wave starts together; warps of later blocks start a few cycles apart and stall now and then,
  seeded, so that outcomes of races vary with the seed as they vary from run to run on a GPU.
- `sequential`: one thread at a time, as far as it can go, block after block: the answer a
  serial loop would give, for contrast. `reversed` does the same from the last block and thread
  back: where the two differ, the threads depend on each other's order and no serial answer exists.
"""

from __future__ import annotations

import linecache
import random
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from gpuviz.backends.sim.arithmetic import IntegersDividedByZero, KernelMisuse, ZeroToNegativePower
from gpuviz.backends.sim.collective_types import barrier_truth, refusal
from gpuviz.backends.sim.device import VirtualDevice
from gpuviz.backends.sim.faults import ErrorLog, KernelLimit, MemoryFault, ThreadFault
from gpuviz.backends.sim.reference.warp import resolve_collectives
from gpuviz.core.errors import KernelError
from gpuviz.core.launch import LaunchConfig, format_dims
from gpuviz.core.trace.columns import EPOCH_FIELDS, bump_epoch
from gpuviz.instrument.rewrite import BARRIER

RUN, WAIT, RESUME, DONE = 0, 1, 2, 3
BLOCK_EPOCHS = (1 << EPOCH_FIELDS["block"][1]) - 1  # the block-barrier counter's bits (the lowest)
MAX_WARNINGS = 20
STALL_CHANCE = 0.25


class Lane:
    """One simulated thread: its generator, its indices and where it is waiting."""

    __slots__ = ("gen", "gid", "tx", "ty", "tz", "bx", "by", "bz", "lane", "ep", "block", "warp", "req",
                 "state")  # fmt: skip


class Warp:
    __slots__ = ("lanes", "running", "resume", "block", "delay", "late", "live")

    def __init__(self, lanes: list[Lane], block: Block):
        self.lanes = lanes
        self.running = list(lanes)
        self.resume: list[tuple[Lane, object]] = []
        self.block = block
        self.delay = 0
        self.late = False
        self.live = len(lanes)


class Block:
    __slots__ = ("index", "coords", "lanes", "warps", "shared", "alive", "arrived", "exited", "sm", "warned",
                 "partial_syncs")  # fmt: skip

    def __init__(self, index: int, coords: tuple[int, int, int]):
        self.index = index
        self.coords = coords
        self.shared: dict[str, np.ndarray] = {}
        self.arrived = 0
        self.exited = 0
        self.warned = False
        self.partial_syncs: list = []  # syncwarps of part of a warp (warp.py), for the race analysis


@dataclass
class Schedule:
    """What the scheduler recorded besides the threads' own effects."""

    block_sm: np.ndarray
    t_start: np.ndarray
    t_end: np.ndarray
    warnings: list[str] = field(default_factory=list)


class Executor:
    """Runs one launch of an instrumented kernel function over all its threads."""

    def __init__(self, fn, args: tuple, config: LaunchConfig, device: VirtualDevice, kernel_name: str,
                 filenames: set[str], on_block_retired=None, on_cycle=None,
                 errors: ErrorLog | None = None, shared_bytes: int = 0):  # fmt: skip
        self.fn, self.args, self.config, self.device = fn, args, config, device
        self.kernel_name = kernel_name
        self.filenames = filenames
        self.on_block_retired = on_block_retired
        self.on_cycle = on_cycle or (lambda: None)
        self.errors = errors if errors is not None else ErrorLog()
        self.shared_bytes = shared_bytes  # static shared memory per block: limits blocks per SM
        n = config.threads
        self.result = Schedule(
            np.zeros(config.blocks, np.int32), np.zeros(n, np.int64), np.zeros(n, np.int64)
        )
        self.tick = 0
        self.grid_waiting: list[Lane] = []  # lanes at a cooperative-groups grid barrier
        self.grid_alive = n
        self._thread_template = self._template(config.block)

    @staticmethod
    def _template(block: tuple[int, int, int]) -> list[tuple[int, int, int, int]]:
        bx, by, _ = block
        return [(t % bx, (t // bx) % by, t // (bx * by), t) for t in range(bx * by * block[2])]

    def run(self, schedule: str = "gpu", seed: int = 0, jitter: int = 3) -> Schedule:
        if schedule == "gpu":
            self._run_gpu(random.Random(seed), jitter)
        elif schedule in ("sequential", "reversed"):
            self._run_sequential(reverse=schedule == "reversed")
        else:
            raise ValueError(f"unknown schedule {schedule!r}; schedules: gpu, sequential, reversed")
        return self.result

    # ---- blocks ------------------------------------------------------------------------------
    def _make_block(self, index: int) -> Block:
        gx, gy, _ = self.config.grid
        coords = (index % gx, (index // gx) % gy, index // (gx * gy))
        block = Block(index, coords)
        base = index * len(self._thread_template)
        fn, args = self.fn, self.args
        bx, by, bz = coords
        lanes = []
        for tx, ty, tz, t in self._thread_template:
            lane = Lane()
            lane.gid, lane.tx, lane.ty, lane.tz, lane.lane = base + t, tx, ty, tz, t & 31
            lane.bx, lane.by, lane.bz, lane.ep, lane.block, lane.state = bx, by, bz, 0, block, RUN
            lane.gen = fn(lane, *args)
            lanes.append(lane)
        block.lanes = lanes
        block.alive = len(lanes)
        block.warps = [Warp(lanes[w : w + 32], block) for w in range(0, len(lanes), 32)]
        for warp in block.warps:
            for lane in warp.lanes:
                lane.warp = warp
        return block

    def _retire(self, block: Block) -> None:
        if self.on_block_retired is not None:
            self.on_block_retired(block)

    # ---- one step of one lane ----------------------------------------------------------------
    def _step_warp(self, warp: Warp) -> None:
        changed = False
        resumed = warp.resume
        if resumed:
            warp.resume = []
            changed = True
        for lane in warp.running:
            try:
                request = lane.gen.send(None)
            except StopIteration:
                self._finish(lane)
                changed = True
                continue
            except Exception as exc:
                self._stop(lane, exc)
                changed = True
                continue
            if request is not None:
                self._wait(lane, request)
                changed = True
        for lane, value in resumed:
            lane.state = RUN
            self._send(lane, value)
        if changed:
            self._settle(warp)

    def _send(self, lane: Lane, value: object) -> None:
        """Advance one lane by one step. (The loop over running lanes above does the same inline:
        it is the simulator's hottest code.)"""
        try:
            request = lane.gen.send(value)
        except StopIteration:
            self._finish(lane)
            return
        except Exception as exc:
            self._stop(lane, exc)
            return
        if request is not None:
            self._wait(lane, request)

    def _wait(self, lane: Lane, request: tuple) -> None:
        refused = refusal(request[1], request[2])
        if refused:  # operands numba-cuda would not compile
            raise self._fault(lane, ThreadFault(refused), request[3])
        lane.req = request
        lane.state = WAIT
        if request[0] == BARRIER:
            if request[1] == "grid":
                self.grid_waiting.append(lane)
            else:
                lane.block.arrived += 1

    def _finish(self, lane: Lane) -> None:
        lane.state = DONE
        self.grid_alive -= 1
        self.result.t_end[lane.gid] = self.tick
        lane.warp.live -= 1
        block = lane.block
        block.alive -= 1
        block.exited += 1
        if block.alive == 0:
            self._retire(block)

    def _settle(self, warp: Warp) -> None:
        """After lanes changed state: rebuild the running list, release collectives and barriers."""
        warp.running = [lane for lane in warp.lanes if lane.state == RUN]
        if not warp.running and not warp.resume:
            waiting = [lane for lane in warp.lanes if lane.state == WAIT and lane.req[0] != BARRIER]
            if waiting:
                for lane, value in resolve_collectives(waiting):
                    lane.state = RESUME
                    warp.resume.append((lane, value))
        block = warp.block
        if block.arrived and block.arrived == block.alive:
            self._release_barrier(block)
        if self.grid_waiting and len(self.grid_waiting) == self.grid_alive:
            self._release_grid()

    def _release_grid(self) -> None:
        """Every live thread of the grid reached this.grid().sync(): all go on, one grid epoch later."""
        waiting, self.grid_waiting = self.grid_waiting, []
        for lane in waiting:
            lane.ep = bump_epoch(lane.ep, "block", "grid")
            lane.state = RESUME
            lane.warp.resume.append((lane, None))

    def _release_barrier(self, block: Block) -> None:
        waiting = [lane for lane in block.lanes if lane.state == WAIT and lane.req[0] == BARRIER]
        kind = waiting[0].req[1]
        lines = sorted({lane.req[3] for lane in waiting})
        value = _barrier_value(kind, [lane.req[2] for lane in waiting])
        if block.exited or len(lines) > 1:  # names a thread that skipped this barrier, and one that waits at it
            at_first = [lane for lane in waiting if lane.req[3] == lines[0]]
            skipped = [lane for lane in block.lanes if all(lane is not w for w in at_first)]
            skipper = skipped[0] if skipped else waiting[0]
            self.errors.add_divergence(skipper.gid, at_first[0].gid, lines[0])
        if block.exited and not block.warned:
            block.warned = True
            self._warn(
                f"barrier divergence in block {format_dims(block.coords)}: {block.exited} thread(s) exited "
                f"without reaching the barrier at line {lines[0]} (a GPU may hang or give wrong results)"
            )
        elif len(lines) > 1 and not block.warned:
            block.warned = True
            self._warn(
                f"barrier divergence in block {format_dims(block.coords)}: threads waited at different "
                f"barriers (lines {', '.join(map(str, lines))})"
            )
        block.arrived = 0
        for lane in waiting:  # bump_epoch(lane.ep, "block"), inline: barriers are frequent
            lane.ep = (lane.ep & ~BLOCK_EPOCHS) | ((lane.ep + 1) & BLOCK_EPOCHS)
            lane.state = RESUME
            lane.warp.resume.append((lane, value))

    def _warn(self, message: str) -> None:
        if len(self.result.warnings) < MAX_WARNINGS:
            self.result.warnings.append(message)

    # ---- schedules ---------------------------------------------------------------------------
    def _run_gpu(self, rng: random.Random, jitter: int) -> None:
        device, config = self.device, self.config
        per_sm = device.blocks_per_sm(config.threads_per_block, self.shared_bytes)
        free_sms = deque(sm for _ in range(per_sm) for sm in range(device.sm_count))
        next_block, n_blocks = 0, config.blocks
        resident: list[Warp] = []
        per_block = config.threads_per_block
        t_start = self.result.t_start
        while True:
            while next_block < n_blocks and free_sms:
                block = self._make_block(next_block)
                block.sm = sm = free_sms.popleft()
                self.result.block_sm[next_block] = sm
                base = next_block * per_block
                for w, warp in enumerate(block.warps):
                    # Blocks that start later than the first wave start a little unevenly, as
                    # memory latency makes them do on hardware; this is where schedules differ.
                    warp.late = bool(self.tick and jitter)
                    warp.delay = rng.randint(0, jitter) if warp.late else 0
                    t_start[base + 32 * w : base + 32 * w + len(warp.lanes)] = self.tick + warp.delay
                resident.extend(block.warps)
                next_block += 1
            if not resident:
                return
            for warp in resident:
                if warp.delay:
                    warp.delay -= 1
                elif warp.late and rng.random() < STALL_CHANCE:
                    continue  # a late-wave warp stalls now and then, as memory latency varies
                else:
                    self._step_warp(warp)
            self.tick += 1
            self.on_cycle()
            if any(not warp.live for warp in resident):
                # blocks in the order of their warps (a set's order would change from run to run)
                for block in dict.fromkeys(warp.block for warp in resident if not warp.block.alive):
                    free_sms.append(block.sm)
                    _unlink(block)
                resident = [warp for warp in resident if warp.live]

    def _run_sequential(self, reverse: bool = False) -> None:
        t_start, started = self.result.t_start, set()
        turn = reversed if reverse else iter
        for index in turn(range(self.config.blocks)):
            block = self._make_block(index)
            block.sm = 0
            while block.alive:
                before = self.tick
                for warp in turn(block.warps):
                    for lane in turn(warp.lanes):
                        if lane.gid not in started:
                            started.add(lane.gid)
                            t_start[lane.gid] = self.tick
                        self._run_lane(lane, warp)
                    self._settle(warp)
                self.on_cycle()
                if self.tick == before:
                    raise KernelError(f"{self.kernel_name}: threads of block {format_dims(block.coords)} wait forever")
            _unlink(block)

    def _run_lane(self, lane: Lane, warp: Warp) -> None:
        value = None
        if lane.state == RESUME:
            value = next(v for resumed, v in warp.resume if resumed is lane)
            warp.resume = [(r, v) for r, v in warp.resume if r is not lane]
            lane.state = RUN
        while lane.state == RUN:
            self.tick += 1
            self._send(lane, value)
            value = None

    # ---- errors ------------------------------------------------------------------------------
    def _stop(self, lane: Lane, exc: Exception) -> None:
        """A memory error stops only its thread (recorded, as compute-sanitizer would list it); any
        other error stops the launch."""
        if isinstance(exc, KernelError):  # worded already, with its kernel, threads and line (a spin)
            raise exc from None
        if not isinstance(exc, MemoryFault):
            raise self._fault(lane, exc) from None
        self.errors.add(exc.kind, lane.gid, _user_line(exc, self.filenames), exc.array, exc.index)
        self._finish(lane)

    def _fault(self, lane: Lane, exc: Exception, line: int | None = None) -> KernelError:
        line = line or _user_line(exc, self.filenames)
        where = f"line {line}: " if line else ""
        threads = format_dims((lane.bx, lane.by, lane.bz)), format_dims((lane.tx, lane.ty, lane.tz))
        who = "" if isinstance(exc, KernelLimit) else "block {} thread {}, ".format(*threads)  # a limit is no thread's
        said = _explain(exc) + (RAISED_ON_A_GPU if _raised_by_the_kernel(exc, self.filenames) else "")
        return KernelError(f"{self.kernel_name}, {who}{where}{said}", line, lane.gid)


def _unlink(block: Block) -> None:
    """Break the block-warp-lane reference cycles, so memory is freed as blocks finish."""
    for warp in block.warps:
        warp.lanes = warp.running = None
    block.lanes = block.warps = None


def _barrier_value(kind: str, predicates: list) -> object:
    if kind not in ("count", "and", "or"):
        return None
    true = [bool(p and barrier_truth(p[0])) for p in predicates]
    return {"count": sum(true), "and": int(all(true)), "or": int(any(true))}[kind]


# numba-cuda compiles a kernel's `raise` and `assert` only with debug=True; without it the thread returns there
# and the launch goes on, silent (docs/gpu.md, "Known limits").
RAISED_ON_A_GPU = (" (the kernel's own raise or assert: on a GPU numba-cuda ends the thread there silently unless the "
                   "kernel is @cuda.jit(debug=True); gpuviz stops to show where)")  # fmt: skip


def _raised_by_the_kernel(exc: BaseException, filenames: set[str]) -> bool:
    """Whether the exception came from a `raise` or `assert` statement of the kernel's own source."""
    tb, frame_line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in filenames:
            frame_line = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    if frame_line is None or isinstance(exc, ThreadFault):
        return False
    text = linecache.getline(*frame_line).strip()
    return text.startswith(("raise ", "raise(", "assert ", "assert(")) or text == "raise"


def _user_line(exc: BaseException, filenames: set[str]) -> int | None:
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in filenames:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _explain(exc: Exception) -> str:
    if isinstance(exc, (ThreadFault, KernelMisuse)):  # words written for the user already
        return str(exc)
    if isinstance(exc, IntegersDividedByZero):  # on a GPU a float division: inf, or nan for 0 / 0
        return ("division by zero (an integer divided by 0 with /: numba-cuda on a GPU gives inf there, or nan for "
                "0 / 0, and goes on; gpuviz stops to show where)")
    if isinstance(exc, ZeroToNegativePower):
        return ("0 to a negative power (numba's integer power raises ZeroDivisionError there; gpuviz stops to "
                "show where)")
    if isinstance(exc, ZeroDivisionError):  # numba's error model on a GPU (without debug=True): 0, no error
        return ("division by zero (an integer divided by 0: numba-cuda on a GPU gives 0 there and goes on; "
                "gpuviz stops to show where)")
    if isinstance(exc, IndexError) and "out of bounds for axis" in str(exc):  # a local or shared array (not global)
        return (f"IndexError: {exc} (a local or shared array's element past its end: a GPU does not check it and "
                "reads or writes whatever memory lies there; gpuviz stops to show where)")
    return f"{type(exc).__name__}: {exc}"
