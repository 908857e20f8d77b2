"""Hardware times for the lessons about speed: both versions of each, as plain kernels.

Each lesson's kernels are taken from its script by syntax tree (what a fix check takes), compiled by numba
as they are (no recording), and launched at a size where a difference shows, which may be larger than the
size the lesson simulates: the privatised histogram (also at the lesson's own 4,096 values), coalescing
and the transpose (with the fix from tests/lesson_fixes), occupancy (48 KiB of shared memory per block
against 1 KiB), divergence cost (with the steps an argument, and written as a constant, which the compiler
works out), the Mandelbrot image (40 trips at most against 2), float64 promotion (Horner's rule with
`acc = 0.0` against `acc = float32(0)`) and CuPy inputs (NumPy arguments against CuPy arrays). A version's
time is the median of RUNS launches timed with CUDA events, after one launch to compile and warm up; CuPy
inputs' is the host's time until the GPU is done, numba's copies of host arrays included.
The lessons about time outside kernels: timing a kernel (its first launch, the compile included, against
later ones; bandwidth at 2^26 floats), tiny data (NumPy on the CPU against the kernel alone and against a
launch on NumPy arrays, host clock, at 1,000 values and at 2^24), and streams (four chunks one after
another on the default stream against four streams, pinned and pageable, host clock); with any of them
the simulator's stream constants are measured too ("stream model", a key of its own in the JSON).
Prints one line per version, then the figures as JSON: each lesson's sizes with the card, the date and the
runs, as gpuviz/catalog/lessons/hardware_times.json keeps them. `--json FILE` merges the lessons measured
into FILE (the others keep their figures and their card); `--only SLUG,SLUG` measures those lessons alone.
Usage: python bench/lesson_times.py [--json FILE] [--only SLUGS] [--runs N] [--smoke]   (needs numba-cuda and a GPU)
"""

from __future__ import annotations

import datetime
import json
import re
import statistics
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda
from gpuviz.catalog import find
from gpuviz.program.kernel_file import take_kernels

cuda = import_numba_cuda()  # numba-cuda 0.30 needs np.row_stack, gone from NumPy 2.5: the shim adds it

SMOKE = "--smoke" in sys.argv  # tests/test_bench_smoke.py: the same code at tiny sizes
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else (3 if SMOKE else 21)
FIXES = Path(__file__).resolve().parent.parent / "tests" / "lesson_fixes"
ONLY = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None


def kernels(slug: str, fixed: bool = False, **constants: int):
    """The kernels of a lesson's script (or of its fix), module constants replaced where given."""
    path = FIXES / f"{slug}.py" if fixed else find(slug).path
    text = take_kernels(path.read_text(), name=path.name).text
    for name, value in constants.items():
        text = re.sub(rf"^{name} = .*$", f"{name} = {value}", text, flags=re.MULTILINE)
    module = types.ModuleType(slug.replace("-", "_"))
    exec(compile(text, str(path), "exec"), module.__dict__)  # noqa: S102  (the lesson's own kernels)
    return module


def median_ms(kernel, grid, block, *args) -> float:
    """The median time of RUNS launches, in ms, after one that compiles and warms up."""
    kernel[grid, block](*args)
    cuda.synchronize()
    times = []
    for _ in range(RUNS):
        start, end = cuda.event(), cuda.event()
        start.record()
        kernel[grid, block](*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def median_wall_ms(kernel, grid, block, *args) -> float:
    """The median host time of RUNS launches until the GPU is done, in ms: what a launch costs the script,
    numba's copies of host arrays in and back included (CUDA events on the stream would miss copies that
    numba makes synchronously)."""
    kernel[grid, block](*args)
    cuda.synchronize()
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        kernel[grid, block](*args)
        cuda.synchronize()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def histogram(values: int) -> dict:
    module = kernels("privatised-histogram")
    data = cuda.to_device(np.random.default_rng(0).integers(0, 1000, values).astype(np.int32))
    bins = cuda.to_device(np.zeros(16, np.int32))
    grid = (values + 255) // 256
    return {"histogram_atomic": median_ms(module.histogram_atomic, grid, 256, data, bins),
            "histogram_private": median_ms(module.histogram_private, grid, 256, data, bins)}  # fmt: skip


def coalescing(side: int) -> dict:
    a = cuda.to_device(np.arange(side * side, dtype=np.float32).reshape(side, side))
    b = cuda.device_array_like(a)
    grid = (side // 32, side // 32)
    lesson, fix = kernels("coalescing"), kernels("coalescing", True)
    return {"copy_2d (x on rows)": median_ms(lesson.copy_2d, grid, (32, 32), a, b),
            "copy_2d (x on columns, the fix)": median_ms(fix.copy_2d, grid, (32, 32), a, b)}  # fmt: skip


def transpose(side: int) -> dict:
    lesson, fix = kernels("transpose"), kernels("transpose", True)
    a = cuda.to_device(np.arange(side * side, dtype=np.float32).reshape(side, side))
    b = cuda.device_array_like(a)
    grid = (side // 32, side // 32)
    return {"transpose_naive": median_ms(lesson.transpose_naive, grid, (32, 32), a, b),
            "transpose_tiled (unpadded)": median_ms(lesson.transpose_tiled, grid, (32, 32), a, b),
            "transpose_tiled (padded, the fix)": median_ms(fix.transpose_tiled, grid, (32, 32), a, b)}  # fmt: skip


def occupancy(blocks: int) -> dict:
    a = cuda.to_device(np.arange(blocks * 256, dtype=np.float32))
    out = cuda.device_array_like(a)
    wide, narrow = kernels("occupancy"), kernels("occupancy", STAGE=256)
    return {"stage_and_copy (48 KiB a block)": median_ms(wide.stage_and_copy, blocks, 256, a, out),
            "stage_and_copy (1 KiB a block)": median_ms(narrow.stage_and_copy, blocks, 256, a, out)}  # fmt: skip


def divergence(blocks: int, steps: int, constant: bool = False) -> dict:
    """With the steps an argument (the lesson's kernels), or written as a constant in each kernel (the
    argument still passed, unused), which the compiler works out when it compiles."""
    module = kernels("divergence-cost")
    if constant:
        module = _with_constant_steps(module, steps)
    out = cuda.device_array(blocks * 256, np.float64)
    return {"by_lane": median_ms(module.by_lane, blocks, 256, out, steps),
            "by_warp": median_ms(module.by_warp, blocks, 256, out, steps)}  # fmt: skip


def _with_constant_steps(module, steps: int):
    """The lesson's kernels with `steps` a literal: the parameter renamed, the literal bound first."""
    path = find("divergence-cost").path
    text = take_kernels(path.read_text(), name=path.name).text
    literal = rf"\1, _steps):\n    steps = {steps}\n"
    text, found = re.subn(r"^(def \w+\(out), steps\):\n", literal, text, flags=re.MULTILINE)
    if found != 2:
        raise SystemExit("divergence-cost: its two kernels no longer take (out, steps); update this bench")
    constant = types.ModuleType("divergence_cost_constant")
    exec(compile(text, str(path), "exec"), constant.__dict__)  # noqa: S102  (the lesson's own kernels)
    return constant


def mandelbrot(width: int, height: int) -> dict:
    image = cuda.device_array((height, width), np.int32)
    grid = ((width + 15) // 16, (height + 15) // 16)
    return {"mandelbrot (at most 40 trips)": median_ms(kernels("mandelbrot").mandelbrot, grid, (16, 16), image),
            "mandelbrot (at most 2 trips)": median_ms(kernels("mandelbrot", MAX_ITER=2).mandelbrot, grid, (16, 16),
                                                      image)}  # fmt: skip


def promotion(points: int, degree: int) -> dict:
    """Horner's rule with `acc = 0.0` (float64) and `acc = float32(0)`, the degree an argument's size."""
    module = kernels("float64-promotion")
    x = cuda.to_device(np.linspace(-1, 1, points, dtype=np.float32))
    coeffs = cuda.to_device(np.random.default_rng(5).uniform(-1, 1, degree).astype(np.float32))
    out = cuda.device_array(points, np.float32)
    grid = (points + 255) // 256
    literal = median_ms(module.horner_start_literal, grid, 256, x, coeffs, out)
    single = median_ms(module.horner_start_float32, grid, 256, x, coeffs, out)
    return {"horner_start_literal (acc float64)": literal, "horner_start_float32 (acc float32)": single}


def cupy_inputs(n: int) -> dict:
    """The vector add on NumPy arrays (numba copies a, b and c in and back at every launch) and on CuPy arrays."""
    import cupy as cp

    module = kernels("cupy-inputs")
    a, b, c = np.arange(n, dtype=np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    grid = (n + 255) // 256
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's "Host array used in CUDA kernel will incur copy overhead"
        on_host = median_wall_ms(module.vecadd, grid, 256, a, b, c)
    on_device = median_wall_ms(module.vecadd, grid, 256, cp.asarray(a), cp.asarray(b), cp.asarray(c))
    return {"vecadd on NumPy arrays (copies included)": on_host, "vecadd on CuPy arrays": on_device}


def host_ms(work) -> float:
    """The median host time of RUNS calls of `work`, the GPU idle before and after each, in ms."""
    times = []
    for _ in range(RUNS):
        cuda.synchronize()
        started = time.perf_counter()
        work()
        cuda.synchronize()
        times.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(times)


def event_ms(work) -> float:
    """One call of `work` between two CUDA events on the default stream, in ms."""
    start, end = cuda.event(), cuda.event()
    start.record()
    work()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def timing(n: int) -> dict:
    """The lesson's own loop: the first launch (numba compiles it) and the median of later ones."""
    module = kernels("timing-a-kernel")
    d_a = cuda.to_device(np.arange(n, dtype=np.float32))
    d_out = cuda.device_array_like(d_a)
    launch = lambda: module.scale[n // 256, 256](d_a, d_out, np.float32(2.0))  # noqa: E731
    first = event_ms(launch)
    return {"scale, first launch (compile included)": first,
            "scale, later launches": statistics.median(event_ms(launch) for _ in range(RUNS))}  # fmt: skip


def bandwidth(n: int) -> dict:
    module = kernels("timing-a-kernel")
    d_a = cuda.to_device(np.arange(n, dtype=np.float32))
    d_out = cuda.device_array_like(d_a)
    return {"scale (reads and writes 2 x 4 bytes a value)": median_ms(module.scale, n // 256, 256, d_a, d_out,
                                                                      np.float32(2.0))}  # fmt: skip


def tiny(n: int) -> dict:
    """NumPy on the CPU, the kernel alone on device arrays, and a launch on NumPy arrays (numba copies)."""
    module = kernels("tiny-data")
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros_like(a)
    d_a, d_b, d_out = cuda.to_device(a), cuda.to_device(b), cuda.to_device(out)
    grid = (n + 255) // 256
    module.add[grid, 256](a, b, out)  # compiled for NumPy arguments and device ones alike
    return {"NumPy a + b on the CPU": host_ms(lambda: np.add(a, b, out=out)),
            "add on device arrays, kernel alone": median_ms(module.add, grid, 256, d_a, d_b, d_out),
            "add on NumPy arrays, copies included": host_ms(lambda: module.add[grid, 256](a, b, out))}  # fmt: skip


def streams(chunk: int, steps: int, chunks: int = 4) -> dict:
    """The lesson's four chunks: on the default stream one after another, and on four streams (pinned and
    pageable host memory); the host's clock from the first copy to the last."""
    module = kernels("streams-overlap")
    pinned_in, pinned_out = (cuda.pinned_array((chunks, chunk), np.float32) for _ in range(2))
    pinned_in[:] = 1.0
    pageable_in, pageable_out = np.ones((chunks, chunk), np.float32), np.zeros((chunks, chunk), np.float32)
    d_in = [cuda.device_array(chunk, np.float32) for _ in range(chunks)]
    d_out = [cuda.device_array(chunk, np.float32) for _ in range(chunks)]
    many = [cuda.stream() for _ in range(chunks)]

    def run(host_in, host_out, on) -> None:
        for k in range(chunks):
            stream = on[k]
            d_in[k].copy_to_device(host_in[k], stream=stream)
            module.smooth[chunk // 256, 256, stream](d_in[k], d_out[k], steps)
            d_out[k].copy_to_host(host_out[k], stream=stream)

    zero = cuda.default_stream()
    run(pinned_in, pinned_out, [zero] * chunks)  # compiles
    return {"one stream (the default), pinned": host_ms(lambda: run(pinned_in, pinned_out, [zero] * chunks)),
            "four streams, pinned": host_ms(lambda: run(pinned_in, pinned_out, many)),
            "four streams, pageable": host_ms(lambda: run(pageable_in, pageable_out, many))}  # fmt: skip


def stream_model(big: int) -> dict:
    """What the simulator's stream clock (backends/sim/stream_clock.py) takes from hardware: a copy's fixed
    cost, pinned and pageable bandwidth, a launch's host time, the shortest kernel, numba's compile."""
    small = np.zeros(1, np.float32)
    d_small = cuda.to_device(small)
    pageable, pinned = np.ones(big, np.float32), cuda.pinned_array(big, np.float32)
    d_big = cuda.device_array(big, np.float32)
    source = "from numba import cuda\n\n@cuda.jit\ndef nothing(a):\n    pass\n"
    module = types.ModuleType("nothing")
    exec(compile(source, "nothing", "exec"), module.__dict__)  # noqa: S102  (a kernel compiled fresh)
    started = time.perf_counter()
    module.nothing[1, 32](d_small)
    cuda.synchronize()
    compile_ms = (time.perf_counter() - started) * 1000.0
    gb = big * 4 / 1e9

    def runs(work) -> float:
        return statistics.median(work() for _ in range(RUNS))

    return {"copy of 4 bytes in, pageable (us)": 1000 * runs(lambda: event_ms(lambda: d_small.copy_to_device(small))),
            "copy in, pinned (GB/s)": gb / runs(lambda: event_ms(lambda: d_big.copy_to_device(pinned))) * 1000,
            "copy in, pageable (GB/s)": gb / runs(lambda: event_ms(lambda: d_big.copy_to_device(pageable))) * 1000,
            "copy out, pinned (GB/s)": gb / runs(lambda: event_ms(lambda: d_big.copy_to_host(pinned))) * 1000,
            "copy out, pageable (GB/s)": gb / runs(lambda: event_ms(lambda: d_big.copy_to_host(pageable))) * 1000,
            "launch, host time (us)": 1000 * runs(lambda: _launch_only(module.nothing, d_small)),
            "empty kernel between events (us)": 1000 * runs(lambda: event_ms(lambda: module.nothing[1, 32](d_small))),
            "first launch, numba compiling (ms)": compile_ms}  # fmt: skip


def _launch_only(kernel, arg) -> float:
    cuda.synchronize()
    started = time.perf_counter()
    kernel[1, 32](arg)
    ms = (time.perf_counter() - started) * 1000.0
    cuda.synchronize()
    return ms


def measure() -> dict:
    """Each lesson's size in words and its versions' times; smoke sizes are tiny."""
    small = SMOKE
    chosen = set(sys.argv[sys.argv.index("--only") + 1].split(",")) if "--only" in sys.argv else None
    sizes = {
        "privatised-histogram": lambda: [
            ("4,096 values, 16 blocks of 256", histogram(4096)),
            ("2^24 values, 65,536 blocks of 256", histogram(1 << (12 if small else 24)))],
        "coalescing": lambda: [("8,192 x 8,192 floats, blocks of 32x32", coalescing(64 if small else 8192))],
        "transpose": lambda: [("8,192 x 8,192 floats, blocks of 32x32", transpose(64 if small else 8192))],
        "occupancy": lambda: [("2^24 floats, 65,536 blocks of 256", occupancy(16 if small else 65536))],
        "divergence-cost": lambda: [
            ("65,536 blocks of 256, steps = 64", divergence(16 if small else 65536, 64)),
            ("65,536 blocks of 256, steps = 64 written as a constant",
             divergence(16 if small else 65536, 64, constant=True))],
        "mandelbrot": lambda: [
            ("4,096 x 3,072 pixels, blocks of 16x16", mandelbrot(*((64, 48) if small else (4096, 3072))))],
        "float64-promotion": lambda: [
            ("2^24 points, 64 coefficients, blocks of 256", promotion(1 << (12 if small else 24), 64))],
        "cupy-inputs": lambda: [
            ("1,000 floats (the lesson's size), blocks of 256", cupy_inputs(1000)),
            ("2^24 floats, blocks of 256", cupy_inputs(1 << (12 if small else 24)))],
    } | TIME_LESSONS  # fmt: skip
    unknown = (chosen or set()) - set(sizes)
    if unknown:
        raise SystemExit(f"--only {','.join(sorted(unknown))}: no such speed lesson; give some of {', '.join(sizes)}")
    return {slug: measured() for slug, measured in sizes.items() if chosen is None or slug in chosen}


TIME_LESSONS = {  # the lessons about time outside kernels: slug -> its sizes and times
    "timing-a-kernel": lambda: [("2^16 floats, 256 blocks of 256", timing(1 << 16)),
                                ("2^26 floats, 262,144 blocks of 256", bandwidth(1 << (12 if SMOKE else 26)))],
    "tiny-data": lambda: [("1,000 values", tiny(1000)), ("2^24 values", tiny(1 << (12 if SMOKE else 24)))],
    "streams-overlap": lambda: [("4 chunks of 2^22 floats, steps = 256",
                                 streams(1 << (10 if SMOKE else 22), 4 if SMOKE else 256))],
}  # fmt: skip


def chosen_any(lessons: dict) -> bool:
    """Whether this run measures any of these lessons (all of them without --only)."""
    return ONLY is None or bool(set(ONLY) & set(lessons))


def main() -> None:
    name = getattr(cuda.get_current_device(), "name", "numba's CUDA simulator")
    name = name.decode() if isinstance(name, bytes) else str(name)
    today, figures = datetime.date.today().isoformat(), {}
    if chosen_any(TIME_LESSONS):  # what the simulator's stream clock takes from hardware
        model = {k: round(v, 3) for k, v in stream_model(1 << (12 if SMOKE else 24)).items()}
        for what, value in model.items():
            print(f"{'stream model':22s} {what:60s} {value:10.3f}")
        stream_figures = {"card": name, "date": today, "runs": RUNS, "figures": model}
    else:
        stream_figures = None
    for slug, sizes in measure().items():
        figures[slug] = {"card": name, "date": today, "runs": RUNS,
                         "sizes": [{"size": size, "ms": {k: round(v, 4) for k, v in times.items()}}
                                   for size, times in sizes]}  # fmt: skip
        for size, times in sizes:
            for version, ms in times.items():
                print(f"{slug:22s} {size:56s} {version:36s} {ms:9.4f} ms")
    if "--json" in sys.argv:
        path = Path(sys.argv[sys.argv.index("--json") + 1])
        kept = json.loads(path.read_text()) if path.is_file() else {"lessons": {}}
        kept["lessons"].update(figures)
        if stream_figures is not None:
            kept["stream model"] = stream_figures
        path.write_text(json.dumps(kept, indent=1) + "\n")
    print(json.dumps({"lessons": figures}, indent=1))
    print(f"lesson_times card={name} runs={RUNS} lessons={len(figures)}")


if __name__ == "__main__":
    main()
