"""Progress with the time left: the estimate (nothing until it means something), the command line's
bar on a terminal and its plain lines in a log, and the app's busy label."""

import io

import pytest

from gpuviz.core.events import LogLine, Progress
from gpuviz.core.progress import MIN_SECONDS, LaunchClock, describe_left, progress_text, time_left
from gpuviz.run.terminal import PLAIN_EVERY, TerminalEvents


def test_time_left_follows_the_rate_so_far():
    assert time_left(done=300, total=1000, first_done=100, elapsed=2.0) == pytest.approx(7.0)  # 100 blocks/s
    assert time_left(done=100, total=100, first_done=0, elapsed=5.0) is None  # finished: nothing to say


def test_time_left_says_nothing_until_it_means_something():
    assert time_left(500, 1000, 0, MIN_SECONDS / 2) is None  # measured too briefly
    assert time_left(10, 1000, 0, 30.0) is None  # over 1% of the blocks: too few
    assert time_left(60, 1000, 10, 30.0) is not None  # 5%
    assert time_left(1, 2, 1, 30.0) is None  # no block finished since the first message


def test_launch_clock_starts_again_with_each_launch():
    clock = LaunchClock()
    assert clock.update(Progress(10, 100), now=5.0) is None  # the rate is counted from here
    assert clock.update(Progress(30, 100), now=7.0) == pytest.approx(7.0)  # 20 blocks in 2 s, 70 left
    assert clock.update(Progress(5, 400), now=8.0) is None  # a new launch: its own rate
    assert clock.update(Progress(105, 400), now=10.0) == pytest.approx(5.9)


def test_the_words_for_time_left():
    assert describe_left(0.4) == "under a second left"
    assert describe_left(12.4) == "about 12 s left"
    assert describe_left(200) == "about 3 min left"
    assert progress_text(Progress(512, 1024), 3.2) == "blocks 512 of 1,024, about 3 s left"
    assert progress_text(Progress(512, 1024), None) == "blocks 512 of 1,024"


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def feed(events, clock, steps):
    for now, done in steps:
        clock.now = now
        events(Progress(done, 100))


def test_terminal_bar_redrawn_in_place_with_time_left():
    stream, clock = FakeTerminal(), Clock()
    events = TerminalEvents(stream, clock)
    feed(events, clock, [(0.0, 0), (0.5, 10), (2.0, 40)])
    shown = stream.getvalue()
    assert shown.count("\r") == 3 and "\n" not in shown
    assert shown.endswith("40/100 blocks, about 3 s left")  # 40 blocks in 2 s
    assert "left" not in shown.split("\r")[2]  # half a second in: no estimate yet
    feed(events, clock, [(3.0, 100)])
    last = stream.getvalue().split("\r")[-1]
    assert last.rstrip(" \n").endswith("100/100 blocks") and last.endswith(" \n")
    assert len(last) == len(shown.split("\r")[-1]) + 1  # spaces wipe the rest of the longer line it replaces
    feed(events, clock, [(4.0, 0), (5.0, 30)])  # the next launch stops half way:
    events(LogLine("error: ..."))  # its line goes below the bar
    assert stream.getvalue().endswith("30/100 blocks, about 2 s left\nerror: ...\n")


def test_a_log_gets_a_plain_line_now_and_then():
    stream, clock = io.StringIO(), Clock()
    events = TerminalEvents(stream, clock)
    feed(events, clock, [(0.0, 0), (2.0, 1), (PLAIN_EVERY - 1, 5)])
    assert stream.getvalue() == ""  # a short launch writes no progress to a log
    feed(events, clock, [(PLAIN_EVERY, 10), (PLAIN_EVERY + 1, 11), (2 * PLAIN_EVERY, 20)])
    assert stream.getvalue().splitlines() == [
        "[gpuviz] blocks 10 of 100, about 2 min left",
        "[gpuviz] blocks 20 of 100, about 80 s left",
    ]
    assert "\r" not in stream.getvalue()


def test_cli_run_piped_keeps_its_lines(tmp_path, capsys):
    from gpuviz.cli import main

    script = tmp_path / "s.py"
    script.write_text("import numpy as np\nfrom numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"
                      "k[64, 32](np.zeros(2048))\n")  # fmt: skip
    assert main(["run", str(script), "--backend", "sim", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "blocks" not in err.replace("blocks=", "") and "[gpuviz] 000 k" in err


def test_an_engine_reports_blocks_at_most_every_tenth_of_a_second_and_always_the_last():
    from gpuviz.core.progress import REPORT_EVERY, BlockProgress

    sent, clock = [], Clock()
    progress = BlockProgress(sent.append, total=10, clock=clock)
    for step in range(10):
        clock.now = step * REPORT_EVERY / 4
        progress.finished()
    assert sent == [Progress(1, 10), Progress(5, 10), Progress(9, 10), Progress(10, 10)]


@pytest.mark.parametrize("engine", ["vector", "reference"])
def test_both_engines_report_their_blocks(engine):
    import numpy as np

    from gpuviz.core.options import RunOptions
    from gpuviz.run.api import python_function
    from gpuviz.run.session import Session

    sent = []
    session = Session(RunOptions(backend="sim", engine=engine), notify=sent.append)
    kernel = python_function("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n")
    session.launch(kernel, 24, 32, (np.zeros(768),))
    progress = [event for event in sent if isinstance(event, Progress)]
    assert progress and progress[-1] == Progress(24, 24)
    assert all(a.done <= b.done for a, b in zip(progress, progress[1:]))
