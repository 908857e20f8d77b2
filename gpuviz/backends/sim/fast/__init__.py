"""The simulator's compiled fast path: kernels translated for numba's CPU target (see engine.py)."""
