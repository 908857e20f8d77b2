"""The Indigo race suite under NVIDIA's compute-sanitizer: which kernels `--tool racecheck` reports (it
checks shared memory only, so races on global memory are outside what it looks at), and which `--tool
memcheck` reports (out-of-bounds and misaligned accesses), each kernel as numba compiles it, at the
artifact's launch (1,024 blocks of 256 threads). One compute-sanitizer process runs a batch of kernels, one
after another, printing a marker before and after each; the batches run in parallel (bench/indigo/batches.py).
A memcheck error ends the kernel and its process's CUDA context: the batch goes on in a new process.

Usage: python bench/indigo_sanitizer.py [racecheck|memcheck] [INPUT ...] [--groups race,bounds,clean]
[--kernels NAME,NAME] [--jobs N] [--sanitizer PATH] [--seconds S] [--json FILE]
(default: racecheck, DAG_100n_200e, every group, 16 jobs). `--smoke`: three kernels on DAG_5n_5e at 2
blocks of 32 threads; with `--sanitizer none` the kernels run without a sanitizer (numba's CUDA simulator
runs that). Last line: `indigo_sanitizer <tool> <input>=race:<n>/<m>,bounds:<n>/<m>,clean:<n>/<m> ...`
(kernels reported / kernels run, by group).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from indigo.batches import DIED, run_batches, worker_asked  # noqa: E402
from indigo.inputs import BLOCKS, GRAPHS, THREADS, arguments, graph_path  # noqa: E402
from indigo.suite import all_kernels, by_name, kernel_text  # noqa: E402

# What a report line of each tool starts with (after compute-sanitizer's "========= " prefix)
REPORTS = {
    "racecheck": re.compile(r"(Error|Warning): (Race reported|.*hazard detected)"),
    "memcheck": re.compile(r"(Invalid __(global|shared|local)__|Misaligned)"),
}
# racecheck goes on after a report, so every kernel's reports must print; memcheck's first error ends the
# kernel's CUDA context anyway, and printing every thread's error took about 15 s a kernel on the H200
PRINT_LIMIT = {"racecheck": 1_000_000, "memcheck": 1}
GROUPS = ("race", "bounds", "clean")
SMOKE_KERNELS = ["conditional_edge_neighbors_block_syncBug", "push_node_neighbors",
                 "conditional_edge_neighbor_boundsBug_last"]  # fmt: skip


def worker(graph: str, launch: tuple[int, int], names: list[str]) -> None:
    """Each kernel as numba compiles it (no gpuviz), launched once on the input, between markers."""
    from numba import cuda

    host = arguments(graph_path(graph))
    for kernel in by_name(names):
        print(f"@@kernel {kernel.name}", flush=True)
        namespace: dict = {}
        exec(compile(kernel_text(kernel), f"<{kernel.name}>", "exec"), namespace)
        args = [cuda.to_device(a) if hasattr(a, "shape") and a.shape else a for a in host]
        namespace["test_kernel"][launch](*args)
        cuda.synchronize()
        print(f"@@done {kernel.name}", flush=True)


def reports(tool: str, lines: list[str]) -> list[str]:
    """The tool's report lines among a kernel's output."""
    return [line.strip("= ").strip() for line in lines if REPORTS[tool].search(line)]


def run_tool(tool: str, graph: str, kernels, options: dict) -> dict:
    sanitizer, launch = options["sanitizer"], options["launch"]
    command = [] if sanitizer == "none" else [sanitizer, "--tool", tool, "--print-limit", str(PRINT_LIMIT[tool])]
    run = lambda names: [*command, sys.executable, __file__, "--worker", graph, f"{launch[0]},{launch[1]}", *names]
    started = time.perf_counter()
    lines = run_batches(run, [k.name for k in kernels], options["jobs"], options["seconds"])
    rows = []
    for kernel in kernels:
        mine = lines[kernel.name]
        found = reports(tool, mine)
        died = next((line[len(DIED) :] for line in mine if line.startswith(DIED)), "")
        rows.append({"kernel": kernel.name, "group": kernel.group, "reported": bool(found), "reports": len(found),
                     "first": found[0][:200] if found else "", "ended": died})  # fmt: skip
    seconds = time.perf_counter() - started
    summary = {g: (sum(r["reported"] for r in rows if r["group"] == g), sum(r["group"] == g for r in rows))
               for g in GROUPS}  # fmt: skip
    print(f"{tool} on {graph}: " + "; ".join(f"{g} kernels reported {n}/{m}" for g, (n, m) in summary.items() if m)
          + f"; {seconds:.0f} s")  # fmt: skip
    ended = [r for r in rows if r["ended"] and not r["reported"]]
    for r in ended:
        print(f"  ended without a report ({r['group']}): {r['kernel']}: {r['ended']}")
    for r in rows:
        if r["reported"] and r["group"] == "clean":
            print(f"  no-bug kernel reported: {r['kernel']}: {r['first']}")
    return {"summary": summary, "seconds": round(seconds, 1), "kernels": rows}


def parse(argv: list[str]) -> dict:
    tool, argv = (argv[0], argv[1:]) if argv[:1] and argv[0] in REPORTS else ("racecheck", argv)
    if argv[:1] and not argv[0].startswith("-") and argv[0] not in {p.stem for p in GRAPHS.glob("*.egr")}:
        raise SystemExit(f"{argv[0]} is neither a tool (racecheck, memcheck) nor an Indigo input")
    options = {"tool": tool, "inputs": [], "groups": GROUPS, "jobs": 16, "json": None, "seconds": 540.0,
               "sanitizer": shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer",
               "names": None, "launch": (BLOCKS, THREADS)}  # fmt: skip
    args = iter(argv)
    for arg in args:
        if arg == "--smoke":
            options.update(inputs=["DAG_5n_5e"], names=SMOKE_KERNELS, jobs=2, launch=(2, 32))
        elif arg in ("--groups", "--jobs", "--json", "--seconds", "--sanitizer", "--kernels"):
            value = next(args, None)
            if value is None:
                raise SystemExit(f"{arg} needs a value")
            key = {"--kernels": "names"}.get(arg, arg[2:])
            options[key] = {"--groups": lambda v: tuple(v.split(",")), "--jobs": int, "--seconds": float,
                            "--kernels": lambda v: v.split(",")}.get(arg, str)(value)  # fmt: skip
        elif arg.startswith("-"):
            raise SystemExit(f"unknown option {arg}; use INPUT ..., --groups race,bounds,clean, --kernels NAME,NAME, "
                             "--jobs N, --sanitizer PATH, --seconds S, --json FILE or --smoke")  # fmt: skip
        else:
            options["inputs"].append(arg)
    unknown = set(options["groups"]) - set(GROUPS)
    if unknown:
        raise SystemExit(f"no group {', '.join(sorted(unknown))}; the groups are race, bounds and clean")
    options["inputs"] = options["inputs"] or ["DAG_100n_200e"]
    return options


def main(argv: list[str]) -> int:
    if worker_asked(argv, worker):
        return 0
    options = parse(argv)
    chosen = by_name(options["names"]) if options["names"] else all_kernels()
    kernels = [k for k in chosen if k.group in options["groups"]]
    results, last = {}, []
    for graph in options["inputs"]:
        results[graph] = run_tool(options["tool"], graph, kernels, options)
        figures = ",".join(f"{g}:{n}/{m}" for g, (n, m) in results[graph]["summary"].items() if m)
        last.append(f"{graph}={figures}")
    if options["json"]:
        Path(options["json"]).write_text(json.dumps(results, indent=1) + "\n")
    print(f"indigo_sanitizer {options['tool']} " + " ".join(last))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
