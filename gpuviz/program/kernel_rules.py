"""What a kernel in a fix check may name and reach: the rules program/kernel_file.py holds a student's kernels
to, first on their syntax tree (`check_function`), then, once their imports are loaded, on the objects their
names reach (`check_reaches`). A kernel runs as Python on the simulator; these rules keep it to what a CUDA
kernel can do, so it reaches no file, process or part of gpuviz. numba-cuda refuses the rest anyway."""

from __future__ import annotations

import ast
import builtins
import importlib
import types
from dataclasses import dataclass, field

import numpy as np

from gpuviz.core.errors import KernelSourceError

SAFE_BUILTINS = {"range", "len", "min", "max", "abs", "float", "int", "bool", "round", "pow", "divmod", "complex",
                 "print"}  # fmt: skip
# Attributes and methods of values (arrays, dims, a cooperative grid) a kernel may use.
VALUE_ATTRIBUTES = {"shape", "size", "ndim", "dtype", "real", "imag", "conjugate", "x", "y", "z", "sync"}
REFUSED_NODES = {
    ast.Import: "an import", ast.ImportFrom: "an import", ast.Global: "`global`", ast.Nonlocal: "`nonlocal`",
    ast.Lambda: "a lambda", ast.FunctionDef: "a nested function", ast.AsyncFunctionDef: "a nested function",
    ast.ClassDef: "a class", ast.Try: "`try`", ast.With: "`with`", ast.AsyncWith: "`with`", ast.Yield: "`yield`",
    ast.YieldFrom: "`yield`", ast.Await: "`await`", ast.Delete: "`del`", ast.Raise: "`raise`",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator", ast.List: "a list", ast.Set: "a set", ast.Dict: "a dict",
    ast.JoinedStr: "an f-string", ast.NamedExpr: "`:=`",
}  # fmt: skip
# Modules a name may pass through on its way to what a kernel uses, and where what it uses may come from.
PASSABLE_MODULES = ("numpy", "math", "cmath", "numba", "gpuviz.program.shims")
OBJECT_MODULES = ("math", "cmath", "numba.core.types", "numba.cuda.stubs", "numba.cuda.intrinsics", "numba.cuda.cg",
                  "numba.cuda.types", "gpuviz.program.shims", "gpuviz.program.kernel",
                  "gpuviz.program.script")  # fmt: skip
INTRINSIC_MODULES = ("gpuviz.program.shims", "numba.cuda.stubs")  # cuda.threadIdx, cuda.atomic: rewritten, never run


class KernelFileRefused(KernelSourceError):
    """What a fix check will not run of a student's file: one line, with the line (KernelSourceError.line)."""


@dataclass
class Names:
    """The names the taken statements bind, by what they are."""

    imports: set[str] = field(default_factory=set)
    constants: set[str] = field(default_factory=set)
    devices: set[str] = field(default_factory=set)  # device functions: kernels may call them
    kernels: list[str] = field(default_factory=list)  # kernels: only the host launches them

    def add(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.imports |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Assign):
            self.constants |= {target.id for target in node.targets}
        elif isinstance(node, ast.AnnAssign):
            self.constants.add(node.target.id)
        elif is_device(node):
            self.devices.add(node.name)
        else:
            self.kernels.append(node.name)

    @property
    def usable(self) -> set[str]:
        """What a kernel may name: everything but a kernel (kernels are launched by the host, not called)."""
        return self.imports | self.constants | self.devices


def is_jit(node: ast.FunctionDef) -> bool:
    return len(node.decorator_list) == 1 and _jit_name(node.decorator_list[0]) in ("cuda.jit", "numba.cuda.jit", "jit")


def _jit_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) if isinstance(target, (ast.Name, ast.Attribute)) else ""


def is_device(node: ast.FunctionDef) -> bool:
    decorator = node.decorator_list[0]
    return isinstance(decorator, ast.Call) and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords)


def check_function(function: ast.FunctionDef, names: Names) -> None:
    """A kernel's syntax held to what a CUDA kernel can be: no constructs numba-cuda refuses, names that are
    its own, the file's taken ones (a kernel is launched, never named) or safe built-ins, and attributes of
    values only from a short list (those of imports are checked on the objects: load_kernels)."""
    local = local_names(function)
    for node in ast.walk(function):
        if node is not function and type(node) in REFUSED_NODES:
            refuse(node, f"{REFUSED_NODES[type(node)]} is not something a kernel in a fix check may use")
        elif isinstance(node, ast.Name):
            _check_name(node, local, names)
        elif isinstance(node, ast.Attribute):
            _check_attribute(node, local, names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in local:
            refuse(node, f"{node.func.id}() calls a value: a kernel calls functions by their names")


def local_names(function: ast.FunctionDef) -> set[str]:
    arguments = function.args
    names = {a.arg for a in arguments.args + arguments.kwonlyargs + arguments.posonlyargs}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return names | {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _check_name(node: ast.Name, local: set[str], names: Names) -> None:
    if node.id.startswith("_") and node.id != "_":
        refuse(node, f"{node.id!r}: names that start with _ are not for kernels in a fix check")
    if isinstance(node.ctx, ast.Load) and node.id in set(names.kernels) - local:
        refuse(node, f"{node.id!r} is a kernel: kernels are launched by the host, not named in a kernel")
    if isinstance(node.ctx, ast.Load) and node.id not in local | names.usable | SAFE_BUILTINS | set(names.kernels):
        refuse(node, f"{node.id!r} is not something a kernel in a fix check may use: kernels may use their own names, "
                      "the file's device functions, constants and imports of numpy, math and numba, and range, len, "
                      "min, max, abs, float, int, bool, round, pow, divmod, complex and print")  # fmt: skip


def _check_attribute(node: ast.Attribute, local: set[str], names: Names) -> None:
    if node.attr.startswith("_"):
        refuse(node, f".{node.attr}: attributes that start with _ are not for kernels")
    if not isinstance(node.ctx, ast.Load):  # `np.testing.assert_equal = ...` would change the lesson's own check
        refuse(node, f"{ast.unparse(node)} = ...: a kernel changes arrays, never attributes")
    base = root(node)
    if isinstance(base, ast.Name):
        _check_name(base, local, names)  # `os.getpid`: say what `os` is not, before what getpid is not
    of_an_import = isinstance(base, ast.Name) and base.id in names.imports - local
    if not of_an_import and node.attr not in VALUE_ATTRIBUTES:
        refuse(node, f".{node.attr} of a value is not something a kernel in a fix check may use "
                      f"(its values have {', '.join(sorted(VALUE_ATTRIBUTES))})")  # fmt: skip


def root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def refuse(node: ast.AST, message: str) -> None:
    line = getattr(node, "lineno", None)
    raise KernelFileRefused(f"line {line}: {message}" if line else message, line)


def check_reaches(statement: ast.stmt, namespace: dict) -> None:
    """Every name of an import, and every chain of attributes from one, must reach what a kernel may use."""
    imported = {name for name in namespace if not name.startswith("__")}
    local = local_names(statement) if isinstance(statement, ast.FunctionDef) else set()
    inner = {id(node.value) for node in ast.walk(statement) if isinstance(node, ast.Attribute)}
    for node in ast.walk(statement):
        if id(node) in inner or not isinstance(node, (ast.Name, ast.Attribute)):
            continue  # a chain is checked whole, from its outermost attribute
        chain = _chain(node)
        if chain and chain[0] in imported - local:
            _check_reach(node, chain, namespace)


def _chain(node: ast.expr) -> list[str]:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return [node.id, *reversed(names)] if isinstance(node, ast.Name) else []


def _check_reach(node: ast.AST, chain: list[str], namespace: dict) -> None:
    """Follow the chain through modules a kernel may use to what it names; past an intrinsic (cuda.atomic,
    whose attributes are intrinsics too) nothing is looked up; past any other value only its attributes in
    VALUE_ATTRIBUTES may follow."""
    value = namespace[chain[0]]
    for step, attribute in enumerate(chain[1:], 1):
        if not allowed_object(value):
            break
        if _is_intrinsic(value):
            return
        if not isinstance(value, types.ModuleType):
            if any(rest not in VALUE_ATTRIBUTES for rest in chain[step:]):
                refuse(node, f"{'.'.join(chain)} is not something a kernel in a fix check may use")
            return
        value = getattr(value, attribute, None) or _submodule(value, attribute)
        if value is None:
            refuse(node, f"{'.'.join(chain[: step + 1])} is not something a kernel can use")
    if not allowed_object(value):
        refuse(node, f"{'.'.join(chain)} is not something a kernel in a fix check may use")


def _submodule(module: types.ModuleType, name: str) -> types.ModuleType | None:
    """numba.cuda's submodules that load when first named (`cuda.cg` on the GPU)."""
    if not module.__name__.startswith("numba.cuda"):
        return None
    try:
        return importlib.import_module(f"{module.__name__}.{name}")
    except ImportError:
        return None


def _is_intrinsic(value: object) -> bool:
    owner = value if isinstance(value, type) else type(value)
    return owner.__module__.startswith(INTRINSIC_MODULES)


def allowed_object(value: object) -> bool:
    """What a kernel's names may reach: numbers, NumPy's ufuncs, scalar types and dtypes, the math modules'
    functions, numba's types and CUDA's intrinsics (gpuviz's stand-ins on the simulator), and the modules
    on the way to them."""
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith(PASSABLE_MODULES)
    if isinstance(value, (bool, int, float, complex, np.number, np.ufunc, np.dtype)):
        return True
    if isinstance(value, type) and issubclass(value, np.generic):
        return True
    if any(value is builtin for builtin in vars(builtins).values()):
        return False  # reached as np.open or math.__builtins__: not through a module a kernel may use
    owner = value if isinstance(value, type) else type(value)
    module = getattr(value, "__module__", None) if callable(value) else None
    return any((name or "").startswith(OBJECT_MODULES) for name in (module, owner.__module__))
