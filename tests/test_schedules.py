"""The schedules: lockstep warps lose updates in waves; sequential loses none; seeds are deterministic."""

import numpy as np

from gpuviz.core.trace.columns import READ, WRITE

RACY = """
from numba import cuda

@cuda.jit
def racy(array):
    for i in range(array.size):
        array[i] += 0.5
"""

COUNT_ONE = """
from numba import cuda

@cuda.jit
def count(array):
    array[0] += 1
"""


def test_racy_counter_loses_updates_on_gpu_schedule_only(sim_run):
    lost = np.zeros(2, np.float32)
    sim_run(RACY, 16, 256, lost)
    assert lost[0] < 16 * 256 * 0.5 / 100
    exact = np.zeros(2, np.float32)
    sim_run(RACY, 16, 256, exact, schedule="sequential")
    assert list(exact) == [2048.0, 2048.0]


def test_first_wave_reads_the_initial_value_on_the_reference_engine(sim_run):
    # 2 SMs x 2048 resident threads: exactly the first wave (4096 threads) reads the initial 0.
    a = np.zeros(1, np.int64)
    trace = sim_run(COUNT_ONE, 32, 256, a, sms=2, level="accesses", engine="reference")
    acc = trace.accesses
    reads = acc["kind"] == READ
    first_readers = acc["thread"][reads & (acc["value"] == 0)]
    assert len(first_readers) == 2 * 2048
    assert set(first_readers.tolist()) == set(range(4096))  # blocks 0..15 made the first wave
    assert 1 <= a[0] < 32 * 256


def test_same_seed_same_outcome_other_seeds_vary(sim_run):
    outcomes = []
    for seed in [0, 0, 1, 2, 3, 4, 5]:
        a = np.zeros(1, np.int64)
        sim_run(COUNT_ONE, 64, 256, a, sms=2, seed=seed, level="threads")
        outcomes.append(int(a[0]))
    assert outcomes[0] == outcomes[1]
    assert len(set(outcomes)) > 1


def test_blocks_run_in_waves_on_virtual_sms(sim_run):
    out = np.zeros(8 * 1024, np.int64)
    src = "from numba import cuda\n@cuda.jit\ndef k(o):\n    o[cuda.grid(1)] = 1\n"
    trace = sim_run(src, 8, 1024, out, sms=2)
    sm = trace.threads["sm"].reshape(8, 1024)[:, 0]
    start = trace.threads["t_start"].reshape(8, 1024).min(axis=1)
    assert set(sm.tolist()) == {0, 1}
    # two SMs hold two 1024-thread blocks each: blocks 4-7 start only after one of blocks 0-3 finished
    first_end = trace.threads["t_end"].reshape(8, 1024)[:4].max(axis=1).min()
    assert start[4:].min() >= first_end
    assert (trace.threads["t_end"] >= trace.threads["t_start"]).all()


def test_thread_records_follow_global_linear_order(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(o):\n    pass\n"
    trace = sim_run(src, (2, 3), (4, 2, 5), np.zeros(1))
    t = trace.threads
    assert len(t["warp"]) == 6 * 40
    g = 40 * 3 + 17  # block (1,1,0) is linear 3; thread 17 is (1, 0, 2) in a 4x2x5 block
    assert list(t["block_idx"][g]) == [1, 1, 0]
    assert list(t["thread_idx"][g]) == [1, 0, 2]
    assert t["warp"][g] == 0 and t["lane"][g] == 17
    assert t["warp"][40 * 3 + 33] == 1 and t["lane"][40 * 3 + 33] == 1


def test_sequential_runs_one_thread_at_a_time(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(o):\n    i = cuda.grid(1)\n    o[i] = i\n"
    trace = sim_run(src, 2, 64, np.zeros(128, np.int64), schedule="sequential")
    start, end = trace.threads["t_start"], trace.threads["t_end"]
    assert (start[1:] >= end[:-1]).all()
    assert set(trace.threads["sm"].tolist()) == {0}


def test_threads_level_records_no_accesses(sim_run):
    trace = sim_run(COUNT_ONE, 1, 32, np.zeros(1, np.int64), level="threads")
    assert trace.accesses is None
    trace = sim_run(COUNT_ONE, 1, 32, np.zeros(1, np.int64), level="accesses")
    assert len(trace.accesses["thread"]) == 64


def test_access_cap_sets_truncated(sim_run):
    trace = sim_run(COUNT_ONE, 4, 32, np.zeros(1, np.int64), level="accesses", access_cap=100)
    assert trace.truncated
    assert len(trace.accesses["thread"]) == 100


def test_a_store_in_a_device_function_lands_for_the_whole_warp_like_inline_code(sim_run):
    body = "    i = cuda.grid(1)\n    {store}\n    out[i] = a[0]\n"
    device = "@cuda.jit(device=True)\ndef put(a, v):\n    a[0] = v\n\n"
    head = "from numba import cuda\n"
    for source in (head + "@cuda.jit\ndef k(a, out):\n" + body.format(store="a[0] = i"),
                   head + device + "@cuda.jit\ndef k(a, out):\n" + body.format(store="put(a, i)")):  # fmt: skip
        out = np.zeros(32, np.int64)
        sim_run(source, 1, 32, np.zeros(1, np.int64), out, name="k")
        assert set(out.tolist()) == {31}  # every lane stored before any lane read back


def test_vector_engine_first_block_of_each_sm_reads_the_initial_value(sim_run):
    # The block scheduler hands out a block every 1.5 cycles, so the first wave (2 SMs x 8 blocks of 256)
    # starts within far less than a global round trip: all of it reads the initial 0; later waves see stores.
    a = np.zeros(1, np.int64)
    trace = sim_run(COUNT_ONE, 32, 256, a, sms=2, level="accesses", engine="vector")
    assert trace.meta["engine"] == "vector"
    acc = trace.accesses
    first_readers = acc["thread"][(acc["kind"] == READ) & (acc["value"] == 0)]
    assert set(first_readers.tolist()) == set(range(16 * 256))
    assert 2 <= a[0] < 32


def test_one_wave_launch_reads_the_initial_value_everywhere(sim_run):
    # the race lesson's launch on an H100-class device: 64 blocks on 132 SMs start together (hardware: a[0] = 0.5)
    a = np.zeros(2, np.float32)
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    sim_run(src, 64, 1024, a, level="threads")
    assert list(a) == [0.5, 0.5]


def test_reversed_runs_the_last_thread_first(sim_run):
    src = "from numba import cuda\n@cuda.jit\ndef k(o):\n    i = cuda.grid(1)\n    o[i] = i\n"
    trace = sim_run(src, 2, 64, np.zeros(128, np.int64), schedule="reversed")
    start, end = trace.threads["t_start"], trace.threads["t_end"]
    assert (start[:-1] >= end[1:]).all() and (trace.after("o") == np.arange(128)).all()


def test_vector_engine_loads_see_exactly_the_stores_issued_before_them(sim_run):
    # loads run in the order of the warps' clocks: a read returns the last value stored at an earlier time
    a = np.zeros(1, np.int64)
    acc = sim_run(COUNT_ONE, 64, 256, a, sms=2, level="accesses", seed=3).accesses
    writes = acc["kind"] == WRITE
    order = np.argsort(acc["time"][writes], kind="stable")
    w_time, w_value = acc["time"][writes][order], acc["value"][writes][order]
    reads = acc["kind"] == READ
    before = np.searchsorted(w_time, acc["time"][reads], side="left")  # stores issued strictly earlier
    latest = np.where(before > 0, w_value[np.maximum(before - 1, 0)], 0)
    assert (acc["value"][reads] == latest).all()
    assert 4 <= a[0] < 64  # several generations: later waves read earlier stores


def test_a_full_wave_spreads_enough_for_a_second_generation(sim_run):
    # 264 blocks of 1,024 on 132 SMs: dispatched 1.5 cycles apart, the last start after the first stores
    # land (an H100 gave a[0] = 1.0 in 8 of 8 runs, docs/races.md)
    a = np.zeros(2, np.float32)
    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    for i in range(a.size):\n        a[i] += 0.5\n"
    sim_run(src, 264, 1024, a, level="threads")
    assert a[0] == 1.0


def test_the_reference_engine_places_blocks_the_same_way_every_run():
    """Blocks that end together free their SMs in block order (a set's order changed from run to run)."""
    import gpuviz

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    a[i] = i\n"
    runs = [gpuviz.trace(src, name="k", backend="sim", engine="reference", sms=8)[600, 32](np.zeros(600 * 32))
            for _ in range(3)]  # fmt: skip
    for trace in runs[1:]:
        np.testing.assert_array_equal(trace.threads["sm"], runs[0].threads["sm"])
