"""`gpuviz run` from the command line runs the script in a child process of its own (fork), as the app
runs it in a worker: a script that ends its interpreter (a signal such as SIGSEGV, os._exit) leaves the
command standing to say so in one line, with the launch and the script's line it had reached."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

DONE = "\0done"
EXIT_STUCK = 124  # run/watchdog.py: a run past its timeout that Python could not interrupt


def run_apart(work: Callable[[Callable[[str], None]], int]) -> int:
    """`work(say)` in a child process; its exit status, or 1 and one line when the child died. `say(text)`
    tells the parent how far the script got (the last one is what a death reports)."""
    if not hasattr(os, "fork"):
        return work(lambda text: None)
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without running the parent's clean-ups twice
        os.close(read_end)
        os._exit(_child(work, write_end))
    os.close(write_end)
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the child's to report
    try:
        last, done = _listen(read_end)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, interrupt)
    return _verdict(status, last, done)


def _child(work: Callable[[Callable[[str], None]], int], write_end: int) -> int:
    def say(text: str) -> None:
        os.write(write_end, (text.replace("\n", " ") + "\n").encode())

    code = 1
    try:
        code = work(say)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child must always leave through os._exit
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        say(DONE)
    return code


def _listen(read_end: int) -> tuple[str, bool]:
    last, done = "", False
    with os.fdopen(read_end, "rb") as stream:
        for raw in stream:
            text = raw.decode(errors="replace").rstrip("\n")
            if text == DONE:
                done = True
            else:
                last = text
    return last, done


def _verdict(status: int, last: str, done: bool) -> int:
    reached = f" during {last}" if last else " before its first launch"
    if os.WIFSIGNALED(status):
        print(f"error: {ended_early(os.WTERMSIG(status), None, reached)}", file=sys.stderr)
        return 1
    code = os.WEXITSTATUS(status)
    if not done and code != EXIT_STUCK:  # the watchdog said its own line before it ended the process
        print(f"error: {ended_early(None, code, reached)}", file=sys.stderr)
        return code or 1
    return code


def ended_early(signal_number: int | None, code: int | None, reached: str) -> str:
    """One line for a script's process that ended before it said it was done: killed by a signal, or
    ended (os._exit, a crash that exits); `reached` says how far it got, e.g. " during launch 2 (...)"."""
    if signal_number is not None:
        known = signal_number in signal.Signals._value2member_map_
        name = signal.Signals(signal_number).name if known else f"signal {signal_number}"
        return f"the script's process was killed by {name}{reached}"
    return f"the script ended its Python process (exit status {code}){reached}"


def report_launches(session, script: str | Path, say: Callable[[str], None]) -> None:
    """Tell the parent each launch as it starts: its number, kernel and the script's line that made it."""
    launch, path = session.launch, str(Path(script).resolve())

    def launching(py_func, grid, block, args, shared_bytes=0, stream=0):
        say(f"launch {len(session.records)} ({py_func.__name__}, line {_line_in(path)} of {Path(path).name})")
        return launch(py_func, grid, block, args, shared_bytes=shared_bytes, stream=stream)

    session.launch = launching


def _line_in(path: str) -> int | str:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == path:
            return frame.f_lineno
        frame = frame.f_back
    return "?"
