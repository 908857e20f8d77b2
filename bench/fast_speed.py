"""The compiled fast path against NumPy doing the same work and against the vector engine, in one run.

The anchor of each kernel is NumPy doing what the kernel does with one whole-array operation per kernel
statement (an index, a condition, a load, a store; a loop in the kernel is a loop here, over its
iterations, never over threads or blocks; the reduction one operation per tree level). gpuviz is timed as
a user waits in a warm process: a session's launch (the backend's run, its trace and the analyses the
app shows: the memory report and the races), best of BEST_OF after a launch that compiles or loads the
kernel (that first launch is printed apart). Each line prints gpuviz's time and the anchor's, measured
in this run, and the machine's load (os.getloadavg) before it.
The two lines before the last: peak bytes a recorded access of vector add and of the tree reduction, both
engines, the backend's run alone and with the analyses.
Last line: `fast_speed threads=<ratio per kernel> accesses=<ratio per kernel>` (fast path over anchor).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import fast_kernels as K  # noqa: E402

SMOKE = "--smoke" in sys.argv  # tests/test_bench_smoke.py: the same code at tiny sizes
SIDE = 64 if SMOKE else 1024  # 2-D kernels: SIDE x SIDE threads (2^20)
THREADS = SIDE * SIDE
MATMUL = 32 if SMOKE else 256  # the tiled matmul: MATMUL x MATMUL threads
BEST_OF = 1 if SMOKE else 3


def inputs(name: str) -> tuple:
    return K.inputs(name, SIDE, MATMUL)


def launch(name: str) -> tuple:
    if name in ("vecadd", "tree_reduction"):
        return THREADS // K.THREADS, K.THREADS
    side = MATMUL if name == "matmul_tiled" else SIDE
    return (side // 16, side // 16), (16, 16)


def anchor(name: str, args: tuple) -> None:
    """NumPy, one whole-array operation per kernel statement."""
    if name == "vecadd":
        a, b, c = args
        i = np.arange(THREADS)
        inside = i[i < c.size]
        c[inside] = a[inside] + b[inside]
    elif name == "stencil_2d":
        src, dst = args
        y, x = np.indices(src.shape)
        inside = (y > 0) & (y < src.shape[0] - 1) & (x > 0) & (x < src.shape[1] - 1)
        yy, xx = y[inside], x[inside]
        dst[yy, xx] = (src[yy, xx] + src[yy - 1, xx] + src[yy + 1, xx] + src[yy, xx - 1] + src[yy, xx + 1]) * 0.2
    elif name == "mandelbrot":
        (image,) = args
        y, x = np.indices(image.shape)
        cr, ci = -2.0 + 3.0 * x / image.shape[1], -1.5 + 3.0 * y / image.shape[0]
        zr, zi, n = np.zeros(image.shape), np.zeros(image.shape), np.zeros(image.shape, np.int32)
        for _ in range(K.MAX_ITER):  # the kernel's loop: its iterations, every pixel at once
            going = zr * zr + zi * zi < 4.0
            zr, zi = np.where(going, zr * zr - zi * zi + cr, zr), np.where(going, 2.0 * zr * zi + ci, zi)
            n += going
        image[:] = n
    elif name == "tree_reduction":
        values, sums = args
        partial = values.reshape(-1, K.THREADS).copy()
        step = K.THREADS // 2
        while step > 0:  # one operation per level of the tree
            partial[:, :step] += partial[:, step : 2 * step]
            step //= 2
        sums[:] = partial[:, 0]
    else:
        A, B, C = args
        acc = np.zeros(C.shape)
        for k in range(A.shape[1]):  # the kernel's k loop over all tiles: one outer product a step
            acc += A[:, k, None] * B[None, k, :]
        C[:] = acc


def time_anchor(name: str) -> float:
    best = float("inf")
    for _ in range(BEST_OF):
        args = inputs(name)
        started = time.perf_counter()
        anchor(name, args)
        best = min(best, time.perf_counter() - started)
    return best


def time_gpuviz(name: str, engine: str, level: str) -> tuple[float, str]:
    """Seconds for a session's launch (run, trace, analyses); which engine ran it."""
    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import python_function
    from gpuviz.run.session import Session

    func = python_function(getattr(K, name))
    args = inputs(name)
    grid, block = launch(name)
    session = Session(RunOptions(backend="sim", engine=engine, level=level), out_dir=None)
    started = time.perf_counter()
    trace = session.launch(func, grid, block, args)
    seconds = time.perf_counter() - started
    expected = inputs(name)
    anchor(name, expected)
    np.testing.assert_allclose(args[-1], expected[-1], rtol=1e-4, atol=1e-5)
    return seconds, trace.meta["engine"]


def best(name: str, engine: str, level: str) -> tuple[float, str]:
    return min(time_gpuviz(name, engine, level) for _ in range(BEST_OF))


def memory_line(name: str) -> str:
    """Peak bytes a recorded access (NumPy's allocations, tracemalloc) of a kernel at level accesses: the
    backend's run alone (what the engine holds: its log and the trace it makes) and the session's launch
    (the analyses added). Vector add's threads make three accesses each; the tree reduction's 2 to 28."""
    import tracemalloc

    from gpuviz.backends.sim.backend import SimBackend
    from gpuviz.core.launch import LaunchConfig
    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import python_function

    func, (grid, block) = python_function(getattr(K, name)), launch(name)
    found = []
    for engine in ("fast", "vector"):
        options = RunOptions(backend="sim", engine=engine, level="accesses")
        time_gpuviz(name, engine, "accesses")  # warm: compiled, memory pools settled
        tracemalloc.start()
        trace = SimBackend().run(func, LaunchConfig.of(grid, block, 0), inputs(name), options)
        run_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows = len(trace.accesses["time"])
        del trace
        tracemalloc.start()
        _, ran = time_gpuviz(name, engine, "accesses")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        found.append(f"{engine} ({ran}) run {run_peak / rows:.0f}, with analyses {peak / rows:.0f}")
    return f"memory {name} level accesses, peak bytes a recorded access: {'; '.join(found)}"


def main() -> None:
    from gpuviz.run.allocator import keep_freed_memory

    keep_freed_memory()  # as the app's worker process and the command line do before any launch
    ratios: dict[str, dict[str, float]] = {"threads": {}, "accesses": {}}
    names = ("vecadd", "stencil_2d", "mandelbrot", "tree_reduction", "matmul_tiled")
    for name in names:
        load = os.getloadavg()[0]
        first, _ = time_gpuviz(name, "fast", "threads")  # compiles, or loads from the cache on disk
        numpy_s = time_anchor(name)
        line = f"{name:15s} load {load:4.1f}  numpy {numpy_s:7.4f} s  first fast launch {first:6.2f} s"
        for level in ("threads", "accesses"):
            fast, engine = best(name, "fast", level)
            vector, _ = best(name, "vector", level)
            ratios[level][name] = fast / numpy_s
            line += (f"  | {level}: {engine} {fast:6.3f} s (x{fast / numpy_s:5.1f} numpy) vector {vector:6.3f} s "
                     f"(x{vector / numpy_s:5.1f}; fast x{vector / fast:4.1f} faster)")  # fmt: skip
        print(line, flush=True)
    for name in ("vecadd", "tree_reduction"):
        print(memory_line(name), flush=True)
    summary = {level: " ".join(f"{n}:{r:.1f}" for n, r in found.items()) for level, found in ratios.items()}
    print(f"fast_speed threads={summary['threads']} accesses={summary['accesses']}")


if __name__ == "__main__":
    main()
