"""Shared-memory races: compute-sanitizer's racecheck against gpuviz, over tests/race_suite.py (docs/races.md).

One compute-sanitizer process runs `--plain`, which launches every suite kernel once, untraced,
printing a marker before each; gpuviz traces the same launches (simulator, and the GPU backend with
--gpu) and says which shared arrays race. racecheck looks at shared memory only, so only shared
arrays are compared; global races are listed for gpuviz alone.

Usage: python3 bench/racecheck_compare.py [--gpu] [--sanitizer PATH] [--log FILE]
Last line: `racecheck both=<n> gpuviz_only=<n> racecheck_only=<n> neither=<n>`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
MARK = "@@case "


def cases():
    sys.path.insert(0, str(ROOT / "tests"))
    from race_suite import CASES

    return CASES


def plain() -> None:
    from numba import cuda

    for case in cases():
        print(MARK + case.name, flush=True)
        namespace: dict = {}
        exec(compile(case.source, f"<{case.name}>", "exec"), namespace)
        args = [cuda.to_device(a) for a in case.make()]
        namespace["k"][case.grid, case.block](*args)
        cuda.synchronize()
        print(MARK + "end", flush=True)


def racecheck(sanitizer: str, log: str | None) -> dict[str, list[str]]:
    """{case: racecheck's hazard lines} from one compute-sanitizer process."""
    command = [sanitizer, "--tool", "racecheck", "--print-limit", "100000", sys.executable, __file__, "--plain"]
    done = subprocess.run(command, capture_output=True, text=True)
    text = done.stdout + done.stderr
    if log:
        Path(log).write_text(text)
    found: dict[str, list[str]] = {}
    current = None
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            current = line[len(MARK):]
            found.setdefault(current, [])
        elif current and current != "end" and re.search(r"(Error|Warning): .*(Race|hazard)", line, re.I):
            found[current].append(line.strip("= ").strip())
    return found


def gpuviz_races(case, backend: str) -> tuple[set, set]:
    """(shared arrays that race, global arrays that race) by gpuviz's analysis of the launch."""
    import gpuviz
    from gpuviz.core.analysis.races import find_races

    launched = gpuviz.trace(case.source, name="k", backend=backend)[case.grid, case.block](*case.make())
    report = find_races(launched).to_json()
    shared = {r["array"] for r in report["races"] if r["space"] == "shared"}
    return shared, {r["array"] for r in report["races"] if r["space"] != "shared"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--gpu", action="store_true", help="gpuviz's GPU backend too")
    default = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    parser.add_argument("--sanitizer", default=default)
    parser.add_argument("--log", help="write compute-sanitizer's output here")
    parser.add_argument("--smoke", action="store_true", help="the first three kernels of the suite only")
    args = parser.parse_args()
    if args.plain:
        return plain()
    sys.path.insert(0, str(ROOT))
    hazards = racecheck(args.sanitizer, args.log)
    tally = {"both": 0, "gpuviz_only": 0, "racecheck_only": 0, "neither": 0}
    print(f"{'case':<40} {'racecheck':>9} {'gpuviz sim':>16} {'gpuviz gpu':>16}  global (gpuviz)")
    for case in cases()[: 3 if args.smoke else None]:
        shared, global_ = gpuviz_races(case, "sim")
        gpu = gpuviz_races(case, "gpu")[0] if args.gpu else None
        lines = hazards.get(case.name)
        seen = "not run" if lines is None else str(len(lines))
        ours, theirs = bool(shared), bool(lines)
        tally[{(True, True): "both", (True, False): "gpuviz_only", (False, True): "racecheck_only",
               (False, False): "neither"}[(ours, theirs)]] += 1  # fmt: skip
        gpu_shown = "-" if gpu is None else ",".join(sorted(gpu)) or "none"
        print(f"{case.name:<40} {seen:>9} {','.join(sorted(shared)) or 'none':>16} {gpu_shown:>16}  "
              f"{','.join(sorted(global_)) or '-'}")  # fmt: skip
        if lines:
            print(f"    racecheck: {lines[0][:150]}")
    print("racecheck " + " ".join(f"{k}={v}" for k, v in tally.items()))
    return None


if __name__ == "__main__":
    main()
