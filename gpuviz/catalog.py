"""The kernel catalog: the example scripts, in teaching order, with a title and a line each."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ORDER = [
    "vector_add", "grid_2d", "grid_3d", "shared_reduction", "tiled_matmul", "atomic_histogram",
    "racy_counter", "warp_shuffle_sum", "device_function", "two_launches", "cupy_vecadd",
]  # fmt: skip


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    title: str
    description: str
    path: Path

    @property
    def source(self) -> str:
        return self.path.read_text()


def catalog(folder: Path = EXAMPLES) -> list[CatalogEntry]:
    """Every example script with a docstring, known ones first in teaching order."""
    if not folder.is_dir():
        return []
    scripts = sorted(folder.glob("*.py"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))
    entries = []
    for path in scripts:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        title = path.stem.replace("_", " ").capitalize()
        entries.append(CatalogEntry(path.stem, title, doc.split("\n\n")[0].replace("\n", " "), path))
    return entries
