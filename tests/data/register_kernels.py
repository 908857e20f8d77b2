"""Kernels of growing register pressure, for the register estimate's fixture (tools/register_fixture.py
compiles them with ptxas; tests/test_register_estimate.py compares the estimate with what it says)."""

import math

import numpy as np
from numba import cuda, float32, float64, int32


@cuda.jit
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def horner8(x, c, out):
    i = cuda.grid(1)
    if i < x.size:
        t = x[i]
        out[i] = ((((((c[7] * t + c[6]) * t + c[5]) * t + c[4]) * t + c[3]) * t + c[2]) * t + c[1]) * t + c[0]


@cuda.jit
def stencil5(x, out):
    i = cuda.grid(1)
    if 2 <= i < x.size - 2:
        a, b, c, d, e = x[i - 2], x[i - 1], x[i], x[i + 1], x[i + 2]
        out[i] = 0.1 * a + 0.2 * b + 0.4 * c + 0.2 * d + 0.1 * e


@cuda.jit
def moments(x, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    s1 = s2 = s3 = s4 = 0.0
    for i in range(start, x.size, stride):
        v = x[i]
        s1 += v
        s2 += v * v
        s3 += v * v * v
        s4 += v * v * v * v
    out[start, 0] = s1
    out[start, 1] = s2
    out[start, 2] = s3
    out[start, 3] = s4


@cuda.jit
def moments32(x, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    s1 = s2 = s3 = s4 = float32(0)
    for i in range(start, x.size, stride):
        v = x[i]
        s1 += v
        s2 += v * v
        s3 += v * v * v
        s4 += v * v * v * v
    out[start, 0] = s1
    out[start, 1] = s2
    out[start, 2] = s3
    out[start, 3] = s4


@cuda.jit
def rotate_points(px, py, pz, angle, out):
    i = cuda.grid(1)
    if i < px.size:
        c, s = math.cos(angle), math.sin(angle)
        x, y, z = px[i], py[i], pz[i]
        x2 = c * x - s * y
        y2 = s * x + c * y
        z2 = c * z - s * y2
        out[i, 0] = x2
        out[i, 1] = y2
        out[i, 2] = z2


@cuda.jit
def nbody_step(pos, acc):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        xi, yi, zi = pos[i, 0], pos[i, 1], pos[i, 2]
        ax = ay = az = 0.0
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            dz = pos[j, 2] - zi
            inv = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + 1e-3)
            inv3 = inv * inv * inv
            ax += dx * inv3
            ay += dy * inv3
            az += dz * inv3
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@cuda.jit
def many_sums(x, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = 0.0
    for i in range(start, x.size, stride):
        v = x[i]
        a0 += v
        a1 += v * 1.1
        a2 += v * 1.2
        a3 += v * 1.3
        a4 += v * 1.4
        a5 += v * 1.5
        a6 += v * 1.6
        a7 += v * 1.7
        w = v * v
        b0 += w
        b1 += w * 2.1
        b2 += w * 2.2
        b3 += w * 2.3
        b4 += w * 2.4
        b5 += w * 2.5
        b6 += w * 2.6
        b7 += w * 2.7
    out[start] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7


@cuda.jit
def tiled_sum(x, out):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tile[0]


@cuda.jit
def local_sort8(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = cuda.local.array(8, float32)
        for k in range(8):
            v[k] = x[i, k]
        for a in range(8):
            for b in range(7 - a):
                if v[b] > v[b + 1]:
                    v[b], v[b + 1] = v[b + 1], v[b]
        for k in range(8):
            out[i, k] = v[k]


@cuda.jit
def local_histogram(x, out):
    i = cuda.grid(1)
    counts = cuda.local.array(64, int32)
    for k in range(64):
        counts[k] = 0
    if i < x.shape[0]:
        for k in range(x.shape[1]):
            counts[x[i, k] % 64] += 1
    for k in range(64):
        out[i, k] = counts[k]


@cuda.jit
def complex_mag(re, im, out, scale):
    i = cuda.grid(1)
    if i < re.size:
        z = complex(re[i], im[i])
        for _ in range(4):
            z = z * z * scale + 0.25
        out[i] = abs(z)


@cuda.jit
def interp_table(x, table, out):
    i = cuda.grid(1)
    if i < x.size:
        f = x[i] * (table.size - 1)
        k = int(f)
        k = min(max(k, 0), table.size - 2)
        t = f - k
        out[i] = table[k] * (1 - t) + table[k + 1] * t


@cuda.jit
def blur_2d(img, out):
    r, c = cuda.grid(2)
    if 1 <= r < img.shape[0] - 1 and 1 <= c < img.shape[1] - 1:
        s = float64(0)
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                s += img[r + dr, c + dc]
        out[r, c] = s / 9.0


n = 1 << 12
x32, x64 = np.random.rand(n).astype(np.float32), np.random.rand(n)
saxpy[16, 256](np.float32(2), x32, x32.copy())
horner8[16, 256](x64, np.ones(8), np.zeros(n))
stencil5[16, 256](x32, np.zeros_like(x32))
moments[16, 256](x64, np.zeros((4096, 4)))
moments32[16, 256](x32, np.zeros((4096, 4), np.float32))
rotate_points[16, 256](x32, x32, x32, np.float32(0.5), np.zeros((n, 3), np.float32))
nbody_step[4, 256](np.random.rand(1024, 3), np.zeros((1024, 3)))
many_sums[16, 256](x64, np.zeros(n))
tiled_sum[16, 256](x32, np.zeros(16, np.float32))
local_sort8[4, 128](np.random.rand(512, 8).astype(np.float32), np.zeros((512, 8), np.float32))
local_histogram[4, 128](np.random.randint(0, 99, (512, 16)).astype(np.int32), np.zeros((512, 64), np.int32))
complex_mag[16, 256](x64, x64, np.zeros(n), 0.5)
interp_table[16, 256](x32, np.linspace(0, 1, 17).astype(np.float32), np.zeros_like(x32))
blur_2d[(4, 4), (16, 16)](np.random.rand(64, 64), np.zeros((64, 64)))
