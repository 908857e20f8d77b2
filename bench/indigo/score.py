"""Scoring gpuviz's race detector on the Indigo kernels: one kernel on one input gives a Verdict, and a
list of verdicts gives the score in the issue's convention (against the labels) and in HiRace's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import gpuviz
from gpuviz.core.analysis.memcheck import DIVERGENCES
from gpuviz.core.analysis.races import Race, find_races
from indigo.inputs import BLOCKS, THREADS, arguments, graph_path
from indigo.oracle import first_conflict
from indigo.suite import IndigoKernel, kernel_text

# HiRace, SC'24, table 1 (580 kernels run). Its query counts found and missed among the kernels that are
# not boundsBug, yet every row sums to 346 for every tool: the 266 race-bug kernels and the 80 that have a
# race bug and a boundsBug; so the rows compare with found and missed among those 346.
PUBLISHED = {  # input: (HiRace found, missed, iGUARD found, missed, racecheck found, missed)
    "DAG_100n_200e": (346, 0, 298, 48, 92, 254),
    "DAG_200n_400e": (346, 0, 298, 48, 92, 254),
    "DAG_5n_5e": (182, 164, 118, 228, 92, 254),
    "counterDAG_200n_1000e": (346, 0, 298, 48, 56, 290),
    "counterDAG_5n_5e": (295, 51, 148, 198, 92, 254),
    "power_law_200n_1000e": (346, 0, 297, 49, 128, 218),
}


@dataclass(frozen=True)
class Verdict:
    kernel: IndigoKernel
    graph: str
    racy: bool  # racing locations other than same-value writes
    locations: int
    benign: int  # locations where several threads only wrote one same value
    memory_errors: int
    example: str  # the first racing pair, or ""
    seconds: float
    log_has_conflict: bool = False  # the brute-force check of the log (oracle.py) found a racing pair
    failed: str = ""  # why the run did not finish, or ""

    @property
    def flagged(self) -> bool:
        return self.racy or self.benign > 0


def run_kernel(kernel: IndigoKernel, graph: str, seed: int = 0, check: bool = True) -> Verdict:
    """The kernel at the artifact's launch (1,024 blocks of 256 threads) on the simulator, with its races
    and memory errors; `check`: the log is also searched for a racing pair by brute force (not timed)."""
    started = time.perf_counter()
    try:
        launch = gpuviz.trace(kernel_text(kernel), name="test_kernel", backend="sim", level="accesses", seed=seed)
        trace = launch[BLOCKS, THREADS](*arguments(graph_path(graph)))
        report = find_races(trace)
    except gpuviz.GpuvizError as exc:
        return Verdict(kernel, graph, False, 0, 0, 0, "", time.perf_counter() - started,
                       failed=str(exc).splitlines()[0])  # fmt: skip
    errors = trace.error_count - sum(e["kind"] in DIVERGENCES for e in trace.errors)
    example = describe(report.races[0]) if report.races else (describe(report.benign[0]) if report.benign else "")
    seconds = time.perf_counter() - started
    conflict = first_conflict(trace) is not None if check else report.racy or bool(report.benign)
    return Verdict(kernel, graph, report.racy, report.locations, len(report.benign), errors, example, seconds,
                   conflict)  # fmt: skip


def describe(race: Race) -> str:
    """The pair of accesses of a race, in one line."""
    where = f"{race.array}[{race.index}]" + (f" of block {race.block[0]}" if race.block else "")
    return (f"{where} {race.kind}: block {race.first.block[0]} thread {race.first.thread[0]} line {race.first.line} "
            f"{race.first.access}, block {race.second.block[0]} thread {race.second.thread[0]} line "
            f"{race.second.line} {race.second.access}")  # fmt: skip


def score(verdicts: list[Verdict]) -> dict:
    """The figures of one input: against the labels, and in HiRace's convention."""
    race = [v for v in verdicts if v.kernel.group == "race"]
    clean = [v for v in verdicts if v.kernel.group == "clean"]
    bounds = [v for v in verdicts if v.kernel.group == "bounds"]
    not_bounds = race + clean
    labelled = [v for v in verdicts if v.kernel.race_bug]
    return {
        "race_found": sum(v.flagged for v in race), "race_total": len(race),
        "clean_flagged": sum(v.flagged for v in clean), "clean_total": len(clean),
        "bounds_found": sum(v.memory_errors > 0 for v in bounds), "bounds_total": len(bounds),
        "hirace_found": sum(v.flagged for v in not_bounds), "hirace_missed": sum(not v.flagged for v in race),
        # table 1's rows all sum to 346: the kernels with a race bug, boundsBug or not
        "race_label_found": sum(v.flagged for v in labelled),
        "race_label_missed": sum(not v.flagged for v in labelled),
        "failed": sum(bool(v.failed) for v in verdicts), "seconds": sum(v.seconds for v in verdicts),
    }  # fmt: skip
