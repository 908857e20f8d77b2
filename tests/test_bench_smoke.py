"""The simulator's hot-spot bench runs end to end at tiny sizes (its before/after layouts must agree)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_sim_hot_spots_bench_smoke_run():
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's gpuviz, whatever is installed
    done = subprocess.run([sys.executable, "bench/sim_hot_spots.py", "--smoke"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert sum(line.startswith("barrier") for line in lines) == 2
    assert sum(line.startswith("log") for line in lines) == 1
    assert sum(line.startswith("analyses") for line in lines) == 3
