"""Analyses of traces: pure functions, arrays in and results out, no Qt and no GPU."""
