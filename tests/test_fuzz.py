"""Property-based fuzzing: damaged traces and wild launch configurations get a clean one-line error and
a non-zero exit, or a correct result; never a traceback, never exit 0 on bad input, never more memory
than the budget. Sized to run in well under a minute."""

from __future__ import annotations

import json
import math
import os
import tempfile
import tracemalloc
import zipfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hypothesis", reason="fuzzing needs Hypothesis (the test extras)")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpuviz
from gpuviz.cli import main
from gpuviz.core.errors import GpuvizError
from gpuviz.core.trace.schema import META

from .trace_files import good_trace, members, raw_member, write_members, write_raw

BUDGET = 8 << 20
SLACK = 4 << 20  # the reader's own bookkeeping (zip directory, headers, masks) on top of the arrays
# capsys is read (and so emptied) after every command: sharing it between examples is safe.
HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
EXAMPLES = int(os.environ.get("GPUVIZ_FUZZ_EXAMPLES", "60"))  # more for a deep search; 60 keeps CI well under a minute
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=HEALTH)
DTYPES = ["i1", "i2", "i4", "i8", "u1", "u8", "f4", "f8", "?", "c8", "U3", "S3", "V2"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
small_ints = st.integers(-3, 70_000)
# Values close to what gpuviz writes, so that the checks behind the first type check are reached too.
near_meta = st.one_of(
    st.lists(small_ints, min_size=2, max_size=4),
    st.fixed_dictionaries({"runs": small_ints, "seeds": st.lists(small_ints, max_size=4)}),
    st.lists(st.fixed_dictionaries({"name": st.sampled_from(["a", "out", "zz"]),
                                    "space": st.sampled_from(["global", "shared"]),
                                    "dtype": st.sampled_from(["float32", "int8", "O", "nope", "V0"]),
                                    "shape": st.lists(st.integers(-1, 100), max_size=3)}), max_size=3),
    st.lists(st.text(max_size=3), max_size=3),
)  # fmt: skip


@cache
def folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="gpuviz-fuzz-"))


@cache
def good_columns() -> dict[str, np.ndarray]:
    return members(good_trace(folder(), repeat=2))


def one_line(error: BaseException) -> bool:
    return "\n" not in str(error) and str(error).strip() != ""


def load_within_budget(path: Path):
    """The trace, or the GpuvizError it raised; the reader's peak memory stays within the budget."""
    tracemalloc.start()
    try:
        return gpuviz.load(path, BUDGET)
    except GpuvizError as exc:
        assert one_line(exc), str(exc)
        return exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= BUDGET + SLACK, f"the reader took {peak:,} bytes"


def check_commands(path: Path, loaded, capsys) -> None:
    """info and races: exit 0 with output for a good trace, 1 with one `error:` line for a bad one."""
    for command in (["info"], ["races", "--count-benign"]):
        code = main([*command, str(path), "--max-memory", str(BUDGET)])
        err = capsys.readouterr().err.strip()
        # A bad trace must fail; a good one may too where it lacks what a command needs (races, no access log).
        if isinstance(loaded, GpuvizError) or code != 0:
            assert code == 1 and err.startswith("error: ") and "\n" not in err, err
            assert isinstance(loaded, GpuvizError) or command[0] == "races", err


def check(path: Path, capsys):
    loaded = load_within_budget(path)
    if isinstance(loaded, gpuviz.Trace):  # whatever loads is consistent with its own launch
        assert loaded.n_threads == math.prod(loaded.grid) * math.prod(loaded.block)
        if loaded.accesses is not None:
            assert loaded.accesses["thread"].max(initial=0) < loaded.n_threads
    check_commands(path, loaded, capsys)
    return loaded


@st.composite
def damaged(draw) -> tuple[dict, dict]:
    """A good trace's members with one kind of damage; raw members (bytes) where a header lies."""
    columns = dict(good_columns())
    key = draw(st.sampled_from(sorted(columns)))
    kind = draw(st.sampled_from(["drop", "dtype", "shape", "values", "meta", "text", "header"]))
    raw = {}
    if kind == "drop":
        del columns[key]
    elif kind == "dtype":
        dtype = draw(st.sampled_from(DTYPES))
        try:
            columns[key] = columns[key].astype(dtype)
        except (ValueError, TypeError):  # text that is no number: an array of that dtype instead
            columns[key] = np.zeros(columns[key].shape, dtype)
    elif kind == "shape":
        flat = columns[key].reshape(-1)
        length = draw(st.integers(0, 2 * flat.size + 2))
        shapes = [(length,), (length, 1), (1, length)] + ([()] if length == 1 else [])
        columns[key] = np.resize(flat, length).reshape(draw(st.sampled_from(shapes)))
    elif kind == "values" and columns[key].dtype.kind in "iuf" and columns[key].size:
        values = columns[key].copy()
        limits = np.iinfo(values.dtype) if values.dtype.kind in "iu" else np.finfo(values.dtype)
        spot = draw(st.integers(0, values.size - 1))
        values.reshape(-1)[spot] = draw(st.sampled_from([limits.min, limits.max, -1, 0, min(10**6, limits.max)]))
        columns[key] = values
    elif kind == "meta":
        meta = json.loads(str(columns["meta"]))
        meta[draw(st.sampled_from(sorted(META)))] = draw(json_values | near_meta)
        columns["meta"] = np.array(json.dumps(meta))
    elif kind == "text":  # the JSON text itself cut, spliced or replaced
        text = str(columns.get("meta", ""))
        cut = draw(st.integers(0, len(text)))
        splice = draw(st.text(max_size=8) | st.sampled_from(["1" * 5000, "[" * 5000, "NaN", "1e999"]))
        columns[draw(st.sampled_from(["meta", "analysis"]))] = np.array(text[:cut] + splice + text[cut + 1 :])
    elif kind == "header":
        shape = tuple(draw(st.lists(st.integers(0, 10**13), max_size=3)))
        header = {"descr": draw(st.sampled_from(["<f8", "<i4", "|u1", "|O"])), "fortran_order": False, "shape": shape}
        raw[key] = raw_member(header, draw(st.binary(max_size=64)))
    return columns, raw


@pytest.mark.slow
@FUZZ
@given(damage=damaged())
def test_damaged_traces(damage, capsys):
    columns, raw = damage
    path = write_raw(folder() / "damaged.npz", columns, raw)
    check(path, capsys)


@FUZZ
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8))
def test_flipped_bytes(flips, capsys):
    good_columns()  # writes good.npz: this test must not rely on another having run first
    data = bytearray((folder() / "good.npz").read_bytes())
    for where, value in flips:
        data[int(where * len(data))] = value
    path = folder() / "flipped.npz"
    path.write_bytes(bytes(data))
    check(path, capsys)


@settings(max_examples=20, deadline=None, suppress_health_check=HEALTH)
@given(elements=st.integers(0, 4 * BUDGET // 8), compress=st.booleans())
def test_inflated_arrays_stay_within_the_budget(elements, compress, capsys):
    columns = {k: v for k, v in good_columns().items() if not k.startswith("outcome.a.")}
    columns["arg.a.before"] = columns["arg.a.after"] = np.zeros(elements, np.float64)
    path = folder() / "inflated.npz"
    (np.savez_compressed if compress else np.savez)(path, **columns)
    loaded = check(path, capsys)
    total = sum(v.nbytes for v in columns.values())
    assert isinstance(loaded, GpuvizError) == (total > BUDGET)


@settings(max_examples=20, deadline=None, suppress_health_check=HEALTH)
# Python's zipfile cuts a member's name at its first NUL and then fails itself, and cannot encode a lone
# surrogate: such names cannot be written.
@given(
    count=st.integers(0, 8),
    name=st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1, max_size=8),
)
def test_stray_and_missing_members(count, name, capsys):
    columns = good_columns()
    path = write_members(folder() / "stray.npz", dict(list(columns.items())[:count]))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(name, b"\x93NUMPY")
    loaded = check(path, capsys)
    assert isinstance(loaded, GpuvizError)


# ---- launch configurations ------------------------------------------------------------------------
KERNEL = "from numba import cuda\n@cuda.jit\ndef k(a):\n    cuda.atomic.add(a, 0, 1)\n"
dims = st.one_of(
    st.integers(-2, 40),
    st.sampled_from([0, 1025, 65536, 2**31, 10**12, -(2**63)]),
    st.tuples(st.integers(-1, 12), st.integers(-1, 12)),
    st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)),
    st.lists(st.integers(1, 4), max_size=5).map(tuple),
    st.sampled_from([1.5, "32", None, True, (1.0, 2), [], (2, "x")]),
)


@cache
def kernel():
    return gpuviz.trace(KERNEL, backend="sim", memory_budget=1 << 20)


@settings(max_examples=60, deadline=None)
@given(grid=dims, block=dims)
def test_launch_configurations(grid, block):
    a = np.zeros(1, np.int64)
    try:
        trace = kernel()[grid, block](a)
    except GpuvizError as exc:
        assert one_line(exc), str(exc)
        return
    config = gpuviz.LaunchConfig.of(grid, block)  # it ran, so the launch was a valid one
    assert trace.n_threads == config.threads and trace.grid == config.grid
    assert trace.after("a")[0] == config.threads  # every thread counted once


@settings(max_examples=25, deadline=None, suppress_health_check=HEALTH)
@given(grid=st.text(max_size=8), block=st.text(max_size=8))
def test_demo_launch_text(grid, block, capsys):
    # --grid=TEXT: TEXT may start with '-', which argparse would take for an option of its own
    code = main(
        ["demo", "one-thread", f"--grid={grid}", f"--block={block}", "--backend", "sim", "--out", str(folder() / "d")]
    )
    err = capsys.readouterr().err.strip()
    if code != 0:
        assert code == 1 and err.startswith("error: ") and "\n" not in err, err


@pytest.mark.parametrize("text", ["", " ", ",", "0", "-1", "1,2,3,4", "1e3", "x"])
def test_demo_refuses_bad_launch_text(text, capsys):
    assert main(["demo", "one-thread", "--block", text, "--backend", "sim", "--out", str(folder() / "d")]) == 1
    assert capsys.readouterr().err.startswith("error: --block")
