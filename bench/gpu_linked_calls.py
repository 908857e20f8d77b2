"""The two catalog examples that call linked library code (nvmath-python's device matmul, CCCL's block
sum) on a real GPU: plain (python3 script.py, numba alone) and under gpuviz at levels `threads` and
`accesses`.

Per example and level: wall seconds of the whole run (the first of a process compiles: numba, and for
the matmul libmathdx's code generation), the kernel's seconds as the trace says, whether the recorded
result equals numba's plain run of the same kernel, and for the matmul at level `accesses` the call's
time per thread: from the thread's last logged read before the call to its first logged write after it
(the call and the barrier after it), median and max over the threads that log both.
Last line: `linked matmul_call_ns=<median> cccl_equal=<bool> matmul_equal=<bool>` (or `linked skipped: ...`
where the packages are not installed).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SMOKE = "--smoke" in sys.argv  # the examples are small already: the same runs
EXAMPLES = {"gtc25_segmented_matmul.py": "matmul", "cccl_block_sum.py": "cccl"}


def plain_seconds(script: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
    return time.perf_counter() - started


def recorded(script: Path, level: str):
    import gpuviz
    from gpuviz.cli import main

    out = Path(tempfile.mkdtemp())
    started = time.perf_counter()
    assert main(["run", str(script), "--backend", "gpu", "--level", level, "--out", str(out)]) == 0
    wall = time.perf_counter() - started
    (path,) = sorted(out.glob("*.npz"))
    return gpuviz.load(path), wall


def call_times_ns(trace, line: int) -> list[int]:
    """Per thread: first write at the call's line minus the last read there (each thread's own records)."""
    a = trace.accesses
    at = a["line"] == line
    times = []
    for thread in np.unique(a["thread"][at]).tolist():
        mine = at & (a["thread"] == thread)
        reads, writes = a["time"][mine & (a["kind"] == 0)], a["time"][mine & (a["kind"] == 1)]
        if len(reads) and len(writes):
            times.append(int(writes.min() - reads.max()))
    return times


def missing_package() -> str | None:
    try:
        import cuda.cccl.cooperative.experimental  # noqa: F401
        import nvmath.device  # noqa: F401
    except Exception as exc:  # not installed, or its libraries are not found
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


def main() -> None:
    from gpuviz.catalog import EXAMPLES as FOLDER

    missing = missing_package()
    if missing:
        print(f"linked skipped: install gpuviz[nvmath,cccl] ({missing})")
        return
    results = {}
    for name, short in EXAMPLES.items():
        script = FOLDER / name
        print(f"{name}: plain (numba alone) {plain_seconds(script):.1f} s wall, compile included")
        for level in ("threads", "accesses"):
            trace, wall = recorded(script, level)
            line = f"{name}: {level}: {wall:.1f} s wall, kernel {trace.meta['seconds'] * 1e3:.3f} ms"
            if level == "accesses":
                equal = bool(np.array_equal(trace.outcomes["out_arr.plain"], trace.after("out_arr")))
                results[f"{short}_equal"] = equal
                line += f", recorded == plain: {equal}, {len(trace.accesses['thread']):,} accesses"
                if short == "matmul":
                    lines = trace.meta["source"].splitlines()
                    call = next(n for n, text in enumerate(lines, 1) if text.strip().startswith("MM.execute("))
                    times = call_times_ns(trace, call)
                    results["matmul_call_ns"] = int(statistics.median(times))
                    line += f", the call per thread {statistics.median(times):.0f} ns median, {max(times)} max"
            print(line)
    print(f"linked matmul_call_ns={results['matmul_call_ns']} cccl_equal={results['cccl_equal']} "
          f"matmul_equal={results['matmul_equal']}")


if __name__ == "__main__":
    main()
