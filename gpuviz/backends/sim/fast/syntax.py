"""What the fast path reads of a kernel's syntax tree, and the tables of what it translates (fast/translate.py)."""

from __future__ import annotations

import ast

import numpy as np


class FastUnsupported(Exception):
    """A construct or launch the fast path does not run; the message says which (the vector engine runs it)."""


# Functions whose result numba's CPU code and NumPy compute bit for bit alike (others may differ in the last bit).
EXACT_MATH = {"sqrt", "floor", "ceil", "trunc", "fabs", "copysign"}
# numba-cuda gives math.floor(x) x's float type (a float64 for an integer); numba's CPU target an int64: np.floor
FLOAT_ROUNDING = {"floor", "ceil", "trunc"}
BUILTIN_CALLS = {"min", "max", "abs", "int", "float", "bool", "len", "range"}
NUMBER_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
                "boolean", "bool_", "intp", "uintp"}  # fmt: skip
THREAD_AXES = {"tx": "_tx", "ty": "_ty", "tz": "_tz", "bx": "_bx", "by": "_by", "bz": "_bz", "lane": "(_t % 32)"}


def names_in(nodes, ctx) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def reads(nodes) -> list[ast.Name]:
    """Names read: loaded, or updated in place (`acc += x` reads acc)."""
    found = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                found.append(n)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                found.append(n.target)
    return found


def has_barrier(node: ast.AST, is_barrier) -> bool:
    return any(is_barrier(n) for n in ast.walk(node))


def is_shape(node: ast.Subscript, arrays: dict) -> bool:
    """`a.shape[k]` of an array argument: one value for every thread."""
    value = node.value
    return (isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name)
            and value.value.id in arrays and isinstance(node.slice, ast.Constant))  # fmt: skip


def single_name_assignment(node: ast.AST) -> bool:
    if isinstance(node, ast.AugAssign):
        return True
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)


def located(node: ast.AST, where: ast.AST) -> ast.AST:
    """A node built here, given the user's line (for messages that name it)."""
    return ast.fix_missing_locations(ast.copy_location(node, where))


def numpy_type(value: object) -> object:
    if type(value).__module__.startswith("numba.core.types"):
        return np.dtype(numpy_name(str(value)))
    return value


def numpy_name(name: str) -> str:
    return {"boolean": "bool_", "intp": "int64", "uintp": "uint64"}.get(name, name)


GRID = {1: "(_bx * _bdx + _tx)", 2: "(_bx * _bdx + _tx, _by * _bdy + _ty)",
         3: "(_bx * _bdx + _tx, _by * _bdy + _ty, _bz * _bdz + _tz)"}  # fmt: skip
OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
        ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}  # fmt: skip
CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
        ast.IsNot: "is not"}  # fmt: skip
