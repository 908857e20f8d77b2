"""Which part of a recording changes a race? Hand-written variants of `counter[0] += 1`, on a real GPU.

Each variant adds one kind of recording work to the plain kernel and nothing else, so that its
outcome (the counter after the launch, 16 runs from zero) shows what that work does to the race:
- plain: the kernel as it is;
- start_stores: thread 0 stores the block's start and SM, lane 0 the warp's start, before the access
  (as the recorder's level `threads` does), and every lane stores its end reading;
- end_stores: the same readings taken at the start, but every store made as the thread ends;
- window_timers: %globaltimer read before the load, between the load and the store and after the
  store, all stores at the end;
- window_clocks: the same with %clock64;
- window_tag: the load's record (a 4-byte tag) stored between the load and the store;
- window_record: the load's tag and value stored between the load and the store, as the recorder's
  level `accesses` does;
- plain_again: the plain kernel compiled a second time: how far two batches of the same kernel apart;
- block_start_at_end: every thread reads %globaltimer first, and thread 0 stores it as it ends (one
  store a block: the least a recording of which block ran where and when can store);
- block_end: thread 0 reads the timer and stores it as it ends, with nothing read first;
- warp_end: every lane stores its end reading to its warp's word, as level `threads` does;
- threads_place_first: what level `threads` does: the timer read and the thread's place (block,
  thread, warp) worked out first; thread 0 stores the block's start and SM as it ends, every lane its
  warp's end reading;
- threads_place_last: the same, the place worked out as the thread ends;
- threads_no_sm: threads_place_last without the SM (no %smid read, no store of it);
- threads_sm_constant: threads_place_last with a constant stored for the SM (the store, no read);
- threads_sm_first: threads_place_last with %smid read first, beside the timer;
- warp_start_end: every lane stores one word as it ends, its first reading's low half over its end
  reading's low half: a warp's start and end in one store, and no other;
- warp_start_only: every lane stores its first reading to its warp's word as it ends (no end reading);
- warp_block_end: threads_no_sm without the first reading: thread 0 stores its end reading too;
- warp_clock_start: warp_start_only with %clock64 read first in place of %globaltimer;
- threads_place_bound: threads_place_first, with the counter's index made to depend on the place
  (plus the place times a zero that the kernel cannot know is zero): the place is worked out before
  the load, so the compiler cannot schedule it between the load and the store;
- held_bound, held_after, held_free: both records (4-byte time and value each, 16 bytes a thread)
  held in registers and stored after the counter's store, with the thread's place bound before the
  load (as level `threads` now binds it); held_after reads both times after the store; held_free
  leaves the place to the compiler; held_warp: held_after, but a warp whose lanes all loaded one value
  stores its records once (lane 0: 16 bytes a warp), other warps 16 bytes a thread (on a GPU only);
- end_thread_16, end_thread_4: end_stores, and every thread stores 16 (or 4) bytes more as it ends:
  window_timers' stores without its timer reads, so that the two tell timers and stores apart;
- end_warp_16: end_stores, and lane 0 stores 16 bytes for its warp as it ends;
- window_timers_warp: window_timers with 16 bytes a warp (lane 0) in place of 16 bytes a thread;
- uniform_held: window_timers, but a warp whose active lanes loaded one value stores its two records
  once (lane 0), 16 bytes a warp; other warps store 16 bytes a thread (on a GPU only).
The rule of docs/gpu.md ("same": median inside the plain [min, max], every run inside
[0.75 x min, 1.25 x max]) is applied to each.
Usage: python bench/gpu_race_perturbation.py [runs] [variant ...] (every variant when none is named)
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from gpuviz.backends.gpu import intrinsics
from gpuviz.backends.gpu.compat import import_numba_cuda

cuda = import_numba_cuda()

from numba import uint32  # noqa: E402

SMOKE = "--smoke" in sys.argv
SHAPES = [(2, 64)] if SMOKE else [(1024, 1024), (8192, 128), (264, 1024)]
FULL_WARP = uint32(0xFFFFFFFF)
now, clock, sm = intrinsics.globaltimer(), intrinsics.clock64(), intrinsics.smid()


@cuda.jit
def plain(c, bs, bsm, ws, we, tag, value):
    c[0] += 1


@cuda.jit
def start_stores(c, bs, bsm, ws, we, tag, value):
    t, b = cuda.threadIdx.x, cuda.blockIdx.x
    w = b * (cuda.blockDim.x // 32) + t // 32
    if t == 0:
        bs[b] = now()
        bsm[b] = sm()
    start = now()
    if t % 32 == 0:
        ws[w] = start
    c[0] += 1
    we[w] = now()


@cuda.jit
def end_stores(c, bs, bsm, ws, we, tag, value):
    t, b = cuda.threadIdx.x, cuda.blockIdx.x
    w = b * (cuda.blockDim.x // 32) + t // 32
    start, where = now(), sm()
    c[0] += 1
    if t == 0:
        bs[b] = start
        bsm[b] = where
    if t % 32 == 0:
        ws[w] = start
    we[w] = now()


def _windowed(read, store_tag: bool, store_value: bool):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        t, b = cuda.threadIdx.x, cuda.blockIdx.x
        g, n = b * cuda.blockDim.x + t, cuda.gridDim.x * cuda.blockDim.x
        w = b * (cuda.blockDim.x // 32) + t // 32
        start = read()
        v = c[0]
        loaded = read()
        if store_tag:
            tag[g] = uint32(loaded - start)
        if store_value:
            value[g] = v
        c[0] = v + 1
        stored = read()
        if not store_tag:
            tag[g] = uint32(loaded - start)
        if not store_value:
            value[g] = v
        tag[n + g] = uint32(stored - start)
        value[n + g] = v + 1
        if t % 32 == 0:
            ws[w] = start
        we[w] = now()

    return kernel


@cuda.jit
def plain_again(c, bs, bsm, ws, we, tag, value):
    c[0] += 1


@cuda.jit
def block_start_at_end(c, bs, bsm, ws, we, tag, value):
    start = now()
    c[0] += 1
    if cuda.threadIdx.x == 0:
        bs[cuda.blockIdx.x] = start


@cuda.jit
def block_end(c, bs, bsm, ws, we, tag, value):
    c[0] += 1
    if cuda.threadIdx.x == 0:
        bs[cuda.blockIdx.x] = now()


@cuda.jit
def warp_end(c, bs, bsm, ws, we, tag, value):
    c[0] += 1
    we[cuda.blockIdx.x * (cuda.blockDim.x // 32) + cuda.threadIdx.x // 32] = now()


@cuda.jit
def threads_place_first(c, bs, bsm, ws, we, tag, value):
    start = now()
    thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
    warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
    c[0] += 1
    we[warp] = now()
    if thread == 0:
        bs[block] = start
        bsm[block] = sm()


@cuda.jit
def threads_place_last(c, bs, bsm, ws, we, tag, value):
    start = now()
    c[0] += 1
    thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
    warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
    we[warp] = now()
    if thread == 0:
        bs[block] = start
        bsm[block] = sm()


def _threads_sm(how: int):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        start = now()
        if how == 3:
            where = sm()
        c[0] += 1
        thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
        warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
        we[warp] = now()
        if thread == 0:
            bs[block] = start
            if how == 2:
                bsm[block] = 7
            if how == 3:
                bsm[block] = where

    return kernel


@cuda.jit
def threads_place_bound(c, bs, bsm, ws, we, tag, value):
    start = now()
    thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
    warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
    zero = tag.shape[0] >> 40  # 0 (a kernel parameter: no load), which the compiler cannot know
    c[warp * zero] += 1
    we[warp] = now()
    if thread == 0:
        bs[block] = start
        bsm[block] = sm()


def _held(bound: bool, times_after: bool, by_warp: bool = False):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        start = now()
        thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
        warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
        g = block * cuda.blockDim.x + thread
        n = cuda.gridDim.x * cuda.blockDim.x
        if not bound or warp < we.shape[0]:  # always true; the compiler cannot know it
            v = c[0]
            loaded = start if times_after else now()
            c[0] = v + 1
            stored = now()
            if times_after:
                loaded = stored
            w, lanes = g, True
            if by_warp:  # every launch here has whole warps, all of whose lanes reach this line
                lanes = not cuda.all_sync(FULL_WARP, cuda.shfl_sync(FULL_WARP, v, 0) == v)
                w = warp
            if lanes or thread % 32 == 0:
                tag[w] = uint32(loaded - start)
                value[w] = v
                tag[n + w] = uint32(stored - start)
                value[n + w] = v + 1
        we[warp] = now()
        if thread == 0:
            bs[block] = start

    return kernel


def _warp_words(how: int):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        if how == 4:
            start = clock()
        elif how != 3:
            start = now()
        c[0] += 1
        thread, block = uint32(cuda.threadIdx.x), cuda.blockIdx.x
        warp = block * ((uint32(cuda.blockDim.x) + 31) >> 5) + (thread >> 5)
        if how == 1:
            we[warp] = (start << 32) | (now() & 0xFFFFFFFF)
        if how == 2 or how == 4:
            we[warp] = start
        if how == 3:
            we[warp] = now()
            if thread == 0:
                bs[block] = now()

    return kernel


def _end_volume(per_thread: int, per_warp: int):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        t, b = cuda.threadIdx.x, cuda.blockIdx.x
        g, n = b * cuda.blockDim.x + t, cuda.gridDim.x * cuda.blockDim.x
        w = b * (cuda.blockDim.x // 32) + t // 32
        start, where = now(), sm()
        v = c[0]
        c[0] = v + 1
        if per_thread >= 4:
            value[g] = v
        if per_thread >= 16:
            tag[g] = uint32(start)
            tag[n + g] = uint32(start)
            value[n + g] = v + 1
        if per_warp and t % 32 == 0:
            tag[w] = uint32(start)
            value[w] = v
            tag[n + w] = uint32(start)
            value[n + w] = v + 1
        if t == 0:
            bs[b] = start
            bsm[b] = where
        if t % 32 == 0:
            ws[w] = start
        we[w] = now()

    return kernel


def _window_warp(uniform_only: bool):
    @cuda.jit
    def kernel(c, bs, bsm, ws, we, tag, value):
        t, b = cuda.threadIdx.x, cuda.blockIdx.x
        g, n = b * cuda.blockDim.x + t, cuda.gridDim.x * cuda.blockDim.x
        w = b * (cuda.blockDim.x // 32) + t // 32
        start = now()
        v = c[0]
        loaded = now()
        c[0] = v + 1
        stored = now()
        lead = t % 32 == 0
        if uniform_only:
            # every launch here has whole warps, all of whose lanes reach this line
            same = cuda.all_sync(FULL_WARP, cuda.shfl_sync(FULL_WARP, v, 0) == v)
            lead = same and t % 32 == 0
            if not same:
                tag[g] = uint32(loaded - start)
                value[g] = v
                tag[n + g] = uint32(stored - start)
                value[n + g] = v + 1
        if lead:
            tag[w] = uint32(loaded - start)
            value[w] = v
            tag[n + w] = uint32(stored - start)
            value[n + w] = v + 1
        if t % 32 == 0:
            ws[w] = start
        we[w] = now()

    return kernel


VARIANTS = {
    "plain": plain,
    "plain_again": plain_again,
    "block_start_at_end": block_start_at_end,
    "block_end": block_end,
    "warp_end": warp_end,
    "threads_place_first": threads_place_first,
    "threads_place_last": threads_place_last,
    "threads_no_sm": _threads_sm(1),
    "threads_sm_constant": _threads_sm(2),
    "threads_sm_first": _threads_sm(3),
    "warp_start_end": _warp_words(1),
    "warp_start_only": _warp_words(2),
    "warp_block_end": _warp_words(3),
    "warp_clock_start": _warp_words(4),
    "threads_place_bound": threads_place_bound,
    "held_bound": _held(True, False),
    "held_after": _held(True, True),
    "held_free": _held(False, False),
    "start_stores": start_stores,
    "end_stores": end_stores,
    "window_timers": _windowed(now, False, False),
    "window_clocks": _windowed(clock, False, False),
    "window_tag": _windowed(now, True, False),
    "window_record": _windowed(now, True, True),
    "end_thread_16": _end_volume(16, 0),
    "end_thread_4": _end_volume(4, 0),
    "end_warp_16": _end_volume(0, 16),
    "window_timers_warp": _window_warp(False),
}
if not intrinsics.simulated():  # numba's CUDA simulator has no warp votes or shuffles
    VARIANTS["uniform_held"] = _window_warp(True)
    VARIANTS["held_warp"] = _held(True, True, by_warp=True)


def outcomes(kernel, grid: int, block: int, runs: int) -> list[int]:
    threads = grid * block
    buffers = [cuda.device_array(grid, np.uint64), cuda.device_array(grid, np.uint32),
               cuda.device_array(threads // 32 + 1, np.uint64), cuda.device_array(threads // 32 + 1, np.uint64),
               cuda.device_array(2 * threads, np.uint32), cuda.device_array(2 * threads, np.int32)]  # fmt: skip
    found = []
    for _ in range(runs):
        counter = cuda.to_device(np.zeros(1, np.int32))
        kernel[grid, block](counter, *buffers)
        cuda.synchronize()
        found.append(int(counter.copy_to_host()[0]))
    return found


def same(plain_runs: list[int], runs: list[int]) -> bool:
    low, high = min(plain_runs), max(plain_runs)
    return low <= statistics.median(runs) <= high and all(0.75 * low <= r <= 1.25 * high for r in runs)


def main() -> None:
    words = [w for w in sys.argv[1:] if w != "--smoke"]
    runs = 2 if SMOKE else int(words[0]) if words else 16
    named = [w for w in words[1:] if w in VARIANTS]
    if len(named) != len(words[1:]):
        raise SystemExit(f"unknown variant(s) {sorted(set(words[1:]) - set(VARIANTS))}; known: {', '.join(VARIANTS)}")
    variants = {"plain": plain} | {name: VARIANTS[name] for name in named or VARIANTS}
    device = getattr(cuda.get_current_device(), "name", "numba's CUDA simulator")
    print(f"device: {device.decode() if isinstance(device, bytes) else device}; {runs} runs each")
    print("| launch | variant | min-max (median) | same as plain |")
    print("|---|---|---|---|")
    for grid, block in SHAPES:
        base = None
        for name, kernel in variants.items():
            found = outcomes(kernel, grid, block, runs)
            base = base or found
            verdict = "yes" if same(base, found) else "NO"
            print(
                f"| [{grid},{block}] | {name} | {min(found)}-{max(found)} ({statistics.median(found):g}) | {verdict} |"
            )


if __name__ == "__main__":
    main()
