"""`gpuviz run --timeout`: a run that takes too long ends with one line saying where it was.

A watching thread looks at the main thread's stack when the time is up (kernel, block, thread and
line on the simulator; the script's line outside kernels), then interrupts it. Code stuck where
Python cannot interrupt it (a GPU kernel that never returns) gets a grace period, then the process
ends with the same line.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

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
