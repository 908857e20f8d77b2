"""The fast path's hooks for whole blocks and threads, compiled with numba's CPU target: branches into path
hashes, instructions charged to every live thread, barriers, lanes of a warp given their warp's times, and
the watch state of the arrays; the per-access hooks are in fast/access_hooks.py.

Each access to an array the kernel may write is watched: two threads touching one element between the
same barriers with a write among them, or two blocks touching one element one of them writes, is an
interleaving the fast path cannot reproduce, and F[0] says so (the launch then runs on the vector engine).

F (int64): [0] why the run cannot stand (0: it can), [1] the current phase's stamp (one per block and
barrier), [2] the thread that met it, [3:] the spin watch's state (access_hooks.py, `_spin`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from gpuviz.backends.sim.spin import MAX_SEEN

CONFLICT, OUT_OF_BOUNDS, UNWRITTEN, DIVERGED, PATHS, SPIN, STOPPED, ASSERTED = 1, 2, 3, 4, 5, 6, 7, 8
REASONS = {
    ASSERTED: "an assert failed in a thread (the reference engine stops at the first thread that fails it)",
    STOPPED: "the run was stopped (another lane's exception, or a time-out)",
    SPIN: "a thread read the same few elements over and over with no thread writing memory (a spin: the vector "
    "engine watches it and words it)",
    PATHS: "lanes of a warp took different paths through a loop (their warp's time is the vector engine's to say)",
    CONFLICT: "two threads touch one element between the same barriers and one of them writes it",
    OUT_OF_BOUNDS: "an index past the end of an array",
    UNWRITTEN: "a read of shared memory no thread of the block wrote",
    DIVERGED: "a barrier some threads of a block never reach",
}
# F's spin watch: [3] reads since any thread last wrote (as the last thread to leave a phase left it),
# [4] distinct reads in the window, [5] the window's number, then a table of the window's reads: its keys,
# then the window each key was seen in
SINCE, DISTINCT, WINDOW, SEEN = 3, 4, 5, 8
FLAGS = SEEN + 2 * MAX_SEEN  # F's size
# flags per watched element
WRITTEN, READ_ELSEWHERE, PHASE_WRITE, PHASE_MANY = 1, 2, 4, 8
_HASH = np.uint64(1000003)
_TAKEN, _NOT_TAKEN = np.uint64(1), np.uint64(2)


@njit(cache=True, _nrt=False)
def branch(h, g, condition):
    """A branch taken or not goes into the thread's path hash (warps whose lanes differ are not timed here)."""
    h[g] = h[g] * _HASH + (_TAKEN if condition else _NOT_TAKEN)
    return condition


@njit(cache=True, _nrt=False)
def path_hash(h, condition):
    """A branch taken or not, into a thread's path hash held in a local (statements' branches)."""
    return h * _HASH + (_TAKEN if condition else _NOT_TAKEN)


@njit(cache=True, _nrt=False)
def join_paths(in_expressions, in_statements):
    """A thread's path hash: its expressions' branches (in memory) and its statements' (in a local) are each in
    their order; two lanes whose pairs agree took one path (the first branch they differ at is in one of them)."""
    return in_expressions * np.uint64(0x9E3779B97F4A7C15) + in_statements


@njit(cache=True, _nrt=False)
def charge(alive, clk, first, cost):
    for t in range(alive.size):
        if alive[t]:
            clk[first + t] += cost


@njit(cache=True, _nrt=False)
def barrier(alive, clk, first, cost, F):
    """The block's live threads leave the barrier together, `cost` after the last of them arrived (as the
    vector engine's warps wait for their block's latest)."""
    arrived, latest = 0, np.iinfo(np.int64).min
    for t in range(alive.size):
        if alive[t]:
            arrived += 1
            latest = max(latest, clk[first + t])
    for t in range(alive.size):
        if alive[t]:
            clk[first + t] = latest + cost
    if 0 < arrived < alive.size:
        fault(F, DIVERGED, first)
    F[1] += 1  # a new phase: accesses after the barrier are ordered after those before it


@njit(cache=True, _nrt=False)
def same_paths(before, hsh, first, F):
    """In a phase with loops, a thread's clock is its warp's only when every lane took the same path."""
    tpb = before.size
    for w in range(0, tpb, 32):
        seen, path = False, hsh[first + w]
        for t in range(w, min(w + 32, tpb)):
            if before[t]:
                if not seen:
                    seen, path = True, hsh[first + t]
                elif hsh[first + t] != path:
                    fault(F, PATHS, first + t)


# The block-wide hooks allocate nothing and are compiled without numba's reference counting (`_nrt=False`):
# called at every phase of every block, each array argument's counting cost more than the hook's work.


@njit(cache=True, _nrt=False)
def settle(costs, site_points, before, alive, clk, c0, end, pm, rp, n0, first, base, L, prefix):
    """After a loop-free phase: a warp runs every instruction one of its lanes ran, in the order of the code
    (the then-branch before the else-branch), so each lane's accesses, its return and its clock at the next
    barrier take the warp's times: the phase's start plus the costs of the warp's instructions before.
    `prefix`: 65 int64s of work space (the caller's, made once)."""
    index, values, times, sites, epochs, phases, count, offsets, n = L
    tpb = before.size
    for w in range(0, tpb, 32):
        last = min(w + 32, tpb)
        seen, same, union, mask, start = False, True, np.uint64(0), np.uint64(0), 0
        for t in range(w, last):
            if before[t]:
                if not seen:
                    seen, mask, start = True, pm[t], c0[t]
                elif pm[t] != mask:
                    same = False
                union |= pm[t]
        if same:
            continue  # one path: each lane's own clock is its warp's
        total = 0
        for p in range(64):
            prefix[p] = total
            if (union >> np.uint64(p)) & np.uint64(1):
                total += costs[p]
        for t in range(w, last):
            if not before[t] or pm[t] == union:
                continue
            if 0 <= base < n:  # a kept block's threads (others only count their accesses: access_hooks.py, _log)
                s = base + t
                for k in range(n0[t], min(count[s], offsets[s + 1] - offsets[s])):
                    j = offsets[s] + k
                    times[j] = start + prefix[site_points[sites[j]]]
            if alive[t]:
                clk[first + t] = start + total
            else:
                end[first + t] = start + prefix[rp[t]]
        for t in range(w, last):
            if before[t] and alive[t]:
                clk[first + t] = start + total


@njit(cache=True)
def shared_watch(size):
    return np.zeros(size, np.uint8), np.zeros(size, np.int64), np.zeros(size, np.int64)


@njit(cache=True)
def unwatched():
    """The watch state of an array the kernel only reads: nothing to watch."""
    return np.zeros(0, np.int32), np.zeros(0, np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)


@njit(cache=True)
def global_watch(size):
    return np.zeros(size, np.int32), np.zeros(size, np.uint8), np.zeros(size, np.int64), np.zeros(size, np.int64)


@njit(cache=True, _nrt=False)
def fault(F, why, g):
    if F[0] == 0:
        F[0] = why
        F[2] = g


@njit(cache=True)
def cross_lane_conflict(owners, flags, tpb):
    """Where a launch's blocks ran on several threads, each with its own watch state of an array: the first
    thread of a block whose element another thread's block also touched, one of the two writing it (as the
    watch itself would have found on one thread), else -1. `owners`, `flags`: each lane's, in a tuple."""
    first_owner, any_flags = owners[0].copy(), flags[0].copy()
    for lane in range(1, len(owners)):
        owner, flag = owners[lane], flags[lane]
        for e in range(owner.size):
            if owner[e] == 0:
                continue
            if first_owner[e] != 0 and (any_flags[e] | flag[e]) & WRITTEN:
                return (owner[e] - 1) * tpb
            if first_owner[e] == 0:
                first_owner[e] = owner[e]
            any_flags[e] |= flag[e]
    return -1


def as_element(value, array):
    """`value` as a GPU stores it into `array`'s elements, or converts it to the type of `array` where that is a
    number (compiled by the overload below)."""
    return value


@overload(as_element)
def _as_element(value, array):
    """A float stored into an integer element as a GPU converts it (backends/sim/arithmetic.py,
    `float_to_integer`), where numba's CPU target would convert it as x86 does; anything else as it is."""
    target = array.dtype if isinstance(array, types.Array) else array  # an array, or a value of the type
    if not (isinstance(value, types.Float) and isinstance(target, types.Integer)):
        return lambda value, array: value
    bits, signed = target.bitwidth, target.signed
    width = max(bits, 16)
    low, high = (-(2.0 ** (width - 1)), 2.0 ** (width - 1)) if signed else (0.0, 2.0**width)
    lowest, highest = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    sign_bit = -(1 << (bits - 1)) if signed else 1 << (bits - 1)
    nan_value = 0 if bits <= 32 and (bits == 8 or value.bitwidth < 64) else sign_bit
    kind = np.uint64 if width == 64 and not signed else np.int64

    def convert(value, array):
        if value != value:
            return kind(nan_value)
        whole = np.trunc(value)
        if whole < low:
            return kind(lowest)
        if whole >= high:
            return kind(highest)
        return kind(whole)

    return convert
