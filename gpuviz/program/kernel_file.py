"""The kernels of a student's file, taken by syntax tree: what a fix check runs of it.

A fix check runs the student's kernels and device functions under the lesson's own host script, so that
nothing the student writes outside a kernel ever runs (a monkeypatch of the checker, an `os._exit`, a
print of a verdict, a trace file of its own). Taken are: `@cuda.jit` functions, the imports they use
(numpy, math, cmath, numba) and module constants (numbers and arithmetic on them); everything else of
the file is left out. What is taken is held to what a CUDA kernel can do, first on its syntax tree
(`take_kernels`) and then, once its imports are loaded, on the objects its names reach (`load_kernels`):
so a kernel, which on the simulator runs as Python, reaches no file, process or part of gpuviz either.
Refusals are one line with the student's line number.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpuviz.core.errors import KernelSourceError

MAX_BYTES = 1 << 20
MODULE_NAME = "gpuviz_student_kernels"
IMPORTABLE = ("numpy", "math", "cmath", "numba", "numba.cuda")  # what a taken import may name
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


@dataclass(frozen=True)
class TakenKernels:
    text: str  # the file with only what is taken, each statement at its own lines (the rest blank)
    kernels: tuple[str, ...]  # the @cuda.jit functions, in the order of the file


def take_kernels(text: str, needed: tuple[str, ...] = (), name: str = "your file") -> TakenKernels:
    """The kernels, imports and constants of a student's file, checked; `needed` are kernels it must have."""
    if len(text.encode()) > MAX_BYTES:
        raise KernelFileRefused(f"{name} is over {MAX_BYTES >> 20} MiB: a fix check reads no more")
    tree = _parse(text, name)
    taken, names = [], Names()
    for node in tree.body:
        if _is_taken(node, names):
            taken.append(node)
            names.add(node)
    missing = [kernel for kernel in needed if kernel not in names.kernels]
    if missing:
        raise KernelFileRefused(f"{name} has no kernel {missing[0]!r}: the lesson's script launches it by that name")
    for node in taken:
        if isinstance(node, ast.FunctionDef):
            _check_function(node, names)
    return TakenKernels(_only(text, tree, taken), tuple(names.kernels))


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
        elif _is_device(node):
            self.devices.add(node.name)
        else:
            self.kernels.append(node.name)

    @property
    def usable(self) -> set[str]:
        """What a kernel may name: everything but a kernel (kernels are launched by the host, not called)."""
        return self.imports | self.constants | self.devices


def kernel_names(text: str) -> tuple[str, ...]:
    """The kernels (not device functions) a lesson's script defines at its top level: what its host launches."""
    tree = _parse(text, "the lesson's script")
    return tuple(node.name for node in tree.body
                 if isinstance(node, ast.FunctionDef) and _is_jit(node) and not _is_device(node))  # fmt: skip


def host_with_kernels_of(host_text: str, kernels_path: str | Path) -> str:
    """The lesson's script with its @cuda.jit functions taken out (their lines left blank, so the host's lines
    keep their numbers) and its kernels bound to those of the kernel file at `kernels_path` instead."""
    tree = _parse(host_text, "the lesson's script")
    lines = host_text.splitlines()
    loaded = False
    for node in (n for n in tree.body if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        first, last = _first_line(node), node.end_lineno or node.lineno
        lines[first - 1 : last] = [""] * (last - first + 1)
        said = [] if loaded else ["from gpuviz.program.kernel_file import load_kernels as _gv_load",
                                  f"_gv_kernels = _gv_load({str(kernels_path)!r})"]  # fmt: skip
        said += [] if _is_device(node) else [f"{node.name} = _gv_kernels.{node.name}"]
        lines[first - 1] = "; ".join(said)
        loaded = True
    return "\n".join(lines) + "\n"


def _parse(text: str, name: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise KernelFileRefused(f"{name} line {exc.lineno}: invalid syntax: {exc.msg}", exc.lineno) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise KernelFileRefused(f"{name} cannot be read as Python: {type(exc).__name__}") from None


def _is_taken(node: ast.stmt, names: Names) -> bool:
    if isinstance(node, ast.Import):
        return all(alias.name in IMPORTABLE for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and node.module in IMPORTABLE and all(a.name != "*" for a in node.names)
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) for t in node.targets) and _is_constant(node.value, names)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.value is not None and _is_constant(node.value, names)
    return isinstance(node, ast.FunctionDef) and _is_jit(node)


def _is_constant(value: ast.expr, names: Names) -> bool:
    """Numbers, constants taken before, imports and their attributes (math.pi), and arithmetic or tuples
    of those."""
    for node in ast.walk(value):
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, complex, bool)):
                return False
        elif isinstance(node, ast.Name):
            if node.id not in names.imports | names.constants:
                return False
        elif isinstance(node, ast.Attribute):
            root = _root(node)
            if node.attr.startswith("_") or not (isinstance(root, ast.Name) and root.id in names.imports):
                return False
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.operator, ast.unaryop, ast.Load)):
            return False
    return True


def _is_jit(node: ast.FunctionDef) -> bool:
    return len(node.decorator_list) == 1 and _jit_name(node.decorator_list[0]) in ("cuda.jit", "numba.cuda.jit", "jit")


def _jit_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) if isinstance(target, (ast.Name, ast.Attribute)) else ""


def _is_device(node: ast.FunctionDef) -> bool:
    decorator = node.decorator_list[0]
    return isinstance(decorator, ast.Call) and any(
        k.arg == "device" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords)


def _check_function(function: ast.FunctionDef, names: Names) -> None:
    """A kernel's syntax held to what a CUDA kernel can be: no constructs numba-cuda refuses, names that are
    its own, the file's taken ones (a kernel is launched, never named) or safe built-ins, and attributes of
    values only from a short list (those of imports are checked on the objects: load_kernels)."""
    local = _local_names(function)
    for node in ast.walk(function):
        if node is not function and type(node) in REFUSED_NODES:
            _refuse(node, f"{REFUSED_NODES[type(node)]} is not something a kernel in a fix check may use")
        elif isinstance(node, ast.Name):
            _check_name(node, local, names)
        elif isinstance(node, ast.Attribute):
            _check_attribute(node, local, names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in local:
            _refuse(node, f"{node.func.id}() calls a value: a kernel calls functions by their names")


def _local_names(function: ast.FunctionDef) -> set[str]:
    arguments = function.args
    names = {a.arg for a in arguments.args + arguments.kwonlyargs + arguments.posonlyargs}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return names | {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _check_name(node: ast.Name, local: set[str], names: Names) -> None:
    if node.id.startswith("_") and node.id != "_":
        _refuse(node, f"{node.id!r}: names that start with _ are not for kernels in a fix check")
    if isinstance(node.ctx, ast.Load) and node.id in set(names.kernels) - local:
        _refuse(node, f"{node.id!r} is a kernel: kernels are launched by the host, not named in a kernel")
    if isinstance(node.ctx, ast.Load) and node.id not in local | names.usable | SAFE_BUILTINS | set(names.kernels):
        _refuse(node, f"{node.id!r} is not something a kernel in a fix check may use: kernels may use their own names, "
                      "the file's device functions, constants and imports of numpy, math and numba, and range, len, "
                      "min, max, abs, float, int, bool, round, pow, divmod, complex and print")  # fmt: skip


def _check_attribute(node: ast.Attribute, local: set[str], names: Names) -> None:
    if node.attr.startswith("_"):
        _refuse(node, f".{node.attr}: attributes that start with _ are not for kernels")
    root = _root(node)
    if isinstance(root, ast.Name):
        _check_name(root, local, names)  # `os.getpid`: say what `os` is not, before what getpid is not
    of_an_import = isinstance(root, ast.Name) and root.id in names.imports - local
    if not of_an_import and node.attr not in VALUE_ATTRIBUTES:
        _refuse(node, f".{node.attr} of a value is not something a kernel in a fix check may use "
                      f"(its values have {', '.join(sorted(VALUE_ATTRIBUTES))})")  # fmt: skip


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _refuse(node: ast.AST, message: str) -> None:
    line = getattr(node, "lineno", None)
    raise KernelFileRefused(f"line {line}: {message}" if line else message, line)


def _only(text: str, tree: ast.Module, taken: list[ast.stmt]) -> str:
    """The file's text with only the taken statements, at their own lines; a taken statement that shares a
    line with another statement is refused (it cannot be taken whole)."""
    lines = text.splitlines()
    keep = [""] * len(lines)
    spans = [(_first_line(node), node.end_lineno or node.lineno, node) for node in tree.body]
    for first, last, node in spans:
        if node in taken:
            shared = [other for f, la, other in spans if other is not node and f <= last and la >= first]
            if shared:
                _refuse(node, "write one statement a line here: a fix check takes statements whole")
            keep[first - 1 : last] = lines[first - 1 : last]
    return "\n".join(keep) + "\n"


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def load_kernels(path: str | Path) -> types.ModuleType:
    """The kernel file a fix check wrote (only what take_kernels took), loaded as a module of its own: its
    imports first, then every name its kernels, decorators and constants reach is checked on the objects
    it reaches, and only then does the rest run (constants, decorators)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    tree = _parse(text, path.name)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    module = importlib.util.module_from_spec(spec)
    imports = ast.Module([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[])
    exec(compile(imports, str(path), "exec"), module.__dict__)  # noqa: S102  (only imports of IMPORTABLE modules)
    for node in tree.body:
        _check_reaches(node, module.__dict__)
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102  (what take_kernels took and checked)
    return module


def _check_reaches(statement: ast.stmt, namespace: dict) -> None:
    """Every name of an import, and every chain of attributes from one, must reach what a kernel may use."""
    imported = {name for name in namespace if not name.startswith("__")}
    local = _local_names(statement) if isinstance(statement, ast.FunctionDef) else set()
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
                _refuse(node, f"{'.'.join(chain)} is not something a kernel in a fix check may use")
            return
        value = getattr(value, attribute, None) or _submodule(value, attribute)
        if value is None:
            _refuse(node, f"{'.'.join(chain[: step + 1])} is not something a kernel can use")
    if not allowed_object(value):
        _refuse(node, f"{'.'.join(chain)} is not something a kernel in a fix check may use")


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
