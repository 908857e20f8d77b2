"""The vector engine: kernels rewritten lane-wise, whole blocks in NumPy lockstep, with a cost model."""
