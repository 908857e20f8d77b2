"""Instrumentation overhead on a real GPU, and launch-to-trace latency.

1. Vector add over 2^24 + 11 float32 elements, blocks of 256: kernel time of the instrumented
   kernel at levels `threads` and `accesses` (compiled as a run compiles it: for a launch of one
   axis, with the record layout backends/gpu/layout.py picks and the register cap that keeps the
   blocks an SM holds) divided by the plain numba kernel's, by CUDA events, median of REPEATS
   launches after a warm-up.
2. Launch to trace file on disk, 1M threads at level `threads`, warm (compiled, and one trace saved
   before): the median wall seconds of 5.
3. The classic race, a[i] += 0.5 by [1024, 1024] threads on 2 elements: result and how many
   threads read the initial value.
Last line: `overhead threads=<ratio> accesses=<ratio>`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
REPEATS = 2 if SMOKE else 30
N = 2**12 + 11 if SMOKE else 2**24 + 11
BLOCK = 256


def kernel_ms(cuda, launch, before=None) -> float:
    """GPU time of one launch. A spinning kernel runs first, so that the host has queued the start
    event and the launch before the GPU gets to them: Python's launch overhead is not counted."""
    spin = spinner(cuda)
    times = []
    start, stop = cuda.event(), cuda.event()
    for _ in range(REPEATS + 3):
        if before:
            before()
        cuda.synchronize()
        spin[1, 1](2_000_000)
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times[3:])


_spin = None


def spinner(cuda):
    global _spin
    if _spin is None:
        from gpuviz.backends.gpu.compat import numba_jit

        def spin(ns):
            for _ in range(ns // 1000):
                cuda.nanosleep(1000)

        _spin = numba_jit()(spin)
    return _spin


def overhead() -> dict[str, float]:
    from gpuviz.backends.gpu.backend import GpuBackend, PreparedLaunch
    from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit
    from gpuviz.core.launch import LaunchConfig

    cuda = import_numba_cuda()
    import speed_kernels

    config = LaunchConfig.of(-(-N // BLOCK), BLOCK)
    a = cuda.to_device(np.random.default_rng(0).random(N, dtype=np.float32))
    b = cuda.to_device(np.random.default_rng(1).random(N, dtype=np.float32))
    c = cuda.device_array(N, np.float32)
    plain = numba_jit()(speed_kernels.vecadd.py_func)
    base = kernel_ms(cuda, lambda: plain[config.grid, config.block](a, b, c))
    print(f"plain vecadd: {base:.3f} ms for {N:,} elements")
    ratios = {}
    backend = GpuBackend()
    facts, ndims = backend.device_facts(), {"a": 1, "b": 1, "c": 1}
    for level in ("threads", "accesses"):
        # as a run compiles it: for a launch of one axis, under the cap that keeps the blocks an SM holds
        compiled = backend.compile(speed_kernels.vecadd.py_func, level, ndims=ndims, flat=config.flat)
        launch = PreparedLaunch(cuda, compiled, config, (a, b, c), cap=4 * N)
        launch.compile_for_arguments()
        backend.keep_occupancy(speed_kernels.vecadd.py_func, launch, facts, ndims)
        ms = kernel_ms(cuda, launch.launch, before=launch.reset_counter)
        events = launch.log.filled() if launch.log else 0
        ratios[level] = ms / base
        overload = launch.overload
        print(f"{level:9s}: {ms:.3f} ms  ratio {ratios[level]:.2f}  events {events:,}  registers "
              f"{overload.regs_per_thread} local bytes {overload.local_mem_per_thread}")  # fmt: skip
    print("record bytes: 12 per block, 8 per warp, none per thread (threads); + 8 per warp start, 2 per thread, "
          "per access 2 or 4 (code, time: backends/gpu/layout.py) + 4 (element, unless the thread's previous one) "
          "+ 4 (value, unless the array is read-only) (accesses)")  # fmt: skip
    return ratios


def trace_latency(repeats: int = 5) -> float:
    """Median wall seconds from launch to trace file on disk, warm: compiled, cached and saved once."""
    import speed_kernels

    import gpuviz

    n = 1 << (12 if SMOKE else 20)
    args = lambda: (np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32))  # noqa: E731
    tracer = gpuviz.trace(speed_kernels.vecadd, backend="gpu", level="threads")
    times = []
    with tempfile.TemporaryDirectory() as folder:
        tracer[n // 256, 256](*args()).save(Path(folder) / "warm.npz")  # compiled, cached, the writer warm
        for k in range(repeats):
            started = time.perf_counter()
            tracer[n // 256, 256](*args()).save(Path(folder) / f"t{k}.npz")
            times.append(time.perf_counter() - started)
    seconds = statistics.median(times)
    print(f"launch to trace on disk, {n:,} threads, level threads, warm: {seconds:.3f} s "
          f"(median of {repeats}; {min(times):.3f}-{max(times):.3f})")  # fmt: skip
    return seconds


def classic_race() -> None:
    import gpuviz

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    a = np.zeros(2, np.float32)
    trace = gpuviz.trace(source, backend="gpu", level="accesses")[2 if SMOKE else 1024, 1024](a)
    acc = trace.accesses
    initial = int(((acc["kind"] == 0) & (acc["index"] == 0) & (acc["value"] == 0)).sum())
    plain = trace.outcomes.get("a.plain")
    print(f"classic race [1024, 1024] on 2 elements: result {a.tolist()} (no race: 524288.0); "
          f"{initial:,} threads read the initial a[0] = 0; events {len(acc['kind']):,}; "
          f"without recording {None if plain is None else plain.tolist()}")  # fmt: skip


def main() -> None:
    from gpuviz.backends.gpu.backend import GpuBackend

    facts = GpuBackend().device_facts()
    print(f"device: {facts['name']}, {facts['sm_count']} SMs")
    trace_latency(1 if SMOKE else 5)
    classic_race()
    ratios = overhead()
    print(f"overhead threads={ratios['threads']:.2f} accesses={ratios['accesses']:.2f}")


if __name__ == "__main__":
    main()
