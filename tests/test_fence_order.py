"""A device-wide threadfence before an atomic orders a block's writes for the block whose atomic update of
the same element comes later (the "last block" pattern), on both engines; without the fence, with a
block-scope fence or with the fence after the atomic, the last block's reads race with the writes."""

import numpy as np
import pytest

import gpuviz
from gpuviz.core.analysis.races import find_races
from gpuviz.core.trace.columns import epoch_field

SOURCE = """
from numba import cuda, int32

@cuda.jit
def k(values, partials, count, total):
    last = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        partials[cuda.blockIdx.x] = values[cuda.blockIdx.x]
        BEFORE
        ticket = cuda.atomic.add(count, 0, 1)
        AFTER
        last[0] = ticket == cuda.gridDim.x - 1
    cuda.syncthreads()
    if last[0] and t == READER:
        s = 0.0
        for b in range(cuda.gridDim.x):
            s += partials[b]
        total[0] = s
"""


def run(engine: str, before: str = "pass", after: str = "pass", reader: int = 0):
    source = SOURCE.replace("BEFORE", before).replace("AFTER", after).replace("READER", str(reader))
    values, total = np.arange(1, 9, dtype=np.float64), np.zeros(1)
    trace = gpuviz.trace(source, backend="sim", engine=engine)[8, 64](values, np.zeros(8), np.zeros(1, np.int32), total)
    assert total[0] == 36
    return trace


ENGINES = ["vector", "reference"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fence", ["cuda.threadfence()", "cuda.threadfence_system()"])
def test_a_fence_before_the_ticket_orders_every_blocks_part_for_the_last_block(engine, fence):
    for reader in (0, 5):  # the thread that took the ticket, or another one after the barrier
        assert find_races(run(engine, before=fence, reader=reader)).locations == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", [{}, {"before": "cuda.threadfence_block()"}, {"after": "cuda.threadfence()"}])
def test_without_a_device_wide_fence_before_the_ticket_the_parts_race(engine, case):
    report = find_races(run(engine, **case))
    assert report.locations == 7  # the last block's own part is its own thread's
    assert {race.array for race in report.races} == {"partials"}
    assert {(race.first.access, race.second.access) for race in report.races} == {("write", "read")}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_fence_flag_is_set_on_the_accesses_after_the_fence_only(engine):
    acc = run(engine, before="cuda.threadfence()").accesses
    fenced = epoch_field(acc["epoch"], "fence") == 1
    assert fenced[acc["kind"] == 2].all()  # every ticket comes after its thread's fence
    parts = (acc["kind"] == 1) & (acc["line"] == 9)  # partials[...] = ...
    assert parts.sum() == 8 and not fenced[parts].any()  # no part is written after its fence
    assert not fenced[acc["thread"] % 64 != 0].any()  # threads that did not fence
