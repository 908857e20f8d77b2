"""A 3-D grid: each thread writes its own global (x, y, z) position into a volume."""

import numpy as np
from numba import cuda


@cuda.jit
def label_volume(volume):
    x, y, z = cuda.grid(3)
    nz, ny, nx = volume.shape
    if x < nx and y < ny and z < nz:
        volume[z, y, x] = x + 100 * y + 10000 * z


volume = np.zeros((6, 5, 7), dtype=np.int32)
label_volume[(2, 2, 3), (4, 4, 2)](volume)
z, y, x = np.indices(volume.shape)
assert (volume == x + 100 * y + 10000 * z).all()
print("label_volume ok:", volume.shape)
