"""numba.cuda's bit intrinsics (popc, brev, clz, ffs) at their operand's width, for one value or a lane array.

numba types a Python int as int64 (uint64 past int64's range) and picks the intrinsic's signature from
the operand's type: popc and clz return that type, ffs a uint32, brev a uint64 for a uint64 and a uint32
(of the low 32 bits) for anything else, as an NVIDIA H200 gave (tests/data/gpu_intrinsics.json). The same
functions serve both engines: a scalar in gives a NumPy scalar of that type out.
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import KernelMisuse

_BYTES = np.arange(256, dtype=np.uint8)
POPCOUNT = np.unpackbits(_BYTES[:, None], axis=1).sum(axis=1).astype(np.int64)
REVERSED = np.packbits(np.unpackbits(_BYTES[:, None], axis=1)[:, ::-1], axis=1).ravel()


def operand(x: object) -> np.ndarray:
    """The value as an integer array of the type numba gives it."""
    if isinstance(x, (bool, np.bool_)):
        return np.asarray(int(x), np.int64)
    if isinstance(x, int):
        return np.asarray(x, np.uint64 if x >= 1 << 63 else np.int64)
    a = np.asarray(x)
    if a.dtype.kind not in "iub":
        raise KernelMisuse(f"numba-cuda's popc, brev, clz and ffs take integers, not {a.dtype}; the kernel would not "
                           "compile")  # fmt: skip
    return a if a.dtype.kind in "iu" else a.astype(np.int64)


def _unsigned(a: np.ndarray) -> np.ndarray:
    return (a if a.flags.c_contiguous else a.copy()).view(f"u{a.dtype.itemsize}")


def _bytes(u: np.ndarray) -> np.ndarray:
    """The bytes of each value, least significant first (the machine is little-endian)."""
    return u[..., None].view(np.uint8).reshape(*u.shape, u.dtype.itemsize)


def _bit_length(u: np.ndarray) -> np.ndarray:
    v, count = u.astype(np.uint64), np.zeros(u.shape, np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        big = v >= np.uint64(1 << shift)
        count += shift * big
        v = np.where(big, v >> np.uint64(shift), v)
    return count + (v > 0)


def _out(result: np.ndarray, x: object, dtype) -> object:
    result = result.astype(dtype, copy=False)
    return result if isinstance(x, np.ndarray) and x.ndim else result[()]


def popc(x):
    a = operand(x)
    return _out(POPCOUNT[_bytes(_unsigned(a))].sum(axis=-1), x, a.dtype)


def brev(x):
    """numba has brev for uint32 and uint64 only: a uint64 stays 64-bit, anything else (int64 and a
    Python int too) becomes a uint32 of its low 32 bits, the first signature numba can convert to."""
    a = operand(x)
    u = _unsigned(a) if a.dtype == np.uint64 else a.astype(np.uint32)
    flipped = np.ascontiguousarray(REVERSED[_bytes(u)][..., ::-1])
    return _out(flipped.view(u.dtype).reshape(u.shape), x, u.dtype)


def clz(x):
    a = operand(x)
    return _out(a.dtype.itemsize * 8 - _bit_length(_unsigned(a)), x, a.dtype)


def ffs(x):
    u = _unsigned(operand(x))
    with np.errstate(over="ignore"):
        lowest = u & (~u + u.dtype.type(1))  # two's complement: the lowest set bit alone
    return _out(_bit_length(lowest), x, np.uint32)


BIT_INTRINSICS = {"_gv_popc": popc, "_gv_brev": brev, "_gv_clz": clz, "_gv_ffs": ffs}
