"""A stand-in for `cuda.cccl.cooperative.experimental` (CCCL's block primitives for numba kernels, the
module path cuda-cccl 0.1.3 gives them; NVIDIA's CUDA Python pages call the project `cuda.coop`) on the
simulator: each primitive gpuviz models is a LinkedCall running its model (shims/linked_models.py).

`block.sum(dtype, threads_per_block)` and the others take the library's own arguments; what the models
do not cover (other algorithms are only faster ways to the same result, so they are accepted; prefix
callbacks, scan operators other than '+', warp primitives, sorts and exchanges are not) is refused in
one line naming it.
"""

from __future__ import annotations

import operator
from types import FunctionType

import numpy as np

from gpuviz.core.dtypes import to_dtype
from gpuviz.core.errors import GpuvizError
from gpuviz.program.shims.linked import LinkedCall, not_modelled
from gpuviz.program.shims.linked_models import block_load_store_models, block_reduce_models, block_scan_models

MODULE = "cuda.cccl.cooperative.experimental"
LOAD_STORE_ALGORITHMS = {"direct": False, "striped": True, "vectorize": False, "transpose": False,
                         "warp_transpose": False, "warp_transpose_timesliced": False}  # fmt: skip
# name -> striped?: every algorithm ends with the blocked arrangement but "striped", whatever it moves through


class _Namespace:
    """`block` and `warp`: the primitives gpuviz models, and a one-line refusal for the others."""

    def __init__(self, path: str, **primitives):
        self._path = path
        self.__dict__.update(primitives)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise not_modelled(f"{self._path}.{name}")


def _threads(threads_per_block) -> int:
    dims = threads_per_block if isinstance(threads_per_block, tuple) else (threads_per_block,)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, int) or d < 1 for d in dims):
        raise GpuvizError(f"threads_per_block {threads_per_block!r}: give a positive int or a tuple of 2 or 3")
    return int(np.prod(dims))


def _items(items_per_thread) -> int:
    if not isinstance(items_per_thread, int) or items_per_thread < 1:
        raise GpuvizError(f"items_per_thread {items_per_thread!r}: must be an integer of at least 1")
    return items_per_thread


def _call(name: str, label: str, models: dict) -> LinkedCall:
    return LinkedCall(f"{MODULE}.block.{name}", f"CCCL block {label}", models)


def sum(dtype, threads_per_block, items_per_thread=1, algorithm="warp_reductions", methods=None) -> LinkedCall:  # noqa: A001
    threads, items = _threads(threads_per_block), _items(items_per_thread)
    models = block_reduce_models(threads, items, to_dtype(dtype), None)
    return _call("sum", f"sum of {items} item(s) a thread over {threads} threads (thread 0 gets it)", models)


def reduce(dtype, threads_per_block, binary_op, items_per_thread=1, algorithm="warp_reductions",
           methods=None) -> LinkedCall:  # fmt: skip
    if isinstance(binary_op, FunctionType) and binary_op.__name__ == "<lambda>":
        raise GpuvizError("block.reduce: give binary_op as a def function: the simulator rewrites its source, "
                          "which a lambda does not have on its own")  # fmt: skip
    threads, items = _threads(threads_per_block), _items(items_per_thread)
    models = block_reduce_models(threads, items, to_dtype(dtype), binary_op)
    name = getattr(binary_op, "__name__", "op")
    return _call("reduce", f"reduce with {name} of {items} item(s) a thread over {threads} threads", models)


def _scan(name: str, dtype, threads_per_block, items_per_thread, exclusive: bool, extra: dict) -> LinkedCall:
    refused = [key for key, value in extra.items() if value is not None]
    if refused:
        raise not_modelled(f"{MODULE}.block.{name}({refused[0]}=...)")
    threads, items = _threads(threads_per_block), _items(items_per_thread)
    models = block_scan_models(threads, items, to_dtype(dtype), exclusive)
    kind = "exclusive" if exclusive else "inclusive"
    return _call(name, f"{kind} sum of {items} item(s) a thread over {threads} threads", models)


def inclusive_sum(dtype, threads_per_block, items_per_thread, prefix_op=None, algorithm="raking",
                  methods=None) -> LinkedCall:  # fmt: skip
    return _scan("inclusive_sum", dtype, threads_per_block, items_per_thread, False, {"prefix_op": prefix_op})


def exclusive_sum(dtype, threads_per_block, items_per_thread, prefix_op=None, algorithm="raking",
                  methods=None) -> LinkedCall:  # fmt: skip
    return _scan("exclusive_sum", dtype, threads_per_block, items_per_thread, True, {"prefix_op": prefix_op})


def scan(dtype, threads_per_block, items_per_thread, initial_value=None, mode="exclusive", scan_op="+",
         block_prefix_callback_op=None, algorithm="raking", methods=None) -> LinkedCall:  # fmt: skip
    if scan_op not in ("+", operator.add):
        raise not_modelled(f"{MODULE}.block.scan(scan_op={scan_op!r})")
    extra = {"initial_value": initial_value, "block_prefix_callback_op": block_prefix_callback_op}
    return _scan("scan", dtype, threads_per_block, items_per_thread, mode == "exclusive", extra)


def inclusive_scan(dtype, threads_per_block, scan_op, items_per_thread, initial_value=None, prefix_op=None,
                   algorithm="raking", methods=None) -> LinkedCall:  # fmt: skip
    return scan(dtype, threads_per_block, items_per_thread, initial_value, "inclusive", scan_op, prefix_op)


def exclusive_scan(dtype, threads_per_block, scan_op, items_per_thread, initial_value=None, prefix_op=None,
                   algorithm="raking", methods=None) -> LinkedCall:  # fmt: skip
    return scan(dtype, threads_per_block, items_per_thread, initial_value, "exclusive", scan_op, prefix_op)


def _load_store(name: str, dtype, threads_per_block, items_per_thread, algorithm, store: bool) -> LinkedCall:
    if algorithm not in LOAD_STORE_ALGORITHMS:
        raise GpuvizError(f"block.{name} algorithm {algorithm!r}: one of {', '.join(LOAD_STORE_ALGORITHMS)}")
    threads, items = _threads(threads_per_block), _items(items_per_thread)
    striped = LOAD_STORE_ALGORITHMS[algorithm]
    models = block_load_store_models(threads, items, striped, store)
    arrangement = "striped" if striped else "blocked"
    return _call(name, f"{name} of {items} item(s) a thread, {arrangement}, over {threads} threads", models)


def load(dtype, threads_per_block, items_per_thread=1, algorithm="direct") -> LinkedCall:
    return _load_store("load", dtype, threads_per_block, items_per_thread, algorithm, False)


def store(dtype, threads_per_block, items_per_thread=1, algorithm="direct") -> LinkedCall:
    return _load_store("store", dtype, threads_per_block, items_per_thread, algorithm, True)


block = _Namespace(f"{MODULE}.block", sum=sum, reduce=reduce, inclusive_sum=inclusive_sum,
                   exclusive_sum=exclusive_sum, scan=scan, inclusive_scan=inclusive_scan,
                   exclusive_scan=exclusive_scan, load=load, store=store)  # fmt: skip
warp = _Namespace(f"{MODULE}.warp")


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(name)
    raise not_modelled(f"{MODULE}.{name}", attribute=False)
