"""The event loop of bench/race_sector_model.py, compiled with numba's CPU target: one launch, warps not threads.

A program is a list of read-modify-writes per warp (CSR arrays, built by race_sector_model.program): each
op loads some 32-byte sectors (the warp's distinct bins grouped by sector), adds, and stores them back.
A warp instruction leaves its SM whole, after its turns at the SM's memory pipeline, and reaches the L2 as
one event (its sectors are distinct, so they never queue behind each other). Events are kept in one binary
heap ordered by (time, order pushed); a payload packs the event's kind and two integers. Memory is read
when a load is served at its sector and written when a store is served, in each sector's first-come
order, so a load sees exactly the stores queued at its sector before it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

SMS = 132
# what the parameter vector holds, in order (race_sector_model.CONSTANTS gives the values and why)
PARAMETERS = ("half", "pipe", "store", "raw_load", "add", "retire_per_warp", "first_block", "first_warp",
              "gap", "late", "data", "sm_scope", "l1_hit", "l1_update")  # fmt: skip
FREE, BLOCK, OP, LOAD, LOAD_AT, STORE, STORE_AT = range(7)
SHIFT = 28  # payload = kind << 56 | a << 28 | b; warps and parts stay below 2^28


@njit(cache=True)
def _push(ht, hs, hp, n, seq, t, kind, a, b):
    i = n
    ht[i], hs[i], hp[i] = t, seq, (kind << 56) | (a << SHIFT) | b
    while i > 0:
        up = (i - 1) // 2
        if ht[up] < ht[i] or (ht[up] == ht[i] and hs[up] < hs[i]):
            break
        ht[up], ht[i] = ht[i], ht[up]
        hs[up], hs[i] = hs[i], hs[up]
        hp[up], hp[i] = hp[i], hp[up]
        i = up
    return n + 1


@njit(cache=True)
def _pop(ht, hs, hp, n):
    t, p = ht[0], hp[0]
    n -= 1
    ht[0], hs[0], hp[0] = ht[n], hs[n], hp[n]
    i = 0
    while True:
        low, left, right = i, 2 * i + 1, 2 * i + 2
        if left < n and (ht[left] < ht[low] or (ht[left] == ht[low] and hs[left] < hs[low])):
            low = left
        if right < n and (ht[right] < ht[low] or (ht[right] == ht[low] and hs[right] < hs[low])):
            low = right
        if low == i:
            break
        ht[low], ht[i] = ht[i], ht[low]
        hs[low], hs[i] = hs[i], hs[low]
        hp[low], hp[i] = hp[i], hp[low]
        i = low
    return t, p, n


@njit(cache=True)
def run(seed, c, blocks, wpb, per_sm, inc, n_bins, op_first, op_part, op_data, part_sector, part_raw, part_bin,
        bin_id):  # fmt: skip
    """Final bin values and the launch's length in cycles, for one seed; c is the parameter vector."""
    half, pipe, s_store, s_raw, add, retire, fw_block, fw_warp, gap, late, data, sm_scope, l1_hit, l1_update = c
    np.random.seed(seed)
    n_sec = (n_bins + 7) // 8
    n_warps = blocks * wpb
    slots = SMS * per_sm
    value = np.zeros(n_bins)
    sector_free = np.zeros(n_sec)
    pipe_free = np.zeros(SMS)
    miss_dep = np.full(SMS * n_sec, -1.0)  # per (SM, sector): when its last miss left the SM, and came back
    miss_ret = np.full(SMS * n_sec, -1.0)
    st_dep = np.full(SMS * n_sec, -1.0)  # per (SM, sector): when its last store left the SM, and its ack came
    st_ack = np.full(SMS * n_sec, -1.0)
    pending = np.zeros(len(part_sector), np.bool_)  # per part: behind a store of its SM not yet acknowledged
    snap = np.zeros(SMS * n_sec * 8)  # the sector as that miss read it, for loads merged with it
    buf = np.zeros(slots * wpb * 32)  # per warp slot, the values loaded (then stored) by lane group q % 32
    w_slot = np.zeros(n_warps, np.int64)
    w_op = np.zeros(n_warps, np.int64)
    w_stores = np.zeros(n_warps, np.int64)
    w_ack = np.zeros(n_warps)
    w_wait = np.zeros(n_warps, np.bool_)
    w_left = np.zeros(n_warps)  # when the warp's load left its SM
    w_retry = np.zeros(n_warps, np.bool_)
    b_left = np.zeros(slots, np.int64)
    b_end = np.zeros(slots)
    cap = 4 * slots * wpb + 4 * slots + 1024
    ht, hs, hp = np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64)
    n, seq = 0, 0
    step = fw_block + fw_warp * wpb
    for b in range(min(blocks, slots)):  # the first wave at the measured rate, each block a seeded late start
        n = _push(ht, hs, hp, n, seq, b * step + np.random.uniform(0.0, late), BLOCK, b, b)
        seq += 1
    next_block, last_dispatch, end = min(blocks, slots), 0.0, 0.0
    mask = (1 << SHIFT) - 1
    while n > 0:
        t, p, n = _pop(ht, hs, hp, n)
        kind, a, b = p >> 56, (p >> SHIFT) & mask, p & mask
        end = max(end, t)
        if kind == FREE and next_block < blocks:
            at = max(t, last_dispatch + gap)
            last_dispatch = at
            n = _push(ht, hs, hp, n, seq, at + np.random.uniform(0.0, late), BLOCK, a, next_block)
            seq += 1
            next_block += 1
        elif kind == BLOCK:
            b_left[a], b_end[a] = wpb, t
            for i in range(wpb):
                w = b * wpb + i
                w_slot[w], w_op[w] = a * wpb + i, op_first[w]
                n = _push(ht, hs, hp, n, seq, t, OP, w, 0)
                seq += 1
        elif kind == OP:
            w = a
            if w_op[w] == op_first[w + 1]:  # a warp with nothing to do ends at once
                n, seq = _warp_end(ht, hs, hp, n, seq, t, w, wpb, retire, b_left, b_end, w_slot)
                continue
            when = t
            if op_data[w_op[w]]:  # the histogram's coalesced data load: one turn of the pipe, then memory
                sm = (w_slot[w] // wpb) % SMS
                start = max(t, pipe_free[sm])
                pipe_free[sm] = start + pipe
                when = start + pipe + data
            n = _push(ht, hs, hp, n, seq, when, LOAD, w, 0)
            seq += 1
        elif kind == LOAD:
            w, j = a, w_op[a]
            first, last = op_part[j], op_part[j + 1]
            raw = False
            for q in range(first, last):
                raw = raw or part_raw[q]
            if raw and w_stores[w] > 0:  # behind its own store to the sector: wait for its acknowledgement
                w_wait[w] = True
                continue
            if raw and w_ack[w] > t:
                n = _push(ht, hs, hp, n, seq, w_ack[w], LOAD, w, 0)
                seq += 1
                continue
            sm = (w_slot[w] // wpb) % SMS
            start = max(t, pipe_free[sm])
            pipe_free[sm] = start + pipe * (last - first)
            w_left[w] = pipe_free[sm]
            n = _push(ht, hs, hp, n, seq, pipe_free[sm] + half, LOAD_AT, w, j)  # the instruction leaves whole
            seq += 1
        elif kind == LOAD_AT:
            w, j = a, b
            sm = (w_slot[w] // wpb) % SMS
            if sm_scope and not w_retry[w]:  # the SM's L1 holds a miss behind its own unacknowledged store
                wait = 0.0
                for q in range(op_part[j], op_part[j + 1]):
                    key = sm * n_sec + part_sector[q]
                    pending[q] = st_ack[key] > w_left[w]
                    wait = max(wait, st_ack[key] if pending[q] else 0.0)
                if wait > 0.0:
                    w_retry[w] = True
                    n = _push(ht, hs, hp, n, seq, wait + half, LOAD_AT, w, j)
                    seq += 1
                    continue
            w_retry[w] = False
            back_all = 0.0
            for q in range(op_part[j], op_part[j + 1]):
                raw = pending[q] if sm_scope else part_raw[q]
                back = _load_part(w_left[w], t, q, raw, sm, n_sec, n_bins, half, s_raw, l1_hit, part_sector,
                                  part_bin, bin_id, miss_dep, miss_ret, st_dep, snap, sector_free, value, buf,
                                  w_slot[w])  # fmt: skip
                back_all = max(back_all, back)
            n = _push(ht, hs, hp, n, seq, back_all + add, STORE, w, 0)
            seq += 1
        elif kind == STORE:
            w, j = a, w_op[a]
            first, last = op_part[j], op_part[j + 1]
            base = w_slot[w] * 32
            for r in range(part_bin[first], part_bin[last]):
                buf[base + r % 32] += inc
            sm = (w_slot[w] // wpb) % SMS
            start = max(t, pipe_free[sm])
            done = start + pipe * (last - first)
            pipe_free[sm] = done
            w_stores[w] += 1
            if l1_update:  # the SM's L1 copy of the sector takes the store as it leaves (write-through)
                for q in range(first, last):
                    key = sm * n_sec + part_sector[q]
                    for r in range(part_bin[q], part_bin[q + 1]):
                        snap[key * 8 + bin_id[r] % 8] = buf[base + r % 32]
            n = _push(ht, hs, hp, n, seq, done + half, STORE_AT, w, j)
            seq += 1
            w_op[w] = j + 1
            if j + 1 < op_first[w + 1]:
                n = _push(ht, hs, hp, n, seq, done, OP, w, 0)
                seq += 1
            else:
                n, seq = _warp_end(ht, hs, hp, n, seq, done, w, wpb, retire, b_left, b_end, w_slot)
        elif kind == STORE_AT:
            w, j = a, b
            base = w_slot[w] * 32
            sm = (w_slot[w] // wpb) % SMS
            for q in range(op_part[j], op_part[j + 1]):
                s = part_sector[q]
                served = max(t, sector_free[s]) + s_store
                sector_free[s] = served
                for r in range(part_bin[q], part_bin[q + 1]):
                    value[bin_id[r]] = buf[base + r % 32]
                w_ack[w] = max(w_ack[w], served + half)
                st_ack[sm * n_sec + s] = served + half
                if not l1_update:  # the store invalidates the SM's L1 copy of the sector
                    st_dep[sm * n_sec + s] = t - half
            w_stores[w] -= 1
            if w_stores[w] == 0 and w_wait[w]:
                w_wait[w] = False
                n = _push(ht, hs, hp, n, seq, max(t, w_ack[w]), LOAD, w, 0)
                seq += 1
    return value, end


@njit(cache=True)
def _load_part(left, t, q, raw, sm, n_sec, n_bins, half, s_raw, l1_hit, part_sector, part_bin, bin_id, miss_dep,
               miss_ret, st_dep, snap, sector_free, value, buf, slot):  # fmt: skip
    """One sector of a warp's load that left the SM at `left` and is at the L2 at t: when its data is back."""
    s = part_sector[q]
    key = sm * n_sec + s
    # an L1 miss in flight for the sector, asked after the SM's last store to it, answers this load too; with
    # l1_hit > 0 the line stays in the L1 after it came back, until the SM's next store to the sector
    fresh = left < miss_ret[key] or l1_hit > 0.0
    if not raw and 0.0 <= miss_dep[key] <= left and miss_dep[key] >= st_dep[key] and fresh:
        back = max(miss_ret[key], left + l1_hit)
    else:
        served = max(t, sector_free[s]) + (s_raw if raw else 0.0)
        sector_free[s] = served
        for k in range(8):
            if s * 8 + k < n_bins:
                snap[key * 8 + k] = value[s * 8 + k]
        miss_dep[key], miss_ret[key] = left, served + half
        back = served + half
    base = slot * 32
    for r in range(part_bin[q], part_bin[q + 1]):
        buf[base + r % 32] = snap[key * 8 + bin_id[r] % 8]
    return back


@njit(cache=True)
def _warp_end(ht, hs, hp, n, seq, t, w, wpb, retire, b_left, b_end, w_slot):
    """The warp issued its last store; the block's slot frees a retirement time after its last warp's end."""
    slot = w_slot[w] // wpb
    b_left[slot] -= 1
    b_end[slot] = max(b_end[slot], t)
    if b_left[slot] == 0:
        n = _push(ht, hs, hp, n, seq, b_end[slot] + retire * wpb, FREE, slot, 0)
        seq += 1
    return n, seq
