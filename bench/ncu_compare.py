"""gpuviz's memory counts against Nsight Compute's, kernel by kernel (docs/memory.md has the table).

For each kernel below: global load and store requests and sectors, shared load and store requests,
wavefronts and bank conflicts, as `gpuviz memory` counts them from a trace, and as ncu measures the
plain numba kernel (one ncu process over `--plain`, which launches each kernel once).

Usage (on a machine with an NVIDIA GPU and ncu):  python3 bench/ncu_compare.py [--ncu PATH] [--csv FILE]
       without ncu, the gpuviz side on the simulator at tiny sizes:  python3 bench/ncu_compare.py --smoke
Last line: `ncu_compare equal=<kernels equal on every figure gpuviz models>/<kernels> exact=<kernels
equal on every figure>/<kernels>`.
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HEADER = "import math\nfrom numba import cuda, float32, float64, int32\n"


@dataclass(frozen=True)
class Case:
    """A kernel (named as its function), its launch and its inputs at full and at smoke size."""

    name: str
    body: str
    grid: object
    block: object
    make: object  # (smoke: bool) -> tuple of NumPy arrays
    smoke_grid: object = None

    def launch(self, smoke: bool):
        return (self.smoke_grid or self.grid) if smoke else self.grid, self.block

    @property
    def source(self) -> str:
        return HEADER + self.body


def _f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _hist_inputs(smoke):
    data = np.random.default_rng(0).integers(0, 1000, 256 if smoke else 4096).astype(np.int32)
    return data, np.zeros(16, np.int32)


CASES = [
    Case("coalesced_load", """
@cuda.jit
def coalesced_load(a, out):
    i = cuda.grid(1)
    out[i] = a[i]
""", 4, 256, lambda s: (_f32(1024), np.zeros(1024, np.float32)), 1),
    Case("strided_load", """
@cuda.jit
def strided_load(a, out):
    i = cuda.grid(1)
    out[i] = a[i * 32]
""", 1, 256, lambda s: (_f32(256 * 32), np.zeros(256, np.float32))),
    Case("broadcast_load", """
@cuda.jit
def broadcast_load(a, out):
    i = cuda.grid(1)
    out[i] = a[0]
""", 4, 256, lambda s: (_f32(4), np.zeros(1024, np.float32)), 1),
    Case("float64_load", """
@cuda.jit
def float64_load(a, out):
    i = cuda.grid(1)
    out[i] = a[i] * 2.0
""", 4, 256, lambda s: (np.arange(1024, dtype=np.float64), np.zeros(1024, np.float64)), 1),
    Case("transpose_naive", """
@cuda.jit
def transpose_naive(a, b):
    tile = cuda.shared.array((32, 32), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 32 + ty, cuda.blockIdx.x * 32 + tx]
    cuda.syncthreads()
    b[cuda.blockIdx.x * 32 + ty, cuda.blockIdx.y * 32 + tx] = tile[tx, ty]
""", (1, 1), (32, 32), lambda s: (_f32(32, 32), np.zeros((32, 32), np.float32))),
    Case("transpose_padded", """
@cuda.jit
def transpose_padded(a, b):
    tile = cuda.shared.array((32, 33), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 32 + ty, cuda.blockIdx.x * 32 + tx]
    cuda.syncthreads()
    b[cuda.blockIdx.x * 32 + ty, cuda.blockIdx.y * 32 + tx] = tile[tx, ty]
""", (2, 2), (32, 32), lambda s: (_f32(64, 64), np.zeros((64, 64), np.float32)), (1, 1)),
    Case("tiled_matmul", """
@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array((16, 16), float32)
    sB = cuda.shared.array((16, 16), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for t in range(A.shape[1] // 16):
        sA[ty, tx] = A[y, t * 16 + tx]
        sB[ty, tx] = B[t * 16 + ty, x]
        cuda.syncthreads()
        for k in range(16):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    C[y, x] = acc
""", (2, 2), (16, 16), lambda s: (_f32(32, 32) / 1024, _f32(32, 32) / 1024, np.zeros((32, 32), np.float32))),
    Case("racy_histogram", """
@cuda.jit
def racy_histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        bins[data[i] % bins.size] += 1
""", 16, 256, _hist_inputs, 1),
    Case("shared_reduction", """
@cuda.jit
def shared_reduction(a, out):
    s = cuda.shared.array(256, float32)
    tid = cuda.threadIdx.x
    s[tid] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = s[0]
""", 4, 256, lambda s: (np.ones(1024, np.float32), np.zeros(4, np.float32)), 1),
    Case("stencil_2d", """
@cuda.jit
def stencil_2d(a, out):
    x, y = cuda.grid(2)
    if 0 < y < a.shape[0] - 1 and 0 < x < a.shape[1] - 1:
        out[y, x] = a[y, x] * 4 - a[y - 1, x] - a[y + 1, x] - a[y, x - 1] - a[y, x + 1]
""", (2, 4), (32, 8), lambda s: (_f32(32, 64), np.zeros((32, 64), np.float32)), (1, 2)),
]

# Figure (gpuviz's plain name) -> the ncu metric of core/analysis/memory_counts.py, read from there.
_WHATS = {"global": ("requests", "sectors"), "shared": ("requests", "wavefronts", "bank conflicts")}
FIGURES = [f"{space} {op} {what}" for space, whats in _WHATS.items() for op in ("load", "store") for what in whats]
EXTRA_METRICS = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
                 "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
                 "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"]  # fmt: skip


def ncu_names() -> dict[str, str | None]:
    from gpuviz.core.analysis.memory_counts import METRICS

    return {name: ncu for name, ncu, _ in METRICS.values() if name in FIGURES}


def not_modelled() -> set[str]:
    """The figures `gpuviz memory` marks as not modelled (a difference there is allowed, and said)."""
    from gpuviz.core.analysis.memory_counts import METRICS

    return {name for name, _, note in METRICS.values() if note}


def kernel_of(case: Case):
    namespace: dict = {}
    exec(compile(case.source, f"<{case.name}>", "exec"), namespace)
    return namespace[case.name]


def plain(smoke: bool = False) -> None:
    """Each kernel once, plain numba-cuda (what ncu measures)."""
    from numba import cuda

    for case in CASES:
        grid, block = case.launch(smoke)
        args = [cuda.to_device(a) for a in case.make(smoke)]
        kernel_of(case)[grid, block](*args)
        cuda.synchronize()
    print(f"launched {len(CASES)} kernels")


def gpuviz_counts(case: Case, backend: str, smoke: bool) -> dict[str, int]:
    import gpuviz
    from gpuviz.core.analysis.memory import memory_report

    grid, block = case.launch(smoke)
    launched = gpuviz.trace(case.source, name=case.name, backend=backend)[grid, block](*case.make(smoke))
    counts = memory_report(launched)["counts"]
    return {c["name"]: c["value"] for c in counts if c["name"] in FIGURES}


def ncu_counts(ncu: str, csv_out: str | None) -> tuple[dict[str, dict[str, float]], list[str]]:
    """{kernel: {metric: value}} from one ncu process over `--plain`, and the metrics ncu lacks."""
    wanted = [m for m in ncu_names().values() if m] + EXTRA_METRICS
    known = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True).stdout
    missing = [m for m in wanted if m.rsplit(".", 1)[0] not in known]
    metrics = [m for m in wanted if m not in missing]
    command = [ncu, "--csv", "--print-units", "base", "--metrics", ",".join(metrics),
               sys.executable, __file__, "--plain"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if csv_out:
        Path(csv_out).write_text(done.stdout)
    rows = [line for line in done.stdout.splitlines() if line.startswith('"')]
    if not rows:
        raise SystemExit(f"ncu gave no rows:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    result: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        kernel = next((c.name for c in CASES if c.name in row["Kernel Name"]), row["Kernel Name"])
        value = row["Metric Value"].replace(",", "")
        result.setdefault(kernel, {})[row["Metric Name"]] = float(value) if value else float("nan")
    return result, missing


def table(ours: dict, theirs: dict | None, sims: dict) -> tuple[int, int]:
    """Prints kernel by kernel, figure by figure; returns how many kernels equal ncu on every figure
    gpuviz models, and on every figure."""
    names, loose, equal, exact = ncu_names(), not_modelled(), 0, 0
    print(f"{'kernel':<18} {'figure':<28} {'gpuviz':>8} {'ncu':>8}  {'':5} sim   (diff*: a figure gpuviz marks "
          "as not modelled)")
    for case in CASES:
        same, identical = True, True
        for figure in FIGURES:
            mine = ours[case.name][figure]
            ncu_value = None if theirs is None else theirs.get(case.name, {}).get(names[figure])
            shown = "-" if ncu_value is None else f"{ncu_value:.0f}"
            verdict = "" if ncu_value is None else "ok" if ncu_value == mine else "diff*" if figure in loose else "DIFF"
            same &= verdict != "DIFF"
            identical &= verdict in ("ok", "")
            in_sim = sims[case.name][figure]
            sim = "" if sims is ours else ("=" if in_sim == mine else f"sim {in_sim}")
            print(f"{case.name:<18} {figure:<28} {mine:>8} {shown:>8}  {verdict:5} {sim}")
        equal, exact = equal + same, exact + identical
    if theirs:
        for case in CASES:
            extra = {m.split("__", 1)[1]: v for m, v in theirs.get(case.name, {}).items() if m in EXTRA_METRICS}
            print(f"ncu extra {case.name}: {extra}")
    return equal, exact


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plain", action="store_true", help="each kernel once, untraced (what ncu measures)")
    parser.add_argument("--smoke", action="store_true", help="gpuviz side only, on the simulator, tiny sizes")
    parser.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    parser.add_argument("--csv", help="also write ncu's CSV here")
    args = parser.parse_args()
    if args.plain:
        return plain()
    sims = {c.name: gpuviz_counts(c, "sim", args.smoke) for c in CASES}
    if args.smoke:
        table(sims, None, sims)
        print(f"ncu_compare smoke kernels={len(CASES)}")
        return None
    theirs, missing = ncu_counts(args.ncu, args.csv)
    if missing:
        print(f"ncu lacks: {', '.join(missing)}")
    ours = {c.name: gpuviz_counts(c, "gpu", False) for c in CASES}
    equal, exact = table(ours, theirs, sims)
    print(f"ncu_compare equal={equal}/{len(CASES)} exact={exact}/{len(CASES)}")
    return None


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent.parent))
    main()
