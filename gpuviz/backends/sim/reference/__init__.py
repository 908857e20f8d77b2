"""The reference engine: every thread a Python generator, interleaved by a scheduler (exact, slow)."""
