"""The optional libraries a script imports (gpuviz[nvmath], gpuviz[cccl], CuPy), so that a GPU test of a
script that needs one skips, naming it, where it is not installed, instead of failing."""

import ast
import importlib.util
from pathlib import Path

OPTIONAL = ("nvmath", "cuda.cccl", "cupy")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def missing_library(path: Path) -> str | None:
    """The first optional library the script imports that cannot be imported here (None: none)."""
    for name in sorted(imported_modules(path)):
        if name.startswith(OPTIONAL) and not _importable(name):
            return name
    return None


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
