"""Warp collectives (shuffles, votes, syncwarp) computed over the lanes that reached them together."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from gpuviz.backends.sim.collective_types import match_keys
from gpuviz.core.trace.columns import bump_epoch, epoch_field, set_epoch


def resolve_collectives(waiting: list) -> list[tuple[object, object]]:
    """The value each waiting lane gets back; lanes meet per (operation, source line). A `_sync` operation
    waits for every live lane its members' masks name: lanes of a divergent branch that wait at an earlier
    collective (an `activemask()` inside an `if`) go first and reach this one later, as on a GPU, where the
    branch runs before the warp reconverges. Where no group is complete, every group goes (the lanes would
    wait for ever: a mask that names lanes that never come)."""
    groups: dict[tuple[str, int], list] = defaultdict(list)
    for lane in waiting:
        groups[(lane.req[1], lane.req[3])].append(lane)
    complete = {key: lanes for key, lanes in groups.items() if _all_named_here(key[0], lanes)}
    results = []
    for (op, _), lanes in (complete or groups).items():
        results += OPERATIONS[op](lanes)
    return results


_UNMASKED = {"activemask"}


def _all_named_here(op: str, lanes: list) -> bool:
    if op in _UNMASKED:
        return True
    named = 0
    for lane in lanes:
        args = _args(lane)
        named |= int(args[0]) & 0xFFFFFFFF if args else 0xFFFFFFFF  # syncwarp(): the whole warp
    here = {lane.lane for lane in lanes}
    return all(o.lane in here or o.state == _DONE or not named >> o.lane & 1 for o in lanes[0].warp.lanes)


def _args(lane) -> tuple:
    return lane.req[2]


def _syncwarp(lanes):
    """Orders memory among the lanes that meet here: each gets the highest warp epoch among them, plus
    one. A syncwarp of part of the warp is noted on the block with the warp epochs of the live lanes
    it left out: the race analysis trusts the warp's epochs only if none of those lanes accessed
    memory at that epoch (core/analysis/races.py)."""
    top = max(epoch_field(lane.ep, "warp") for lane in lanes)
    for lane in lanes:
        lane.ep = bump_epoch(set_epoch(lane.ep, "warp", top), "warp")
    met = {id(lane) for lane in lanes}
    left_out = [lane for lane in lanes[0].warp.lanes if id(lane) not in met and lane.state != _DONE]
    if left_out:
        first = lanes[0]
        # [global id of the warp's first thread, block epoch, [[lane, warp epoch] of each lane left out]]
        outside = [[lane.lane, epoch_field(lane.ep, "warp")] for lane in left_out]
        first.block.partial_syncs.append([first.warp.lanes[0].gid, epoch_field(first.ep, "block"), outside])
    return [(lane, None) for lane in lanes]


_DONE = 3  # engine.DONE (the engine imports this module)


def _activemask(lanes):
    mask = np.uint32(sum(1 << lane.lane for lane in lanes))
    return [(lane, mask) for lane in lanes]


def _shuffle(source_of):
    def shuffle(lanes):
        values = {lane.lane: _args(lane)[1] for lane in lanes}
        results = []
        for lane in lanes:
            own = _args(lane)[1]
            src = source_of(lane.lane, int(_args(lane)[2]))
            # past the warp's ends: the caller's own value; a lane not there: 0 (vector/warp.py says why)
            results.append((lane, values.get(src, type(own)(0)) if 0 <= src < 32 else own))
        return results

    return shuffle


def _ballot(lanes):
    bits = sum(1 << lane.lane for lane in lanes if _args(lane)[1])
    return [(lane, as_int32(bits & int(_args(lane)[0]))) for lane in lanes]


def _members(lane, lanes) -> list:
    """The lanes here that the lane's own mask names (numba-cuda's vote.sync and match.sync take that mask)."""
    mask = int(_args(lane)[0])
    return [o for o in lanes if mask >> o.lane & 1]


def _vote(combine):
    def vote(lanes):
        return [(lane, bool(combine(bool(_args(o)[1]) for o in _members(lane, lanes)))) for lane in lanes]

    return vote


def _eq(lanes):
    """Whether every lane's predicate is true, or every lane's false (not whether the values are equal)."""
    return [(lane, len({bool(_args(o)[1]) for o in _members(lane, lanes)}) <= 1) for lane in lanes]


def _match_key(lane) -> int:
    return int(match_keys(_args(lane)[1]))


def _match_any(lanes):
    """Each lane gets the mask of the lanes (of its mask) holding the same value (its bits, as numba converts it)."""
    keys = {id(lane): _match_key(lane) for lane in lanes}
    return [(lane, as_int32(sum(1 << o.lane for o in lanes if keys[id(o)] == keys[id(lane)]) & int(_args(lane)[0])))
            for lane in lanes]  # fmt: skip


def _match_all(lanes):
    """(the lanes of its mask that are here, True) when every one holds the same value, else (0, False)."""
    results = []
    for lane in lanes:
        members = _members(lane, lanes)
        same = len({_match_key(o) for o in members}) <= 1
        results.append((lane, (as_int32(sum(1 << o.lane for o in members) if same else 0), same)))
    return results


def as_int32(bits: int) -> np.int32:
    """A lane mask as numba types ballot_sync and match_*_sync: int32 (lane 31 is the sign bit)."""
    return np.int64(bits & 0xFFFFFFFF).astype(np.int32)


OPERATIONS = {
    "syncwarp": _syncwarp,
    "activemask": _activemask,
    "shfl": _shuffle(lambda lane, src: src % 32),
    "shfl_up": _shuffle(lambda lane, delta: lane - (delta & 31)),  # the offset's low 5 bits, as shfl.sync takes
    "shfl_down": _shuffle(lambda lane, delta: lane + (delta & 31)),
    "shfl_xor": _shuffle(lambda lane, mask: lane ^ (mask & 31)),
    "ballot": _ballot,
    "all": _vote(all),
    "any": _vote(any),
    "eq": _eq,
    "match_any": _match_any,
    "match_all": _match_all,
}
