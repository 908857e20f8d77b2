"""Launch configurations: normalise numba's [grid, block] forms and validate them against a device."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuviz.core.errors import GpuvizError, LaunchError

Dim3 = tuple[int, int, int]

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIMS: Dim3 = (1024, 1024, 64)
MAX_GRID_DIMS: Dim3 = (2**31 - 1, 65535, 65535)
WARP_SIZE = 32


def as_dim3(value: object, what: str) -> Dim3:
    """Turn an int or a 1-3 tuple (as numba accepts) into (x, y, z); say what is wrong otherwise."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(items) <= 3:
        raise LaunchError(f"{what} has {len(items)} dimensions; use an int or a tuple of 1 to 3 ints")
    dims = []
    for item in items:
        if isinstance(item, bool) or not _is_integer(item):
            hint = " (`/` gives a float: use `//`, e.g. `(n + 255) // 256` blocks)" * isinstance(item, float)
            raise LaunchError(f"{what} {_show(items)}: every dimension must be a whole number, not {item!r}{hint}")
        dims.append(int(item))
    if any(d < 1 for d in dims):
        raise LaunchError(f"{what} {_show(items)} must be positive; every dimension is at least 1")
    return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]


def _is_integer(item: object) -> bool:
    return hasattr(item, "__index__")


def _show(items: tuple) -> str:
    return str(items[0]) if len(items) == 1 else "(" + ", ".join(str(i) for i in items) + ")"


@dataclass(frozen=True)
class LaunchConfig:
    """A validated grid and block, each (x, y, z), and the dynamic shared memory per block in bytes."""

    grid: Dim3
    block: Dim3
    shared_bytes: int = 0  # kernel[grid, block, stream, shared_bytes]: cuda.shared.array(0, dtype) gets it

    @classmethod
    def of(cls, grid: object, block: object, shared_bytes: object = 0) -> LaunchConfig:
        if isinstance(shared_bytes, bool) or not _is_integer(shared_bytes) or int(shared_bytes) < 0:
            raise LaunchError(f"dynamic shared memory {shared_bytes!r} must be a whole number of bytes, 0 or more")
        config = cls(as_dim3(grid, "grid"), as_dim3(block, "block"), int(shared_bytes))
        config.validate()
        return config

    def validate(self, max_threads_per_block: int = MAX_THREADS_PER_BLOCK) -> None:
        per_block = self.threads_per_block
        if per_block > max_threads_per_block:
            raise LaunchError(
                f"block has {per_block} threads; at most {max_threads_per_block} threads per block are allowed"
            )
        for axis, size, limit in zip("xyz", self.block, MAX_BLOCK_DIMS):
            if size > limit:
                raise LaunchError(f"block.{axis} is {size}; block dims are at most {MAX_BLOCK_DIMS}")
        for axis, size, limit in zip("xyz", self.grid, MAX_GRID_DIMS):
            if size > limit:
                raise LaunchError(f"grid.{axis} is {size}; grid dims are at most {MAX_GRID_DIMS}")

    @property
    def threads_per_block(self) -> int:
        return math.prod(self.block)

    @property
    def blocks(self) -> int:
        return math.prod(self.grid)

    @property
    def flat(self) -> bool:
        """Grid and block along x alone."""
        return self.grid[1:] == (1, 1) and self.block[1:] == (1, 1)

    @property
    def threads(self) -> int:
        return self.blocks * self.threads_per_block

    @property
    def warps_per_block(self) -> int:
        return -(-self.threads_per_block // WARP_SIZE)

    def describe(self) -> str:
        return f"grid={format_dims(self.grid)} block={format_dims(self.block)}"


def format_dims(values) -> str:
    """(x,y,z) as the messages and reports write it: '(2,0,0)'."""
    return "(" + ",".join(str(int(v)) for v in values) + ")"


def blocks_to_cover(n: int, block: int) -> int:
    """The grid size that gives at least one thread per element: ceil(n / block)."""
    if n < 1 or block < 1:
        raise LaunchError(f"cannot cover {n} elements with blocks of {block}; both must be positive")
    return -(-n // block)


def check_argument_count(kernel: str, params: list[str], args: tuple) -> None:
    """A launch gives a kernel exactly its parameters, as numba requires."""
    if len(args) != len(params):
        raise GpuvizError(f"{kernel} takes {len(params)} argument(s) ({', '.join(params)}), {len(args)} given")


def check_cooperative_fits(name: str, config: LaunchConfig, fits: int) -> None:
    """A grid-wide barrier needs every block resident at once, as a cooperative launch does: refused, in
    the driver's words and with the numbers, when more blocks than `fits` are launched (both backends)."""
    if config.blocks > fits:
        raise LaunchError(
            f"{name}: [720] Call to cuLaunchCooperativeKernel results in CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE "
            f"({config.blocks:,} blocks, but only {fits:,} of {config.threads_per_block} threads can be "
            f"co-resident; see {name}.max_cooperative_grid_blocks)"
        )
