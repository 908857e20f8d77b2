"""The simulator's former hot spots, before and after in one run, and what the analyses cost next to a run.

- barrier: the vector engine's barrier with the message built for every block of the batch at every
  barrier (the old `_barrier`, kept below) and as it is now (built for diverging blocks only), on the
  shared-memory tree reduction and the tiled matmul, level `threads`;
- log: the access log laid out with a full copy and a stable sort by time (the old `VectorLog.columns`,
  kept below) and as it is now (each column written once into its final row), on vector add at level
  `accesses`;
- analyses: the memory report and the race search the app shows after a run, as a share of the vector
  engine's backend run, on every kernel of bench/speed_kernels.py at level `accesses`. The engine numbers
  its warp requests as it lays out its log (vector/warp_requests.py), for the memory report only: the
  backend run is also timed without that numbering, and the second share counts it as the analyses'.
  The register estimate, kept per kernel source, is forgotten before each memory report, so each report
  pays for it as a kernel's first launch does.
Each time is the best of `--repeat` runs after one that compiles the kernel, freed memory kept as the app's
worker process keeps it. `--smoke`: tiny sizes, one run.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

import numpy as np

KERNELS = Path(__file__).with_name("speed_kernels.py")
FULL = {"vecadd": 1 << 20, "tree_reduction": 1 << 18, "matmul_tiled": 256}
ANALYSED = {"vecadd": 1 << 20, "tree_reduction": 1 << 16, "matmul_tiled": 64}
SMOKE = {"vecadd": 1 << 12, "tree_reduction": 1 << 12, "matmul_tiled": 32}


def launch(name: str, n: int) -> tuple:
    """(grid, block, args) of one bench kernel at size n."""
    if name == "vecadd":
        a = np.arange(n, dtype=np.float32)
        return n // 256, 256, (a, a.copy(), np.zeros(n, np.float32))
    if name == "tree_reduction":
        return n // 256, 256, (np.ones(n, np.float32), np.zeros(n // 256, np.float32))
    rng = np.random.default_rng(0)
    matrices = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32), np.zeros((n, n), np.float32)
    return (n // 16, n // 16), (16, 16), matrices


def backend_run(name: str, n: int, level: str):
    """(seconds, trace) of the simulator backend's run of one kernel."""
    from gpuviz.backends.sim.backend import SimBackend
    from gpuviz.core.launch import LaunchConfig
    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import python_function

    func = python_function(KERNELS.read_text(), name)
    grid, block, args = launch(name, n)
    started = time.perf_counter()
    trace = SimBackend().run(func, LaunchConfig.of(grid, block), args,
                             RunOptions(backend="sim", level=level, engine="vector"))  # fmt: skip
    seconds = time.perf_counter() - started
    assert trace.meta["engine"] == "vector", trace.meta["engine_note"]
    return seconds, trace


def best(repeat: int, run) -> float:
    run()  # compiles the kernel, warms the layout cache
    return min(run() for _ in range(repeat))


# ---- the old paths, kept to time them against the new ones ------------------------------------------
def old_barrier(warnings, errors, t, op, args, line):
    """vector/warp.py's barrier before: every block's message built at every barrier."""
    from gpuviz.backends.sim.vector import warp
    from gpuviz.core.launch import format_dims

    t.charge("barrier")
    mask = t.mask
    t.ep = t.ep + mask
    blocks = t.n_blocks
    arrived = np.bincount(t.blk[mask], minlength=blocks)
    exited = np.bincount(t.blk[t.exited], minlength=blocks)
    gx, gy, _ = t.config.grid
    for b in np.flatnonzero(arrived > 0):
        if b in t.warned:
            continue
        coords = [(int(c % gx), int((c // gx) % gy), int(c // (gx * gy))) for c in t.blocks]  # as before
        where = f"barrier divergence in block {format_dims(coords[b])}"
        if exited[b] or arrived[b] + exited[b] < t.per_block:
            warp._diverged(warnings, errors, t, int(b), int(arrived[b]), int(exited[b]), line)
            assert where in warnings[-1]
    if op == "sync":
        return None
    predicate = warp.truth(args[0], t.n) & mask if args else np.zeros(t.n, bool)
    count = np.bincount(t.blk[predicate], minlength=blocks)
    per_block = {"count": count, "and": (count == arrived).astype(np.int64), "or": (count > 0).astype(np.int64)}[op]
    return per_block[t.blk]


def old_columns(self, block_starts=None, in_time_order=False):
    """VectorLog.columns before: laid out in log order, then a stable sort by time and a reordered copy."""
    from gpuviz.backends.sim.vector.memory import ACCESS_COLUMNS, _lane_times, _real

    names = [*ACCESS_COLUMNS, "time"] if self.timed else list(ACCESS_COLUMNS)
    dtypes = {**ACCESS_COLUMNS, "time": np.int64}
    out = {name: np.empty(self.count, dtypes[name]) for name in names}
    at = 0
    for n, lanes, gid, ep, aid, index, kind, line, value, clock in self.entries:
        span = slice(at, at + n)
        pick = (lambda a, n=n: a[:n]) if lanes is None else (lambda a, lanes=lanes, n=n: a[lanes[:n]])
        out["thread"][span], out["epoch"][span] = pick(gid), pick(ep)
        out["array"][span], out["kind"][span], out["line"][span] = aid, kind, line
        out["index"][span] = index[:n] if np.ndim(index) else index
        out["value"][span] = _real(np.asarray(value))[:n] if np.ndim(value) else _real(np.asarray(value))
        if self.timed:
            out["time"][span] = pick(_lane_times(*clock)) if clock is not None else 0
        at += n
    self.entries = []
    if self.timed and block_starts is not None:
        out["time"] += block_starts[out["thread"] // self.per_block]
    if self.timed and in_time_order:
        order = np.argsort(out["time"], kind="stable")
        out = {name: column[order] for name, column in out.items()}
    return out


@contextlib.contextmanager
def no_request_numbering():
    """The vector engine's log laid out without numbering its warp requests (the analysis groups rows)."""
    from gpuviz.backends.sim.vector import memory

    numbering = memory.RequestNumbering

    class Declined(numbering):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            self.agrees = False

    memory.RequestNumbering = Declined
    try:
        yield
    finally:
        memory.RequestNumbering = numbering


@contextlib.contextmanager
def old_paths():
    """The old barrier and the old log layout in place of the new ones."""
    from gpuviz.backends.sim.vector import memory, warp

    barrier, columns = warp._barrier, memory.VectorLog.columns
    warp._barrier, memory.VectorLog.columns = old_barrier, old_columns
    try:
        yield
    finally:
        warp._barrier, memory.VectorLog.columns = barrier, columns


# ---- the three measurements ------------------------------------------------------------------------
def before_after(name: str, n: int, level: str, repeat: int) -> tuple[float, float]:
    with old_paths():
        before = best(repeat, lambda: backend_run(name, n, level)[0])
    after = best(repeat, lambda: backend_run(name, n, level)[0])
    _, old = _traced(name, n, level, old=True)
    _, new = _traced(name, n, level, old=False)
    for column in old.accesses or {}:
        np.testing.assert_array_equal(old.accesses[column], new.accesses[column], err_msg=column)
    return before, after


def _traced(name, n, level, old):
    with old_paths() if old else contextlib.nullcontext():
        return backend_run(name, n, level)


def analyses_share(name: str, n: int, repeat: int) -> tuple[float, float, float, float]:
    """(backend seconds, the same without the request numbering, memory report seconds, race search
    seconds) at level accesses."""
    from gpuviz.core.analysis.races import find_races

    runs = [backend_run(name, n, "accesses") for _ in range(repeat + 1)][1:]
    seconds = min(s for s, _ in runs)
    trace = runs[-1][1]
    with no_request_numbering():
        plain = best(repeat, lambda: backend_run(name, n, "accesses")[0])
    memory = best(repeat, lambda: _timed(_first_memory_report, trace))
    races = best(repeat, lambda: _timed(find_races, trace))
    return seconds, plain, memory, races


def _first_memory_report(trace) -> dict:
    """The memory report as a kernel's first launch gets it: no register estimate kept from before."""
    from gpuviz.core.analysis import registers
    from gpuviz.core.analysis.memory import memory_report

    registers.clear_cache()
    return memory_report(trace)


def _timed(function, trace) -> float:
    started = time.perf_counter()
    function(trace)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run each")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    from gpuviz.run.allocator import keep_freed_memory

    keep_freed_memory()  # as the app's worker process and the command line do before any launch
    repeat = 1 if options.smoke else options.repeat
    sizes = SMOKE if options.smoke else FULL
    for name in ("tree_reduction", "matmul_tiled"):
        before, after = before_after(name, sizes[name], "threads", repeat)
        print(f"barrier  {name:15s} n={sizes[name]:8d}  before {before:7.3f} s  after {after:7.3f} s  "
              f"(x{before / after:.1f})")  # fmt: skip
    before, after = before_after("vecadd", sizes["vecadd"], "accesses", repeat)
    print(f"log      {'vecadd':15s} n={sizes['vecadd']:8d}  before {before:7.3f} s  after {after:7.3f} s  "
          f"(x{before / after:.1f}, backend run at level accesses)")  # fmt: skip
    for name in ("vecadd", "tree_reduction", "matmul_tiled"):
        n = SMOKE[name] if options.smoke else ANALYSED[name]
        backend, plain, memory, races = analyses_share(name, n, repeat)
        numbering = max(0.0, backend - plain)
        print(f"analyses {name:15s} n={n:8d}  backend {backend:7.3f} s ({plain:.3f} s unnumbered)  memory report "
              f"{memory:7.3f} s  races {races:7.3f} s  share {(memory + races) / backend:5.2f} of the backend run, "
              f"{(memory + races + numbering) / plain:5.2f} with the numbering")  # fmt: skip


if __name__ == "__main__":
    main()
