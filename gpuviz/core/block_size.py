"""The block size CUDA's occupancy calculator suggests (cuOccupancyMaxPotentialBlockSize), as a pure
function of a device's facts: numba-cuda's `forall` and `@vectorize(target='cuda')` launch with it."""

from __future__ import annotations

from gpuviz.core.analysis.occupancy import REGISTERS_PER_SM

SUB_PARTITIONS = 4
REGISTER_UNIT = 256  # registers are handed to a warp in units of 256 (cc 7.x to 9.x)
RESERVED_SHARED_PER_BLOCK = 1024  # what CUDA keeps of an SM's shared memory per block on cc 8.x/9.x


def blocks_per_sm(facts: dict, block: int, registers: int | None = None, shared_bytes: int = 0) -> int:
    """Blocks of `block` threads one SM holds at once, by threads, blocks, registers and shared memory."""
    warp = int(facts.get("warp_size", 32))
    warps = -(-block // warp)
    limits = [int(facts.get("max_blocks_per_sm", 32)), int(facts.get("max_threads_per_sm", 2048)) // (warps * warp)]
    if registers:
        per_warp = -(-registers * warp // REGISTER_UNIT) * REGISTER_UNIT
        # the register file is split among the SM's 4 schedulers: a warp's registers come from one quarter
        quarter = int(facts.get("max_registers_per_sm", REGISTERS_PER_SM)) // SUB_PARTITIONS
        limits.append(SUB_PARTITIONS * (quarter // per_warp) // warps)
    if shared_bytes:
        per_sm = int(facts.get("max_shared_memory_per_sm", 228 * 1024))
        limits.append(per_sm // (shared_bytes + RESERVED_SHARED_PER_BLOCK))
    return max(0, min(limits))


def potential_block_size(facts: dict, registers: int | None = None, shared_bytes: int = 0, limit: int = 1024) -> int:
    """The largest block size that gives an SM the most resident threads, trying sizes from `limit` down in
    steps of a warp, as the driver does; `registers` a thread (None: not what limits)."""
    warp = int(facts.get("warp_size", 32))
    largest = min(limit, int(facts.get("max_threads_per_block", 1024)))
    full = int(facts.get("max_threads_per_sm", 2048))
    best, best_threads = warp, 0
    for aligned in range(-(-largest // warp) * warp, 0, -warp):
        block = min(largest, aligned)
        threads = block * blocks_per_sm(facts, block, registers, shared_bytes)
        if threads > best_threads:
            best, best_threads = block, threads
        if best_threads == full:
            break
    return best
