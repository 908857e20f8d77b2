"""The launches a script makes, read from its text without running it: each `kernel[grid, block](...)`
call whose dims are constants (numbers, tuples, names bound to them, + - * // of them). The app's
launch editor starts from these, so a script runs with its own launch unless the user overrides it."""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}


@dataclass(frozen=True)
class ScriptLaunch:
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    line: int

    def label(self) -> str:
        return f"{self.kernel}[{_dims(self.grid)}, {_dims(self.block)}] (line {self.line})"


def dry_launches(source: str) -> list[ScriptLaunch]:
    """The launches with constant dims, in the order they appear; [] when the text does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = _constants(tree)
    launches = []
    for node in ast.walk(tree):
        launch = _launch(node, names)
        if launch is not None:
            launches.append(launch)
    return sorted(launches, key=lambda launch: launch.line)


def _constants(tree: ast.AST) -> dict[str, object]:
    """Names assigned once to a constant expression (in the order of the text)."""
    names: dict[str, object] = {}
    assigned: dict[str, int] = {}
    assignments = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    for node in sorted(assignments, key=lambda node: (node.lineno, node.col_offset)):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            assigned[name] = assigned.get(name, 0) + 1
            value = _value(node.value, names)
            if value is not None:
                names[name] = value
    return {name: value for name, value in names.items() if assigned[name] == 1}


def _launch(node: ast.AST, names: dict) -> ScriptLaunch | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)):
        return None
    dims = node.func.slice
    if not isinstance(dims, ast.Tuple) or len(dims.elts) < 2:
        return None
    grid, block = (_as_dims(_value(element, names)) for element in dims.elts[:2])
    if grid is None or block is None:
        return None
    return ScriptLaunch(ast.unparse(node.func.value), grid, block, node.lineno)


def _value(node: ast.AST, names: dict):
    """A constant int or tuple of ints, or None when it depends on anything else."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Tuple):
        values = [_value(element, names) for element in node.elts]
        return tuple(values) if all(isinstance(v, int) for v in values) else None
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _value(node.left, names), _value(node.right, names)
        if isinstance(left, int) and isinstance(right, int) and not (right == 0 and isinstance(node.op, ast.FloorDiv)):
            return OPERATORS[type(node.op)](left, right)
    return None


def _as_dims(value) -> tuple[int, ...] | None:
    if isinstance(value, int):
        value = (value,)
    if not isinstance(value, tuple) or not 1 <= len(value) <= 3 or any(v < 1 for v in value):
        return None
    return value + (1,) * (3 - len(value))


def _dims(dims: tuple[int, ...]) -> str:
    shown = dims[: max(1, max((k + 1 for k, v in enumerate(dims) if v != 1), default=1))]
    return str(shown[0]) if len(shown) == 1 else "(" + ", ".join(map(str, shown)) + ")"
