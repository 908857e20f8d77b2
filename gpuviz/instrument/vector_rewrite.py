"""The vector flavour of the kernel rewrite: each statement runs for many lanes at once (SIMT).

Control flow becomes masked: `if` narrows the lanes' active mask (`_t`), loops run while any lane
is still in them, `return`/`break`/`continue` switch lanes off until their frame ends, and
assignments to local names merge under the mask. `and`/`or`/`not`, chained comparisons and
`x if c else y` become lane-wise; arithmetic goes through hooks that apply numba's typing; math
functions become their NumPy counterparts. Memory accesses, barriers and collectives are hooks, as
in the other flavours. What it cannot express raises VectorUnsupported, and the simulator runs the
kernel on its reference engine instead.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

import numpy as np

from gpuviz.instrument.device_signatures import CASTABLE
from gpuviz.instrument.rewrite import KernelRewriter, Program, build_program
from gpuviz.instrument.source import KernelSource


class ReferenceEngineNeeded(Exception):
    """Why a launch goes to the reference engine, in words: a construct the vector engine does not cover
    (VectorUnsupported) or a condition met while it ran that the reference engine words (a lane fault).
    Nothing else moves a launch: any other exception of the vector engine is a bug in it."""


class VectorUnsupported(ReferenceEngineNeeded):
    """A construct the vector engine cannot run; the message says which."""


# Syntax the vector flavour refuses (the reference engine runs these kernels).
NOT_VECTORISED = {
    ast.Starred: "starred expressions",
    ast.Delete: "del statements",
    ast.Raise: "raise statements",
    ast.NamedExpr: "assignment expressions",
    ast.Match: "match statements",
    ast.Slice: "slices of arrays",
}
# Functions of the kernel's globals that have a lane-wise hook: (module, name) -> hook suffix.
# math's functions that numba-cuda compiles (backends/sim/math_functions.py computes each as it does)
MATH_FUNCTIONS = (
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "degrees", "erf", "erfc", "exp", "exp2",
    "expm1", "fabs", "floor", "frexp", "gamma", "isfinite", "isinf", "isnan", "lgamma", "log", "log10", "log1p",
    "log2", "modf", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "atan2", "copysign", "fmod", "hypot",
    "ldexp", "nextafter", "pow", "remainder",
)  # fmt: skip
LANEWISE_FUNCTIONS = {
    **{("math", n): n for n in MATH_FUNCTIONS},
    **{("builtins", n): n for n in ("min", "max", "abs", "int", "float", "bool", "round")},
}  # fmt: skip
BINARY_HOOKS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitOr: "or",
    ast.BitXor: "xor", ast.BitAnd: "and",
}  # fmt: skip
# Comparisons that numba makes in the operands' common type (backends/sim/arithmetic.py: comparison).
COMPARE_HOOKS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
FRAME = "_gv_frame"


UNARY_HOOKS = {ast.USub: "_gv_neg", ast.UAdd: "_gv_pos", ast.Invert: "_gv_invert"}


def typed_negation(node: ast.UnaryOp) -> ast.expr:
    """-x as `_gv_neg(x)` and ~x as `_gv_invert(x)`: in numba's types (-True is -1, an int64; ~uint8(0) a uint64
    of all ones), where NumPy refuses or keeps the narrow type."""
    hook = UNARY_HOOKS.get(type(node.op))
    return ast.copy_location(_call(hook, [node.operand]), node) if hook else node


def chained_comparisons(node: ast.Compare, temp: Callable[[], str]) -> list[ast.expr]:
    """a < b < c as its comparisons, each typed: a < (t := b), t < c (each middle operand evaluated once,
    into a new name of `temp()`); the caller joins them with its `and`."""
    parts, left = [], node.left
    for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
        if k < len(node.ops) - 1:
            name = temp()
            right = ast.NamedExpr(ast.Name(name, ast.Store()), right)
            parts.append(typed_comparison(ast.Compare(left, [op], [right])))
            left = ast.Name(name, ast.Load())
        else:
            parts.append(typed_comparison(ast.Compare(left, [op], [right])))
    return parts


def typed_comparison(node: ast.Compare) -> ast.expr:
    """`a < b` as `_gv_cmp_lt(a, b)` (one comparison; `is`, `in` stay Python's)."""
    hook = COMPARE_HOOKS.get(type(node.ops[0])) if len(node.ops) == 1 else None
    if hook is None:
        return node
    return ast.copy_location(_call(f"_gv_cmp_{hook}", [node.left, node.comparators[0]]), node)


def _call(name: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), args, [])


def _method(name: str, args: list[ast.expr], owner: str = "_t") -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(owner, ast.Load()), name, ast.Load()), args, [])


def _thunk(expr: ast.expr) -> ast.Lambda:
    expr = _WithoutLoadPauses().visit(expr)  # a lambda cannot pause: its loads happen with the statement's
    if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in ast.walk(expr)):
        raise VectorUnsupported("an atomic or a device function call inside `and`, `or` or `x if c else y`")
    empty = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(empty, expr)


class _WithoutLoadPauses(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.Call:
        node = self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "_gv_ld" and isinstance(node.args[-1], ast.Yield):
            node.args = node.args[:-1]
        return node


class VectorRewriter(KernelRewriter):
    def __init__(self, source: KernelSource, env: dict, is_kernel: bool = True, call_line: int | None = None):
        # yields: the kernel pauses around stores and atomics, where other batches may go first
        super().__init__(source, env, is_kernel=is_kernel, yields=True, call_line=call_line)
        self.private = set()  # local arrays carry a lane axis: their accesses are hooks too

    def check(self) -> None:
        super().check()
        for node in ast.walk(self.source.node):
            what = NOT_VECTORISED.get(type(node))
            if what is None and isinstance(node, (ast.For, ast.While)) and node.orelse:
                what = "loops with an else branch"
            if what is None and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                what = "attribute assignments" if self._field_of(node) is None else None  # r[i].x = v: a field
            if what:
                raise VectorUnsupported(f"{what} (line {getattr(node, 'lineno', '?')})")

    def _hook(self, name: str, *args, **kwargs) -> ast.expr:
        if name == "_gv_ufunc":  # declared here, before any launch: the reference engine runs it
            raise VectorUnsupported("a NumPy ufunc called on arrays inside a kernel")
        return super()._hook(name, *args, **kwargs)

    def generated_name(self) -> str:
        return f"{'_gv_vk_' if self.is_kernel else '_gv_dev_'}{self.source.name}{self.site_suffix()}"

    def wrap(self, args: ast.arguments, body: list[ast.stmt]) -> tuple[ast.arguments, list[ast.stmt]]:
        args.args.insert(0, ast.arg("_t"))
        unset = [ast.Assign([ast.Name(n, ast.Store())], ast.Name("_gv_UNSET", ast.Load()))
                 for n in sorted(self.locals - set(self.params))]  # fmt: skip
        enter = ast.Assign([ast.Name(FRAME, ast.Store())], _method("enter", []))
        leave = ast.Return(_method("leave", [ast.Name(FRAME, ast.Load())]))
        generator = ast.If(ast.Constant(False), [ast.Expr(ast.Yield(None))], [])  # even with no store
        return args, [*unset, enter, *body, generator, leave]

    def _sync_point(self, kind: int, op: str, args: list[ast.expr], line: int) -> ast.expr:
        return _call("_gv_sync", [ast.Name("_t", ast.Load()), ast.Constant(kind), ast.Constant(op),
                                  ast.Tuple(args, ast.Load()), ast.Constant(line)])  # fmt: skip

    def _load(self, array: ast.expr, index: ast.expr, line: int) -> ast.expr:
        # a pause before every load, so that batches read memory in the order of their clocks
        return self._hook("_gv_ld", [array, index], line)

    # ---- statements --------------------------------------------------------------------------
    def _body(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in statements:
            result = self.visit(stmt)
            out += result if isinstance(result, list) else [result]
        return out or [ast.Pass()]

    def _located(self, statements: list[ast.stmt], where: ast.stmt) -> list[ast.stmt]:
        return [ast.copy_location(s, where) for s in statements]

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        # `a.shape[i % 2]`: an attribute's item, which each lane may pick differently (`_gv_item`)
        dynamic = isinstance(node.value, ast.Attribute) and not isinstance(node.slice, ast.Constant)
        if dynamic and isinstance(node.ctx, ast.Load) and self._field_of(node) is None:
            item = ast.Call(ast.Name("_gv_item", ast.Load()), [self.visit(node.value), self.visit(node.slice)], [])
            return ast.copy_location(item, node)
        return super().visit_Subscript(node)

    def visit_If(self, node: ast.If):
        saved = self._temp()
        active = ast.Attribute(ast.Name("_t", ast.Load()), "active", ast.Load())
        out = [ast.Assign([ast.Name(saved, ast.Store())], _method("push", [self.visit(node.test)])),
               ast.If(active, self._body(node.body), [])]  # fmt: skip
        if node.orelse:
            out += [
                ast.Expr(_method("flip", [ast.Name(saved, ast.Load())])),
                ast.If(active, self._body(node.orelse), []),
            ]
        out.append(ast.Expr(_method("pop", [ast.Name(saved, ast.Load())])))
        return self._located(out, node)

    def visit_For(self, node: ast.For):
        it = node.iter
        is_range = (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and it.func.id not in self.locals and not it.keywords and 1 <= len(it.args) <= 3)  # fmt: skip
        if not is_range or not isinstance(node.target, ast.Name):
            raise VectorUnsupported(f"for loops over anything but range() (line {node.lineno})")
        loop = self._temp()
        start = ast.Assign([ast.Name(loop, ast.Store())], _method("loop_range", [self.visit(a) for a in it.args]))
        value = ast.Attribute(ast.Name(loop, ast.Load()), "value", ast.Load())
        body = [*self._assign_names(node.target, value), *self._body(node.body)]
        out = [start, ast.While(_method("next", [], loop), body, []), ast.Expr(_method("done", [], loop))]
        return self._located(out, node)

    def visit_While(self, node: ast.While):
        loop = self._temp()
        start = ast.Assign([ast.Name(loop, ast.Store())], _method("loop_while", []))
        test = ast.BoolOp(ast.And(), [_method("enter", [], loop), _method("test", [self.visit(node.test)], loop)])
        out = [start, ast.While(test, self._body(node.body), []), ast.Expr(_method("done", [], loop))]
        return self._located(out, node)

    def visit_Break(self, node: ast.Break):
        return ast.copy_location(ast.Expr(_method("brk", [])), node)

    def visit_Continue(self, node: ast.Continue):
        return ast.copy_location(ast.Expr(_method("cont", [])), node)

    def visit_Return(self, node: ast.Return):
        value = self.visit(node.value) if node.value is not None else ast.Constant(None)
        return ast.copy_location(ast.Expr(_method("ret", [ast.Name(FRAME, ast.Load()), value])), node)

    def visit_Assign(self, node: ast.Assign):
        result = super().visit_Assign(node)
        out: list[ast.stmt] = []
        for stmt in result if isinstance(result, list) else [result]:
            out += self._merged(stmt) if isinstance(stmt, ast.Assign) else [stmt]
        return self._located(typed_statements(out), node)

    def visit_Assert(self, node: ast.Assert):
        """An assert that holds in every active lane goes on; one that fails anywhere sends the launch to the
        reference engine, which stops at the first thread that fails it and words it."""
        return ast.copy_location(ast.Expr(_method("assert_all", [self.visit(node.test)])), node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if isinstance(node.target, ast.Name):
            value = self._binary(node.op, ast.Name(node.target.id, ast.Load()), self.visit(node.value))
            return self._located(self._assign_names(ast.Name(node.target.id, ast.Store()), value), node)
        result = super().visit_AugAssign(node)
        return self._located(typed_statements(result if isinstance(result, list) else [result]), node)

    def _merged(self, stmt: ast.Assign) -> list[ast.stmt]:
        """`x = v` becomes `x = merge(x, v)`: lanes outside the mask keep their value."""
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return self._assign_names(stmt.targets[0], stmt.value)
        temp = self._temp()
        out: list[ast.stmt] = [ast.Assign([ast.Name(temp, ast.Store())], stmt.value)]
        for target in stmt.targets:
            out += self._assign_names(target, ast.Name(temp, ast.Load()))
        return out

    def _assign_names(self, target: ast.expr, value: ast.expr) -> list[ast.stmt]:
        if isinstance(target, ast.Tuple):
            out: list[ast.stmt] = []
            temp = self._temp()
            out.append(ast.Assign([ast.Name(temp, ast.Store())], value))
            for i, element in enumerate(target.elts):
                item = ast.Subscript(ast.Name(temp, ast.Load()), ast.Constant(i), ast.Load())
                out += self._assign_names(element, item)
            return out
        if isinstance(target, ast.Name) and not target.id.startswith("_gv_"):
            # the name, as the trace reports it, lets the engine record the type numba gives the local
            name = ast.Constant(self._local_name(target.id))
            merged = _method("merge", [ast.Name(target.id, ast.Load()), value, name])
            return [ast.Assign([ast.Name(target.id, ast.Store())], merged)]
        if isinstance(target, ast.Subscript):  # a store into memory inside a tuple target
            return self._store(target, value, ast.Expr(value, lineno=target.lineno))
        return [ast.Assign([target], value)]

    def _local_name(self, name: str) -> str:
        """`acc` for a local of the kernel, `warp_sum.v` for one of a device function."""
        return name if self.is_kernel else f"{self.source.name}.{name}"

    # ---- expressions -------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        return ast.copy_location(self._binary(node.op, self.visit(node.left), self.visit(node.right)), node)

    def _binary(self, op: ast.operator, left: ast.expr, right: ast.expr) -> ast.expr:
        return _typed_or_refused(op, left, right, strict=True)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        combine = "land" if isinstance(node.op, ast.And) else "lor"
        values = [self.visit(v) for v in node.values]
        result = values[-1]
        for value in reversed(values[:-1]):
            result = _method(combine, [value, _thunk(result)])
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("_gv_not", [node.operand]), node)
        return typed_negation(node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        node = self.generic_visit(node)
        if len(node.ops) == 1:
            return typed_comparison(node)
        # a < b < c: each middle operand once, later comparisons only for lanes where earlier hold
        parts = chained_comparisons(node, self._temp)
        result = parts[-1]
        for part in reversed(parts[:-1]):
            result = _method("land", [part, _thunk(result)])
        return ast.copy_location(result, node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        test, body, orelse = self.visit(node.test), self.visit(node.body), self.visit(node.orelse)
        return ast.copy_location(_method("select", [test, _thunk(body), _thunk(orelse)]), node)

    def _call_function(self, node: ast.Call) -> ast.expr:
        target = resolve_call(node.func, self.env, self.locals)
        if target is None or hasattr(target, "py_func"):
            return super()._call_function(node)
        hook = _lanewise_hook(target)
        if hook is None:
            return super()._call_function(node)
        node = self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name(hook, ast.Load()), node.args, node.keywords), node)

def resolve_call(func: ast.expr, env: dict, local_names) -> object:
    """The object a called name or attribute chain refers to, if it is not a local variable."""
    chain = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id in local_names:
        return None
    if func.id in env:
        value = env[func.id]
    elif hasattr(builtins, func.id):
        value = getattr(builtins, func.id)
    else:
        return None
    for attr in reversed(chain):
        value = getattr(value, attr, None)
    return value


def math_hook(target: object) -> str | None:
    """`_gv_fn_sqrt` for math.sqrt (however the kernel named it), None for anything else."""
    if getattr(target, "__module__", None) == "math" and getattr(target, "__name__", "") in MATH_FUNCTIONS:
        return f"_gv_fn_{target.__name__}"
    return None


def cast_hook(target: object) -> str | None:
    """`_gv_cast_int32` for numba's int32 called as a cast (`int32(x)`), None for anything else."""
    if type(target).__module__.startswith("numba.core.types") and hasattr(target, "key"):
        name = "boolean" if str(target) == "bool" else str(target)
    elif isinstance(target, type) and issubclass(target, (np.number, np.bool_)):
        name = np.dtype(target).name  # np.int32(x): the same cast
        name = "boolean" if name == "bool" else name
    else:
        return None
    return f"_gv_cast_{name}" if name in CASTABLE else None


def _lanewise_hook(target: object) -> str | None:
    module = getattr(target, "__module__", None) or (
        "builtins" if type(target).__name__ == "builtin_function_or_method" else ""
    )
    name = getattr(target, "__name__", "")
    if (module, name) in LANEWISE_FUNCTIONS:
        return f"_gv_fn_{LANEWISE_FUNCTIONS[(module, name)]}"
    if module in ("math", "cmath", "builtins") and callable(target) and name not in ("range", "len", "print"):
        raise VectorUnsupported(f"{name}()" if module == "builtins" else f"{module}.{name}")
    return cast_hook(target)  # int32(x), float32(x): numba number types as casts


def typed_statements(statements: list[ast.stmt], strict: bool = True) -> list[ast.stmt]:
    """Arithmetic the base rewrite builds itself (a[i] += v) goes through the typing hooks too (`strict`: an
    operator with no hook is VectorUnsupported, else it stays Python's)."""

    class Typed(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
            node = self.generic_visit(node)
            return ast.copy_location(_typed_or_refused(node.op, node.left, node.right, strict), node)

    return [Typed().visit(s) for s in statements]


def typed_binary(op: ast.operator, left: ast.expr, right: ast.expr) -> ast.expr:
    """`a + b` as `_gv_op_add(a, b)`, the operator with numba's types; an operator with no hook (`@`, which numba
    refuses in a kernel) stays Python's, for Python to word."""
    return _typed_or_refused(op, left, right, strict=False)


def _typed_or_refused(op: ast.operator, left: ast.expr, right: ast.expr, strict: bool) -> ast.expr:
    hook = BINARY_HOOKS.get(type(op))
    if hook is not None:
        return _call(f"_gv_op_{hook}", [left, right])
    if strict:  # the vector flavour says up front what it does not run
        raise VectorUnsupported(f"the operator {type(op).__name__}")
    return ast.BinOp(left, op, right)


def build_vector_program(func) -> Program:
    """The kernel and its device functions in the vector flavour (VectorUnsupported if it cannot)."""
    program = build_program(func, VectorRewriter)
    recursive = _recursive(program)
    if recursive:  # each lane would recurse to its own depth: the reference engine runs one thread at a time
        raise VectorUnsupported(f"the recursive device function {recursive}")
    return program


def _recursive(program: Program) -> str | None:
    """The name of a device function that calls itself, directly or through others, if any."""
    calls = {f.name: set(f.device_functions) for f in program.functions[1:]}  # the kernel is never called
    for start in calls:
        seen, pending = set(), list(calls[start])
        while pending:
            name = pending.pop()
            if name == start:
                return start
            if name not in seen:
                seen.add(name)
                pending += calls.get(name, ())
    return None
