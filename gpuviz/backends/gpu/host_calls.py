"""The script's own host calls to numba.cuda on the measured timeline: copies (`to_device`, `copy_to_host`,
`copy_to_device`), streams, event records and times, pinned and mapped host arrays. Each wrapper calls
numba's own function with the same arguments and returns its result: only the timing is added, and
only for calls from the script (numba's and gpuviz's own calls of the same functions stay untimed)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from gpuviz.backends.gpu.stream_timer import MeasuredTimeline
from gpuviz.core.streams import COPY_IN, COPY_OUT, DEFAULT

PAGE_LOCKED = ("pinned_array", "pinned_array_like", "mapped_array", "mapped_array_like")
WRAPPED = ("to_device", "stream", "pinned", "event_elapsed_time", *PAGE_LOCKED)
LIBRARIES = ("numba.", "numba_cuda.", "gpuviz.", "cupy.", "cupy_backends.")  # their calls are not the script's


def _from_script() -> bool:
    """True when the wrapper's caller is the script (or its own modules), not a library."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return not caller.startswith(LIBRARIES)


class HostCalls:
    """The wrappers, for one run: `timeline()` is the session's (made when first needed)."""

    def __init__(self, cuda, timeline: Callable[[], MeasuredTimeline]) -> None:
        self.cuda, self.timeline = cuda, timeline
        self.pinned: list[tuple[int, int]] = []  # host address ranges page-locked by the script

    def number(self, stream) -> int:
        """The timeline's number of a numba stream (0, None or an unknown stream: the default one)."""
        return int(getattr(stream, "_gpuviz_stream", DEFAULT) or DEFAULT)

    def is_pinned(self, array) -> bool:
        if not isinstance(array, np.ndarray) or array.size == 0:
            return False
        address = array.__array_interface__["data"][0]
        return any(lo <= address < hi for lo, hi in self.pinned)

    def pin(self, array, on: bool = True) -> object:
        if isinstance(array, np.ndarray) and array.size:
            where = (array.__array_interface__["data"][0], array.__array_interface__["data"][0] + array.nbytes)
            if on:
                self.pinned.append(where)
            elif where in self.pinned:
                self.pinned.remove(where)
        return array

    def copy(self, kind: str, host, stream, label: str, work: Callable[[], object]) -> object:
        nbytes = int(getattr(host, "nbytes", 0))
        return self.timeline().timed(kind, self.number(stream), label, nbytes, self.is_pinned(host), work)

    def patches(self) -> list[tuple[object, str, object]]:
        """(owner, name, wrapper) for each call that goes on the timeline."""
        cuda, calls = self.cuda, self
        array_class, event_class = _classes(cuda)
        real = {name: getattr(cuda, name) for name in WRAPPED if hasattr(cuda, name)}
        to_host, to_device = array_class.copy_to_host, array_class.copy_to_device
        record, elapsed = event_class.record, event_class.elapsed_time

        def to_device_(obj, stream=0, copy=True, to=None):
            if not _from_script() or to is not None:  # `to=`: numba calls copy_to_device, timed there
                return real["to_device"](obj, stream, copy, to)
            return calls.copy(COPY_IN, obj, stream, "to_device", lambda: real["to_device"](obj, stream, copy, to))

        def copy_to_host_(self, ary=None, stream=0):
            if not _from_script():
                return to_host(self, ary, stream)
            return calls.copy(COPY_OUT, ary if ary is not None else self, stream, "copy_to_host",
                              lambda: to_host(self, ary, stream))  # fmt: skip

        def copy_to_device_(self, ary, stream=0):
            if not _from_script() or not isinstance(ary, np.ndarray):  # device to device: no host copy
                return to_device(self, ary, stream)
            return calls.copy(COPY_IN, ary, stream, "copy_to_device", lambda: to_device(self, ary, stream))

        def stream_():
            made = real["stream"]()
            made._gpuviz_stream = calls.timeline().new_stream(made)
            return made

        def record_(self, stream=0):
            record(self, stream)
            if _from_script():
                calls.timeline().event(self, calls.number(stream))

        def event_elapsed_time_(evtstart, evtend):
            ms = real["event_elapsed_time"](evtstart, evtend)
            if _from_script():
                calls.timeline().elapsed.append(float(ms))
            return ms

        def elapsed_time_(self, evtend):
            ms = elapsed(self, evtend)
            if _from_script():
                calls.timeline().elapsed.append(float(ms))
            return ms

        @contextmanager
        def pinned_(*arylist):
            with real["pinned"](*arylist):
                for array in arylist:
                    calls.pin(array)
                try:
                    yield
                finally:
                    for array in arylist:
                        calls.pin(array, on=False)

        def page_locked(name: str):
            return lambda *args, **kwargs: calls.pin(real[name](*args, **kwargs))

        made = {"to_device": to_device_, "stream": stream_, "pinned": pinned_,
                "event_elapsed_time": event_elapsed_time_}  # fmt: skip
        # mapped arrays are device arrays to numba (no copies); as host arrays they are page-locked
        made |= {name: page_locked(name) for name in PAGE_LOCKED}
        return [(cuda, name, value) for name, value in made.items() if name in real] + [
            (array_class, "copy_to_host", copy_to_host_), (array_class, "copy_to_device", copy_to_device_),
            (event_class, "record", record_), (event_class, "elapsed_time", elapsed_time_),
        ]  # fmt: skip


def _classes(cuda) -> tuple[type, type]:
    """numba's device array class (where copy_to_host is defined) and its event class (real or simulated)."""
    if "simulator" in getattr(cuda.to_device, "__module__", ""):
        from numba.cuda.simulator.api import Event
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        return FakeCUDAArray, Event
    from numba.cuda.cudadrv.devicearray import DeviceNDArrayBase
    from numba.cuda.cudadrv.driver import Event

    return DeviceNDArrayBase, Event


@contextmanager
def measured_host_calls(cuda, timeline: Callable[[], MeasuredTimeline]) -> Iterator[None]:
    """While the script runs, its host calls to numba.cuda are timed onto `timeline()`; numba's own
    functions are put back afterwards."""
    patches = HostCalls(cuda, timeline).patches()
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, before in reversed(saved):
            setattr(owner, name, before)
