"""Saving the GPU backend's trace at level `threads` for 1,048,576 threads, on the CPU alone.

The GPU part of "launch to trace on disk" (bench/gpu_overhead.py) is a few milliseconds; the rest is
building the trace and `Trace.save`. This builds the trace the way the backend's
`PreparedLaunch.collect` does at level `threads` (vector add, 4,096 blocks of 256 threads, the
arguments of bench/gpu_overhead.py): per-thread columns from per-block %globaltimer starts, per-block
SMs and per-warp ends, in ns after the first start, with the dispatch in waves over 132 SMs and the
timer's 32 ns step; the argument snapshots before and after. It then times `trace.save(path)` (what
`gpuviz.trace(...)[grid, block](...).save(path)` runs) against a plain `np.savez` of the same
columns, uncompressed and not synced, measured in the same run.

Best of REPEATS, alternating, for random inputs and then for the ones of bench/gpu_overhead.py.
Last line (those ones): `gpu_trace_save save=<s> plain=<s> ratio=<r> bytes=<n>`.
Run: `PYTHONPATH=$PWD python bench/gpu_trace_save.py`.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent))

from gpuviz.core.launch import LaunchConfig  # noqa: E402
from gpuviz.core.trace.columns import thread_layout  # noqa: E402
from gpuviz.core.trace.model import Trace, new_trace  # noqa: E402
from gpuviz.core.trace.reader import load  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
REPEATS = 1 if SMOKE else 7
N, BLOCK, SMS, WARP = 1 << (12 if SMOKE else 20), 256, 132, 32
STEP_NS = 32  # %globaltimer's update step on the H100s measured (docs/gpu.md)


class _Source:
    name, text, filename, first_line, last_line = "vecadd", "def vecadd(a, b, c):\n    pass\n", "k.py", 1, 2


def device_buffers(config: LaunchConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the recorder leaves on the device at level `threads`: each block's start (ns, the
    globaltimer's absolute value) and SM, each warp's end (an atomic max of its lanes' readings)."""
    blocks = config.blocks
    wave = np.arange(blocks) // (SMS * 8)  # 8 resident blocks of 256 threads an SM
    start = 1_700_000_000_000_000_000 + wave * 2_500 + rng.integers(0, 600, blocks)
    block_start = (start // STEP_NS * STEP_NS).astype(np.uint64)
    block_sm = rng.permutation(np.arange(blocks) % SMS).astype(np.uint32)
    warps = config.warps_per_block
    end = np.repeat(block_start.astype(np.int64), warps) + 1_800 + rng.integers(0, 900, blocks * warps)
    return block_start, block_sm, (end // STEP_NS * STEP_NS).astype(np.uint64)


def gpu_trace(config: LaunchConfig, rng: np.random.Generator, inputs: str = "ones") -> Trace:
    """The trace as PreparedLaunch.collect builds it at level `threads` (no per-warp start, no log);
    `inputs` "ones" as bench/gpu_overhead.py passes them, or "random" (incompressible floats)."""
    block_start, block_sm, warp_end = device_buffers(config, rng)
    block_idx, thread_idx, warp, lane = thread_layout(config.grid, config.block, WARP)
    block_of_thread = np.repeat(np.arange(config.blocks, dtype=np.int64), config.threads_per_block)
    warp_of_thread = block_of_thread * config.warps_per_block + warp
    start = block_start.astype(np.int64)[block_of_thread]
    first = int(start.min())
    end = warp_end.astype(np.int64)[warp_of_thread]
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": block_sm[block_of_thread].astype(np.int32),
               "t_start": start - first, "t_end": np.maximum(end - first, start - first)}  # fmt: skip
    a, b = (np.ones(N, np.float32), np.ones(N, np.float32)) if inputs == "ones" else rng.random((2, N), np.float32)
    c = np.zeros(N, np.float32)
    after = a + b
    snapshots = {"a": (a, a.copy()), "b": (b, b.copy()), "c": (c, after)}
    facts = {"name": "NVIDIA H100 80GB HBM3", "sm_count": SMS, "warp_size": WARP}
    arrays = [{"name": name, "space": "global", "dtype": "float32", "shape": [N]} for name in "abc"]
    return new_trace(source=_Source, config=config, backend="gpu", device_facts=facts, time_unit="ns",
                     param_names=["a", "b", "c"], values=(a, b, c), snapshots=snapshots, arrays=arrays,
                     threads=threads, accesses=None, level="threads", schedule="hardware",
                     time_source="globaltimer")  # fmt: skip


def plain_save(trace: Trace, path: Path) -> None:
    """The same columns as plain .npy members: no narrowing, no deflate, no fsync, no rename."""
    columns = {f"thread.{k}": v for k, v in trace.threads.items()}
    columns.update({f"arg.{k}.{w}": v for k, pair in trace.args.items() for w, v in zip(("before", "after"), pair)})
    np.savez(path, **columns)


def timed(save, trace: Trace, path: Path, times: list[float]) -> None:
    started = time.perf_counter()
    save(trace, path)
    times.append(time.perf_counter() - started)


def measure(inputs: str, folder: Path) -> tuple[float, float, int]:
    """Best `save` and best plain write of one trace, alternating; the file's size."""
    config = LaunchConfig.of(N // BLOCK, BLOCK)
    started = time.perf_counter()
    trace = gpu_trace(config, np.random.default_rng(0), inputs)
    built = time.perf_counter() - started
    path, plain = folder / f"{inputs}.npz", folder / f"{inputs}-plain.npz"
    saved, plained = [], []
    for _ in range(REPEATS):
        timed(lambda t, p: t.save(p), trace, path, saved)
        timed(plain_save, trace, plain, plained)
    back = load(path)
    exact = all(np.array_equal(back.threads[k], v) for k, v in trace.threads.items())
    size = path.stat().st_size
    print(f"inputs {inputs}: trace built in {built:.3f} s; save {min(saved):.3f}-{max(saved):.3f} s, "
          f"plain np.savez {min(plained):.3f}-{max(plained):.3f} s; file {size:,} bytes, plain "
          f"{plain.stat().st_size:,}; every thread column back exactly: {exact}")  # fmt: skip
    return min(saved), min(plained), size


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        measure("random", Path(folder))
        saved, plain, size = measure("ones", Path(folder))  # the inputs of bench/gpu_overhead.py: last line
    print(f"gpu_trace_save save={saved:.3f} plain={plain:.3f} ratio={saved / plain:.2f} bytes={size}")


if __name__ == "__main__":
    main()
