"""Simulator speed against numba's own CUDA simulator (NUMBA_ENABLE_CUDASIM=1), measured in one run.

Workloads: (a) vector add over 2^16 threads, (b) a shared-memory tree reduction with syncthreads
over 2^14 threads, both with blocks of 256. gpuviz records its full trace (threads and accesses);
numba's simulator records nothing. gpuviz's time is the median of 5 launches (the first included,
rewrite and compile too); numba's simulator, at 30-60 s a launch, is timed once.
Last line: `speedup vecadd=<ratio> reduction=<ratio>`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

KERNELS = Path(__file__).with_name("speed_kernels.py")
WORKLOADS = {"vecadd": 1 << 16, "reduction": 1 << 14}


def arguments(name: str, n: int) -> tuple:
    if name == "vecadd":
        a = np.arange(n, dtype=np.float32)
        return a, a.copy(), np.zeros(n, np.float32)
    return np.ones(n, np.float32), np.zeros(n // 256, np.float32)


KERNEL_OF = {"vecadd": "vecadd", "reduction": "tree_reduction"}


def time_gpuviz(name: str, n: int) -> float:
    import gpuviz

    tracer = gpuviz.trace(KERNELS.read_text(), name=KERNEL_OF[name], backend="sim")
    args = arguments(name, n)
    started = time.perf_counter()
    trace = tracer[n // 256, 256](*args)
    seconds = time.perf_counter() - started
    assert trace.meta["level"] == "accesses" and trace.accesses is not None
    _check(name, n, args)
    return seconds


def time_numba_simulator(name: str, n: int) -> float:
    code = f"""
import json, sys, time
sys.path.insert(0, {str(KERNELS.parent)!r})
import speed_kernels, sim_speed
args = sim_speed.arguments({name!r}, {n})
kernel = getattr(speed_kernels, {KERNEL_OF[name]!r})
started = time.perf_counter()
kernel[{n} // 256, 256](*args)
seconds = time.perf_counter() - started
sim_speed._check({name!r}, {n}, args)
print(json.dumps(seconds))
"""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check(name: str, n: int, args: tuple) -> None:
    if name == "vecadd":
        np.testing.assert_allclose(args[2], args[0] + args[1])
    else:
        np.testing.assert_allclose(args[1], np.full(n // 256, 256.0))


def main() -> None:
    ratios = {}
    for name, n in WORKLOADS.items():
        ours = statistics.median(time_gpuviz(name, n) for _ in range(5))
        theirs = time_numba_simulator(name, n)
        ratios[name] = theirs / ours
        print(f"{name:9s} threads={n:6d}  gpuviz {ours:7.3f} s ({n / ours:9,.0f} threads/s)   "
              f"numba cudasim {theirs:7.2f} s ({n / theirs:7,.0f} threads/s)   x{ratios[name]:.1f}")  # fmt: skip
    print(" ".join(["speedup"] + [f"{k}={v:.1f}" for k, v in ratios.items()]))


if __name__ == "__main__":
    main()
