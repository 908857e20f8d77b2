"""A thread's record (hover and the Thread panel) says what the trace knows of it, and no more."""

import numpy as np

import gpuviz
from gpuviz.core.thread_record import thread_record

UNGUARDED = """from numba import cuda

@cuda.jit
def add(a, c):
    i = cuda.grid(1)
    c[i] = a[i] + 1
"""


def partly_recorded(n: int):
    """The kernel over 4 blocks of 32 threads, with the accesses of the first and last blocks only."""
    return gpuviz.trace(UNGUARDED, backend="sim", level="accesses", blocks=(0, -1))[4, 32](np.zeros(n), np.zeros(n))


def test_a_faulting_thread_lists_its_memory_error_and_a_good_one_none():
    trace = gpuviz.trace(UNGUARDED, backend="sim", level="accesses")[2, 32](np.zeros(40), np.zeros(40))
    record = thread_record(trace, 45)
    assert "memory error" in record and "out-of-bounds read of a[45] (line 6)" in record
    assert "wrote</td><td><b>nothing" in record
    assert "memory error" not in thread_record(trace, 39) and "c[39] (line 6)" in thread_record(trace, 39)


def test_threads_of_blocks_whose_accesses_were_not_recorded_say_so():
    """With accesses of chosen blocks only, the others' records must not say they read nothing."""
    trace = partly_recorded(128)
    assert trace.meta["recorded_blocks"] == [0, 3]
    middle = thread_record(trace, 2 * 32 + 5)
    assert "not recorded for this block (recorded: blocks 0 and 3)" in middle and "nothing" not in middle
    assert "a[101] (line 6)" in thread_record(trace, 3 * 32 + 5)


def test_value_written_colours_blocks_without_recorded_accesses_apart():
    """They wrote values the trace does not hold: neither 'nothing written' nor a value's colour."""
    from gpuviz.core.colors import NOT_RECORDED, NOTHING, coloring
    from gpuviz.core.grid_colours import replay_colours

    trace = partly_recorded(100)
    colours = coloring(trace, "value written")
    per_block = colours.codes.reshape(4, 32)
    assert (per_block[1:3] == NOT_RECORDED).all()
    assert (per_block[3, :4] < NOT_RECORDED).all() and (per_block[3, 4:] == NOTHING).all()  # threads 100.. fault
    assert (per_block[0] < NOT_RECORDED).all() and "accesses not recorded" in [text for _, text in colours.legend]
    small, replay = replay_colours(colours.codes, colours.lut)  # the replay's 64 levels keep the three apart
    running = {code: tuple(replay[64 + small[np.flatnonzero(colours.codes == code)[0]], :3]) for code in
               (NOT_RECORDED, NOTHING, int(per_block[3, 3]))}  # fmt: skip
    assert running[NOT_RECORDED] == tuple(colours.lut[NOT_RECORDED, :3])
    assert running[NOTHING] == tuple(colours.lut[NOTHING, :3]) and len(set(running.values())) == 3
