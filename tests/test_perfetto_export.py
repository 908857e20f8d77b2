"""`gpuviz export --format perfetto`: the Chrome trace-event JSON format held to what viewers need, on
simulator traces (with races, several waves) and recorded GPU traces (times in ns)."""

import json
from collections import defaultdict
from pathlib import Path

import pytest

from gpuviz.cli import main
from tests.finding_scripts import SCRIPTS

GPU_TRACES = sorted((Path(__file__).parent / "data" / "gpu").glob("*.npz"))
RACECHECK = Path(__file__).parent / "data" / "racecheck" / "block_sum_missing_barrier.py"
WAVES = SCRIPTS["clean"].replace("a = np.arange(64", "a = np.arange(64 * 256").replace("add[2, 32]", "add[64, 256]")
NEEDS = {"X": ("name", "ts", "dur", "pid", "tid"), "C": ("name", "ts", "pid", "args"),
         "s": ("name", "id", "ts", "pid", "tid", "cat"), "f": ("name", "id", "ts", "pid", "tid", "cat", "bp"),
         "M": ("name", "pid", "args")}  # fmt: skip


@pytest.fixture(scope="module")
def sim_traces(tmp_path_factory):
    folder = tmp_path_factory.mktemp("perfetto")
    scripts = {"races": SCRIPTS["races"], "waves": WAVES, "shared": RACECHECK.read_text()}
    found = {}
    for name, text in scripts.items():
        (folder / f"{name}.py").write_text(text)
        flags = ["--sms", "2"] if name == "waves" else []
        assert main(["run", str(folder / f"{name}.py"), "--backend", "sim", "--out", str(folder / name), *flags]) == 0
        found[name] = next((folder / name).glob("*.npz"))
    return found


def export(trace: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"{trace.stem}.json"
    assert main(["export", str(trace), "--format", "perfetto", "--out", str(out)]) == 0
    return json.loads(out.read_text())  # strict JSON: no NaN, no Infinity


def check_format(document: dict) -> dict[str, list[dict]]:
    """What Perfetto's and Chrome's JSON importers need; the events by phase."""
    by_phase = defaultdict(list)
    for event in document["traceEvents"]:
        assert event["ph"] in NEEDS, event
        assert all(key in event for key in NEEDS[event["ph"]]), event
        assert isinstance(event["pid"], int) and isinstance(event.get("tid", 0), int)
        if "ts" in event:
            assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0
        by_phase[event["ph"]].append(event)
    for event in by_phase["X"]:
        assert event["dur"] >= 0
    for event in by_phase["C"]:
        assert event["args"] and all(isinstance(v, (int, float)) for v in event["args"].values())
    for event in by_phase["M"]:
        assert event["name"] in ("process_name", "process_sort_index", "thread_name", "thread_sort_index")
        if event["name"].startswith("thread"):
            assert "tid" in event
    return by_phase


def assert_no_overlap(slices: list[dict]) -> None:
    tracks = defaultdict(list)
    for event in slices:
        tracks[event["pid"], event["tid"]].append((event["ts"], event["ts"] + event["dur"]))
    for spans in tracks.values():
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert start >= end, (spans, start, end)


def assert_flows_paired(by_phase: dict, document: dict) -> None:
    starts = {e["id"]: e for e in by_phase["s"]}
    finishes = {e["id"]: e for e in by_phase["f"]}
    assert starts.keys() == finishes.keys() and len(starts) == len(by_phase["s"]) == len(by_phase["f"])
    slices = defaultdict(list)
    for event in by_phase["X"]:
        slices[event["pid"], event["tid"]].append((event["ts"], event["ts"] + event["dur"]))
    for flow_id, start in starts.items():
        finish = finishes[flow_id]
        assert start["ts"] <= finish["ts"] and finish["bp"] == "e"
        for end in (start, finish):  # each end lies in a slice of its track, which it binds to
            assert any(a <= end["ts"] <= b for a, b in slices[end["pid"], end["tid"]]), end


def test_simulator_exports_hold_the_format(sim_traces, tmp_path):
    for name, trace in sim_traces.items():
        document = export(trace, tmp_path)
        by_phase = check_format(document)
        assert_no_overlap(by_phase["X"])
        assert_flows_paired(by_phase, document)
        assert document["otherData"]["time_unit"] == "tick"
        if name in ("races", "shared"):
            assert by_phase["s"], name


def test_every_warp_is_one_slice_and_every_sm_named(sim_traces, tmp_path):
    import gpuviz

    trace = gpuviz.load(sim_traces["waves"])
    by_phase = check_format(export(sim_traces["waves"], tmp_path))
    assert len(by_phase["X"]) == 64 * 256 // 32
    assert sum(e["args"]["threads"] for e in by_phase["X"]) == trace.n_threads
    sms = {int(s) for s in trace.threads["sm"]}
    named = {e["pid"]: e["args"]["name"] for e in by_phase["M"] if e["name"] == "process_name"}
    assert named == {sm + 1: f"SM {sm}" for sm in sms}
    assert max(e["args"]["wave"] for e in by_phase["X"]) >= 1  # 64 blocks on 2 SMs come in waves


def test_counters_follow_the_warps(sim_traces, tmp_path):
    by_phase = check_format(export(sim_traces["waves"], tmp_path))
    for pid in {e["pid"] for e in by_phase["X"]}:
        counter = sorted((e["ts"], e["args"]["warps"]) for e in by_phase["C"] if e["pid"] == pid)
        slices = [e for e in by_phase["X"] if e["pid"] == pid]
        for ts, warps in counter:  # the counter is the slices running just after ts
            assert warps == sum(1 for e in slices if e["ts"] <= ts < e["ts"] + e["dur"])
        assert counter[-1][1] == 0


@pytest.mark.parametrize("trace", GPU_TRACES, ids=lambda p: p.stem)
def test_recorded_gpu_exports_hold_the_format(trace, tmp_path):
    document = export(trace, tmp_path)
    by_phase = check_format(document)
    assert_no_overlap(by_phase["X"])
    assert_flows_paired(by_phase, document)
    assert document["otherData"]["time_unit"] == "ns" and document["otherData"]["microseconds_per_unit"] == 1e-3


def test_a_file_name_other_than_json_is_one_line(sim_traces, tmp_path, capsys):
    assert main(["export", str(sim_traces["races"]), "--out", str(tmp_path / "t.txt")]) == 1
    assert capsys.readouterr().err.strip() == "error: cannot export to t.txt: give a .json file name"
