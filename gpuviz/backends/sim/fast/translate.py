"""The fast path's translation of a kernel into Python source that numba's CPU target compiles.

Each block becomes a loop over its threads, split at every `syncthreads` (loop fission, as CuPBoP and
POCL run GPU code on CPUs): a barrier at the kernel's top level, or inside a `for` loop over a range
that every thread runs alike, ends one loop over the threads and starts the next. Locals that live
across a barrier are kept per thread in arrays between the loops. Every load and store of an argument
or shared array calls a hook (fast/access_hooks.py) that logs it into the thread's own slots and watches
the element for another thread's access between the same barriers; every instruction the vector
engine charges (vector/lanes.py, vector/memory.py) adds the same cost to the thread's clock. A
thread's clock is its warp's when every lane of the warp takes one path: each branch taken goes into
a per-thread path hash, and a warp whose lanes' hashes differ sends the launch to the vector engine.

What it does not translate raises FastUnsupported with the reason, before anything runs.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from gpuviz.backends.sim.fast.accesses import Accesses, SharedDeclaration
from gpuviz.backends.sim.fast.expressions import Expressions
from gpuviz.backends.sim.fast.kernel_facts import KernelFacts
from gpuviz.backends.sim.fast.phases import Phases
from gpuviz.backends.sim.fast.statements import Statements
from gpuviz.backends.sim.fast.syntax import FastUnsupported, names_in
from gpuviz.instrument.rewrite import environment
from gpuviz.instrument.source import KernelSource, source_of

__all__ = ["COSTS", "FastUnsupported", "SharedDeclaration", "Translation", "translate"]
COSTS = ("alu", "branch", "global_load", "global_store", "shared_load", "shared_store", "barrier")


@dataclass
class Translation:
    """The generated source and what the runner needs to know about it."""

    name: str
    source: str
    params: list[str]
    array_params: list[str]
    shared: list[SharedDeclaration]
    sites: list[tuple[int, int, int, int]] = field(default_factory=list)  # (line, kind, array slot, point) by site
    phases: list[list[str]] = field(default_factory=list)  # loop-free phases: each instruction's cost name
    digest: str = ""
    kept: tuple[str, ...] = ()  # locals kept per thread across a barrier
    kept_dtypes: dict[str, str] = field(default_factory=dict)  # those whose arrays are made before the blocks run
    locals: tuple[str, ...] = ()  # the kernel's own locals (the translation's own names aside)


def translate(func, arg_kinds: dict[str, int], kept_dtypes: dict[str, str] | None = None) -> Translation:
    """`arg_kinds`: each parameter's number of axes (0 for a scalar). `kept_dtypes`: the NumPy dtype of locals
    kept per thread across a barrier, where known (fast/kept_types.py): their arrays are made once, before
    the blocks run; the others' are made by the first thread that keeps one, which costs every thread of
    the phase the array's reference counting (about three times the run of a shared-memory reduction)."""
    source = source_of(func)
    env = environment(func)
    writer = _Writer(source, env, arg_kinds, kept_dtypes or {})
    text = writer.module()
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return Translation(source.name, text, writer.params, writer.array_params, writer.shared, writer.sites,
                       writer.phases, digest, tuple(sorted(writer.saved)),
                       {n: d for n, d in writer.kept_dtypes.items() if n in writer.saved},
                       tuple(sorted(writer.kernel_locals - set(writer.shared_names))))  # fmt: skip


class _Writer(Phases, Statements, Accesses, Expressions, KernelFacts):
    def __init__(self, source: KernelSource, env: dict, arg_kinds: dict[str, int], kept_dtypes: dict[str, str]):
        self.source, self.env = source, env
        self.kept_dtypes = kept_dtypes
        node = source.node
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults:
            raise FastUnsupported("parameters with defaults, *args or keywords")
        self.params = [a.arg for a in node.args.args]
        self.array_params = [p for p in self.params if arg_kinds.get(p, 0) > 0]
        self.ndims = {p: arg_kinds[p] for p in self.array_params}
        self.locals = names_in(node.body, ast.Store) - set(self.params)
        self.kernel_locals = frozenset(self.locals)  # `locals` loses shared arrays and one-per-block values
        self.temps: set[str] = set()  # names this translation introduces (an index evaluated once)
        self.shared: list[SharedDeclaration] = []
        self.shared_names: dict[str, int] = {}
        self.sites: list[tuple[int, int, int]] = []
        self.block_scalars: set[str] = set()  # one value per block: loop variables of loops split at barriers,
        self._find_block_scalars()  # and locals every thread computes alike where every thread runs
        self.varying = self._varying_locals()
        self.saved: set[str] = set()  # locals kept per thread across a barrier so far
        self.lines: list[str] = []
        self.phases: list[list[str]] = []  # each loop-free phase's instructions (their costs), in lockstep order
        self.points: list[str] | None = None  # the current phase's, while it is loop-free

    def module(self) -> str:
        params = ", ".join(self.params)
        self.lines = []
        self._emit(
            0, f"def run_blocks(_blocks, _slot_base, {params}, _dims, _cost, _PC, _SP, _L, _W, _F, _clk, _end, _hsh):"
        )
        body = [
            "_bdx, _bdy, _bdz, _gdx, _gdy, _gdz = _dims[0], _dims[1], _dims[2], _dims[3], _dims[4], _dims[5]",
            "_tpb = _bdx * _bdy * _bdz",
            "_C_ALU, _C_BR, _C_GL, _C_GS, _C_SL, _C_SS, _C_BAR = "
            "_cost[0], _cost[1], _cost[2], _cost[3], _cost[4], _cost[5], _cost[6]",
            "_Li, _Lv, _Lt, _Ls, _Le, _Lp, _Lc, _Lk, _Ln = _L",
            *(f"_W{k}o, _W{k}f, _W{k}s, _W{k}t = _W[{k}]" for k in range(len(self.array_params))),
            "_alive = np.ones(_tpb, np.bool_)",
            "_before = np.ones(_tpb, np.bool_)",
            "_pm = np.zeros(_tpb, np.uint64)",
            "_rp = np.zeros(_tpb, np.int64)",
            "_c0 = np.zeros(_tpb, np.int64)",
            "_n0 = np.zeros(_tpb, np.int64)",
            "_prefix = np.zeros(65, np.int64)  # settle's work space",
            "for _b in _blocks:",
        ]
        for text in body:
            self._emit(1, text)
        for text in ("_alive[:] = True", "_bx = _b % _gdx", "_by = (_b // _gdx) % _gdy", "_bz = _b // (_gdx * _gdy)",
                     "_base = _slot_base[_b]", "_F[1] += 1", "_ep = 0", "_ph = 0"):  # fmt: skip
            self._emit(2, text)
        self._declare_shared(self.source.node.body)
        self._region(self.source.node.body, 2)
        self._emit(2, "for _t in range(_tpb):")
        self._emit(3, "_g = _b * _tpb + _t")
        self._emit(3, "if _alive[_t]:")
        self._emit(4, "_end[_g] = _clk[_g]")
        flags = [f"    _have_{name} = False" for name in sorted(self.saved - set(self.kept_dtypes))]
        self.lines[1:1] = flags
        made = [f"    _keep_{name} = np.empty(_tpb, np.{self.kept_dtypes[name]})" for name in sorted(self.saved)
                if name in self.kept_dtypes]  # fmt: skip
        at = self.lines.index("    for _b in _blocks:")
        self.lines[at:at] = made
        # numba's cache knows only this file: naming the hooks' own text here compiles anew when they change
        head = (f"# hooks {_hooks_digest()}\nimport math\nimport numpy as np\n"
                "from gpuviz.backends.sim.fast.hooks import *  # noqa: F403\n"
                "from gpuviz.backends.sim.fast.access_hooks import *  # noqa: F403\n\n")  # fmt: skip
        return head + "\n".join(self.lines) + "\n"

    def _emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def _hooks_digest() -> str:
    from gpuviz.backends.sim.fast import access_hooks, hooks

    text = b"".join(Path(module.__file__).read_bytes() for module in (hooks, access_hooks))
    return hashlib.sha1(text).hexdigest()[:16]
