"""Bytes per access of a trace file, and what writing and reading it cost, against the previous format.

Vector add over 2^20 float32 elements (random inputs, 3 accesses a thread) and the tutorial's race
([1024, 1024] threads on float32[2]), recorded on the simulator with every access's value and time,
saved as gpuviz-trace/3 (narrowed, deflated columns; core/trace/codec.py) and, as the baseline in the
same run, as gpuviz-trace/2 wrote it (every column as it is in memory, np.savez uncompressed). Loading
/3 checks that every access column comes back exactly. Last line per launch:
`<name> access_bytes_per_event=<b> file_bytes_per_event=<b> v2_bytes_per_event=<b>`.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent))

import gpuviz  # noqa: E402
from gpuviz.core.files import write_file  # noqa: E402

VECADD = ("from numba import cuda\n@cuda.jit\ndef add(a, b, c):\n    i = cuda.grid(1)\n"
          "    if i < c.size:\n        c[i] = a[i] + b[i]\n")  # fmt: skip
# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
RACE = "from numba import cuda\n@cuda.jit\ndef race(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"


def launches():
    n = 1 << (10 if SMOKE else 20)
    rng = np.random.default_rng(0)
    a, b = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    yield "vecadd", gpuviz.trace(VECADD, backend="sim", level="accesses")[n // 256, 256](a, b, np.zeros(n, np.float32))
    blocks = 2 if SMOKE else 1024
    yield "race", gpuviz.trace(RACE, backend="sim", level="accesses")[blocks, 1024](np.zeros(2, np.float32))


def save_v2(trace, path: Path) -> Path:
    """The file as gpuviz-trace/2 wrote it (temporary file, fsync, rename, as now)."""
    columns = {"format": np.array("gpuviz-trace/2"), "meta": np.array(json.dumps(trace.meta)),
               "analysis": np.array(json.dumps(trace.analysis))}  # fmt: skip
    columns.update({f"thread.{k}": v for k, v in trace.threads.items()})
    columns.update({f"access.{k}": v for k, v in trace.accesses.items()})
    for name, (before, after) in trace.args.items():
        columns.update({f"arg.{name}.before": before, f"arg.{name}.after": after})
    return write_file(path, lambda stream: np.savez(stream, **columns), "trace")  # synced, as Trace.save


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    for name, trace in launches():
        events = len(trace.accesses["thread"])
        path, save3 = timed(trace.save, folder / f"{name}.npz")
        old, save2 = timed(save_v2, trace, folder / f"{name}-v2.npz")
        back, load3 = timed(gpuviz.load, path)
        _, load2 = timed(gpuviz.load, old)
        for key, values in trace.accesses.items():
            assert np.array_equal(back.accesses[key], values, equal_nan=True), key
        with zipfile.ZipFile(path) as archive:
            access = sum(i.compress_size for i in archive.infolist() if i.filename.startswith("access."))
        file3, file2 = path.stat().st_size / events, old.stat().st_size / events
        print(f"{name}: {trace.n_threads:,} threads, {events:,} accesses; /3 file {file3:.2f} B/access "
              f"(access columns {access / events:.2f}), /2 file {file2:.2f} B/access (x{file2 / file3:.0f}); "
              f"save {save3:.2f} s vs {save2:.2f} s, load {load3:.2f} s vs {load2:.2f} s")
        print(f"{name} access_bytes_per_event={access / events:.2f} file_bytes_per_event={file3:.2f} "
              f"v2_bytes_per_event={file2:.2f}")


if __name__ == "__main__":
    main()
