"""gpuviz's race detector scored on the Indigo race suite on a GPU: the GPU backend (level accesses) records
every kernel at the artifact's launch (1,024 blocks of 256 threads), in batches of worker processes run in
parallel, and the figures are those of bench/indigo_score.py: race-bug kernels found (of 266), no-bug kernels
flagged (of 180), boundsBug kernels with a memory error from the recorded log (of 144), and HiRace's
convention. The GPU backend records with the guard (`--guard`): an access outside its array stops its thread
and is reported as a memory error, where the kernel as numba compiles it would fault. After each recorded
launch that found no such access the backend runs the kernel as numba compiles it, without recording, on
copies of the inputs; for each flagged kernel the bench prints that plain outcome beside the recorded one
where they differ. A kernel whose launch still faults kills its worker's CUDA context: the worker is started
again after it, and the kernel is listed as faulted.
Usage: python bench/indigo_gpu.py [INPUT ...] [--jobs N] [--kernels NAME,NAME] [--json FILE] [--seconds S]
(default: DAG_100n_200e, 16 jobs). `--smoke`: four kernels on DAG_5n_5e at 2 blocks of 32 threads, which
numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) also runs. Last line: `indigo_gpu <input>=<found>/<race
kernels>,<no-bug flagged>/<no-bug kernels>,<bounds found>/<bounds kernels>,faulted=<n> ...`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from indigo.batches import DIED, run_batches, worker_asked  # noqa: E402
from indigo.inputs import BLOCKS, THREADS  # noqa: E402
from indigo.score import Verdict, outcome_line, run_kernel, verdict_of_row, verdict_row  # noqa: E402
from indigo.suite import all_kernels, by_name  # noqa: E402
from indigo_score import report  # noqa: E402

RESULT = "@@result "
SMOKE_KERNELS = ["push_node_neighbors_atomicBug", "push_node_neighbors", "conditional_edge_neighbors_block_syncBug",
                 "conditional_edge_neighbors_boundsBug"]  # fmt: skip


def worker(graph: str, launch: tuple[int, int], names: list[str]) -> None:
    """Each kernel on the GPU backend, its verdict as one JSON line between the markers. Any failure ends the
    worker: a fault leaves the CUDA context unusable, so the next kernel needs a fresh process."""
    for kernel in by_name(names):
        print(f"@@kernel {kernel.name}", flush=True)
        verdict = run_kernel(kernel, graph, backend="gpu", launch=launch)
        print(RESULT + json.dumps(verdict_row(verdict)), flush=True)
        print(f"@@done {kernel.name}", flush=True)
        if verdict.failed:
            sys.exit(3)


def verdict_of(kernel, graph: str, lines: list[str]) -> tuple[Verdict, bool]:
    """(the verdict a worker printed, whether the worker died on this kernel: a fault)."""
    rows = [json.loads(line[len(RESULT) :]) for line in lines if line.startswith(RESULT)]
    died = [line for line in lines if line.startswith(DIED)]
    if rows:
        return verdict_of_row(rows[-1], kernel), bool(died)
    why = next((line for line in reversed(lines) if "Error" in line or "error" in line), died[-1] if died else "")
    return Verdict(kernel, graph, False, 0, 0, 0, "", 0.0, failed=why.strip()[:300] or "no result"), True


def score_input(graph: str, kernels, jobs: int, seconds: float, launch: tuple[int, int]) -> tuple[dict, list]:
    started = time.perf_counter()
    command = lambda names: [sys.executable, __file__, "--worker", graph, f"{launch[0]},{launch[1]}", *names]
    lines = run_batches(command, [k.name for k in kernels], jobs, seconds)
    results = [verdict_of(kernel, graph, lines[kernel.name]) for kernel in kernels]
    verdicts = [v for v, _ in results]
    figures = report(graph, verdicts)
    faulted = [v for v, died in results if died]
    for v in faulted:
        print(f"  faulted ({v.kernel.group}): {v.kernel.name}: {v.failed}")
    for v in verdicts:
        if v.flagged and v.plain_differs:
            print(f"  plain beside recorded: {v.kernel.name}: {outcome_line(v)}")
    differ = sum(bool(v.plain_differs) for v in verdicts if v.flagged)
    print(f"  plain and recorded outcomes differ for {differ} of the {sum(v.flagged for v in verdicts)} flagged "
          f"kernels; {len(faulted)} launches faulted; wall time {time.perf_counter() - started:.0f} s")  # fmt: skip
    figures.update(faulted=len(faulted), wall_seconds=round(time.perf_counter() - started, 1))
    return figures, verdicts


def parse(argv: list[str]) -> dict:
    options = {"inputs": [], "jobs": 16, "names": None, "json": None, "seconds": 540.0, "launch": (BLOCKS, THREADS)}
    args = iter(argv)
    for arg in args:
        if arg == "--smoke":
            options.update(inputs=["DAG_5n_5e"], names=SMOKE_KERNELS, jobs=2, launch=(2, 32))
        elif arg in ("--jobs", "--kernels", "--json", "--seconds"):
            value = next(args, None)
            if value is None:
                raise SystemExit(f"{arg} needs a value")
            key = {"--kernels": "names"}.get(arg, arg[2:])
            options[key] = value.split(",") if key == "names" else value if key == "json" else float(value)
        elif arg.startswith("-"):
            raise SystemExit(f"unknown option {arg}; use INPUT ..., --jobs N, --kernels NAME,NAME, --json FILE, "
                             "--seconds S or --smoke")  # fmt: skip
        else:
            options["inputs"].append(arg)
    options["inputs"] = options["inputs"] or ["DAG_100n_200e"]
    options["jobs"] = int(options["jobs"])
    return options


def main(argv: list[str]) -> int:
    if worker_asked(argv, worker):
        return 0
    options = parse(argv)
    kernels = by_name(options["names"]) if options["names"] else all_kernels()
    results, last = {}, []
    for graph in options["inputs"]:
        figures, verdicts = score_input(graph, kernels, options["jobs"], options["seconds"], options["launch"])
        results[graph] = {**figures, "kernels": [verdict_row(v) for v in verdicts]}
        f = figures
        last.append(f"{graph}={f['race_found']}/{f['race_total']},{f['clean_flagged']}/{f['clean_total']},"
                    f"{f['bounds_found']}/{f['bounds_total']},faulted={f['faulted']}")  # fmt: skip
    if options["json"]:
        Path(options["json"]).write_text(json.dumps(results, indent=1) + "\n")
    print("indigo_gpu " + " ".join(last))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
