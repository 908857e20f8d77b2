"""The Indigo race suite: its vendored kernels and inputs, the translator into numba, and the scoring."""
