"""The stored `analysis` member is not trusted: it is checked against the trace's arrays, elements,
threads and lines, its declared size before it is inflated; one that fails is dropped with one line and
worked out again, so the CLI and the Memory view only ever see an analysis that fits the trace."""

import json
import time

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core.analysis.report import analyse
from gpuviz.core.trace import reader
from gpuviz.core.trace.analysis_schema import MAX_ANALYSIS_BYTES, checked_analysis

from .trace_files import good_trace, members, write_members


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return good_trace(tmp_path_factory.mktemp("good"))


@pytest.fixture
def columns(good):
    return members(good)


def real_analysis(good) -> dict:
    return analyse(gpuviz.load(good))


def party(thread=(0, 0, 0)):
    return {"block": [0, 0, 0], "thread": list(thread), "line": 7, "access": "write"}


def race(array="out", index=0, thread=(0, 0, 0)):
    return {"array": array, "space": "global", "index": index, "kind": "WAW", "scope": "same warp",
            "first": party(thread), "second": party(), "pairs": 1}  # fmt: skip


def races(*described):
    return {"racy": True, "races": list(described), "benign": [], "truncated": False, "locations": len(described),
            "racy_arrays": ["out"], "barrier_divergence": []}  # fmt: skip


def load_with(tmp_path, columns, analysis) -> gpuviz.Trace:
    columns["analysis"] = np.array(analysis if isinstance(analysis, str) else json.dumps(analysis))
    return gpuviz.load(write_members(tmp_path / "t.npz", columns))


def dropped(trace) -> str:
    lines = [w for w in trace.meta["warnings"] if "stored analysis was dropped" in w]
    assert trace.analysis == {} and len(lines) == 1 and "\n" not in lines[0], trace.meta["warnings"]
    return lines[0]


def test_a_real_analysis_holds_up(good):
    analysis = real_analysis(good)
    assert checked_analysis(json.loads(json.dumps(analysis)), gpuviz.load(good).meta) == (analysis, "")


@pytest.mark.parametrize(("analysis", "words"), [
    ("{not json", "broken JSON"),
    ([1, 2], "not a JSON object"),
    ({"memory": {"occupancy": {}}}, "occupancy_theoretical"),
    ({"memory": 3}, "memory is not a table"),
    ({"races": races(race(array="nosuch", index=10**15))}, "array 'nosuch'"),
    ({"races": races(race(index=10**15))}, "element 1,000,000,000,000,000 of out"),
    ({"races": races(race(thread=(10**9, 0, 0)))}, "outside the launch"),
    ({"races": {"races": [1]}}, "races has no bool 'racy'"),
    ({"races": races(*[race()] * 2001)}, "2,001 stored races"),
    ({"surprise": 1}, "unknown entry 'surprise'"),
], ids=["json", "list", "memory keys", "memory type", "no array", "element", "thread", "layout", "many",
        "entry"])  # fmt: skip
def test_a_damaged_analysis_is_dropped_with_one_line(tmp_path, columns, analysis, words):
    assert words in dropped(load_with(tmp_path, columns, analysis))


def test_a_memory_row_on_an_unknown_array_is_dropped(tmp_path, columns, good):
    analysis = real_analysis(good)
    analysis["memory"]["lines"][0]["array"] = "ghost"
    assert "array 'ghost'" in dropped(load_with(tmp_path, columns, analysis))


def test_a_huge_analysis_member_is_never_inflated(tmp_path, columns, monkeypatch):
    read = reader._read

    def never_the_analysis(archive, member, name):
        assert member.name != "analysis", "the analysis member was inflated"
        return read(archive, member, name)

    monkeypatch.setattr(reader, "_read", never_the_analysis)
    chars = MAX_ANALYSIS_BYTES // 4 + 1  # UTF-32: just over the limit
    trace = load_with(tmp_path, columns, '{"x": "' + "a" * chars + '"}')
    assert "an analysis may take" in dropped(trace)


def test_many_stored_races_are_refused_quickly(tmp_path, columns):
    began = time.monotonic()
    dropped(load_with(tmp_path, columns, {"races": races(*[race()] * 300_000)}))
    assert time.monotonic() - began < 10


def test_memory_json_works_the_analysis_out_again(tmp_path, columns, capsys):
    load_with(tmp_path, columns, {"memory": {"occupancy": {}}, "races": None})
    assert main(["memory", str(tmp_path / "t.npz"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["occupancy"]["theoretical"]["blocks"] >= 1  # worked out, not the damaged member


def test_the_memory_view_shows_a_trace_whose_analysis_was_damaged(qtbot, tmp_path, columns):
    pytest.importorskip("PySide6", reason="the app's tests need PySide6")
    from gpuviz.app.views.table import make_view
    from gpuviz.core.analysis.report import as_trace
    from gpuviz.scene.state import AppState

    load_with(tmp_path, columns, {"memory": {"occupancy": {"theoretical": {}}}})
    trace = as_trace(tmp_path / "t.npz")  # what the app does with a loaded trace: the analysis comes back
    state = AppState()
    view = make_view("memory", state)
    qtbot.addWidget(view)
    state.set_trace(trace)
    assert view.table.rowCount() == len(trace.analysis["memory"]["lines"]) > 0


@pytest.mark.parametrize("command", ["info", "races"])
def test_a_meta_claiming_an_array_of_10_to_the_12_is_one_line(tmp_path, columns, capsys, command):
    meta = json.loads(str(columns["meta"]))
    meta["arrays"][1]["shape"] = [10**12]
    columns["meta"] = np.array(json.dumps(meta))
    path = write_members(tmp_path / "t.npz", columns)
    assert main([command, str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "out has shape (1000000000000,)" in err
