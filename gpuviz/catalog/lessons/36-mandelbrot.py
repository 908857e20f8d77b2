"""A 2-D image kernel: the Mandelbrot set, one thread per pixel, each looping a different time."""

import numpy as np
from numba import cuda

MAX_ITER = 40


@cuda.jit(device=True)
def escape_time(cr, ci):
    zr = 0.0
    zi = 0.0
    for n in range(MAX_ITER):
        if zr * zr + zi * zi > 4.0:
            return n
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    return MAX_ITER


@cuda.jit
def mandelbrot(image):
    x, y = cuda.grid(2)
    height, width = image.shape
    if x < width and y < height:
        image[y, x] = escape_time(-2.0 + 2.6 * x / width, -1.2 + 2.4 * y / height)


def reference(height, width):
    y, x = np.mgrid[0:height, 0:width]
    c = (-2.0 + 2.6 * x / width) + 1j * (-1.2 + 2.4 * y / height)
    z = np.zeros_like(c)
    out = np.full(c.shape, MAX_ITER)
    for n in range(MAX_ITER):
        escaped = (np.abs(z) ** 2 > 4.0) & (out == MAX_ITER)
        out[escaped] = n
        z = np.where(out == MAX_ITER, z * z + c, z)
    return out


image = np.zeros((48, 64), np.int32)
mandelbrot[(4, 3), (16, 16)](image)
assert (image == reference(48, 64)).mean() > 0.99  # float rounding may move a pixel on the edge
print("rows of the image:\n" + "\n".join("".join("#" if v == MAX_ITER else "." for v in row[::2]) for row in image[::6]))
