"""numba-cuda documentation, random numbers over a 3D grid (tests/doc_examples/test_random.py).
Harness: array 701x900x719 -> 21x20x19, grid 16^3 -> 2^3. (tests/test_random_numbers.py checks the numbers
against numba-cuda's own implementation of the generator for the same seed.)"""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda
from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_uniform_float32,
)


@cuda.jit
def random_3d(arr, rng_states):
    # Per-dimension thread indices and strides
    startx, starty, startz = cuda.grid(3)
    stridex, stridey, stridez = cuda.gridsize(3)

    # Linearized thread index
    tid = (startz * stridey * stridex) + (starty * stridex) + startx

    # Use strided loops over the array to assign a random value to each entry
    for i in range(startz, arr.shape[0], stridez):
        for j in range(starty, arr.shape[1], stridey):
            for k in range(startx, arr.shape[2], stridex):
                arr[i, j, k] = xoroshiro128p_uniform_float32(rng_states, tid)


# Array dimensions
X, Y, Z = 21, 20, 19

# Block and grid dimensions
bx, by, bz = 8, 8, 8
gx, gy, gz = 2, 2, 2

# Total number of threads
nthreads = bx * by * bz * gx * gy * gz

# Initialize a state for each thread
rng_states = create_xoroshiro128p_states(nthreads, seed=1)

# Generate random numbers
arr = cuda.device_array((X, Y, Z), dtype=np.float32)
random_3d[(gx, gy, gz), (bx, by, bz)](arr, rng_states)

# Some basic tests of the randomly-generated numbers
host_arr = arr.copy_to_host()
assert np.all(host_arr <= 1.0)
assert np.all(host_arr >= 0.0)
assert 0.45 < np.mean(host_arr) < 0.55
