"""The replay: array values, thread states and one element's story at any cursor, against hand checks."""

import numpy as np
import pytest

from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.element_story import element_story
from gpuviz.core.replay import AT_BARRIER, FINISHED, NOT_STARTED, Replay, state_at
from gpuviz.core.trace.columns import READ

RACE = """
from numba import cuda
@cuda.jit
def k(a):
    a[0] += 0.5
"""

BARRIER = """
from numba import cuda
@cuda.jit
def k(a, out):
    t = cuda.threadIdx.x
    a[t] = t
    cuda.syncthreads()
    out[t] = a[(t + 1) % 64]
"""


def reference_values(trace, name, k):
    """Apply the first k events one by one: what the checkpointed replay must agree with."""
    acc, aid = trace.accesses, trace.array_names().index(name)
    values = trace.before(name).reshape(-1).astype(np.float64).copy()
    for row in range(k):
        if acc["array"][row] == aid and acc["kind"][row] != READ:
            values[acc["index"][row]] = acc["value"][row]
    return values


def test_values_follow_the_log_at_every_cursor(sim_run, monkeypatch):
    import gpuviz.core.replay as replay_module

    monkeypatch.setattr(replay_module, "CHECKPOINT_BYTES", 64)  # many checkpoints, short scans
    trace = sim_run(BARRIER, 1, 64, np.zeros(64), np.zeros(64), level="accesses")
    replay = Replay(trace)
    for k in sorted({0, 1, 31, 64, 65, 100, replay.events - 1, replay.events}):
        for name in ("a", "out"):
            expected = reference_values(trace, name, k)
            assert np.array_equal(replay.values_at(trace.array_names().index(name), k), expected), (name, k)
    final = state_at(trace, replay.events, replay)
    assert np.array_equal(final["arrays"]["out"], trace.after("out"))


def test_threads_wait_at_the_barrier_until_their_block_arrives(sim_run):
    trace = sim_run(BARRIER, 1, 64, np.zeros(64), np.zeros(64), level="accesses")
    replay = Replay(trace)
    assert replay.thread_states(0).count(NOT_STARTED) == 64
    first_warp_wrote = 32  # warp 0 writes a[0..31] in lockstep, then warp 1 has not yet
    states = replay.thread_states(first_warp_wrote)
    assert states.count(AT_BARRIER) == 32 and states.count(NOT_STARTED) == 32
    assert set(states.line[:32].tolist()) == {6}
    after_barrier = replay.next_stop(0, "barrier")
    assert trace.accesses["epoch"][after_barrier] == 1 and trace.accesses["epoch"][after_barrier - 1] == 0
    assert replay.thread_states(after_barrier).count(AT_BARRIER) == 0
    assert replay.thread_states(replay.events).count(FINISHED) == 64


def test_the_race_story_names_the_lost_updates(sim_run):
    trace = sim_run(RACE, 1, 64, np.zeros(1, np.float32), level="accesses")
    story = element_story(trace, 0, 0)
    assert story.reads == 64 and story.writes == 64
    assert story.lost == lost_updates(trace)["a"][0]  # the vectorised count agrees
    assert story.final == story.initial + 0.5 * (story.writes - story.lost)  # each carried update adds 0.5
    first = story.rows[:2]
    assert [r.kind for r in first] == ["read", "read"] and all(r.value == 0.0 for r in first)
    carried = [r for r in element_story(trace, 0, 0, shown=128).rows if r.kind == "write" and not r.lost]
    assert len(carried) == story.writes - story.lost and carried[-1].value == story.final


def test_steps_move_by_event_thread_and_wave(sim_run):
    trace = sim_run(RACE, 4, 64, np.zeros(1, np.float32), level="accesses", sms=1)
    replay = Replay(trace)
    assert replay.next_stop(5, "event") == 6 and replay.next_stop(0, "event", -1) == 0
    thread_stops = [replay.next_stop(0, "thread", thread=70)]
    thread_stops.append(replay.next_stop(thread_stops[0], "thread", thread=70))
    assert [int(trace.accesses["thread"][s - 1]) for s in thread_stops] == [70, 70]
    assert [int(trace.accesses["kind"][s - 1]) for s in thread_stops] == [READ, 1]
    if replay.waves().max() > 0:
        wave_start = replay.next_stop(0, "wave")
        assert replay.waves()[trace.accesses["thread"][wave_start] // 64] == 1
    with pytest.raises(ValueError, match="unknown step"):
        replay.next_stop(0, "year")
    assert "event 1 of" in replay.caption(1) and "read a[0] = 0" in replay.caption(1)


def test_sparse_epoch_numbers_wait_at_the_barrier_as_dense_ones(sim_run):
    """Epochs numbered far apart (a wrapped or grid-wide counter) are ranked, not tabled in full."""
    trace = sim_run(BARRIER, 1, 64, np.zeros(64), np.zeros(64), level="accesses")
    dense = Replay(trace)
    wide = dict(trace.accesses, epoch=trace.accesses["epoch"] * np.int32(1 << 30))
    sparse = Replay(type(trace)(meta=trace.meta, threads=trace.threads, args=trace.args, accesses=wide))
    for k in range(0, dense.events + 1, 7):
        assert np.array_equal(sparse.thread_states(k).state, dense.thread_states(k).state), k
    assert sparse._barrier_tables()[2] == 2  # two epochs, ranked


def reference_states(trace, k):
    """Every thread's state at cursor k, worked out over all threads at once (the replay works over
    the threads that made an access, the others by their times): the two must agree."""
    from gpuviz.core.replay import RUNNING

    acc, threads, n = trace.accesses, trace.threads, trace.n_threads
    events = len(acc["thread"])
    k = max(0, min(k, events))
    done, total = np.bincount(acc["thread"][:k], minlength=n), np.bincount(acc["thread"], minlength=n)
    now = int(acc["time"][k - 1]) if k > 0 else int(threads["t_start"].min())
    silent = total == 0
    started = (done > 0) | (silent & (threads["t_start"] <= now))
    finished = (done == total) & (threads["t_end"] <= now) & started
    if k >= events:
        started[:] = finished[:] = True
    state = started.astype(np.uint8) + 2 * finished.astype(np.uint8)
    per_block = int(np.prod(trace.block))
    for t in np.flatnonzero((done > 0) & (done < total) & (state == RUNNING)):
        mine = np.flatnonzero(acc["thread"] == t)
        last, following = acc["epoch"][mine[done[t] - 1]], acc["epoch"][mine[done[t]]]
        block = acc["thread"] // per_block == t // per_block
        behind = np.flatnonzero(block & (acc["epoch"] == last))
        if following > last and behind.max() >= k:
            state[t] = AT_BARRIER
    return state


@pytest.mark.parametrize("blocks", [(), (0, -1)])
def test_thread_states_agree_with_a_count_over_every_thread(sim_run, blocks):
    """With every block's accesses and with the first and last blocks' only (the other threads by
    their times), at cursors across the launch, barriers included."""
    import gpuviz

    trace = gpuviz.trace(BARRIER, backend="sim", level="accesses", blocks=blocks, sms=2)[6, 64](
        np.zeros(64), np.zeros(64))  # fmt: skip
    replay = Replay(trace)
    assert len(replay.active) == (6 if not blocks else 2) * 64
    waited = 0
    for k in [*range(0, replay.events, 29), replay.events - 1, replay.events]:
        expected = reference_states(trace, k)
        np.testing.assert_array_equal(replay.thread_states(k).state, expected, err_msg=str(k))
        waited += int((expected == AT_BARRIER).sum())
    assert waited > 0  # the cursors passed threads waiting at the barrier
    if blocks:  # a thread of a block whose accesses were not kept has no step of its own
        assert len(replay._stops("thread", 2 * 64)) == 0 and len(replay._stops("thread", 5 * 64 + 3)) == 3
