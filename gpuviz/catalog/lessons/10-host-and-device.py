"""Host and device memory: explicit copies with cuda.to_device and copy_to_host, then NumPy arrays
passed straight to the kernel."""

import numpy as np
from numba import cuda


@cuda.jit
def double(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 2.0 * a[i]


a = np.arange(1000, dtype=np.float32)
d_a = cuda.to_device(a)  # host -> device, now
d_out = cuda.device_array_like(a)  # device memory, never copied from the host
double[4, 256](d_a, d_out)  # on a GPU this returns before the kernel has finished
cuda.synchronize()  # wait for it (copy_to_host would wait too)
out = d_out.copy_to_host()  # device -> host
host_out = np.zeros_like(a)
double[4, 256](a, host_out)  # NumPy arrays, passed as they are
assert (out == 2 * a).all() and (host_out == 2 * a).all()
print("both launches doubled", a.size, "values")
