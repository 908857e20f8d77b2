"""Does recording change the race? Plain numba against gpuviz's recorder, on a real GPU.

Each launch runs RUNS times as numba compiles it (plain) and RUNS times through the GPU backend's
instrumented kernel, at levels `accesses` and `threads`, each run from fresh inputs. The outcome of
a run is one number: the counter, the sum of the bins (how many increments survived) or a[0].
The rule for "the same outcomes": the recorded median lies inside the plain [min, max] and every
recorded run inside [0.75 x min, 1.25 x max]. The tutorial race and the histogram are the kernels
of the lessons `the-race` and `histogram` (gpuviz/catalog/lessons), written out here.
Usage: python bench/gpu_race_fidelity.py [runs] [level ...]; prints the table last.
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda, numba_jit

cuda = import_numba_cuda()

RUNS = 16


def counter(c):
    c[0] += 1


def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1


def histogram_strided(data, bins):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, data.size, stride):
        bins[data[i] % bins.size] += 1


def loop_race(array):
    for i in range(array.size):
        array[i] += 0.5


def _values(n: int) -> np.ndarray:
    return np.random.default_rng(0).integers(0, 1000, n).astype(np.int32)


def _sum_of(name):
    return lambda arrays: float(arrays[name].sum())


def _first_of(name):
    return lambda arrays: float(arrays[name][0])


# name, kernel, grid, block, inputs (fresh each run), outcome
LAUNCHES = [
    ("counter[0] += 1 [1024,1024]", counter, 1024, 1024, lambda: {"c": np.zeros(1, np.int32)}, _first_of("c")),
    ("counter[0] += 1 [8192,128]", counter, 8192, 128, lambda: {"c": np.zeros(1, np.int32)}, _first_of("c")),
    ("histogram 65,536 into 256", histogram, 256, 256,
     lambda: {"data": _values(65536), "bins": np.zeros(256, np.int32)}, _sum_of("bins")),
    ("histogram 2^20 into 16", histogram, 4096, 256,
     lambda: {"data": _values(1 << 20), "bins": np.zeros(16, np.int32)}, _sum_of("bins")),
    ("grid-stride 2^20 into 16 [1024,256]", histogram_strided, 1024, 256,
     lambda: {"data": _values(1 << 20), "bins": np.zeros(16, np.int32)}, _sum_of("bins")),
    ("loop race a[0] [16384,64]", loop_race, 16384, 64, lambda: {"array": np.array([0, 1], np.float32)},
     _first_of("array")),
    ("tutorial race a[0] [1024,1024]", loop_race, 1024, 1024, lambda: {"array": np.array([0, 1], np.float32)},
     _first_of("array")),
    ("histogram lesson [16,256]", histogram, 16, 256,
     lambda: {"data": _values(4096), "bins": np.zeros(16, np.int32)}, _sum_of("bins")),
]  # fmt: skip


def plain_runs(kernel, grid, block, inputs, outcome, runs) -> list[float]:
    compiled = numba_jit()(kernel)
    results = []
    for _ in range(runs):
        host = inputs()
        device = {name: cuda.to_device(value) for name, value in host.items()}
        compiled[grid, block](*device.values())
        cuda.synchronize()
        results.append(outcome({name: value.copy_to_host() for name, value in device.items()}))
    return results


def recorded_runs(kernel, grid, block, inputs, outcome, runs, level) -> list[float]:
    from gpuviz.backends.gpu.backend import DEVICE_ACCESS_CAP, GpuBackend, PreparedLaunch
    from gpuviz.core.launch import LaunchConfig

    host = inputs()
    backend, ndims = GpuBackend(), {name: v.ndim for name, v in host.items()}
    config = LaunchConfig.of(grid, block)
    compiled = backend.compile(kernel, level, ndims=ndims, flat=config.flat)  # as GpuBackend.run compiles it
    launch = PreparedLaunch(cuda, compiled, config, tuple(host.values()), DEVICE_ACCESS_CAP)
    launch.compile_for_arguments()
    backend.keep_occupancy(kernel, launch, backend.device_facts(), ndims)  # as GpuBackend.run does
    if launch.overload is not None:
        from gpuviz.backends.gpu.backend import native_globals
        from gpuviz.backends.gpu.plain import plain_registers

        plain = plain_registers(kernel, native_globals, launch.device_args)
        print(f"  {kernel.__name__} ({level}): {launch.overload.regs_per_thread} registers a thread, "
              f"{plain} as it is", flush=True)  # fmt: skip
    results = []
    for _ in range(runs):
        fresh = inputs()
        for device, value in zip(launch.device_args, fresh.values()):
            device.copy_to_device(value)
        launch.reset_counter()
        launch.launch()
        cuda.synchronize()
        results.append(outcome({name: d.copy_to_host() for name, d in zip(fresh, launch.device_args)}))
    return results


def same_outcomes(plain: list[float], recorded: list[float]) -> bool:
    low, high = min(plain), max(plain)
    inside = low <= statistics.median(recorded) <= high
    return inside and all(0.75 * low <= r <= 1.25 * high for r in recorded)


def main() -> None:
    smoke = "--smoke" in sys.argv[1:]  # two runs of two launches: the same code at a glance
    words = [word for word in sys.argv[1:] if word != "--smoke"]
    runs = 2 if smoke else int(words[0]) if words else RUNS
    levels = words[1:] or ["accesses", "threads"]
    launches = LAUNCHES[:2] if smoke else LAUNCHES
    device = getattr(cuda.get_current_device(), "name", "simulator")
    print(f"device: {device.decode() if isinstance(device, bytes) else device}; {runs} runs each")
    rows = []
    for name, kernel, grid, block, inputs, outcome in launches:
        plain = plain_runs(kernel, grid, block, inputs, outcome, runs)
        for level in levels:
            recorded = recorded_runs(kernel, grid, block, inputs, outcome, runs, level)
            rows.append((name, level, plain, recorded))
            print(name, level, "plain", sorted(plain), "recorded", sorted(recorded), flush=True)
    print("\n| launch | level | plain min-max (median) | recorded min-max (median) | same |")
    print("|---|---|---|---|---|")
    for name, level, plain, recorded in rows:
        print(f"| {name} | {level} | {min(plain):g}-{max(plain):g} ({statistics.median(plain):g}) | "
              f"{min(recorded):g}-{max(recorded):g} ({statistics.median(recorded):g}) | "
              f"{'yes' if same_outcomes(plain, recorded) else 'NO'} |")  # fmt: skip


if __name__ == "__main__":
    main()
