"""numba-cuda's test suite, print() inside a kernel (tests/cudapy/test_print.py: cuhello_usecase).
Harness: the printed lines are checked from the trace, where each belongs to its thread."""

GPUVIZ_EXPECT = {"races": [], "errors": []}

from numba import cuda


@cuda.jit
def cuhello():
    i = cuda.grid(1)
    print(i, 999)
    print(-42)


cuhello[2, 3]()
cuda.synchronize()
