"""A session runs launches on one backend, saves each trace and reports one line per launch."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuviz.backends import get_backend
from gpuviz.core.analysis.memcheck import format_errors
from gpuviz.core.analysis.report import analyse, race_summary
from gpuviz.core.errors import PartlySavedError
from gpuviz.core.events import LogLine, Notify, Stage, ignore
from gpuviz.core.findings import Findings, findings_of
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.launch_guard import check_fits, estimate_trace, worth_announcing
from gpuviz.core.modelled import modelled_notes
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.model import Trace
from gpuviz.run.repeat import repeat_launch


@dataclass(frozen=True)
class LaunchRecord:
    index: int
    kernel: str
    config: LaunchConfig
    backend: str
    seconds: float
    path: Path | None
    races: str = ""
    errors: int = 0  # memory errors (out-of-bounds, uninitialised shared reads, barrier divergence)
    engine: str = ""  # simulator: which engine ran the launch, and why the reference one if it did
    findings: Findings | None = None  # races, memory errors and divergence, counted (core/findings.py)

    def to_json(self) -> dict:
        """The launch as `gpuviz run --json` and `gpuviz demo --json` print it (core/json_schema.py: LAUNCH)."""
        c = self.config
        return {"index": self.index, "kernel": self.kernel, "grid": list(c.grid), "block": list(c.block),
                "threads": c.threads, "backend": self.backend, "engine": self.engine.strip().removeprefix("engine="),
                "seconds": round(self.seconds, 6), "trace": None if self.path is None else str(self.path),
                "findings": None if self.findings is None else self.findings.to_json()}  # fmt: skip


class Session:
    def __init__(
        self,
        options: RunOptions | None = None,
        out_dir: str | Path | None = None,
        notify: Notify = ignore,
        keep_traces: bool = False,
        overrides: dict[int, tuple] | None = None,
        on_trace: Callable[[LaunchRecord, Trace], None] | None = None,
        on_unanalysed: Callable[[Path, int, str], None] | None = None,
    ):
        self.options = options or RunOptions()
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.notify = notify  # stages, progress and log lines (core/events.py)
        self.keep_traces = keep_traces
        self.on_trace = on_trace  # called with each launch's record once its trace is saved
        # Called with (path, launch, kernel) once a trace is saved without its analysis, before the
        # analysis runs (the trace is then saved again with it): the app shows a launch meanwhile.
        self.on_unanalysed = on_unanalysed
        self.overrides = overrides or {}  # launch index -> (grid or None, block or None) instead of the script's
        self.records: list[LaunchRecord] = []
        self.traces: list[Trace] = []
        self._backend = None
        self._timeline = None
        self.running: tuple[str, float] | None = None  # (kernel, perf_counter at its start) while one runs

    @property
    def backend(self):
        if self._backend is None:
            self._backend = get_backend(self.options.backend)
        return self._backend

    def suggested_block_size(self, py_func, args: tuple, shared_bytes: int = 0) -> int:
        """The block size numba's `forall` (and so `@vectorize`) launches this kernel with."""
        return self.backend.suggested_block_size(py_func, tuple(args), self.options, shared_bytes)

    @property
    def timeline(self):
        """The run's copies, launches and events per stream (core/streams.py), modelled or measured."""
        if self._timeline is None:
            self._timeline = self.backend.new_timeline()
        return self._timeline

    def finish(self) -> None:
        """The script has ended: the last launch's trace (in memory) carries the whole run's timeline."""
        if self.traces and self._timeline is not None:
            self.traces[-1].meta["streams"] = self._timeline.snapshot(wait=True).to_json()

    def launch(self, py_func, grid, block, args: tuple, shared_bytes: int = 0, stream: int = 0) -> Trace:
        new_grid, new_block = self.overrides.get(len(self.records), (None, None))
        grid, block = new_grid or grid, new_block or block
        config = LaunchConfig.of(grid, block, shared_bytes)
        self._guard(py_func.__name__, config, tuple(args))
        self.notify(Stage("running", f"running {py_func.__name__} ({config.threads:,} threads)"))
        started = time.perf_counter()
        self.running = (py_func.__name__, started)  # what a timeout reports (run/watchdog.py)
        timeline = self.timeline  # made before the launch: a measured one's clock starts before its copies
        try:
            trace = self.backend.run(py_func, config, tuple(args), self.options, notify=self.notify)
            seconds = time.perf_counter() - started
            if self.options.repeat > 1:
                repeat_launch(self.backend, py_func, config, trace, self.options)
        finally:
            self.running = None
        index = len(self.records)
        trace.meta["launch"] = index
        timeline.add_launch(trace, tuple(args), stream)
        trace.meta["streams"] = timeline.snapshot().to_json()  # up to the end of this launch
        unanalysed, partly = None, None
        if self.on_unanalysed is not None and self.out_dir is not None:
            # Not synced: the file is written again (synced) with its analysis below; the app reads
            # this one from the page cache meanwhile, and a crash before then loses the run either way.
            unanalysed, partly = _saved(lambda: trace.save(self._path(index, trace), durable=False))
            self.on_unanalysed(unanalysed, index, trace.kernel)
        self.notify(Stage("analysing", f"analysing {trace.kernel}"))
        trace.analysis = analyse(trace)  # once, here: every reader of the trace reads this
        races = race_summary(trace)
        path = None
        if unanalysed is not None:
            path = trace.save_analysis(unanalysed)  # the arrays as written, the analysis added
        elif self.out_dir is not None:
            path, partly = _saved(lambda: trace.save(self._path(index, trace)))  # whole or not at all
        record = LaunchRecord(index, trace.kernel, config, trace.meta["backend"], seconds, path, races,
                              trace.error_count, engine_label(trace.meta), findings_of(trace))  # fmt: skip
        self.records.append(record)
        if self.keep_traces:
            self.traces.append(trace)
        self._report(record, trace)
        if self.on_trace is not None:
            self.on_trace(record, trace)
        if partly is not None:  # the launch is kept (in memory and as far as it could be written): say what was not
            raise partly
        return trace

    def _path(self, index: int, trace: Trace) -> Path:
        return self.out_dir / f"{index:03d}-{trace.kernel}.npz"

    def _guard(self, kernel: str, config: LaunchConfig, args: tuple) -> None:
        """Refuse a launch whose trace cannot fit the budget or the disk; announce a big one."""
        level = self.options.level_for(config.threads)
        recorded = len(self.options.blocks) * config.threads_per_block if self.options.blocks else None
        estimate = estimate_trace(kernel, config.threads, level, args, self.options.repeat, recorded)
        check_fits(estimate, self.options.memory_budget, self.out_dir)
        if worth_announcing(estimate, self.options.memory_budget):
            self.notify(LogLine(f"[gpuviz] {estimate.announce()}"))

    def _report(self, record: LaunchRecord, trace: Trace) -> None:
        self.notify(LogLine(summary_line(record)))
        for warning in trace.meta.get("warnings", []):
            self.notify(LogLine(f"    warning: {warning}"))
        for note in modelled_notes(trace.meta):
            self.notify(LogLine(f"    model: {note}"))
        for line in format_errors(trace):
            self.notify(LogLine(f"    {line}"))
        if trace.truncated and not any("access log capped" in w for w in trace.meta.get("warnings", [])):
            self.notify(LogLine(f"    warning: access log capped at {self.options.access_cap:,} events (truncated)"))


def _saved(save: Callable[[], Path]) -> tuple[Path, PartlySavedError | None]:
    """Where a trace was saved, and the error naming what it was saved without, if anything."""
    try:
        return save(), None
    except PartlySavedError as exc:
        return exc.path, exc


def summary_line(record: LaunchRecord) -> str:
    c = record.config
    saved = f" -> {record.path}" if record.path else ""
    races = f" {record.races};" if record.races else ""
    return (
        f"[gpuviz] {record.index:03d} {record.kernel} {c.describe()} threads={c.threads:,} "
        f"backend={record.backend}{record.engine} time={_duration(record.seconds)};{races}{saved}"
    )


def engine_label(meta: dict) -> str:
    """' engine=vector', or ' engine=reference (why)' when the simulator did not use its default engine."""
    engine = meta.get("engine")
    if not engine:
        return ""
    note = meta.get("engine_note") or ""
    return f" engine={engine} ({note})" if note and note != "chosen" else f" engine={engine}"


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
