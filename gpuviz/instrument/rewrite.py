"""Rewrite a kernel's syntax tree so that every memory access, barrier and warp collective is a hook.

The same rewrite serves every backend: the simulator also turns each hook into a point where
threads interleave (a `yield`), which is what lets lockstep warps lose updates the way hardware does.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType

import numpy as np

from gpuviz.core.errors import KernelSourceError
from gpuviz.instrument.device_signatures import declared_types
from gpuviz.instrument.endless import endless_loops
from gpuviz.instrument.numba_cuda_names import NUMBA_CUDA_NAMES
from gpuviz.instrument.refusals import LINKED_MODELS, constant_locals, refusals, refused_shape
from gpuviz.instrument.source import KernelSource, source_of

CUDA_MODULES = {"numba.cuda", "gpuviz.program.shims.cuda"}

THREAD_ATTRS = {
    "threadIdx.x": "tx", "threadIdx.y": "ty", "threadIdx.z": "tz",
    "blockIdx.x": "bx", "blockIdx.y": "by", "blockIdx.z": "bz",
    "laneid": "lane",
}  # fmt: skip
LAUNCH_CONSTANTS = {
    "blockDim.x": "_gv_bdx", "blockDim.y": "_gv_bdy", "blockDim.z": "_gv_bdz",
    "gridDim.x": "_gv_gdx", "gridDim.y": "_gv_gdy", "gridDim.z": "_gv_gdz",
    "warpsize": "_gv_warpsize",
}  # fmt: skip
BARRIERS = {
    "syncthreads": "sync",
    "syncthreads_count": "count",
    "syncthreads_and": "and",
    "syncthreads_or": "or",
}
COLLECTIVES = {
    "syncwarp": "syncwarp",
    "activemask": "activemask",
    "shfl_sync": "shfl",
    "shfl_up_sync": "shfl_up",
    "shfl_down_sync": "shfl_down",
    "shfl_xor_sync": "shfl_xor",
    "ballot_sync": "ballot",
    "all_sync": "all",
    "any_sync": "any",
    "eq_sync": "eq",
    "match_any_sync": "match_any",
    "match_all_sync": "match_all",
}
ATOMICS = {
    "add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin",
    "inc", "dec", "exch", "cas", "compare_and_swap",
}  # fmt: skip
# cuda functions that need no scheduling: hook name, and whether it takes the thread context.
PLAIN_CALLS = {
    "grid": ("_gv_grid", True),
    "gridsize": ("_gv_gridsize", False),
    "local.array": ("_gv_local", False),
    "threadfence": ("_gv_fence", True),  # device-wide: the race analysis orders by it (core/analysis/fence_order.py)
    "threadfence_block": ("_gv_noop", False),  # block scope: no order for the race analysis (may over-report)
    "threadfence_system": ("_gv_fence", True),
    "nanosleep": ("_gv_noop", False),
    "lanemask_lt": ("_gv_lanemask_lt", True),
    "popc": ("_gv_popc", False),
    "brev": ("_gv_brev", False),
    "clz": ("_gv_clz", False),
    "ffs": ("_gv_ffs", False),
    "fma": ("_gv_fma", False),
    "cbrt": ("_gv_cbrt", False),
    "selp": ("_gv_selp", False),
    "cg.this_grid": ("_gv_this_grid", False),
}
# a number's own attributes (x.real, x.conjugate): `a[i].real` is not a record's field
NUMBER_ATTRIBUTES = frozenset(dir(np.generic))
ARRAY_DECLARATIONS = {"shared.array", "local.array"}  # their shapes must be compile-time constants
BARRIER, COLLECTIVE = 0, 1  # first item of what a sync point yields

UNSUPPORTED = {
    ast.Lambda: "lambda functions",
    ast.FunctionDef: "functions defined inside a kernel",
    ast.AsyncFunctionDef: "async functions",
    ast.ClassDef: "classes",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Await: "await",
    ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements",
    ast.With: "with statements",
    ast.Try: "try statements",
    ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.Dict: "dicts",
    ast.Set: "sets",
    ast.List: "lists (use a tuple or cuda.local.array)",
    ast.JoinedStr: "f-strings (pass the values to print instead)",
}


@dataclass
class Rewritten:
    """One kernel or device function after rewriting: its generated name and compiled code."""

    name: str
    generated_name: str
    source: KernelSource
    code: CodeType
    params: list[str]
    device_functions: dict[str, object] = field(default_factory=dict)
    env: dict = field(default_factory=dict, repr=False)  # the globals this function sees
    global_arrays: dict[str, object] = field(default_factory=dict, repr=False)  # module arrays it reads
    cooperative: bool = False  # it syncs the whole grid (cuda.cg.this_grid().sync())
    unrecorded: list[str] = field(default_factory=list)  # accesses it makes that no hook sees, in words
    modelled: list[dict] = field(default_factory=list)  # library calls it makes that ran as gpuviz's models


def cuda_path(value: object, rest: list[str]) -> str | None:
    """The numba.cuda path an object and its attribute chain name ('threadIdx.x'), if any."""
    tagged = getattr(value, "_gpuviz_path", None)
    if isinstance(tagged, str):
        return ".".join([tagged, *rest]) if tagged else ".".join(rest)
    module_name = getattr(value, "__name__", None)
    if type(value).__name__ == "module":
        if module_name in CUDA_MODULES:
            return ".".join(rest)
        if module_name == "numba" and rest[:1] == ["cuda"]:
            return ".".join(rest[1:])
        return None
    owner = getattr(value, "__module__", None) or ""
    if owner.startswith("numba.cuda") and hasattr(value, "__qualname__"):
        return ".".join([value.__qualname__, *rest])
    return None


@dataclass(frozen=True)
class ModelledCall:
    """A device function rewritten for one call site of a library model: every access it makes carries
    the line of the user's call (the model's own lines are gpuviz's, not the script's)."""

    py_func: object
    call_line: int


def is_device_function(value: object) -> bool:
    """A `@cuda.jit` function a kernel calls or passes on: `device=True` or not, numba-cuda compiles it
    as a device function there, and so does gpuviz."""
    return hasattr(value, "py_func")


class _Names(ast.NodeVisitor):
    """Local names of a function, and the ones bound to cuda.local.array (private to a thread)."""

    def __init__(self) -> None:
        self.stored: set[str] = set()
        self.loaded: list[ast.Name] = []

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.stored.add(node.id)
        else:
            self.loaded.append(node)


class KernelRewriter(ast.NodeTransformer):
    """Turns one function's body into instrumented code; `yields` adds simulator interleaving."""

    def __init__(self, source: KernelSource, env: dict, is_kernel: bool = True, yields: bool = True,
                 call_line: int | None = None):  # fmt: skip
        self.source = source
        self.call_line = call_line  # a library model's call site: its accesses carry the user's line
        self.env = env
        self.is_kernel = is_kernel
        self.yields = yields
        self.devices: dict[str, object] = {}
        self._temps = itertools.count()
        names = _Names()
        for stmt in source.node.body:
            names.visit(stmt)
        self.params = [a.arg for a in source.node.args.args]
        self.locals = names.stored | set(self.params)
        self._loaded = names.loaded
        self.private = self._private_arrays()
        self.grid_groups = self._grid_groups()
        # numba specialises a device function on literal arguments: its parameters may be constants
        self.literal_locals = constant_locals(source.node) | (set() if is_kernel else set(self.params))
        self.cooperative = False
        self.unrecorded: list[str] = []
        self.modelled: list[dict] = []
        self._target_name = "shared"

    # ---- checks before rewriting -------------------------------------------------------------
    def check(self) -> None:
        args = self.source.node.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            self._fail(self.source.node, "kernels cannot take *args or **kwargs; name each parameter")
        # the body only: the decorator is host code (`@cuda.jit(link=[...])` may well hold a list)
        for node in (n for stmt in self.source.node.body for n in ast.walk(stmt)):
            what = UNSUPPORTED.get(type(node))
            if what:
                self._fail(node, f"{what} are not supported in CUDA kernels")
        for node, message in refusals(self.source.node, self.env, self.is_kernel, self.locals):
            self._fail(node, message)
        known = self.locals | set(self.env) | set(dir(builtins))
        for node in self._loaded:
            if node.id not in known:
                self._fail(node, f"name '{node.id}' is not defined")

    def global_arrays(self) -> dict[str, object]:
        """Module-level (or closed-over) arrays the function reads: numba freezes them as constants."""
        names = {node.id for node in self._loaded if node.id not in self.locals}
        for name in sorted(names):
            if getattr(self.env.get(name), "_gpuviz_device_array", False):
                self._note(self.source.node, f"accesses to the module-global device array {name}")
        return {name: self.env[name] for name in names if is_frozen_array(self.env.get(name))}

    def generated_name(self) -> str:
        return f"{'_gv_k_' if self.is_kernel else '_gv_dev_'}{self.source.name}{self.site_suffix()}"

    def site_suffix(self) -> str:
        """A model runs once per call site (each with the line of its call): its names say which."""
        return f"_at{self.call_line}" if self.call_line is not None else ""

    def compile_filename(self) -> str:
        return self.source.filename

    def wrap(self, args: ast.arguments, body: list[ast.stmt]) -> tuple[ast.arguments, list[ast.stmt]]:
        """Parameters and body of the generated function: the thread context comes first."""
        args.args.insert(0, ast.arg("_t"))
        if self.yields:
            if self.is_kernel:  # after a device function's last store, its caller goes on: keep that pause
                _drop_final_pauses(body)
            # Make sure it is a generator even with no memory access at all.
            body.append(ast.If(ast.Constant(False), [ast.Expr(ast.Yield(None))], []))
        return args, body

    def _fail(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", self.source.node.lineno)
        raise KernelSourceError(f"{self.source.name}, line {line}: {message}", line)

    # ---- name resolution ---------------------------------------------------------------------
    def path(self, node: ast.expr) -> str | None:
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals or node.id not in self.env:
            return None
        return cuda_path(self.env[node.id], chain[::-1])

    def _private_arrays(self) -> set[str]:
        private = set()
        for node in ast.walk(self.source.node):
            is_call = isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            if is_call and self.path(node.value.func) == "local.array":
                private |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        return private

    def _grid_groups(self) -> set[str]:
        """Names bound to cuda.cg.this_grid(): their .sync() is a grid-wide barrier."""
        groups = set()
        for node in ast.walk(self.source.node):
            is_call = isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            if is_call and self.path(node.value.func) == "cg.this_grid":
                groups |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        return groups

    def _is_grid_sync(self, func: ast.expr) -> bool:
        if not (isinstance(func, ast.Attribute) and func.attr == "sync"):
            return False
        group = func.value
        if isinstance(group, ast.Name):
            return group.id in self.grid_groups
        return isinstance(group, ast.Call) and self.path(group.func) == "cg.this_grid"

    def _is_memory(self, target: ast.expr, index: ast.expr) -> bool:
        if isinstance(target, ast.Name) and target.id in self.private:
            return False
        if isinstance(target, ast.Attribute):  # a.shape[0], a.strides[1]
            return False
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Slice) for p in parts):
            self._note(index, f"accesses through the slice {self._as_written(target)}[{self._as_written(index)}]")
            return False
        return True

    def _as_written(self, node: ast.expr) -> str:
        """The expression as the user's file has it (a flavour may have rewritten its operators already)."""
        return ast.get_source_segment(self.source.text, node) or ast.unparse(node)

    def _note(self, node: ast.AST, what: str) -> None:
        note = f"{what} (line {getattr(node, 'lineno', '?')}) are not recorded"
        if note not in self.unrecorded:
            self.unrecorded.append(note)

    # ---- building blocks ---------------------------------------------------------------------
    def _hook(self, name: str, args: list[ast.expr], line: int, interleave: bool = True):
        call_args = [ast.Name("_t", ast.Load()), *args, ast.Constant(line)]
        if self.yields and interleave:
            call_args.append(ast.Yield(None))
        return ast.Call(ast.Name(name, ast.Load()), call_args, [])

    def _sync_point(self, kind: int, op: str, args: list[ast.expr], line: int) -> ast.expr:
        request = ast.Tuple(
            [ast.Constant(kind), ast.Constant(op), ast.Tuple(args, ast.Load()), ast.Constant(line)],
            ast.Load(),
        )
        return ast.Yield(request)  # the GPU rewrite leaves barriers and collectives native

    def _temp(self) -> str:
        return f"_gv_tmp{next(self._temps)}"

    # ---- expressions -------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.ctx, ast.Load):
            path = self.path(node)
            if path in THREAD_ATTRS:
                return ast.copy_location(
                    ast.Attribute(ast.Name("_t", ast.Load()), THREAD_ATTRS[path], ast.Load()), node
                )
            if path in LAUNCH_CONSTANTS:
                return ast.copy_location(ast.Name(LAUNCH_CONSTANTS[path], ast.Load()), node)
            if path is not None and path.startswith("atomic.") and path[len("atomic.") :] in ATOMICS:
                # cuda.atomic.add passed as a value (to a device function): a callable bound to this thread
                bound = self._hook("_gv_atomic_fn", [ast.Constant(path[len("atomic.") :])], node.lineno, False)
                return ast.copy_location(bound, node)
            if path is not None:
                self._fail(node, f"cuda.{path} is not supported here")
            field = self._field_access(node)
            if field is not None:
                return ast.copy_location(self._load(*field, node.lineno), node)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        field = self._field_access(node) if isinstance(node.ctx, ast.Load) else None
        if field is not None:
            return ast.copy_location(self._load(*field, node.lineno), node)
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or not self._is_memory(node.value, node.slice):
            return node
        return ast.copy_location(self._load(node.value, node.slice, node.lineno), node)

    def _load(self, array: ast.expr, index: ast.expr, line: int) -> ast.expr:
        return self._hook("_gv_ld", [array, index], line, interleave=False)

    # a record's field, `r[i].x` or `r[i]['x']`, is element i of the view `r['x']` (`_gv_field`): its loads and
    # stores go through the hooks as numbers, logged as element i of r (a GPU's numba reads the field itself)
    record_fields = True

    def _field_of(self, node: ast.expr) -> tuple[ast.expr, str, ast.expr] | None:
        """(records, field name, index) where `node` is one record's field of an array the kernel shares."""
        if not self.record_fields or not isinstance(getattr(node, "value", None), ast.Subscript):
            return None
        if isinstance(node, ast.Attribute) and node.attr not in NUMBER_ATTRIBUTES:
            name = node.attr
        elif isinstance(node, ast.Subscript) and isinstance(getattr(node.slice, "value", None), str):
            name = node.slice.value  # r[i]['x']: a constant string
        else:
            return None
        records = node.value
        if isinstance(records.value, ast.Name) and records.value.id in self.private:
            return None
        return records.value, name, records.slice

    def _field_access(self, node: ast.expr) -> tuple[ast.expr, ast.expr] | None:
        """(the field's view, the index), rewritten, for a record's field; else None."""
        found = self._field_of(node)
        if found is None:
            return None
        records, name, index = found
        view = ast.Call(ast.Name("_gv_field", ast.Load()), [self.visit(records), ast.Constant(name)], [])
        return ast.copy_location(view, node), self.visit(index)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if self._is_grid_sync(node.func):
            self.cooperative = True
            return ast.copy_location(self._sync_point(BARRIER, "grid", [], node.lineno), node)
        path = self.path(node.func)
        if path is None:
            return self._call_function(node)
        if path in ARRAY_DECLARATIONS:
            self._check_shape(node, path)
        args = [self.visit(a) for a in node.args]
        keywords = [ast.keyword(k.arg, self.visit(k.value)) for k in node.keywords]
        line = node.lineno
        if path in BARRIERS:
            new = self._sync_point(BARRIER, BARRIERS[path], args, line)
        elif path in COLLECTIVES:
            new = self._sync_point(COLLECTIVE, COLLECTIVES[path], args, line)
        elif path.startswith("atomic."):
            new = self._atomic(node, path[len("atomic.") :], args)
        elif path == "shared.array":
            shape_dtype = ast.Tuple(args, ast.Load())
            kw = ast.Dict([ast.Constant(k.arg) for k in keywords], [k.value for k in keywords])
            site = ast.Constant(f"{self.source.name}:{line}:{node.col_offset}")
            new = self._hook(
                "_gv_shared", [site, ast.Constant(self._target_name), shape_dtype, kw], line, False
            )
        elif path == "const.array_like":
            name = ast.unparse(node.args[0]) if node.args else "const"
            new = ast.Call(ast.Name("_gv_const", ast.Load()), [ast.Constant(name), *args], keywords)
        elif path in PLAIN_CALLS:
            hook, needs_thread = PLAIN_CALLS[path]
            front = [ast.Name("_t", ast.Load())] if needs_thread else []
            new = ast.Call(ast.Name(hook, ast.Load()), front + args, keywords)
        elif self._missing_from_numba(node.func):
            self._fail(node, f"numba.cuda has no {path}: numba-cuda would not compile this kernel either")
        else:
            self._fail(node, f"cuda.{path} is not supported by gpuviz")
        return ast.copy_location(new, node)

    def _missing_from_numba(self, func: ast.expr) -> bool:
        """Whether `cuda.<name>` names nothing in numba.cuda (`cuda.mul24`, which is libdevice's); False where
        the call is not on the cuda module."""
        chain: list[str] = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        value = self.env.get(func.id) if isinstance(func, ast.Name) and func.id not in self.locals else None
        module = getattr(value, "__name__", None) if type(value).__name__ == "module" else None
        return module in CUDA_MODULES and bool(chain) and chain[-1] not in NUMBA_CUDA_NAMES

    def _check_shape(self, node: ast.Call, path: str) -> None:
        shape = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
        if shape is None:
            self._fail(node, f"cuda.{path} needs a shape and a dtype")
        message = refused_shape(shape, self.env, self.locals, self.literal_locals)
        if message:
            self._fail(node, f"cuda.{path}: {message}")

    def _atomic(self, node: ast.Call, op: str, args: list[ast.expr]) -> ast.expr:
        if op not in ATOMICS:
            self._fail(node, f"cuda.atomic.{op} does not exist; atomics: {', '.join(sorted(ATOMICS))}")
        if op == "compare_and_swap":  # compare_and_swap(ary, old, val) works on element 0
            args = [args[0], ast.Constant(0), *args[1:]]
        if len(args) < 3:
            self._fail(node, f"cuda.atomic.{op} needs an array, an index and a value")
        operands = ast.Tuple(args[2:], ast.Load())
        call = self._hook("_gv_atomic", [ast.Constant(op), args[0], args[1], operands], node.lineno)
        if not self.yields:
            return call
        # (atomic, pause)[0]: the pause after it lets every lane's atomic land before later loads.
        both = ast.Tuple([call, ast.Yield(None)], ast.Load())
        return ast.Subscript(both, ast.Constant(0), ast.Load())

    def visit_Name(self, node: ast.Name) -> ast.expr:
        value = self.env.get(node.id) if node.id not in self.locals else None
        if self.yields and isinstance(node.ctx, ast.Load) and is_device_function(value):
            # a device function passed as a value: callable through `_gv_call` by whoever receives it
            generated = self._device(value.py_func, self.call_line)
            return ast.copy_location(
                ast.Call(ast.Name("_gv_device_value", ast.Load()), [ast.Name(generated, ast.Load())], []), node
            )
        return node

    def _device(self, py_func, call_line: int | None) -> str:
        """The generated name a device function is called by, registered to be rewritten: once, or once
        per library call site for a model and the device functions it calls."""
        if call_line is None:
            self.devices[py_func.__name__] = py_func
            return f"_gv_dev_{py_func.__name__}"
        generated = f"_gv_dev_{py_func.__name__}_at{call_line}"
        self.devices[generated] = ModelledCall(py_func, call_line)
        return generated

    def _linked_call(self, node: ast.Call) -> ast.expr | None:
        """A call of a library device function (what `@cuda.jit(link=...)` links): on the simulator, the
        model its stand-in carries, rewritten as a device function at this line; a function declared with
        `cuda.declare_device` has no source to run and is refused, naming it."""
        if not self.yields:
            return None  # the GPU runs the library's own code
        called = self._value_of(node.func)
        external = getattr(called, "_gpuviz_external", None)
        if isinstance(external, str):
            self._fail(node, f"{external} is a device function linked from outside Python (cuda.declare_device): "
                             f"gpuviz's simulator cannot run it (it models {LINKED_MODELS}); "
                             "run this kernel with --backend gpu")  # fmt: skip
        models = getattr(called, "_gpuviz_linked_models", None)
        if not isinstance(models, dict):
            return None
        shown = ast.unparse(node.func)
        model = models.get(len(node.args))
        if model is None or node.keywords:
            counts = " or ".join(str(count) for count in sorted(models))
            self._fail(node, f"{shown} takes {counts} positional argument(s) in gpuviz's model of it")
        line = self.call_line if self.call_line is not None else node.lineno
        self.modelled.append({"line": line, "call": shown, "model": called._gpuviz_linked_label})
        node = self.generic_visit(node)
        call = ast.Call(ast.Name(self._device(model, line), ast.Load()), [ast.Name("_t", ast.Load()), *node.args], [])
        return ast.copy_location(ast.YieldFrom(call), node)

    def _call_function(self, node: ast.Call) -> ast.expr:
        linked = self._linked_call(node)
        if linked is not None:
            return linked
        func = node.func
        if self.yields and isinstance(func, ast.Name) and func.id in self.locals:
            # a function held in a variable (a device function or an atomic passed in): it may pause
            node = self.generic_visit(node)
            call = ast.Call(ast.Name("_gv_call", ast.Load()), [node.func, ast.Name("_t", ast.Load()), *node.args],
                            node.keywords)  # fmt: skip
            return ast.copy_location(ast.YieldFrom(call), node)
        if self.yields and isinstance(func, ast.Name) and func.id == "print" and func.id not in self.locals:
            node = self.generic_visit(node)  # print() on a GPU: its text belongs to the thread that printed
            return ast.copy_location(self._hook("_gv_print", node.args, node.lineno, False), node)
        if isinstance(func, ast.Name) and func.id not in self.locals and func.id in self.env:
            value = self.env[func.id]
            if is_device_function(value):
                generated = self._device(value.py_func, self.call_line)  # the definition's own name
                node = self.generic_visit(node)
                declared = declared_types(value) if self.yields else None  # a GPU's numba converts them itself
                args = _cast_to(declared[0], node.args) if declared and not node.keywords else node.args
                call = ast.Call(ast.Name(generated, ast.Load()), [ast.Name("_t", ast.Load()), *args], node.keywords)
                new = ast.YieldFrom(call) if self.yields else call
                if declared and declared[1]:
                    new = ast.Call(ast.Name(f"_gv_cast_{declared[1]}", ast.Load()), [new], [])
                return ast.copy_location(new, node)
        called = self._value_of(func)
        if (getattr(called, "__module__", None) or "").endswith("shims.cuda.random"):
            self._note(node, f"the RNG state reads and writes of {ast.unparse(func)}")
        if self.yields and isinstance(called, np.ufunc):
            # a NumPy ufunc on arrays: element by element through the hooks, so each access is recorded
            node = self.generic_visit(node)
            return ast.copy_location(self._hook("_gv_ufunc", [node.func, *node.args], node.lineno, False), node)
        return self.generic_visit(node)

    def _value_of(self, node: ast.expr) -> object:
        """The global object a dotted name (np.sin) refers to, or None."""
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals:
            return None
        value = self.env.get(node.id)
        for attr in reversed(chain):
            value = getattr(value, attr, None)
        return value

    # ---- statements --------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self._target_name = node.targets[0].id
        value = self.visit(node.value)
        self._target_name = "shared"
        if not any(self._has_memory_target(t) for t in node.targets):
            node.value = value
            node.targets = [self.visit(t) for t in node.targets]
            return node
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Subscript, ast.Attribute)):
            return self._store(node.targets[0], value, node)
        temp = self._temp()
        statements = [ast.Assign([ast.Name(temp, ast.Store())], value)]
        for target in node.targets:
            statements += self._assign_to(target, ast.Name(temp, ast.Load()), node)
        return [ast.copy_location(s, node) for s in statements]

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return node
        return self.visit_Assign(ast.copy_location(ast.Assign([node.target], node.value), node))

    def _has_memory_target(self, target: ast.expr) -> bool:
        if self._field_of(target) is not None:
            return True
        if isinstance(target, ast.Subscript):
            return self._is_memory(target.value, target.slice)
        if isinstance(target, ast.Tuple):
            return any(self._has_memory_target(t) for t in target.elts)
        return False

    def _assign_to(self, target: ast.expr, value: ast.expr, where: ast.stmt) -> list[ast.stmt]:
        if isinstance(target, ast.Tuple):
            statements = []
            for i, element in enumerate(target.elts):
                item = ast.Subscript(value, ast.Constant(i), ast.Load())
                statements += self._assign_to(element, item, where)
            return statements
        if self._field_of(target) is not None or (
            isinstance(target, ast.Subscript) and self._is_memory(target.value, target.slice)
        ):
            return self._store(target, value, where)
        return [ast.Assign([self.visit(target)], value)]

    def _store(self, target: ast.Subscript | ast.Attribute, value: ast.expr, where: ast.stmt) -> list[ast.stmt]:
        array, index = self._field_access(target) or (self.visit(target.value), self.visit(target.slice))
        return self._store_statements(array, index, value, where)

    def _store_statements(self, array, index, value, where: ast.stmt) -> list[ast.stmt]:
        """A store with a pause before it (splitting read-modify-writes) and after it (so that
        every lane's store lands before any lane's next loads, as in lockstep)."""
        call = self._hook("_gv_st", [array, index, value], where.lineno)
        statements = [ast.Expr(call)]
        if self.yields:
            statements.append(ast.Expr(ast.Yield(None)))
        return [ast.copy_location(s, where) for s in statements]

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        field = self._field_access(target)
        if field is None and not (isinstance(target, ast.Subscript) and self._is_memory(target.value, target.slice)):
            node.value = self.visit(node.value)
            node.target = self.visit(target) if not isinstance(target, ast.Name) else target
            return node
        array, index = field or (self.visit(target.value), self.visit(target.slice))
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        temps = [self._temp() for _ in parts]  # the index is evaluated once, as Python does
        keep = [ast.Assign([ast.Name(t, ast.Store())], p) for t, p in zip(temps, parts)]
        names = [ast.Name(t, ast.Load()) for t in temps]
        kept_index = ast.Tuple(names, ast.Load()) if isinstance(index, ast.Tuple) else names[0]
        old = self._load(array, kept_index, node.lineno)
        new = ast.BinOp(old, node.op, self.visit(node.value))
        store = self._store_statements(copy.deepcopy(array), copy.deepcopy(kept_index), new, node)
        return [*(ast.copy_location(k, node) for k in keep), *store]


def rewrite(func, rewriter_class: type[KernelRewriter], is_kernel: bool, **options) -> Rewritten:
    """Rewrite one Python function (a kernel or a device function) into instrumented code; with
    `call_line`, a library model for the call at that line of the user's script."""
    source = source_of(func)
    rewriter = rewriter_class(source, environment(func), is_kernel=is_kernel, **options)
    rewriter.check()
    node = _ConstantsFolded().visit(copy.deepcopy(source.node))
    if rewriter.call_line is not None:
        _relocate(node, rewriter.call_line)
    body = []
    for stmt in node.body:
        result = rewriter.visit(stmt)
        body += result if isinstance(result, list) else [result]
    args, body = rewriter.wrap(copy.deepcopy(node.args), body)
    generated = rewriter.generated_name()
    new = ast.FunctionDef(name=generated, args=args, body=body, decorator_list=[])
    ast.copy_location(new, node)
    module = ast.fix_missing_locations(ast.Module([new], []))
    code = compile(module, rewriter.compile_filename(), "exec")
    return Rewritten(source.name, generated, source, code, rewriter.params, rewriter.devices, rewriter.env,
                     rewriter.global_arrays(), rewriter.cooperative, rewriter.unrecorded,
                     rewriter.modelled)  # fmt: skip


class _ConstantsFolded(ast.NodeTransformer):
    """Operators on number constants computed first, as CPython's compiler folds them before numba reads the
    bytecode: `2 ** -1` is the float 0.5 numba sees, where the hooks would give an integer power's 0."""

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        return self._folded(self.generic_visit(node))

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        return self._folded(self.generic_visit(node))

    @staticmethod
    def _folded(node: ast.expr) -> ast.expr:
        operands = [node.operand] if isinstance(node, ast.UnaryOp) else [node.left, node.right]
        numbers = (int, float, complex)
        if isinstance(node.op, ast.Not) or not all(
            isinstance(o, ast.Constant) and type(o.value) in numbers for o in operands
        ):
            return node
        try:
            value = eval(compile(ast.Expression(node), "<constant>", "eval"))  # numbers and an operator only
        except (ArithmeticError, ValueError):
            return node  # 1 / 0: CPython leaves it for the run, which raises
        if isinstance(value, int) and value.bit_length() > 128:  # CPython keeps huge results unfolded
            return node
        return ast.copy_location(ast.Constant(value), node)


def _relocate(node: ast.AST, line: int) -> None:
    """Every statement and expression of a model at the user's line: its accesses, barriers and errors
    belong to the call that ran it."""
    for child in ast.walk(node):
        if hasattr(child, "lineno"):
            child.lineno = child.end_lineno = line


def _drop_final_pauses(body: list[ast.stmt]) -> None:
    """A pause right before the function ends lets nothing else happen: leave it out (it saves a
    scheduler step per thread in the common `if i < n: out[i] = ...` kernel)."""
    if not body:
        return
    last = body[-1]
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Yield) and last.value.value is None:
        body.pop()
    elif isinstance(last, ast.If):
        _drop_final_pauses(last.body)
        _drop_final_pauses(last.orelse)


@dataclass
class Program:
    """A kernel and every device function it reaches, rewritten and ready to bind to hooks."""

    kernel: Rewritten
    functions: list[Rewritten]
    # facts worked out from the text once (numba, too, reads a kernel's globals once, when it compiles)
    known: dict = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: object, compute: Callable[[], object]) -> object:
        """`compute()` the first time `key` is asked for, then the same answer."""
        if key not in self.known:
            self.known[key] = compute()
        return self.known[key]

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def params(self) -> list[str]:
        return self.kernel.params

    def endless_loops(self) -> list[tuple[str, int]]:
        """(function, line) of each loop in the kernel or its device functions that can never end."""
        return self.memo("endless", lambda: [(f.name, line) for f in self.functions
                                             for line in endless_loops(f.source.node)])  # fmt: skip

    @property
    def unrecorded(self) -> list[str]:
        """What the trace of this program cannot show, in words (for the trace's meta)."""
        return [note for f in self.functions for note in f.unrecorded]

    @property
    def modelled(self) -> list[dict]:
        """The library calls that ran as gpuviz's models: {"line", "call", "model"} each, for the trace."""
        return [call for f in self.functions for call in f.modelled]

    @property
    def cooperative(self) -> bool:
        """A grid-wide barrier somewhere: the launch must fit on the device all at once."""
        return any(f.cooperative for f in self.functions)

    def bind(self, hooks: dict, native=lambda env: env, wrap_device=lambda fn: fn) -> object:
        """The instrumented kernel function. Each function runs with its own module's globals
        (`native` may adapt them) plus the hooks, and sees every generated device function."""
        spaces = []
        for function in self.functions:
            namespace = {**native(function.env), **hooks}
            exec(function.code, namespace)
            spaces.append(namespace)
        devices = zip(self.functions[1:], spaces[1:])
        generated = {f.generated_name: wrap_device(ns[f.generated_name]) for f, ns in devices}
        for namespace in spaces:
            namespace.update(generated)
        return spaces[0][self.kernel.generated_name]


def environment(func) -> dict:
    """The names a function sees: its module's globals, and the variables it closes over, as they
    are now. numba freezes them when it compiles (the first launch): host NumPy arrays become
    read-only constant copies; device arrays stay live, as numba captures those by pointer."""
    env = dict(func.__globals__)
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        with contextlib.suppress(ValueError):  # a closure variable not assigned yet
            env[name] = cell.cell_contents
    names = set(func.__code__.co_names) | set(func.__code__.co_freevars)
    for name in names & set(env):
        if type(env[name]) is np.ndarray:
            env[name] = _frozen(env[name])
    return env


def _frozen(array: np.ndarray) -> np.ndarray:
    frozen = array.copy()
    frozen.flags.writeable = False
    return frozen


def is_frozen_array(value: object) -> bool:
    """A module-global array frozen at compile time (a read-only copy: see `environment`)."""
    return type(value) is np.ndarray and not value.flags.writeable


def build_program(func, rewriter_class: type[KernelRewriter] = KernelRewriter, **options) -> Program:
    """Rewrite a kernel and, transitively, every device function it calls."""
    kernel = rewrite(func, rewriter_class, True, **options)
    functions, seen, pending = [kernel], {(func, None)}, list(kernel.device_functions.items())
    while pending:
        _, device = pending.pop()
        call_line = device.call_line if isinstance(device, ModelledCall) else None
        py_func = device.py_func if isinstance(device, ModelledCall) else getattr(device, "py_func", device)
        if (py_func, call_line) in seen:
            continue
        seen.add((py_func, call_line))
        site = {"call_line": call_line} if call_line is not None else {}
        rewritten = rewrite(py_func, rewriter_class, False, **options, **site)
        functions.append(rewritten)
        pending += list(rewritten.device_functions.items())
    return Program(kernel, functions)


def _cast_to(types: list, args: list) -> list:
    """Each argument cast to its declared number type, where the signature declares one."""
    if len(types) != len(args):
        return args
    return [ast.Call(ast.Name(f"_gv_cast_{kind}", ast.Load()), [arg], []) if kind else arg
            for kind, arg in zip(types, args)]  # fmt: skip
