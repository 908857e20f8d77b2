"""Loads trace files off the GUI thread: a big trace takes seconds to read, and an old one without a
stored analysis is analysed here too, so the window never freezes on either.

Results come back as Qt signals (queued to the GUI thread); a newer request makes older ones stale,
and stale results are dropped. Loaded traces are kept in a small cache, so a run's launches, which
arrive one by one, are each read once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from gpuviz.app.control.trace_cache import TraceCache
from gpuviz.core.analysis.report import analyse, is_analysed
from gpuviz.core.errors import GpuvizError
from gpuviz.core.replay import Replay
from gpuviz.core.trace.model import Trace


class TraceLoader(QObject):
    loaded = Signal(object, object)  # (list of paths, list of Trace): the latest request, done
    failed = Signal(str)  # one line
    _done = Signal(int, object, object, str)  # from the loading thread: generation, paths, traces, error

    def __init__(self, parent: QObject | None = None, cache: TraceCache | None = None) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpuviz-load")
        self._cache = cache or TraceCache()  # bounded; a file written again is read again
        self._replays: dict[int, Replay] = {}  # id(trace) -> its replay, for the traces in the cache
        self._generation = 0
        self._handled = 0  # the newest generation whose result reached the GUI thread
        self._done.connect(self._on_done)  # queued: runs on the GUI thread

    def request(self, paths: list[str], shown: int = 0, pending: frozenset[str] = frozenset()) -> None:
        """Load these traces (the cache answers for ones already read) and prepare the replay of the
        one to be shown; traces in `pending` are being analysed by the run and are not analysed here."""
        self._generation += 1
        self._pool.submit(self._load_all, list(paths), self._generation, shown, frozenset(pending))

    def cancel(self) -> None:
        """Drop what is being loaded: its result, when it comes, is stale."""
        self._generation += 1
        self._handled = self._generation

    def set_analysis(self, path: str, analysis: dict) -> None:
        """A pending trace's analysis arrived (its file was written again with it)."""
        self._cache.set_analysis(path, analysis)

    @property
    def idle(self) -> bool:
        """No request is waiting for its answer."""
        return self._handled == self._generation

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _load_all(self, paths: list[str], generation: int, shown: int, pending: frozenset[str]) -> None:
        """On the loading thread (the only one that loads into the cache)."""
        try:
            traces = [self._load_one(path, path in pending) for path in paths]
            if traces:
                self.replay_of(traces[min(shown, len(traces) - 1)])  # built here, off the GUI thread
            self._done.emit(generation, paths, traces, "")
        except (GpuvizError, OSError) as exc:
            self._done.emit(generation, paths, [], str(exc))
        except Exception as exc:  # a file no check foresaw must not kill the loading thread
            self._done.emit(generation, paths, [], f"could not load the trace: {type(exc).__name__}: {exc}")

    def _on_done(self, generation: int, paths: list[str], traces: list, error: str) -> None:
        self._handled = max(self._handled, generation)
        if generation != self._generation:  # a newer request makes this one stale
            return
        if error:
            self.failed.emit(error)
        else:
            self.loaded.emit(paths, traces)

    def _load_one(self, path: str, pending: bool = False) -> Trace:
        trace = self._cache.get(path)
        if not is_analysed(trace) and not pending:  # written by a gpuviz that did not store its analysis
            trace.analysis = analyse(trace)
        return trace

    def replay_of(self, trace: Trace) -> Replay | None:
        """The trace's replay, built once (on the loading thread, when it prepares the trace shown)."""
        if trace.accesses is None:
            return None
        if id(trace) not in self._replays:
            if len(self._replays) > 2 * self._cache.max_traces:
                self._replays.clear()
            self._replays[id(trace)] = Replay(trace)
        return self._replays[id(trace)]
