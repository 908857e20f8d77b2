"""Real numba-cuda kernels (README.md names their sources), run unmodified as scripts.

Each script checks its own results against NumPy and says, in GPUVIZ_EXPECT, which launches race
("kernel@launch"), which have memory errors, or which refusal (message and line) numba-cuda gives.
The simulator half runs here; the GPU half (marker `gpu`) runs the same scripts on a GPU.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import RunOptions
from gpuviz.core.trace.reader import load
from gpuviz.program.script import run_script
from gpuviz.run.session import Session

SCRIPTS = sorted((Path(__file__).parent / "scripts").glob("*.py"))
HANGS_ON_THE_GPU: dict[str, str] = {}  # none since the access log needs no warp-wide protocol
SIMULATOR_BITS = "numba's CUDA simulator reverses a uint64's bits as 32 (numba-cuda skips test_brev_u8 there too)"
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
NOT_ON_NUMBAS_SIMULATOR = {"nvtest_bit_intrinsics": SIMULATOR_BITS} if SIMULATED else {}


def expectation(path: Path) -> dict:
    """The GPUVIZ_EXPECT dict a script declares (read from its source; the script never uses it)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "GPUVIZ_EXPECT":
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path.name} declares no GPUVIZ_EXPECT")


def run(path: Path, backend: str, out_dir: Path | None = None) -> Session:
    session = Session(RunOptions(backend=backend, level="accesses"), out_dir=out_dir, keep_traces=True)
    run_script(path, session)
    return session


def launches(session: Session, verdict) -> set[str]:
    return {f"{t.kernel}@{t.meta['launch']}" for t in session.traces if verdict(t)}


@pytest.mark.parametrize("path", [p for p in SCRIPTS if "refused" not in expectation(p)], ids=lambda p: p.stem)
def test_runs_on_the_simulator_with_correct_results_and_verdicts(path):
    expected = expectation(path)
    session = run(path, "sim")  # the script asserts its own results
    assert session.traces, f"{path.name} launched nothing"
    assert launches(session, lambda t: t.analysis["races"]["racy"]) == set(expected["races"])
    assert launches(session, lambda t: t.error_count > 0) == set(expected["errors"])


@pytest.mark.parametrize("path", [p for p in SCRIPTS if "refused" in expectation(p)], ids=lambda p: p.stem)
def test_refused_as_numba_cuda_refuses_naming_the_line(path):
    message, line = expectation(path)["refused"]
    with pytest.raises(GpuvizError) as info:
        run(path, "sim")
    assert message in str(info.value)
    assert f"line {line}" in str(info.value)


@pytest.mark.gpu
@pytest.mark.parametrize("path", [p for p in SCRIPTS if "refused" not in expectation(p)], ids=lambda p: p.stem)
def test_runs_on_the_gpu_with_correct_results_and_saves(path, tmp_path):
    """The script asserts its own results; every launch's trace is saved and loads back (shared arrays
    sized by the launch or by a device function's arguments included)."""
    skipped = HANGS_ON_THE_GPU | NOT_ON_NUMBAS_SIMULATOR
    if path.stem in skipped:
        pytest.skip(skipped[path.stem])
    session = run(path, "gpu", tmp_path)
    assert session.traces
    for record, trace in zip(session.records, session.traces):
        loaded = load(record.path)
        assert loaded.meta["arrays"] == trace.meta["arrays"]
        assert all(int(np.prod(entry["shape"])) for entry in loaded.meta["arrays"] if entry["space"] == "shared")


@pytest.mark.gpu
@pytest.mark.parametrize("path", [p for p in SCRIPTS if "refused" in expectation(p)], ids=lambda p: p.stem)
def test_refused_on_the_gpu_as_on_the_simulator(path):
    message, line = expectation(path)["refused"]
    with pytest.raises(GpuvizError) as info:
        run(path, "gpu")
    assert message in str(info.value)
    assert f"line {line}" in str(info.value)


SYNCED = ("nv_grid_sync_rows", "nv_sessionize", "nvtest_useful_syncwarp")  # grid syncs, a whole-warp syncwarp


def race_lines(session: Session) -> list[set]:
    return [{(r["first"]["line"], r["second"]["line"], r["pairs"]) for r in t.analysis["races"]["races"]}
            for t in session.traces]  # fmt: skip


@pytest.mark.gpu
@pytest.mark.parametrize("name", SYNCED)
def test_grid_syncs_and_syncwarps_order_accesses_on_the_gpu_as_on_the_simulator(name):
    """The GPU's epochs count grid syncs and whole-warp syncwarps: the races found are the simulator's
    (useful_syncwarp keeps its one real race, lane 0's second store against the others' loads)."""
    path = Path(__file__).parent / "scripts" / f"{name}.py"
    gpu, sim = run(path, "gpu"), run(path, "sim")
    assert launches(gpu, lambda t: t.analysis["races"]["racy"]) == set(expectation(path)["races"])
    assert race_lines(gpu) == race_lines(sim)
