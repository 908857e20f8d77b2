"""What each warp request costs the memory system, found request by request from its own rows: the sectors
and cache lines of a global request (coalescing.py), the wavefronts of a shared one (banks.py), the turns
of a constant one (constant.py).

Compiled with numba's CPU target: a request holds a warp's lanes (at most 32 rows, each one to four
4-byte words), so its costs come from sorting a few numbers in place, in one pass over the log. The same
in NumPy took whole-log sorts, packs and reductions, each costing more than a small kernel's whole run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpuviz.core.analysis.memory_units import BANKS, CACHE_LINE, CONST, GLOBAL, SECTOR, SHARED, WARP, WORD
from gpuviz.core.analysis.runs import run_end

SECTOR_BITS, LINE_BITS, WORD_BITS = (unit.bit_length() - 1 for unit in (SECTOR, CACHE_LINE, WORD))  # powers of 2
MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of the word set's keys
PHASES = 4  # the most phases a shared request is served in (128-bit elements: per quarter-warp)
NEAR = np.uint64(4096)  # words above a shared request's first one told new by a mark (32 KiB of marks)


def rows_by_request(of_row: np.ndarray, n_requests: int, spans: tuple | None) -> tuple:
    """(order, lo, hi): request q's rows are order[lo[q]:hi[q]]; an empty order where each request's rows
    are together in the log (`spans`: Requests.spans(), each request's first row and end), then its rows
    are lo[q]..hi[q]-1."""
    if spans is not None:
        return np.zeros(0, np.int64), spans[0].astype(np.int64, copy=False), spans[1].astype(np.int64, copy=False)
    return _counting_sort(of_row, n_requests)


def request_costs(of_row: np.ndarray, n_requests: int, spans: tuple | None, index: np.ndarray,
                  lane: np.ndarray, space: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Per request (int64 each): global (space GLOBAL): sectors, lines, ideal sectors; shared: conflict
    degree, wavefronts, ideal wavefronts; constant: turns, 0, 0. `index`: every row's element; `lane`: every
    row's lane (or thread: taken modulo 32), looked at only for shared elements wider than a word; `space`
    and `size`: each request's space code and bytes per element; `spans`: as rows_by_request takes them."""
    order, lo, hi = rows_by_request(of_row, n_requests, spans)
    out = [np.zeros(n_requests, np.int64) for _ in range(3)]
    if n_requests:
        _costs(index, lane, order, lo, hi, space.astype(np.int64), size.astype(np.int64), *out)
    return tuple(out)


@njit(cache=True, nogil=True)
def request_runs(logged, thread, line, array, kind, per_block, warps_per_block):
    """(how many runs of equal numbers; per number 0..max, its first row, -1 where it never occurs; per
    number, its rows; per number, the global warp, line, array and kind of its first row, where the
    columns are given, else an empty array) of an engine's request numbers (at least one). One pass for
    the largest number, one that skips along each run 16 rows at a time (compares the compiler
    vectorises: positions are unsigned, so no index needs a negative test) and handles the run where it
    ends, its fields read there, in the order of the rows."""
    n, one, step = np.uint64(logged.size), np.uint64(1), np.uint64(16)
    top = logged[0]
    for r in range(one, n):
        top = max(top, logged[r])
    first, lanes = np.full(top + 1, -1, np.int64), np.zeros(top + 1, np.int64)
    fields = np.zeros((4, top + 1 if thread.size else 0), np.int64)
    runs, start = 0, np.uint64(0)
    while start < n:
        v = logged[start]
        r = run_end(logged, start, n, step)
        lanes[v] += np.int64(r - start)
        if first[v] < 0:
            first[v] = np.int64(start)
            if thread.size:
                _fields_of_row(fields, v, start, thread, line, array, kind, per_block, warps_per_block)
        runs, start = runs + 1, r
    return runs, first, lanes, fields


@njit(inline="always")
def _fields_of_row(fields, i, r, thread, line, array, kind, per_block, warps_per_block):
    t = np.int64(thread[r])
    fields[0, i] = (t // per_block) * warps_per_block + (t % per_block) // WARP
    fields[1, i], fields[2, i], fields[3, i] = line[r], array[r], kind[r]


@njit(cache=True, nogil=True)
def first_row_fields(source, thread, line, array, kind, per_block, warps_per_block):
    """The global warp, line, array and kind of each given row (`source`: each request's first), as rows
    of one int64 array: one gather per request and column, with no temporaries."""
    fields = np.empty((4, source.size), np.int64)
    for i in range(source.size):
        _fields_of_row(fields, i, source[i], thread, line, array, kind, per_block, warps_per_block)
    return fields


@njit(cache=True, nogil=True)
def site_sums(site, n_sites, a, b, c, lanes):
    """Per access site (`site`: each request's): (requests; the most `a` of one request; the sums of a, b, c
    and lanes, as float64 rows in that order, added in request order as np.bincount's weights are). One
    pass instead of five bincounts and a ufunc.at."""
    count, worst = np.zeros(n_sites, np.int64), np.zeros(n_sites, np.int64)
    totals = np.zeros((4, n_sites), np.float64)
    for q in range(site.size):
        s = site[q]
        count[s] += 1
        worst[s] = max(worst[s], a[q])
        totals[0, s] += a[q]
        totals[1, s] += b[q]
        totals[2, s] += c[q]
        totals[3, s] += lanes[q]
    return count, worst, totals


@njit(cache=True, nogil=True)
def _counting_sort(of_row, n_requests):
    """The rows ordered by request (each request's in log order): two passes, no comparison sort."""
    hi = np.zeros(n_requests, np.int64)
    for r in range(of_row.size):
        hi[of_row[r]] += 1
    lo = np.empty(n_requests, np.int64)
    at = 0
    for q in range(n_requests):
        lo[q] = at
        at += hi[q]
        hi[q] = lo[q]
    order = np.empty(of_row.size, np.int64)
    for r in range(of_row.size):
        q = of_row[r]
        order[hi[q]] = r
        hi[q] += 1
    return order, lo, hi


@njit(cache=True, nogil=True)
def _sort(values, k):
    """values[:k] ascending, in place: Shell's sort, near one pass for the mostly ordered addresses of a
    request, and far cheaper to compile than np.sort."""
    gap = 1
    while gap < k // 3:
        gap = 3 * gap + 1
    while gap:
        for i in range(gap, k):
            v, j = values[i], i
            while j >= gap and values[j - gap] > v:
                values[j] = values[j - gap]
                j -= gap
            values[j] = v
        gap //= 3


@njit(cache=True, nogil=True)
def _costs(index, lane, order, lo, hi, space, size, a, b, c):
    longest = 0
    for q in range(lo.size):
        longest = max(longest, hi[q] - lo[q])
    values = np.empty(longest + 1, np.int64)
    bits = max(4, int(np.ceil(np.log2(8 * longest + 8))))  # a word set at most half full: short probes
    # The word set (word << 2 | phase, and the request that put it there), the distinct words of each
    # (phase, bank) and the request that counted them, and the most of each phase: cleared by no one.
    keys, owners = np.empty(1 << bits, np.int64), np.full(1 << bits, -1, np.int64)
    per_slot, counted, most = (
        np.zeros(PHASES * BANKS, np.int64),
        np.full(PHASES * BANKS, -1, np.int64),
        np.zeros(PHASES, np.int64),
    )
    bank_words = np.empty((BANKS, longest + 1), np.int64)  # each bank's distinct words of one request
    listed, near = np.zeros(BANKS, np.int64), np.full(NEAR, -1, np.int64)  # (_one_phase_wavefronts)
    direct = order.size == 0
    # Rows are gathered inline (numba leaves a function called per row in place, at ten times the work)
    # and divided by shifts: the units are powers of two, and a division costs more than the rest.
    for q in range(lo.size):
        code, width, k = space[q], size[q], 0
        if code == SHARED and width <= WORD:  # the usual case: elements of a word or less, one phase
            a[q], b[q], c[q] = _one_phase_wavefronts(
                index, order, lo[q], hi[q], width, q, bank_words, per_slot, counted, listed, near
            )
            continue
        if code == SHARED:
            a[q], b[q], c[q] = _wavefronts(
                index, lane, order, lo[q], hi[q], width, q, bits, keys, owners, per_slot, counted, most
            )
            continue
        if code != GLOBAL and code != CONST:
            continue
        scale = width if code == GLOBAL else 1
        # Rows together (direct): counted where they lie, with no copy, when they come in order (the usual
        # case); unsigned positions need no negative-index test, so the loop vectorises.
        start, end = np.uint64(lo[q]), np.uint64(hi[q])
        distinct, sectors, lines, ordered = 1, 1, 1, direct
        if direct:
            for p in range(start + np.uint64(1), end):
                v, u = index[p] * scale, index[p - np.uint64(1)] * scale  # global: byte; constant: element
                ordered &= u <= v
                distinct += v != u
                sectors += (v >> SECTOR_BITS) != (u >> SECTOR_BITS)
                lines += (v >> LINE_BITS) != (u >> LINE_BITS)
        if not ordered:
            for p in range(start, end):
                values[k] = index[p if direct else np.uint64(order[p])] * scale
                ordered = ordered and (k == 0 or values[k - 1] <= values[k])
                k += 1
            if not ordered:
                _sort(values, k)
            distinct, sectors, lines = 1, 1, 1
            for i in range(1, k):
                v, u = values[i], values[i - 1]
                distinct += v != u
                sectors += (v >> SECTOR_BITS) != (u >> SECTOR_BITS)
                lines += (v >> LINE_BITS) != (u >> LINE_BITS)
        if code == CONST:
            a[q] = distinct
        else:
            a[q], b[q], c[q] = sectors, lines, -(-(distinct * width) // SECTOR)


@njit(inline="always")  # a call per request with arrays for arguments would cost more than its work
def _one_phase_wavefronts(index, order, start, end, width, q, bank_words, per_slot, counted, listed, near):
    """(degree, wavefronts, ideal) of shared request q whose elements are at most a word wide (one phase):
    the busiest bank's count of distinct words is the wavefronts. A word within NEAR words above the first
    row's is told new by a mark in `near` (one look, however many words its bank serves); one outside by
    its bank's short list of such words (bank_words, `listed` long). Marks, lists and counts carry their
    request (`near`, `counted`): nothing to clear. No sort and no hash: the word set that wider elements
    need (_wavefronts) costs more."""
    most = 0
    base = np.int64(0)
    for p in range(np.uint64(start), np.uint64(end)):  # unsigned: no negative-index test per row
        r = p if order.size == 0 else np.uint64(order[p])
        word = index[r] if width == WORD else index[r] * width >> WORD_BITS
        if p == start:
            base = word
        slot = word & (BANKS - 1)  # word % BANKS, for BANKS a power of 2
        if counted[slot] != q:
            per_slot[slot], listed[slot], counted[slot] = 0, 0, q
        offset = np.uint64(word - base)  # words below the first one wrap far above NEAR
        if offset < NEAR:
            if near[offset] == q:
                continue  # served with the lane that asked first
            near[offset] = q
        else:
            n, seen = listed[slot], False
            for j in range(n):
                if bank_words[slot, j] == word:
                    seen = True
                    break
            if seen:
                continue
            bank_words[slot, n], listed[slot] = word, n + 1
        per_slot[slot] += 1
        most = max(most, per_slot[slot])
    return (most, most, 1) if end > start else (0, 0, 0)


@njit(cache=True, nogil=True)  # a call per request: only elements wider than a word take it
def _wavefronts(index, lane, order, start, end, width, q, bits, keys, owners, per_slot, counted, most):
    """(degree, wavefronts, ideal) of shared request q: a phase takes as many wavefronts as the most
    distinct words one bank serves in it; the ideal is one a phase with lanes in it. Elements wider than
    a word are served in phases (banks.py); each row's lane is looked at only then. A word is new where
    the word set (open addressing, entries marked with their request: nothing to clear) lacks it."""
    words, per_phase = max(1, width >> WORD_BITS), BANKS * WORD // max(WORD, width)
    most[:] = 0
    mask, shift = (1 << bits) - 1, np.uint64(64 - bits)
    for p in range(start, end):
        r = p if order.size == 0 else order[p]
        phase = 0 if width <= WORD else (lane[r] % WARP) // per_phase
        for w in range(words):
            word = index[r] if width == WORD else (index[r] * width >> WORD_BITS) + w  # the usual width: no shifts
            key = word << 2 | phase
            at = np.int64(np.uint64(key) * MIX >> shift)
            while owners[at] == q and keys[at] != key:
                at = (at + 1) & mask
            if owners[at] == q:
                continue  # a word seen before in this phase: served with it
            keys[at], owners[at] = key, q
            slot = phase * BANKS + (word & (BANKS - 1))  # word % BANKS, for BANKS a power of 2
            count = per_slot[slot] + 1 if counted[slot] == q else 1
            per_slot[slot], counted[slot] = count, q
            most[phase] = max(most[phase], count)
    degree, wavefronts, ideal = 0, 0, 0
    for phase in range(PHASES):
        if most[phase]:
            degree, wavefronts, ideal = max(degree, most[phase]), wavefronts + most[phase], ideal + 1
    return degree, wavefronts, ideal
