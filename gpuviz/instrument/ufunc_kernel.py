"""The kernel `@vectorize(target='cuda')` makes of a scalar function, built on the function's own lines.

numba-cuda generates `__out__[__tid__] = __core__(a0[__tid__], ...)` under `if __tid__ < __out__.shape[0]`
with `__tid__ = cuda.grid(1)`, and inlines the scalar function. Here the same kernel is built from the
scalar function's syntax tree so that the trace shows the function's own text as the kernel: the reads
of the inputs sit on the `def` line (parameter `x` is the array, its element `x_i`), and each `return value`
becomes the write of the output at the element index there.
"""

from __future__ import annotations

import ast
import copy

from gpuviz.instrument.source import KernelSource, source_of

CUDA_NAME = "_gv_cuda"  # the kernel's name for numba.cuda (the script may not import it)


def ufunc_kernel(scalar, cuda_module) -> object:
    """A plain Python function: the element-wise kernel of `scalar`, with `_gpuviz_source` naming the
    syntax tree the rewrite traces (the scalar function's lines)."""
    source = source_of(scalar)
    node = _kernel_node(source.node)
    env = dict(scalar.__globals__)
    for name, cell in zip(scalar.__code__.co_freevars, scalar.__closure__ or ()):
        env[name] = cell.cell_contents  # numba reads what a function closes over once, when it compiles
    env[CUDA_NAME] = cuda_module
    bare = copy.copy(node)
    bare.decorator_list = []
    exec(compile(ast.fix_missing_locations(ast.Module([bare], [])), source.filename, "exec"), env)
    kernel = env[node.name]
    kernel._gpuviz_source = KernelSource(source.name, source.filename, source.text, node)
    return kernel


def is_vectorized(node: ast.FunctionDef) -> bool:
    """A function decorated `@vectorize(...)` or `@cuda.vectorize(...)` (read from the text: a lesson's
    checks are held against its ufunc's kernel before anything runs)."""
    calls = [d.func for d in node.decorator_list if isinstance(d, ast.Call)]
    names = [f.id if isinstance(f, ast.Name) else getattr(f, "attr", None) for f in calls]
    return "vectorize" in names


def kernel_names(scalar: ast.FunctionDef) -> tuple[str, str]:
    """The element index's and the output array's names in the kernel of `scalar`: `i` and `out` unless
    the function uses them already."""
    used = {n.id for n in ast.walk(scalar) if isinstance(n, ast.Name)} | {a.arg for a in scalar.args.args}
    return _free("i", used), _free("out", used)


def _kernel_node(scalar: ast.FunctionDef) -> ast.FunctionDef:
    used = {n.id for n in ast.walk(scalar) if isinstance(n, ast.Name)} | {a.arg for a in scalar.args.args}
    index, out = kernel_names(scalar)
    line = scalar.lineno
    params = [a.arg for a in scalar.args.args]
    # the arrays keep the parameters' names (the trace names arrays so); the body's values get their own
    values = {p: _free(f"{p}_{index}", used) for p in params}
    reads = [_at(ast.parse(f"{values[p]} = {p}[{index}]").body[0], line) for p in params]
    body = [_Rewritten(out, index, values).visit(copy.deepcopy(s)) for s in scalar.body]
    guard = _at(ast.parse(f"if {index} < {out}.shape[0]: pass").body[0], line)
    guard.body = reads + _flat(body)
    start = _at(ast.parse(f"{index} = {CUDA_NAME}.grid(1)").body[0], line)
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in [*params, out]], kwonlyargs=[],
                         kw_defaults=[], defaults=[])  # fmt: skip
    kernel = ast.FunctionDef(scalar.name, args, [start, guard], scalar.decorator_list, None)
    return ast.fix_missing_locations(ast.copy_location(kernel, scalar))


class _Rewritten(ast.NodeTransformer):
    """`return value` -> `out[i] = value; return`, on the return's line; a parameter `x` -> its value `x_i`."""

    def __init__(self, out: str, index: str, values: dict[str, str]):
        self.out, self.index, self.values = out, index, values

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(self.values.get(node.id, node.id), node.ctx), node)

    def visit_Return(self, node: ast.Return) -> list[ast.stmt]:
        target = ast.Subscript(ast.Name(self.out, ast.Load()), ast.Name(self.index, ast.Load()), ast.Store())
        value = self.visit(node.value) if node.value is not None else ast.Constant(None)
        return [ast.copy_location(ast.Assign([target], value), node), ast.copy_location(ast.Return(None), node)]


def _flat(statements: list) -> list[ast.stmt]:
    return [s for item in statements for s in (item if isinstance(item, list) else [item])]


def _at(node: ast.stmt, line: int) -> ast.stmt:
    for child in ast.walk(node):
        if hasattr(child, "lineno"):
            child.lineno = child.end_lineno = line
            child.col_offset, child.end_col_offset = 0, 0
    return node


def _free(name: str, used: set[str]) -> str:
    while name in used:
        name += "_"
    return name
