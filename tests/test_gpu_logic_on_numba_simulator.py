"""The GPU backend's rewrite, hooks and decoding run in CI too: under numba's CUDA simulator."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def gpu_tests_under_the_simulator(tmp_path, *selection: str) -> str:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", GPUVIZ_CACHE_DIR=str(tmp_path))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_gpu.py", *selection]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return done.stdout.splitlines()[-1]


@pytest.mark.slow
def test_gpu_tests_pass_under_numba_cuda_simulator(tmp_path):
    assert " passed" in gpu_tests_under_the_simulator(tmp_path)


def test_a_few_gpu_tests_pass_under_numba_cuda_simulator(tmp_path):
    """The fast lane's share: the rewrite, hooks and decoding of a few kernels, the access log's times, a
    CCCL call's step."""
    selection = ("threads_level_has_no_access_log or rows_tuple_indices or accesses_carry_their_times or a_warp_ends "
                 "or narrow_and_wide or cccl_call_is_one_step")  # fmt: skip
    assert gpu_tests_under_the_simulator(tmp_path, "-k", selection).startswith("7 passed")


def test_stream_timeline_gpu_tests_pass_under_numba_cuda_simulator(tmp_path):
    """The script's own copies, streams and events on the GPU backend's timeline (events time nothing there)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", GPUVIZ_CACHE_DIR=str(tmp_path))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_streams_gpu.py"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("3 passed")
