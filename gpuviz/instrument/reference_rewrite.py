"""The reference engine's flavour of the rewrite: the base rewrite (one thread's values at a time), with every
arithmetic operator a hook that computes with numba's types (backends/sim/arithmetic.py), as the vector
flavour's are. Left to Python and NumPy, `float32 * 0.1` stayed float32, `acc = 0.0; acc += a[i]` summed
in float32 and `int32 * int32` wrapped at 32 bits: a kernel that went to the reference engine (an
`assert`, a fault, `--schedule sequential`) printed other numbers than on the vector engine or a GPU."""

from __future__ import annotations

import ast
import builtins
import copy

from gpuviz.instrument.rewrite import KernelRewriter, Program, build_program
from gpuviz.instrument.vector_rewrite import (
    cast_hook,
    chained_comparisons,
    math_hook,
    resolve_call,
    typed_binary,
    typed_comparison,
    typed_negation,
    typed_statements,
)


class ReferenceRewriter(KernelRewriter):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        node = self.generic_visit(node)
        return ast.copy_location(typed_binary(node.op, node.left, node.right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        return typed_negation(self.generic_visit(node))

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        node = self.generic_visit(node)
        if len(node.ops) == 1:
            return typed_comparison(node)
        # a < b < c: the next comparison only where the last held (Python's `and`)
        return ast.copy_location(ast.BoolOp(ast.And(), chained_comparisons(node, self._temp)), node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        func = node.func
        builtin = isinstance(func, ast.Name) and func.id in ("min", "max", "int") and func.id not in self.locals
        if builtin and self.env.get(func.id, getattr(builtins, func.id)) is getattr(builtins, func.id):
            args = [self.visit(a) for a in node.args]  # min(a, b) in the values' common type; int(nan) does not raise
            return ast.copy_location(ast.Call(ast.Name(f"_gv_fn_{func.id}", ast.Load()), args, []), node)
        return super().visit_Call(node)

    def _call_function(self, node: ast.Call) -> ast.expr:
        hook = math_hook(target := resolve_call(node.func, self.env, self.locals)) or cast_hook(target)
        if hook is None:  # math.sqrt(-1) is nan on a GPU: numba-cuda's math, never Python's, which raises
            return super()._call_function(node)
        args = [self.visit(a) for a in node.args]
        return ast.copy_location(ast.Call(ast.Name(hook, ast.Load()), args, []), node)

    def visit_Assign(self, node: ast.Assign):
        result = super().visit_Assign(node)
        return [self._wrapped_store(s) for s in result] if isinstance(result, list) else self._wrapped_store(result)

    def visit_AugAssign(self, node: ast.AugAssign):
        if isinstance(node.target, ast.Name):  # x += v is x = x + v, typed
            value = typed_binary(node.op, ast.Name(node.target.id, ast.Load()), self.visit(node.value))
            return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], value), node)
        if self._private_element(node.target):  # a local array's element: x[i] = x[i] + v, typed and stored
            target = self.visit(node.target)
            load = ast.Subscript(copy.deepcopy(target.value), copy.deepcopy(target.slice), ast.Load())
            value = typed_binary(node.op, load, self.visit(node.value))
            return self._wrapped_store(ast.copy_location(ast.Assign([target], value), node))
        result = super().visit_AugAssign(node)  # memory: a load, the operator (typed below) and a store
        return typed_statements(result if isinstance(result, list) else [result], strict=False)

    def _private_element(self, target: ast.expr) -> bool:
        return (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and target.value.id in self.private)  # fmt: skip

    def _wrapped_store(self, stmt: ast.stmt) -> ast.stmt:
        """A store into a local array's element (left to NumPy, which refuses an integer out of the element's
        range) converts as numba's does: `_gv_as_stored(value, array.dtype)`."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and self._private_element(stmt.targets[0]):
            dtype = ast.Attribute(ast.Name(stmt.targets[0].value.id, ast.Load()), "dtype", ast.Load())
            stmt.value = ast.Call(ast.Name("_gv_as_stored", ast.Load()), [stmt.value, dtype], [])
            ast.fix_missing_locations(stmt)
        return stmt


def build_reference_program(func) -> Program:
    """The kernel and its device functions in the reference flavour."""
    return build_program(func, ReferenceRewriter)
