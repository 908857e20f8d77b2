"""A bounded cache of loaded traces, least recently used out first: the app keeps the traces it shows,
not every trace it ever showed. Qt-free, so it is tested without a window."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from gpuviz.core.budget import default_memory_budget
from gpuviz.core.trace.model import Trace
from gpuviz.core.trace.reader import load

MAX_TRACES = 8


def trace_bytes(trace: Trace) -> int:
    """The memory a loaded trace's arrays take."""
    arrays = [*trace.threads.values(), *(trace.accesses or {}).values(), *trace.outcomes.values()]
    arrays += [array for pair in trace.args.values() for array in pair]
    return sum(array.nbytes for array in arrays)


class TraceCache:
    """Traces by file; a file rewritten since it was loaded (another run) is loaded again."""

    def __init__(self, max_traces: int = MAX_TRACES, max_bytes: int | None = None,
                 loader: Callable[[Path], Trace] = load):  # fmt: skip
        if max_traces < 1:
            raise ValueError("a trace cache holds at least one trace")
        self.max_traces = max_traces
        self.max_bytes = default_memory_budget() if max_bytes is None else max_bytes
        self._load = loader
        self._entries: OrderedDict[Path, tuple[tuple[int, int], Trace, int]] = OrderedDict()
        self._lock = threading.Lock()  # get() may run on a loading thread while the window reads

    def get(self, path: str | Path) -> Trace:
        """The trace of `path`, loaded now or earlier; a load error passes through and caches nothing."""
        key = Path(path).absolute()
        stamp = _stamp(key)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == stamp:
                self._entries.move_to_end(key)
                return entry[1]
        trace = self._load(key)  # outside the lock: other paths stay readable meanwhile
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = (stamp, trace, trace_bytes(trace))
            self._shrink()
        return trace

    def _shrink(self) -> None:
        """Oldest out while over either bound; the newest trace stays whatever its size."""
        while len(self._entries) > 1 and (len(self._entries) > self.max_traces or self.nbytes > self.max_bytes):
            self._entries.popitem(last=False)

    @property
    def nbytes(self) -> int:
        return sum(size for _, _, size in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, path: str | Path) -> bool:
        return Path(path).absolute() in self._entries

    def set_analysis(self, path: str | Path, analysis: dict) -> None:
        """The file was written again with its analysis (the same columns): the cached trace gets it
        and the file's new stamp, so it is not read again."""
        key = Path(path).absolute()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                entry[1].analysis = analysis
                self._entries[key] = (_stamp(key), entry[1], entry[2])

    def discard(self, path: str | Path) -> None:
        with self._lock:
            self._entries.pop(Path(path).absolute(), None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0)  # the loader says what is wrong with the path
    return (info.st_mtime_ns, info.st_size)
