"""The lanes a vectorised kernel runs for: indices, the active mask, and masked control flow.

The rewritten kernel (instrument/vector_rewrite.py) calls these methods on `_t`:
- `push`/`flip`/`pop` for `if`/`else`, `loop_range`/`loop_while` for loops, `brk`/`cont`/`ret`;
- `merge` for assignments to local names: lanes outside the mask keep their value;
- `land`/`lor`/`select` for `and`, `or` and `x if c else y`, evaluating the right side only for
  the lanes that need it (so a guarded load never reads out of bounds).
Lanes switched off by return/break/continue are in `off` until their frame, loop or iteration ends.
"""

from __future__ import annotations

import numpy as np

from gpuviz.backends.sim.arithmetic import KernelMisuse, numba_type
from gpuviz.instrument.vector_rewrite import ReferenceEngineNeeded, VectorUnsupported

LOCKSTEP_LIMIT = 10_000  # iterations of one while loop before the vector engine gives the launch up


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


UNSET = _Unset()  # a local variable not assigned yet


def _note_type(types: dict[str, np.dtype], name: str, value: object) -> None:
    """Keep the type a local holds: a lane array's own, a Python scalar's as numba types it (0.0 is a
    float64); where a local holds two types, the one numba unifies them to (the wider)."""
    if isinstance(value, (np.ndarray, np.generic)):
        dtype = value.dtype
    elif isinstance(value, (bool, int, float, complex)):
        dtype = numba_type(value)
    else:
        return  # a tuple or a record: no one number type
    if dtype.kind not in "biufc":
        return
    seen = types.get(name)
    types[name] = dtype if seen is None or seen == dtype else np.promote_types(seen, dtype)


def truth(value: object, n: int) -> np.ndarray:
    """A lane-wise condition as a bool array of n lanes."""
    if isinstance(value, np.ndarray):
        return value.astype(bool, copy=False) if value.shape == (n,) else np.broadcast_to(value.astype(bool), (n,))
    return np.full(n, bool(value))


FAILED_ASSERT = "the reference engine stops at the first thread that fails it"


class FailedAssert(ReferenceEngineNeeded):
    """An active lane failed an assert: the reference engine reruns the launch and names the thread."""


class Lanes:
    """A batch of lanes (threads of whole blocks) executing in lockstep."""

    def __init__(self, n: int, clock=None):
        self.n = n
        self.mask = np.ones(n, bool)
        self.off = np.zeros(n, bool)
        self.exited = np.zeros(n, bool)
        self.active = True
        self.full = True
        self.loops: list[_Loop] = []
        self.depth = 0  # calls in progress: the kernel's frame is the outermost
        self.clock = clock  # the cost model's clock, charged per issued instruction (vector/cost.py)
        self.checked_index = None  # the last index array checked for all lanes (vector/memory.py)
        self.stopped = None  # lanes stopped by a memory error (bool per lane), once there is one
        self.local_types: dict[str, np.dtype] | None = None  # the launch's: each local's type, as numba types it

    def __getattr__(self, name: str) -> object:
        """Thread and block indices, computed the first time the kernel asks for them."""
        index = _INDICES.get(name)
        if index is None:
            raise AttributeError(name)
        value = index(self)
        setattr(self, name, value)
        return value

    def set_mask(self, mask: np.ndarray) -> None:
        if self.stopped is not None:
            mask = mask & ~self.stopped  # a stopped lane never runs again, whatever frame or loop ends
        self.mask = mask
        count = int(np.count_nonzero(mask))
        self.active = count > 0
        self.full = count == self.n

    def lanes(self) -> np.ndarray:
        """Positions of the active lanes."""
        return np.flatnonzero(self.mask)

    # ---- if / else ---------------------------------------------------------------------------
    def push(self, condition: object) -> tuple[np.ndarray, np.ndarray]:
        saved, cond = self.mask, truth(condition, self.n)
        self.charge("branch")
        self.set_mask(saved & cond)
        return saved, cond

    def flip(self, state: tuple[np.ndarray, np.ndarray]) -> None:
        saved, cond = state
        self.set_mask(saved & ~cond & ~self.off)

    def pop(self, state: tuple[np.ndarray, np.ndarray]) -> None:
        self.set_mask(state[0] & ~self.off)

    # ---- values ------------------------------------------------------------------------------
    def merge(self, old: object, new: object, name: str | None = None) -> object:
        self.charge("alu")
        value = self._blend(old, new)
        if name is not None and self.local_types is not None:
            _note_type(self.local_types, name, value)
        return value

    def _blend(self, old: object, new: object) -> object:
        """The active lanes take `new`, the others keep `old` (no instruction charged)."""
        if self.full or old is UNSET:
            return new
        if not self.active:
            return old
        if isinstance(new, tuple):
            return tuple(self._blend(o, v) for o, v in zip(old, new)) if isinstance(old, tuple) else new
        return np.where(self.mask, new, old)

    def assert_all(self, condition: object) -> None:
        if self.active and not truth(condition, self.n)[self.mask].all():
            raise FailedAssert(f"an assert failed in a thread ({FAILED_ASSERT})")

    def land(self, left: object, right) -> object:
        return self._short_circuit(left, right, True)

    def lor(self, left: object, right) -> object:
        return self._short_circuit(left, right, False)

    def _short_circuit(self, left: object, right, is_and: bool) -> object:
        if not isinstance(left, np.ndarray):
            return right() if bool(left) == is_and else left
        first = truth(left, self.n)
        go_on = first if is_and else ~first
        saved = self.mask
        self.set_mask(saved & go_on)
        second = truth(right(), self.n) if self.active else np.zeros(self.n, bool)
        self.set_mask(saved)
        return (first & second) if is_and else (first | second)

    def select(self, condition: object, body, orelse) -> object:
        if not isinstance(condition, np.ndarray):
            return body() if condition else orelse()
        cond = truth(condition, self.n)
        saved = self.mask
        self.set_mask(saved & cond)
        yes = body() if self.active else 0
        self.set_mask(saved & ~cond)
        no = orelse() if self.active else 0
        self.set_mask(saved)
        return np.where(cond, yes, no)

    # ---- loops, returns ----------------------------------------------------------------------
    def loop_range(self, *args) -> _RangeLoop:
        return _RangeLoop(self, *args)

    def loop_while(self) -> _WhileLoop:
        return _WhileLoop(self)

    def brk(self) -> None:
        loop = self.loops[-1]
        loop.inside &= ~self.mask
        loop.broken |= self.mask
        self._switch_off()

    def cont(self) -> None:
        self.loops[-1].continued |= self.mask
        self._switch_off()

    def _switch_off(self) -> None:
        self.off = self.off | self.mask
        self.set_mask(np.zeros(self.n, bool))

    def stop(self, positions: np.ndarray) -> None:
        """These lanes hit a memory error: they end now and never run again (the others go on)."""
        mask = np.zeros(self.n, bool)
        mask[positions] = True
        self.stopped = mask if self.stopped is None else self.stopped | mask
        self.exited |= mask
        if self.clock is not None:
            self.clock.lanes_exit(mask)
        self.set_mask(self.mask)

    def enter(self) -> _Frame:
        frame = _Frame(self.mask)
        frame.outermost = self.depth == 0
        self.depth += 1
        return frame

    def ret(self, frame: _Frame, value: object) -> None:
        if not self.active:
            return
        frame.returned |= self.mask
        # no charge: whether lanes returned before must not change a lane's time
        frame.value = value if frame.value is UNSET else self._blend(frame.value, value)
        if frame.outermost:
            self.exited |= self.mask
            if self.clock is not None:
                self.clock.lanes_exit(self.mask)
        self._switch_off()

    def leave(self, frame: _Frame) -> object:
        self.depth -= 1
        self.off &= ~frame.returned
        self.set_mask(frame.saved & ~self.off)
        # no lane returned a value (all left or stopped on the way): 0 keeps the caller's arithmetic going
        # for lanes that are not active anyway, as a void call's value is never used
        return 0 if frame.value is UNSET else frame.value

    def barrier_clock(self) -> None:
        """The cost model's clocks at a block barrier: each block's arriving warps wait for its latest."""
        if self.clock is not None and self.active:
            self.clock.barrier(self.mask)

    def charge(self, what: str, key: np.ndarray | None = None) -> None:
        """The cost model's clock advances for the warps with active lanes (`key`: atomic addresses)."""
        if self.clock is not None and self.active:
            self.clock.issue(what, self.mask, key, self.full)


def _coordinate(linear: np.ndarray, dims: tuple[int, int, int], axis: int) -> np.ndarray:
    """One axis of (x, y, z) coordinates of linear numbers in a box of `dims` (x fastest)."""
    below = (1, dims[0], dims[0] * dims[1])[axis]
    if below == 1 and dims[0] * dims[1] * dims[2] == dims[0]:
        return linear  # a 1D box: x is the number itself
    shifted = linear // below if below > 1 else linear
    return shifted % dims[axis] if axis < 2 else shifted


def _block(t: Lanes, axis: int) -> np.ndarray:
    return np.repeat(_coordinate(t.blocks, t.config.grid, axis), t.per_block)


def _thread(t: Lanes, axis: int) -> np.ndarray:
    return _coordinate(t.local, t.config.block, axis)


_INDICES = {
    "tx": lambda t: _thread(t, 0), "ty": lambda t: _thread(t, 1), "tz": lambda t: _thread(t, 2),
    "bx": lambda t: _block(t, 0), "by": lambda t: _block(t, 1), "bz": lambda t: _block(t, 2),
    "gid": lambda t: np.repeat(t.blocks * t.per_block, t.per_block) + t.local,
    "block_numbers": lambda t: (t.blk + (t.first_block + 1)).astype(np.int32),  # 1 + its block (vector/sharing.py)
}  # fmt: skip


class _Frame:
    """One call of the kernel or of a device function: which lanes returned, and with what."""

    __slots__ = ("saved", "returned", "value", "outermost")

    def __init__(self, saved: np.ndarray):
        self.saved = saved
        self.returned = np.zeros(len(saved), bool)
        self.value = UNSET
        self.outermost = False


class _Loop:
    def __init__(self, lanes: Lanes):
        self.t = lanes
        self.saved = lanes.mask
        self.inside = lanes.mask.copy()
        self.broken = np.zeros(lanes.n, bool)
        self.continued = np.zeros(lanes.n, bool)
        lanes.loops.append(self)

    def enter(self) -> bool:
        """A new iteration: lanes that continued come back."""
        t = self.t
        if self.continued.any():
            t.off &= ~self.continued
            self.continued[:] = False
        t.set_mask(self.inside & ~t.off)
        return True

    def test(self, condition: object) -> bool:
        t = self.t
        t.charge("branch")
        self.inside = t.mask & truth(condition, t.n)
        t.set_mask(self.inside)
        return t.active

    def done(self) -> None:
        t = self.t
        t.loops.pop()
        t.off &= ~self.broken
        t.set_mask(self.saved & ~t.off)


class _WhileLoop(_Loop):
    """A while loop; one that runs very long in lockstep is most likely lanes waiting for each other
    (a spin lock across blocks), which only independent thread scheduling resolves."""

    def __init__(self, lanes: Lanes):
        super().__init__(lanes)
        self.iterations = 0

    def test(self, condition: object) -> bool:
        self.iterations += 1
        if self.iterations > LOCKSTEP_LIMIT:
            raise VectorUnsupported(f"a while loop still running after {LOCKSTEP_LIMIT:,} iterations in lockstep "
                                    "(threads waiting for each other need one generator per thread)")  # fmt: skip
        return super().test(condition)


class _RangeLoop(_Loop):
    """for v in range(...): per-lane counters (a plain number when every lane has the same)."""

    def __init__(self, lanes: Lanes, *args):
        super().__init__(lanes)
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if not isinstance(step, np.ndarray) and step == 0:
            raise KernelMisuse("range() arg 3 must not be zero")
        self.value, self.stop, self.step = _int(start), _int(stop), _int(step)
        self.first = True

    def next(self) -> bool:
        self.enter()
        if not self.first:
            self.value = (
                self.t.merge(self.value, self.value + self.step)
                if isinstance(self.value, np.ndarray)
                else self.value + self.step
            )
        self.first = False
        up = self.step > 0
        more = (
            np.where(up, self.value < self.stop, self.value > self.stop)
            if isinstance(up, np.ndarray)
            else (self.value < self.stop if up else self.value > self.stop)
        )
        return self.test(more)


def _int(value: object) -> object:
    if isinstance(value, np.ndarray):
        return value.astype(np.int64, copy=False)
    return int(value)
