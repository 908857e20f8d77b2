"""Launch guards, timeouts and the small refusals: nothing hangs, nothing starts that cannot fit."""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core import launch_guard
from gpuviz.core.errors import LaunchError
from gpuviz.core.launch_guard import LaunchTooBig, check_fits, estimate_trace

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD = 600  # seconds: a test that hangs fails instead of blocking the suite; not a speed check

KERNEL = """import sys
import numpy as np
from numba import cuda

@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i

grid, block = int(sys.argv[1]), int(sys.argv[2])
fill[grid, block](np.zeros(4, np.float32))
"""

ENDLESS_KERNEL = """import numpy as np
from numba import cuda

@cuda.jit
def spin(a):
    i = cuda.grid(1)
    while a[0] == 0:
        a[1] = i

spin[2, 32](np.zeros(4, np.int32))
"""


def gpuviz_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "gpuviz", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD)  # fmt: skip


def script(tmp_path: Path, text: str, name: str = "s.py", prefix: bytes = b"") -> str:
    path = tmp_path / name
    path.write_bytes(prefix + text.encode())
    return str(path)


# ---- the estimate and the guard -----------------------------------------------------------------
def test_the_estimate_matches_what_a_trace_takes(sim_run):
    a = np.zeros(100, np.float32)
    trace = sim_run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n", 4, 25, a,
                    level="accesses")  # fmt: skip
    estimate = estimate_trace("k", 100, "accesses", (a,))
    assert estimate.thread_bytes == sum(column.nbytes for column in trace.threads.values())
    assert estimate.snapshot_bytes == sum(before.nbytes + after.nbytes for before, after in trace.args.values())
    assert estimate.access_bytes <= sum(column.nbytes for column in trace.accesses.values())  # one access a thread


def test_the_disk_figure_bounds_the_file_and_leaves_out_what_the_file_derives(sim_run, tmp_path):
    """The layout columns (block and thread indices, warp, lane) are not stored: a launch's file takes far less
    than its trace in memory, and never more than the bound announced."""
    a = np.random.default_rng(0).random(4096)  # random values: the snapshots hardly compress
    trace = sim_run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] += 1\n", 16, 256, a,
                    level="threads")  # fmt: skip
    estimate = estimate_trace("k", 4096, "threads", (a,))
    size = trace.save(tmp_path / "t.npz").stat().st_size
    assert size <= estimate.disk < estimate.memory
    assert "a file of at most" in estimate.announce()


def test_two_to_the_28_threads_are_refused_before_starting():
    estimate = estimate_trace("fill", 1 << 28, "threads", ())
    with pytest.raises(
        LaunchTooBig,
        match=r"fill: 268,435,456 threads need at least 13.0 GiB .* budget of 2.0 GiB; "
        r"launch fewer threads or raise the budget with --max-memory",
    ):
        check_fits(estimate, 2 << 30)


def test_a_gigabyte_trace_is_announced_and_a_small_one_is_not():
    """2^24 threads wrote a 1 GB trace unannounced: at 52 bytes a thread it is 832 MiB at the least."""
    big = estimate_trace("fill", 1 << 24, "threads", ())
    assert big.memory == 832 << 20 and launch_guard.worth_announcing(big, 2 << 30)
    assert not launch_guard.worth_announcing(estimate_trace("fill", 1 << 16, "accesses", ()), 2 << 30)


def test_accesses_that_cannot_fit_suggest_level_threads():
    estimate = estimate_trace("fill", 16384, "accesses", ())
    with pytest.raises(
        LaunchTooBig,
        match=r"record with --level threads \(832.0 KiB\), or the accesses "
        r"of a few blocks with --blocks, or raise the budget",
    ):
        check_fits(estimate, 1 << 20)
    check_fits(estimate_trace("fill", 16384, "threads", ()), 1 << 20)


def test_the_plan_within_the_budget():
    estimate = estimate_trace("fill", 16384, "accesses", ())
    assert launch_guard.plan(estimate, 2 << 20) == "all"
    assert launch_guard.plan(estimate, 1 << 20) == "narrowed"  # threads 832 KiB, accesses 496 KiB more
    assert launch_guard.plan(estimate, 800 << 10) == "refused"
    chosen = estimate_trace("fill", 16384, "accesses", (), recorded_threads=2 * 256)  # two blocks' accesses
    assert chosen.access_bytes == 512 * launch_guard.ACCESS_BYTES and launch_guard.plan(chosen, 1 << 20) == "all"


def test_cli_records_chosen_blocks_where_every_access_would_not_fit(tmp_path, capsys):
    path, out = script(tmp_path, KERNEL), str(tmp_path / "t")
    too_big = ["run", path, "--out", out, "--backend", "sim", "--level", "accesses", "--max-memory", "1M",
               "--", "448", "32"]  # fmt: skip
    assert main(too_big) == 1 and "--blocks" in capsys.readouterr().err
    assert main(too_big[:-3] + ["--blocks", "0,-1", "--", "448", "32"]) == 0


def test_a_full_disk_is_seen_before_the_launch(tmp_path, monkeypatch):
    monkeypatch.setattr(launch_guard, "free_disk", lambda folder: 1000)
    with pytest.raises(LaunchTooBig, match=r"has 1,000 bytes free; free some space or write the traces elsewhere"):
        check_fits(estimate_trace("fill", 64, "threads", ()), 1 << 30, tmp_path)


def test_cli_refuses_a_launch_over_the_budget_and_announces_a_big_one(tmp_path, capsys):
    path = script(tmp_path, KERNEL)
    out = str(tmp_path / "t")
    assert main(["run", path, "--out", out, "--backend", "sim", "--max-memory", "1M", "--", "1024", "32"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "fill: 32,768 threads need at least 1.6 MiB" in err[0] and "--max-memory" in err[0]
    assert not Path(out).exists() or not list(Path(out).iterdir())
    assert main(["run", path, "--out", out, "--backend", "sim", "--level", "threads", "--max-memory", "1M",
                 "--", "256", "32"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "[gpuviz] fill: 8,192 threads at level threads make a trace of at least 416.0 KiB" in err


def test_api_launches_are_guarded_too():
    kernel = gpuviz.trace("from numba import cuda\n@cuda.jit\ndef k(a):\n    pass\n", backend="sim",
                          memory_budget=1 << 20)  # fmt: skip
    with pytest.raises(LaunchTooBig, match="k: 65,536 threads"):
        kernel[64, 1024](np.zeros(1))


# ---- timeouts and endless scripts -----------------------------------------------------------------
# Where a run is when its time is up must not depend on the machine's load: the tests that name a
# kernel's line count the seconds from the kernel's start (Watchdog's from_kernel); those that go
# through a whole process give far more time than start-up takes on a loaded machine (the slow lane).
BUDGET = "15"  # seconds: a process reaching its script's second line, however loaded the machine


KERNEL_TIMEOUT = """
import sys
from gpuviz.core.options import RunOptions
from gpuviz.program.script import run_script
from gpuviz.run.session import Session
from gpuviz.run.watchdog import RunTimeout, Watchdog

session = Session(RunOptions(backend="sim"), out_dir="out")
try:
    with Watchdog(1, session, sys.argv[1], from_kernel=True):
        run_script(sys.argv[1], session)
except RunTimeout as ended:
    print(ended)
"""


def test_an_endless_kernel_ends_at_the_timeout_saying_where(tmp_path):
    """The seconds count from the kernel's start; in a process of its own, so that a run the interrupt
    cannot end (the grace, then exit 124) ends that process and not the test suite."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", KERNEL_TIMEOUT, script(tmp_path, ENDLESS_KERNEL)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=HANG_GUARD)  # fmt: skip
    message = done.stdout.strip()
    assert done.returncode == 0, f"exit {done.returncode}: {message}\n{done.stderr[-3000:]}"
    assert message.startswith("timed out after 1 s in kernel spin (running ") and message.endswith("--timeout"), message
    # Which thread and line depends on where the interrupt lands; caught between two threads' steps the
    # message names the kernel alone. A thread it names is at one of the loop's lines.
    thread = re.search(r", block \(\d+,0,0\) thread \(\d+,0,0\), line (\d+);", message)
    assert thread is None or thread.group(1) in ("7", "8"), message


LINE_TIMEOUT = """
import sys
from gpuviz.run.watchdog import RunTimeout, Watchdog

hung = compile(open(sys.argv[1]).read(), sys.argv[1], "exec")
try:
    with Watchdog(2, None, sys.argv[1]):  # entered at the script's first line: nothing to start up
        exec(hung, {})
except RunTimeout as ended:
    print(ended)
"""


def test_a_hung_line_outside_kernels_is_named(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    path = script(tmp_path, "import time\ntime.sleep(1000)\n")
    done = subprocess.run([sys.executable, "-c", LINE_TIMEOUT, path], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("timed out after 2 s in s.py line 2, outside any kernel; give it "), done.stdout


INHERITED = {  # what a process can get from its parent: the suite's processes got one of these
    "blocked": lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}),
    "ignored": lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
}


@pytest.mark.parametrize("inherited", INHERITED)
def test_a_process_that_inherits_sigint_blocked_or_ignored_is_still_interrupted(inherited, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    path = script(tmp_path, "import time\ntime.sleep(1000)\n")
    done = subprocess.run([sys.executable, "-c", LINE_TIMEOUT, path], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD, preexec_fn=INHERITED[inherited])  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("timed out after 2 s in s.py line 2"), done.stderr


@pytest.mark.slow
def test_a_hung_script_ends_at_the_timeout_with_its_line(tmp_path):
    done = gpuviz_cli("run", script(tmp_path, "import time\ntime.sleep(1000)\n"), "--timeout", BUDGET, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: timed out after {BUDGET} s in s.py line 2, outside any kernel; " \
                                  "give it longer with --timeout"  # fmt: skip


@pytest.mark.slow
def test_a_run_that_python_cannot_interrupt_ends_after_a_grace(tmp_path):
    """Stands for a GPU kernel that never returns: the interrupt is ignored, the process still ends."""
    text = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(1000)\n"
    done = gpuviz_cli("run", script(tmp_path, text), "--timeout", BUDGET, cwd=tmp_path)
    assert done.returncode == 124 and done.stderr.startswith(f"error: timed out after {BUDGET} s in s.py line 3")


def test_timeout_must_be_positive(tmp_path, capsys):
    assert main(["run", script(tmp_path, "pass\n"), "--timeout", "0"]) == 1
    assert capsys.readouterr().err.strip() == "error: --timeout 0.0: give a number of seconds above 0"


@pytest.mark.slow
def test_endless_recursion_with_a_raised_limit_fails_in_one_line(tmp_path):
    text = "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)\n"
    done = gpuviz_cli("run", script(tmp_path, text), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == \
        "error: s.py raised RecursionError at line 4: maximum recursion depth exceeded"  # fmt: skip


# ---- small refusals -----------------------------------------------------------------------------
def test_a_script_with_a_byte_order_mark_runs(tmp_path, capsys):
    path = script(tmp_path, KERNEL, prefix=b"\xef\xbb\xbf")
    assert main(["run", path, "--out", str(tmp_path / "t"), "--backend", "sim", "--", "1", "4"]) == 0
    assert "000 fill" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--block", "--grid"])
def test_an_empty_launch_dimension_is_refused(option, capsys):
    assert main(["demo", "one-cell-per-thread", option, ""]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {option} '': give 1 to 3 positive whole numbers separated by commas, e.g. 16,16"
    ]


WORKER_TIMEOUT = """
import sys
from gpuviz.core.options import RunOptions
from gpuviz.run.messages import RunFailed, RunRequest
from gpuviz.run.worker import execute

messages = []
execute(RunRequest(sys.argv[1], "out", RunOptions(backend="sim"), timeout=float(sys.argv[2])), messages.append)
print(repr(messages[-1]))
print(*[m.message for m in messages if isinstance(m, RunFailed)], sep="\\n")
"""


@pytest.mark.slow
def test_the_worker_ends_a_run_at_its_timeout(tmp_path):
    """The app's worker takes the same limit (RunRequest.timeout) and answers with where the run was;
    in a process of its own, as the app runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    path = script(tmp_path, "import time\ntime.sleep(1000)\n")
    done = subprocess.run([sys.executable, "-c", WORKER_TIMEOUT, path, BUDGET], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=HANG_GUARD)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    finished, *failed = done.stdout.strip().splitlines()
    assert finished == "RunFinished(ok=False)", done.stdout
    assert failed == [f"timed out after {BUDGET} s in s.py line 2, outside any kernel; give it a longer timeout"]


@pytest.mark.slow
def test_a_stuck_worker_answers_before_it_ends(tmp_path):
    """A run the worker cannot interrupt (as a GPU kernel that never returns): the app still gets
    one RunFailed line saying where it was, then RunFinished, and the worker ends (exit 124)."""
    import multiprocessing

    from gpuviz.core.options import RunOptions
    from gpuviz.run.messages import RunFailed, RunFinished, RunRequest
    from gpuviz.run.worker import worker_main

    text = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(1000)\n"
    request = RunRequest(script(tmp_path, text), str(tmp_path / "out"), RunOptions(backend="sim"),
                         timeout=float(BUDGET))  # fmt: skip
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    worker = context.Process(target=worker_main, args=(request, queue))
    worker.start()
    try:
        messages = [queue.get(timeout=HANG_GUARD)]
        while not isinstance(messages[-1], RunFinished):
            messages.append(queue.get(timeout=HANG_GUARD))
        worker.join(HANG_GUARD)
    finally:
        worker.kill()
    failed = [m.message for m in messages if isinstance(m, RunFailed)]
    assert failed == [f"timed out after {BUDGET} s in s.py line 3, outside any kernel; give it a longer timeout"]
    assert messages[-1] == RunFinished(False) and worker.exitcode == 124


@pytest.mark.slow
def test_level_auto_above_its_limit_keeps_the_first_and_last_blocks_accesses_on_the_simulator():
    """Above AUTO_ACCESS_LIMIT threads `auto` records every thread, and on the vector engine the
    accesses of the first and last blocks too (saying so); the reference engine records threads."""
    from gpuviz.core.options import AUTO_ACCESS_LIMIT

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = i\n"
    blocks = AUTO_ACCESS_LIMIT // 256 + 1
    a = np.zeros(blocks * 256 - 3, np.int32)
    trace = gpuviz.trace(src, backend="sim")[blocks, 256](a)
    assert trace.meta["level"] == "accesses" and trace.meta["recorded_blocks"] == [0, blocks - 1]
    assert sorted(set(trace.accesses["thread"] // 256)) == [0, blocks - 1]
    assert len(trace.accesses["thread"]) == 256 + 253
    assert any(f"blocks 0 and {blocks - 1:,} only: level auto" in w for w in trace.meta["warnings"])
    reference = gpuviz.trace(src, backend="sim", engine="reference")[blocks, 256](a)
    assert reference.accesses is None and reference.meta["level"] == "threads"
    with pytest.raises(LaunchError, match=f"--blocks {blocks + 5}"):  # one past the grid: refused, not dropped
        gpuviz.trace(src, backend="sim", blocks=(5, blocks + 5))[blocks, 256](a)
    chosen = gpuviz.trace(src, backend="sim", blocks=(5,))[blocks, 256](a)
    assert chosen.meta["recorded_blocks"] == [5] and any("for block 5 only" in w for w in chosen.meta["warnings"])
    small = gpuviz.trace(src, backend="sim")[4, 256](np.zeros(1000, np.int32))
    assert small.meta["recorded_blocks"] is None and len(small.accesses["thread"]) == 1000


def test_a_watched_process_that_ends_while_its_threads_are_listed_reads_as_itself(monkeypatch):
    """Listing /proc/PID/task of a process that ends halfway raised FileNotFoundError from the watchdog
    (seen once in CI, in a fix check's worker): the family is then the process alone."""
    from gpuviz.run import watchdog

    def gone(self, pattern):
        raise FileNotFoundError(2, "No such file or directory", str(self))

    monkeypatch.setattr(Path, "glob", gone)
    assert watchdog._family(os.getpid()) == [os.getpid()]
    assert watchdog.resident_bytes(os.getpid()) is None or watchdog.resident_bytes(os.getpid()) > 0


def test_a_need_over_the_budget_never_reads_as_the_budget_itself():
    from gpuviz.core.budget import format_over

    gib = 1 << 30
    assert format_over(2 * gib + 10 * (1 << 20), 2 * gib) == ("2.01 GiB", "2.00 GiB")
    assert format_over(3 * gib, 2 * gib) == ("3.0 GiB", "2.0 GiB")
    assert format_over(2 * gib + 5, 2 * gib) == ("2,147,483,653 bytes", "2,147,483,648 bytes")
