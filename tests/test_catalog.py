"""Every catalog entry runs on the simulator at its default launch and matches its reference;
race lessons are flagged by the analysis and lose updates under the default schedule."""

import re
import time

import pytest

from gpuviz.catalog import catalog, find, lessons
from gpuviz.cli import main
from gpuviz.core.analysis.outcomes import lost_updates
from gpuviz.core.analysis.races import find_races
from gpuviz.run.demo import run_demo
from tests import full_size

LESSONS = lessons()


COURSE = ["one-thread", "one-cell-per-thread", "add-arrays", "vector-add-bounds", "too-many-threads",
          "grid-stride", "grid-3d", "host-and-device", "warps", "sms-and-waves", "the-race", "histogram",
          "segmented-reduction", "missing-syncthreads", "privatised-histogram", "two-level-reduction",
          "library-block-sum", "barrier-divergence", "coalescing", "matmul", "transpose", "occupancy",
          "divergence-cost", "scan", "mandelbrot", "timing-a-kernel", "tiny-data", "streams-overlap"]  # fmt: skip


def test_the_lessons_cover_the_course_in_order():
    numbers = [int(e.name.split("-")[0]) for e in LESSONS]
    # ascending from 1, each once (lessons built side by side may leave a number free until the course is renumbered)
    assert numbers[0] == 1 and all(a < b for a, b in zip(numbers, numbers[1:])), numbers
    assert [e.name.split("-", 1)[1] for e in LESSONS] == COURSE
    for entry in LESSONS:
        assert entry.title and entry.description, entry.name
        assert {"question", "answer", "explanation"} <= set(entry.sections), entry.name
    assert len(catalog()) > len(LESSONS)  # the examples follow


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_what_is_shown_before_run_does_not_give_the_answer_away(entry):
    """The answer's lead (its first sentence) is in neither title nor description, and its first number is not
    in the title (a description may state the launch's sizes, which the question needs)."""
    lead = re.split(r"(?<=[.:])\s", entry.sections["answer"], maxsplit=1)[0].rstrip(".:")
    shown = f"{entry.title} {entry.description}".lower()
    assert re.search(rf"(?<![\w.,]){re.escape(lead.lower())}(?!\w|[.,]\d)", shown) is None, entry.name
    numbers = re.findall(r"\d[\d,.]*\d|\d", lead)
    first = rf"(?<![\d.,]){re.escape(numbers[0])}(?![\d])" if numbers else None
    assert first is None or re.search(first, entry.title) is None, (entry.name, numbers)


# Words that tell what a bug lesson is about; the script is in the editor before Run, its names included.
GIVEAWAYS = {"bug", "race", "races", "racy", "missing", "lost", "wrong", "invalid", "refused", "conflict",
             "conflicts", "uncoalesced", "coalesced", "strided"}  # fmt: skip


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_the_script_shown_before_run_does_not_give_the_answer_away(entry):
    """No giveaway word in its docstring, comments, names or prints, no answer's lead, and no settings line
    (the text's `## Run` holds those)."""
    source = entry.source
    assert not set(re.findall(r"[a-z]+", source.lower())) & GIVEAWAYS, entry.name
    lead = re.split(r"(?<=[.:])\s", entry.sections["answer"], maxsplit=1)[0].rstrip(".:")
    assert len(lead.split()) < 3 or lead.lower() not in source.lower(), entry.name  # a lone number may well be there
    assert "# gpuviz:" not in source, entry.name


def test_a_lessons_run_settings_come_from_its_text_or_else_its_scripts_flag_line(tmp_path):
    from gpuviz.catalog import lessons as load

    script = "import numpy as np\nfrom numba import cuda\n"
    two_launches = "\n@cuda.jit\ndef k(a):\n    a[0] = 1\n\na = np.zeros(1)\nk[1, 1](a)\nk[1, 1](a)\n"
    (tmp_path / "01-text.py").write_text(script + two_launches)  # launch=1 names a launch the script makes
    (tmp_path / "01-text.md").write_text("# T\nD\n\n## Question\nQ\n\n## Run\nrace, sms=4, launch=1\n")
    (tmp_path / "02-flag.py").write_text("# gpuviz: race, sms=2\n" + script)
    (tmp_path / "02-flag.md").write_text("# T\nD\n")
    text, flag = load(tmp_path)
    assert (text.racy, text.sms, text.launch) == (True, 4, 1)
    assert (flag.racy, flag.sms, flag.launch) == (True, 2, None)
    assert [e.slug for e in LESSONS if e.racy] == ["the-race", "histogram", "missing-syncthreads", "scan"]


def test_the_too_big_block_is_refused_and_the_valid_launch_covers_the_array(tmp_path, capsys):
    assert main(["demo", "too-many-threads", "--backend", "sim", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Exception occurred: block has 2048 threads" in out and "ran too" not in out
    assert len(list(tmp_path.glob("*.npz"))) == 1


@pytest.mark.parametrize("entry", full_size.entries(LESSONS))
def test_lesson_runs_at_its_default_launch(entry, tmp_path):
    started = time.perf_counter()
    result = run_demo(entry, tmp_path, backend="sim")
    seconds = time.perf_counter() - started
    assert result.session.records, entry.name
    if entry.racy:
        first = result.session.traces[0]
        report = find_races(first)
        assert report.racy, entry.name
        if any(race.space == "global" for race in report.races):  # a global race loses updates
            assert sum(int(lost.sum()) for lost in lost_updates(first).values()) > 0
        # (the missing barrier's race is in shared memory: its sum may well come out right, which is its point)
    else:
        assert result.reference == "reference: ok", result.reference
    print(f"{entry.name}: {seconds:.2f} s")


def test_demo_with_too_few_threads_says_what_differs(tmp_path, capsys):
    assert main(["demo", "add-arrays", "--grid", "1", "--block", "1", "--backend", "sim", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "reference: differs" in out and "Mismatched elements: 999 / 1000" in out


def test_demo_of_a_race_prints_its_races(tmp_path, capsys):
    assert main(["demo", "the-race", "--backend", "sim", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cudakernel0: 2 locations in 1 array" in out and "line 11" in out


def test_list_and_bad_names(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("01-one-thread") and any(line.startswith("vector_add") for line in out)
    assert main(["demo", "nope"]) == 1
    assert "error: no catalog entry 'nope'" in capsys.readouterr().err
    assert main(["demo", "vector-add-bounds", "--block", "0"]) == 1
    assert "error: --block '0'" in capsys.readouterr().err
    assert find("the-race").sms is None and find("the-race").racy


def test_the_race_lesson_runs_the_tutorials_launch_and_its_one_wave_suggestion_holds(tmp_path):
    """[1024, 1024] as in the tutorial: a few generations survive; the 64 blocks the text suggests
    trying fit on the device at once, so every thread reads the initial value."""
    lesson = find("the-race")
    trace = run_demo(lesson, tmp_path / "full", backend="sim").session.traces[0]
    assert trace.grid == (1024, 1, 1) and trace.block == (1024, 1, 1)
    assert list(trace.before("array")) == [0, 1] and 2.5 <= trace.after("array")[0] <= 6.5  # an H100: 2.5-6.5
    one_wave = run_demo(lesson, tmp_path / "wave", grid=(64, 1, 1), backend="sim").session.traces[0]
    assert list(one_wave.after("array")) == [0.5, 1.5]
