"""The trace file: a pickle-free .npz whose layout other tools can rely on."""

import json
import zipfile

import numpy as np
import pytest

import gpuviz
from gpuviz.core.errors import TraceFormatError
from gpuviz.core.trace.columns import ACCESS_COLUMNS, FORMAT, THREAD_COLUMNS, WRITE

from .trace_files import members

SRC = """from numba import cuda

@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * factor
"""


@pytest.fixture
def saved(tmp_path, sim_run):
    a = np.arange(10, dtype=np.float32)
    trace = sim_run(SRC, 2, 8, a, 3.0)
    return trace, trace.save(tmp_path / "t.npz")


def test_round_trip(saved):
    trace, path = saved
    back = gpuviz.load(path)
    assert back.meta == json.loads(json.dumps(trace.meta))
    for key in THREAD_COLUMNS:
        assert np.array_equal(back.threads[key], trace.threads[key])
        assert back.threads[key].dtype == THREAD_COLUMNS[key]
    for key in ACCESS_COLUMNS:
        assert np.array_equal(back.accesses[key], trace.accesses[key])
        assert back.accesses[key].dtype == ACCESS_COLUMNS[key]
    assert np.array_equal(back.before("a"), np.arange(10))
    assert np.array_equal(back.after("a"), np.arange(10) * 3)


def test_contract_readable_without_gpuviz(saved):
    """Plain NumPy reads a trace file: the meta, the stored columns and the site table (docs/trace-format.md)."""
    _, path = saved
    with np.load(path, allow_pickle=False) as npz:
        assert str(npz["format"]) == FORMAT == "gpuviz-trace/3"
        meta = json.loads(str(npz["meta"]))
        for key in ["kernel", "source", "grid", "block", "backend", "device", "sm_count", "warp_size",
                    "time_unit", "launch", "param_names", "device_facts"]:  # fmt: skip
            assert key in meta
        assert meta["grid"] == [2, 1, 1] and meta["block"] == [8, 1, 1]
        assert meta["param_names"] == ["a", "factor"] and meta["scalars"] == {"factor": 3.0}
        assert "thread.block_idx" not in npz.files and npz["thread.sm"].shape == (16,)  # layout: derived
        encoding = json.loads(str(npz["encoding"]))
        sites = npz["access.sites"]  # array, kind, line
        site = npz["access.site"].astype(np.int64) + encoding["access.site"]["offset"]
        writes = sites[site, 1] == WRITE
        assert set(sites[site[writes], 2].tolist()) == {7}
        steps = npz["access.index"].astype(np.int64) + encoding["access.index"]["offset"]
        steps[0] = encoding["access.index"]["first"]
        assert sorted(np.cumsum(steps)[writes].tolist()) == list(range(10))
        assert npz["access.value.0"].dtype == np.float32  # the values of a float32 array, in float32


def test_unknown_format_is_refused(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, format=np.array("gpuviz-trace/99"), meta=np.array("{}"))
    with pytest.raises(TraceFormatError, match="gpuviz-trace/99.*reads gpuviz-trace/1, gpuviz-trace/2"):
        gpuviz.load(path)


@pytest.mark.parametrize("content", [b"not a zip", b""])
def test_garbage_is_refused(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(TraceFormatError, match="bad.npz"):
        gpuviz.load(path)


def test_missing_file_and_incomplete_trace(tmp_path):
    with pytest.raises(TraceFormatError, match="no trace file"):
        gpuviz.load(tmp_path / "nope.npz")
    path = tmp_path / "partial.npz"
    np.savez(path, format=np.array(FORMAT), meta=np.array("{}"))
    with pytest.raises(TraceFormatError, match="incomplete trace"):
        gpuviz.load(path)


def test_file_holds_no_pickles(saved):
    _, path = saved
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            header = z.read(name)[:128]
            assert b"'descr': '|O'" not in header


def test_format_1_files_still_load(saved, tmp_path):
    """A file written before /2 named its parameters "args" and had no analysis member."""
    trace, path = saved
    columns = {key: values for key, values in members(path).items() if key != "analysis"}
    meta = json.loads(str(columns["meta"]))
    meta["args"] = meta.pop("param_names")
    columns.update(format=np.array("gpuviz-trace/1"), meta=np.array(json.dumps(meta)))
    old = tmp_path / "old.npz"
    np.savez(old, **columns)
    back = gpuviz.load(old)
    assert back.param_names == ["a", "factor"] and back.analysis == {}


def test_analysis_is_stored_once_and_read_back(saved):
    from gpuviz.core.analysis.report import race_report

    trace, path = saved
    assert trace.analysis["races"]["racy"] is False
    back = gpuviz.load(path)
    assert back.analysis == json.loads(json.dumps(trace.analysis))
    assert race_report(back).summary() == "races: none found"


def test_analysis_added_to_a_file_written_without_one(saved, tmp_path):
    """The run's second write copies the first file's members and adds the analysis: same columns,
    readable by plain NumPy, and a file that already holds an analysis is left as it was."""
    from gpuviz.core.files import WriteError

    trace, _ = saved
    analysis, trace.analysis = trace.analysis, {}
    path = trace.save(tmp_path / "first.npz", durable=False)
    trace.analysis = analysis
    assert trace.save_analysis(path) == path
    back = gpuviz.load(path)
    assert back.analysis == json.loads(json.dumps(analysis))
    for key in THREAD_COLUMNS:
        assert np.array_equal(back.threads[key], trace.threads[key])
    assert np.array_equal(back.after("a"), np.arange(10) * 3)
    with np.load(path, allow_pickle=False) as npz:
        assert json.loads(str(npz["analysis"])) == back.analysis
    before = path.read_bytes()
    with pytest.raises(WriteError, match="already holds an analysis"):
        trace.save_analysis(path)
    assert path.read_bytes() == before and not list(tmp_path.glob("*.partial"))
    for broken in (b"not a zip at all", before[: len(before) // 2]):  # junk, and a file cut short
        bad = tmp_path / "bad.npz"
        bad.write_bytes(broken)
        with pytest.raises(WriteError, match="not a whole trace file"):
            trace.save_analysis(bad)
        assert bad.read_bytes() == broken


def test_members_deflated_ahead_on_threads_give_the_bytes_of_a_serial_write(monkeypatch):
    """Big members are deflated a window ahead of the one written; the file is the same byte for byte."""
    import io

    from gpuviz.core.trace import writer as trace_module

    columns = {f"m{i}": np.arange(300_000 * (i + 1), dtype=np.float32) % (7 + i) for i in range(5)}
    columns["small"] = np.arange(10)
    monkeypatch.setattr(trace_module, "PARALLEL_BYTES", 1 << 16)
    monkeypatch.setattr(trace_module, "PARALLEL_WINDOW", 1 << 22)  # fewer than all at once
    outstanding, most = {}, [0]  # members deflated ahead and not yet written, and their most bytes at once

    class CountingPool(trace_module.ThreadPoolExecutor):
        def submit(self, fn, values, *args):
            outstanding[id(values)] = values.nbytes
            most[0] = max(most[0], sum(outstanding.values()))
            return super().submit(fn, values, *args)

    real_write = trace_module.write_member

    def write_member(archive, name, values, *args):
        outstanding.pop(id(values), None)
        return real_write(archive, name, values, *args)

    monkeypatch.setattr(trace_module, "ThreadPoolExecutor", CountingPool)
    monkeypatch.setattr(trace_module, "write_member", write_member)
    threaded = io.BytesIO()
    trace_module.write_npz(threaded, columns)
    assert 0 < most[0] <= max(1 << 22, *(v.nbytes for v in columns.values()))  # the window, or the one member next
    monkeypatch.setattr(trace_module, "PARALLEL_BYTES", 1 << 40)  # nothing ahead: one member after another
    serial = io.BytesIO()
    trace_module.write_npz(serial, columns)
    assert threaded.getvalue() == serial.getvalue()
    with np.load(io.BytesIO(threaded.getvalue())) as npz:
        assert all(np.array_equal(npz[name], values) for name, values in columns.items())


def test_the_writer_still_finds_the_private_zipfile_names_it_relies_on():
    """The standard library has no public way to write a member deflated ahead of time: the writer sets
    zipfile's private `_compressor` (and, before 3.13, `_compresslevel`). A Python that removes them
    fails here, loudly, instead of the writer falling back to slower serial deflating unnoticed."""
    from gpuviz.core.trace.writer import private_api_present

    assert private_api_present(), "zipfile lost _compressor or a ZipInfo level: see core/trace/writer.py"


def test_the_private_api_check_fails_when_the_names_are_missing(monkeypatch):
    import zipfile

    from gpuviz.core.trace.writer import private_api_present

    real_open = zipfile.ZipFile.open

    def open_without_compressor(self, *args, **kwargs):
        member = real_open(self, *args, **kwargs)
        if hasattr(member, "_compressor"):
            del member._compressor
        return member

    monkeypatch.setattr(zipfile.ZipFile, "open", open_without_compressor)
    assert not private_api_present()


def test_a_part_that_cannot_be_encoded_is_left_out_and_named(saved, tmp_path, monkeypatch):
    """A failure while encoding the access log leaves it out of the file (the rest saves and loads, its
    warnings say what is missing) and is one error naming it; the Trace in memory keeps it."""
    from gpuviz.core.errors import PartlySavedError
    from gpuviz.core.trace import codec

    trace, _ = saved
    real_encode = codec.encode

    def failing(threads, accesses, arrays):
        if accesses is not None:
            raise TypeError("data type 'unknown' not understood")
        return real_encode(threads, accesses, arrays)

    monkeypatch.setattr(codec, "encode", failing)
    with pytest.raises(PartlySavedError) as info:
        trace.save(tmp_path / "partly.npz")
    assert "without the access log (TypeError: data type 'unknown' not understood)" in str(info.value)
    assert "\n" not in str(info.value)
    back = gpuviz.load(info.value.path)
    assert back.accesses is None and trace.accesses is not None
    assert any("not saved: the access log" in w for w in back.meta["warnings"])
    assert np.array_equal(back.after("a"), trace.after("a"))


def test_a_session_keeps_a_launch_it_could_save_only_in_part(tmp_path, monkeypatch):
    from gpuviz.core.errors import PartlySavedError
    from gpuviz.core.trace import codec
    from gpuviz.run.api import python_function

    monkeypatch.setattr(codec, "encode", lambda threads, accesses, arrays: 1 / 0)
    session = gpuviz.Session(gpuviz.RunOptions(backend="sim", level="accesses"), out_dir=tmp_path, keep_traces=True)
    with pytest.raises(PartlySavedError, match="without the access log .*the thread columns"):
        session.launch(python_function(SRC), 2, 8, (np.arange(10, dtype=np.float32), 3.0))
    assert len(session.traces) == 1 and session.traces[0].accesses is not None
    assert session.records[0].path.exists()
