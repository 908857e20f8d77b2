"""What a run asks for: backend, recording level, schedule. Frozen, so it can cross to a worker process."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpuviz.core.budget import default_memory_budget
from gpuviz.core.errors import GpuvizError

BACKEND_CHOICES = ("auto", "sim", "gpu")
LEVELS = ("auto", "threads", "accesses")
SCHEDULES = ("gpu", "sequential", "reversed")  # reversed: one thread at a time, the last thread first
DEVICES = ("h200", "h100", "a100", "t4", "rtx3060-laptop", "rtx4060-laptop")  # simulator presets (sim/device.py)
# simulator: `auto` (the compiled fast path where this kernel's is compiled already, else the vector engine,
# which hands a long run to the fast path: backends/sim/backend.py), the vectorised engine, the per-thread
# reference engine, or the compiled fast path (the vector engine where the fast path cannot run a launch)
ENGINES = ("auto", "vector", "reference", "fast")
AUTO_ACCESS_LIMIT = 1 << 21  # above this many threads, `auto` records threads (on the simulator: + AUTO_BLOCKS')
AUTO_BLOCKS = (0, -1)  # the blocks whose accesses are kept when not all are: the first and the last


@dataclass(frozen=True)
class RunOptions:
    backend: str = "auto"
    level: str = "auto"
    schedule: str = "gpu"
    seed: int = 0
    sms: int | None = None  # simulator: number of virtual SMs (default: the device's)
    access_cap: int = 1 << 26  # events; 64 Mi
    repeat: int = 1  # run each launch this many times from the same inputs (outcome distributions)
    memory_budget: int = field(default_factory=default_memory_budget)  # bytes (core/budget.py)
    engine: str = "auto"  # simulator engine (falls back to `reference` per kernel where it must)
    device: str = "h200"  # simulator: a device preset (backends/sim/device.py)
    blocks: tuple[int, ...] = ()  # record accesses of these linear blocks only (negative: from the end); () all
    stop_stuck: bool = True  # simulator: stop a kernel that can make no progress (off when --timeout is given)
    guard: bool = False  # GPU, level accesses: check every access against its array first (a fault shows where)

    def __post_init__(self) -> None:
        _check("backend", self.backend, BACKEND_CHOICES)
        _check("level", self.level, LEVELS)
        _check("schedule", self.schedule, SCHEDULES)
        _check("engine", self.engine, ENGINES)
        _check("device", self.device, DEVICES)
        if self.sms is not None and not 1 <= self.sms <= 100_000:
            raise GpuvizError(f"sms is {self.sms}; use a number of SMs from 1 to 100000")
        if self.access_cap < 0:
            raise GpuvizError("access_cap must be zero or more")
        if self.memory_budget < 1 << 20:
            raise GpuvizError(f"memory budget is {self.memory_budget} bytes; allow at least 1 MiB")
        if not 1 <= self.repeat <= 10_000:
            raise GpuvizError(f"repeat is {self.repeat}; run a launch from 1 to 10000 times")

    def level_for(self, threads: int) -> str:
        if self.level != "auto":
            return self.level
        return "accesses" if threads <= AUTO_ACCESS_LIMIT else "threads"

    def with_(self, **changes) -> RunOptions:
        return replace(self, **changes)


def _check(what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise GpuvizError(f"{what} {value!r} is not known; use one of: {', '.join(allowed)}")
