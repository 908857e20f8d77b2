"""A student's 1,024 x 1,024 tiled matmul (the examples' kernel with 16 x 16 tiles, 2^20 threads, level
accesses by default, the default memory budget) from `gpuviz run SCRIPT` to the trace on disk, as a user
waits: the whole command in a fresh process each time.

- `first`: a cache with nothing compiled (the default engine, `auto`, starts on the vector engine and hands
  the long run to the fast path, which it compiles: once);
- `auto`: the default engine again, the compiled kernel on disk (best of BEST_OF);
- `vector`: `--engine vector`, the baseline, in the same run.

Last line: `matmul_command side=<n> first=<s> auto=<s> vector=<s> ratio=<vector/auto> load=<1-min average>`.
Run: `python bench/matmul_command.py` (`--smoke`: a 64 x 64 matmul, one run each).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMOKE = "--smoke" in sys.argv
SIDE = 64 if SMOKE else 1024
BEST_OF = 1 if SMOKE else 3
ROOT = Path(__file__).resolve().parent.parent

EXAMPLE = ROOT / "gpuviz" / "catalog" / "examples" / "tiled_matmul.py"


def script() -> str:
    """The examples' tiled matmul with 16 x 16 tiles, at SIDE x SIDE, checked against NumPy as the example is."""
    kernel = EXAMPLE.read_text().split("rng = np.random")[0].replace("TILE = 8\n", "TILE = 16\n")
    if "TILE = 16\n" not in kernel:
        raise SystemExit(f"{EXAMPLE} changed: its tile size is not `TILE = 8`")
    return kernel + f"""rng = np.random.default_rng(1)
A = rng.random(({SIDE}, {SIDE}), dtype=np.float32)
B = rng.random(({SIDE}, {SIDE}), dtype=np.float32)
C = np.zeros(({SIDE}, {SIDE}), dtype=np.float32)
grid = ((A.shape[0] + TILE - 1) // TILE, (B.shape[1] + TILE - 1) // TILE)
matmul_tiled[grid, (TILE, TILE)](A, B, C)
np.testing.assert_allclose(C, A @ B, rtol=1e-3)
"""


def command(folder: Path, cache: Path, *options: str) -> float:
    """Seconds of one `gpuviz run`, from its start to its exit (the trace on disk)."""
    out = Path(tempfile.mkdtemp(dir=folder))
    env = {**os.environ, "GPUVIZ_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gpuviz", "run", "--out", str(out), *options,
                           str(folder / "matmul.py")], env=env, capture_output=True, text=True)  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode != 0 or not list(out.glob("*.npz")):
        raise SystemExit(f"gpuviz run failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "matmul.py").write_text(script())
        cache = folder / "cache"
        load = os.getloadavg()[0]
        first = command(folder, cache)  # nothing compiled yet
        auto = min(command(folder, cache) for _ in range(BEST_OF))
        vector = command(folder, cache, "--engine", "vector")
    print(f"{SIDE} x {SIDE} tiled matmul, gpuviz run to the trace on disk: first (compiles) {first:.2f} s, "
          f"auto (compiled, best of {BEST_OF}) {auto:.2f} s, --engine vector {vector:.2f} s")  # fmt: skip
    print(f"matmul_command side={SIDE} first={first:.2f} auto={auto:.2f} vector={vector:.2f} "
          f"ratio={vector / auto:.2f} load={load:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
