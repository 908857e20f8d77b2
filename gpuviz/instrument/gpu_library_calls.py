"""How the GPU rewrite records calls of library device functions (linked code numba cannot see into):
nvmath-python's device matmul by the shared arrays it reads and writes, CCCL's block primitives as
one step of each thread at the call's line (the value it handed in, then the value it got back)."""

from __future__ import annotations

import ast

# Library device functions whose shared-memory operands the recorder logs around the call, at the
# call's line: (module, class, method) -> (arguments read, arguments written). nvmath-python's device
# matmul MM.execute(alpha, a, b, beta, c) reads A and B (and C unless beta is 0) and writes C.
LOGGED_LIBRARY_CALLS = {("nvmath.device", "Matmul", "execute"): ((1, 2), (4,))}
# Modules whose callable objects are CCCL's block and warp primitives (cuda-cccl 0.1.3 puts them at
# cuda.cccl.cooperative.experimental; later releases call the package cuda.coop).
CCCL_MODULES = ("cuda.cccl.", "cuda.coop")
BLOCK_THREAD = ("(_gv_cuda.threadIdx.x + _gv_cuda.blockDim.x * (_gv_cuda.threadIdx.y + _gv_cuda.blockDim.y * "
                "_gv_cuda.threadIdx.z))")  # fmt: skip
BLOCK_THREADS = "(_gv_cuda.blockDim.x * _gv_cuda.blockDim.y * _gv_cuda.blockDim.z)"
ELEMENT = {
    1: "{a}[_gv_linked_e]",
    2: "{a}[_gv_linked_e // {a}.shape[1], _gv_linked_e % {a}.shape[1]]",
    3: "{a}[_gv_linked_e // ({a}.shape[1] * {a}.shape[2]), _gv_linked_e // {a}.shape[2] % {a}.shape[1], "
       "_gv_linked_e % {a}.shape[2]]",
}  # fmt: skip


def is_cccl_primitive(value: object) -> bool:
    """A CCCL block or warp primitive (`coop.block.sum(...)`'s result): its type comes from CCCL."""
    return value is not None and type(value).__module__.startswith(CCCL_MODULES)


def slots_name(callee: ast.expr) -> str:
    """The name a call's slots take in the trace: the callee as the script writes it, as one word
    (names in marks and checks are words)."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in ast.unparse(callee))


def static_id(aid: ast.expr) -> int | None:
    """An array id the rewrite knows (a constant), else None (a device function's parameter's)."""
    return aid.value if isinstance(aid, ast.Constant) else None


def _parsed_at(text: str, where: ast.stmt) -> list[ast.stmt]:
    statements = ast.parse(text).body
    for statement in statements:
        for child in ast.walk(statement):
            ast.copy_location(child, where)
    return statements


def _located(statements: list[ast.stmt], where: ast.stmt) -> list[ast.stmt]:
    """The generated statements at the call's line; the user's own expressions keep theirs."""
    for statement in statements:
        for child in ast.walk(statement):
            if "lineno" in child._attributes and not hasattr(child, "lineno"):
                ast.copy_location(child, where)
    return statements


class LibraryCallLogging:
    """The GPU rewriter's share for library calls (mixed into GpuRewriter, whose names it uses)."""

    # ---- nvmath-python's device matmul: its shared operands around the call ----------------------
    def _library_roles(self, call: ast.Call) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(arguments read, arguments written) of a library call the recorder logs, or None."""
        called = self._value_of(call.func)
        owner = getattr(called, "__self__", None)
        if owner is None:
            return None
        module = ".".join(type(owner).__module__.split(".")[:2])
        return LOGGED_LIBRARY_CALLS.get((module, type(owner).__name__, getattr(called, "__name__", "")))

    def _logged_library_call(self, node: ast.Expr) -> list[ast.stmt] | None:
        """A library call whose code numba links: it runs as it is, and each thread logs its share of the
        shared arrays it reads (before it, the values it will read) and writes (after it and a barrier,
        the values it left), element t, t + threads, ... for thread t, at the call's line. The barrier is
        one more for the hardware and none for the trace: a block-wide library call is reached by every
        thread of the block, and the epochs stay those of the user's barriers."""
        call = node.value
        roles = self._library_roles(call)
        if roles is None:
            return None
        reads, writes = roles
        beta = call.args[3] if len(call.args) > 3 else None
        if not (isinstance(beta, ast.Constant) and beta.value == 0):
            reads = (*reads, *writes)  # BLAS reads C when beta is not 0
        line = node.lineno
        before = [s for k in reads for s in self._log_operand(call, k, line, 0)]
        after = [s for k in writes for s in self._log_operand(call, k, line, 1)]
        barrier = ast.parse("_gv_cuda.syncthreads()").body if after else []
        for statement in [*before, *barrier, *after]:
            for child in ast.walk(statement):
                ast.copy_location(child, node)
        node.value = self.visit(call)
        return [*before, node, *barrier, *after]

    def _log_operand(self, call: ast.Call, position: int, line: int, kind: int) -> list[ast.stmt]:
        """Each thread's share of one array argument, logged as reads (kind 0) or writes (1)."""
        array = call.args[position] if position < len(call.args) else None
        aid = self.aid_of(array) if array is not None else None
        dims = self.ndims.get(array.id) if isinstance(array, ast.Name) else None
        if aid is None or dims not in ELEMENT:
            return []
        site = self.sites.access_site(line, kind, array=static_id(aid))
        element = ELEMENT[dims].format(a=array.id)
        flat = "_gv_linked_e"
        log = f"_gv_access(_t, {ast.unparse(aid)}, {site}, {flat}, {element})"
        text = f"for _gv_linked_e in range({BLOCK_THREAD}, {array.id}.size, {BLOCK_THREADS}):\n    {log}\n"
        return ast.parse(text).body

    # ---- CCCL's primitives: one step of each thread -----------------------------------------------
    def _cccl_step(self, node: ast.stmt, call: ast.Call, targets: list[ast.expr] | None) -> list[ast.stmt] | None:
        """`x = block_sum(v)` (or a call as a statement): the call runs as the library made it, and each
        thread logs two records at its line in the call's slots (element: its number in the block), a
        write of the value it hands in (0 for a thread-local array) just before the call and a read
        of the value it gets back (0 for a call that returns nothing) just after: the time between
        them is the thread's time in the call, its barrier waits included. The simulator's model of
        the call writes each thread's value into its storage and hands back the result the same way.
        Shared or global arrays the call is given are not logged: which of them it writes, and
        where, only the primitive knows (its object does not say which it is)."""
        if not is_cccl_primitive(self._value_of(call.func)):
            return None
        aid = self.sites.add_slots(slots_name(call.func))
        if aid is None:  # no array id left: the call runs unrecorded, as before
            return None
        n = self.library_steps  # a name per call: numba gives a name one type in a function
        self.library_steps += 1
        given, got = f"_gv_lib_in{n}", f"_gv_lib_out{n}"
        call.args = [self.visit(a) for a in call.args]
        call.keywords = [ast.keyword(k.arg, self.visit(k.value)) for k in call.keywords]
        statements: list[ast.stmt] = []
        if call.args:  # evaluated once: its own loads are logged as the user's, before the call
            statements.append(ast.Assign([ast.Name(given, ast.Store())], call.args[0]))
            call.args[0] = ast.Name(given, ast.Load())
        handed = given if call.args else "0"
        write = self.sites.access_site(node.lineno, 1, array=aid)
        read = self.sites.access_site(node.lineno, 0, array=aid)
        statements += _parsed_at(f"_gv_access(_t, {aid}, {write}, {BLOCK_THREAD}, {handed})", node)
        if targets is None:
            statements.append(ast.Expr(call))
        else:
            statements.append(ast.Assign([ast.Name(got, ast.Store())], call))
        statements += _parsed_at(f"_gv_access(_t, {aid}, {read}, {BLOCK_THREAD}, {got if targets else 0})", node)
        _located(statements, node)
        if targets is not None:  # the user's own assignment, rewritten as any other (a store is logged)
            assign = ast.copy_location(ast.Assign(targets, ast.Name(got, ast.Load())), node)
            done = self.visit_Assign(assign)
            statements += done if isinstance(done, list) else [done]
        return statements
