"""numba.cuda's integer and warp intrinsics on both engines against a GPU's own outputs.

tests/data/gpu_intrinsics.json was recorded once by bench/gpu_fidelity.py (its `recorded` entry names the
card, the date and numba-cuda's version): each case of tests/intrinsic_cases.py compiled by numba-cuda
and run on the GPU, or the error numba gave. Each engine must give the same output in every element, or
refuse what numba refused, without leaving its engine.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import gpuviz
from tests import intrinsic_cases

FIXTURE = json.loads((Path(__file__).parent / "data" / "gpu_intrinsics.json").read_text())
ENGINES = ("vector", "reference")


def groups() -> dict[tuple[str, str], list[str]]:
    """Input keys per (intrinsic, operand type), as the recording grouped them."""
    out: dict[tuple[str, str], list[str]] = {}
    for intrinsic, dtype, key in intrinsic_cases.cases():
        out.setdefault((intrinsic, dtype), []).append(key)
    return out


def test_the_fixture_was_recorded_from_todays_cases():
    """A case changed since the recording would compare against another kernel's outputs."""
    assert {"card", "date", "numba_cuda"} <= set(FIXTURE["recorded"])
    assert FIXTURE["sources"] == {name: intrinsic_cases.source(name) for name, _ in groups()}
    expected = {f"{i}|{key}" for (i, _), keys in groups().items() for key in keys}
    assert set(FIXTURE["outputs"]) == expected
    for key, arrays in FIXTURE["inputs"].items():
        for name, values in intrinsic_cases.inputs(key).items():
            assert arrays[name] == values.tolist(), (key, name)


def run_case(engine: str, intrinsic: str, dtype: str, key: str) -> np.ndarray:
    types = {name: a.dtype for name, a in intrinsic_cases.inputs(key).items()}
    arrays = {name: np.array(values, dtype=types[name]) for name, values in FIXTURE["inputs"][key].items()}
    out = intrinsic_cases.output(intrinsic, dtype, key)
    grid, block = intrinsic_cases.launch_shape(key)
    trace = gpuviz.trace(FIXTURE["sources"][intrinsic], name="k", backend="sim", engine=engine)[grid, block](
        arrays["v"], arrays["same"], arrays["quit"], out
    )
    assert trace.meta["engine"] == engine, trace.meta["engine_note"]
    assert trace.error_count == 0
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("intrinsic", "dtype"), [pytest.param(i, d, id=f"{i}-{d}") for i, d in groups()])
def test_the_simulator_gives_what_the_gpu_gave(engine, intrinsic, dtype):
    for key in groups()[(intrinsic, dtype)]:
        recorded = FIXTURE["outputs"][f"{intrinsic}|{key}"]
        if "error" in recorded:
            assert recorded["error"].startswith("TypingError")  # numba refused it at compile time
            with pytest.raises(Exception, match=intrinsic.removesuffix("_bool")):
                run_case(engine, intrinsic, dtype, key)
            continue
        got = run_case(engine, intrinsic, dtype, key)
        expected = np.array(recorded["out"], dtype=got.dtype)
        np.testing.assert_array_equal(got, expected, err_msg=f"{intrinsic} {key} on {engine}")
