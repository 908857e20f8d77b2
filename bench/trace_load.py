"""What safety costs on a big trace file (a synthetic trace of 1M threads and 4M accesses):
- reading: the checked reader (gpuviz.load: headers against the budget, schema and ranges) against a
  plain np.load of the same members;
- writing: Trace.save (temporary file, fsync, size check, rename) against a plain np.savez.
Best of REPEATS, same machine, same run. Last lines: `load checked=<s> plain=<s> ratio=<r>` and
`save safe=<s> plain=<s> ratio=<r>`.
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
from gpuviz.core.trace.model import new_trace  # noqa: E402
from gpuviz.core.trace.reader import load  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
REPEATS = 1 if SMOKE else 5
GRID, BLOCK, EVENTS = (4, 256, 1 << 12) if SMOKE else (4096, 256, 1 << 22)


class _Source:
    name, text, filename, first_line, last_line = "k", "def k(a):\n    pass\n", "k.py", 1, 2


def synthetic_trace(folder: Path) -> Path:
    config = LaunchConfig.of(GRID, BLOCK)
    n = config.threads
    rng = np.random.default_rng(0)
    block_idx, thread_idx, warp, lane = thread_layout(config.grid, config.block)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": (np.arange(n) // BLOCK % 132).astype(np.int32),
               "t_start": np.zeros(n, np.int64), "t_end": np.full(n, 100, np.int64)}  # fmt: skip
    a = np.zeros(n, np.float32)
    accesses = {"thread": rng.integers(0, n, EVENTS, dtype=np.int32), "array": np.zeros(EVENTS, np.int16),
                "index": rng.integers(0, n, EVENTS), "kind": rng.integers(0, 3, EVENTS, dtype=np.int8),
                "line": np.full(EVENTS, 2, np.int32), "epoch": np.zeros(EVENTS, np.int32),
                "value": rng.random(EVENTS)}  # fmt: skip
    facts = {"name": "bench", "sm_count": 132, "warp_size": 32}
    trace = new_trace(source=_Source, config=config, backend="sim", device_facts=facts, time_unit="tick",
                      param_names=["a"], values=(a,), snapshots={"a": (a, a)},
                      arrays=[{"name": "a", "space": "global", "dtype": "float32", "shape": [n]}],
                      threads=threads, accesses=accesses, level="accesses", schedule="gpu")  # fmt: skip
    return trace.save(folder / "big.npz")


def best(function) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def plain(path: Path) -> None:
    with np.load(path, allow_pickle=False) as npz:
        {key: npz[key] for key in npz.files}


def plain_save(trace, path: Path) -> None:
    columns = {"format": np.array("x"), "meta": np.array("{}"), **{f"thread.{k}": v for k, v in trace.threads.items()},
               **{f"access.{k}": v for k, v in trace.accesses.items()}}  # fmt: skip
    for name, (before, after) in trace.args.items():
        columns.update({f"arg.{name}.before": before, f"arg.{name}.after": after})
    with open(path, "wb") as stream:
        np.savez(stream, **columns)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = synthetic_trace(Path(folder))
        size = path.stat().st_size / 2**20
        checked_s, plain_s = best(lambda: load(path)), best(lambda: plain(path))
        trace = load(path)
        safe_save = best(lambda: trace.save(Path(folder) / "safe.npz"))
        plain_save_s = best(lambda: plain_save(trace, Path(folder) / "plain.npz"))
    print(f"trace {GRID * BLOCK:,} threads, {EVENTS:,} accesses, {size:,.0f} MiB on disk")
    print(f"load checked={checked_s:.3f} plain={plain_s:.3f} ratio={checked_s / plain_s:.2f}")
    print(f"save safe={safe_save:.3f} plain={plain_save_s:.3f} ratio={safe_save / plain_save_s:.2f}")


if __name__ == "__main__":
    main()
