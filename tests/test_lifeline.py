"""A worker running an endless kernel dies when the process that started it is killed."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 600  # seconds: polling stops here and the test fails; not a speed check

PARENT = """import multiprocessing, sys
from gpuviz.core.options import RunOptions
from gpuviz.core.events import Stage
from gpuviz.run import lifeline
from gpuviz.run.messages import RunRequest
from gpuviz.run.worker import worker_main


def worker(request, queue, use_pdeathsig):
    lifeline.USE_PDEATHSIG = use_pdeathsig
    worker_main(request, queue)


if __name__ == "__main__":
    script, out_dir, use_pdeathsig = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    request = RunRequest(script, out_dir, RunOptions(backend="sim"))
    process = context.Process(target=worker, args=(request, queue, use_pdeathsig))
    process.start()
    while True:  # wait until the worker runs the kernel
        message = queue.get()
        if isinstance(message, Stage) and message.stage == "running":
            break
    print(process.pid, flush=True)
    process.join()
"""

ENDLESS = """import numpy as np
from numba import cuda

@cuda.jit
def spin(a):
    while a[0] == 0:
        a[1] = 1

spin[1, 32](np.zeros(4, np.int32))
"""


def alive(pid: int) -> bool:
    """True while the process runs; a zombie (dead, not yet reaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the worker")
@pytest.mark.parametrize("use_pdeathsig", [True, False], ids=["pdeathsig", "pipe-only"])
def test_worker_dies_with_its_killed_parent(tmp_path, use_pdeathsig):
    (tmp_path / "parent.py").write_text(PARENT)
    (tmp_path / "spin.py").write_text(ENDLESS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "parent.py", "spin.py", "out", "1" if use_pdeathsig else "0"]
    parent = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        assert alive(worker)
        parent.send_signal(signal.SIGKILL)
        parent.wait(HANG_GUARD)
        deadline = time.monotonic() + HANG_GUARD
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(worker), "the worker outlived its parent"
    finally:
        parent.kill()
        if "worker" in locals() and alive(worker):
            os.kill(worker, signal.SIGKILL)
