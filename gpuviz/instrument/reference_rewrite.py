"""The reference engine's flavour of the rewrite: the base rewrite (one thread's values at a time), with every
arithmetic operator a hook that computes with numba's types (backends/sim/arithmetic.py), as the vector
flavour's are. Left to Python and NumPy, `float32 * 0.1` stayed float32, `acc = 0.0; acc += a[i]` summed
in float32 and `int32 * int32` wrapped at 32 bits: a kernel that went to the reference engine (an
`assert`, a fault, `--schedule sequential`) printed other numbers than on the vector engine or a GPU."""

from __future__ import annotations

import ast

from gpuviz.instrument.rewrite import KernelRewriter, Program, build_program
from gpuviz.instrument.vector_rewrite import BINARY_HOOKS, typed_statements


class ReferenceRewriter(KernelRewriter):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        node = self.generic_visit(node)
        return ast.copy_location(_typed_call(node.op, node.left, node.right), node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if isinstance(node.target, ast.Name):  # x += v is x = x + v, typed
            value = _typed_call(node.op, ast.Name(node.target.id, ast.Load()), self.visit(node.value))
            return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], value), node)
        result = super().visit_AugAssign(node)  # memory: a load, the operator (typed below) and a store
        return typed_statements(result if isinstance(result, list) else [result])


def _typed_call(op: ast.operator, left: ast.expr, right: ast.expr) -> ast.expr:
    hook = BINARY_HOOKS.get(type(op))
    if hook is None:  # @ (matrix product): numba refuses it in a kernel; Python words it
        return ast.BinOp(left, op, right)
    return ast.Call(ast.Name(f"_gv_op_{hook}", ast.Load()), [left, right], [])


def build_reference_program(func) -> Program:
    """The kernel and its device functions in the reference flavour."""
    return build_program(func, ReferenceRewriter)
