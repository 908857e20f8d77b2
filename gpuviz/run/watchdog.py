"""`gpuviz run --timeout`: a run that takes too long ends with one line saying where it was.

A watching thread looks at the main thread's stack when the time is up (kernel, block, thread and
line on the simulator; the script's line outside kernels), then interrupts it. Code stuck where
Python cannot interrupt it (a GPU kernel that never returns) gets a grace period, then the process
ends with the same line.

A process that must not be trusted to stop itself (a fix check's worker: run/fix_check.py) is watched
from outside instead, by `watch_process`: its time and its resident memory (what it really holds, not
its address space, which numba's compiler and a CUDA context reserve in gigabytes they never touch),
and it is killed with every process it started.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from gpuviz.core.budget import format_bytes
from gpuviz.core.errors import GpuvizError
from gpuviz.core.launch import format_dims
from gpuviz.core.numbers import number

GRACE_SECONDS = 5.0
AGAIN_SECONDS = 0.5  # the interrupt is sent again this often until the run ends or the grace is over
EXIT_STUCK = 124  # as timeout(1) exits
CLI_HINT = "give it longer with --timeout"


class RunTimeout(GpuvizError):
    """The run went past its --timeout."""


class Watchdog:
    """Context manager: interrupts the main thread after `seconds`; `message` says where it was.

    `from_kernel`: the seconds count from the first kernel's start, not from entering, so that where
    the run is when the time is up does not depend on how long start-up took (a loaded machine)."""

    def __init__(self, seconds: float, session, script: str | Path, grace: float = GRACE_SECONDS,
                 on_stuck: Callable[[str], None] | None = None, hint: str = CLI_HINT,
                 from_kernel: bool = False):  # fmt: skip
        if not seconds > 0:
            raise GpuvizError(f"--timeout {seconds}: give a number of seconds above 0")
        self.seconds, self.session, self.script, self.grace = seconds, session, os.path.abspath(script), grace
        self.message: str | None = None
        self.on_stuck = on_stuck or _print_error  # the last words before the process ends
        self.hint = hint
        self.from_kernel = from_kernel
        self._done = threading.Event()
        self._lock = threading.Lock()  # the run ending and the time running out do not cross
        self._main = threading.main_thread().ident
        self._thread = threading.Thread(target=self._watch, name="gpuviz-timeout", daemon=True)

    def __enter__(self) -> Watchdog:
        self._started = time.perf_counter()
        self._restore = _interruptible()
        self._thread.start()
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        with self._lock:
            self._done.set()
        self._restore()
        if self.message is not None and kind is KeyboardInterrupt:
            raise RunTimeout(self.message) from None
        return False

    def _watch(self) -> None:
        while self.from_kernel and getattr(self.session, "running", None) is None:
            if self._done.wait(0.01):
                return
        if self._done.wait(self.seconds):
            return
        with self._lock:
            if self._done.is_set():
                return
            frame = sys._current_frames().get(self._main)
            place = where(frame, self.session, self.script)
            self.message = f"timed out after {number(self.seconds)} s {place}; {self.hint}"
            _interrupt(self._main)
        deadline = time.perf_counter() + self.grace
        while not self._done.wait(min(AGAIN_SECONDS, max(0.0, deadline - time.perf_counter()))):
            if time.perf_counter() >= deadline:  # not back in Python: a native call that never returns
                self.on_stuck(self.message)
                os._exit(EXIT_STUCK)
            with self._lock:  # again: Python drops an interrupt that lands in a finalizer (__del__)
                if not self._done.is_set():
                    _interrupt(self._main)


def _interruptible() -> Callable[[], None]:
    """SIGINT handled by Python and not blocked in the main thread while a watchdog runs; gives back
    what restores the process's own. A process inherits an ignored SIGINT, and a blocked one, from
    its parent (the test suite's processes did): either way the interrupt never arrived."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None

    def restore() -> None:
        if handler is not None:  # None: set outside Python, left as it is now
            signal.signal(signal.SIGINT, handler)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    return restore


def _print_error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr, flush=True)


def _interrupt(thread_id: int) -> None:
    """KeyboardInterrupt in the main thread; a real SIGINT where there is one, so a blocking call wakes."""
    if hasattr(signal, "pthread_kill") and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.pthread_kill(thread_id, signal.SIGINT)
    else:
        _thread.interrupt_main()


def where(frame: FrameType | None, session, script: str) -> str:
    """'in kernel K (running 3.0 s), block (0,0,0) thread (5,0,0), line 9', or the script's line."""
    running = getattr(session, "running", None)
    thread, line = _simulated_thread(frame)
    if running is None:
        script_line = _innermost_line(frame, script)
        return f"in {Path(script).name}" + (f" line {script_line}" if script_line else "") + ", outside any kernel"
    kernel, started = running
    text = f"in kernel {kernel} (running {time.perf_counter() - started:.1f} s)"
    if thread is not None:
        text += f", block {format_dims(thread[:3])} thread {format_dims(thread[3:])}"
    return text + (f", line {line}" if line else "")


# Where a simulator frame keeps the thread it works on: the kernel's own context, the lane being
# stepped, the warp being stepped (its first running lane). An engine without them gives no thread.
THREAD_LOCALS = {
    "_t": lambda t: t,
    "lane": lambda lane: lane,
    "warp": lambda warp: next(iter(getattr(warp, "running", None) or getattr(warp, "lanes", None) or []), None),
}


def _simulated_thread(frame: FrameType | None) -> tuple[tuple | None, int | None]:
    """The simulated thread the stack is in, and its kernel line: the frame's line inside a kernel
    frame, else the line its generator is suspended at."""
    while frame is not None:
        for name, to_thread in THREAD_LOCALS.items():
            if name not in frame.f_code.co_varnames:
                continue
            thread = to_thread(frame.f_locals.get(name))
            coords = _coords(thread)
            if coords is not None:
                return coords, frame.f_lineno if name == "_t" else _suspended_line(getattr(thread, "gen", None))
        frame = frame.f_back
    return None, None


def _coords(context) -> tuple | None:
    """blockIdx and threadIdx of a thread; of the vector engine's lanes, the first active one."""
    values = tuple(getattr(context, name, None) for name in ("bx", "by", "bz", "tx", "ty", "tz"))
    if all(isinstance(v, int) for v in values):
        return values
    mask = getattr(context, "mask", None)
    if all(hasattr(v, "__len__") or isinstance(v, int) for v in values) and mask is not None and mask.any():
        first = int(mask.argmax())
        return tuple(int(v[first]) if hasattr(v, "__len__") else int(v) for v in values)
    return None


def _suspended_line(generator) -> int | None:
    """The line a thread's generator waits at (its innermost device function's, if it is in one)."""
    line = None
    while generator is not None and getattr(generator, "gi_frame", None) is not None:
        line = generator.gi_frame.f_lineno
        generator = generator.gi_yieldfrom
    return line


def _innermost_line(frame: FrameType | None, filename: str) -> int | None:
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename) == filename:
            return frame.f_lineno
        frame = frame.f_back
    return None


# ---- a process watched from outside ----------------------------------------------------------------
POLL_SECONDS = 0.05
MAX_MESSAGE_BYTES = 1 << 20


@dataclass(frozen=True)
class ProcessLimits:
    seconds: float  # from the start of the process
    resident_bytes: int | None  # None: not watched (no way to read it here)


def watch_process(process, messages, limits: ProcessLimits, on_message: Callable[[bytes], None],
                  cancel: threading.Event | None = None) -> str | None:  # fmt: skip
    """Pass `process`'s messages (a multiprocessing connection) to `on_message` until it closes them or ends;
    stop it, and every process it started, past its time or resident memory, when `cancel` is set, or when
    a message is too long or `on_message` raises ValueError. None when it ended by itself, else one line
    saying why it was stopped."""
    started = looked = time.monotonic()
    try:
        while True:
            if messages.poll(POLL_SECONDS):
                try:
                    on_message(messages.recv_bytes(MAX_MESSAGE_BYTES))
                except EOFError:
                    return None  # it closed its end: it has said all it will
                except (OSError, ValueError):
                    return "stopped: it sent a message that was not one of a fix check's"
            elif not process.is_alive():
                return None
            if time.monotonic() - looked >= POLL_SECONDS:  # also while messages keep coming
                looked = time.monotonic()
                why = _over(process, started, limits, cancel)
                if why is not None:
                    return why
    finally:
        _end(process)


def _over(process, started: float, limits: ProcessLimits, cancel: threading.Event | None) -> str | None:
    if cancel is not None and cancel.is_set():
        return "stopped before it finished"
    if time.monotonic() - started > limits.seconds:
        return f"stopped after {limits.seconds:g} s: it neither finished nor could be interrupted (endless work?)"
    held = resident_bytes(process.pid) if limits.resident_bytes is not None else None
    if held is not None and held > limits.resident_bytes:
        return (f"stopped: it held {format_bytes(held)} of memory, over the limit of "
                f"{format_bytes(limits.resident_bytes)}")  # fmt: skip
    return None


def _end(process) -> None:
    """Kill the process's group (it leads one: run/fix_worker.py) and the process, then reap it."""
    if process.pid is not None:
        try:
            if os.getpgid(process.pid) == process.pid:
                os.killpg(process.pid, signal.SIGKILL)
        except (OSError, AttributeError):
            pass  # gone already, or no process groups here
    if process.is_alive():
        process.kill()
    process.join(5.0)


def resident_bytes(pid: int) -> int | None:
    """The memory a process and its children hold in RAM (resident set), or None where it cannot be read."""
    status = Path(f"/proc/{pid}/status")
    if status.parent.parent.is_dir():
        return sum(_proc_resident(p) for p in _family(pid))
    try:  # no /proc (macOS): ps says it, in KiB
        out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, timeout=5)
        return int(out.stdout.split()[0]) * 1024 if out.stdout.split() else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _family(pid: int) -> list[int]:
    """The process and its descendants, as Linux lists each thread's children."""
    found, todo = [], [pid]
    while todo and len(found) < 1000:
        current = todo.pop()
        found.append(current)
        try:  # listing a process's threads while it ends can fail halfway
            tasks = list(Path(f"/proc/{current}/task").glob("*/children"))
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, ValueError):  # it ended meanwhile
                todo += [int(child) for child in task.read_text().split()]
    return found


def _proc_resident(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0
