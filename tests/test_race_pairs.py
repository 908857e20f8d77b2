"""The race search's pair counts against a brute-force count of pairs over random small logs, through the
compiled passes by table and by hash (race_groups.py) and the count (race_count.py)."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("hypothesis", reason="property tests need Hypothesis (the test extras)")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuviz.core.analysis.race_count import Layout, racy_locations
from gpuviz.core.trace.columns import ATOMIC, READ, WRITE
from gpuviz.core.trace.model import Trace

from .test_race_groups import BLOCK, GLOBAL, SHARED, WARP, epoch, log_trace


def brute_force(events: list[tuple], arrays: list[dict]) -> dict[tuple, tuple[int, int]]:
    """{(array, index, grid epoch, block of a shared copy or -1): (racing pairs, pairs of two plain writes)},
    pair by pair, from the rules in races.py."""
    per_block = BLOCK[0]
    found: dict[tuple, list[int]] = {}
    for (t1, a1, i1, k1, e1), (t2, a2, i2, k2, e2) in itertools.combinations(events, 2):
        shared = arrays[a1]["space"] == "shared"
        b1, b2 = t1 // per_block, t2 // per_block
        if (a1, i1, e1 >> 16 & 255) != (a2, i2, e2 >> 16 & 255) or t1 == t2 or (shared and b1 != b2):
            continue
        if (k1 == READ and k2 == READ) or (k1 == ATOMIC and k2 == ATOMIC):
            continue
        same_warp = b1 == b2 and t1 % per_block // WARP == t2 % per_block // WARP
        synced = same_warp and (e1 >> 24 & 63) != (e2 >> 24 & 63)
        if b1 == b2 and ((e1 & 65535) != (e2 & 65535) or synced):
            continue
        counts = found.setdefault((a1, i1, e1 >> 16 & 255, b1 if shared else -1), [0, 0])
        counts[0] += 1
        counts[1] += k1 == WRITE and k2 == WRITE
    return {key: tuple(value) for key, value in found.items()}


def counted(trace: Trace) -> dict[tuple, tuple[int, int]]:
    layout = Layout(trace)
    found = racy_locations(layout)
    element = found.element
    grid = element & ((1 << layout.grid_bits) - 1)
    index = (element >> layout.grid_bits) & ((1 << layout.index_bits) - 1)
    array = element >> layout.array_shift
    return {(int(a), int(i), int(g), int(c)): (int(p), int(w)) for a, i, g, c, p, w in
            zip(array, index, grid, found.copy, found.pairs, found.write_pairs)}  # fmt: skip


EVENT = st.tuples(st.integers(0, 15), st.integers(0, 2), st.integers(0, 3), st.sampled_from([READ, WRITE, ATOMIC]),
                  st.builds(epoch, st.integers(0, 2), st.integers(0, 1), st.integers(0, 1)))  # fmt: skip
ARRAYS = [GLOBAL, SHARED, {**SHARED, "name": "t"}]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EVENT, max_size=40), st.sampled_from([1, 1 << 36]))
def test_pair_counts_equal_a_brute_force_count(events, stride):
    """By table, and by hash where a stride spreads the indices too wide for a table."""
    expected = brute_force(events, ARRAYS)
    spread = [(t, a, i * stride, k, e) for t, a, i, k, e in events]
    got = counted(log_trace(spread, ARRAYS))
    assert got == {(a, i * stride, g, c): value for (a, i, g, c), value in expected.items()}
