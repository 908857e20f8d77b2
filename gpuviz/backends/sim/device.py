"""The virtual GPU the simulator places blocks on: SMs with residency limits, as hardware has.

Presets follow NVIDIA's compute-capability tables (CUDA C++ Programming Guide, "Features and
Technical Specifications") and the products' SM counts; `--device` picks one, the H200 class is the
default. Shared memory per block is the static limit (48 KiB); each resident block also reserves
1 KiB of the SM's shared memory for the system, as on sm_80 and later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from gpuviz.core.errors import GpuvizError

KIB = 1024
RESERVED_SHARED_PER_BLOCK = 1 * KIB


@dataclass(frozen=True)
class VirtualDevice:
    """Limits that decide how many blocks run at once, and so the waves a launch runs in."""

    name: str = "gpuviz simulator (H200-like)"
    sm_count: int = 132
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32
    max_threads_per_block: int = 1024
    warp_size: int = 32
    shared_per_block: int = 48 * KIB
    shared_per_sm: int = 228 * KIB
    schedulers_per_sm: int = 4
    compute_capability: str = "9.0"

    def blocks_per_sm(self, threads_per_block: int, shared_bytes: int = 0) -> int:
        """How many blocks of this size (and this much static shared memory) one SM holds at once."""
        by_threads = self.max_threads_per_sm // threads_per_block
        by_shared = self.shared_per_sm // (shared_bytes + RESERVED_SHARED_PER_BLOCK) if shared_bytes else by_threads
        return max(1, min(self.max_blocks_per_sm, by_threads, by_shared))

    @property
    def short_name(self) -> str:
        """'T4' from 'gpuviz simulator (T4-like)': the name a student knows the device by."""
        return self.name.rpartition("(")[2].removesuffix(")").removesuffix("-like")

    def describe(self) -> dict:
        facts = asdict(self)
        # The names the GPU backend's facts use too (occupancy reads them, whichever backend ran).
        facts["max_shared_memory_per_sm"] = self.shared_per_sm
        facts["max_shared_memory_per_block"] = self.shared_per_block
        facts["short_name"] = self.short_name
        return facts


PRESETS = {
    "h200": VirtualDevice(),
    "h100": VirtualDevice(name="gpuviz simulator (H100 SXM-like)"),
    "a100": VirtualDevice(name="gpuviz simulator (A100-like)", sm_count=108, shared_per_sm=164 * KIB,
                          compute_capability="8.0"),
    "t4": VirtualDevice(name="gpuviz simulator (T4-like)", sm_count=40, max_threads_per_sm=1024,
                        max_blocks_per_sm=16, shared_per_sm=64 * KIB, compute_capability="7.5"),
    "rtx3060-laptop": VirtualDevice(name="gpuviz simulator (RTX 3060 Laptop-like)", sm_count=30,
                                    max_threads_per_sm=1536, max_blocks_per_sm=16, shared_per_sm=100 * KIB,
                                    compute_capability="8.6"),
    "rtx4060-laptop": VirtualDevice(name="gpuviz simulator (RTX 4060 Laptop-like)", sm_count=24,
                                    max_threads_per_sm=1536, max_blocks_per_sm=24, shared_per_sm=100 * KIB,
                                    compute_capability="8.9"),
}  # fmt: skip
DEFAULT_DEVICE = "h200"


def preset(name: str) -> VirtualDevice:
    """A device preset by name; one clear line when the name is unknown."""
    if name not in PRESETS:
        raise GpuvizError(f"device {name!r} is not known; use one of: {', '.join(PRESETS)}")
    return PRESETS[name]
