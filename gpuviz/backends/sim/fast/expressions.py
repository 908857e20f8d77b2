"""Expressions of a thread, translated into Python that numba's CPU target compiles (fast/translate.py)."""

from __future__ import annotations

import ast
import builtins
import math

import numpy as np

from gpuviz.backends.sim.fast.syntax import (
    BUILTIN_CALLS,
    CMP,
    EXACT_MATH,
    FLOAT_ROUNDING,
    GRID,
    NUMBER_TYPES,
    OPS,
    THREAD_AXES,
    FastUnsupported,
    numpy_name,
)
from gpuviz.instrument.rewrite import LAUNCH_CONSTANTS, THREAD_ATTRS


class Expressions:
    """Mixed into the translation's writer."""

    def _expr(self, node: ast.expr) -> str:
        method = getattr(self, f"_expr_{type(node).__name__}", None)
        if method is None:
            raise FastUnsupported(f"{type(node).__name__} expressions (line {getattr(node, 'lineno', '?')})")
        return method(node)

    def _expr_Constant(self, node: ast.Constant) -> str:
        if isinstance(node.value, (bool, int, float)) or node.value is None:
            return repr(node.value)
        raise FastUnsupported(f"the constant {node.value!r} (line {node.lineno})")

    def _expr_Name(self, node: ast.Name) -> str:
        if node.id in self.locals or node.id in self.params or node.id in self.block_scalars or node.id in self.temps:
            return node.id
        if node.id in ("True", "False", "None"):
            return node.id
        value = self.env.get(node.id, getattr(builtins, node.id, None))
        if isinstance(value, bool):
            return repr(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return repr(value) if math.isfinite(value) else f"np.float64({value!r})"
        if isinstance(value, (np.integer, np.floating)):
            return f"np.{value.dtype.name}({value.item()!r})"
        raise FastUnsupported(f"the global {node.id} (line {node.lineno})")

    def _expr_Attribute(self, node: ast.Attribute) -> str:
        path = self._path(node)
        if path in THREAD_ATTRS:
            axis = THREAD_ATTRS[path]
            if axis not in THREAD_AXES:
                raise FastUnsupported(f"cuda.{path} (line {node.lineno})")
            return THREAD_AXES[axis]
        if path in LAUNCH_CONSTANTS:
            return LAUNCH_CONSTANTS[path].replace("_gv", "")
        if node.attr in ("size", "shape", "ndim") and isinstance(node.value, ast.Name) and node.value.id in self.ndims:
            return f"{node.value.id}.{node.attr}"
        raise FastUnsupported(f"the attribute {ast.unparse(node)} (line {node.lineno})")

    def _expr_Subscript(self, node: ast.Subscript) -> str:
        value = node.value
        if (isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name)
                and value.value.id in self.ndims and isinstance(node.slice, ast.Constant)):  # fmt: skip
            return f"{value.value.id}.shape[{node.slice.value}]"
        if isinstance(value, ast.Name) and value.id in self.locals and isinstance(node.slice, ast.Constant):
            return f"{value.id}[{node.slice.value}]"  # an element of a local tuple
        return self._load(node)

    def _expr_BinOp(self, node: ast.BinOp) -> str:
        if isinstance(node.op, ast.MatMult):
            raise FastUnsupported(f"the operator @ (line {node.lineno})")
        return f"({self._expr(node.left)} {OPS[type(node.op)]} {self._expr(node.right)})"

    def _expr_UnaryOp(self, node: ast.UnaryOp) -> str:
        op = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not ", ast.Invert: "~"}[type(node.op)]
        return f"({op}{self._expr(node.operand)})"

    def _expr_BoolOp(self, node: ast.BoolOp) -> str:
        word = " and " if isinstance(node.op, ast.And) else " or "
        values = [self._expr(v) for v in node.values]
        loads = [any(isinstance(n, ast.Subscript) for n in ast.walk(v)) for v in node.values]
        # where a later operand loads, whether it ran is a path taken: into the hash
        text = [v if k == len(values) - 1 or not any(loads[k + 1 :]) else self._taken(v)
                for k, v in enumerate(values)]  # fmt: skip
        return "(" + word.join(text) + ")"

    def _expr_Compare(self, node: ast.Compare) -> str:
        text = self._expr(node.left)
        for op, right in zip(node.ops, node.comparators):
            text += f" {CMP[type(op)]} {self._expr(right)}"
        return f"({text})"

    def _expr_IfExp(self, node: ast.IfExp) -> str:
        test = self._expr(node.test)
        loads = any(isinstance(n, ast.Subscript) for side in (node.body, node.orelse) for n in ast.walk(side))
        if loads:
            test = self._taken(test)
        return f"({self._expr(node.body)} if {test} else {self._expr(node.orelse)})"

    def _expr_Tuple(self, node: ast.Tuple) -> str:
        return "(" + "".join(f"{self._expr(e)}, " for e in node.elts) + ")"

    def _expr_Call(self, node: ast.Call) -> str:
        if node.keywords:
            raise FastUnsupported(f"keyword arguments (line {node.lineno})")
        path = self._path(node.func)
        args = [self._expr(a) for a in node.args]
        dims = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if path == "grid" and dims in GRID:
            return GRID[dims]
        if path == "gridsize" and dims in (1, 2):
            return {1: "(_bdx * _gdx)", 2: "(_bdx * _gdx, _bdy * _gdy)"}[dims]
        if path in NUMBER_TYPES:
            return _cast(numpy_name(path), args)
        if path is not None:
            raise FastUnsupported(f"cuda.{path} (line {node.lineno})")
        target = self._resolve(node.func)
        module = getattr(target, "__module__", None) or ""
        name = getattr(target, "__name__", "")
        if (
            target is not None
            and type(target).__module__.startswith("numba.core.types")
            and hasattr(target, "bitwidth")
        ):
            return _cast(numpy_name(str(target)), args)
        if target is int:  # an int64, saturated as on a GPU, where numba's CPU target converts as x86 does
            return _cast("int64", args)
        if target is getattr(builtins, name, None) and name in BUILTIN_CALLS - {"range"}:
            return f"{name}({', '.join(args)})"
        if module == "math" and name in EXACT_MATH:  # floor, ceil, trunc: a float, as numba-cuda types them
            return f"{'np' if name in FLOAT_ROUNDING else 'math'}.{name}({', '.join(args)})"
        if isinstance(target, type) and issubclass(target, np.generic) and target().dtype.kind in "biuf":
            return _cast(np.dtype(target).name, args)
        raise FastUnsupported(f"the call {ast.unparse(node.func)}() (line {node.lineno})")


def _cast(name: str, args: list[str]) -> str:
    """`np.int32(x)`: into an integer type through `as_element`, which converts a float as a GPU does (saturated)
    where numba's CPU target converts it as x86 does; other types as they are."""
    if name.startswith(("int", "uint")) and len(args) == 1:
        return f"np.{name}(as_element({args[0]}, np.{name}(0)))"
    return f"np.{name}({', '.join(args)})"
