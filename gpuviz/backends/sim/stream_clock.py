"""The simulator's model of time outside kernels: copies, launch overhead, numba's compile and events, on a
timeline per stream. docs/simulator.md ("Copies, launches and streams") says where each constant comes from.

Engines as an H100 or H200 has them: one copy engine each way and the SMs; a stream's work runs in order;
the legacy default stream waits for every stream and every stream waits for it. A copy from pageable
memory, or one on the default stream, holds the host until it is done (cudaMemcpy stages pageable
memory through a pinned buffer); a copy from pinned memory on a stream of the script's returns at once.
"""

from __future__ import annotations

import numpy as np

from gpuviz.core.fidelity import MODEL
from gpuviz.core.streams import COMPILE, COPY_IN, COPY_OUT, DEFAULT, EVENT, HOST, KERNEL, Span, StreamTimeline

# Measured on the lent H200 (NVIDIA H200, 2026-11-26) by bench/lesson_times.py ("stream model"); docs/simulator.md.
CLOCK_GHZ = 1.98  # model cycles per nanosecond: the H100 SXM's boost clock, 1,980 MHz
LAUNCH_US = 18.7  # host time numba spends on a launch (median, host clock)
ISSUE_US = 4.0  # host time to queue an asynchronous copy or record an event (not measured: a few µs)
KERNEL_MIN_US = 3.1  # an empty kernel's 25.8 µs between events, less the launch and the event's issue
COPY_LATENCY_US = 30.0  # a copy's fixed cost: a launch on three NumPy arrays of 1,000 floats took 226 µs
PINNED_GBPS = {COPY_IN: 50.8, COPY_OUT: 53.5}  # host <-> device from page-locked memory, 64 MiB copies
PAGEABLE_GBPS = {COPY_IN: 8.6, COPY_OUT: 14.5}  # from ordinary memory, staged through a pinned buffer
FIRST_COMPILE_US = 896_000.0  # numba's first compile in a process (its compiler loads)
COMPILE_US = 55_000.0  # each later kernel's compile


class StreamClock:
    """The simulated GPU's clock for everything outside a kernel: a session has one."""

    def __init__(self) -> None:
        self.host = 0.0  # µs: where the host's program is
        self.spans: list[Span] = []
        self.ready: dict[int, float] = {}  # stream -> end of its last work
        self.engines = {COPY_IN: 0.0, COPY_OUT: 0.0, KERNEL: 0.0}  # engine -> when it is free
        self.fence = 0.0  # end of the last default-stream work: later work on any stream waits for it
        self.compiled: set[str] = set()
        self.pinned_ranges: list[tuple[int, int]] = []  # arrays in a `cuda.pinned(...)` block
        self.streams = 0
        self.elapsed: list[float] = []  # ms, each event time the script read

    def new_stream(self) -> int:
        self.streams += 1
        return self.streams

    def _start(self, stream: int, engine: str | None) -> float:
        after = max(self.host, self.ready.get(stream, 0.0), self.fence)
        if stream == DEFAULT:
            after = max(after, *self.ready.values(), 0.0)
        return max(after, self.engines[engine]) if engine else after

    def _place(self, kind: str, stream: int, us: float, label: str, nbytes: int = 0, pinned: bool = False) -> Span:
        start = self._start(stream, None if kind == EVENT else kind)
        span = Span(kind, stream, start, start + us, label, nbytes, pinned)
        self.spans.append(span)
        self.ready[stream] = span.end_us
        if kind != EVENT:
            self.engines[kind] = span.end_us
        if stream == DEFAULT:
            self.fence = span.end_us
        return span

    def copy(self, kind: str, array, stream: int = DEFAULT, label: str = "") -> Span:
        """A copy of `array`'s bytes in or out; pinned memory on a stream of the script's does not
        hold the host, anything else does."""
        pinned = self.is_pinned(array)
        gbps = (PINNED_GBPS if pinned else PAGEABLE_GBPS)[kind]
        nbytes = int(np.asarray(array).nbytes)
        span = self._place(kind, stream, COPY_LATENCY_US + nbytes / (gbps * 1e3), label, nbytes, pinned)
        self.host = span.end_us if (stream == DEFAULT or not pinned) else self.host + ISSUE_US
        return span

    def kernel(self, name: str, cycles: float, stream: int = DEFAULT) -> Span:
        if name not in self.compiled:  # numba compiles a kernel at its first launch, on the host
            us = COMPILE_US if self.compiled else FIRST_COMPILE_US
            self.compiled.add(name)
            self.spans.append(Span(COMPILE, HOST, self.host, self.host + us, name))
            self.host += us
        self.host += LAUNCH_US
        return self._place(KERNEL, stream, KERNEL_MIN_US + cycles / (CLOCK_GHZ * 1e3), name)

    def event(self, stream: int = DEFAULT) -> float:
        """An event recorded on a stream completes when the stream's earlier work has: its time, in µs."""
        self.host += ISSUE_US
        return self._place(EVENT, stream, 0.0, "event").end_us

    def synchronize(self, stream: int | None = None) -> None:
        """The host waits for a stream's work (None: every stream's)."""
        ends = self.ready.values() if stream is None else [self.ready.get(stream, 0.0)]
        self.host = max(self.host, *ends, 0.0)

    def wait_until(self, us: float) -> None:
        self.host = max(self.host, us)

    def pin(self, array, on: bool) -> None:
        where = (_address(array), _address(array) + np.asarray(array).nbytes)
        if on:
            self.pinned_ranges.append(where)
        elif where in self.pinned_ranges:
            self.pinned_ranges.remove(where)

    def is_pinned(self, array) -> bool:
        if getattr(array, "_gpuviz_pinned", False):
            return True
        address = _address(array)
        return any(lo <= address < hi for lo, hi in self.pinned_ranges)

    def add_launch(self, trace, args: tuple, stream: int) -> None:
        """numba copies each NumPy argument in before the launch and back after it (the launch waits)."""
        host_arrays = [(name, a) for name, a in zip(trace.param_names, args) if _implicit(a)]
        for name, array in host_arrays:
            self.copy(COPY_IN, array, stream, name)
        self.kernel(trace.kernel, _cycles(trace), stream)
        for name, array in host_arrays:
            self.copy(COPY_OUT, array, stream, name)

    def snapshot(self, wait: bool = False) -> StreamTimeline:
        return StreamTimeline(tuple(self.spans), MODEL, elapsed=tuple(self.elapsed))


def _implicit(value) -> bool:
    """A host array numba would copy: NumPy, not one of the device (or mapped) arrays."""
    return isinstance(value, np.ndarray) and not getattr(value, "_gpuviz_device_array", False)


def _address(array) -> int:
    return int(np.asarray(array).__array_interface__["data"][0])


def _cycles(trace) -> float:
    if not trace.n_threads:
        return 0.0
    return float(trace.threads["t_end"].max() - trace.threads["t_start"].min())
