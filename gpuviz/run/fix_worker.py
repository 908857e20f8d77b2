"""The body of a fix check's worker process; run/fix_check.py starts it, watches it and judges what it wrote.

The worker runs the lesson's own script with the student's kernels in place of the lesson's
(program/kernel_file.py): the student's host code never runs. It writes the traces of the launches and
answers with JSON lines over a pipe (never a pickle, which could run code in the process that reads it):
the run's events as they happen, then one result: the lesson's script ran (and whether its own reference
held), the student's file was refused, or the run failed. What the code prints goes to a file of the
check's folder, never to the terminal or the app, where it could pass for a verdict.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from gpuviz.core.events import Event, LogLine, Progress, Stage
from gpuviz.core.options import RunOptions

EVENTS = {"stage": Stage, "progress": Progress, "log": LogLine}
MAX_SCRIPT_BYTES = 1 << 20


@dataclass(frozen=True)
class FixJob:
    lesson_script: str  # the lesson's own script: its host code runs
    student_script: str  # the student's edited copy: only its kernels run, unless `host_code`
    folder: str  # the check's own folder: the kernel file, the host, what the code printed (printed.txt)
    traces: str  # a fresh, empty folder for the launches' traces
    options: RunOptions
    seconds: float  # the worker's own watchdog, which says where the run was (the watcher kills later)
    host_code: bool = False  # the lesson's fix changes host code: the student's whole script runs


def fix_worker_main(job: FixJob, connection) -> None:
    """Entry point of the worker process (multiprocessing, spawn)."""
    from gpuviz.run.allocator import keep_freed_memory
    from gpuviz.run.lifeline import die_with_parent

    die_with_parent()
    keep_freed_memory()
    _own_process_group()
    _print_to(Path(job.folder) / "printed.txt")
    answer = Answer(connection)
    try:
        answer(check_in_worker(job, answer))
    except BaseException as exc:  # noqa: BLE001 - the worker always answers, whatever the code did
        answer({"result": "failed", "message": f"{type(exc).__name__}: {exc}", "line": 0})
    finally:
        connection.close()


def check_in_worker(job: FixJob, answer: Answer) -> dict:
    """Run the lesson's script with the student's kernels (or, for a host-code fix, the student's script) and
    say how it went; the launches' traces are in `job.traces`."""
    from gpuviz.core.errors import GpuvizError
    from gpuviz.program.kernel_file import KernelFileRefused
    from gpuviz.program.script import ScriptError, run_script
    from gpuviz.run.demo import gist
    from gpuviz.run.session import Session
    from gpuviz.run.watchdog import RunTimeout, Watchdog

    try:
        script = job.student_script if job.host_code else _lesson_with_student_kernels(job)
    except GpuvizError as exc:
        return {"result": "refused", "message": str(exc), "line": getattr(exc, "line", None) or 0}
    session = Session(job.options, out_dir=job.traces, notify=answer.event)

    def stuck(message: str) -> None:  # the watchdog's last words, when Python could not be interrupted
        answer({"result": "stopped", "message": message, "line": 0})

    try:
        with Watchdog(job.seconds, session, script, on_stuck=stuck, hint="a fix check stops there"):
            run_script(script, session)
        reference = "reference: ok"
    except ScriptError as exc:
        reference = "reference: differs: " + gist(str(exc))
    except RunTimeout as exc:
        return {"result": "stopped", "message": str(exc), "line": 0}
    except GpuvizError as exc:
        result = "refused" if isinstance(exc, KernelFileRefused) else "failed"
        return {"result": result, "message": str(exc), "line": getattr(exc, "line", None) or 0}
    return {"result": "ran", "reference": reference, "launches": len(session.records)}


def _lesson_with_student_kernels(job: FixJob) -> str:
    """Write the student's kernels (taken by syntax tree) and the lesson's host that loads them; the host's path."""
    from gpuviz.program.kernel_file import host_with_kernels_of, kernel_names, take_kernels

    student, lesson = Path(job.student_script), Path(job.lesson_script)
    lesson_text = lesson.read_text(encoding="utf-8")
    taken = take_kernels(_read(student), kernel_names(lesson_text), student.name)
    kernels = Path(job.folder) / "kernels" / student.name  # named as the student named it: messages say its name
    host = Path(job.folder) / "lesson" / lesson.name
    for path, text in ((kernels, taken.text), (host, host_with_kernels_of(lesson_text, kernels))):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(host)


def _read(path: Path) -> str:
    from gpuviz.program.kernel_file import KernelFileRefused

    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_SCRIPT_BYTES + 1)
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelFileRefused(f"{path.name} cannot be read: {exc}") from None


def _own_process_group() -> None:
    """Lead a process group of its own, so that the watcher can end everything the code started at once."""
    with contextlib.suppress(OSError, AttributeError):  # no sessions here: the watcher kills this process alone
        os.setsid()


def _print_to(path: Path) -> None:
    """Send the process's stdout and stderr (Python's and the CUDA driver's printf alike) into a file."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    os.close(descriptor)


class Answer:
    """JSON lines to the watcher, one message at a time (the watchdog's thread may answer too)."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.lock = threading.Lock()

    def __call__(self, message: dict) -> None:
        data = json.dumps(message).encode()
        with self.lock:
            self.connection.send_bytes(data)

    def event(self, event: Event) -> None:
        kind = next(name for name, kind in EVENTS.items() if isinstance(event, kind))
        self({"event": kind, **asdict(event)})


def event_of(message: dict) -> Event:
    """An event as the worker sent it; ValueError for anything else."""
    kind = EVENTS.get(message.get("event"))
    if kind is None:
        raise ValueError(f"not an event: {message!r:.80}")
    fields = {key: value for key, value in message.items() if key != "event"}
    try:
        return kind(**fields)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
