"""The CPU simulator: runs instrumented kernels thread by thread, with GPU-like scheduling."""
