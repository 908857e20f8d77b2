"""What goes wrong in a simulated thread: faults that stop it, and the launch's memory-error log."""

from __future__ import annotations


class ThreadFault(Exception):
    """An error one thread hit, already worded for people; the engine adds who and where."""


class KernelLimit(ThreadFault):
    """A limit of the whole kernel met as it ran (its shared or local memory, sized only then): the engine
    names the line, not the thread that happened to get there first."""


class MemoryFault(ThreadFault):
    """An out-of-bounds access: recorded as a memory error; the thread stops, the launch goes on."""

    def __init__(self, message: str, kind: str, array: str, index: object):
        super().__init__(message)
        self.kind, self.array, self.index = kind, array, index


class ErrorLog:
    """Memory errors of one launch, as compute-sanitizer lists them: kind, thread, line, array, element.
    Every error is counted; the first MAX_ERRORS are kept in full. Also what threads print."""

    MAX_ERRORS = 1000

    def __init__(self) -> None:
        self.errors: list[dict] = []
        self.count = 0
        self.printed: list[dict] = []  # print() inside the kernel: thread, line, text

    def add(self, kind: str, thread: int, line: int | None, array: str | None, index: object) -> None:
        self.count += 1
        if len(self.errors) < self.MAX_ERRORS:
            element = list(index) if isinstance(index, tuple) else index
            self.errors.append({"kind": kind, "thread": int(thread), "line": line, "array": array,
                                "element": _plain(element)})  # fmt: skip


    def add_divergence(self, skipped: int, waiting: int, line: int | None) -> None:
        """Barrier divergence: `skipped` (a thread of the block) never reached the barrier at `line`,
        where `waiting` waits; listed with the errors, it is not a memory error (core/error_report.py)."""
        self.add("barrier divergence", skipped, line, None, None)
        if len(self.errors) <= self.MAX_ERRORS and self.errors[-1]["thread"] == skipped:
            self.errors[-1]["waiting"] = int(waiting)

    def add_warp_sync_divergence(self, missing: int, waiting: int, line: int | None) -> None:
        """Warp-sync divergence: `missing`, a lane of a syncwarp's mask that had not exited, never reached a
        syncwarp with that mask, which `waiting` reached at `line` (backends/sim/syncwarps.py); listed
        with the errors like barrier divergence, it is not a memory error either."""
        self.add("warp-sync divergence", missing, line, None, None)
        if len(self.errors) <= self.MAX_ERRORS and self.errors[-1]["thread"] == missing:
            self.errors[-1]["waiting"] = int(waiting)

    def add_many(self, kind: str, threads: list[int], line: int | None, array: str | None, elements: list) -> None:
        """The same error of many threads at once (the vector engine's lanes), in thread order."""
        room = max(0, self.MAX_ERRORS - len(self.errors))
        for thread, element in zip(threads[:room], elements[:room]):
            element = list(element) if isinstance(element, tuple) else element
            self.errors.append({"kind": kind, "thread": int(thread), "line": line, "array": array,
                                "element": _plain(element)})  # fmt: skip
        self.count += len(threads)


def _plain(element):
    if isinstance(element, list):
        return [_plain(e) for e in element]
    return element.item() if hasattr(element, "item") else element
