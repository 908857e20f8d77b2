"""What numba-cuda refuses to compile, refused here too, with the user's line.

numba-cuda's typing (which runs without a GPU) rejects these; the simulator checks them on the
syntax tree so that "runs on the simulator" and "compiles for the GPU" mean the same thing.
"""

from __future__ import annotations

import ast
import builtins
import types

from gpuviz.instrument.numba_cuda_names import NUMBA_CUDA_MATH

# Built-ins numba-cuda cannot compile: I/O, introspection, dynamic code and Python containers.
REFUSED_BUILTINS = {
    "open": "file I/O", "input": "console input", "exec": "dynamic code", "eval": "dynamic code",
    "compile": "dynamic code", "__import__": "imports", "globals": "introspection", "locals": "introspection",
    "vars": "introspection", "dir": "introspection", "getattr": "introspection", "setattr": "introspection",
    "delattr": "introspection", "hasattr": "introspection", "breakpoint": "debuggers", "help": "help",
    "exit": "exiting", "quit": "exiting", "list": "Python lists", "dict": "Python dicts", "set": "Python sets",
    "sorted": "Python lists", "map": "iterators of functions", "filter": "iterators of functions",
    "str": "strings", "repr": "strings", "format": "strings", "bytes": "bytes", "bytearray": "bytes",
    "object": "Python objects", "type": "Python objects", "super": "Python objects", "id": "Python objects",
    "memoryview": "Python objects", "iter": "iterators", "next": "iterators", "hash": "hashing",
}  # fmt: skip
# NumPy's array makers: numba-cuda allocates no array inside a kernel (its memory runtime is off)
ARRAY_MAKERS = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
                "array", "asarray", "linspace", "copy", "concatenate", "stack"}  # fmt: skip
PYTHON_TYPES = {"float", "int", "complex", "bool"}
# The library device functions (what `@cuda.jit(link=...)` links) the simulator runs as models.
LINKED_MODELS = (
    "nvmath-python's device matmul (Matmul.execute, matmul); CCCL's block sum, reduce, inclusive_sum, "
    "exclusive_sum, scan with '+', load and store"
)
# Modules whose functions a kernel may call (numba-cuda compiles these); the simulator's own too.
ALLOWED_MODULES = ("math", "cmath", "operator", "numpy", "numba", "gpuviz.program.shims")


def refusals(function: ast.FunctionDef, env: dict, is_kernel: bool, local_names: set[str]):
    """(node, message) for each construct numba-cuda would refuse, in source order (in the body: the
    decorator is host code, `@vectorize([...], target='cuda')` included)."""
    for node in (n for stmt in function.body for n in ast.walk(stmt)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, "import statements are not supported in CUDA kernels; import at the top of the script"
        elif isinstance(node, ast.Return) and is_kernel and not _returns_nothing(node):
            yield node, "CUDA kernel must have void return type (write results into an array argument)"
        elif isinstance(node, ast.Call):
            message = _refused_call(node, env, local_names)
            if message:
                yield node, message


def refused_shape(shape: ast.expr, env: dict, local_names: set[str], literal_locals: set[str]) -> str | None:
    """Why a shared/local array shape is not a compile-time constant, or None when it is."""
    if isinstance(shape, ast.Tuple):
        return next((m for m in (refused_shape(e, env, local_names, literal_locals) for e in shape.elts) if m), None)
    if isinstance(shape, ast.Constant) and isinstance(shape.value, int):
        return None
    if isinstance(shape, ast.BinOp) and _all_constants(shape):
        return None  # Python folds 4 * 4 before numba sees it
    if isinstance(shape, ast.Name) and (
        shape.id in literal_locals or (shape.id not in local_names and _is_int_shape(env.get(shape.id)))
    ):
        return None
    shown = ast.unparse(shape)
    return (
        f"the shape {shown} is not a compile-time constant; numba-cuda needs an integer literal, a global "
        f"integer, or a tuple of those (compute {shown} outside the kernel into a global constant)"
    )


def constant_locals(function: ast.FunctionDef) -> set[str]:
    """Local names whose every assignment is an integer literal (numba types them as literals)."""
    values: dict[str, bool] = {}
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                is_int = isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)
                values[target.id] = values.get(target.id, True) and is_int
        if isinstance(node, (ast.AugAssign, ast.For)) and isinstance(getattr(node, "target", None), ast.Name):
            values[node.target.id] = False
    return {name for name, constant in values.items() if constant}


def _all_constants(node: ast.expr) -> bool:
    return all(isinstance(n, (ast.Constant, ast.BinOp, ast.operator, ast.UnaryOp, ast.unaryop)) for n in ast.walk(node))


def _is_int_shape(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_is_int_shape(v) for v in value)
    return hasattr(value, "__index__") and not isinstance(value, bool)


def _returns_nothing(node: ast.Return) -> bool:
    return node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)


def _refused_call(node: ast.Call, env: dict, local_names: set[str]) -> str | None:
    func = node.func
    refused = _refused_numba_call(node, env, local_names)
    if refused:
        return refused
    if isinstance(func, ast.Name) and func.id not in local_names:
        if func.id in REFUSED_BUILTINS and func.id not in env:
            return f"{func.id}() is not supported in CUDA kernels ({REFUSED_BUILTINS[func.id]} cannot run on the GPU)"
        value = env.get(func.id)
        if isinstance(value, (types.FunctionType, type)) and not _allowed_module(value):
            kind = "class" if isinstance(value, type) else "function"
            return (
                f"Untyped global name '{func.id}': a plain Python {kind} cannot be called from a CUDA kernel "
                f"(decorate it with @cuda.jit(device=True))"
            )
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id not in local_names:
        module = env.get(root.id)
        if isinstance(module, types.ModuleType) and not module.__name__.startswith(ALLOWED_MODULES):
            name = ast.unparse(func)
            return f"{name}() is not supported in CUDA kernels (module {module.__name__} cannot run on the GPU)"
    return None


def _refused_numba_call(node: ast.Call, env: dict, local_names: set[str]) -> str | None:
    """Calls into allowed modules that numba-cuda still refuses: math's functions it does not compile, NumPy's
    array makers (and `a.copy()`), pow() with a modulus, and Python's own types as an array's dtype."""
    func, shown = node.func, ast.unparse(node.func)
    root = func.value if isinstance(func, ast.Attribute) else None
    module = env.get(root.id) if isinstance(root, ast.Name) and root.id not in local_names else None
    name = getattr(module, "__name__", None) if isinstance(module, types.ModuleType) else None
    if name == "math" and func.attr not in NUMBA_CUDA_MATH:
        return f"{shown}() is not one of math's functions numba-cuda compiles; the kernel would not compile"
    if (name == "numpy" and func.attr in ARRAY_MAKERS) or (
        isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args and name is None
    ):
        return (f"{shown}() makes a new array, which numba-cuda cannot do inside a kernel (its memory runtime is "
                "off): use cuda.local.array, or pass the array in")  # fmt: skip
    if isinstance(func, ast.Name) and func.id == "pow" and "pow" not in env and len(node.args) == 3:
        return "pow() with a modulus is not supported in CUDA kernels; write (x ** y) % m"
    if shown.endswith(("shared.array", "local.array")):
        dtype = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if isinstance(dtype, ast.Name) and dtype.id in PYTHON_TYPES and dtype.id not in env:
            return (f"{shown} takes a NumPy or numba type as its dtype (np.float64 or float64), not Python's "
                    f"{dtype.id}; numba-cuda has no {shown} of it")  # fmt: skip
    return None


def _allowed_module(value: object) -> bool:
    module = getattr(value, "__module__", None) or ""
    return module.startswith(ALLOWED_MODULES) or value in vars(builtins).values()
