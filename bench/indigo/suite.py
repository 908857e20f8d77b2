"""The Indigo kernels: their labels from the file names, their scripts, and the manifest of them all.

A file is <pattern>_<tags>.cu in the folder of its pattern; the tags are its bugs (atomicBug, guardBug,
syncBug, raceBug, boundsBug) and its variants (cond, persistent, reverse, ...).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from indigo.translate import Untranslatable, translate

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
MANIFEST = HERE / "manifest.json"
RACE_BUGS = ("atomicBug", "guardBug", "syncBug", "raceBug")
ORIGIN = ("the HiRace artifact (github.com/JohnJacobsonIII/HiRace-Artifact-SC24, commit 44a935f, "
          "folder indigo/indigo_sources), from the Indigo suite 1.3 (BSD-3, bench/indigo/LICENSE)")  # fmt: skip


@dataclass(frozen=True)
class IndigoKernel:
    name: str  # the file name without .cu
    pattern: str  # the folder: one of Indigo's 21 code patterns
    bugs: tuple[str, ...]
    variants: tuple[str, ...]

    @property
    def path(self) -> Path:
        return SOURCES / self.pattern / f"{self.name}.cu"

    @property
    def group(self) -> str:
        """race (a race bug and no boundsBug), bounds (boundsBug, maybe a race bug too) or clean (no bug):
        the scoring's three groups, as HiRace's table sets boundsBug kernels apart."""
        if "boundsBug" in self.bugs:
            return "bounds"
        return "race" if self.bugs else "clean"

    @property
    def race_bug(self) -> bool:
        return any(bug in RACE_BUGS for bug in self.bugs)


def kernel_of(path: Path) -> IndigoKernel:
    pattern, name = path.parent.name, path.stem
    if not name.startswith(pattern):
        raise ValueError(f"{path}: the file name does not start with its folder's pattern {pattern}")
    tags = [tag for tag in name[len(pattern) :].split("_") if tag]
    bugs = tuple(tag for tag in tags if tag.endswith("Bug"))
    return IndigoKernel(name, pattern, bugs, tuple(tag for tag in tags if not tag.endswith("Bug")))


def all_kernels() -> list[IndigoKernel]:
    return [kernel_of(path) for path in sorted(SOURCES.glob("*/*.cu"))]


def by_name(names: list[str]) -> list[IndigoKernel]:
    known = {kernel.name: kernel for kernel in all_kernels()}
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"no Indigo kernel named {', '.join(missing)}; see bench/indigo/manifest.json")
    return [known[name] for name in names]


def kernel_text(kernel: IndigoKernel) -> str:
    """The kernel's numba source (no host code): what the scoring runs."""
    header = f"Indigo kernel {kernel.name} ({kernel.pattern}), translated by bench/indigo/translate.py."
    return translate(kernel.path.read_text(), header)[0]


HOST = """

if __name__ == "__main__":
    # The artifact's launch on an Indigo input: python THIS.py [graph.egr] (default DAG_5n_5e)
    import sys
    from pathlib import Path

    from indigo_inputs import BLOCKS, THREADS, arguments

    graph = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "inputs" / "DAG_5n_5e.egr"
    test_kernel[BLOCKS, THREADS](*arguments(graph))
"""


def script_text(kernel: IndigoKernel) -> str:
    """A whole script: the kernel, with host code that launches it as the artifact does."""
    return kernel_text(kernel) + HOST


def manifest() -> dict:
    """Every kernel's labels, pattern and translation: the record tools/indigo_translate.py writes."""
    rows = []
    for kernel in all_kernels():
        row = {**asdict(kernel), "group": kernel.group, "translated": True, "reason": ""}
        try:
            _, stripped = translate(kernel.path.read_text())
            row["hirace_instrumentation_stripped"] = stripped
        except Untranslatable as exc:
            row.update(translated=False, reason=str(exc))
        rows.append(row)
    groups = {g: sum(r["group"] == g for r in rows) for g in ("race", "bounds", "clean")}
    return {"origin": ORIGIN, "kernels": len(rows), "groups": groups,
            "untranslated": [r["name"] for r in rows if not r["translated"]], "rows": rows}  # fmt: skip


def write_manifest(path: Path = MANIFEST) -> dict:
    data = manifest()
    head = json.dumps({key: value for key, value in data.items() if key != "rows"})[:-1]
    rows = ",\n".join(json.dumps(row) for row in data["rows"])
    path.write_text(f'{head}, "rows": [\n{rows}\n]}}\n')  # one kernel a line: diffs stay readable
    return data
