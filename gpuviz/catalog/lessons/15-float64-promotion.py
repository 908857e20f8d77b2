"""A polynomial evaluated at every point by Horner's rule, written twice: the running value starts as 0.0,
then as float32(0). The points and the coefficients are float32."""

import numpy as np
from numba import cuda, float32


@cuda.jit
def horner_start_literal(x, coeffs, out):
    i = cuda.grid(1)
    if i < x.size:
        xi = x[i]
        acc = 0.0
        for k in range(coeffs.size):
            acc = acc * xi + coeffs[k]
        out[i] = acc


@cuda.jit
def horner_start_float32(x, coeffs, out):
    i = cuda.grid(1)
    if i < x.size:
        xi = x[i]
        acc = float32(0)
        for k in range(coeffs.size):
            acc = acc * xi + coeffs[k]
        out[i] = acc


x = np.linspace(-1, 1, 512, dtype=np.float32)
coeffs = np.random.default_rng(5).uniform(-1, 1, 16).astype(np.float32)
expected = np.polyval(coeffs.astype(np.float64), x.astype(np.float64))
first = np.zeros_like(x)
horner_start_literal[2, 256](x, coeffs, first)
second = np.zeros_like(x)
horner_start_float32[2, 256](x, coeffs, second)
np.testing.assert_allclose(first, expected, rtol=1e-4, atol=1e-5)
np.testing.assert_allclose(second, expected, rtol=1e-4, atol=1e-5)
print("largest difference between the two:", np.abs(first - second).max())
