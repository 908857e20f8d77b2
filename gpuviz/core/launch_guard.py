"""Before a launch runs: what its trace will take in memory and on disk, against the memory budget and
the free disk, so that a launch that cannot fit is refused with what it would take and what to do."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpuviz.core.budget import format_bytes, format_over
from gpuviz.core.errors import GpuvizError
from gpuviz.core.trace.codec import DERIVED_THREAD_COLUMNS
from gpuviz.core.trace.columns import ACCESS_COLUMNS, THREAD_COLUMNS

THREAD_BYTES = sum(np.dtype(t).itemsize * (3 if k.endswith("_idx") else 1) for k, t in THREAD_COLUMNS.items())
# On disk (core/trace/codec.py) the layout columns are not stored, and the others at most as wide as in memory
# before they are narrowed and deflated: an upper bound, often far above the file (a launch's times compress).
STORED_THREAD_BYTES = sum(np.dtype(t).itemsize for k, t in THREAD_COLUMNS.items() if k not in DERIVED_THREAD_COLUMNS)
ACCESS_BYTES = sum(np.dtype(t).itemsize for t in ACCESS_COLUMNS.values())
ANNOUNCE_BYTES = 256 << 20  # a trace this big is announced before the launch starts
RAISE_BUDGET = "raise the budget with --max-memory or GPUVIZ_MEMORY_BUDGET"


class LaunchTooBig(GpuvizError):
    """The launch's trace cannot fit the memory budget or the free disk."""


@dataclass(frozen=True)
class TraceEstimate:
    """The least a launch's trace takes: thread columns, argument snapshots, and at level accesses one
    access per thread (a kernel usually makes more; the engine records the log within the budget)."""

    kernel: str
    threads: int
    level: str
    thread_bytes: int
    snapshot_bytes: int
    access_bytes: int

    @property
    def memory(self) -> int:
        return self.thread_bytes + self.snapshot_bytes + self.access_bytes

    @property
    def disk(self) -> int:
        """The most the trace file can take (before its columns are narrowed and deflated)."""
        return self.threads * STORED_THREAD_BYTES + self.snapshot_bytes + self.access_bytes

    def describe(self) -> str:
        return (f"{self.kernel}: {self.threads:,} threads at level {self.level} make a trace of at least "
                f"{format_bytes(self.memory)}")  # fmt: skip

    def announce(self) -> str:
        """A big launch's line before it runs: what its trace takes in memory, and at most on disk."""
        return (f"{self.describe()} in memory, and a file of at most {format_bytes(self.disk)} "
                "(usually far less: its columns are narrowed and compressed)")


def estimate_trace(kernel: str, threads: int, level: str, args: tuple, repeat: int = 1,
                   recorded_threads: int | None = None) -> TraceEstimate:  # fmt: skip
    """`args` as the kernel gets them: arrays (anything with nbytes and a shape) are snapshotted
    before and after, and once more per repeated run plus its lost-update and serial outcomes.
    `recorded_threads`: the threads whose accesses are recorded (those of the chosen blocks; all by default)."""
    arrays = sum(int(getattr(a, "nbytes", 0)) for a in args if hasattr(a, "shape"))
    copies = 2 if repeat == 1 else 2 + 2 * repeat + 1
    recorded = threads if recorded_threads is None else min(threads, recorded_threads)
    accesses = recorded * ACCESS_BYTES if level == "accesses" else 0
    return TraceEstimate(kernel, threads, level, threads * THREAD_BYTES, arrays * copies, accesses)


def check_fits(estimate: TraceEstimate, budget: int, out_dir: str | Path | None = None) -> None:
    """Refuse, in one line that says what to do, a launch whose trace cannot fit."""
    least = estimate.thread_bytes + estimate.snapshot_bytes  # level threads: the least any recording takes
    if least > budget:
        need, have = format_over(least, budget)
        raise LaunchTooBig(
            f"{estimate.kernel}: {estimate.threads:,} threads need at least {need} for their trace, "
            f"over the memory budget of {have}; launch fewer threads or {RAISE_BUDGET}"
        )
    if estimate.memory > budget:
        raise LaunchTooBig(
            f"{estimate.describe()}, over the memory budget of {format_bytes(budget)}; record with "
            f"--level threads ({format_bytes(least)}), or the accesses of a few blocks with --blocks, or {RAISE_BUDGET}"
        )
    free = free_disk(out_dir) if out_dir is not None else None
    if free is not None and estimate.disk > free:
        raise LaunchTooBig(
            f"{estimate.describe()}, but {out_dir} has {format_bytes(free)} free; free some space or "
            f"write the traces elsewhere with --out"
        )


def plan(estimate: TraceEstimate, budget: int) -> str:
    """What a launch's recording does within the budget: `all` of it fits; `narrowed`: every thread
    but the accesses of a few blocks only; `refused`: not even every thread fits."""
    if estimate.thread_bytes + estimate.snapshot_bytes > budget:
        return "refused"
    return "narrowed" if estimate.memory > budget else "all"


def free_disk(folder: str | Path) -> int | None:
    """Free bytes where `folder` is or would be created; None when that cannot be told."""
    path = Path(folder).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def worth_announcing(estimate: TraceEstimate, budget: int) -> bool:
    return estimate.memory >= min(ANNOUNCE_BYTES, math.ceil(budget / 4))
