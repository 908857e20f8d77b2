"""The GPU recorder's access log on the device: its buffers, how big they are, and reading it back.

Each thread owns K slots (`hooks.py` says what a slot holds); records past them go to a pool shared
by all threads. K comes from the event budget (`cap` events for the slots, a quarter more for the
pool), so that a launch of many threads with a few accesses each fits its slots, which need no
atomics, and one with a few threads and many accesses each still fits in the pool. Slots a thread
does not fill are never written nor copied back."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.gpu.decode import PoolLog, SlotLog, decode_records
from gpuviz.backends.gpu.hooks import COUNTER_STRIDE, COUNTERS
from gpuviz.backends.gpu.intrinsics import simulated
from gpuviz.backends.gpu.layout import WIDE, RecordLayout

MAX_SLOTS = 4096  # a thread's slots at most: more would reserve memory most launches never touch
COUNTER_WORDS = COUNTERS * COUNTER_STRIDE + 1  # the pool's counters, then the "some were dropped" flag


def slots_per_thread(threads: int, cap: int) -> int:
    """K: how many slots each thread gets for a budget of `cap` events (at least one)."""
    return int(min(MAX_SLOTS, max(1, cap // max(threads, 1))))


class DeviceLog:
    """The log's device buffers for one launch at level `accesses` (level `threads` has none)."""

    def __init__(self, cuda, threads: int, cap: int, logged: int, value_dtype: np.dtype,
                 layout: RecordLayout = WIDE):  # fmt: skip
        self.cuda, self.threads, self.logged, self.layout = cuda, threads, logged, layout
        self.k = slots_per_thread(threads, cap) if cap else 0
        pool = max(cap // 4, COUNTERS) if cap else COUNTERS
        self.pool_size = pool - pool % COUNTERS
        slots = max(1, self.k * threads)
        self.tag = cuda.device_array(slots, layout.tag_dtype)  # code << time bits | time
        self.element = cuda.device_array(slots, np.uint32)
        self.value = cuda.device_array(slots, value_dtype)
        self.count = cuda.device_array(threads if cap else 1, np.uint16)
        size = self.pool_size if cap else 1
        self.pool = [cuda.device_array(size, np.uint32), cuda.device_array(size, np.uint16),
                     cuda.device_array(size, np.uint32), cuda.device_array(size, np.uint32),
                     cuda.device_array(size, value_dtype)]  # fmt: skip
        self.counters = cuda.to_device(np.zeros(COUNTER_WORDS, np.int64))
        if cap:
            self.reset()

    def buffers(self) -> list:
        """The kernel's log arguments, in KERNEL_BUFFERS order after the warp starts."""
        return [self.tag, self.element, self.value, self.count, self.k, *self.pool,
                self.counters, self.pool_size, self.logged]  # fmt: skip

    def reset(self) -> None:
        """Empty, for another launch: no thread has filled a slot (a thread that never returns
        through gpuviz's end hook, e.g. one stopped by an exception, then reads as empty)."""
        self.counters.copy_to_device(np.zeros(COUNTER_WORDS, np.int64))
        if self.k:
            fill(self.cuda, self.count, 0)

    def filled(self) -> int:
        """How many records the last launch made (time and barrier marks included)."""
        if not self.k:
            return 0
        counters = self.counters.copy_to_host()[: COUNTERS * COUNTER_STRIDE : COUNTER_STRIDE]
        return int(np.minimum(self.count.copy_to_host(), self.k).sum() + counters.sum())

    def records(self, start_units: np.ndarray, warp_of_thread: np.ndarray) -> tuple[dict[str, np.ndarray], bool]:
        """The decoded records (records.decode_records) and whether some were dropped; each thread's
        warp's start in units, and its warp."""
        count = np.minimum(self.count.copy_to_host(), self.k)
        rows = int(count.max()) if count.size else 0
        span = rows * self.threads

        def slot_column(column) -> np.ndarray:
            if not rows:
                return np.zeros((0, self.threads), column.dtype)
            return column[:span].copy_to_host().reshape(rows, self.threads)

        code, low = self.layout.split(slot_column(self.tag))
        slots = SlotLog(code, low, slot_column(self.element), slot_column(self.value), count)
        counters = self.counters.copy_to_host()
        pool = self._pool(counters, warp_of_thread)
        return decode_records(slots, pool, start_units, self.layout.time_bits), bool(counters[-1])

    def _pool(self, counters: np.ndarray, warp_of_thread: np.ndarray) -> PoolLog:
        """The pool's filled records, and each one's rank in its thread's order: a thread starts at
        the region of its warp and spills into the next ones, wrapping around."""
        region = self.pool_size // COUNTERS
        used = np.minimum(counters[: COUNTERS * COUNTER_STRIDE : COUNTER_STRIDE], region)
        spans = [(k, k * region, k * region + int(n)) for k, n in enumerate(used) if n]
        columns = [np.concatenate([c[a:b].copy_to_host() for _, a, b in spans] or [np.zeros(0, c.dtype)])
                   for c in self.pool]  # fmt: skip
        where = np.concatenate([np.arange(a, b) for _, a, b in spans] or [np.zeros(0, np.int64)])
        columns[1] = self.layout.widen(columns[1]).astype(np.uint16)
        thread = columns[0].astype(np.int64)
        warp_region = warp_of_thread[thread] % COUNTERS
        rank = ((where // max(region, 1) - warp_region) % COUNTERS) * region + where % max(region, 1)
        return PoolLog(*columns, rank=rank)


def fill(cuda, array, byte: int) -> None:
    """Every byte of a device array set to `byte` (0xFF: every value all ones, the "not stored" mark)."""
    if hasattr(array, "gpu_data") and not simulated():
        from numba.cuda.cudadrv.driver import device_memset

        device_memset(array, byte, array.nbytes)
    else:
        array.copy_to_device(np.full(array.nbytes, byte, np.uint8).view(array.dtype).reshape(array.shape))
