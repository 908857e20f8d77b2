"""Per-line memory counts against Nsight Compute's source counters, as ncu measured them once on an
NVIDIA H200 (driver 580.159.04, 2026-11-26; `bench/ncu_lines.py --keep`, trimmed to the memory
instructions): the page is summed per line as the bench sums it, and the simulator's per-line counts of
the same launches equal it on every figure `gpuviz memory` models."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "tests" / "data" / "ncu_source_page_h200.csv"


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("ncu_lines", ROOT / "bench" / "ncu_lines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_source_page_sums_per_line_as_ncu_counts_the_kernel():
    sums = _bench().parse_source_page(PAGE.read_text())
    assert sums[("strided_load", 7, "global", "load")] == {"requests": 8, "sectors": 256, "wavefronts": 0}
    assert sums[("coalesced_load", 7, "global", "load")]["sectors"] == 128
    assert sums[("transpose_naive", 11, "shared", "load")]["wavefronts"] == 1024  # a 32-way conflict
    assert sums[("transpose_naive", 9, "shared", "store")]["wavefronts"] == 32
    matmul = sums[("tiled_matmul", 17, "shared", "load")]  # the compiler merged loads into LDS.128 there
    assert (matmul["requests"], matmul["wavefronts"]) == (1280, 1536)


@pytest.mark.slow
def test_the_simulators_lines_equal_ncus_wherever_gpuviz_models_the_figure():
    bench = _bench()
    measured = bench.parse_source_page(PAGE.read_text())
    kernels = {kernel for kernel, *_ in measured}
    cases = [case for case in bench.ncu_compare.CASES if case.name in kernels]
    assert len(cases) == 6
    ours = {key: value for case in cases for key, value in bench.gpuviz_lines(case, "sim", False).items()}
    assert set(ours) == set(measured)
    loose = bench.not_modelled()
    for key, figures in measured.items():
        _, _, space, operation = key
        for figure in bench.FIGURES[space]:
            if (space, operation, figure) not in loose:
                assert ours[key][figure] == figures[figure], (key, figure, ours[key][figure], figures[figure])
