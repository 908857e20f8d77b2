"""What crosses between host and device with a launch: numba copies every host (NumPy) array argument to
the device before the launch and back after it, since it cannot know which ones the kernel writes; a
device array (`cuda.to_device`, a CuPy array, a mapped or managed array) is passed as it is."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def is_host_array(value: object) -> bool:
    """A NumPy array in host memory: not a device array, nor the simulator's stand-in for one."""
    return (
        isinstance(value, np.ndarray)
        and not getattr(value, "_gpuviz_device_array", False)
        and not hasattr(value, "__cuda_array_interface__")
    )


def implicit_copies(names: Sequence[str], values: Sequence[object]) -> list[dict]:
    """The arguments a launch copies in and back: [{"array": name, "bytes": size of one copy}]."""
    return [{"array": name, "bytes": int(value.nbytes)} for name, value in zip(names, values) if is_host_array(value)]


def copies(meta: dict) -> int | None:
    """Copies between host and device the launch made (each host array in, and back); None where the trace
    does not say (a trace written before it was recorded)."""
    copied = meta.get("host_copies")
    return None if copied is None else 2 * len(copied)


def copied_bytes(meta: dict) -> int | None:
    """Bytes that crossed with the launch, both ways."""
    copied = meta.get("host_copies")
    return None if copied is None else 2 * sum(int(entry["bytes"]) for entry in copied)


def copies_words(meta: dict) -> str:
    """The copies in a line: "6: a, b, c in and back, 24,000 bytes" or "none: every array on the device"."""
    copied = meta.get("host_copies")
    if copied is None:
        return "not recorded"
    if not copied:
        return "none: every array was on the device"
    names = ", ".join(entry["array"] for entry in copied)
    return f"{copies(meta):,}: {names} in and back, {copied_bytes(meta):,} bytes"
