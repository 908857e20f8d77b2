"""Instrumentation: one rewrite of a kernel's Python source that every backend runs."""
