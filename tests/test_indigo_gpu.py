"""The Indigo suite's GPU columns without a GPU: bench/indigo_gpu.py runs kernels through the GPU backend
under numba's CUDA simulator, bench/indigo_sanitizer.py's workers run the plain kernels there, its parser
reads compute-sanitizer's real output, and a batch whose worker dies goes on after the kernel it died on."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from indigo.batches import DIED, run_batches, split  # noqa: E402
from indigo_sanitizer import reports  # noqa: E402


def under_numba_simulator(tmp_path, script: str, *args: str) -> list[str]:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", GPUVIZ_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args, "--smoke"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout.splitlines()


def test_the_gpu_score_runs_kernels_through_the_gpu_backend(tmp_path):
    lines = under_numba_simulator(tmp_path, "indigo_gpu.py")
    # the two race-bug kernels found, the no-bug one not flagged; the boundsBug kernel's read of nlist[-1]
    # (16 GiB past the array in numba's spelling) is stopped by the recorder's guard and reported by the
    # memory check, where it used to end the worker's CUDA context (a fault)
    assert lines[-1] == "indigo_gpu DAG_5n_5e=2/2,0/1,1/1,faulted=0", "\n".join(lines)


def test_the_sanitizer_workers_run_every_kernel(tmp_path):
    lines = under_numba_simulator(tmp_path, "indigo_sanitizer.py", "memcheck", "--sanitizer", "none")
    assert lines[-1] == "indigo_sanitizer memcheck DAG_5n_5e=race:0/1,bounds:0/1,clean:0/1", "\n".join(lines)


def test_racecheck_reports_are_read_from_its_own_output():
    data = ROOT / "tests" / "data" / "racecheck"
    analysis = reports("racecheck", (data / "racecheck_analysis.txt").read_text().splitlines())
    assert len(analysis) == 5 and analysis[0].startswith("Warning: Race reported between Write access")
    hazard = reports("racecheck", (data / "racecheck_hazard.txt").read_text().splitlines())
    assert hazard and all("RAW hazard detected at __shared__" in line for line in hazard)
    assert reports("memcheck", (data / "racecheck_analysis.txt").read_text().splitlines()) == []
    memcheck = ["========= Invalid __global__ read of size 4 bytes", "=========     at test_kernel+0x1d0"]
    assert reports("memcheck", memcheck) == ["Invalid __global__ read of size 4 bytes"]


WORKER = """
import sys
for name in sys.argv[1:]:
    print("@@kernel " + name, flush=True)
    print("ran " + name, flush=True)
    if name == "faults":
        sys.exit(7)
    print("@@done " + name, flush=True)
    if name == "stops":
        sys.exit(0)
"""


CROWDED_WORKER = """
import pathlib, sys
for name in sys.argv[1:]:
    print("@@kernel " + name, flush=True)
    tried = pathlib.Path("tried-" + name)
    if name == "big" and not tried.exists():
        tried.write_text("")
        print("CudaAPIError: Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY", flush=True)
        sys.exit(3)
    print("ran " + name, flush=True)
    print("@@done " + name, flush=True)
"""


def test_kernels_short_of_gpu_memory_beside_other_batches_run_again_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found = run_batches(lambda left: [sys.executable, "-c", CROWDED_WORKER, *left], ["a", "big", "b"], 2, 60)
    assert found == {"a": ["ran a"], "big": ["ran big"], "b": ["ran b"]}
    (tmp_path / "tried-big").unlink()
    alone = run_batches(lambda left: [sys.executable, "-c", CROWDED_WORKER, *left], ["big"], 1, 60)
    assert any("CUDA_ERROR_OUT_OF_MEMORY" in line for line in alone["big"])  # one worker: nothing to gain


def test_a_batch_goes_on_after_the_kernel_its_worker_died_on():
    names = ["a", "faults", "b", "stops", "c"]
    found = run_batches(lambda left: [sys.executable, "-c", WORKER, *left], names, 1, 60)
    assert found["faults"] == ["ran faults", f"{DIED}exit 7"]
    assert {name: found[name] for name in "abc"} == {name: [f"ran {name}"] for name in "abc"}
    assert found["stops"] == ["ran stops"]
    assert split(names, 2) == [["a", "b", "c"], ["faults", "stops"]]
