"""The version of gpuviz (also in pyproject.toml); the GPU backend keys its compile cache on it."""

__version__ = "0.1.0"
