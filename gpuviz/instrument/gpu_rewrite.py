"""The GPU flavour of the kernel rewrite: numba compiles the result.

Intrinsics stay native (numba implements them); what changes is that every access to a known array
calls a logging hook with the array's id, barriers (block, grid and warp) count epochs, device-wide fences set
the epoch's fence flag, the kernel records its start,
SM and end, and device functions receive the thread context and the ids of their array arguments.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import numpy as np

from gpuviz.instrument.gpu_library_calls import LibraryCallLogging, is_cccl_primitive, static_id
from gpuviz.instrument.rewrite import ARRAY_DECLARATIONS, BARRIERS, KernelRewriter, is_device_function
from gpuviz.instrument.shared_sites import MAX_ARRAY_IDS, MAX_PARAM_IDS, CallSite, SharedSites
from gpuviz.instrument.source import KernelSource

__all__ = ["MAX_ARRAY_IDS", "MAX_PARAM_IDS", "GpuRewriter", "SharedSites", "read_only_params"]

# Launch buffers the instrumented kernel takes after the user's own parameters.
KERNEL_BUFFERS = ["_gv_bs", "_gv_bsm", "_gv_we", "_gv_ws", "_gv_lg", "_gv_le", "_gv_lv", "_gv_lc", "_gv_k", "_gv_pt",
                  "_gv_pc", "_gv_ptm", "_gv_pe", "_gv_pv", "_gv_cnt", "_gv_pool", "_gv_vm"]  # fmt: skip
MAX_DIMS = 3
FENCES = {"threadfence", "threadfence_system"}  # device-wide: core/analysis/fence_order.py orders by them


def cache_dir() -> Path:
    from gpuviz.core.version import __version__

    root = os.environ.get("GPUVIZ_CACHE_DIR") or Path.home() / ".cache" / "gpuviz"
    return Path(root) / __version__


def source_copy(source: KernelSource) -> str:
    """A real file with the user's text, so numba can cache and line numbers stay the user's."""
    digest = hashlib.sha1(source.text.encode()).hexdigest()[:16]
    path = cache_dir() / "sources" / f"{Path(source.filename).stem.strip('<>')}-{digest}.py"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source.text)
        tmp.replace(path)
    return str(path)


class GpuRewriter(LibraryCallLogging, KernelRewriter):
    record_fields = False  # numba reads a record's field itself

    def __init__(self, source: KernelSource, env: dict, is_kernel: bool = True, accesses: bool = True,
                 sites: SharedSites | None = None, ndims: dict[str, int] | None = None):  # fmt: skip
        super().__init__(source, env, is_kernel=is_kernel, yields=False)
        self.accesses = accesses
        self.sites = sites if sites is not None else SharedSites()
        self.shared_ids: dict[str, int] = {}
        self.aliases: dict[str, ast.expr] = {}
        # How many axes each known array has: the kernel's array arguments (from the launch) and
        # shared arrays (from their shape). A hook handles exactly one element: an index with fewer
        # parts (a row) must stay a plain access, since numba cannot return a view from a function.
        self.ndims: dict[str, int] = dict(ndims or {}) if is_kernel else {}
        self.library_steps = 0  # CCCL calls recorded so far (gpu_library_calls.py)

    # ---- naming ------------------------------------------------------------------------------
    def generated_name(self) -> str:
        if self.is_kernel:
            return f"_gv_k{'a' if self.accesses else 't'}_{self.source.name}"
        return f"_gv_dev_{self.source.name}"

    def compile_filename(self) -> str:
        return source_copy(self.source)

    def aid_of(self, array: ast.expr) -> ast.expr | None:
        """The id of the array an expression names, when it is known (else the access is not logged)."""
        if not isinstance(array, ast.Name):
            return None
        if array.id in self.shared_ids:
            return ast.Constant(self.shared_ids[array.id])
        if array.id in self.aliases:
            return self.aliases[array.id]
        if array.id in self.params:
            k = self.params.index(array.id)
            if self.is_kernel:
                return ast.Constant(k) if k < MAX_PARAM_IDS else None
            return ast.Name(f"_gv_aid{k}", ast.Load())
        return None

    # ---- what stays native -------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if self._is_grid_sync(node.func):  # a cooperative launch, as numba makes it (and no plain twin)
            self.cooperative = True
        path = self.path(node.func)
        if path is None:
            return self._call_function(node)
        if path in ARRAY_DECLARATIONS:  # numba's refusal of a shape, in the simulator's words and line
            self._check_shape(node, path)
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [ast.keyword(k.arg, self.visit(k.value)) for k in node.keywords]
        if path in BARRIERS and self.accesses:
            return ast.copy_location(self._thread_call("_gv_bar", [node]), node)
        if path.startswith("atomic.") and self.accesses:
            return self._atomic_call(node, path[len("atomic.") :])
        return node

    def visit_Expr(self, node: ast.Expr):
        value = node.value
        if not (isinstance(value, ast.Call) and self.accesses):
            return self.generic_visit(node)
        logged = self._logged_library_call(node) or self._cccl_step(node, value, None)
        if logged is not None:
            return logged
        if self._is_grid_sync(value.func):  # the block's and the grid's epochs, as on the simulator
            self.cooperative = True
            return [node, ast.copy_location(ast.Expr(self._thread_call("_gv_grid_epoch", [])), node)]
        path = self.path(value.func)
        if path in FENCES:  # the fence, then its mark: the accesses before it are the ones it orders
            mark = ast.Expr(self._thread_call("_gv_fence_mark", []))
            return [self.generic_visit(node), ast.copy_location(mark, node)]
        if path == "syncwarp":  # the hook syncs with the mask, then marks it (the mask is evaluated once)
            mask = self.visit(value.args[0]) if value.args else ast.Constant(0xFFFFFFFF)
            return ast.copy_location(ast.Expr(self._thread_call("_gv_syncwarp", [mask])), node)
        if path in BARRIERS:
            value.args = [self.visit(a) for a in value.args]
            epoch = ast.Expr(self._thread_call("_gv_epoch", []))
            return [node, ast.copy_location(epoch, node)]
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign):
        value, targets = node.value, node.targets
        if self.accesses and isinstance(value, ast.Call) and is_cccl_primitive(self._value_of(value.func)):
            step = self._cccl_step(node, value, targets)
            if step is not None:
                return step
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            path = self.path(value.func) if isinstance(value, ast.Call) else None
            if path == "shared.array":
                self._register_shared(targets[0].id, value)
            aliased = value.args[0] if path == "const.array_like" and value.args else value
            if path == "const.array_like" and self._register_constant(targets[0].id, aliased):
                return super().visit_Assign(node)
            aid = self.aid_of(aliased)  # `c = cuda.const.array_like(a)` or `b = a`: the same array
            if aid is not None and path != "shared.array":
                self.aliases[targets[0].id] = aid
                if isinstance(aliased, ast.Name) and aliased.id in self.ndims:
                    self.ndims[targets[0].id] = self.ndims[aliased.id]
        return super().visit_Assign(node)

    def _register_constant(self, name: str, table: ast.expr) -> bool:
        """`c = cuda.const.array_like(TABLE)` of a module array: c's reads are logged as TABLE's, a constant
        array whose values the host has."""
        if not isinstance(table, ast.Name) or table.id in self.params or table.id in self.locals:
            return False
        array = self.env.get(table.id)
        if not isinstance(array, np.ndarray):
            return False
        aid = self.sites.add_constant(table.id, array)
        if aid is None:
            return False
        self.aliases[name] = ast.Constant(aid)
        self.ndims[name] = array.ndim
        return True

    def _register_shared(self, name: str, call: ast.Call) -> None:
        given = dict(zip(("shape", "dtype"), call.args))
        given.update({k.arg: k.value for k in call.keywords})
        if "shape" in given and "dtype" in given:
            names = {**self.env, **literal_values(self.source.node, self.literal_locals)}
            aid = self.sites.add(name, ast.unparse(given["shape"]), ast.unparse(given["dtype"]), names,
                                 "" if self.is_kernel else self.source.name)  # fmt: skip
            if aid is not None:
                self.shared_ids[name] = aid
                dims = _dims_of(given["shape"], names)
                if dims:  # else not known here (a device function's argument): indexed as it is
                    self.ndims[name] = dims

    # ---- logged accesses ---------------------------------------------------------------------
    def _thread_call(self, name: str, args: list[ast.expr]) -> ast.Call:
        return ast.Call(ast.Name(name, ast.Load()), [ast.Name("_t", ast.Load()), *args], [])

    @staticmethod
    def _parts(index: ast.expr) -> list[ast.expr]:
        return list(index.elts) if isinstance(index, ast.Tuple) else [index]

    def _one_element(self, array: ast.expr, parts: list) -> bool:
        """Whether the index names one element: as many parts as the array has axes (arrays of
        device functions, whose axes are not known here, are taken to be indexed whole)."""
        if len(parts) > MAX_DIMS:
            return False
        known = self.ndims.get(array.id) if isinstance(array, ast.Name) else None
        return known is None or known == len(parts)

    def _load(self, array: ast.expr, index: ast.expr, line: int) -> ast.expr:
        aid, parts = self.aid_of(array), self._parts(index)
        if not self.accesses or aid is None or not self._one_element(array, parts):
            return ast.Subscript(array, index, ast.Load())
        site = ast.Constant(self.sites.access_site(line, 0, array=static_id(aid)))
        return self._thread_call(f"_gv_ld{len(parts)}", [aid, array, *parts, site])

    def _store_statements(self, array, index, value, where: ast.stmt) -> list[ast.stmt]:
        aid, parts = self.aid_of(array), self._parts(index)
        if not self.accesses or aid is None or not self._one_element(array, parts):
            plain = ast.Assign([ast.Subscript(array, index, ast.Store())], value)
            return [ast.copy_location(plain, where)]
        site = ast.Constant(self.sites.access_site(where.lineno, 1, array=static_id(aid)))
        call = self._thread_call(f"_gv_st{len(parts)}", [aid, array, *parts, value, site])
        return [ast.copy_location(ast.Expr(call), where)]

    def _atomic_call(self, node: ast.Call, op: str) -> ast.expr:
        args = list(node.args)
        if op == "compare_and_swap":
            op, args = "cas", [args[0], ast.Constant(0), *args[1:]]
        if len(args) < 3 or node.keywords:
            return node
        aid, parts = self.aid_of(args[0]), self._parts(args[1])
        if aid is None or not self._one_element(args[0], parts):
            return node
        hook = f"_gv_at_{op}{len(parts)}"
        counting = op == "add" and _positive(args[2])
        site = ast.Constant(self.sites.access_site(node.lineno, 2, counting=counting, array=static_id(aid)))
        call = self._thread_call(hook, [aid, args[0], *parts, *args[2:], site])
        return ast.copy_location(call, node)

    # ---- device functions, returns, prologue -------------------------------------------------
    def _call_function(self, node: ast.Call) -> ast.expr:
        self._note_call(node)
        new = super()._call_function(node)
        if not (isinstance(new, ast.Call) and isinstance(new.func, ast.Name) and new.func.id.startswith("_gv_dev_")):
            return new
        user_args = new.args[1:]
        ids = [self.aid_of(a) or ast.Constant(-1) for a in user_args]
        new.args = [new.args[0], *ids, *user_args]
        return new

    def _note_call(self, node: ast.Call) -> None:
        """A device function's call, kept so the host can evaluate shapes its parameters give."""
        func = node.func
        value = self.env.get(func.id) if isinstance(func, ast.Name) and func.id not in self.locals else None
        if not is_device_function(value):
            return
        code = value.py_func.__code__
        params = list(code.co_varnames[: code.co_argcount])
        keywords = {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg}
        caller = "" if self.is_kernel else self.source.name
        call = CallSite(caller, params, [ast.unparse(a) for a in node.args], keywords, self.env)
        self.sites.add_call(value.py_func.__name__, call)

    def visit_Return(self, node: ast.Return):
        node = self.generic_visit(node)
        if not self.is_kernel:
            return node
        end = ast.Expr(self._thread_call(self._end_hook(), [ast.Name("_gv_we", ast.Load())]))
        return [ast.copy_location(end, node), node]

    def _end_hook(self) -> str:
        return "_gv_end_log" if self.accesses else "_gv_end"

    def wrap(self, args: ast.arguments, body: list[ast.stmt]) -> tuple[ast.arguments, list[ast.stmt]]:
        if not self.is_kernel:
            ids = [ast.arg(f"_gv_aid{k}") for k in range(len(self.params))]
            args.args = [ast.arg("_t"), *ids, *args.args]
            return args, body
        buffers = KERNEL_BUFFERS if self.accesses else KERNEL_BUFFERS[:4]  # level threads: times and SMs only
        args.args = [*args.args, *(ast.arg(name) for name in buffers)]
        if self.accesses:  # the thread's log state lives in a local array the hooks update
            log = ", ".join(KERNEL_BUFFERS[4:])
            prologue = "_gv_st = _gv_cuda.local.array(5, _gv_uint32)\n"
            prologue += f"_t = _gv_begin(_gv_bs, _gv_bsm, _gv_ws, _gv_st, {log})\n"
        else:
            prologue = "_t = _gv_begin_threads(_gv_bs, _gv_bsm)\n"
        prologue = ast.parse(prologue).body
        epilogue = ast.parse(f"{self._end_hook()}(_t, _gv_we)").body
        # Level threads: the body under a branch on the thread's place (hooks.py, _gv_placed, says why)
        placed = [] if self.accesses else ast.parse("if _gv_placed(_t, _gv_we):\n    pass").body
        for stmt in prologue + epilogue + placed:
            for child in ast.walk(stmt):
                ast.copy_location(child, self.source.node)
        if placed:
            placed[0].body, body = body or placed[0].body, placed
        return args, [*prologue, *body, *epilogue]


def _positive(operand: ast.expr) -> bool:
    """Whether an atomic's operand is a positive number written in the source (`atomic.add(c, 0, 1)`)."""
    return isinstance(operand, ast.Constant) and type(operand.value) in (int, float) and operand.value > 0


def _dims_of(shape: ast.expr, names: dict) -> int | None:
    """How many axes a shape gives: a tuple's length, 1 for a number; None where it is not known."""
    if isinstance(shape, ast.Tuple):
        return len(shape.elts)
    try:
        value = eval(compile(ast.Expression(shape), "<shape>", "eval"), dict(names))  # noqa: S307 - the user's constant
    except Exception:  # a device function's argument: known at its call sites only
        return None
    return len(value) if isinstance(value, tuple) else 1


def literal_values(function: ast.FunctionDef, literal_locals: set[str]) -> dict[str, int]:
    """The local names that always hold one integer literal (`N = 100`), with it: numba types them as
    that literal, so a shared array's shape may name them."""
    values: dict[str, set] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in literal_locals:
                    values.setdefault(target.id, set()).add(node.value.value)
    return {name: next(iter(held)) for name, held in values.items() if len(held) == 1}


_READS = {"shape", "size", "ndim", "dtype"}


def read_only_params(function: ast.FunctionDef, ndims: dict[str, int]) -> set[str]:
    """The array parameters (`ndims`: their axes) the kernel only reads: every use is a load of one
    element (`a[i]`, `a[i, j]`) or a property (`a.shape`, `len(a)`). Anything else (a store, an
    atomic, a row or a slice, passing it to a function, another name for it, rebinding it) may write
    it. The recorder leaves the values of read-only arrays out of the log: the host reads them from
    the inputs."""
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    used_otherwise = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in ndims and not _only_read(node, parents, ndims[node.id]):
            used_otherwise.add(node.id)
    return set(ndims) - used_otherwise


def _only_read(name: ast.Name, parents: dict, ndim: int) -> bool:
    parent = parents.get(name)
    if isinstance(name.ctx, ast.Store):
        return False
    if isinstance(parent, ast.Subscript) and parent.value is name:
        parts = parent.slice.elts if isinstance(parent.slice, ast.Tuple) else [parent.slice]
        whole = len(parts) == ndim and not any(isinstance(p, ast.Slice) for p in parts)
        return isinstance(parent.ctx, ast.Load) and whole
    if isinstance(parent, ast.Attribute):
        return parent.attr in _READS
    return isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "len" and parent.args == [name]
