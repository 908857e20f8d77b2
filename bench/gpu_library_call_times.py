"""How long the libraries' calls take a block: the `library-block-sum` lesson's CCCL block sum and
nvmath-python device matmul, recorded on a real GPU (level `accesses`) beside gpuviz's models of them
on the simulator.

Per launch with a library call, per block: the span of the block's records at the call's line, from
its first to its last (the same measure on both backends: on the GPU, the argument's load, each
thread's hand-in and get-back records around CCCL's call, or the matmul's logged operands around the
call and the barrier after it; on the simulator, the model's own loads and stores). GPU spans in ns
(%globaltimer, which moves in 32 ns steps on an H100), the model's in cycles (model).
Last line: `library cccl_cycles=<model> cccl_ns=<median> matmul_cycles=<model> matmul_ns=<median>`, or
`library skipped: ...` where the packages or the GPU are missing.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LESSON = ROOT / "gpuviz" / "catalog" / "lessons" / "24-library-block-sum.py"
CALLS = {"library_sum": ("cccl", "block_sum("), "matmul_sum": ("matmul", "MM.execute(")}


def block_spans(trace, line: int) -> list[int]:
    """Per block: its last record at the line minus its first (the trace's time unit)."""
    a = trace.accesses
    at = a["line"] == line
    block = a["thread"][at] // trace.block[0]
    times = a["time"][at].astype(np.int64)
    return [int(times[block == b].max() - times[block == b].min()) for b in np.unique(block).tolist()]


def call_line(trace, text: str) -> int:
    lines = trace.meta["source"].splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line and not line.lstrip().startswith("#"))


def spans(backend: str) -> dict[str, list[int]]:
    import gpuviz
    from gpuviz.cli import main

    out = Path(tempfile.mkdtemp())
    assert main(["run", str(LESSON), "--backend", backend, "--level", "accesses", "--out", str(out)]) == 0
    found = {}
    for path in sorted(out.glob("*.npz")):
        trace = gpuviz.load(path)
        if trace.meta["kernel"] in CALLS:
            short, text = CALLS[trace.meta["kernel"]]
            found[short] = block_spans(trace, call_line(trace, text))
    return found


def missing() -> str | None:
    try:
        import cuda.cccl.cooperative.experimental  # noqa: F401
        import nvmath.device  # noqa: F401
        from numba import cuda

        if not cuda.is_available():
            return "no CUDA GPU"
    except Exception as exc:  # not installed, or its libraries are not found
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


def main() -> None:
    reason = missing()
    if reason:
        print(f"library skipped: install gpuviz[nvmath,cccl] on a GPU ({reason})")
        return
    gpu, model = spans("gpu"), spans("sim")
    for short in ("cccl", "matmul"):
        print(f"{short}: GPU per block {gpu[short]} ns (median {statistics.median(gpu[short]):.0f}); "
              f"model per block {model[short]} cycles (model)")  # fmt: skip
    medians = {f"{short}_{unit}": statistics.median(found[short])
               for unit, found in (("ns", gpu), ("cycles", model)) for short in ("cccl", "matmul")}  # fmt: skip
    print("library " + " ".join(f"{key}={value:.0f}" for key, value in sorted(medians.items())))


if __name__ == "__main__":
    main()
