"""A session runs launches on one backend, saves each trace and reports one line per launch."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuviz.backends import get_backend
from gpuviz.core.errors import GpuvizError
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.options import RunOptions
from gpuviz.core.trace import Trace
from gpuviz.program.launcher import set_default_factory
from gpuviz.run.repeat import race_summary, repeat_launch


@dataclass(frozen=True)
class LaunchRecord:
    index: int
    kernel: str
    config: LaunchConfig
    backend: str
    seconds: float
    path: Path | None
    races: str = ""


class Session:
    def __init__(
        self,
        options: RunOptions | None = None,
        out_dir: str | Path | None = None,
        report: Callable[[str], None] | None = None,
        keep_traces: bool = False,
        stage: Callable[[str], None] | None = None,
        overrides: dict[int, tuple] | None = None,
    ):
        self.options = options or RunOptions()
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.report = report
        self.keep_traces = keep_traces
        self.stage = stage or (lambda what: None)  # says what a launch is doing (running, recording)
        self.overrides = overrides or {}  # launch index -> (grid or None, block or None) instead of the script's
        self.records: list[LaunchRecord] = []
        self.traces: list[Trace] = []
        self._backend = None

    @property
    def backend(self):
        if self._backend is None:
            self._backend = get_backend(self.options.backend)
        return self._backend

    def launch(self, py_func, grid, block, args: tuple) -> Trace:
        new_grid, new_block = self.overrides.get(len(self.records), (None, None))
        grid, block = new_grid or grid, new_block or block
        config = LaunchConfig.of(grid, block)
        self.stage(f"running {py_func.__name__} ({config.threads:,} threads)")
        started = time.perf_counter()
        trace = self.backend.run(py_func, config, tuple(args), self.options, progress=self.report)
        seconds = time.perf_counter() - started
        index = len(self.records)
        trace.meta["launch"] = index
        if self.options.repeat > 1:
            repeat_launch(self.backend, py_func, config, trace, self.options)
        self.stage("recording")
        races = race_summary(trace)
        path = None
        if self.out_dir is not None:
            target = self.out_dir / f"{index:03d}-{trace.kernel}.npz"
            try:
                path = trace.save(target)
            except OSError as exc:
                raise GpuvizError(f"cannot write the trace to {target}: {exc.strerror or exc}") from None
        record = LaunchRecord(index, trace.kernel, config, trace.meta["backend"], seconds, path, races)
        self.records.append(record)
        if self.keep_traces:
            self.traces.append(trace)
        self._report(record, trace)
        return trace

    def _report(self, record: LaunchRecord, trace: Trace) -> None:
        if self.report is None:
            return
        self.report(summary_line(record))
        for warning in trace.meta.get("warnings", []):
            self.report(f"    warning: {warning}")
        if trace.truncated:
            self.report(f"    warning: access log capped at {self.options.access_cap:,} events (truncated)")


def summary_line(record: LaunchRecord) -> str:
    c = record.config
    saved = f" -> {record.path}" if record.path else ""
    races = f" {record.races};" if record.races else ""
    return (
        f"[gpuviz] {record.index:03d} {record.kernel} {c.describe()} threads={c.threads:,} "
        f"backend={record.backend} time={_duration(record.seconds)};{races}{saved}"
    )


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


set_default_factory(lambda: Session(report=None))  # launches outside `gpuviz run`: a quiet simulator


def print_report(line: str) -> None:
    sys.stdout.flush()  # keep the script's own output and the launch lines in order
    print(line, file=sys.stderr, flush=True)
