"""Simulator speed against numba's own CUDA simulator (NUMBA_ENABLE_CUDASIM=1), measured in one run.

Ratios (the baseline measured in this run):
- vecadd: vector add over 2^16 threads, blocks of 256, level `accesses`;
- matmul: the shared-memory tiled matmul (16x16 tiles, syncthreads) of 64x64 matrices, level `accesses`.
gpuviz is timed three ways, each the best of 5 after one launch that rewrites and compiles the
kernel (best, not median: the machine is shared, and a short run is easily interrupted): `record`
is the simulator backend's run (the engine and the trace: what numba's simulator is compared with
in the last line), `launch` a whole session launch, which also analyses the trace for races, and
`interleaved` the backend's run with its blocks interleaved in time, as launches whose blocks share
memory run (these kernels' blocks share none, so gpuviz runs them in large groups; same trace).
numba's simulator records nothing and is timed once, in a subprocess. gpuviz runs in this process
with its memory set up as in the app's worker process and the command line (freed memory kept).
Rates, on the vector engine with the cost model and per-access times, no fallback:
- threads_per_s: vector add over 2^22 threads recorded at level `threads` (backend run: engine + trace),
  best of 3;
- events_per_s: vector add over 2^20 threads at level `accesses` (3 events a thread), best of 3.
Last line: `speedup vecadd=<x> matmul=<x> threads_per_s=<n> events_per_s=<n>`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

KERNELS = Path(__file__).with_name("speed_kernels.py")
# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
SIZES = {"vecadd": 1 << 10, "matmul": 16} if SMOKE else {"vecadd": 1 << 16, "matmul": 64}
BEST_OF = 1 if SMOKE else 5
RATE_THREADS, RATE_EVENTS = (1 << 12, 1 << 12) if SMOKE else (1 << 22, 1 << 20)  # threads_per_s, events_per_s
KERNEL_OF = {"vecadd": "vecadd", "matmul": "matmul_tiled"}


def arguments(name: str, n: int) -> tuple:
    if name == "vecadd":
        a = np.arange(n, dtype=np.float32)
        return a, a.copy(), np.zeros(n, np.float32)
    rng = np.random.default_rng(0)
    return rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32), np.zeros((n, n), np.float32)


def launch_shape(name: str, n: int) -> tuple:
    return (n // 256, 256) if name == "vecadd" else ((n // 16, n // 16), (16, 16))


def check(name: str, args: tuple) -> None:
    expected = args[0] + args[1] if name == "vecadd" else args[0] @ args[1]
    np.testing.assert_allclose(args[2], expected, rtol=1e-4)


_functions: dict[str, object] = {}


def kernel_function(name: str):
    """The kernel's Python function, made once (gpuviz rewrites and compiles it once per function)."""
    from gpuviz.run.api import python_function

    if name not in _functions:
        _functions[name] = python_function(KERNELS.read_text(), name)
    return _functions[name]


def time_gpuviz(name: str, n: int, analyse: bool, grouped: bool = True) -> float:
    """Seconds for one launch at level accesses: the backend's run alone, or a session's whole launch;
    `grouped`: as gpuviz runs it (blocks that share no memory in large groups), or interleaved in time."""
    from gpuviz.backends.sim.backend import SimBackend
    from gpuviz.backends.sim.recording import blocks_interleaved
    from gpuviz.core.launch import LaunchConfig
    from gpuviz.core.options import RunOptions
    from gpuviz.run.session import Session

    func = kernel_function(KERNEL_OF[name])
    args = arguments(name, n)
    grid, block = launch_shape(name, n)
    options = RunOptions(backend="sim", level="accesses", engine="vector")
    started = time.perf_counter()
    with contextlib.nullcontext() if grouped else blocks_interleaved():
        if analyse:
            trace = Session(options).launch(func, grid, block, args)
        else:
            trace = SimBackend().run(func, LaunchConfig.of(grid, block), args, options)
    seconds = time.perf_counter() - started
    assert trace.meta["engine"] == "vector", trace.meta["engine_note"]
    assert trace.meta["blocks_ran"] == ("independent" if grouped else "interleaved: chosen"), trace.meta["blocks_ran"]
    check(name, args)
    return seconds


def time_numba_simulator(name: str, n: int) -> float:
    code = f"""
import json, sys, time
sys.path.insert(0, {str(KERNELS.parent)!r})
import speed_kernels, sim_speed
args = sim_speed.arguments({name!r}, {n})
grid, block = sim_speed.launch_shape({name!r}, {n})
kernel = getattr(speed_kernels, {KERNEL_OF[name]!r})
started = time.perf_counter()
kernel[grid, block](*args)
seconds = time.perf_counter() - started
sim_speed.check({name!r}, args)
print(json.dumps(seconds))
"""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def recording_rate(n: int, level: str) -> tuple[float, int]:
    """Seconds for the simulator backend to run vector add over n threads and build its trace; events."""
    from gpuviz.backends.sim.backend import SimBackend
    from gpuviz.core.launch import LaunchConfig
    from gpuviz.core.options import RunOptions

    func = kernel_function("vecadd")
    args = arguments("vecadd", n)
    started = time.perf_counter()
    trace = SimBackend().run(func, LaunchConfig.of(n // 256, 256), args,
                             RunOptions(backend="sim", level=level, engine="vector"))  # fmt: skip
    seconds = time.perf_counter() - started
    assert trace.meta["engine"] == "vector" and not trace.truncated
    check("vecadd", args)
    return seconds, 0 if trace.accesses is None else len(trace.accesses["thread"])


def main() -> None:
    from gpuviz.run.allocator import keep_freed_memory

    keep_freed_memory()  # as the app's worker process and the command line do before any launch
    ratios = {}
    for name, n in SIZES.items():
        time_gpuviz(name, n, analyse=False)
        record = min(time_gpuviz(name, n, analyse=False) for _ in range(BEST_OF))
        launch = min(time_gpuviz(name, n, analyse=True) for _ in range(BEST_OF))
        interleaved = min(time_gpuviz(name, n, analyse=False, grouped=False) for _ in range(BEST_OF))
        theirs = time_numba_simulator(name, n)
        ratios[name] = theirs / record
        print(
            f"{name:7s} n={n:6d}  gpuviz record {record:6.3f} s (x{ratios[name]:,.0f})   "
            f"launch with race analysis {launch:6.3f} s (x{theirs / launch:,.0f})   numba cudasim {theirs:6.2f} s"
        )
        print(
            f"{'':7s} blocks interleaved in time (as for a race between blocks): record {interleaved:6.3f} s "
            f"(x{theirs / interleaved:,.0f}; grouped is x{interleaved / record:.1f} faster)"
        )
    recording_rate(1 << 12, "threads")  # compile once, outside the timings
    seconds = min(recording_rate(RATE_THREADS, "threads")[0] for _ in range(3))
    threads_per_s = RATE_THREADS / seconds
    print(f"vecadd {RATE_THREADS:,} threads, level threads: {seconds:.3f} s  ({threads_per_s:,.0f} threads/s)")
    runs = [recording_rate(RATE_EVENTS, "accesses") for _ in range(3)]
    seconds, events = min(runs)
    events_per_s = events / seconds
    print(f"vecadd {RATE_EVENTS:,} threads, level accesses: {seconds:.3f} s  {events:,} events "
          f"({events_per_s:,.0f} events/s)")  # fmt: skip
    print(f"speedup vecadd={ratios['vecadd']:.0f} matmul={ratios['matmul']:.0f} "
          f"threads_per_s={threads_per_s:.0f} events_per_s={events_per_s:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
