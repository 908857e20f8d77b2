"""Latencies for the simulator's cost model, measured on a real GPU with %clock64 (needs numba-cuda and a GPU).

Each microbenchmark runs one warp and times a dependent chain with the SM's cycle counter:
- global load: pointer chasing through an array larger than L2 (every load misses the caches);
- shared load: pointer chasing through a shared array;
- atomic: dependent atomic adds to one global address;
- syncthreads: a barrier in a loop, one block of 1,024 threads;
- block dispatch: the gap between the start times of the blocks that land on one SM.
Prints cycles per operation next to the constants in gpuviz/backends/sim/vector/cost.py, so that the
model can be calibrated (docs/simulator.md lists any constant changed). Last line:
`latency global=<c> shared=<c> atomic=<c> barrier=<c> dispatch=<c>`.
"""

from __future__ import annotations

import sys

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda
from gpuviz.backends.sim.vector.cost import BLOCK_LAUNCH, COSTS

import_numba_cuda()  # numba-cuda 0.30 needs np.row_stack, gone from NumPy 2.5: the shim adds it

from llvmlite import ir  # noqa: E402
from numba import cuda, types  # noqa: E402
from numba.cuda.extending import intrinsic  # noqa: E402

# --smoke (tests/test_bench_smoke.py): the same code at tiny sizes, so that the bench cannot rot
SMOKE = "--smoke" in sys.argv
CHAIN = 64 if SMOKE else 4096
L2_BEATING = 1 << (12 if SMOKE else 26)  # int64 elements: 512 MiB, far beyond any L2


@intrinsic
def clock64(typingctx):
    """The SM's cycle counter (%clock64), read with inline PTX."""

    def codegen(context, builder, signature, args):
        asm = ir.InlineAsm(ir.FunctionType(ir.IntType(64), []), "mov.u64 $0, %clock64;", "=l", side_effect=True)
        return builder.call(asm, [])

    return types.int64(), codegen


@intrinsic
def smid(typingctx):
    def codegen(context, builder, signature, args):
        asm = ir.InlineAsm(ir.FunctionType(ir.IntType(32), []), "mov.u32 $0, %smid;", "=r", side_effect=True)
        return builder.call(asm, [])

    return types.int32(), codegen


@cuda.jit
def chase_global(next_index, steps, out):
    k = 0
    start = clock64()
    for _ in range(steps):
        k = next_index[k]
    out[0] = clock64() - start
    out[1] = k  # keeps the chain alive


@cuda.jit
def chase_shared(steps, out):
    table = cuda.shared.array(1024, types.int32)
    t = cuda.threadIdx.x
    for i in range(t, 1024, cuda.blockDim.x):
        table[i] = (i * 97 + 1) % 1024
    cuda.syncthreads()
    k = 0
    start = clock64()
    for _ in range(steps):
        k = table[k]
    if t == 0:
        out[0] = clock64() - start
        out[1] = k


@cuda.jit
def chained_atomics(counter, steps, out):
    v = 0
    start = clock64()
    for _ in range(steps):
        v = cuda.atomic.add(counter, v & 0, 1)
    out[0] = clock64() - start
    out[1] = v


@cuda.jit
def barriers(steps, out):
    start = clock64()
    for _ in range(steps):
        cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out[0] = clock64() - start


@cuda.jit
def block_starts(starts, sms):
    if cuda.threadIdx.x == 0:
        starts[cuda.blockIdx.x] = clock64()
        sms[cuda.blockIdx.x] = smid()


def per_operation(kernel, grid, block, *args) -> float:
    out = cuda.to_device(np.zeros(2, np.int64))
    kernel[grid, block](*args, out)  # compile and warm
    kernel[grid, block](*args, out)
    return out.copy_to_host()[0] / CHAIN


def dispatch_gap(blocks: int = 8 * 264) -> float:
    """Median gap between consecutive block starts on one SM (clock64 is per SM, so compare within one)."""
    starts, sms = cuda.to_device(np.zeros(blocks, np.int64)), cuda.to_device(np.zeros(blocks, np.int32))
    block_starts[blocks, 1024](starts, sms)
    block_starts[blocks, 1024](starts, sms)
    starts, sms = starts.copy_to_host(), sms.copy_to_host()
    gaps = [np.diff(np.sort(starts[sms == sm])) for sm in np.unique(sms)]
    gaps = np.concatenate([g for g in gaps if len(g)])
    return float(np.median(gaps))


def main() -> None:
    rng = np.random.default_rng(0)
    order = rng.permutation(L2_BEATING).astype(np.int64)
    chain = np.empty(L2_BEATING, np.int64)
    chain[order[:-1]] = order[1:]
    chain[order[-1]] = order[0]
    measured = {
        "global": per_operation(chase_global, 1, 1, cuda.to_device(chain), CHAIN),
        "shared": per_operation(chase_shared, 1, 32, CHAIN),
        "atomic": per_operation(chained_atomics, 1, 1, cuda.to_device(np.zeros(1, np.int64)), CHAIN),
        "barrier": per_operation(barriers, 1, 1024, CHAIN),
        "dispatch": dispatch_gap(3 * cuda.get_current_device().MULTIPROCESSOR_COUNT if SMOKE else 8 * 264),
    }
    model = {"global": COSTS["global_load"], "shared": COSTS["shared_load"], "atomic": COSTS["atomic"],
             "barrier": COSTS["barrier"], "dispatch": BLOCK_LAUNCH}  # fmt: skip
    name = cuda.get_current_device().name
    print(f"device: {name.decode() if isinstance(name, bytes) else name}")
    for name, cycles in measured.items():
        print(f"{name:8s} measured {cycles:8.1f} cycles   model {model[name]:6d}")
    print("latency " + " ".join(f"{name}={cycles:.0f}" for name, cycles in measured.items()))


if __name__ == "__main__":
    main()
