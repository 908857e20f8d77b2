"""Small scripts, one per cause a run can fail on (tests of --json, --error-exitcode and the pytest plugin)."""

SCRIPTS = {
    "clean": """
import numpy as np
from numba import cuda

@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

a = np.arange(64, dtype=np.float32)
out = np.zeros_like(a)
add[2, 32](a, a, out)
""",
    "races": """
import numpy as np
from numba import cuda

@cuda.jit
def count(total):
    total[0] += 1

total = np.zeros(1, np.int64)
count[2, 32](total)
""",
    "memory": """
import numpy as np
from numba import cuda

@cuda.jit
def add(a, out):
    i = cuda.grid(1)
    out[i] = a[i] * 2

a = np.arange(40, dtype=np.float32)
out = np.zeros_like(a)
add[2, 32](a, out)
""",
    "barrier": """
import numpy as np
from numba import cuda

@cuda.jit
def half_barrier(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    out[t] = t

out = np.zeros(64, np.int64)
half_barrier[1, 64](out)
""",
    "warp-sync": """
import numpy as np
from numba import cuda

@cuda.jit
def half_syncwarp(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncwarp()
    out[t] = t

out = np.zeros(32, np.int64)
half_syncwarp[1, 32](out)
""",
}
