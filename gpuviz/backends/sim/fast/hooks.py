"""The fast path's hooks, compiled with numba's CPU target: loads, stores, branches and barriers of one thread.

Each access is logged into its thread's fixed slots (slot k of log thread s at `k * n + s`, as the GPU
recorder lays its log out), so logging needs no sort and no shared counter. Each access to an array the
kernel may write is also watched: two threads touching one element between the same barriers with a
write among them, or two blocks touching one element one of them writes, is an interleaving the fast
path cannot reproduce, and F[0] says so (the launch then runs on the vector engine).

F (int64): [0] why the run cannot stand (0: it can), [1] the current phase's stamp (one per block and
barrier), [2] the thread that met it, [3:] the spin watch's state (`_spin`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpuviz.backends.sim.spin import CHECKS, MAX_SEEN, REPEATS

CONFLICT, OUT_OF_BOUNDS, UNWRITTEN, DIVERGED, PATHS, SPIN = 1, 2, 3, 4, 5, 6
REASONS = {
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


@njit(cache=True)
def charge(alive, clk, first, cost):
    for t in range(alive.size):
        if alive[t]:
            clk[first + t] += cost


@njit(cache=True)
def barrier(alive, clk, first, cost, F):
    arrived = 0
    for t in range(alive.size):
        if alive[t]:
            arrived += 1
            clk[first + t] += cost
    if 0 < arrived < alive.size:
        _fault(F, DIVERGED, first)
    F[1] += 1  # a new phase: accesses after the barrier are ordered after those before it


@njit(cache=True)
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
                    _fault(F, PATHS, first + t)


@njit(cache=True)
def settle(costs, site_points, before, alive, clk, c0, end, pm, rp, n0, first, base, L):
    """After a loop-free phase: a warp runs every instruction one of its lanes ran, in the order of the code
    (the then-branch before the else-branch), so each lane's accesses, its return and its clock at the next
    barrier take the warp's times: the phase's start plus the costs of the warp's instructions before."""
    index, values, times, sites, epochs, phases, count, slots, n = L
    prefix = np.zeros(65, np.int64)
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
            if base >= 0:
                s = base + t
                for k in range(n0[t], min(count[s], slots)):
                    j = k * n + s
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
def _fault(F, why, g):
    if F[0] == 0:
        F[0] = why
        F[2] = g


@njit(cache=True, _nrt=False)
def _spin(F, site, flat, g, since):
    """The vector engine's no-progress watch (sim/spin.py), here: `since` reads with no write anywhere in the
    launch (0 for a write; the threads run one after the other, so each keeps the count in a local and
    hands it on in F[SINCE]). Past CHECKS, each window of CHECKS reads that saw at most CHECKS / REPEATS
    distinct (site, element) is a spin. A thread runs alone between barriers here, so one waiting for
    another's write never ends: the run stops (its loops test F[0]) and the vector engine runs the launch
    and words what it finds. Keys that share a table slot count as new: a spin can be missed that way,
    never made up."""
    if since <= CHECKS:
        return
    if since % CHECKS == 1:  # a window opens: what the last one saw is forgotten
        F[DISTINCT] = 0
        F[WINDOW] += 1
    key = site * (1 << 40) + flat + 1
    h = (flat * 31 + site) & (MAX_SEEN - 1)
    if F[SEEN + MAX_SEEN + h] != F[WINDOW] or F[SEEN + h] != key:
        F[SEEN + h] = key
        F[SEEN + MAX_SEEN + h] = F[WINDOW]
        F[DISTINCT] += 1
    if since % CHECKS == 0 and F[DISTINCT] * REPEATS <= CHECKS:
        _fault(F, SPIN, g)


@njit(cache=True, _nrt=False)
def _same_phase(flags, stamp, thread, flat, g, write, F):
    """Whether another thread touched the element between the same barriers, with a write among them."""
    f = flags[flat]
    if stamp[flat] != F[1]:
        stamp[flat] = F[1]
        thread[flat] = g
        f = f & ~(PHASE_WRITE | PHASE_MANY)
    elif thread[flat] != g:
        f |= PHASE_MANY
    if write:
        f |= PHASE_WRITE
    if (f & PHASE_MANY) and (f & PHASE_WRITE):
        _fault(F, CONFLICT, g)
    flags[flat] = f


@njit(cache=True, _nrt=False)
def _watch(owner, flags, stamp, thread, site, flat, g, b, write, F, since):
    _spin(F, site, flat, g, since)
    if owner.size == 0:  # an array the kernel only reads
        return
    mine = b + 1
    o = owner[flat]
    if o == 0:
        owner[flat] = mine
    elif o != mine:  # another block touched it first
        if write or (flags[flat] & WRITTEN):
            _fault(F, CONFLICT, g)
        flags[flat] |= READ_ELSEWHERE
    if write:
        if flags[flat] & READ_ELSEWHERE:
            _fault(F, CONFLICT, g)
        flags[flat] |= WRITTEN
    _same_phase(flags, stamp, thread, flat, g, write, F)


@njit(cache=True, _nrt=False)
def _watch_shared(flags, stamp, thread, site, flat, g, write, F, since):
    _spin(F, site, flat, g, since)
    if write:
        flags[flat] |= WRITTEN
    elif not (flags[flat] & WRITTEN):
        _fault(F, UNWRITTEN, g)
    _same_phase(flags, stamp, thread, flat, g, write, F)


@njit(cache=True, _nrt=False)
def _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, value, time, ep, ph):
    if s < 0:
        return
    k = Lc[s]
    if k < slots:
        j = k * n + s
        Li[j] = flat
        Lv[j] = value
        Lt[j] = time
        Ls[j] = site
        Le[j] = ep
        Lp[j] = ph
    Lc[s] = k + 1


@njit(cache=True, _nrt=False)
def _axis(i, n):
    """The element an index names along an axis of n (negative from the end), or -1 past either end."""
    if i < -n or i >= n:
        return -1
    return i + n if i < 0 else i


# One hook per access kind, space and number of axes (numba specialises each on the array's type).
@njit(cache=True, _nrt=False)
def load1(a, i, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wo, Wf, Ws, Wt, F, mark, since):
    i = _axis(i, a.shape[0])
    if i < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0]  # the run is discarded: any value; no allocation here (it would cost every access)
    flat = i
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load2(a, i, j, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wo, Wf, Ws, Wt, F, mark, since):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0]
    flat = i * a.shape[1] + j
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load3(
    a, i, j, k, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wo, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0, 0]
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def store1(
    a, i, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wo, Wf, Ws, Wt, F, mark, since
):
    i = _axis(i, a.shape[0])
    if i < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i] = value
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store2(
    a,
    i,
    j,
    value,
    site,
    g,
    s,
    b,
    ep,
    ph,
    time,
    Li,
    Lv,
    Lt,
    Ls,
    Le,
    Lp,
    Lc,
    slots,
    n,
    Wo,
    Wf,
    Ws,
    Wt,
    F,
    mark,
    since,
):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i * a.shape[1] + j
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i, j] = value
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store3(
    a,
    i,
    j,
    k,
    value,
    site,
    g,
    s,
    b,
    ep,
    ph,
    time,
    Li,
    Lv,
    Lt,
    Ls,
    Le,
    Lp,
    Lc,
    slots,
    n,
    Wo,
    Wf,
    Ws,
    Wt,
    F,
    mark,
    since,
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i, j, k] = value
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def load_shared1(a, i, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since):
    i = _axis(i, a.shape[0])
    if i < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0]  # the run is discarded: any value; no allocation here (it would cost every access)
    flat = i
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load_shared2(
    a, i, j, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since
):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0]
    flat = i * a.shape[1] + j
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load_shared3(
    a, i, j, k, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0, 0]
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def store_shared1(
    a, i, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since
):
    i = _axis(i, a.shape[0])
    if i < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i] = value
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store_shared2(
    a, i, j, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since
):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i * a.shape[1] + j
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i, j] = value
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store_shared3(
    a, i, j, k, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        _fault(F, OUT_OF_BOUNDS, g)
        return
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i, j, k] = value
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, slots, n, s, site, flat, np.float64(v), time, ep, ph)
