"""`gpuviz races --format sanitizer` against a real compute-sanitizer racecheck capture of the same kernel
(tests/data/racecheck/: an NVIDIA H200, Compute Sanitizer 2025.3.1, 2026-11-26): the same regular expressions
read both, and they count the same hazards."""

import re
from pathlib import Path

import pytest

from gpuviz.cli import main

DATA = Path(__file__).parent / "data" / "racecheck"
SCRIPT = DATA / "block_sum_missing_barrier.py"

# What a log parser written for racecheck matches (bench/racecheck_compare.py uses the first).
ANY_HAZARD = re.compile(r"(Error|Warning): .*(Race|hazard)", re.I)
HAZARD = re.compile(r"^========= (Error|Warning): (\(Warp Level Programming\) )?Potential (RAW|WAR|WAW) hazard "
                    r"detected at __(shared|global)__ 0x[0-9a-f]+ in block \((\d+),(\d+),(\d+)\) :$")  # fmt: skip
THREAD = re.compile(r"^=========     (Read|Write|Atomic) Thread \((\d+),(\d+),(\d+)\)( in block \(\d+,\d+,\d+\))? "
                    r"at .+ in ([\w.]+):(\d+)$")  # fmt: skip
PAIR = re.compile(r"^========= (Error|Warning): Race reported between (Read|Write|Atomic) access at .+$")
AND = re.compile(r"^=========     and (Read|Write|Atomic) access at .+ in ([\w.]+):(\d+) \[(\d+) hazards\]$")
SUMMARY = re.compile(r"^========= RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)$")


def parse(text: str) -> dict:
    """What a racecheck log parser takes from a report: hazards, their threads and lines, the summary."""
    lines = text.splitlines()
    found = {"hazards": [], "threads": [], "pairs": [], "summary": None}
    for line in lines:
        if HAZARD.match(line):
            found["hazards"].append(HAZARD.match(line).groups())
        elif THREAD.match(line):
            found["threads"].append(THREAD.match(line).groups())
        elif AND.match(line):
            found["pairs"].append(AND.match(line).groups())
        elif SUMMARY.match(line):
            found["summary"] = tuple(int(n) for n in SUMMARY.match(line).groups())
    found["any"] = sum(1 for line in lines if ANY_HAZARD.search(line))
    found["header"] = lines[0] if lines else ""
    return found


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    out = tmp_path_factory.mktemp("racecheck")
    assert main(["run", str(SCRIPT), "--backend", "sim", "--out", str(out)]) == 0
    return str(next(out.glob("*.npz")))


def ours(trace: str, mode: str, capsys) -> str:
    capsys.readouterr()
    assert main(["races", trace, "--format", "sanitizer", "--racecheck-report", mode]) == 0
    return capsys.readouterr().out


def test_hazard_layout_reads_like_racecheck_and_counts_its_hazards(trace, capsys):
    real, mine = parse((DATA / "racecheck_hazard.txt").read_text()), parse(ours(trace, "hazard", capsys))
    assert real["header"] == mine["header"] == "========= COMPUTE-SANITIZER"
    assert real["hazards"] and mine["hazards"]
    assert {h[:4] for h in mine["hazards"]} == {h[:4] for h in real["hazards"]}  # warp-level RAW on shared memory
    assert len(mine["threads"]) == 2 * len(mine["hazards"]) and len(real["threads"]) == 2 * len(real["hazards"])
    assert {t[5:] for t in real["threads"]} == {("lineinfo.py", "20")}  # the capture ran a copy named so
    assert {t[5:] for t in mine["threads"]} == {(SCRIPT.name, "20")}
    # racecheck counts a hazard per byte: 62 racing float32 elements are its 248 warnings
    assert real["summary"] == (4, 0, 248)  # four displayed: it ran with --print-limit 4
    assert mine["summary"][1:] == real["summary"][1:] and mine["summary"][0] == len(mine["hazards"]) == 62
    assert mine["any"] == len(mine["hazards"])


def test_analysis_layout_reads_like_racecheck_and_counts_its_hazards(trace, capsys):
    real_text, mine_text = (DATA / "racecheck_analysis.txt").read_text(), ours(trace, "analysis", capsys)
    real, mine = parse(real_text), parse(mine_text)
    assert sum(PAIR.match(line) is not None for line in mine_text.splitlines()) == len(mine["pairs"]) == 1
    assert sum(PAIR.match(line) is not None for line in real_text.splitlines()) == len(real["pairs"]) == 5
    # racecheck gives one entry per pair of instructions (the loop is unrolled: five), gpuviz one per pair of
    # source lines; the hazards add up to the same 248
    assert sum(int(p[3]) for p in real["pairs"]) == sum(int(p[3]) for p in mine["pairs"]) == 248
    assert mine["summary"] == (1, 0, 1) and real["summary"] == (5, 0, 5)


def test_a_launch_without_races_has_only_the_summary(tmp_path, capsys):
    from tests.finding_scripts import SCRIPTS

    script = tmp_path / "clean.py"
    script.write_text(SCRIPTS["clean"])
    main(["run", str(script), "--backend", "sim", "--out", str(tmp_path)])
    capsys.readouterr()
    main(["races", str(next(tmp_path.glob("*.npz"))), "--format", "sanitizer"])
    assert capsys.readouterr().out.splitlines() == [
        "========= COMPUTE-SANITIZER",
        "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
    ]
