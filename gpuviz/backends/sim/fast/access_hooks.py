"""The fast path's per-access hooks, compiled with numba's CPU target: each load and store of an argument or
shared array is checked against its array's end, watched (fast/hooks.py says for what) and logged into
its thread's own slots (slot k of log thread s at `offsets[s] + k`: each thread's slots follow the last
thread's, as many as it needs, counted by an earlier run), so logging needs no sort and no shared counter.
The thread's clock, instruction mask and read count are the caller's locals: an access gets its time and read
count as arguments (fast/accesses.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpuviz.backends.sim.fast.hooks import (
    CONFLICT,
    DISTINCT,
    OUT_OF_BOUNDS,
    PHASE_MANY,
    PHASE_WRITE,
    READ_ELSEWHERE,
    SEEN,
    SPIN,
    UNWRITTEN,
    WINDOW,
    WRITTEN,
    as_element,
    fault,
)
from gpuviz.backends.sim.spin import CHECKS, MAX_SEEN, REPEATS

# The per-access hooks take each array on its own and are compiled without numba's reference counting
# (`_nrt=False`: they allocate nothing): with it, every array argument cost two calls into numba's runtime
# per access, 200-400 ns an access instead of 2-3 (bench/fast_speed.py), inlined or not.


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
        fault(F, SPIN, g)


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
        fault(F, CONFLICT, g)
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
            fault(F, CONFLICT, g)
        flags[flat] |= READ_ELSEWHERE
    if write:
        if flags[flat] & READ_ELSEWHERE:
            fault(F, CONFLICT, g)
        flags[flat] |= WRITTEN
    _same_phase(flags, stamp, thread, flat, g, write, F)


@njit(cache=True, _nrt=False)
def _watch_shared(flags, stamp, thread, site, flat, g, write, F, since):
    _spin(F, site, flat, g, since)
    if write:
        flags[flat] |= WRITTEN
    elif not (flags[flat] & WRITTEN):
        fault(F, UNWRITTEN, g)
    _same_phase(flags, stamp, thread, flat, g, write, F)


@njit(cache=True, _nrt=False)
def _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, value, time, ep, ph):
    # s: the thread's place in the count, -1 where nothing is counted (level threads). Threads of kept
    # blocks come first (s < n, the threads logged) and log their accesses; the others only count theirs,
    # so that a run that logs only some blocks still knows every thread's count (engine.py: run_fast).
    if s < 0:
        return
    k = Lc[s]
    if s < n and k < offsets[s + 1] - offsets[s]:
        j = offsets[s] + k
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
def load1(a, i, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wo, Wf, Ws, Wt, F, mark, since):
    i = _axis(i, a.shape[0])
    if i < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0]  # the run is discarded: any value; no allocation here (it would cost every access)
    flat = i
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load2(a, i, j, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wo, Wf, Ws, Wt, F, mark, since):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0]
    flat = i * a.shape[1] + j
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load3(
    a, i, j, k, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wo, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0, 0]
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, False, F, since)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def store1(
    a, i, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wo, Wf, Ws, Wt, F, mark, since
):
    i = _axis(i, a.shape[0])
    if i < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i] = as_element(value, a)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)


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
    offsets,
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
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i * a.shape[1] + j
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i, j] = as_element(value, a)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)


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
    offsets,
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
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch(Wo, Wf, Ws, Wt, site, flat, g, b, True, F, since)
    a[i, j, k] = as_element(value, a)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def load_shared1(a, i, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since):
    i = _axis(i, a.shape[0])
    if i < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0]  # the run is discarded: any value; no allocation here (it would cost every access)
    flat = i
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load_shared2(
    a, i, j, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since
):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0]
    flat = i * a.shape[1] + j
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def load_shared3(
    a, i, j, k, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return a[0, 0, 0]
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch_shared(Wf, Ws, Wt, site, flat, g, False, F, since)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
    return v


@njit(cache=True, _nrt=False)
def store_shared1(
    a, i, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since
):
    i = _axis(i, a.shape[0])
    if i < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i] = as_element(value, a)
    v = a[i]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store_shared2(
    a, i, j, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since
):
    i, j = _axis(i, a.shape[0]), _axis(j, a.shape[1])
    if i < 0 or j < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = i * a.shape[1] + j
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i, j] = as_element(value, a)
    v = a[i, j]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)


@njit(cache=True, _nrt=False)
def store_shared3(
    a, i, j, k, value, site, g, s, b, ep, ph, time, Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, Wf, Ws, Wt, F, mark, since
):
    i, j, k = _axis(i, a.shape[0]), _axis(j, a.shape[1]), _axis(k, a.shape[2])
    if i < 0 or j < 0 or k < 0:
        fault(F, OUT_OF_BOUNDS, g)
        return
    flat = (i * a.shape[1] + j) * a.shape[2] + k
    _watch_shared(Wf, Ws, Wt, site, flat, g, True, F, since)
    a[i, j, k] = as_element(value, a)
    v = a[i, j, k]
    _log(Li, Lv, Lt, Ls, Le, Lp, Lc, offsets, n, s, site, flat, np.float64(v), time, ep, ph)
