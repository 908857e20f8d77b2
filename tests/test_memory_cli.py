"""`gpuviz memory`: the stored memory analysis of a trace as text and JSON."""

import json
import re

import numpy as np
import pytest

import gpuviz
from gpuviz.catalog import LESSONS
from gpuviz.cli import main
from gpuviz.core.analysis.report import analyse, is_analysed

TRANSPOSE = next(LESSONS.glob("[0-9][0-9]-transpose.py"))


def run_lesson(tmp_path, name):
    script = next(LESSONS.glob(f"[0-9][0-9]-{name}.py"))
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path)]) == 0
    return sorted(tmp_path.glob("*.npz"))


def test_json_has_the_fields_per_line_and_the_occupancy(tmp_path, capsys):
    naive, tiled = run_lesson(tmp_path, "matmul")
    capsys.readouterr()
    assert main(["memory", str(naive), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("occupancy_theoretical", "occupancy_measured", "occupancy_limiter"):
        assert key in report
    write_c = next(r for r in report["lines"] if r["array"] == "C")
    # cuda.grid(2) puts threadIdx.x on rows: a warp writes 8 rows of 4 floats, 8 sectors where 4 would do.
    assert (write_c["sectors_per_request"], write_c["ideal_sectors_per_request"]) == (8, 4)
    for row in report["lines"]:
        assert {"line", "array", "space", "requests", "sectors_per_request", "ideal_sectors_per_request",
                "bank_conflict_degree"} <= set(row)  # fmt: skip
    assert main(["memory", str(tiled), "--json"]) == 0
    shared = [r for r in json.loads(capsys.readouterr().out)["lines"] if r["space"] == "shared"]
    assert shared and all(r["bank_conflict_degree"]["max"] >= 1 for r in shared)


def test_text_names_the_limiter_and_the_conflicts(tmp_path, capsys):
    _, tiled = run_lesson(tmp_path, "transpose")
    capsys.readouterr()
    assert main(["memory", str(tiled)]) == 0
    out = capsys.readouterr().out
    # 1,024-thread blocks: 2 an SM by threads, and by registers too at the estimate's 32 a thread
    assert "limited by threads and registers (estimated)" in out and "32-way" in out
    assert "divergence 0 of 192 warps" in out


def test_a_trace_without_stored_memory_analysis_is_analysed_on_the_way(tmp_path, capsys):
    trace = gpuviz.trace(TRANSPOSE.read_text(), name="transpose_naive", backend="sim")
    a, b = np.arange(24 * 16, dtype=np.float32).reshape(24, 16), np.zeros((16, 24), np.float32)
    launched = trace[(2, 3), (8, 8)](a, b)
    launched.analysis = {"races": analyse(launched)["races"]}  # as an older gpuviz stored it
    assert not is_analysed(launched)
    path = launched.save(tmp_path / "old.npz")
    capsys.readouterr()
    assert main(["memory", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lines"]


def test_missing_trace_is_one_line(tmp_path, capsys):
    assert main(["memory", str(tmp_path / "nope.npz")]) == 1
    assert capsys.readouterr().err.startswith("error: no trace file")


def test_analysing_an_old_trace_adds_only_what_it_lacks(monkeypatch):
    from gpuviz.core.analysis import races

    trace = gpuviz.trace(TRANSPOSE.read_text(), name="transpose_naive", backend="sim")
    launched = trace[(2, 3), (8, 8)](np.zeros((24, 16), np.float32), np.zeros((16, 24), np.float32))
    stored = {"races": analyse(launched)["races"]}
    launched.analysis = stored
    monkeypatch.setattr(races, "find_races", lambda *a, **k: pytest.fail("races were searched again"))
    result = analyse(launched)
    assert result["races"] is stored["races"] and result["memory"]["lines"]
    assert launched.analysis == stored  # pure: the caller stores the result


NAIVE_SHARED_TRANSPOSE = """
from numba import cuda, float32

@cuda.jit
def naive_tile(a, b):
    tile = cuda.shared.array((32, 32), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[ty, tx * 32]
    cuda.syncthreads()
    b[ty, tx] = tile[tx, ty]
"""


def test_totals_carry_their_plain_names_and_nsight_compute_metrics(tmp_path, capsys):
    """The issue's H200 figures: 32 load requests of 32 sectors (a stride of 32 floats), 32 of 4
    (coalesced), and a 32-way conflict: 1,024 wavefronts, 992 bank conflicts."""
    launched = gpuviz.trace(NAIVE_SHARED_TRANSPOSE, name="naive_tile", backend="sim")[1, (32, 32)](
        np.zeros((32, 1024), np.float32), np.zeros((32, 32), np.float32))
    path = launched.save(tmp_path / "naive.npz")
    capsys.readouterr()
    assert main(["memory", str(path), "--json"]) == 0
    counts = {c["name"]: c for c in json.loads(capsys.readouterr().out)["counts"]}
    expected = {"global load requests": 32, "global load sectors": 1024, "global store requests": 32,
                "global store sectors": 128, "shared load requests": 32, "shared load wavefronts": 1024,
                "shared load bank conflicts": 992, "shared store wavefronts": 32,
                "shared store bank conflicts": 0}  # fmt: skip
    assert {name: counts[name]["value"] for name in expected} == expected
    conflicts = counts["shared load bank conflicts"]["ncu"]
    assert conflicts == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
    assert counts["global load sectors"]["ncu"] == "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    assert counts["global atomic requests"]["ncu"] is None and counts["global atomic requests"]["not_modelled"]
    assert main(["memory", str(path)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"shared load bank conflicts +992  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", text)
    assert re.search(r"global load sectors +1,024  l1tex__t_sectors_pipe_lsu_mem_global_op_ld\.sum", text)
    assert "global atomic" not in text  # no atomics made: their not-modelled rows stay out
