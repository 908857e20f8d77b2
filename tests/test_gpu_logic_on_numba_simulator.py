"""The GPU backend's rewrite, hooks and decoding run in CI too: under numba's CUDA simulator."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_gpu_tests_pass_under_numba_cuda_simulator(tmp_path):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", GPUVIZ_CACHE_DIR=str(tmp_path))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_gpu.py"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
