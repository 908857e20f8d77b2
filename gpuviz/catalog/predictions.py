"""A lesson's prediction: what the student commits to before the answer is shown, and how it is judged.

Written in the lesson's text, directly after `## Question`, as one of two sections:

    ## Choices
    - [ ] 32,768: every update counts        one choice a line; `[x]` marks the right one
    - [x] 0.5
    measure: array[0]                        optional: choices that are numbers are also held
                                             against the run's value of this measure

    ## Predict a number
    array[0] after the run | array[0] == 0.5           one number box a line: `[LABEL |] MEASURE == NUMBER`,
    thread 5's elements | 10                            or a bare NUMBER where no measure reads it from a run
    ratio of the slowest to the fastest | 10 ± 2        `± TOL` (or `+- TOL`): how far off still counts

A number is right when it is within the tolerance of the lesson's number, and matches the run when it
is within the tolerance of the run's value of the measure (the same measures as `## Checks`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuviz.catalog.checks import Check, evaluate, parse_check
from gpuviz.core.errors import GpuvizError
from gpuviz.core.fidelity import MEASURED, label
from gpuviz.core.numbers import number
from gpuviz.core.trace.model import Trace

_CHOICE = re.compile(r"^[-*]\s*\[(?P<mark>[ xX])\]\s*(?P<text>.+)$")
_TOLERANCE = re.compile(r"\s*(?:±|\+-|\+/-)\s*(?P<tol>[\d.,_]+)\s*$")
_NUMBER = re.compile(r"-?\d[\d,_]*(?:\.\d+)?")
_LABEL_LETTER = re.compile(r"^\(?[a-z]\)\s*")  # "(b) numba copies them": the "(b)" is not the choice's words


@dataclass(frozen=True)
class Choice:
    text: str
    correct: bool

    @property
    def number(self) -> float | None:
        """The choice's value when it starts with a number ("32,768: every update counts")."""
        match = _NUMBER.match(self.text)
        return _to_float(match.group()) if match and not self.text[match.end() : match.end() + 1].isalnum() else None

    @property
    def words(self) -> str:
        return _LABEL_LETTER.sub("", self.text).strip()


@dataclass(frozen=True)
class NumberAsked:
    label: str
    value: float  # the lesson's number
    tolerance: float = 0.0
    check: Check | None = None  # reads the run's value; None for a number no measure reads

    def close(self, guess: float, target: float | None) -> bool:
        return target is not None and abs(guess - target) <= self.tolerance + 1e-9 * max(1.0, abs(target))


@dataclass(frozen=True)
class Prediction:
    choices: tuple[Choice, ...] = ()
    numbers: tuple[NumberAsked, ...] = ()
    measure: Check | None = None  # choices only: the measure a numeric choice is held against

    @property
    def answers(self) -> list[str | float]:
        """What must not be shown before the answer: the right choice's words (or number), each number."""
        right = [c.number if c.number is not None else c.words for c in self.choices if c.correct]
        return right + [n.value for n in self.numbers]


@dataclass(frozen=True)
class Verdict:
    right: bool  # matches the lesson's answer
    run_matched: bool | None  # matches the run's value; None where the run gives no value to hold it against
    lines: tuple[str, ...]  # what to tell the student, one line per choice or number


def parse_prediction(sections: dict[str, str]) -> Prediction | None:
    """The lesson's prediction from its `## Choices` or `## Predict a number` section; None without either."""
    if "choices" in sections:
        return _choices(sections["choices"])
    if "predict a number" in sections:
        return Prediction(numbers=tuple(_number_line(line) for line in _lines(sections["predict a number"])))
    return None


def _lines(body: str) -> list[str]:
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]


def _choices(body: str) -> Prediction:
    choices, measure = [], None
    for line in _lines(body):
        match = _CHOICE.match(line)
        if line.lower().startswith("measure:"):
            measure = parse_check(f"{line.split(':', 1)[1].strip()} == 0")  # the measure only; its number unused
        elif match is None:
            raise GpuvizError(f"choice {line!r}: write `- [ ] a choice`, or `- [x] the right one`")
        else:
            choices.append(Choice(match.group("text").strip(), match.group("mark") != " "))
    if len(choices) < 2 or sum(c.correct for c in choices) != 1:
        raise GpuvizError("## Choices: give at least two choices, one marked right with `- [x]`")
    return Prediction(choices=tuple(choices), measure=measure)


def _number_line(line: str) -> NumberAsked:
    label, _, asked = line.rpartition("|")
    tolerance = _TOLERANCE.search(asked)
    asked = asked[: tolerance.start()].strip() if tolerance else asked.strip()
    spread = _to_float(tolerance.group("tol")) if tolerance else 0.0
    if _NUMBER.fullmatch(asked):
        return NumberAsked(label.strip() or "your number", _to_float(asked), spread)
    check = parse_check(asked)
    if check.op != "==":
        raise GpuvizError(f"prediction {line!r}: write the answer with ==, e.g. `array[0] == 0.5 ± 0.01`")
    return NumberAsked(label.strip() or check.text.split("==")[0].strip(), check.value, spread, check)


def _to_float(text: str) -> float:
    return float(text.replace(",", "").replace("_", ""))


def parse_number(text: str) -> float | None:
    """A number the student typed ("32,768", "0.5"); None when it is not one."""
    text = text.strip()
    return _to_float(text) if _NUMBER.fullmatch(text) else None


def run_value(check: Check | None, traces: Sequence[Trace], default_launch: int = 0) -> float | None:
    """The run's value of a check's measure (None: no measure, or the launch is missing)."""
    if check is None:
        return None
    launch = default_launch if check.launch is None else check.launch
    return evaluate(check, traces[launch]).observed if launch < len(traces) else None


def run_label(check: Check | None, traces: Sequence[Trace], default_launch: int = 0) -> str:
    """The fidelity label of the run's value of a check (core/fidelity.py): '' for an exact count, "(model)"
    for the simulator's time or race outcome, "(measured: CARD, DATE)" for a GPU's."""
    if check is None:
        return ""
    launch = default_launch if check.launch is None else check.launch
    meta = traces[launch].meta if launch < len(traces) else {}
    fidelity = check.fidelity(meta.get("backend", "sim"))
    if fidelity == MEASURED:
        return " " + label(MEASURED, str(meta.get("device", "a GPU")), datetime.date.today().isoformat())
    return f" {label(fidelity)}" if label(fidelity) else ""


def _stated(asked: NumberAsked) -> str:
    """The lesson's number with its label: a `model:` check's or a time's is the model's."""
    return number(asked.value) + (
        f" {label(asked.check.fidelity())}" if asked.check and label(asked.check.fidelity()) else ""
    )


def judge_choice(prediction: Prediction, picked: int, traces: Sequence[Trace], default_launch: int = 0) -> Verdict:
    choice = prediction.choices[picked]
    lines = [f"You chose: {choice.text}. " + ("That is the answer." if choice.correct else "That is not the answer.")]
    observed = run_value(prediction.measure, traces, default_launch) if choice.number is not None else None
    matched = None
    if observed is not None:
        matched = abs(choice.number - observed) <= 1e-9 * max(1.0, abs(observed))
        said = "matches" if matched else "does not match"
        lines.append(
            f"The run gave {prediction.measure.text.split('==')[0].strip()} = {number(observed)}"
            f"{run_label(prediction.measure, traces, default_launch)}: your choice {said} it."
        )
    return Verdict(choice.correct, matched, tuple(lines))


def judge_numbers(prediction: Prediction, guesses: Sequence[float], traces: Sequence[Trace],
                  default_launch: int = 0) -> Verdict:  # fmt: skip
    lines, right, matched = [], True, []
    for asked, guess in zip(prediction.numbers, guesses, strict=True):
        ok = asked.close(guess, asked.value)
        observed = run_value(asked.check, traces, default_launch)
        line = f"{asked.label}: you said {number(guess)}"
        if observed is not None:
            matched.append(asked.close(guess, observed))
            gave = f"{number(observed)}{run_label(asked.check, traces, default_launch)}"
            line += f"; the run gave {gave} ({'a match' if matched[-1] else 'no match'})"
        lines.append(line + ("." if ok else f"; the lesson's number is {_stated(asked)}."))
        right = right and ok
    return Verdict(right, all(matched) if matched else None, tuple(lines))


def numbers_in(text: str) -> list[float]:
    """Every number written in a text ("2,048" is the number 2048, not 2 and 48)."""
    return [_to_float(token) for token in re.findall(r"\d[\d,_]*(?:\.\d+)?", text)]
