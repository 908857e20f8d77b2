"""The real-GPU backend (numba-cuda). Only this package may import numba.cuda or cupy."""
