"""Every script in bench/ runs in its smoke mode (`--smoke`: the same code at tiny sizes), so that no
bench breaks unnoticed. The GPU benches time the hardware with inline PTX (%clock64, %globaltimer),
which numba's CUDA simulator cannot run: they carry the gpu marker."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
HANG_GUARD = 600  # seconds: a bench that hangs fails instead of blocking the suite; not a speed check

# bench script: the start of its last line, the figures it exists for
ON_THE_CPU = {
    "fast_speed.py": "fast_speed threads=",
    "log_passes.py": "log_passes vecadd=",
    "matmul_command.py": "matmul_command side=64 ",
    "cudasim_ratio.py": "cudasim_ratio vecadd=",
    "indigo_score.py": "indigo DAG_5n_5e=",
    "first_frame.py": "first_frame accesses=",
    "first_run.py": "first_run first=",
    "ncu_compare.py": "ncu_compare ",
    "ncu_lines.py": "ncu_lines smoke equal=",  # the gpuviz side alone without ncu (tests/test_ncu_lines.py too)
    "sim_hot_spots.py": "analyses ",
    "gpu_trace_save.py": "gpu_trace_save save=",  # builds a GPU backend's trace on the CPU alone
    "memory_speed.py": "events_per_s=",
    "race_compare.py": "compare lesson=",
    "race_queue_model.py": "  [4, 1024]: ",
    "race_sector_model.py": "sector_model fit=",
    "race_speed.py": "events_per_s=",
    "race_timing.py": "  a[1]'s reads spread over a block",
    "render_speed.py": "fps 1M=",
    "replay_speed.py": "grid view: first frame",
    "sim_speed.py": "speedup vecadd=",
    "trace_load.py": "save safe=",
    "trace_size.py": "race access_bytes_per_event=",
}
ON_A_GPU = {
    "gpu_latency.py": "latency global=",
    "gpu_overhead.py": "overhead threads=",
    "gpu_recorder_floor.py": "recorder_floor stores_now=",
    "gpu_race_fidelity.py": "| ",
    "gpu_race_perturbation.py": "| [2,64] | held_warp | ",
    "racecheck_compare.py": "racecheck ",
    "gpu_race_timing.py": "[2, 1024] from the tutorial's [0, 1]",
    "gpu_residency.py": "residency ",
    "gpu_fidelity.py": "gpu_fidelity shapes=",
    "gpu_sector_timing.py": "sector_timing ",
    "gpu_linked_calls.py": "linked ",  # `linked skipped: ...` where nvmath-python and cuda-cccl are not installed
    "gpu_library_call_times.py": "library ",  # `library skipped: ...` likewise
    "lesson_times.py": "lesson_times card=",
    "indigo_gpu.py": "indigo_gpu DAG_5n_5e=",  # also under numba's simulator: tests/test_indigo_gpu.py
    "indigo_sanitizer.py": "indigo_sanitizer racecheck DAG_5n_5e=",
}
NOT_SCRIPTS = {
    "speed_kernels.py": "the kernels sim_speed.py and gpu_overhead.py time",
    "race_shapes.py": "the race calibration's launch shapes and their split",
    "race_sector_events.py": "the event loop race_sector_model.py runs",
    "fast_kernels.py": "the kernels fast_speed.py times",
}
# a window and a worker process; numba's simulator
SLOW_ON_THE_CPU = {"first_frame.py", "first_run.py", "sim_speed.py", "cudasim_ratio.py", "matmul_command.py"}


def smoke(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, str(BENCH / script), *args, "--smoke"]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_GUARD)


def test_every_bench_has_a_smoke_test():
    listed = {*ON_THE_CPU, *ON_A_GPU, *NOT_SCRIPTS, "gpu_check.sh"}
    assert sorted(p.name for p in BENCH.iterdir() if p.suffix in (".py", ".sh")) == sorted(listed)


def cpu_bench(script: str):
    return pytest.param(script, marks=pytest.mark.slow) if script in SLOW_ON_THE_CPU else script


@pytest.mark.parametrize("script", [cpu_bench(s) for s in ON_THE_CPU])
def test_bench_runs_in_smoke_mode(script, tmp_path):
    done = smoke(script, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith(ON_THE_CPU[script]), done.stdout[-2000:]


@pytest.mark.gpu
@pytest.mark.parametrize("script", list(ON_A_GPU))
def test_gpu_bench_runs_in_smoke_mode(script, tmp_path):
    done = smoke(script, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith(ON_A_GPU[script]), done.stdout[-2000:]


def test_the_gpu_check_script_parses():
    assert subprocess.run(["bash", "-n", str(BENCH / "gpu_check.sh")]).returncode == 0


@pytest.mark.gpu
def test_the_gpu_check_runs_in_smoke_mode(tmp_path):
    env = {**os.environ, "OUT": str(tmp_path / "logs")}
    done = subprocess.run(["bash", str(BENCH / "gpu_check.sh"), "--smoke"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=HANG_GUARD)  # fmt: skip
    steps = [line for line in (tmp_path / "logs" / "summary.log").read_text().splitlines() if line.startswith("==")]
    assert len(steps) == 5 and all(": exit 0 in " in line for line in steps), done.stdout
