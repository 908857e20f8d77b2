"""The same segmented sum with CCCL's block reduction: one block a segment, each thread adds its
ITEMS values, then one call of CUB's BlockReduce (`block_sum`, from CCCL's cooperative primitives for
numba kernels) combines the block's partial sums; thread 0 gets the total. It replaces the shared
array, the barriers and the tree of the hand-written kernel (the `segmented-reduction` lesson), as the C++ original's
`segmented_reduction_kernel` would with `cub::BlockReduce`.

On a GPU this needs cuda-cccl (`pip install gpuviz[cccl]`; its 0.1.3 release puts the primitives at
`cuda.cccl.cooperative.experimental`, NVIDIA's CUDA Python pages call them `cuda.coop`), and the
kernel links the code the library generates (`link=block_sum.files`). gpuviz's simulator runs its own
model of the call.
"""

import cuda.cccl.cooperative.experimental as coop
import numpy as np
from numba import cuda, float32

THREADS = 64
ITEMS = 4  # values each thread adds before the block's reduction
SEGMENT = THREADS * ITEMS

block_sum = coop.block.sum(float32, THREADS)


@cuda.jit(link=block_sum.files)
def segmented_sum(in_arr, out_arr):
    tid = cuda.threadIdx.x
    offset = cuda.blockIdx.x * SEGMENT
    partial = float32(0)
    for i in range(ITEMS):
        partial += in_arr[offset + tid * ITEMS + i]
    total = block_sum(partial)
    if tid == 0:
        out_arr[cuda.blockIdx.x] = total


n_segments = 3
in_arr = np.arange(1, n_segments * SEGMENT + 1, dtype=np.float32)
out_arr = np.zeros(n_segments, dtype=np.float32)
segmented_sum[n_segments, THREADS](in_arr, out_arr)
np.testing.assert_allclose(out_arr, in_arr.reshape(n_segments, SEGMENT).sum(axis=1), rtol=1e-6)
print("segment sums:", out_arr)
