"""How numba-cuda 0.30 types the operands of warp and block collectives, for both engines of the simulator.

Read from numba-cuda's typing and checked against an NVIDIA H200 (tests/data/gpu_intrinsics.json):
- a shuffle takes an int32, int64, float32 or float64 value; numba refuses any other (uint32 too);
- syncthreads_count/_and/_or take an integer predicate, converted to int32 first (2^32 counts as
  false); numba refuses a bool or a float;
- the votes (all_sync, any_sync, eq_sync, ballot_sync) take an integer or bool predicate and test it
  against zero at its own width: eq_sync asks whether every lane's predicate is true or every lane's
  false, not whether the values are equal;
- match_any_sync and match_all_sync compare bit patterns after numba's conversion to one of its
  signatures (int32, int64, float32, float64): a uint32 becomes an int64, a uint64 a float64, so
  uint64 values that round to one float64 match.
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import UNARY_TYPES, numba_type, to_int
from gpuviz.instrument.rewrite import BARRIERS, COLLECTIVES

NUMBA_NAMES = {op: name for name, op in {**BARRIERS, **COLLECTIVES}.items()}
SHUFFLES = ("shfl", "shfl_up", "shfl_down", "shfl_xor")
SHUFFLED_TYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
BARRIER_VOTES = ("count", "and", "or")
WARP_VOTES = ("all", "any", "eq", "ballot")
# the arguments of the warp operations that take a mask (numba-cuda has no width argument for the shuffles)
MASKED_ARGUMENTS = {
    **{op: ("mask", "value", "lane" if op == "shfl" else "delta") for op in SHUFFLES},
    **{op: ("mask", "predicate") for op in WARP_VOTES},
    "match_any": ("mask", "value"), "match_all": ("mask", "value"),
}  # fmt: skip


def refusal(op: str, args: tuple) -> str | None:
    """What numba-cuda says when it refuses these operands (a TypingError at compile time), or None."""
    name = NUMBA_NAMES.get(op, op)
    wanted = MASKED_ARGUMENTS.get(op)
    if wanted and len(args) != len(wanted):
        return f"numba-cuda's {name} takes {len(wanted)} arguments ({', '.join(wanted)}), not {len(args)}"
    if wanted and op not in ("match_any", "match_all") and numba_type(args[0]).kind not in "iu":
        # (match_*_sync converts its mask to an int32; the votes and shuffles refuse any other)
        return f"numba-cuda's {name} takes an integer mask, not {numba_type(args[0])}"
    if op in SHUFFLES and len(args) > 1:
        kind = numba_type(args[1])
        if kind not in SHUFFLED_TYPES:
            return f"numba-cuda's {name} shuffles int32, int64, float32 or float64 values, not {kind}"
    if op in WARP_VOTES and len(args) > 1 and numba_type(args[1]).kind not in "iub":
        return f"numba-cuda's {name} takes an integer or bool predicate, not {numba_type(args[1])}"
    if op in BARRIER_VOTES and args:
        kind = numba_type(args[0])
        if kind.kind not in "iu":
            return (f"numba-cuda's {name} takes an integer predicate, not {kind} "
                    "(write `1 if condition else 0`)")  # fmt: skip
    return None


def barrier_truth(predicate: object) -> object:
    """A syncthreads_count/_and/_or predicate as numba passes it: converted to int32, then tested."""
    value = np.asarray(predicate)
    low = value.astype(np.uint64 if value.dtype.kind == "u" else np.int64) & 0xFFFFFFFF
    return low != 0


def match_keys(values: object) -> np.ndarray:
    """Values as match_any_sync/match_all_sync compare them: numba's conversion, then the bit pattern."""
    value = np.asarray(values)
    if value.dtype == np.uint64:
        value = value.astype(np.float64)
    if value.dtype.kind == "f":
        value = np.array(value).view(f"i{value.dtype.itemsize}")  # a contiguous copy that keeps 0-d values 0-d
    return value.astype(np.int64)


# cuda.atomic.<op> -> the element types numba-cuda takes, in the table's order
ATOMIC_TYPES = {name.removeprefix("atomic."): tuple(t for t in types.values() if t is not None)
                for name, types in UNARY_TYPES.items() if name.startswith("atomic.")}  # fmt: skip


def atomic_refusal(op: str, array: np.ndarray, index: object) -> str | None:
    """What numba-cuda says when it refuses cuda.atomic.<op> on this array with this index, or None.

    The element types come from numba-cuda's typing (numba_types.py: add/sub/max/min on 32- and 64-bit
    integers and floats, the bitwise ones, exch and cas on integers only, inc/dec on unsigned ones). The
    index names one element: on a 1-D array a number (a float is truncated), on an N-D array N of them
    (numba-cuda refuses `atomic.add(a2d, 0, 1)`, "indexing 2-D array with 1-D index", where NumPy would
    add to the whole row)."""
    name = NUMBA_NAMES.get(op, op)
    takes = ATOMIC_TYPES[op]
    if array.dtype not in takes:
        names = ", ".join(str(dtype) for dtype in takes)
        return f"numba-cuda's cuda.atomic.{name} works on arrays of {names}, not {array.dtype}"
    if op == "compare_and_swap" and array.ndim != 1:
        return "numba-cuda's cuda.atomic.compare_and_swap works on a 1-D array (element 0); use cuda.atomic.cas"
    parts = len(index) if type(index) is tuple else 1
    if parts == array.ndim and (array.ndim > 1 or type(index) is not tuple):
        return None
    if array.ndim == 1:
        return f"cuda.atomic.{name} on a 1-D array takes one number as its index, not a tuple"
    return (f"cuda.atomic.{name} on a {array.ndim}-D array takes an index of {array.ndim} parts "
            f"(one element); numba-cuda refuses an index of {parts}, and the kernel would not compile")  # fmt: skip


def atomic_index(index: object) -> object:
    """An atomic's index as numba-cuda passes it: each part converted to an integer (numba-cuda casts the index
    to intp, so a float index is truncated as `int(x)` is, where `a[x]` with a float x does not compile)."""
    if type(index) is tuple:
        return tuple(_index_part(part) for part in index)
    return _index_part(index)


def _index_part(part: object) -> object:
    kind = numba_type(part).kind if not isinstance(part, np.ndarray) else part.dtype.kind
    return to_int(part) if kind in "fb" else part
