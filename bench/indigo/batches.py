"""Indigo kernels run in batches of worker processes, the batches in parallel (the lent GPU machine has
16 cores). A worker prints a marker line before and after each kernel; what it prints between them is that
kernel's. A worker that dies (a faulting kernel leaves the process's CUDA context unusable) is started again
after the kernel it was on, which keeps the lines it printed and a line saying how its worker ended. Kernels
that ran out of GPU memory beside the other batches' (an 80 GB card holds fewer workers' access logs than
there are cores) run again, alone, once the batches are done.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

START, END, DIED = "@@kernel ", "@@done ", "@@died "
OUT_OF_MEMORY = "CUDA_ERROR_OUT_OF_MEMORY"
ALONE_SECONDS = 60.0  # the least time the kernels run again alone get, past the run's own


def worker_asked(argv: list[str], worker: Callable) -> bool:
    """Whether this process is a batch's worker (`--worker GRAPH BLOCKS,THREADS NAME ...`); if so it
    runs `worker(graph, (blocks, threads), names)` first."""
    if argv[:1] != ["--worker"]:
        return False
    blocks, threads = (int(n) for n in argv[2].split(","))
    worker(argv[1], (blocks, threads), argv[3:])
    return True


def split(names: list[str], jobs: int) -> list[list[str]]:
    """`jobs` batches, dealt round-robin so that each gets kernels of every pattern (they sort by pattern)."""
    return [names[k::jobs] for k in range(jobs) if names[k::jobs]]


def run_batches(command: Callable[[list[str]], list[str]], names: list[str], jobs: int, seconds: float,
                env: dict | None = None) -> dict[str, list[str]]:  # fmt: skip
    """{kernel: the lines its worker printed for it} for every name; each batch gets its own
    GPUVIZ_CACHE_DIR (numba's on-disk cache is shared by nothing else) and the whole run `seconds`."""
    deadline = time.monotonic() + seconds
    common = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}  # markers and reports stay in order
    with tempfile.TemporaryDirectory() as caches, ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(_run_batch, command, batch, deadline, {**common, "GPUVIZ_CACHE_DIR": f"{caches}/{k}"})
                   for k, batch in enumerate(split(names, jobs))]  # fmt: skip
        found: dict[str, list[str]] = {}
        for future in futures:
            found.update(future.result())
        crowded = [name for name in names if any(OUT_OF_MEMORY in line for line in found[name])]
        if crowded and jobs > 1:  # alone, a kernel has the card's memory to itself
            alone = max(deadline, time.monotonic() + ALONE_SECONDS)
            found.update(_run_batch(command, crowded, alone, {**common, "GPUVIZ_CACHE_DIR": f"{caches}/alone"}))
    return found


def _run_batch(command, batch: list[str], deadline: float, env: dict) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    left = list(batch)
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            found.update({name: [f"{DIED}not run: the time given to the whole run was up"] for name in left})
            break
        try:
            done = subprocess.run(command(left), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                  timeout=remaining)  # fmt: skip
            output, ended = done.stdout, f"exit {done.returncode}"
        except subprocess.TimeoutExpired as exc:
            output, ended = _text(exc.stdout), "stopped: the time given to the whole run was up"
        seen = parse(output)
        found.update({name: lines for name, (lines, finished) in seen.items() if finished})
        unfinished = [name for name in left if name not in found]
        if not unfinished:
            break
        first = unfinished[0]
        if first not in seen and len(unfinished) < len(left):
            left = unfinished  # the worker ended between two kernels (it may stop after a failed one): go on
            continue
        tail = [] if first in seen else output.splitlines()[-5:]  # it died before its first marker: say why
        found[first] = seen.get(first, ([], False))[0] + tail + [f"{DIED}{ended}"]
        left = unfinished[1:]
    return found


def parse(output: str) -> dict[str, tuple[list[str], bool]]:
    """{kernel: (its lines, whether its end marker came)} from a worker's output."""
    seen: dict[str, tuple[list[str], bool]] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(START):
            current = line[len(START) :].strip()
            seen[current] = ([], False)
        elif line.startswith(END) and current is not None:
            seen[current] = (seen[current][0], True)
            current = None
        elif current is not None:
            seen[current][0].append(line)
    return seen


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value
