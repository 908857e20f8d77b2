"""3-D grid indexing: cuda.grid(3) gives (x, y, z); a volume filled with each thread's position."""

import numpy as np
from numba import cuda


@cuda.jit
def label_volume(volume):
    x, y, z = cuda.grid(3)
    depth, height, width = volume.shape
    if x < width and y < height and z < depth:
        volume[z, y, x] = x + 100 * y + 10000 * z


volume = np.zeros((6, 10, 12), np.int32)
label_volume[(3, 3, 2), (4, 4, 4)](volume)
z, y, x = np.indices(volume.shape)
assert (volume == x + 100 * y + 10000 * z).all()
print("volume", volume.shape, "corner values:", volume[0, 0, 0], volume[-1, -1, -1])
