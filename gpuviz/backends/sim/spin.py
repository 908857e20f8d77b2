"""A kernel that can make no progress, seen while it runs: threads that read the same few elements over
and over, the same values each time, while no thread of the launch writes memory. Nothing they read
can change, so the loop they are in never ends (a spin-wait on a flag no running thread sets, a lock
that is never released). The run stops with the threads, the line and the value they spin on.

Both engines report their reads here: the vector engine each batch load, the reference engine (whose
loads are its hottest code) every SAMPLE-th thread load."""

from __future__ import annotations

from collections.abc import Callable

from gpuviz.core.errors import KernelError
from gpuviz.core.numbers import number

CHECKS = 50_000  # reads reported with no write anywhere in the launch: a few seconds of running
REPEATS = 100  # ... each (line, element, value) seen at least this many times on average
MAX_SEEN = 4096  # distinct reads remembered between writes (more: the kernel is reading new data)
SAMPLE = 16  # the reference engine reports one thread load in this many
MAX_READERS = 1 << 16  # (thread, element) pairs remembered between writes, where reads name their thread


class SpinWatch:
    def __init__(self, kernel: str, arrays) -> None:
        self.kernel, self.arrays = kernel, arrays  # the launch's ArrayTable: shared arrays join it as they are made
        self.since = 0  # reads reported since the last write of any thread
        self.seen: set[tuple] = set()
        self.readers: set[tuple] = set()  # (thread, line, array, element) read since the last write
        self.again = 0  # reads of an element its own thread had read since the last write

    def wrote(self) -> None:
        if self.since:
            self.since = self.again = 0
            self.seen.clear()
            self.readers.clear()

    def read(self, aid: int | None, flat: int, value, line: int, who: Callable[[], str],
             thread: int | None = None) -> None:  # fmt: skip
        """One read: stop the run once reading has gone on long enough with nothing new read. `who`
        words the threads reading ("64 threads of block 0"), asked only then. `thread`: the reading thread,
        where the engine runs one at a time: a spin is then a thread reading what it read before (many
        blocks reading one tile of a matrix once each, with no write between, read few elements too)."""
        self.since += 1
        self.seen.add((line, aid, flat, value))
        if len(self.seen) > MAX_SEEN:  # more than a few distinct reads: the kernel is reading new data
            self.wrote()  # a fresh window (a real spin reads few, and fills one again)
            return
        if thread is not None:
            key = (thread, line, aid, flat)
            if key in self.readers:
                self.again += 1
            elif len(self.readers) < MAX_READERS:  # beyond: new pairs count as new (a spin missed, never made up)
                self.readers.add(key)
            if self.again * 2 < self.since:
                return
        if self.since >= CHECKS and len(self.seen) * REPEATS <= self.since:
            name = self.arrays.entries[aid]["name"] if aid is not None and aid < len(self.arrays.entries) else None
            what = f"{name}[{flat:,}] = {number(value)}" if name is not None and value is not None else "memory"
            raise KernelError(f"{self.kernel}: no progress: {who()} spin on line {line}, reading {what} over and "
                              "over with no thread writing memory meanwhile, so nothing they read can change and "
                              "the loop never ends; on a GPU it would hang (`gpuviz run --timeout N` lets it run "
                              "for N seconds all the same)", line)
