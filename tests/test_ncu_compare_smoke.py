"""bench/ncu_compare.py runs without ncu (`--smoke`: gpuviz's side on the simulator, tiny sizes)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_ncu_compare_smoke_counts_the_issue_s_figures():
    done = subprocess.run([sys.executable, "bench/ncu_compare.py", "--smoke"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    # the issue's figures, as ncu measured them on an H200: a 32-way conflict, 32 and 4 sectors a request
    assert re.search(r"transpose_naive +shared load bank conflicts +992 ", out)
    assert re.search(r"transpose_naive +shared load wavefronts +1024 ", out)
    assert re.search(r"strided_load +global load requests +8 ", out)
    assert re.search(r"strided_load +global load sectors +256 ", out)
    assert done.stdout.splitlines()[-1] == "ncu_compare smoke kernels=10"
    figures = {line.split()[0] for line in done.stdout.splitlines()[1:-1]}
    assert len(figures) == 10
