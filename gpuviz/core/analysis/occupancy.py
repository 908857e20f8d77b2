"""Occupancy: how many warps an SM can hold for this launch (theoretical, from its resources and the
device's limits) against how many blocks the trace saw resident on one SM at once (measured)."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.registers import estimate_registers, local_array_bytes
from gpuviz.core.analysis.timeline import block_spans
from gpuviz.core.dtypes import itemsize_of
from gpuviz.core.trace.model import Trace

WARP = 32
REGISTERS_PER_SM = 65536
REGISTER_UNIT = 256  # registers are given to warps in units of 256
# Shared memory CUDA keeps for itself in every resident block from compute capability 8.0 on
# (cudaDevAttrReservedSharedMemoryPerBlock: 1 KiB on 8.x and 9.x), so 4 blocks of 48 KiB take 196 KiB.
RESERVED_SHARED = 1024
# Per-SM limits by compute capability (CUDA C++ Programming Guide, technical specifications), for
# traces whose device facts do not carry them: (max threads, max blocks, shared memory in KiB).
PRESETS = {(7, 0): (2048, 32, 96), (7, 5): (1024, 16, 64), (8, 0): (2048, 32, 164), (8, 6): (1536, 16, 100),
           (8, 7): (2048, 32, 164), (8, 9): (1536, 24, 100), (9, 0): (2048, 32, 228), (10, 0): (2048, 32, 228),
           (12, 0): (1536, 32, 100)}  # fmt: skip


def blocks_by_registers(registers: int, warps_per_block: int, registers_per_sm: int = REGISTERS_PER_SM) -> int:
    """How many blocks of `warps_per_block` warps an SM's register file holds at `registers` a thread."""
    per_warp = -(-int(registers) * WARP // REGISTER_UNIT) * REGISTER_UNIT
    return registers_per_sm // (per_warp * warps_per_block) if per_warp else 1 << 30


def register_cap(plain_registers: int, warps_per_block: int, other_limit: int,
                 registers_per_sm: int = REGISTERS_PER_SM) -> int:  # fmt: skip
    """The most registers a thread may use so that an SM holds as many blocks as it does of the
    kernel compiled as it is (`plain_registers`; `other_limit`: blocks the SM's other limits allow).
    The recorder compiles its kernel under this cap, so that recording never changes how many blocks
    run at once, which decides how a race's threads interleave."""
    blocks = max(1, min(blocks_by_registers(plain_registers, warps_per_block, registers_per_sm), other_limit))
    per_warp = registers_per_sm // (blocks * warps_per_block) // REGISTER_UNIT * REGISTER_UNIT
    return max(WARP // 2, min(255, per_warp // WARP // 8 * 8))


def sm_facts(trace: Trace) -> dict:
    """The device facts, with per-SM limits filled in from the compute capability's preset."""
    facts = trace.device_facts
    preset = PRESETS.get(tuple(facts.get("compute_capability", ())))
    if preset is not None:
        threads, blocks, shared_kib = preset
        facts.setdefault("max_threads_per_sm", threads)
        facts.setdefault("max_blocks_per_sm", blocks)
        facts.setdefault("max_shared_memory_per_sm", shared_kib * 1024)
    return facts


def _capability(facts: dict) -> tuple[int, ...]:
    """The compute capability as numbers ((9, 0)); () where the facts hold none that reads as one."""
    found = facts.get("compute_capability", ())
    parts = found.split(".") if isinstance(found, str) else found
    try:
        return tuple(int(part) for part in parts)
    except (TypeError, ValueError):
        return ()


def shared_bytes_per_block(trace: Trace) -> int:
    """Shared memory of one block: as the compiler reported it (GPU), else the sum of the launch's
    shared arrays."""
    if "shared_bytes_per_block" in trace.meta:
        return int(trace.meta["shared_bytes_per_block"])
    total = 0
    for entry in trace.meta.get("arrays", []):
        if entry.get("space") == "shared":
            total += int(np.prod(entry["shape"], dtype=np.int64)) * itemsize_of(entry["dtype"], 0)
    return total


def _limits(trace: Trace) -> tuple[dict[str, int], list[str]]:
    """Blocks per SM each resource allows, and the resources this trace cannot tell (no shared
    memory at all is no limit, not an unknown)."""
    facts = sm_facts(trace)
    warps = -(-int(np.prod(trace.block)) // WARP)
    found: dict[str, int | None] = {
        "threads": int(facts["max_threads_per_sm"]) // (warps * WARP) if "max_threads_per_sm" in facts else None,
        "blocks": int(facts["max_blocks_per_sm"]) if "max_blocks_per_sm" in facts else None,
        "registers": None,
    }
    shared, shared_sm = shared_bytes_per_block(trace), facts.get("max_shared_memory_per_sm")
    if shared:
        reserved = RESERVED_SHARED if _capability(facts) >= (8, 0) else 0
        found["shared memory"] = int(shared_sm) // (shared + reserved) if shared_sm is not None else None
    registers, _ = registers_per_thread(trace)
    if registers:
        found["registers"] = blocks_by_registers(
            registers, warps, int(facts.get("max_registers_per_sm", REGISTERS_PER_SM))
        )
    limits = {name: blocks for name, blocks in found.items() if blocks is not None}
    return limits, [name for name, blocks in found.items() if blocks is None]


def registers_per_thread(trace: Trace) -> tuple[int | None, str]:
    """A thread's registers and where the figure comes from: "compiled" (numba's compile of the kernel as
    it is, on a GPU), "compiled with recording" (the recorded kernel's, where the plain compile failed:
    more than the kernel's own), "estimated" (from the source: core/analysis/registers.py, a model)."""
    meta = trace.meta
    if meta.get("registers_per_thread"):
        return int(meta["registers_per_thread"]), "compiled"
    if meta.get("recorded_registers_per_thread"):
        return int(meta["recorded_registers_per_thread"]), "compiled with recording"
    arrays = {entry["name"]: str(entry["dtype"]) for entry in meta.get("arrays", []) if entry.get("space") == "global"}
    estimate = estimate_registers(meta["source"], arrays, meta.get("kernel")) if meta.get("source") else None
    return estimate, "estimated" if estimate else "unknown"


def local_bytes_per_thread(trace: Trace) -> int:
    """Local memory of one thread: as the compiler reported it (GPU: local arrays and spills), else the
    sum of the kernel's local arrays (the simulator's: ptxas may keep small ones in registers)."""
    if "local_bytes_per_thread" in trace.meta:
        return int(trace.meta["local_bytes_per_thread"])
    return local_array_bytes(trace.meta.get("source", ""), trace.meta.get("kernel"))


def theoretical(trace: Trace) -> dict:
    """Blocks and warps per SM the launch's resources allow, the fraction of the SM's warps that is,
    and the limiting resource(s); resources this trace cannot tell are listed as unknown."""
    limits, unknown = _limits(trace)
    warps = -(-int(np.prod(trace.block)) // WARP)
    max_warps = int(sm_facts(trace).get("max_threads_per_sm", 2048)) // WARP
    shared = shared_bytes_per_block(trace)
    registers, source = registers_per_thread(trace)
    kernel = {"shared_per_block": shared, "registers_per_thread": registers, "registers_from": source,
              "local_per_thread": local_bytes_per_thread(trace)}  # fmt: skip
    if "threads" in unknown or "blocks" in unknown:  # without them any other limit says too little
        return {"blocks": None, "warps": None, "occupancy": None, "limiter": "unknown", "limits": limits,
                "unknown": unknown} | kernel  # fmt: skip
    blocks = min(limits.values())
    names = {"registers": "registers (estimated)"} if source == "estimated" else {}
    limiter = " and ".join(names.get(name, name) for name, b in limits.items() if b == blocks)
    if blocks == 0:
        limiter += " (the block does not fit on an SM)"
    return {
        "blocks": blocks,
        "warps": blocks * warps,
        "occupancy": min(1.0, blocks * warps / max_warps),
        "limiter": limiter,
        "limits": limits,
        "unknown": unknown,
    } | kernel


def peak_resident_blocks(trace: Trace) -> int:
    """The most blocks the trace shows on one SM at the same time (a block that ends when another
    starts does not overlap it)."""
    sm, start, end = block_spans(trace)
    if len(sm) == 0:
        return 0
    times = np.concatenate([start, end])
    delta = np.concatenate([np.ones(len(sm), np.int64), -np.ones(len(sm), np.int64)])
    sms = np.concatenate([sm, sm])
    order = np.lexsort((delta, times, sms))  # per SM, by time, ends before starts at a tie
    return int(np.cumsum(delta[order]).max())


def measured(trace: Trace) -> dict:
    """Peak blocks and warps resident on one SM in the trace, as a fraction of the SM's warps."""
    blocks = peak_resident_blocks(trace)
    warps = blocks * -(-int(np.prod(trace.block)) // WARP)
    max_warps = int(sm_facts(trace).get("max_threads_per_sm", 2048)) // WARP
    launched = int(np.prod(trace.grid))
    per_block = int(np.prod(trace.block))  # a block's threads share its SM: one value a block is enough
    sms = int(len(np.unique(trace.threads["sm"][::per_block]))) if trace.n_threads else 0
    return {"blocks": blocks, "warps": warps, "occupancy": warps / max_warps, "blocks_in_launch": launched,
            "sms_used": sms, "sm_count": int(trace.meta.get("sm_count", sms))}  # fmt: skip
