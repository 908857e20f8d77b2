"""Fidelity labels (core/fidelity.py): every number a lesson's text, caption or verdict states that is not
an exact count carries "(model)" or "(measured: CARD, DATE)", and the hardware figures stored with the
lessons (bench/lesson_times.py) are the ones their texts state, labelled with the card and the date."""

import json

import pytest

from gpuviz.catalog import LESSONS as LESSON_FOLDER
from gpuviz.catalog import find, lessons
from gpuviz.catalog.predictions import judge_numbers, parse_prediction
from gpuviz.core.fidelity import MEASURED, MODEL, labelled, measured_label, unlabelled
from gpuviz.core.numbers import number
from gpuviz.run.demo import run_demo

LESSONS = lessons()
SHOWN = ("question", "choices", "answer", "explanation", "fix")  # and the number boxes' labels
HARDWARE = json.loads((LESSON_FOLDER / "hardware_times.json").read_text())


def modelled_numbers(entry) -> set[float]:
    """The numbers of the lesson's `model:` checks (and its times), less those an exact check states too."""
    checks = entry.checks + entry.fix_checks
    model = {c.value for c in checks if c.fidelity() == MODEL}
    return model - {c.value for c in checks if c.fidelity() != MODEL}


def test_the_labels_read_as_the_issue_writes_them():
    assert labelled(1672, MODEL, "cycles") == "1,672 cycles (model)"
    assert (
        labelled(0.046, MEASURED, "ms", "NVIDIA H200", "2026-11-26") == "0.046 ms (measured: NVIDIA H200, 2026-11-26)"
    )
    assert labelled(245) == "245"


@pytest.mark.parametrize("text, missing", [
    ("its threads last 1,564 cycles against 792", ["1,564 cycles"]),
    ("its threads last 1,564 cycles (model) against 792.", []),
    ("3.14 ms, and 36x faster.", ["3.14 ms", "36x"]),
    ("in 7 of 8 runs.", ["7 of 8 runs"]),
    ("in 7 of 8 runs (measured: NVIDIA H100, 2026-11-23).", []),
    ("in 7 of 8 runs (measured: NVIDIA H100).", ["7 of 8 runs"]),  # a measured label names its date
    ("a 64x48 image, 2 x 1,024 threads, 8 sectors.", []),  # sizes and counts are exact
])  # fmt: skip
def test_numbers_that_cannot_be_exact_need_a_label(text, missing):
    assert unlabelled(text) == missing


def test_a_modelled_value_needs_its_label_wherever_it_is_written():
    assert unlabelled("array[0] ends at 4.0 on the simulator.", [4]) == ["4.0"]
    assert unlabelled("array[0] ends at 4.0 on the simulator (model). It has 8 SMs.", [4]) == []


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_every_number_of_a_lesson_and_its_caption_carries_its_label(entry):
    model = modelled_numbers(entry)
    texts = {"description": entry.description, **{k: entry.sections.get(k, "") for k in SHOWN}}
    texts["number boxes"] = ". ".join(asked.label for asked in entry.prediction.numbers)
    if entry.evidence is not None:
        texts["caption"] = entry.evidence.caption
    for where, text in texts.items():
        missing = unlabelled(text, model)
        assert not missing, f"{entry.name}, {where}: {missing} need (model) or (measured: CARD, DATE)"


@pytest.mark.parametrize("slug", HARDWARE["lessons"])
def test_the_stored_hardware_figures_are_stated_labelled_in_their_lesson(slug):
    text = " ".join(find(slug).sections.values())
    stored = HARDWARE["lessons"][slug]
    label = measured_label(stored["card"], stored["date"])
    assert label in text, f"{slug}: no {label}"
    for size in stored["sizes"]:
        for version, ms in size["ms"].items():
            assert f"{number(ms)}" in text, f"{slug}: {version}'s {number(ms)} ms is not in the text"


def test_the_lessons_about_speed_and_time_have_hardware_figures_for_both_versions():
    speed = {"privatised-histogram", "coalescing", "transpose", "occupancy", "divergence-cost", "mandelbrot"}
    time = {"timing-a-kernel", "tiny-data", "streams-overlap"}
    assert speed | time <= set(HARDWARE["lessons"]) <= {entry.slug for entry in LESSONS}
    for stored in HARDWARE["lessons"].values():
        assert stored["card"].startswith("NVIDIA") and stored["runs"] >= 5 and stored["date"].startswith("20")
        assert len(stored["sizes"][0]["ms"]) >= 2  # two versions to compare


def test_a_verdict_labels_the_models_numbers(tmp_path):
    """sms-and-waves asks how many blocks an SM runs in all: the simulator's schedule decides it (model)."""
    entry = find("sms-and-waves")
    traces = run_demo(entry, tmp_path, backend="sim").session.traces
    verdict = judge_numbers(entry.prediction, [2, 9], traces)
    assert (
        "the run gave 8 (model) (no match)" in verdict.lines[1] and "lesson's number is 8 (model)" in verdict.lines[1]
    )
    assert "(model)" not in verdict.lines[0]  # 2 at once: the SM's limit, exact
    assert not unlabelled(" ".join(verdict.lines), modelled_numbers(entry))
    exact = judge_numbers(parse_prediction({"predict a number": "blocks | blocks == 63"}), [63], traces)
    assert "(model)" not in " ".join(exact.lines) and "the run gave 64" in exact.lines[0]
