"""The race calibration's launch shapes (bench/race_shapes.py): enough of them, and a split into fit and
validation halves that each cover every kernel, blocks of 32 and of 1,024 threads, one wave and 16 or
more, grid-stride and one value per thread."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def shapes():
    spec = importlib.util.spec_from_file_location("race_shapes", BENCH / "race_shapes.py")
    module = sys.modules["race_shapes"] = importlib.util.module_from_spec(spec)  # dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_there_are_at_least_sixteen_shapes_over_the_ranges_asked_for(shapes):
    assert len(set(shapes.SHAPES)) == len(shapes.SHAPES) >= 16
    assert {s.threads for s in shapes.SHAPES} >= {32, 1024}
    assert max(s.waves for s in shapes.SHAPES) >= 64 and any(0.9 <= s.waves <= 1.1 for s in shapes.SHAPES)
    binned = [s.bins for s in shapes.SHAPES if s.bins]
    assert min(binned) == 16 and max(binned) == 65536


def test_each_half_covers_what_the_other_does(shapes):
    fit, validation = shapes.split(shapes.SHAPES)
    assert sorted(map(repr, fit + validation)) == sorted(map(repr, shapes.SHAPES))  # each shape in one half
    for half in (fit, validation):
        assert {s.kernel for s in half} == set(shapes.SOURCES)
        assert {32, 1024} <= {s.threads for s in half}
        assert any(0.9 <= s.waves <= 1.1 for s in half) and any(s.waves >= 16 for s in half)


def test_the_split_alternates_within_each_kernel_by_thread_count(shapes):
    fit, _ = shapes.split(shapes.SHAPES)
    for kernel in shapes.SOURCES:
        ordered = sorted((s for s in shapes.SHAPES if s.kernel == kernel), key=lambda s: (s.total_threads, s.threads))
        assert [s in fit for s in ordered] == [k % 2 == 0 for k in range(len(ordered))]
