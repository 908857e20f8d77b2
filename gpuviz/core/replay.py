"""The replay of a launch: what the memory held and what every thread was doing at any point of the
recorded execution. Pure functions of a trace (no Qt); the views draw what they return.

The cursor is a position in the access log: `k` means "after the first k events". Each event has a
time: the trace's own (`access.time`, in `meta.time_unit`) where the backend recorded one, else one
inferred from the log's order and the threads' start times (`Replay.inferred` says which).
Array values come from checkpoints every `stride` writes plus a forward scan, so any cursor costs
at most one stride of work, never a replay from the start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuviz.core.analysis.timeline import block_waves
from gpuviz.core.numbers import number
from gpuviz.core.trace.columns import READ
from gpuviz.core.trace.model import Trace

NOT_STARTED, RUNNING, AT_BARRIER, FINISHED = 0, 1, 2, 3
STATE_NAMES = ("not started", "running", "waiting at a barrier", "finished")
CHECKPOINT_BYTES = 128 << 20  # memory for array checkpoints, all arrays together


@dataclass(frozen=True)
class ThreadStates:
    """Every thread at a cursor: its state (codes above) and the source line of its latest access."""

    state: np.ndarray  # uint8 per thread
    line: np.ndarray  # int32 per thread, 0 before its first access

    def count(self, code: int) -> int:
        return int(self.counts()[code])

    def counts(self) -> np.ndarray:
        """Threads in each state, indexed by the state codes."""
        return np.bincount(self.state, minlength=4)


class Replay:
    """Everything needed to answer `state_at` quickly, built once per trace."""

    def __init__(self, trace: Trace) -> None:
        if trace.accesses is None:
            raise ValueError("a replay needs the access log (record at level accesses)")
        self.trace = trace
        acc = trace.accesses
        self.events = len(acc["thread"])
        self.inferred = "time" not in acc
        self.times = self._event_times()
        self._by_thread()
        self._waves = None
        self._done = (0, np.zeros(len(self.active), np.int64))  # k, and events per active thread before k
        self._checkpoints: dict[int, tuple[int, list[np.ndarray]]] = {}
        self._write_rows: dict[int, np.ndarray] = {}

    # ---- time --------------------------------------------------------------------------------
    def _event_times(self) -> np.ndarray:
        acc = self.trace.accesses
        if not self.inferred:
            return acc["time"].astype(np.int64, copy=False)  # read only: the trace's own column
        # No time per event: the log is in execution order, and no event precedes its thread's start.
        starts = self.trace.threads["t_start"].astype(np.int64)[acc["thread"]]
        return np.maximum.accumulate(starts) if len(starts) else starts

    def time_at(self, k: int) -> int:
        """The time of the cursor: of the latest event it has passed (the launch's start before any)."""
        if k <= 0 or self.events == 0:
            return int(self.trace.threads["t_start"].min()) if self.trace.n_threads else 0
        return int(self.times[min(k, self.events) - 1])

    # ---- threads -----------------------------------------------------------------------------
    def _by_thread(self) -> None:
        """The threads that made an access ("active"; a launch that kept a few blocks' accesses of
        millions has few), and per active thread its segment of the events sorted by thread: per-frame
        work is over them, and every other thread starts and ends by its times."""
        acc = self.trace.accesses
        n = self.trace.n_threads
        self.order = np.argsort(acc["thread"], kind="stable")  # events grouped by thread, in log order
        counts = np.bincount(acc["thread"], minlength=n)
        self.active = np.flatnonzero(counts)
        self._all_active = len(self.active) == n
        # each event's thread, as its place in active (where every thread is active: the thread itself)
        self._slot = acc["thread"] if self._all_active else np.searchsorted(self.active, acc["thread"])
        self.seg_count = counts[self.active].astype(np.int64)
        self.seg_start = np.concatenate([[0], np.cumsum(self.seg_count)[:-1]]).astype(np.int64)
        self.sorted_pos = self.order.astype(np.int64, copy=False)  # argsort gives int64 already
        self.line_sorted = acc["line"][self.order] if self.events else np.zeros(1, np.int32)
        self.epochs = int(acc["epoch"].max()) + 1 if self.events else 1
        self._barriers: tuple[np.ndarray, np.ndarray, int] | None = None  # built when a barrier is first asked about

    def _barrier_tables(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(each thread's epochs in its own event order; per block and barrier epoch, the last event
        position of that epoch; how many epochs, ranked where their numbers are sparse): a thread past
        a barrier waits there while some thread of its block still has events of the epoch before.
        Only launches with barriers need them."""
        if self._barriers is None:
            acc = self.trace.accesses
            per_block = int(np.prod(self.trace.block))
            blocks = self.trace.n_threads // per_block
            epoch, span = acc["epoch"].astype(np.int64), self.epochs
            if blocks * span > max(4 * self.events, 1 << 20):  # sparse epoch numbers: rank them (order kept)
                values, epoch = np.unique(epoch, return_inverse=True)
                epoch, span = epoch.reshape(-1), len(values)
            epoch_sorted = epoch[self.order] if self.events else np.zeros(1, np.int64)
            epoch_last = np.full(max(1, blocks * span), -1, np.int64)
            key = acc["thread"].astype(np.int64) // per_block * span + epoch
            np.maximum.at(epoch_last, key, np.arange(self.events))
            self._barriers = (epoch_sorted, epoch_last, span)
        return self._barriers

    def thread_states(self, k: int) -> ThreadStates:
        """Every thread's state and line after the first k events."""
        threads, n, active = self.trace.threads, self.trace.n_threads, self.active
        k = max(0, min(k, self.events))
        done = self._events_before(k)
        now = self.time_at(k)
        seen = done > 0
        latest = self.seg_start + done - 1
        lines = np.where(seen, self.line_sorted[np.maximum(latest, 0)], 0).astype(np.int32)
        if k >= self.events:  # the end: every thread has finished
            state = np.full(n, FINISHED, np.uint8)
        else:
            ends = threads["t_end"] if self._all_active else threads["t_end"][active]
            mine = seen.view(np.uint8) + 2 * ((done == self.seg_count) & (ends <= now) & seen).view(np.uint8)
            if self._all_active:
                state = mine
            else:  # threads that made no access start and end by their times: 0, RUNNING 1, FINISHED 3
                started = threads["t_start"] <= now
                state = started.view(np.uint8) + 2 * (started & (threads["t_end"] <= now)).view(np.uint8)
                state[active] = mine
        if self._all_active:
            line = lines
        else:
            line = np.zeros(n, np.int32)
            line[active] = lines
        if self.epochs > 1:
            self._mark_barrier_waits(state, seen, latest, done, k)
        return ThreadStates(state, line)

    def _events_before(self, k: int) -> np.ndarray:
        """Per thread, how many of its events come before k; from the last answer, so playing forward
        costs only the events passed since (the log's prefix counted once, never the whole log)."""
        last, done = self._done
        threads = self._slot
        n = len(self.active)
        if k >= self.events:  # the whole log: every thread's count is known already
            done = self.seg_count.copy()
        elif k >= last:
            done = done + np.bincount(threads[last:k], minlength=n)
        elif k > last // 2:
            done = done - np.bincount(threads[k:last], minlength=n)
        else:
            done = np.bincount(threads[:k], minlength=n).astype(np.int64)
        self._done = (k, done)
        return done

    def _mark_barrier_waits(self, state, seen, latest, done, k: int) -> None:
        epoch_sorted, epoch_last, span = self._barrier_tables()
        pending = seen & (done < self.seg_count) & (state[self.active] == RUNNING)
        rows = np.flatnonzero(pending)  # places in active
        last_epoch = epoch_sorted[latest[rows]]
        next_epoch = epoch_sorted[latest[rows] + 1]
        block = self.active[rows] // int(np.prod(self.trace.block))
        crossed = next_epoch > last_epoch
        others_behind = epoch_last[block * span + last_epoch] >= k
        state[self.active[rows[crossed & others_behind]]] = AT_BARRIER

    # ---- memory ------------------------------------------------------------------------------
    def values_at(self, array: int, k: int, block: int | None = None) -> np.ndarray:
        """An array's values after the first k events (flat). Shared arrays: the copy of `block`,
        NaN where nothing was written yet (shared memory starts uninitialised)."""
        entry = self.trace.meta["arrays"][array]
        if entry["space"] == "shared":
            return self._shared_values(array, k, block or 0)
        stride, checkpoints = self._checkpoints_for(array)
        k = max(0, min(k, self.events))
        rows = self._writes(array)
        j = min(int(np.searchsorted(rows, k) // stride), len(checkpoints) - 1)
        values = checkpoints[j].copy()
        _apply(values, self.trace.accesses, rows[j * stride : np.searchsorted(rows, k)])
        return values

    def _writes(self, array: int) -> np.ndarray:
        """Log positions of the writes to an array (found once)."""
        if array not in self._write_rows:
            acc = self.trace.accesses
            self._write_rows[array] = np.flatnonzero((acc["array"] == array) & (acc["kind"] != READ))
        return self._write_rows[array]

    def _checkpoints_for(self, array: int) -> tuple[int, list[np.ndarray]]:
        if array not in self._checkpoints:
            entry = self.trace.meta["arrays"][array]
            if entry["name"] in self.trace.args:
                start = self.trace.before(entry["name"]).reshape(-1).copy()
            else:  # a global array that is not an argument: known only through its writes
                start = np.full(int(np.prod(entry["shape"])) if entry["shape"] else 1, np.nan)
            rows = self._writes(array)
            budget = max(1, CHECKPOINT_BYTES // max(1, start.nbytes))
            stride = max(4096, -(-len(rows) // budget))
            points = [start]
            for first in range(stride, len(rows) + 1, stride):
                values = points[-1].copy()
                _apply(values, self.trace.accesses, rows[first - stride : first])
                points.append(values)
            self._checkpoints[array] = (stride, points)
        return self._checkpoints[array]

    def _shared_values(self, array: int, k: int, block: int) -> np.ndarray:
        acc = self.trace.accesses
        entry = self.trace.meta["arrays"][array]
        per_block = int(np.prod(self.trace.block))
        values = np.full(int(np.prod(entry["shape"])) if entry["shape"] else 1, np.nan)
        mine = (acc["array"][:k] == array) & (acc["kind"][:k] != READ) & (acc["thread"][:k] // per_block == block)
        _apply(values, acc, np.flatnonzero(mine))
        return values

    def touched_between(self, array: int, start: int, end: int) -> tuple[np.ndarray, np.ndarray]:
        """Elements of an array read and written by events [start, end): the accesses to flash."""
        acc = self.trace.accesses
        rows = np.arange(max(0, start), max(0, min(end, self.events)))
        rows = rows[acc["array"][rows] == array]
        reads = acc["kind"][rows] == READ
        return np.unique(acc["index"][rows[reads]]), np.unique(acc["index"][rows[~reads]])

    # ---- stepping ----------------------------------------------------------------------------
    def next_stop(self, k: int, unit: str, direction: int = 1, thread: int | None = None) -> int:
        """The cursor one step of `unit` from k: event, cycle (time), barrier, wave, or thread (the
        chosen thread's next access)."""
        if unit == "event":
            return int(np.clip(k + direction, 0, self.events))
        stops = self._stops(unit, thread)
        if direction > 0:
            later = stops[stops > k]
            return int(later[0]) if len(later) else self.events
        earlier = stops[stops < k]
        return int(earlier[-1]) if len(earlier) else 0

    def _stops(self, unit: str, thread: int | None) -> np.ndarray:
        """Cursor positions where a unit begins: just after the last event before each change."""
        acc = self.trace.accesses
        if unit == "cycle":
            return np.flatnonzero(np.diff(self.times)) + 1
        if unit == "barrier":
            return np.flatnonzero(np.diff(acc["epoch"].astype(np.int64)) > 0) + 1
        if unit == "wave":
            per_block = int(np.prod(self.trace.block))
            wave = self.waves()[acc["thread"] // per_block]
            return np.flatnonzero(np.diff(wave) > 0) + 1
        if unit == "thread" and thread is not None and 0 <= thread < self.trace.n_threads:
            place = int(np.searchsorted(self.active, thread))
            if place == len(self.active) or self.active[place] != thread:
                return np.zeros(0, np.int64)  # a thread with no access: no step of its own
            start = self.seg_start[place]
            return self.sorted_pos[start : start + self.seg_count[place]] + 1
        raise ValueError(f"unknown step {unit!r}; steps: {', '.join(STEPS)}")

    def waves(self) -> np.ndarray:
        if self._waves is None:
            self._waves = block_waves(self.trace)
        return self._waves

    def caption(self, k: int) -> str:
        """What the frame at cursor k shows, in words."""
        k = max(0, min(k, self.events))
        unit = self.trace.meta.get("time_unit", "tick")
        timed = not self.inferred or (self.events and self.times[-1] > self.times[0])
        when = f" at {'~' if self.inferred else ''}{self.time_at(k):,} {unit}" if timed else ""
        if k == 0:
            return f"before the first access{when}"
        acc, names = self.trace.accesses, self.trace.array_names()
        row = k - 1
        per_block = int(np.prod(self.trace.block))
        thread = int(acc["thread"][row])
        wave = int(self.waves()[thread // per_block])
        waves = int(self.waves().max()) + 1
        verb = ("read", "wrote", "updated atomically")[int(acc["kind"][row])]
        return (f"event {k:,} of {self.events:,}{when}, wave {wave + 1} of {waves}: thread {thread:,} "
                f"(block {thread // per_block}, warp {thread % per_block // 32}) {verb} "
                f"{names[int(acc['array'][row])]}[{int(acc['index'][row])}] = {number(acc['value'][row])} "
                f"on line {int(acc['line'][row])}")  # fmt: skip


STEPS = ("event", "cycle", "barrier", "wave", "thread")


def _apply(values: np.ndarray, acc: dict, rows: np.ndarray) -> None:
    """Write the logged values of these write rows (in order: the last write to an element wins)."""
    if len(rows) == 0:
        return
    index = acc["index"][rows]
    last = len(index) - 1 - np.unique(index[::-1], return_index=True)[1]
    picked = rows[last]
    written = acc["value"][picked]
    if values.dtype.kind == "c" and "imag" in acc:  # a complex array's values keep their imaginary part
        written = written + 1j * acc["imag"][picked]
    values[index[last]] = written.astype(values.dtype, copy=False)


def state_at(trace: Trace, k: int, replay: Replay | None = None) -> dict:
    """The launch after its first k events: every global array's values and every thread's state."""
    replay = replay or Replay(trace)
    arrays = {entry["name"]: replay.values_at(aid, k) for aid, entry in enumerate(trace.meta["arrays"])
              if entry["space"] == "global"}  # fmt: skip
    return {"arrays": arrays, "threads": replay.thread_states(k), "time": replay.time_at(k)}
