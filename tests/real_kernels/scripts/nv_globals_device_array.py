"""numba-cuda documentation, global device arrays captured by pointer
(tests/doc_examples/test_globals.py, test_ex_globals_device_array_capture)."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

import numpy as np
from numba import cuda

# Global device array - captured by pointer
PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float32))


@cuda.jit
def compute_totals(quantities, totals):
    i = cuda.grid(1)
    if i < totals.size:
        totals[i] = quantities[i] * PRICES[i]


d_quantities = cuda.to_device(np.array([1.0, 1.0, 1.0, 1.0, 1.0], dtype=np.float32))
d_totals = cuda.device_array(5, dtype=np.float32)

compute_totals[1, 32](d_quantities, d_totals)
print(d_totals.copy_to_host())  # [10. 25.  5. 15. 30.]

# Modify the device array in-place
PRICES.copy_to_device(np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32))

# Kernel sees the updated values (pointer capture)
compute_totals[1, 32](d_quantities, d_totals)
print(d_totals.copy_to_host())  # [20. 50. 10. 30. 60.]

expected = np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32)
np.testing.assert_allclose(d_totals.copy_to_host(), expected)
