"""The memory system's units and the memory report's codes, in a module that imports nothing: the compiled
passes (request_costs.py, path_counts.py) and the modules that call them share them without a cycle."""

from __future__ import annotations

import numpy as np

WARP = 32
SECTOR, CACHE_LINE = 32, 128  # bytes (coalescing.py)
BANKS, WORD = 32, 4  # shared memory's banks of 4-byte words (banks.py)
SPACES = ("global", "shared", "const")  # the memory spaces a request can be of; its code is the place here
GLOBAL, SHARED, CONST = range(len(SPACES))
# A (line, count) pair mixed into a number; a lane's signature is the sum over its pairs (wrapping), so lanes
# with equal signatures took one path (divergence.py, path_counts.py).
MIX_LINE, MIX_COUNT = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F)
