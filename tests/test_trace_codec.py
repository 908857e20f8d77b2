"""The stored form of a trace (gpuviz-trace/3): every column comes back exactly, older files still load,
and a damaged or hostile file is one line."""

import json
import re
import zipfile

import numpy as np
import pytest

import gpuviz
from gpuviz.core.errors import TraceFormatError
from gpuviz.core.trace.columns import ACCESS_COLUMNS, THREAD_COLUMNS, thread_layout
from gpuviz.core.trace.model import Trace
from gpuviz.core.trace.reader import OverBudget

from .trace_files import members, stored_members, write_members

ARRAYS = [
    {"name": "f", "space": "global", "dtype": "float32", "shape": [50]},
    {"name": "i", "space": "global", "dtype": "int32", "shape": [7, 9]},
    {"name": "d", "space": "global", "dtype": "float64", "shape": [5]},
    {"name": "s", "space": "shared", "dtype": "int64", "shape": [300]},
    {"name": "b", "space": "global", "dtype": "bool", "shape": [4]},
]


def rich_trace(events: int = 500, seed: int = 0, value_dtype=np.float64) -> Trace:
    """A trace whose columns use every kind of value the codec must keep: times that go back, values
    a float32 array cannot hold exactly, NaN, -0.0, int64 values past 2^53, epochs in every field."""
    rng = np.random.default_rng(seed)
    grid, block = (3, 2, 1), (40, 1, 1)
    n = 240
    array = rng.integers(0, len(ARRAYS), events)
    sizes = np.array([int(np.prod(a["shape"])) for a in ARRAYS])
    value = rng.normal(size=events)
    value[array == 1] = rng.integers(-(2**31), 2**31, int((array == 1).sum()))
    value[array == 3] = rng.integers(-(2**62), 2**62, int((array == 3).sum())).astype(np.float64)
    value[array == 4] = rng.integers(0, 2, int((array == 4).sum()))
    special = np.flatnonzero(array == 0)[:3]
    value[special] = [np.nan, -0.0, np.inf][: len(special)]
    accesses = {
        "thread": rng.integers(0, n, events).astype(np.int32),
        "array": array.astype(np.int16),
        "index": (rng.integers(0, 1 << 40, events) % sizes[array]).astype(np.int64),
        "kind": rng.integers(0, 3, events).astype(np.int8),
        "line": rng.integers(3, 30, events).astype(np.int32),
        "epoch": (rng.integers(0, 3, events) | rng.integers(0, 2, events) << 16 | rng.integers(0, 2, events) << 24)
        .astype(np.int32),
        "value": value.astype(value_dtype),
        "time": np.cumsum(rng.integers(-50, 1000, events)).astype(np.int64),
    }
    block_idx, thread_idx, warp, lane = thread_layout(grid, block)
    start = rng.integers(0, 10**12, n).astype(np.int64)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": rng.integers(0, 132, n).astype(np.int32), "t_start": start,
               "t_end": start + rng.integers(0, 10**6, n)}  # fmt: skip
    meta = {"kernel": "k", "grid": list(grid), "block": list(block), "backend": "sim", "device": "d",
            "sm_count": 132, "warp_size": 32, "time_unit": "tick", "arrays": ARRAYS, "warnings": []}  # fmt: skip
    before = {name: np.arange(10, dtype=np.float32) for name in ("x", "y")}
    args = {"x": (before["x"], before["x"] * 2), "y": (before["y"], before["y"].copy())}
    return Trace(meta=meta, threads=threads, args=args, accesses=accesses)


def assert_same_columns(back: Trace, trace: Trace) -> None:
    for key, dtype in THREAD_COLUMNS.items():
        assert back.threads[key].dtype == dtype and np.array_equal(back.threads[key], trace.threads[key]), key
    assert set(back.accesses) == set(trace.accesses)
    for key, values in trace.accesses.items():
        got = back.accesses[key]
        assert got.dtype == ACCESS_COLUMNS.get(key, np.int64), key
        assert np.array_equal(got, values, equal_nan=key == "value"), key
    assert np.array_equal(np.signbit(back.accesses["value"]), np.signbit(trace.accesses["value"]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_column_round_trips_exactly(tmp_path, seed):
    trace = rich_trace(seed=seed)
    back = gpuviz.load(trace.save(tmp_path / "t.npz"))
    assert_same_columns(back, trace)
    assert np.array_equal(back.after("x"), trace.after("x")) and np.array_equal(back.after("y"), trace.before("y"))


def test_values_are_stored_in_their_array_dtype_where_exact(tmp_path):
    trace = rich_trace()
    stored = stored_members(trace.save(tmp_path / "t.npz"))
    assert stored["access.value.1"].dtype == np.int32  # whole numbers of an int32 array
    assert stored["access.value.4"].dtype == np.bool_
    assert stored["access.value.0"].dtype == np.float64  # normal floats do not fit float32 exactly
    assert "thread.warp" not in stored and "arg.y.after" not in stored  # derived; same as before


def test_a_float32_value_column_round_trips(tmp_path):
    """The GPU backend keeps values in float32; they come back exactly (as float64)."""
    trace = rich_trace(value_dtype=np.float32)
    back = gpuviz.load(trace.save(tmp_path / "t.npz"))
    assert np.array_equal(back.accesses["value"], trace.accesses["value"].astype(np.float64), equal_nan=True)


def test_empty_and_missing_access_logs_round_trip(tmp_path):
    empty = rich_trace(events=0)
    back = gpuviz.load(empty.save(tmp_path / "empty.npz"))
    assert all(len(back.accesses[key]) == 0 for key in ACCESS_COLUMNS)
    threads_only = rich_trace(events=1)
    threads_only.accesses = None
    back = gpuviz.load(threads_only.save(tmp_path / "threads.npz"))
    assert back.accesses is None and np.array_equal(back.threads["t_end"], threads_only.threads["t_end"])


def test_format_2_files_still_load(tmp_path):
    trace = rich_trace()
    old = write_members(tmp_path / "old.npz", members(trace.save(tmp_path / "t.npz")))
    with np.load(old) as npz:
        assert str(npz["format"]) == "gpuviz-trace/2" and "thread.warp" in npz.files
    assert_same_columns(gpuviz.load(old), trace)


def test_the_simulator_trace_of_vecadd_takes_under_8_bytes_an_access_on_disk(tmp_path):
    src = ("from numba import cuda\n@cuda.jit\ndef add(a, b, c):\n    i = cuda.grid(1)\n"
           "    if i < c.size:\n        c[i] = a[i] + b[i]\n")  # fmt: skip
    n = 1 << 14
    rng = np.random.default_rng(0)
    a, b = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    trace = gpuviz.trace(src, backend="sim", level="accesses")[n // 256, 256](a, b, np.zeros(n, np.float32))
    path = trace.save(tmp_path / "v.npz")
    events = len(trace.accesses["thread"])
    with zipfile.ZipFile(path) as archive:
        stored = sum(i.compress_size for i in archive.infolist() if i.filename.startswith("access."))
    assert stored / events <= 8  # the values (4 bytes, random) and a little for everything else
    assert_same_columns(gpuviz.load(path), trace)


def test_each_member_is_packed_the_way_its_start_says_pays(tmp_path):
    """Repetitive columns are deflated, random floats Huffman-coded (plain deflate, smaller), random
    bytes stored; every one reads back through zipfile and the loader."""
    rng = np.random.default_rng(0)
    n = 1 << 17
    trace = rich_trace()
    trace.args = {"ones": (np.ones(n, np.float32),) * 2, "floats": (rng.random(n, np.float32),) * 2,
                  "bytes": (rng.integers(0, 256, n, dtype=np.uint8),) * 2}  # fmt: skip
    path = trace.save(tmp_path / "t.npz")
    with zipfile.ZipFile(path) as archive:
        info = {i.filename: i for i in archive.infolist()}
        assert archive.testzip() is None  # every member's crc holds
    ones, floats, raw = (info[f"arg.{name}.before.npy"] for name in ("ones", "floats", "bytes"))
    assert ones.compress_type == zipfile.ZIP_DEFLATED and ones.compress_size < ones.file_size / 100
    assert floats.compress_type == zipfile.ZIP_DEFLATED and floats.compress_size < 0.92 * floats.file_size
    assert raw.compress_type == zipfile.ZIP_STORED
    back = gpuviz.load(path)
    assert all(np.array_equal(back.before(name), trace.before(name)) for name in trace.args)


def test_an_argument_written_back_the_same_is_stored_once(tmp_path):
    same = np.array([0.0, np.nan, 2.0])
    changed = same.copy()
    changed[2] = 3.0
    trace = rich_trace()
    trace.args = {"same": (same, same.copy()), "changed": (same, changed), "wider": (same, same.astype(np.float32))}
    stored = stored_members(trace.save(tmp_path / "t.npz"))
    assert "arg.same.after" not in stored and "arg.wider.after" not in stored  # equal values, as before
    assert np.array_equal(stored["arg.changed.after"], changed, equal_nan=True)


def test_a_format_3_file_with_wide_site_numbers_still_loads(tmp_path):
    """Files written before site numbers kept their narrow dtype give them back as `<i8`."""
    trace = rich_trace()
    columns = stored_members(trace.save(tmp_path / "t.npz"))
    assert np.dtype(json.loads(str(columns["encoding"]))["access.site"]["dtype"]).kind == "u"  # now
    _encoding(columns, access__site={"dtype": "<i8"})
    assert_same_columns(gpuviz.load(write_members(tmp_path / "old.npz", columns)), trace)


def damaged(tmp_path, change) -> str:
    trace = rich_trace()
    columns = stored_members(trace.save(tmp_path / "good.npz"))
    change(columns)
    path = tmp_path / "bad.npz"
    np.savez(path, **columns)
    with pytest.raises(TraceFormatError) as caught:
        gpuviz.load(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("bad.npz: ")
    return message


def _encoding(columns, **changes):
    encoding = json.loads(str(columns["encoding"]))
    for name, change in changes.items():
        encoding[name.replace("__", ".")].update(change)
    columns["encoding"] = np.array(json.dumps(encoding))


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda c: c.pop("encoding"), "no 'encoding' entry"),
        (lambda c: c.update(encoding=np.array("{not json")), "'encoding' entry is broken JSON"),
        (lambda c: c.update(encoding=np.array("[1, 2]")), "not a JSON object"),
        (lambda c: _encoding(c, access__thread={"offset": "x"}), "encoding of access.thread is not whole numbers"),
        (lambda c: _encoding(c, access__thread={"dtype": "|O"}), "must be a whole-number dtype"),
        (lambda c: _encoding(c, access__thread={"dtype": "nonsense"}), "names no NumPy dtype"),
        (lambda c: _encoding(c, access__thread={"offset": 10**6}), r"access.thread\[\d+\] is \d+; it must be from 0"),
        (lambda c: c.pop("access.thread"), "it has no access.thread"),
        (lambda c: c.update({"access.site": np.full(500, 2000, np.uint16)}), "names site 2000; the table has"),
        (lambda c: c.update({"access.sites": np.zeros((3, 2), np.int64)}), "not a table of"),
        (lambda c: c.update({"access.index": np.zeros(499, np.uint8)}), "must hold 500 whole numbers"),
        (lambda c: c.update({"access.index": np.zeros(500, np.float32)}), "access.index holds float32"),
        (lambda c: c.update({"access.value.0": c["access.value.0"][:-1]}), "values for"),
        (lambda c: c.update({"access.value.x": np.zeros(3)}), "not a column of values of one array"),
        (lambda c: c.pop("access.value.2"), "access values cover"),
        (lambda c: c.update({"thread.sm": np.zeros(9, np.uint8)}), "thread.sm holds"),
        (lambda c: c.update({"access.sites": np.array([[9, 0, 1]] * 400)}), r"value.0 holds \d+ values for 0"),
        (lambda c: c["access.sites"].__setitem__((0, 1), 7), r"access.sites\[0\] is 7; it must be from 0 to 2"),
        (lambda c: c["access.sites"].__setitem__((0, 2), -5), r"access.sites\[0\] is -5; it must be from 0 to 2147"),
    ],
)
def test_damaged_stored_columns_are_one_line(tmp_path, change, match):
    assert re.search(match, damaged(tmp_path, change))


def test_the_budget_counts_what_decoding_takes(tmp_path):
    """A format 3 file is small on disk; the budget is checked against its columns once decoded."""
    trace = rich_trace(events=200_000)
    path = trace.save(tmp_path / "t.npz")
    with zipfile.ZipFile(path) as archive:
        stored = sum(i.file_size for i in archive.infolist())
    with pytest.raises(OverBudget, match="over the memory budget"):
        gpuviz.load(path, memory_budget=stored + 200_000 * 8)
    assert len(gpuviz.load(path, memory_budget=stored + 200_000 * 60).accesses["thread"]) == 200_000
