"""Whether the blocks of a launch share global memory: the check that lets the vector engine run
blocks in large groups instead of interleaved in time.

Interleaving batches by their clocks matters only when one block can see another's write: a load of
an element another block wrote, or two blocks writing one element. Blocks that never do that give the
same values, thread times and accesses whichever order they run in, so the engine runs them in large
groups (vector/independent.py) while this check watches every access to the arrays the kernel may
write. The first element touched by two blocks and written by one of them, or any atomic, stops the
grouped run: the arrays it wrote are restored and the launch runs interleaved.
"""

from __future__ import annotations

import numpy as np

from gpuviz.instrument.gpu_rewrite import read_only_params


class BlocksShareMemory(Exception):
    """Two blocks touched one element of global memory and one of them wrote it (or an atomic ran)."""


class BlockSharing:
    """Which block touched each element of the arrays the kernel may write, and which were written."""

    def __init__(self, watched: dict[int, np.ndarray]):
        self.watched = watched  # aid -> the array, for the arrays the kernel may write
        self.owner: dict[int, np.ndarray] = {}  # aid -> 1 + the first block to touch each element (0: none)
        self.shared: dict[int, np.ndarray] = {}  # aid -> read by a block other than the owner
        self.written: dict[int, np.ndarray] = {}  # aid -> written by its owner
        self.any_shared = False
        self.saved: dict[int, np.ndarray] = {}  # aid -> the array's contents before its first write

    def touch(self, t, aid: int | None, flat, lanes: np.ndarray | None, write: bool) -> None:
        """Lanes (`lanes`: the active ones, None for all) of the batch `t` access elements `flat`."""
        if aid is None:  # an array inside a tuple argument, say: it may be another argument's memory
            raise BlocksShareMemory("an array that is not one of the launch's arguments")
        data = self.watched.get(aid)
        if data is None:
            if write:
                raise BlocksShareMemory("a write to an array the kernel was not seen to write")
            return  # an array no thread writes: any number of blocks may read it
        mine = t.block_numbers if lanes is None else t.block_numbers[lanes]  # 1 + each lane's block
        flat = np.broadcast_to(flat, mine.shape)
        where = _span(flat)  # a slice when the elements are consecutive: views instead of gathers
        owner, shared, written = self._maps(aid, data)
        if not owner[where].any():
            owner[where] = mine
        else:
            fresh = owner[flat] == 0
            owner[flat[fresh]] = mine[fresh]
        others = owner[where] != mine  # touched by another block first, or by two blocks in this access
        if write:
            if aid not in self.saved:
                self.saved[aid] = data.copy()
            if others.any() or (self.any_shared and shared[where].any()):
                raise BlocksShareMemory("two blocks access an element and one of them writes it")
            written[where] = True
        elif others.any():
            elsewhere = flat[others]
            if written[elsewhere].any():
                raise BlocksShareMemory("a block reads an element another block writes")
            shared[elsewhere] = True
            self.any_shared = True

    def restore(self) -> None:
        """Undo the grouped run's writes, so the interleaved run starts from the launch's inputs."""
        for aid, copy in self.saved.items():
            np.copyto(self.watched[aid], copy)

    def _maps(self, aid: int, data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if aid not in self.owner:
            self.owner[aid] = np.zeros(data.size, np.int32 if data.size < 2**31 else np.int64)
            self.shared[aid] = np.zeros(data.size, bool)
            self.written[aid] = np.zeros(data.size, bool)
        return self.owner[aid], self.shared[aid], self.written[aid]


def _span(flat: np.ndarray) -> slice | np.ndarray:
    """`flat` as a slice when it is consecutive increasing elements (a thread per element), else itself."""
    n = len(flat)
    if n > 1 and flat[-1] - flat[0] == n - 1 and (flat[1:] > flat[:-1]).all():
        return slice(int(flat[0]), int(flat[-1]) + 1)
    return flat


def block_sharing(program, params: list[str], host_args: tuple, ids: dict[int, int]) -> BlockSharing | None:
    """The check for one launch; None when two arguments share memory (their elements alias, so
    elements cannot be told apart by array and index)."""
    arrays = [(name, value) for name, value in zip(params, host_args) if isinstance(value, np.ndarray)]
    for k, (_, a) in enumerate(arrays):
        for _, b in arrays[k + 1 :]:
            if a is not b and np.may_share_memory(a, b):
                return None
    ndims = tuple((name, value.ndim) for name, value in arrays)
    read_only = program.memo(("read_only", ndims), lambda: read_only_params(program.kernel.source.node, dict(ndims)))
    watched = {ids[id(value)]: value for name, value in arrays if name not in read_only}
    return BlockSharing(watched)
