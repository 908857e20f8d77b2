"""gpuviz's race detector scored on the Indigo race suite (bench/indigo), on the simulator.

Every kernel runs at the artifact's launch (1,024 blocks of 256 threads) on each input, one at a time.
Per input it prints, against the labels: race-bug kernels found (of the 266 that are not boundsBug),
no-bug kernels flagged (of 180), each with its first racing pair, and boundsBug kernels found by the
memory-error check (of 144); then the same run in HiRace's convention (flagged and missed among the
446 that are not boundsBug) beside HiRace's published table 1. A kernel the detector passes is checked
by brute force (bench/indigo/oracle.py): "no racing pair in the log" means the race did not happen in
that run. "flagged" counts benign races too (several threads writing one same value).

For every flagged kernel it counts the writes the race lost (item 5 of the issue: per element, the writes no
later value was computed from, as the simulator's schedule gives them); `--outcomes` prints them per kernel
and also runs each flagged kernel one thread at a time in both orders, counting the elements whose final value
neither order gives.

Usage: python bench/indigo_score.py [INPUT ...] [--kernels NAME,NAME] [--json FILE] [--outcomes]
(default: the six inputs; `--smoke`: six kernels on DAG_5n_5e). Last line: `indigo <input>=<found>/<race
kernels>,<no-bug flagged>/<no-bug kernels> ...`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from indigo.inputs import GRAPHS  # noqa: E402
from indigo.score import PUBLISHED, Verdict, outcome_line, outcome_summary, run_kernel, score, verdict_row  # noqa: E402
from indigo.suite import all_kernels, by_name  # noqa: E402

SMOKE_KERNELS = ["push_node_neighbors_atomicBug", "push_node_neighbors", "path_compression_raceBug",
                 "conditional_edge_neighbors_block_syncBug", "conditional_edge_neighbor_boundsBug_last",
                 "conditional_vertex_neighbors_warp"]  # fmt: skip


def parse(argv: list[str]) -> tuple[list[str], list[str] | None, str | None, bool]:
    inputs, names, out, outcomes = [], None, None, False
    args = iter(argv)
    for arg in args:
        if arg == "--smoke":
            inputs, names = ["DAG_5n_5e"], SMOKE_KERNELS
        elif arg == "--outcomes":
            outcomes = True
        elif arg in ("--kernels", "--json"):
            value = next(args, None)
            if value is None:
                raise SystemExit(f"{arg} needs a value: --kernels NAME,NAME or --json FILE")
            names, out = (value.split(","), out) if arg == "--kernels" else (names, value)
        elif arg.startswith("-"):
            raise SystemExit(f"unknown option {arg}; use INPUT ..., --kernels NAME,NAME, --json FILE, --outcomes "
                             "or --smoke")  # fmt: skip
        else:
            inputs.append(arg)
    return inputs or sorted(p.stem for p in GRAPHS.glob("*.egr")), names, out, outcomes


def report(graph: str, verdicts: list[Verdict], outcomes: bool = False) -> dict:
    figures = score(verdicts)
    f = figures
    print(f"{graph}: race-bug kernels found {f['race_found']}/{f['race_total']}; no-bug kernels flagged "
          f"{f['clean_flagged']}/{f['clean_total']}; boundsBug found by the memory check "
          f"{f['bounds_found']}/{f['bounds_total']}; {f['seconds']:.0f} s ({f['failed']} failed)")  # fmt: skip
    published = PUBLISHED.get(graph)
    beside = (f" (published: HiRace {published[0]}/{published[1]}, iGUARD {published[2]}/{published[3]}, "
              f"racecheck {published[4]}/{published[5]})") if published else ""  # fmt: skip
    not_bounds, labelled = f["race_total"] + f["clean_total"], f["race_label_found"] + f["race_label_missed"]
    print(f"  HiRace's convention: flagged {f['hirace_found']} of the {not_bounds} not boundsBug, missed "
          f"{f['hirace_missed']}; among the {labelled} with a race bug: found {f['race_label_found']}, "
          f"missed {f['race_label_missed']}{beside}")  # fmt: skip
    for v in verdicts:
        if v.kernel.group == "clean" and v.flagged:
            judged = "the log holds this pair" if v.log_has_conflict else "no such pair in the log: a false alarm"
            print(f"  no-bug flagged: {v.kernel.name}: {v.example} ({judged})")
        if v.kernel.race_bug and not v.flagged and not v.failed:
            why = "the analysis missed a racing pair!" if v.log_has_conflict else "no racing pair in the log"
            print(f"  missed: {v.kernel.name} ({'+'.join(v.kernel.bugs)}): {why}")
        if v.kernel.group == "bounds" and not v.memory_errors and not v.failed:
            print(f"  boundsBug not out of bounds in this run: {v.kernel.name}")
        if v.failed:
            print(f"  failed: {v.kernel.name}: {v.failed}")
        if outcomes and v.flagged:
            print(f"  outcome: {v.kernel.name}: {outcome_line(v)}")
    print(f"  lost writes: {outcome_summary(verdicts)}")
    return figures


def main(argv: list[str]) -> int:
    inputs, names, out, outcomes = parse(argv)
    kernels = by_name(names) if names else all_kernels()
    results, last = {}, []
    for graph in inputs:
        started = time.perf_counter()
        verdicts = [run_kernel(kernel, graph, serial=outcomes) for kernel in kernels]
        results[graph] = report(graph, verdicts, outcomes)
        results[graph]["wall_seconds"] = round(time.perf_counter() - started, 1)
        print(f"  wall time with the brute-force checks of the logs: {results[graph]['wall_seconds']:.0f} s")
        results[graph]["kernels"] = [verdict_row(v) for v in verdicts]
        f = results[graph]
        last.append(f"{graph}={f['race_found']}/{f['race_total']},{f['clean_flagged']}/{f['clean_total']}")
    if out:
        Path(out).write_text(json.dumps(results, indent=1) + "\n")
    print("indigo " + " ".join(last))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
