"""The fast path's log becomes the vector engine's row order by counting (fast/log_rows.py): the counting
and the sorts it gives way to agree with NumPy's lexsort on a hand-built log."""

import numpy as np
import pytest

from gpuviz.backends.sim.fast import log_rows as log_rows_module
from gpuviz.backends.sim.fast.log_rows import log_rows

TPB, BLOCKS, SLOTS = 32, 3, 5
SITES = np.array([[10, 0, 0, 0], [11, 1, 1, 1], [12, 0, 1, -1]], np.int64)  # line, kind, array slot, point


def hand_built_log(seed: int) -> list:
    rng = np.random.default_rng(seed)
    n = TPB * BLOCKS
    count = rng.integers(0, SLOTS + 1, n).astype(np.int64)
    sizes = np.maximum(count, rng.integers(0, SLOTS + 1, n))  # a thread's slots: its accesses, a few to spare
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    size = int(offsets[-1])
    phases = np.zeros(size, np.int32)
    for s in range(n):  # a thread's phases never go back
        phases[offsets[s] : offsets[s + 1]] = np.sort(rng.integers(1, 4, sizes[s]))
    return [rng.integers(0, 50, size).astype(np.int64), rng.random(size), rng.integers(0, 40, size).astype(np.int64),
            rng.integers(0, len(SITES), size).astype(np.int16), rng.integers(0, 3, size).astype(np.int32), phases,
            count, offsets, n]  # fmt: skip


def lexsorted(log: list, kept, per_group: int, starts) -> dict:
    """The same order by NumPy: (group, phase, step, thread), then stably by time when groups > 1."""
    index, values, times, sites, epochs, phases, count, offsets, n = log
    rows, steps, threads = [], [], []
    for s in range(n):
        last, rank = -1, 0
        for k in range(count[s]):
            j = offsets[s] + k
            rank = rank + 1 if phases[j] == last else 0
            last = phases[j]
            rows.append(j)
            threads.append(s)
            steps.append(SITES[sites[j], 3] if SITES[sites[j], 3] >= 0 else rank)
    rows, steps, thread = np.array(rows), np.array(steps), np.array(threads)
    block = kept[thread // TPB]
    group = block // per_group
    order = np.lexsort((thread, steps, phases[rows], group))
    rows, block, thread = rows[order], block[order], thread[order]
    time = times[rows] + starts[block]
    if group.max() > 0:
        by_time = np.argsort(time, kind="stable")
        rows, block, thread, time = rows[by_time], block[by_time], thread[by_time], time[by_time]
    return {"time": time, "index": index[rows], "value": values[rows], "epoch": epochs[rows],
            "thread": block * TPB + thread % TPB, "line": SITES[sites[rows], 0]}  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("per_group", [1, 6])  # groups ran one after the other, or one group of them all
@pytest.mark.parametrize("spare", [1 << 20, -(1 << 40)])  # counting, or the sorts it gives way to
@pytest.mark.parametrize("lanes", [1, 2, 3])  # the passes on threads: parts of one group or of several
def test_the_log_comes_out_in_the_vector_engines_order(seed, per_group, spare, lanes, monkeypatch):
    monkeypatch.setattr(log_rows_module, "PARALLEL_ROWS", 0)  # parts however small the log
    kept = np.array([0, 2, 5], np.int64)  # the blocks logged
    starts = np.array([0, 7, 3, 9, 1, 4], np.int64)
    expected = lexsorted(hand_built_log(seed), kept, per_group, starts)
    out = log_rows(hand_built_log(seed), SITES, kept, TPB, per_group, starts, np.array([4, 6], np.int64), spare,
                   lanes, uneven_ok=True)  # fmt: skip
    for name, column in expected.items():
        np.testing.assert_array_equal(out[name], column, err_msg=name)
    assert out["array"].dtype == np.int16 and set(out["array"]) <= {4, 6}


@pytest.mark.parametrize("lanes", [1, 3])
def test_threads_of_a_group_whose_loops_part_are_named(lanes, monkeypatch):
    """In a phase with loops (site 2, point -1) every thread of a group made the same sites in the same order:
    the rows stand. One thread of block 5 making one access fewer there is named (in a part of its own or
    not); a whole block making fewer is named in its group, and stands in a group of its own."""
    from gpuviz.backends.sim.fast.log_rows import UnevenLoops

    monkeypatch.setattr(log_rows_module, "PARALLEL_ROWS", 0)
    n = TPB * BLOCKS
    count = np.full(n, 3, np.int64)
    offsets = np.arange(n + 1, dtype=np.int64) * 3

    def log():
        size = 3 * n
        return [np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64), np.full(size, 2, np.int16),
                np.ones(size, np.int32), np.ones(size, np.int32), count.copy(), offsets, n]  # fmt: skip

    kept, starts, ids = np.array([0, 2, 5], np.int64), np.zeros(6, np.int64), np.array([4, 6], np.int64)
    assert len(log_rows(log(), SITES, kept, TPB, 6, starts, ids, lanes=lanes)["time"]) == 3 * n
    count[2 * TPB + 7] = 2  # block 5's thread 7 loops once fewer
    with pytest.raises(UnevenLoops) as found:
        log_rows(log(), SITES, kept, TPB, 6, starts, ids, lanes=lanes)
    assert found.value.args == (5 * TPB + 7,)
    count[2 * TPB :] = 2  # all of block 5: unlike block 0 in one group, alike in a group of its own
    with pytest.raises(UnevenLoops) as found:
        log_rows(log(), SITES, kept, TPB, 6, starts, ids, lanes=lanes)
    assert found.value.args == (5 * TPB,)
    assert len(log_rows(log(), SITES, kept, TPB, 1, starts, ids, lanes=lanes)["time"]) == 3 * n - TPB
