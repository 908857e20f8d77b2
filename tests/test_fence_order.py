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


def last_two_tickets_logged_the_other_way(trace):
    """The trace with the last ticket's atomic logged just before the one before it, as a GPU's timer
    readings (taken on different SMs after each atomic returned) can order them; each thread keeps its order."""
    acc = trace.accesses
    tickets = np.flatnonzero(acc["kind"] == 2)
    by_value = tickets[np.argsort(acc["value"][tickets])]
    last, before = int(by_value[-1]), int(by_value[-2])
    own = np.flatnonzero(acc["thread"] == acc["thread"][last])
    assert last > before and own[own < last].max() < before  # its thread did nothing in between
    order = np.r_[np.arange(before), last, np.arange(before, last), np.arange(last + 1, len(acc["kind"]))]
    trace.accesses = {name: column[order] for name, column in acc.items()}
    return trace


@pytest.mark.parametrize("engine", ENGINES)
def test_tickets_logged_out_of_order_are_ordered_by_the_values_they_left_on_counting_lines(engine):
    trace = last_two_tickets_logged_the_other_way(run(engine, before="cuda.threadfence()"))
    assert find_races(trace).locations == 1  # taken in the log's order, one block's part seems to race
    trace.meta["counting_lines"] = [11]  # ticket = cuda.atomic.add(count, 0, 1)
    assert find_races(trace).locations == 0
    trace.meta["counting_lines"] = [12]  # not the ticket's line: the log's order again
    assert find_races(trace).locations == 1


def test_update_ranks_follow_values_only_where_every_update_counts_and_no_value_repeats():
    from gpuviz.core.analysis.fence_order import update_rank

    element = np.array([5, 5, 9, 5, 9, 7, 7])
    kind = np.array([2, 2, 2, 2, 2, 2, 0])
    value = np.array([2.0, 1.0, 4.0, 3.0, 4.0, 1.0, 0.0])
    counting = np.ones(7, bool)
    # element 5: values 2, 1, 3 at rows 0, 1, 3 -> row 1 takes place 0, row 0 place 1; 9 repeats a value
    assert update_rank(element, kind, value, counting).tolist() == [1, 0, 2, 3, 4, 5, 6]
    counting[3] = False
    assert update_rank(element, kind, value, counting).tolist() == list(range(7))
