"""A device function called from a kernel, and a per-thread cuda.local.array scratch buffer."""

import math

import numpy as np
from numba import cuda, float64


@cuda.jit(device=True)
def distance(x1, y1, x2, y2):
    return math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)


@cuda.jit
def nearest_of_three(points, out):
    i = cuda.grid(1)
    if i >= points.shape[0]:
        return
    corners = cuda.local.array(3, float64)
    corners[0] = distance(points[i, 0], points[i, 1], 0.0, 0.0)
    corners[1] = distance(points[i, 0], points[i, 1], 1.0, 0.0)
    corners[2] = distance(points[i, 0], points[i, 1], 0.0, 1.0)
    best = corners[0]
    for k in range(1, 3):
        best = min(best, corners[k])
    out[i] = best


points = np.random.default_rng(2).random((100, 2))
out = np.zeros(100)
nearest_of_three[4, 32](points, out)
corners = np.array([[0, 0], [1, 0], [0, 1]])
expected = np.linalg.norm(points[:, None, :] - corners[None], axis=2).min(axis=1)
np.testing.assert_allclose(out, expected)
print("nearest corner distances ok:", out[:3])
