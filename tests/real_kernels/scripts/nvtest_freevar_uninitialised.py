"""numba-cuda's test suite, closure variables as a shared array's size and dtype
(numba_cuda/numba/cuda/tests/cudapy/test_freevar.py). The kernel reads shared memory nobody wrote:
the GPU reads whatever is there; gpuviz lists an uninitialised shared read."""

GPUVIZ_EXPECT = {"races": [], "errors": ["foo@0"]}

import numpy as np
from numba import cuda


def test_freevar():
    """Make sure we can compile the following kernel with freevar reference
    in arguments to shared.array
    """
    from numba.cuda import float32

    size = 1024
    nbtype = float32

    @cuda.jit("(float32[::1], intp)")
    def foo(A, i):
        "Dummy function"
        sdata = cuda.shared.array(
            size,  # size is freevar
            dtype=nbtype,
        )  # nbtype is freevar
        A[i] = sdata[i]

    A = np.arange(2, dtype="float32")
    foo[1, 1](A, 0)


test_freevar()
