"""`numba.cuda.random` on the simulator: xoroshiro128+ with numba-cuda's very numbers.

The generator, its SplitMix64 seeding and its 2**64-step jumps between the states of consecutive
threads follow numba_cuda/numba/cuda/random.py. numba initialises the states on the host one after
another; here the jump (a linear map over GF(2)) is a 128x128 bit matrix, so state i+m = J^m state i
fills the array in log2(n) vectorised doublings. The draw functions run as plain calls inside
kernels: the trace does not record their reads and writes of the state array.
"""

from __future__ import annotations

import math

import numpy as np

from gpuviz.program.shims.cuda.arrays import device_array

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_TWO_PI_FLOAT32 = np.float32(2 * math.pi)
_TWO_PI_FLOAT64 = np.float64(2 * math.pi)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK


def _next(s0: int, s1: int) -> tuple[int, int, int]:
    """(result, new s0, new s1) of one xoroshiro128+ step."""
    result = (s0 + s1) & _MASK
    s1 ^= s0
    return result, _rotl(s0, 55) ^ s1 ^ ((s1 << 14) & _MASK), _rotl(s1, 36)


def _jump(s0: int, s1: int) -> tuple[int, int]:
    j0 = j1 = 0
    for word in _JUMP:
        for b in range(64):
            if word & (1 << b):
                j0, j1 = j0 ^ s0, j1 ^ s1
            _, s0, s1 = _next(s0, s1)
    return j0, j1


def _seed_state(seed: int) -> tuple[int, int]:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return z, z


def _jump_matrix() -> np.ndarray:
    """Column b: the jump applied to the unit state with bit b set (bits 0-63 in s0, 64-127 in s1)."""
    columns = [_jump(1 << b, 0) for b in range(64)] + [_jump(0, 1 << b) for b in range(64)]
    return np.array(columns, np.uint64)


def _apply(matrix: np.ndarray, states: np.ndarray) -> np.ndarray:
    """matrix (128 columns of (s0, s1)) applied to many states (n, 2) over GF(2), a byte at a time:
    each byte of a state picks one of 256 precomputed XORs of eight columns."""
    out = np.zeros_like(states)
    for k in range(16):
        word, shift = divmod(k, 8)
        table = np.zeros((256, 2), np.uint64)
        for bit in range(8):
            table[1 << bit : 2 << bit] = table[: 1 << bit] ^ matrix[8 * k + bit]
        out ^= table[(states[:, word] >> np.uint64(8 * shift)) & np.uint64(255)]
    return out


def init_xoroshiro128p_states_cpu(states: np.ndarray, seed: int, subsequence_start: int = 0) -> None:
    """numba's host-side initialisation, state for state the same numbers."""
    n = states.shape[0]
    if n == 0:
        return
    s0, s1 = _seed_state(int(seed) & _MASK)
    for _ in range(int(subsequence_start)):
        s0, s1 = _jump(s0, s1)
    pairs = np.zeros((n, 2), np.uint64)
    pairs[0] = (s0, s1)
    matrix, filled = _jump_matrix(), 1  # matrix = J^filled
    while filled < n:
        take = min(filled, n - filled)
        pairs[filled : filled + take] = _apply(matrix, pairs[:take])
        filled += take
        if filled < n:
            matrix = _apply(matrix, matrix)  # J^2k from J^k: the columns of J^k mapped again
    states["s0"], states["s1"] = pairs[:, 0], pairs[:, 1]


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0) -> None:
    host = np.empty(states.shape, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(host, seed, subsequence_start)
    states[...] = host


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    states = device_array(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states


# ---- inside kernels (plain calls on the state array) ---------------------------------------------
def xoroshiro128p_next(states, index) -> np.uint64:
    state = states[int(index)]
    result, s0, s1 = _next(int(state["s0"]), int(state["s1"]))
    state["s0"], state["s1"] = s0, s1
    return np.uint64(result)


def xoroshiro128p_jump(states, index) -> None:
    state = states[int(index)]
    state["s0"], state["s1"] = _jump(int(state["s0"]), int(state["s1"]))


def uint64_to_unit_float64(x) -> np.float64:
    return np.float64(int(x) >> 11) * (np.float64(1) / np.float64(1 << 53))


def uint64_to_unit_float32(x) -> np.float32:
    return np.float32(uint64_to_unit_float64(x))


def xoroshiro128p_uniform_float32(states, index) -> np.float32:
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


def xoroshiro128p_uniform_float64(states, index) -> np.float64:
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


def xoroshiro128p_normal_float32(states, index) -> np.float32:
    """Box-Muller in float32, as numba types it (two draws)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(-np.float32(2.0) * np.log(u1)) * np.cos(_TWO_PI_FLOAT32 * u2)


def xoroshiro128p_normal_float64(states, index) -> np.float64:
    u1 = xoroshiro128p_uniform_float32(states, index)  # numba draws float32 here too
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI_FLOAT64 * u2)
