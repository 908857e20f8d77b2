"""Scoring gpuviz's race detector on the Indigo kernels: one kernel on one input gives a Verdict, and a
list of verdicts gives the score in the issue's convention (against the labels) and in HiRace's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import gpuviz
from gpuviz.core.analysis.memcheck import DIVERGENCES
from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.analysis.races import Race, find_races
from gpuviz.core.trace.model import Trace
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
    # flagged kernels only, per global array: (array, elements that lost writes, writes lost)
    lost: tuple[tuple[str, int, int], ...] = ()
    # with `serial`: (array, elements whose final value neither serial order gives)
    unlike_serial: tuple[tuple[str, int], ...] = ()
    # GPU backend: (array, elements where the kernel run without recording ended unlike the recorded run,
    # the first of them: "[k] recorded r, without recording p, ...")
    plain_differs: tuple[tuple[str, int, str], ...] = ()

    @property
    def flagged(self) -> bool:
        return self.racy or self.benign > 0


def run_kernel(kernel: IndigoKernel, graph: str, seed: int = 0, check: bool = True, backend: str = "sim",
               launch: tuple[int, int] = (BLOCKS, THREADS), serial: bool = False) -> Verdict:  # fmt: skip
    """The kernel at the artifact's launch (1,024 blocks of 256 threads) on the simulator or the GPU backend,
    with its races and memory errors; `check`: the log is also searched for a racing pair by brute force
    (not timed); `serial` (simulator): a flagged kernel also runs one thread at a time, in both orders."""
    started = time.perf_counter()
    arguments_ = arguments(graph_path(graph))
    try:
        # on the GPU with the guard: a kernel that reaches far outside an array is stopped and reported, where
        # as numba compiles it it would fault and leave no trace (docs/gpu.md, "Out-of-bounds accesses")
        traced = gpuviz.trace(kernel_text(kernel), name="test_kernel", backend=backend, level="accesses", seed=seed,
                              guard=backend == "gpu")  # fmt: skip
        trace = traced[launch](*arguments_)
        report = find_races(trace)
    except gpuviz.GpuvizError as exc:
        return Verdict(kernel, graph, False, 0, 0, 0, "", time.perf_counter() - started,
                       failed=str(exc).splitlines()[0])  # fmt: skip
    errors = trace.error_count - sum(e["kind"] in DIVERGENCES for e in trace.errors)
    example = describe(report.races[0]) if report.races else (describe(report.benign[0]) if report.benign else "")
    seconds = time.perf_counter() - started
    flagged = report.racy or bool(report.benign)
    conflict = first_conflict(trace) is not None if check else flagged
    unlike = unlike_serial(kernel, trace, launch, arguments_) if serial and flagged and backend == "sim" else ()
    return Verdict(kernel, graph, report.racy, report.locations, len(report.benign), errors, example, seconds,
                   conflict, lost=lost_writes(trace) if flagged else (), unlike_serial=unlike,
                   plain_differs=plain_differs(trace))  # fmt: skip


def lost_writes(trace: Trace) -> tuple[tuple[str, int, int], ...]:
    """Per global array that lost writes: (array, elements that lost some, writes lost), as the schedule of
    this run gives them (core/analysis/outcomes.py: a write whose value no later value was computed from)."""
    found = []
    for name, lost in lost_updates(trace).items():
        if lost.any():
            found.append((name, int(np.count_nonzero(lost)), int(lost.sum())))
    return tuple(found)


def unlike_serial(kernel: IndigoKernel, trace: Trace, launch: tuple[int, int], args: tuple) -> tuple:
    """Per array: elements whose final value is neither the one of a run with one thread at a time in
    thread order nor in reverse order (two orders, since some kernels' threads depend on each other's)."""
    finals = []
    for schedule in ("sequential", "reversed"):
        traced = gpuviz.trace(kernel_text(kernel), name="test_kernel", backend="sim", level="threads",
                              schedule=schedule)  # fmt: skip
        finals.append(traced[launch](*args))
    found = []
    for name in trace.args:
        after = trace.after(name)
        unlike = (after != finals[0].after(name)) & (after != finals[1].after(name))
        if unlike.any():
            found.append((name, int(np.count_nonzero(unlike))))
    return tuple(found)


def plain_differs(trace: Trace, shown: int = 3) -> tuple[tuple[str, int, str], ...]:
    """GPU traces: per array, the elements where the kernel as numba compiles it (no recording, run first on
    copies of the inputs) ended unlike the recorded run, and the first few of them side by side; () on the
    simulator, which keeps no plain run."""
    found = []
    for name in trace.args:
        plain = trace.outcomes.get(f"{name}.plain")
        if plain is None:
            continue
        recorded, plain = trace.after(name).reshape(-1), plain.reshape(-1)
        differ = np.flatnonzero(recorded != plain)
        if len(differ):
            first = ", ".join(f"[{k}] recorded {recorded[k]}, without recording {plain[k]}" for k in differ[:shown])
            found.append((name, len(differ), first))
    return tuple(found)


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


def verdict_row(v: Verdict) -> dict:
    """A verdict as JSON (the kernel by name): the bench's --json rows and a GPU worker's output."""
    return {"kernel": v.kernel.name, "graph": v.graph, "racy": v.racy, "locations": v.locations,
            "benign": v.benign, "memory_errors": v.memory_errors, "example": v.example,
            "seconds": round(v.seconds, 3), "log_has_conflict": v.log_has_conflict, "failed": v.failed,
            "flagged": v.flagged, "lost": v.lost, "unlike_serial": v.unlike_serial,
            "plain_differs": v.plain_differs}  # fmt: skip


def verdict_of_row(row: dict, kernel: IndigoKernel) -> Verdict:
    tuples = {key: tuple(tuple(item) for item in row[key]) for key in ("lost", "unlike_serial", "plain_differs")}
    return Verdict(kernel, row["graph"], row["racy"], row["locations"], row["benign"], row["memory_errors"],
                   row["example"], row["seconds"], row["log_has_conflict"], row["failed"], **tuples)  # fmt: skip


def outcome_line(v: Verdict) -> str:
    """What a flagged kernel's race did, in one line: lost writes, and the final values against the serial
    orders and (GPU) against the kernel run without recording."""
    parts = [f"{name} lost {writes} writes at {elements} elements" for name, elements, writes in v.lost]
    parts += [f"{name} unlike both serial orders at {n} elements" for name, n in v.unlike_serial]
    parts += [f"{name} without recording differs at {n} elements ({first})" for name, n, first in v.plain_differs]
    return "; ".join(parts) or "no write lost"


def outcome_summary(verdicts: list[Verdict]) -> str:
    """One line over the flagged kernels: how many lost writes, and how many ended unlike a serial run."""
    flagged = [v for v in verdicts if v.flagged]
    losing = [v for v in flagged if v.lost]
    writes = sum(w for v in losing for _, _, w in v.lost)
    elements = sum(e for v in losing for _, e, _ in v.lost)
    line = f"{len(losing)} of the {len(flagged)} flagged kernels lost writes ({writes} writes at {elements} elements)"
    if any(v.unlike_serial for v in flagged):
        line += f"; {sum(bool(v.unlike_serial) for v in flagged)} ended unlike both serial orders"
    return line
