"""numba-cuda documentation, global values captured as constants at compile time
(tests/doc_examples/test_globals.py, test_ex_globals_constant_capture)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda

TAX_RATE = 0.08
PRICES = np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float64)


@cuda.jit
def compute_totals(quantities, totals):
    i = cuda.grid(1)
    if i < totals.size:
        totals[i] = quantities[i] * PRICES[i] * (1 + TAX_RATE)


d_quantities = cuda.to_device(np.array([1, 2, 3, 4, 5], dtype=np.float64))
d_totals = cuda.device_array(5, dtype=np.float64)

# First kernel call - compiles and captures values
compute_totals[1, 32](d_quantities, d_totals)
print("Value of d_totals:", d_totals.copy_to_host())

# These modifications have no effect on subsequent kernel calls
TAX_RATE = 0.10  # noqa: F841
PRICES[:] = [20.0, 50.0, 10.0, 30.0, 60.0]

# Second kernel call still uses the original values
compute_totals[1, 32](d_quantities, d_totals)
print("Value of d_totals:", d_totals.copy_to_host())

expected = np.array([10.8, 54.0, 16.2, 64.8, 162.0])
np.testing.assert_allclose(d_totals.copy_to_host(), expected)
