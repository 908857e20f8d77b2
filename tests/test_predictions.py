"""Predictions: the format of `## Choices` and `## Predict a number`, how a prediction is judged
against the lesson and a run, and that nothing shown before Run gives the right one away."""

import re

import pytest

from gpuviz.catalog import lessons
from gpuviz.catalog.predictions import judge_choice, judge_numbers, numbers_in, parse_number, parse_prediction
from gpuviz.core.errors import GpuvizError
from gpuviz.run.demo import run_demo
from tests import full_size

LESSONS = lessons()


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_every_lesson_asks_for_a_prediction_right_after_its_question(entry):
    assert entry.prediction is not None, f"{entry.name}: add `## Choices` or `## Predict a number`"
    headings = [h.lower() for h in re.findall(r"^## (.+)$", entry.path.with_suffix(".md").read_text(), re.M)]
    assert headings[headings.index("question") + 1] in ("choices", "predict a number"), entry.name


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_the_question_says_the_form_of_its_answer(entry):
    """A choice is asked as one ("(One choice.)"), numbers as numbers ("(A number.)", "(Two numbers: ...)")."""
    question = entry.sections["question"]
    if entry.prediction.choices:
        assert "(One choice" in question, f"{entry.name}: the question offers choices: end it with (One choice.)"
    else:
        count = len(entry.prediction.numbers)
        said = "(A number" if count == 1 else f"({['', '', 'Two', 'Three', 'Four'][count]} numbers"
        assert said in question, f"{entry.name}: the question asks for {count} number(s): say {said}.)"
        assert "choice" not in question.lower(), entry.name


@pytest.mark.parametrize("entry", LESSONS, ids=lambda e: e.name)
def test_the_title_description_and_question_do_not_give_the_prediction_away(entry):
    shown = f"{entry.title}\n{entry.description}\n{entry.sections['question']}"
    prose = re.sub(r"`[^`]*`", "", shown)  # code names an API (`cuda.grid(1)`), not an answer
    for answer in entry.prediction.answers:
        if isinstance(answer, float):
            assert answer not in numbers_in(prose), f"{entry.name}: {answer:g} is in {shown!r}"
        else:
            assert re.search(rf"\b{re.escape(answer.lower())}\b", shown.lower()) is None, (entry.name, answer)


def test_choices_parse_with_the_right_one_marked():
    prediction = parse_prediction({"choices": "- [ ] 32,768: every update counts\n- [x] 0.5\nmeasure: array[0]"})
    assert [c.text for c in prediction.choices] == ["32,768: every update counts", "0.5"]
    assert [c.correct for c in prediction.choices] == [False, True]
    assert [c.number for c in prediction.choices] == [32768, 0.5]
    assert prediction.measure.measure == "element" and prediction.answers == [0.5]
    assert parse_prediction({"choices": "- [ ] (a) hangs\n- [X] (c) it warns"}).answers == ["it warns"]


def test_numbers_parse_with_labels_and_tolerances():
    prediction = parse_prediction({"predict a number": "reads | launch 1: reads(A) == 1,152\n10 ± 2\nx | 3 +- 0.5"})
    first, second, third = prediction.numbers
    assert (first.label, first.value, first.tolerance, first.check.launch) == ("reads", 1152, 0, 1)
    assert (second.label, second.value, second.tolerance, second.check) == ("your number", 10, 2, None)
    assert (third.label, third.value, third.tolerance) == ("x", 3, 0.5)
    assert parse_prediction({"question": "?"}) is None


@pytest.mark.parametrize("sections", [{"choices": "- [ ] a\n- [ ] b"}, {"choices": "- [x] a"},
                                      {"choices": "- [x] a\nb"}, {"predict a number": "races > 2"},
                                      {"predict a number": "volume(a) == 3"}])  # fmt: skip
def test_a_bad_prediction_says_how_to_write_one(sections):
    with pytest.raises(GpuvizError):
        parse_prediction(sections)


def test_typed_numbers():
    assert [parse_number(t) for t in ("32,768", " 0.5 ", "-2", "many", "")] == [32768, 0.5, -2, None, None]
    assert numbers_in("64 blocks of 1,024 threads on 8x8 tiles, segments 1-4") == [64, 1024, 8, 8, 1, 4]


@pytest.fixture(scope="module")
def race_run(tmp_path_factory):
    entry = next(e for e in LESSONS if e.name.endswith("the-race"))
    return entry, run_demo(entry, tmp_path_factory.mktemp("race"), backend="sim").session.traces


def test_a_number_is_judged_against_the_lesson_and_the_run_and_labelled(race_run):
    """A race's outcome on the simulator is the cost model's: the verdict says so beside the run's number and
    the lesson's (core/fidelity.py)."""
    _, traces = race_run
    asked = parse_prediction({"predict a number": "array[0] after the launch | model: array[0] == 4 ± 2.5"})
    wrong = judge_numbers(asked, [32768], traces)
    assert (wrong.right, wrong.run_matched) == (False, False)
    assert "the run gave 4 (model) (no match)" in wrong.lines[0]
    assert "the lesson's number is 4 (model)" in wrong.lines[0]
    right = judge_numbers(asked, [6], traces)  # within the lesson's ± 2.5 of 4, and of the run's 4
    assert (right.right, right.run_matched) == (True, True)
    off = judge_numbers(asked, [7], traces)
    assert (off.right, off.run_matched) == (False, False)


def test_a_numeric_choice_is_also_held_against_the_run(race_run):
    _, traces = race_run
    prediction = parse_prediction({"choices": "- [ ] 524,288\n- [x] 4\nmeasure: array[0]"})
    picked_wrong, picked_right = judge_choice(prediction, 0, traces), judge_choice(prediction, 1, traces)
    assert (picked_wrong.right, picked_wrong.run_matched) == (False, False)
    assert (picked_right.right, picked_right.run_matched) == (True, True)
    assert "The run gave array[0] = 4" in picked_right.lines[1]
    words = judge_choice(parse_prediction({"choices": "- [x] yes\n- [ ] no"}), 1, traces)
    assert (words.right, words.run_matched, len(words.lines)) == (False, None, 1)


@pytest.mark.parametrize("entry", full_size.entries(LESSONS))
def test_the_right_prediction_matches_the_lessons_own_run(entry, tmp_path):
    """The lesson's number (or its right numeric choice) is what the simulator's run gives."""
    prediction = entry.prediction
    measured = [n for n in prediction.numbers if n.check is not None and n.check.where in (None, "sim")]
    right_choice = next(i for i, c in enumerate(prediction.choices) if c.correct) if prediction.choices else None
    if not measured and not (prediction.measure is not None and prediction.choices[right_choice].number is not None):
        pytest.skip("no number of this lesson is read from a run")
    traces = run_demo(entry, tmp_path, backend="sim").session.traces
    if measured:
        verdict = judge_numbers(prediction, [n.value for n in prediction.numbers], traces)
    else:
        verdict = judge_choice(prediction, right_choice, traces)
    assert verdict.right and verdict.run_matched is not False, verdict.lines


@pytest.fixture(scope="module")
def million_run():
    """1,024 threads each write 1,024 into a: the sum is 1,048,576, a number %g would print as 1.04858e+06."""
    import numpy as np

    import gpuviz

    src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1024.0\n"
    return [gpuviz.trace(src, backend="sim")[4, 256](np.zeros(1024))]


def test_a_verdicts_numbers_read_as_people_write_them(million_run):
    asked = parse_prediction({"predict a number": "the sum of `a` | sum(a) == 1,048,576"})
    verdict = judge_numbers(asked, [1048576.5], million_run)
    assert verdict.lines == ("the sum of `a`: you said 1,048,576.5; the run gave 1,048,576 (no match); "
                             "the lesson's number is 1,048,576.",)  # fmt: skip
    choice = judge_choice(parse_prediction({"choices": "- [x] 1,048,576\n- [ ] 4.5\nmeasure: sum(a)"}), 1, million_run)
    assert choice.lines[1] == "The run gave sum(a) = 1,048,576: your choice does not match it."
