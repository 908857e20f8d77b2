"""A fix check: a student's edited copy of a lesson held against the lesson's `## Fix checks`. The command
line (`gpuviz demo NN --check-fix FILE`) and the app's *Check my fix* both call `check_fix`.

Threat model: a student who wants "passed" without fixing the bug. So:
- the student's host code never runs: the kernels are taken from the file by syntax tree and run under the
  lesson's own script, in a worker process (run/fix_worker.py, program/kernel_file.py);
- the worker is watched from outside, on its time and its resident memory (run/watchdog.py), and killed
  with everything it started when it passes either;
- the verdict is computed here, in gpuviz's own process, from the traces the worker wrote, never from
  what it printed (which goes to a file nobody reads as a verdict).
A lesson whose fix must change host code (`host-fix` in its `## Run`) runs the student's whole script in
the same watched worker, and its verdict says that host code ran.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from gpuviz.catalog import CatalogEntry
from gpuviz.catalog.checks import Check, Outcome, applies, check_launches
from gpuviz.core.budget import default_memory_budget
from gpuviz.core.errors import GpuvizError
from gpuviz.core.events import Notify, ignore
from gpuviz.core.plain_times import plain_time_lines
from gpuviz.core.trace.model import Trace
from gpuviz.core.trace.reader import load
from gpuviz.run.fix_worker import FixJob, event_of, fix_worker_main
from gpuviz.run.own_process import ended_early
from gpuviz.run.watchdog import GRACE_SECONDS, ProcessLimits, watch_process

DEFAULT_SECONDS = 120.0
STARTUP_SECONDS = 60.0  # a fresh worker imports numpy, numba and gpuviz before its own clock starts (busy machine)
HOST_RAN = "your host code ran (this lesson's fix changes it), so the check trusts what it did"
TRACE_FILE = re.compile(r"^(?P<launch>\d{3})-\w+\.npz$")  # run/session.py's names


@dataclass(frozen=True)
class FixLimits:
    seconds: float = DEFAULT_SECONDS  # the lesson's script, from its start in the worker
    memory: int | None = None  # bytes the worker may hold in RAM; None: twice the memory budget
    startup: float = STARTUP_SECONDS  # added to `seconds` for the outside watch, which starts with the process

    def for_the_process(self) -> ProcessLimits:
        """The outside watch: the worker's own watchdog says where it was at `seconds`; this kills it later."""
        memory = self.memory if self.memory is not None else 2 * default_memory_budget()
        return ProcessLimits(self.startup + self.seconds + 2 * GRACE_SECONDS, memory)


@dataclass(frozen=True)
class FixResult:
    passed: bool
    reference: str  # "reference: ok" or what differs; "" when the lesson's script did not run to its end
    outcomes: tuple[Outcome, ...]  # each fix check with the run's value
    reason: str = ""  # one line: why it did not pass
    host_ran: bool = False  # the student's host code ran (a `host-fix` lesson)
    ran: bool = True  # False: refused, stopped or failed before the lesson's script finished
    times: tuple[str, ...] = ()  # the fix's kernels timed on a GPU as numba compiles them (core/plain_times.py)

    def lines(self) -> list[str]:
        verdict = "fix check: passed" if self.passed else f"fix check: not yet: {self.reason}"
        said = [verdict] + ([f"note: {HOST_RAN}"] if self.host_ran else [])
        times = [f"on this GPU: {line}" for line in self.times]
        return said + ([self.reference] if self.reference else []) + [str(outcome) for outcome in self.outcomes] + times


def check_fix(entry: CatalogEntry, script: str | Path, out_dir: str | Path | None = None, notify: Notify = ignore,
              backend: str = "auto", limits: FixLimits = FixLimits(),
              cancel: threading.Event | None = None) -> FixResult:  # fmt: skip
    """Run a student's edit of a lesson as the threat model above says and hold it against the lesson's
    `## Fix checks`: it passes when the lesson's own reference holds and every check does. The traces go to a
    new folder in `out_dir` when one is given (never one that may hold older traces). GpuvizError only for
    what the caller got wrong."""
    path = Path(script)
    if not entry.fix_checks:
        raise GpuvizError(f"lesson {entry.name} has no fix to check (no `## Fix checks` section)")
    if not path.is_file():
        raise GpuvizError(f"--check-fix {script}: no such file; give the path of your edited copy of the lesson")
    with tempfile.TemporaryDirectory(prefix="gpuviz-fix-") as folder:
        traces_dir = _new_folder(out_dir) if out_dir is not None else Path(folder) / "traces"
        job = FixJob(str(entry.path), str(path.resolve()), folder, str(traces_dir), entry.run_options(backend),
                     limits.seconds, entry.host_fix)  # fmt: skip
        answer, why_stopped, exit_code = _run_worker(job, limits, notify, cancel)
        if why_stopped is not None or answer.get("result") != "ran":
            reason = why_stopped or answer.get("message") or _ended(exit_code)
            return FixResult(False, "", (), _one_line(reason), entry.host_fix, ran=False)
        try:
            traces = _traces(traces_dir)
        except GpuvizError as exc:
            return FixResult(False, "", (), f"a trace of the run cannot be read: {exc}", entry.host_fix, ran=False)
        return judge(entry, str(answer.get("reference", "")), traces, entry.host_fix)


def judge(entry: CatalogEntry, reference: str, traces: list[Trace], host_ran: bool = False) -> FixResult:
    """The verdict on a run's traces: the lesson's reference held and every fix check holds."""
    backend = traces[0].meta.get("backend", "sim") if traces else "sim"
    judged = iter(check_launches(entry.fix_checks, traces, backend, entry.launch or 0))
    # A check this backend cannot judge (`sim: warp_sync_divergence == 0` on a GPU) is not passed: every one must hold.
    outcomes = tuple(next(judged) if applies(check, backend) else _unjudged(check) for check in entry.fix_checks)
    failed = next((outcome for outcome in outcomes if not outcome.passed), None)
    reason = ""
    if reference != "reference: ok":
        reason = f"the lesson's script finds a wrong result ({reference.removeprefix('reference: ')})"
    elif failed is not None:
        reason = f"{failed.check.text} does not hold (the run: {failed.value_text()})"
    times = tuple(plain_time_lines(traces))
    return FixResult(not reason, reference, outcomes, _one_line(reason), host_ran, times=times)


def _unjudged(check: Check) -> Outcome:
    where = {"sim": "the simulator", "gpu": "a GPU"}[check.where]
    return Outcome(check, None, False, f"nothing to measure: only {where} judges it; check the fix there")


def _run_worker(job: FixJob, limits: FixLimits, notify: Notify,
                cancel: threading.Event | None) -> tuple[dict, str | None, int | None]:  # fmt: skip
    """Start the worker (spawned: safe beside Qt's threads) and watch it; its last result, why it was stopped
    (None: it ended by itself) and its exit code."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=fix_worker_main, args=(job, sending), name="gpuviz-fix-check", daemon=True)
    process.start()
    sending.close()
    answer: dict = {}

    def on_message(data: bytes) -> None:
        message = json.loads(data)  # ValueError for anything that is not JSON: the watch stops the worker
        if not isinstance(message, dict):
            raise ValueError("not a message")
        if "event" in message:
            notify(event_of(message))
        else:
            answer.clear()
            answer.update(message)

    try:
        why_stopped = watch_process(process, receiving, limits.for_the_process(), on_message, cancel)
    finally:
        receiving.close()
    return answer, why_stopped, process.exitcode


def _ended(exit_code: int | None) -> str:
    """Why a worker that ended without a result ended (os._exit in host code, a crash)."""
    reached = " before the lesson's script finished"
    if exit_code is not None and exit_code < 0:
        return ended_early(-exit_code, None, reached)
    return ended_early(None, exit_code, reached)


def _traces(folder: Path) -> list[Trace]:
    """The launches' traces in launch order, as far as they go without a gap."""
    found = {}
    for path in folder.glob("*.npz") if folder.is_dir() else []:
        match = TRACE_FILE.match(path.name)
        if match:
            found[int(match.group("launch"))] = path
    traces = []
    while len(traces) in found:
        traces.append(load(found[len(traces)]))
    return traces


def _new_folder(out_dir: str | Path) -> Path:
    """A fresh folder for one check's traces inside `out_dir` (`gpuviz demo --out`)."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="fix-check-", dir=out_dir))


def _one_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""
