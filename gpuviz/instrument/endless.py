"""Loops that can never end, found on the syntax tree: `while True:` (or any constant true test) with no
`break` of its own, no `return` and no `raise` inside. numba compiles them and a GPU runs them until the
process is killed; the simulator says so before it runs instead of hanging."""

from __future__ import annotations

import ast


def endless_loops(function: ast.FunctionDef) -> list[int]:
    """The lines of the function's loops that can never end (nested function definitions are their own)."""
    return [node.lineno for node in _walk(function.body) if isinstance(node, ast.While) and _never_ends(node)]


def _never_ends(loop: ast.While) -> bool:
    if not (isinstance(loop.test, ast.Constant) and loop.test.value):
        return False
    return not any(isinstance(node, (ast.Return, ast.Raise)) for node in _walk(loop.body)) and not _breaks(loop.body)


def _breaks(body: list[ast.stmt]) -> bool:
    """A `break` of this loop: one not inside a loop nested in it."""
    for stmt in body:
        for node in _walk([stmt], into_loops=False):
            if isinstance(node, ast.Break):
                return True
    return False


def _walk(body: list[ast.stmt], into_loops: bool = True):
    """The nodes of `body`, not entering nested function definitions (nor loops, unless `into_loops`)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While)):
            stack.extend(reversed(node.orelse))  # a loop's else belongs to the outer one
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
