"""The virtual GPU the simulator places blocks on: SMs with a residency limit, as hardware has."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VirtualDevice:
    """Limits that decide how many blocks run at once, and so the waves a launch runs in."""

    name: str = "gpuviz simulator (H200-like)"
    sm_count: int = 132
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32
    max_threads_per_block: int = 1024
    warp_size: int = 32
    max_shared_memory_per_sm: int = 228 * 1024  # what occupancy is computed from; residency ignores it
    max_shared_memory_per_block: int = 48 * 1024

    def blocks_per_sm(self, threads_per_block: int) -> int:
        """How many blocks of this size one SM holds at once."""
        return max(1, min(self.max_blocks_per_sm, self.max_threads_per_sm // threads_per_block))

    def describe(self) -> dict:
        return {
            "name": self.name,
            "sm_count": self.sm_count,
            "max_threads_per_sm": self.max_threads_per_sm,
            "max_blocks_per_sm": self.max_blocks_per_sm,
            "max_threads_per_block": self.max_threads_per_block,
            "warp_size": self.warp_size,
            "max_shared_memory_per_sm": self.max_shared_memory_per_sm,
            "max_shared_memory_per_block": self.max_shared_memory_per_block,
        }
