"""gpuviz's memory counts per source line against Nsight Compute's source counters.

ncu (`--section SourceCounters --import-source yes`) measures the kernels of bench/ncu_compare.py, run
plain and compiled with line information from real files, and its source page (each CUDA source line
with the SASS instructions it compiled to) is summed per line: requests are the memory instructions'
executions, sectors their L2 theoretical sectors, shared wavefronts their executions times their
bank-conflict degree ("L1 Conflicts Shared N-Way"). gpuviz's come from `memory_report`'s line rows of
the GPU backend's trace of the same launch. A difference in a figure that `gpuviz memory` marks as not
modelled is shown as diff* and allowed (docs/memory.md).

Usage (a GPU and ncu):  python3 bench/ncu_lines.py [--ncu PATH] [--keep FILE]
       a saved source page:  python3 bench/ncu_lines.py --parse FILE  (prints its per-line sums)
       without ncu:  python3 bench/ncu_lines.py --smoke  (gpuviz's side on the simulator, tiny sizes)
Last line: `ncu_lines equal=<lines equal on every modelled figure>/<lines> exact=<lines equal on every figure>/<lines>`.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

import ncu_compare  # noqa: E402

Key = tuple[str, int, str, str]  # kernel, line, space ("global" or "shared"), operation ("load" or "store")
FIGURES = {"global": ("requests", "sectors"), "shared": ("requests", "wavefronts")}
ACCESSES = {("Global", "Load"), ("Global", "Store"), ("Shared", "Load"), ("Shared", "Store")}
OPERATION = {"read": "load", "write": "store"}  # gpuviz's access kinds in ncu's words


def _number(text: str) -> float:
    text = text.replace(",", "").strip()
    return float(text) if text not in ("", "-") else 0.0


def parse_source_page(text: str) -> dict[Key, dict[str, float]]:
    """ncu's `--page source --csv --print-source cuda,sass` summed per (kernel, line, space, operation)."""
    sums: dict[Key, dict[str, float]] = {}
    kernel, line, columns = "", 0, {}
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if row[0] == "Function Name":
            found = re.search(r"::(\w+)\[", row[1]) or re.search(r"(\w+)\[", row[1])
            kernel = found.group(1) if found else row[1]
        elif row[0] == "Line No":
            columns = {name: k for k, name in enumerate(row) if k >= 4 and name not in {}}
        elif row[0]:
            line = int(row[0]) if row[0].isdigit() else line
        elif columns and len(row) > 3 and row[2] not in ("-", "..."):
            space, operation = row[columns["Address Space"]], row[columns["Access Operation"]]
            if (space, operation) not in ACCESSES:
                continue
            executed = _number(row[columns["Instructions Executed"]])
            entry = sums.setdefault((kernel, line, space.lower(), operation.lower()), dict.fromkeys(
                ("requests", "sectors", "wavefronts"), 0.0))  # fmt: skip
            entry["requests"] += executed
            if space == "Global":
                entry["sectors"] += _number(row[columns["L2 Theoretical Sectors Global"]])
            else:
                entry["wavefronts"] += executed * max(1.0, _number(row[columns["L1 Conflicts Shared N-Way"]]))
    return sums


def gpuviz_lines(case: ncu_compare.Case, backend: str, smoke: bool) -> dict[Key, dict[str, float]]:
    import gpuviz
    from gpuviz.core.analysis.memory import memory_report

    grid, block = case.launch(smoke)
    trace = gpuviz.trace(case.source, name=case.name, backend=backend)[grid, block](*case.make(smoke))
    sums: dict[Key, dict[str, float]] = {}
    for row in memory_report(trace)["lines"] or []:
        if row["kind"] not in OPERATION:
            continue
        entry = sums.setdefault((case.name, row["line"], row["space"], OPERATION[row["kind"]]),
                                dict.fromkeys(("requests", "sectors", "wavefronts"), 0.0))  # fmt: skip
        for figure in ("requests", "sectors", "wavefronts"):
            entry[figure] += row.get(figure) or 0
    return sums


def plain_from_files(folder: str) -> None:
    """Each kernel once, plain, compiled with line information from a real file (what ncu measures)."""
    from numba import cuda

    for case in ncu_compare.CASES:
        path = Path(folder) / f"{case.name}.py"
        path.write_text(case.source)
        namespace: dict = {}
        exec(compile(case.source, str(path), "exec"), namespace)
        kernel = cuda.jit(lineinfo=True)(namespace[case.name].py_func)
        grid, block = case.launch(False)
        kernel[grid, block](*[cuda.to_device(a) for a in case.make(False)])
        cuda.synchronize()


def ncu_lines(ncu: str, keep: str | None) -> dict[Key, dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "lines"
        profile = [ncu, "-f", "-o", str(report), "--section", "SourceCounters", "--import-source", "yes",
                   sys.executable, __file__, "--plain", folder]  # fmt: skip
        done = subprocess.run(profile, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"ncu failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        page = subprocess.run([ncu, "-i", f"{report}.ncu-rep", "--page", "source", "--csv", "--print-source",
                               "cuda,sass"], capture_output=True, text=True).stdout  # fmt: skip
    if keep:
        Path(keep).write_text(page)
    return parse_source_page(page)


def not_modelled() -> set[tuple[str, str, str]]:
    """(space, operation, figure) that `gpuviz memory` marks as not modelled."""
    from gpuviz.core.analysis.memory_counts import METRICS

    return {(space, OPERATION[kind], figure) for (space, kind, figure), (_, _, note) in METRICS.items()
            if note and kind in OPERATION}  # fmt: skip


def table(ours: dict[Key, dict], theirs: dict[Key, dict] | None) -> tuple[int, int, int]:
    """Prints line by line; returns lines equal on every modelled figure, on every figure, and lines."""
    loose, equal, exact = not_modelled(), 0, 0
    keys = sorted(set(ours) | set(theirs or {}))
    print(f"{'kernel':<16} {'line':>4} {'access':<13} {'figure':<10} {'gpuviz':>8} {'ncu':>8}")
    for key in keys:
        kernel, line, space, operation = key
        same_modelled = same_all = True
        for figure in FIGURES[space]:
            mine = (ours.get(key) or {}).get(figure, 0)
            other = None if theirs is None else (theirs.get(key) or {}).get(figure, 0)
            verdict = ""
            if other is not None and round(other) != round(mine):
                same_all = False
                allowed = (space, operation, figure) in loose
                same_modelled = same_modelled and allowed
                verdict = "diff*" if allowed else "DIFF"
            shown = "-" if other is None else f"{other:.0f}"
            access = f"{space} {operation}"
            print(f"{kernel:<16} {line:>4} {access:<13} {figure:<10} {mine:>8.0f} {shown:>8} {verdict}")
        equal += same_modelled
        exact += same_all
    return equal, exact, len(keys)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plain", metavar="FOLDER", help="each kernel once, untraced, from files in FOLDER")
    parser.add_argument("--parse", metavar="FILE", help="sum a saved ncu source page per line")
    parser.add_argument("--smoke", action="store_true", help="gpuviz's side only, on the simulator, tiny sizes")
    parser.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    parser.add_argument("--keep", help="also write ncu's source page here")
    args = parser.parse_args()
    if args.plain:
        return plain_from_files(args.plain)
    if args.parse:
        sums = parse_source_page(Path(args.parse).read_text())
        equal, exact, lines = table(sums, sums)
        print(f"ncu_lines parsed lines={lines}")
        return None
    backend = "sim" if args.smoke else "gpu"
    ours = {k: v for case in ncu_compare.CASES for k, v in gpuviz_lines(case, backend, args.smoke).items()}
    theirs = None if args.smoke else ncu_lines(args.ncu, args.keep)
    equal, exact, lines = table(ours, theirs)
    print(f"ncu_lines {'smoke ' if args.smoke else ''}equal={equal}/{lines} exact={exact}/{lines}")
    return None


if __name__ == "__main__":
    main()
