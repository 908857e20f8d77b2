"""Arrays of records (NumPy structured dtypes), as numba-cuda runs them: a field of one record, `r[i].x` or
`r[i]['x']`, is read and written as a number of the field's type (an int16 field wraps), and logged as element
i of r with the field's value; a whole record copied (`r[i] = r[j]`) runs on the reference engine; one record
passed as an argument is refused in words that say what to pass instead. tests/test_record_arrays_gpu.py runs the same
kernels with numba-cuda on a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import gpuviz
from gpuviz.core.analysis.races import find_races

PARTICLE = np.dtype([("x", np.float32), ("v", np.float64), ("hits", np.int16)], align=True)

KERNELS = {
    "attributes": """
    i = cuda.grid(1)
    if i < p.size:
        p[i].x = p[i].x + p[i].v * 0.5
        p[i].hits = p[i].hits + 40000
""",
    "subscripts": """
    i = cuda.grid(1)
    if i < p.size:
        p[i]['x'] = p[i]['x'] * 2
        p[i]['hits'] -= 3
""",
    "augmented": """
    i = cuda.grid(1)
    if i < p.size:
        p[i].v += p[i].x
        p[i].hits *= 2
""",
    "copy": """
    i = cuda.grid(1)
    if 0 < i < p.size:
        p[i] = p[0]
""",
}


def record_source(body: str) -> str:
    return f"import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(p):{body}"


def particles() -> np.ndarray:
    p = np.zeros(40, PARTICLE)
    p["x"] = np.linspace(-3, 9, 40)
    p["v"] = np.arange(40) / 7
    p["hits"] = np.arange(40) * 1000 - 7000
    return p


def expected(name: str) -> np.ndarray:
    """What numba-cuda computes: the field's type for the result, a Python int wrapped into int16."""
    p = particles()
    if name == "attributes":
        p["x"] = (p["x"].astype(np.float64) + p["v"] * 0.5).astype(np.float32)
        p["hits"] = (p["hits"].astype(np.int64) + 40000).astype(np.int16)
    elif name == "subscripts":
        p["x"] = p["x"] * np.float32(2)
        p["hits"] = (p["hits"].astype(np.int64) - 3).astype(np.int16)
    elif name == "augmented":
        p["v"] = p["v"] + p["x"].astype(np.float64)
        p["hits"] = (p["hits"].astype(np.int64) * 2).astype(np.int16)
    else:
        p[1:] = p[0]
    return p


@pytest.mark.parametrize("engine", ["vector", "reference", "auto"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_records_fields_compute_as_numba_cuda_computes_them(name, engine):
    p = particles()
    trace = gpuviz.trace(record_source(KERNELS[name]), name="k", backend="sim", engine=engine)[2, 32](p)
    for field in PARTICLE.names:
        np.testing.assert_array_equal(p[field], expected(name)[field], err_msg=f"{name}, field {field}")
    if engine == "vector":  # a field is a number: only the whole-record copy needs the reference engine
        assert (trace.meta["engine"] == "vector") == (name != "copy"), trace.meta.get("engine_note")


def test_a_fields_accesses_are_logged_as_the_records_element_with_the_fields_value():
    p = particles()
    trace = gpuviz.trace(record_source(KERNELS["attributes"]), name="k", backend="sim", level="accesses")[2, 32](p)
    a = trace.accesses
    thread_5 = a["thread"] == 5
    assert set(a["index"][thread_5].tolist()) == {5}
    reads, writes = a["value"][thread_5 & (a["kind"] == 0)], a["value"][thread_5 & (a["kind"] == 1)]
    start = particles()[5]
    assert reads.tolist() == [start["x"], start["v"], start["hits"]]
    assert writes.tolist() == [p[5]["x"], p[5]["hits"]]


def test_two_threads_adding_to_one_records_field_race():
    p = particles()
    trace = gpuviz.trace(record_source("\n    p[0].hits += 1\n"), name="k", backend="sim", level="accesses")[1, 64](p)
    assert find_races(trace).racy
    assert p[0]["hits"] < -7000 + 64


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_a_field_that_is_not_there_is_named(engine):
    with pytest.raises(gpuviz.GpuvizError, match="p\\[...\\] has no field 'y': its records have the fields x, v, hits"):
        gpuviz.trace(record_source("\n    p[0].y = 1\n"), name="k", backend="sim", engine=engine)[1, 1](particles())


def test_one_record_as_an_argument_is_refused_in_words_that_say_what_to_pass():
    with pytest.raises(gpuviz.GpuvizError, match=r"argument 'p' is one record; .* pass np.array\(\[p\]\)"):
        gpuviz.trace(record_source("\n    p.x = 1\n"), name="k", backend="sim")[1, 1](particles()[0])
