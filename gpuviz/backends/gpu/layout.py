"""How a recorded kernel packs its records: chosen per kernel and launch, read back by the host.

A record's tag holds a code (what the record is: an access site and its array, or a mark) over the
low bits of its time. Most kernels take the wide layout: 32-bit tags, a 16-bit code (array id 6 bits,
site 9 bits, the same-element bit) over 16 bits of time. A kernel whose access sites each name one
array that the rewrite knows (no array passed through a device function's parameter), and that has
few sites, takes 16-bit tags: the code numbers the marks and then the sites (the host knows each
site's array), and the time keeps what is left. Level `accesses` writes a tag a record, so this
saves two bytes a record, which on a memory-bound kernel is most of what the recording costs
(docs/performance.md). A launch with one axis (grid and block) also gets a cheaper thread place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BARRIER, TIME_MARK, FIRST_SITE = 0, 1, 2  # the wide layout's site ids: two marks, then the kernel's sites
BLOCK_MARK, GRID_MARK, WARP_MARK, FENCE_MARK = 0, 1, 2, 3  # a barrier mark's array-id bits: which barrier
UNIT_SHIFT = 5  # times are stored in units of 32 ns (the H100's %globaltimer moves in 32 ns steps)
WIDE_SAME = 1 << 15  # the wide code's same-element bit

NARROW_TIME_MARK = 4  # narrow codes: 0-3 the barrier marks (by kind), 4 the time mark, then the sites
NARROW_FIRST_SITE = 5
MIN_NARROW_TIME_BITS = 9  # 16 us between a thread's records before a time mark is needed


@dataclass(frozen=True)
class RecordLayout:
    """One kernel's record packing. `site_arrays` (narrow tags only): each access site's array id, in
    site order from FIRST_SITE."""

    flat: bool = False
    site_arrays: tuple[int, ...] | None = None
    guarded: bool = False  # every logged access checked against its array's size first (hooks.py)

    @property
    def narrow(self) -> bool:
        return self.site_arrays is not None

    @property
    def code_bits(self) -> int:
        """The code's width, the same-element bit included."""
        if not self.narrow:
            return 16
        return 1 + max(1, (NARROW_FIRST_SITE + len(self.site_arrays) - 1).bit_length())

    @property
    def time_bits(self) -> int:
        return 16 if not self.narrow else 16 - self.code_bits

    @property
    def same(self) -> int:
        return 1 << (self.code_bits - 1)

    @property
    def guard_ns(self) -> int:
        """A record this long after its thread's previous one is preceded by a time mark: a quarter
        of what the time bits hold, so that the host's signed difference is never ambiguous."""
        return 1 << (self.time_bits - 2 + UNIT_SHIFT)

    @property
    def tag_dtype(self) -> np.dtype:
        return np.dtype(np.uint16 if self.narrow else np.uint32)

    def codes(self) -> dict[str, str]:
        """The hook source's code words: each mark's code and an access's (from `site` and `aid`)."""
        mark = (lambda kind: (BARRIER << 6) | kind) if not self.narrow else (lambda kind: kind)
        words = {name: str(mark(kind)) for name, kind in _MARKS.items()}
        if not self.narrow:
            return words | {"TIME_CODE": str(TIME_MARK << 6), "ACCESS_CODE": "((site << 6) | aid)"}
        return words | {"TIME_CODE": str(NARROW_TIME_MARK), "ACCESS_CODE": f"(site + {NARROW_FIRST_SITE - FIRST_SITE})"}

    def split(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slot tags as the wide layout's (code with its same-element bit, low 16 bits of time):
        narrow times keep their own width (see `time_bits`)."""
        tags = tags.astype(np.int64)
        code, low = tags >> self.time_bits, tags & ((1 << self.time_bits) - 1)
        if not self.narrow:
            return code.astype(np.uint16), low.astype(np.uint16)
        same = np.where(code & self.same, WIDE_SAME, 0)
        return (self.widen(code & (self.same - 1)) | same).astype(np.uint16), low.astype(np.uint16)

    def widen(self, code: np.ndarray) -> np.ndarray:
        """Codes without the same-element bit, as the wide layout writes them."""
        if not self.narrow:
            return code.astype(np.int64)
        sites = [((FIRST_SITE + k) << 6) | aid for k, aid in enumerate(self.site_arrays)]
        table = np.array([(BARRIER << 6) | kind for kind in range(4)] + [TIME_MARK << 6] + sites, np.int64)
        return table[np.clip(code.astype(np.int64), 0, len(table) - 1)]


_MARKS = {"BLOCK_CODE": BLOCK_MARK, "GRID_CODE": GRID_MARK, "WARP_CODE": WARP_MARK, "FENCE_CODE": FENCE_MARK}
WIDE = RecordLayout()


def choose_layout(site_arrays: list[int | None], flat: bool, guarded: bool = False) -> RecordLayout:
    """Narrow tags where every access site's array is known and the time keeps enough bits."""
    narrow = RecordLayout(flat, tuple(a for a in site_arrays if a is not None), guarded)
    if None in site_arrays or narrow.time_bits < MIN_NARROW_TIME_BITS:
        return RecordLayout(flat, guarded=guarded)
    return narrow
