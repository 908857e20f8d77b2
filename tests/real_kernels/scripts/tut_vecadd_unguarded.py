"""NVIDIA's CUDA Programming Guide, Python vecadd (/work/shared/seeds/002_bec49a5bf59f8207.txt): no bounds
check, a size that is not a multiple of the block, then a block of 2048 threads in try/except.
Harness: vector_size 2**24 + 11 -> 2**12 + 11 (the same bug: the last block has 245 threads past the end)."""

GPUVIZ_EXPECT = {"races": [], "errors": ["vecadd@0"]}

import cupy as cp
import numpy as np
from numba import cuda


## Defines a CUDA kernel to perform C = A + B vector addition
@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    C[work_index] = A[work_index] + B[work_index]


# note that vector size is not a power of 2 nor a multiple of the block_size defined below
vector_size = 2**12 + 11

device = cp.cuda.Device()
## Create device arrays of uniform random float32 values as input, and an array of zeros
## as the result vector
a = cp.random.uniform(-1, 1, vector_size)
b = cp.random.uniform(-1, 1, vector_size)
c = cp.zeros_like(a)

block_size = 256
grid_size = int(np.ceil(vector_size / block_size))
vecadd[grid_size, block_size](a, b, c)

## synchronize the CPU thread and the GPU to ensure that the kernel has completed
device.synchronize()

## Copy all 3 arrays to the CPU as ndarrays
a_np = cp.asnumpy(a)
b_np = cp.asnumpy(b)
c_np = cp.asnumpy(c)

## Perform the copy on the CPU to verify the answer
expected = a_np + b_np

## Test that the answer is correct, within floating point epsilon
np.testing.assert_array_almost_equal(c_np, expected)

print("Test succeeded")

try:
    ## this block size is too large for any current GPUs
    block_size = 2048
    grid_size = int(np.ceil(vector_size / block_size))
    # Error: launching kernel with invalid block size
    vecadd[grid_size, block_size](a, b, c)

    device.synchronize()
    print("Test did not encounter any errors")
    raise SystemExit(1)
except Exception as e:
    print(f"Exception occurred: {e}")
