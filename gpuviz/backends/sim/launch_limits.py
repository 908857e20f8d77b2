"""What a GPU refuses at launch time that the simulator could otherwise run (dynamic shared memory over a
block's limit), options that name blocks the launch does not have, and read-only NumPy inputs (run on a
copy; refused in one line only when the kernel writes to one)."""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.device import VirtualDevice
from gpuviz.core.errors import GpuvizError, LaunchError
from gpuviz.core.launch import LaunchConfig
from gpuviz.core.options import RunOptions


def check_launch(name: str, config: LaunchConfig, static_shared: int, device: VirtualDevice,
                 options: RunOptions) -> None:  # fmt: skip
    shared = static_shared + config.shared_bytes
    if config.shared_bytes and shared > device.shared_per_block:
        raise LaunchError(
            f"{name}: {config.shared_bytes:,} bytes of dynamic shared memory (+ {static_shared:,} static) is over "
            f"the {device.shared_per_block:,} bytes a block may use; a GPU refuses this launch "
            f"(CUDA_ERROR_INVALID_VALUE)"
        )
    outside = [b for b in options.blocks if not -config.blocks <= b < config.blocks]
    if outside:
        raise LaunchError(
            f"--blocks {outside[0]}: {name} has {config.blocks:,} block(s): give 0 to {config.blocks - 1:,}, "
            f"or -1 to -{config.blocks:,} from the end"
        )


def writable(params: tuple[str, ...], args: tuple) -> tuple[tuple, list[tuple[str, np.ndarray, np.ndarray]]]:
    """The arguments with each read-only array replaced by a writable copy, and those (name, original, copy)."""
    copies, read_only = [], []
    for name, value in zip(params, args):
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            copy = value.copy()
            read_only.append((name, value, copy))
            value = copy
        copies.append(value)
    return tuple(copies), read_only


def check_read_only(kernel: str, read_only: list[tuple[str, np.ndarray, np.ndarray]]) -> None:
    """A kernel that wrote to a read-only input: its result cannot go back, so the launch is refused."""
    for name, original, copy in read_only:
        if not np.array_equal(original, copy, equal_nan=original.dtype.kind in "fc"):
            raise GpuvizError(
                f"{kernel}: argument {name!r} is a read-only array, and the kernel writes to it; "
                f"pass a writable one (e.g. {name}.copy())"
            )
