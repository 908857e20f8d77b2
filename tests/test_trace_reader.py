"""The trace reader trusts nothing: lying headers, bombs, corrupt columns and meta are one line each,
and nothing is allocated past the memory budget."""

import json
import tracemalloc

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core.errors import TraceFormatError
from gpuviz.core.trace.reader import OverBudget

from .trace_files import good_trace, members, raw_member, with_meta, write_members, write_raw

MiB = 1 << 20


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return good_trace(tmp_path_factory.mktemp("good"), repeat=3)


@pytest.fixture
def columns(good):
    return members(good)


def enlarge(columns: dict, size: int) -> None:
    """Argument a becomes `size` zeros (float64); its outcomes go, as they no longer fit it."""
    columns["arg.a.before"] = columns["arg.a.after"] = np.zeros(size, np.float64)
    for key in [k for k in columns if k.startswith("outcome.a.")]:
        del columns[key]


def refused(path, match: str, budget: int | None = None) -> str:
    with pytest.raises(TraceFormatError, match=match) as caught:
        gpuviz.load(path, budget)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(path.name)
    return message


def test_the_good_trace_loads_with_everything(good):
    trace = gpuviz.load(good)
    assert trace.n_threads == 64 and len(trace.accesses["thread"]) == 80 and trace.outcomes["out.runs"].shape == (3, 40)


def test_a_header_claiming_a_terabyte_is_refused_before_allocation(tmp_path, columns):
    """A 10^12-element header in a tiny file: refused from its header, with no big allocation."""
    lie = raw_member({"descr": "<f8", "fortran_order": False, "shape": (10**12,)}, b"\0" * 64)
    path = write_raw(tmp_path / "lie.npz", columns, {"arg.a.before": lie})
    tracemalloc.start()
    try:
        refused(path, r"member 'arg.a.before' claims 7.3 TiB of data but holds 64 bytes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MiB


def test_a_compressed_bomb_over_the_budget_is_refused_from_the_zip_directory(tmp_path, columns):
    """32 MiB of zeros compress to a few KiB: the budget is checked against what they would take."""
    enlarge(columns, 4 * MiB)
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, **columns)
    assert path.stat().st_size < MiB
    tracemalloc.start()
    try:
        with pytest.raises(OverBudget, match=r"needs 64.0 MiB in memory, over the memory budget of 16.0 MiB; raise"):
            gpuviz.load(path, 16 * MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MiB
    assert gpuviz.load(path, 128 * MiB).before("a").size == 4 * MiB  # a bigger budget reads it


def test_the_budget_comes_from_the_environment(tmp_path, columns, monkeypatch):
    enlarge(columns, MiB)
    path = write_members(tmp_path / "big.npz", columns)
    monkeypatch.setenv("GPUVIZ_MEMORY_BUDGET", "4M")
    with pytest.raises(OverBudget, match="budget of 4.0 MiB"):
        gpuviz.load(path)


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(grid=[-5, 1, 1]), r"meta grid is \[-5, 1, 1\]; it must be 3 whole numbers, each from 1"),
        (dict(grid=[2, 1]), "meta grid is"),
        (dict(block=[1024, 2, 1]), "has 2048 threads"),
        (dict(block=[16, 1, 1]), r"thread.block_idx has shape \(64, 3\); the launch needs \(32, 3\)"),
        (dict(sm_count="many"), "meta sm_count is \"many\""),
        (dict(arrays=[{"name": "a"}]), "meta arrays is"),
        (dict(arrays=[{"name": "a", "space": "global", "shape": [40]}]), "meta arrays is"),
        (dict(kernel=None), "meta kernel is null"),
        (dict(truncated="no"), "meta truncated"),
        (dict(outcomes={"runs": 3, "seeds": []}), "meta outcomes is .*one seed for each"),
    ],
)
def test_corrupt_meta_is_one_line(tmp_path, columns, change, match):
    refused(write_members(tmp_path / "t.npz", with_meta(columns, **change)), match)


def test_missing_meta_fields_and_members(tmp_path, columns):
    meta = json.loads(str(columns["meta"]))
    del meta["grid"]
    refused(write_members(tmp_path / "a.npz", {**columns, "meta": np.array(json.dumps(meta))}), "has no 'grid'")
    del columns["thread.sm"]
    refused(write_members(tmp_path / "b.npz", columns), "it has no thread.sm")


@pytest.mark.parametrize(
    "key, values, match",
    [
        ("thread.warp", np.zeros(10, np.int32), r"thread.warp has shape \(10,\); the launch needs \(64,\)"),
        ("thread.block_idx", np.zeros((64, 3), np.float32), "thread.block_idx holds float32; it must hold int32"),
        ("thread.lane", np.full(64, 40, np.int32), r"thread.lane\[0\] is 40; it must be from 0 to 31"),
        ("thread.block_idx", np.full((64, 3), 1, np.int32), r"thread.block_idx\[0\] is 1; it must be from 0 to 0"),
        ("access.thread", np.full(80, 10**9, np.int32), r"access.thread\[0\] is 1000000000; it must be from 0 to 63"),
        ("access.array", np.full(80, 7, np.int16), r"access.array\[0\] is 7; it must be from 0 to 1"),
        ("access.index", np.full(80, 40, np.int64), r"access.index\[0\] is 40; it must be from 0 to 39"),
        ("access.kind", np.full(80, 9, np.int8), r"access.kind\[0\] is 9; it must be from 0 to 2"),
        ("access.value", np.zeros(79), r"access.value has shape \(79,\); the launch needs \(80,\)"),
        ("access.line", np.zeros(80, "U2"), "access.line holds <U2"),
        ("arg.a.after", np.zeros(3, np.float32), r"arg.a: before is float32\(40,\), after is float32\(3,\)"),
        ("outcome.out.runs", np.zeros((3, 5)), r"outcome.out.runs has shape \(3, 5\)"),
        ("outcome.nothing.runs", np.zeros(3), "not an outcome of an array argument"),
        ("outcome.a.runs", np.zeros(()), r"outcome.a.runs has shape \(\)"),
        ("format", np.array(3), "format must be text"),
        ("meta", np.array("{not json"), "its meta is broken JSON"),
        ("meta", np.array("[" * 100_000), "its meta is broken JSON"),
        ("meta", np.array('{"grid": ' + "1" * 5000 + "}"), "its meta is broken JSON"),
    ],
)
def test_corrupt_columns_are_one_line(tmp_path, columns, key, values, match):
    columns[key] = values
    refused(write_members(tmp_path / "t.npz", columns), match)


def test_a_race_report_naming_a_thread_outside_the_launch_is_dropped(tmp_path, columns):
    """A stored analysis is checked like the columns, but only dropped (and worked out again) when it fails."""
    party = {"block": [0, 0, 0], "thread": [10**9, 0, 0], "line": 7, "access": "write"}
    race = {"array": "out", "space": "global", "index": 0, "kind": "write-write", "scope": "grid",
            "first": party, "second": party, "pairs": 1}  # fmt: skip
    analysis = {"races": {"racy": True, "races": [race], "locations": 1}}
    columns["analysis"] = np.array(json.dumps(analysis))
    trace = gpuviz.load(write_members(tmp_path / "t.npz", columns))
    assert trace.analysis == {} and any("stored analysis was dropped" in w for w in trace.meta["warnings"])


def test_python_objects_and_random_bytes(tmp_path, columns):
    objects = raw_member({"descr": "|O", "fortran_order": False, "shape": (1,)}, b"\x80\x04N.")
    refused(write_raw(tmp_path / "o.npz", columns, {"meta": objects}), "holds Python objects")
    noise = tmp_path / "noise.npz"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    message = refused(noise, "not a zip archive")
    assert "Python objects" not in message
    stray = write_raw(tmp_path / "s.npz", columns, {})
    import zipfile

    with zipfile.ZipFile(stray, "a") as archive:
        archive.writestr("notes.txt", b"hello")
    refused(stray, "member 'notes.txt' is not a NumPy array")


@pytest.mark.parametrize("command", ["info", "races", "render", "open"])
def test_cli_on_corrupt_traces_is_one_line_and_fails(tmp_path, columns, command, capsys):
    bad = write_members(tmp_path / "bad.npz", with_meta(columns, grid=[-5, 1, 1]))
    extra = ["--out", str(tmp_path / "p.png")] if command == "render" else []
    assert main([command, str(bad), *extra]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [captured.err.strip()] and captured.err.startswith("error: bad.npz")
    assert "wrote" not in captured.out and not (tmp_path / "p.png").exists()


def test_cli_max_memory(tmp_path, columns, capsys):
    enlarge(columns, MiB)
    path = write_members(tmp_path / "big.npz", columns)
    assert main(["info", str(path), "--max-memory", "2M"]) == 1
    assert "over the memory budget of 2.0 MiB; raise the budget with --max-memory" in capsys.readouterr().err
    assert main(["info", str(path), "--max-memory", "64M"]) == 0
    assert main(["info", str(path), "--max-memory", "lots"]) == 1
    assert "--max-memory 'lots': give a size such as 2G" in capsys.readouterr().err


def test_info_prints_the_launch_s_own_facts(good, capsys):
    assert main(["info", str(good)]) == 0
    assert "launch   grid=(2, 1, 1) block=(32, 1, 1) threads=64" in capsys.readouterr().out
