"""The kernels of a student's file, taken by syntax tree: what a fix check runs of it.

A fix check runs the student's kernels and device functions under the lesson's own host script, so that
nothing the student writes outside a kernel ever runs (a monkeypatch of the checker, an `os._exit`, a
print of a verdict, a trace file of its own). Taken are: `@cuda.jit` functions, the imports they use
(numpy, math, cmath, numba) and module constants (numbers and arithmetic on them); everything else of
the file is left out. What is taken is held to what a CUDA kernel can do (program/kernel_rules.py), first
on its syntax tree (`take_kernels`) and then, once its imports are loaded, on the objects its names reach
(`load_kernels`). Refusals are one line with the student's line number.
"""

from __future__ import annotations

import ast
import importlib.util
import types
from dataclasses import dataclass
from pathlib import Path

from gpuviz.program.kernel_rules import (
    KernelFileRefused,
    Names,
    check_function,
    check_reaches,
    is_device,
    is_jit,
    refuse,
    root,
)

MAX_BYTES = 1 << 20
MODULE_NAME = "gpuviz_student_kernels"
IMPORTABLE = ("numpy", "math", "cmath", "numba", "numba.cuda")  # what a taken import may name


@dataclass(frozen=True)
class TakenKernels:
    text: str  # the file with only what is taken, each statement at its own lines (the rest blank)
    kernels: tuple[str, ...]  # the @cuda.jit functions, in the order of the file


def take_kernels(text: str, needed: tuple[str, ...] = (), name: str = "your file") -> TakenKernels:
    """The kernels, imports and constants of a student's file, checked; `needed` are kernels it must have."""
    if len(text.encode()) > MAX_BYTES:
        raise KernelFileRefused(f"{name} is over {MAX_BYTES >> 20} MiB: a fix check reads no more")
    tree = _parse(text, name)
    taken, names = [], Names()
    for node in tree.body:
        if _is_taken(node, names):
            taken.append(node)
            names.add(node)
    missing = [kernel for kernel in needed if kernel not in names.kernels]
    if missing:
        raise KernelFileRefused(f"{name} has no kernel {missing[0]!r}: the lesson's script launches it by that name")
    for node in taken:
        if isinstance(node, ast.FunctionDef):
            check_function(node, names)
    return TakenKernels(_only(text, tree, taken), tuple(names.kernels))


def kernel_names(text: str) -> tuple[str, ...]:
    """The kernels (not device functions) a lesson's script defines at its top level: what its host launches."""
    tree = _parse(text, "the lesson's script")
    return tuple(node.name for node in tree.body
                 if isinstance(node, ast.FunctionDef) and is_jit(node) and not is_device(node))  # fmt: skip


def host_with_kernels_of(host_text: str, kernels_path: str | Path) -> str:
    """The lesson's script with its @cuda.jit functions taken out (their lines left blank, so the host's lines
    keep their numbers) and its kernels bound to those of the kernel file at `kernels_path` instead."""
    tree = _parse(host_text, "the lesson's script")
    lines = host_text.splitlines()
    loaded = False
    for node in (n for n in tree.body if isinstance(n, ast.FunctionDef) and is_jit(n)):
        first, last = _first_line(node), node.end_lineno or node.lineno
        lines[first - 1 : last] = [""] * (last - first + 1)
        said = [] if loaded else ["from gpuviz.program.kernel_file import load_kernels as _gv_load",
                                  f"_gv_kernels = _gv_load({str(kernels_path)!r})"]  # fmt: skip
        said += [] if is_device(node) else [f"{node.name} = _gv_kernels.{node.name}"]
        lines[first - 1] = "; ".join(said)
        loaded = True
    return "\n".join(lines) + "\n"


def _parse(text: str, name: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise KernelFileRefused(f"{name} line {exc.lineno}: invalid syntax: {exc.msg}", exc.lineno) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise KernelFileRefused(f"{name} cannot be read as Python: {type(exc).__name__}") from None


def _is_taken(node: ast.stmt, names: Names) -> bool:
    if isinstance(node, ast.Import):
        return all(alias.name in IMPORTABLE for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and node.module in IMPORTABLE and all(a.name != "*" for a in node.names)
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) for t in node.targets) and _is_constant(node.value, names)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.value is not None and _is_constant(node.value, names)
    return isinstance(node, ast.FunctionDef) and is_jit(node)


def _is_constant(value: ast.expr, names: Names) -> bool:
    """Numbers, constants taken before, imports and their attributes (math.pi), and arithmetic or tuples
    of those."""
    for node in ast.walk(value):
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, complex, bool)):
                return False
        elif isinstance(node, ast.Name):
            if node.id not in names.imports | names.constants:
                return False
        elif isinstance(node, ast.Attribute):
            base = root(node)
            if node.attr.startswith("_") or not (isinstance(base, ast.Name) and base.id in names.imports):
                return False
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.operator, ast.unaryop, ast.Load)):
            return False
    return True


def _only(text: str, tree: ast.Module, taken: list[ast.stmt]) -> str:
    """The file's text with only the taken statements, at their own lines; a taken statement that shares a
    line with another statement is refused (it cannot be taken whole)."""
    lines = text.splitlines()
    keep = [""] * len(lines)
    spans = [(_first_line(node), node.end_lineno or node.lineno, node) for node in tree.body]
    for first, last, node in spans:
        if node in taken:
            shared = [other for f, la, other in spans if other is not node and f <= last and la >= first]
            if shared:
                refuse(node, "write one statement a line here: a fix check takes statements whole")
            keep[first - 1 : last] = lines[first - 1 : last]
    return "\n".join(keep) + "\n"


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def load_kernels(path: str | Path) -> types.ModuleType:
    """The kernel file a fix check wrote (only what take_kernels took), loaded as a module of its own: its
    imports first, then every name its kernels, decorators and constants reach is checked on the objects
    it reaches, and only then does the rest run (constants, decorators)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    tree = _parse(text, path.name)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    module = importlib.util.module_from_spec(spec)
    imports = ast.Module([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[])
    exec(compile(imports, str(path), "exec"), module.__dict__)  # noqa: S102  (only imports of IMPORTABLE modules)
    for node in tree.body:
        check_reaches(node, module.__dict__)
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102  (what take_kernels took and checked)
    return module


