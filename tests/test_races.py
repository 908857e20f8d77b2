"""Race analysis: hand-built traces for the rules, the labelled suite for the verdicts, the CLI."""

import json

import numpy as np
import pytest

import gpuviz
from gpuviz.cli import main
from gpuviz.core.analysis.outcomes import lost_updates, serial_answers, serial_text
from gpuviz.core.analysis.races import find_races, format_report
from gpuviz.core.trace.columns import ACCESS_COLUMNS, ATOMIC, READ, WRITE, thread_layout
from gpuviz.core.trace.model import Trace

from .race_suite import CASES


def hand_trace(events, grid=(2, 1, 1), block=(64, 1, 1), arrays=None):
    """A trace with the given (thread, array, index, kind, epoch, value) events, in time order."""
    arrays = arrays or [{"name": "a", "space": "global", "dtype": "int64", "shape": [8]}]
    block_idx, thread_idx, warp, lane = thread_layout(grid, block)
    n = len(warp)
    zeros = np.zeros(n, np.int64)
    threads = {"block_idx": block_idx, "thread_idx": thread_idx, "warp": warp, "lane": lane,
               "sm": np.zeros(n, np.int32), "t_start": zeros, "t_end": zeros}  # fmt: skip
    rows = np.array([(t, a, i, k, 10 + k, e, v) for t, a, i, k, e, v in events], dtype=float).reshape(-1, 7)
    order = ["thread", "array", "index", "kind", "line", "epoch", "value"]
    accesses = {name: rows[:, order.index(name)].astype(ACCESS_COLUMNS[name]) for name in ACCESS_COLUMNS}
    meta = {"kernel": "k", "grid": list(grid), "block": list(block), "arrays": arrays, "warnings": []}
    return Trace(meta=meta, threads=threads, accesses=accesses)


@pytest.mark.parametrize(
    "events, racy",
    [
        ([(0, 0, 0, WRITE, 0, 1), (0, 0, 0, READ, 0, 1)], False),  # one thread
        ([(0, 0, 0, READ, 0, 1), (1, 0, 0, READ, 0, 1)], False),  # read-read
        ([(0, 0, 0, ATOMIC, 0, 1), (1, 0, 0, ATOMIC, 0, 2)], False),  # atomic-atomic
        ([(0, 0, 0, ATOMIC, 0, 1), (1, 0, 0, READ, 0, 1)], True),  # atomic and plain read
        ([(0, 0, 0, WRITE, 0, 1), (1, 0, 0, READ, 0, 1)], True),  # same block, same epoch
        ([(0, 0, 0, WRITE, 0, 1), (1, 0, 0, READ, 1, 1)], False),  # a barrier between them
        ([(0, 0, 0, WRITE, 0, 1), (64, 0, 0, READ, 1, 1)], True),  # other block: barriers do not help
        ([(0, 0, 0, WRITE, 0, 1), (1, 0, 1, WRITE, 0, 1)], False),  # other elements
    ],
)
def test_race_rules_on_hand_built_traces(events, racy):
    assert find_races(hand_trace(events)).racy is racy


def test_kinds_scopes_and_pairs():
    shared = [{"name": "s", "space": "shared", "dtype": "int64", "shape": [4]}]
    report = find_races(hand_trace([(0, 0, 2, READ, 0, 0), (33, 0, 2, WRITE, 0, 5)], arrays=shared))
    (race,) = report.races
    assert (race.array, race.space, race.index, race.block) == ("s", "shared", 2, (0, 0, 0))
    assert (race.kind, race.scope, race.pairs) == ("WAR", "same block", 1)
    assert (race.first.thread, race.first.access, race.second.thread) == ((0, 0, 0), "read", (33, 0, 0))
    # The same shared element in two blocks is two different copies: no race.
    assert not find_races(hand_trace([(0, 0, 2, WRITE, 0, 1), (64, 0, 2, WRITE, 0, 2)], arrays=shared)).racy
    raw = find_races(hand_trace([(0, 0, 0, WRITE, 0, 1), (70, 0, 0, READ, 0, 1), (71, 0, 0, READ, 0, 1)]))
    assert (raw.races[0].kind, raw.races[0].scope, raw.races[0].pairs) == ("RAW", "different blocks", 2)


def test_rows_left_out_first_change_no_verdict():
    """Rows of read-only arrays, and of a shared array at a block epoch nobody wrote it in, are left out
    before pairs are counted; the elements of other arrays never stand in for the written array's."""
    arrays = [{"name": "a", "space": "global", "dtype": "int64", "shape": [4]},
              {"name": "c", "space": "global", "dtype": "int64", "shape": [4]},
              {"name": "s", "space": "shared", "dtype": "int64", "shape": [4]}]  # fmt: skip
    one_writer = [(0, 1, i, WRITE, 0, 1) for i in (0, 1, 2, 3, 0)]  # c, most of the rows: thread 0's only
    one_writer += [(1, 0, 0, READ, 0, 1), (2, 0, 0, READ, 0, 1),  # a[0], read by two other threads
                  (0, 2, 0, READ, 1, 0), (1, 2, 0, READ, 1, 0)]  # fmt: skip  # s read after a barrier, never written
    assert not find_races(hand_trace(one_writer, arrays=arrays)).racy
    written_then_read = [(0, 2, 0, WRITE, 0, 1), (1, 2, 0, READ, 1, 1), (2, 2, 0, READ, 1, 1)]
    assert not find_races(hand_trace(one_writer + written_then_read, arrays=arrays)).racy
    (race,) = find_races(hand_trace(one_writer + [(3, 2, 1, WRITE, 1, 2), (4, 2, 1, READ, 1, 2)], arrays=arrays)).races
    assert (race.array, race.index, race.kind, race.pairs) == ("s", 1, "RAW", 1)


def test_benign_writes_are_set_apart_unless_counted():
    events = [(0, 0, 0, WRITE, 0, 7), (1, 0, 0, WRITE, 0, 7)]
    report = find_races(hand_trace(events))
    assert not report.racy and [b.array for b in report.benign] == ["a"]
    assert find_races(hand_trace(events), count_benign=True).racy
    assert find_races(hand_trace([(0, 0, 0, WRITE, 0, 7), (1, 0, 0, WRITE, 0, 8)])).racy


def test_needs_an_access_log():
    trace = hand_trace([])
    trace.accesses = None
    with pytest.raises(gpuviz.GpuvizError, match="record it with --level accesses"):
        find_races(trace)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_labelled_suite_on_the_simulator(case):
    assert len(CASES) >= 30
    trace = gpuviz.trace(case.source, name="k", backend="sim", level="accesses")[case.grid, case.block](*case.make())
    report = find_races(trace)
    assert report.racy is bool(case.racy_arrays), format_report(report, case.name)
    assert set(report.arrays()) == set(case.racy_arrays)
    reported_lines = {line for race in report.races for line in (race.first.line, race.second.line)}
    assert reported_lines <= case.lines("race"), (reported_lines, case.lines("race"))
    assert {race.array for race in report.benign} == set(case.benign_arrays)
    assert {line for race in report.benign for line in (race.first.line, race.second.line)} <= case.lines("benign")
    assert bool(report.divergence) is case.divergent
    if case.benign_arrays:
        counted = find_races(trace, count_benign=True)
        assert set(counted.arrays()) == set(case.racy_arrays) | set(case.benign_arrays)


def test_lost_updates_follow_the_value_chain():
    # Four threads read 0, then all write 1: three updates lost. Serially none would be.
    lockstep = [(t, 0, 0, READ, 0, 0) for t in range(4)] + [(t, 0, 0, WRITE, 0, 1) for t in range(4)]
    assert lost_updates(hand_trace(lockstep))["a"][0] == 3
    serial = [e for t in range(4) for e in [(t, 0, 0, READ, 0, t), (t, 0, 0, WRITE, 0, t + 1)]]
    assert lost_updates(hand_trace(serial))["a"][0] == 0
    atomics = [(t, 0, 1, ATOMIC, 0, t + 1) for t in range(4)]
    assert lost_updates(hand_trace(atomics))["a"][1] == 0


def test_lost_updates_of_gpu_traces_follow_values_not_log_order():
    # The GPU log is in time order only within a thread: shuffle the threads' events together.
    lockstep = [(t, 0, 0, READ, 0, 0) for t in range(4)] + [(t, 0, 0, WRITE, 0, 1) for t in range(4)]
    serial = [e for t in range(4) for e in [(t, 0, 0, READ, 0, t), (t, 0, 0, WRITE, 0, t + 1)]]
    for events, final, lost in [(lockstep, 1, 3), (serial[::2] + serial[1::2], 4, 0)]:
        trace = hand_trace(events)
        trace.meta["backend"] = "gpu"
        trace.args = {"a": (np.zeros(8), np.array([final, 0, 0, 0, 0, 0, 0, 0], float))}
        assert lost_updates(trace)["a"][0] == lost


def test_run_prints_races_and_repeat_keeps_outcomes(tmp_path, capsys):
    script = tmp_path / "race.py"
    script.write_text(
        "import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1\n"
        "@cuda.jit\ndef ok(a):\n    a[cuda.grid(1)] = 1\n"
        "a = np.zeros(1, np.int64)\nk[64, 256](a)\nb = np.zeros(64, np.int64)\nok[1, 64](b)\n"
    )
    assert main(["run", str(script), "--backend", "sim", "--sms", "2", "--repeat", "6", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "races: 1 location in 1 array" in err and "races: none found" in err
    trace = gpuviz.load(tmp_path / "000-k.npz")
    runs = trace.outcomes["a.runs"]
    assert runs.shape == (6, 1) and len(set(runs[:, 0].tolist())) > 1  # the seed changes the outcome
    assert trace.outcomes["a.sequential"][0] == 64 * 256
    assert (trace.outcomes["a.lost"][:, 0] == 64 * 256 - runs[:, 0]).all()
    assert main(["info", str(tmp_path / "000-k.npz")]) == 0
    assert "a[0]: serial 16,384; seen" in capsys.readouterr().out


def test_races_command_text_and_json(tmp_path, capsys):
    case = next(c for c in CASES if c.name == "reduction_missing_barrier_in_loop")
    trace = gpuviz.trace(case.source, name="k", backend="sim", level="accesses")[case.grid, case.block](*case.make())
    path = trace.save(tmp_path / "t.npz")
    assert main(["races", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("k: 62 locations in 1 array") and "(shared, block (0,0,0))" in text
    assert main(["races", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["racy"] is True and report["truncated"] is False
    first = report["races"][0]
    assert set(first) >= {"array", "space", "index", "kind", "scope", "first", "second"}
    assert set(first["first"]) >= {"block", "thread", "line"}
    assert main(["races", str(path), "--max", "3", "--json"]) == 0
    capped = json.loads(capsys.readouterr().out)
    assert len(capped["races"]) == 3 and capped["truncated"] is True


def test_races_command_refuses_threads_level_traces(tmp_path, capsys):
    trace = gpuviz.trace(CASES[0].source, name="k", backend="sim", level="threads")[2, 64](*CASES[0].make())
    path = trace.save(tmp_path / "t.npz")
    assert main(["races", str(path)]) == 1
    assert "error: this trace has no access log" in capsys.readouterr().err


def test_a_launch_is_searched_for_races_once_even_with_repeats(monkeypatch, tmp_path):
    from gpuviz.core.analysis import races
    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import kernel_from_text
    from gpuviz.run.session import Session

    calls, real = [], races.find_races
    monkeypatch.setattr(races, "find_races", lambda *a, **k: calls.append(1) or real(*a, **k))
    kernel = kernel_from_text("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1.0\n").py_func
    session = Session(RunOptions(backend="sim", level="accesses", repeat=3, sms=2), out_dir=tmp_path)
    trace = session.launch(kernel, 2, 64, (np.zeros(1),))
    assert len(calls) == 1 and trace.analysis["races"]["racy"]
    assert "races: 1 location in 1 array" in session.records[0].races


def test_the_races_command_reads_the_stored_report(monkeypatch, tmp_path, capsys):
    from gpuviz.core.analysis import races

    source = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] += 1.0\n"
    path = gpuviz.trace(source, backend="sim", level="accesses")[2, 64](np.zeros(1)).save(tmp_path / "r.npz")
    monkeypatch.setattr(races, "find_races", lambda *a, **k: pytest.fail("searched for races again"))
    assert main(["races", str(path)]) == 0
    assert "1 location in 1 array" in capsys.readouterr().out


MISSING_BARRIER = """import numpy as np
from numba import cuda, float32
@cuda.jit
def tree(values, sums):
    partial = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    partial[t] = values[t]
    cuda.syncthreads()
    step = 4
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        step //= 2
    if t == 0:
        sums[0] = partial[0]
@cuda.jit
def count(a):
    a[0] += 1
sums = np.zeros(1, np.float32)
tree[1, 8](np.ones(8, np.float32), sums)
a = np.zeros(1, np.int64)
count[2, 32](a)
"""


def test_no_serial_answer_where_the_order_of_threads_decides(tmp_path, capsys):
    """A tree sum without its barrier: thread 0 alone first adds partial[4], [2], [1] before anyone
    summed them (1 + 1 + 1 + 1 = 4); last thread first, every partial sum is ready (8). The runs' 8 is
    not 'off the serial answer': there is none. A lost-update race has one serial answer in any order."""
    script = tmp_path / "orders.py"
    script.write_text(MISSING_BARRIER)
    assert main(["run", str(script), "--backend", "sim", "--repeat", "2", "--out", str(tmp_path)]) == 0
    tree, count = gpuviz.load(tmp_path / "000-tree.npz"), gpuviz.load(tmp_path / "001-count.npz")
    assert tree.outcomes["sums.sequential"][0] == 4 and tree.outcomes["sums.reversed"][0] == 8
    assert serial_answers(tree.outcomes, "sums", 0) == (4.0, 8.0)
    assert "no serial answer" in serial_text(serial_answers(tree.outcomes, "sums", 0))
    assert serial_answers(count.outcomes, "a", 0) == (64,) and serial_answers({}, "a", 0) == ()
    capsys.readouterr()
    assert main(["info", str(tmp_path / "000-tree.npz")]) == 0
    assert "sums[0]: serial 4, reversed 8 (order matters); seen 8 x2" in capsys.readouterr().out
    assert main(["info", str(tmp_path / "001-count.npz")]) == 0
    assert "a[0]: serial 64; seen" in capsys.readouterr().out


def test_the_race_view_draws_no_serial_line_where_the_order_decides(qtbot, tmp_path):
    pytest.importorskip("PySide6", reason="the race view needs PySide6")
    from gpuviz.app.views.race_view import RaceView
    from gpuviz.scene.state import AppState

    script = tmp_path / "orders.py"
    script.write_text(MISSING_BARRIER)
    assert main(["run", str(script), "--backend", "sim", "--repeat", "2", "--out", str(tmp_path)]) == 0
    state = AppState()
    view = RaceView(state)
    qtbot.addWidget(view)
    tree = gpuviz.load(tmp_path / "000-tree.npz")
    state.set_trace(tree)
    state.select_element((tree.array_names().index("sums"), 0, None))
    text = view.outcomes.text()
    assert "4 in thread order but 8 in reverse order" in text and "yellow line" not in text
    state.set_trace(gpuviz.load(tmp_path / "001-count.npz"))
    assert "one thread at a time gives <b>64</b>, far off this chart" in view.outcomes.text()


PAIRS = """from numba import cuda
@cuda.jit
def pairs(x, out):
    i = cuda.grid(1)
    x[i] = x[i] * 2.0
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x // 2] = cuda.blockIdx.x
"""


def test_races_found_among_some_blocks_say_so(tmp_path, capsys):
    """Blocks 2k and 2k + 1 race on out[k]. Over the memory budget only the first and last block's accesses
    are recorded, and neither has its partner recorded: the lines say no race was found among those blocks,
    not that the kernel has none."""
    from gpuviz.core.analysis.report import race_summary
    from gpuviz.core.launch_guard import estimate_trace

    blocks = 1025
    arrays = [np.ones(blocks * 256, np.float32), np.zeros(blocks // 2 + 1, np.int32)]
    budget = estimate_trace("pairs", blocks * 256, "accesses", tuple(arrays)).memory  # one access a thread fits
    trace = gpuviz.trace(PAIRS, name="pairs", backend="sim", level="accesses", memory_budget=budget)[blocks, 256](
        *arrays)  # fmt: skip
    assert trace.meta["recorded_blocks"] == [0, blocks - 1]
    assert race_summary(trace) == "races: none found among the 2 of 1,025 blocks whose accesses were recorded"
    path = tmp_path / "pairs.npz"
    trace.save(path)
    assert main(["races", str(path)]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == "pairs: no races found among the 2 of 1,025 blocks whose accesses were recorded"
    whole = gpuviz.trace(PAIRS, name="pairs", backend="sim", level="accesses")[blocks, 256](*arrays)
    assert race_summary(whole) == "races: 512 locations in 1 array"
