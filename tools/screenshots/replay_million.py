"""The tutorial's race at its own size, replayed: 1,048,576 threads ([1024, 1024]) add 0.5 to array[0]
and array[1]. Makes docs/replay-race-1m-story.png and docs/replay-race-1m-grid.png with the CLI's
render (no window): `python tools/screenshots/replay_million.py`."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import gpuviz

DOCS = Path(__file__).resolve().parents[2] / "docs"  # where the pictures go
RACE = """
from numba import cuda
@cuda.jit
def cudakernel0(array):
    for i in range(array.size):
        array[i] += 0.5
"""


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    trace = gpuviz.trace(RACE, backend="sim", level="accesses")[1024, 1024](np.zeros(2, np.float32))
    path = trace.save(folder / "race-1m.npz")
    print(f"{trace.n_threads:,} threads, {len(trace.accesses['thread']):,} accesses; array = {trace.after('array')}")
    render = [sys.executable, "-m", "gpuviz", "render", str(path), "--size", "1280x720"]
    story, grid = DOCS / "replay-race-1m-story.png", DOCS / "replay-race-1m-grid.png"
    subprocess.run([*render, "--view", "story", "--element", "array[0]", "--out", str(story)], check=True)
    subprocess.run([*render, "--view", "grid", "--at", "0.3", "--out", str(grid)], check=True)


if __name__ == "__main__":
    main()
