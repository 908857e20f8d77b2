"""How far to trust a number, said beside it: the three fidelity labels of lesson texts, captions,
verdicts and the views' words, and the test that a text says them.

- exact: a count that follows from the code (accesses, sectors, conflicts, blocks, a run's values and
  lost updates), the same on every backend. Written plain: a number with no label is exact.
- model: the simulator's cost model decided it (cycles, or the order of events that decides a race's
  outcome): "about 1,672 cycles (model)". The simulator times the source's operations, not the code a
  GPU's compiler makes of them.
- measured: a GPU ran it: "0.046 ms (measured: NVIDIA H200, 2026-11-26)", always with the card and the date.

A number that cannot be exact must carry one of the other two in its sentence: a time (cycles, ms, us,
ns, seconds), a ratio written `36x`, a count of runs ("7 of 8 runs"), and any number the caller names as
modelled (a lesson's `model:` checks). `unlabelled` finds those that do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpuviz.core.numbers import number

EXACT, MODEL, MEASURED = "exact", "model", "measured"
MODEL_LABEL = "(model)"
_NUMBER = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\d,]*\.\d)"
_NEEDS_LABEL = re.compile(
    rf"(?P<number>{_NUMBER})(?:\s*(?:cycles?|ms|µs|us|ns|seconds?|s\b|runs?\b)|x\b)"
    rf"|(?P<runs>{_NUMBER}) of \d[\d,]* runs"
)
_LABELS = re.compile(r"\(model\)|\(measured: [^()]*?\b\d{4}-\d{2}-\d{2}\)")
_SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(`*\d])|\n\s*\n|\n[-*] ")


def measured_label(card: str, date: str) -> str:
    """`(measured: NVIDIA H200, 2026-11-26)`: the card and the day a GPU measured it."""
    return f"(measured: {card}, {date})"


def label(fidelity: str, card: str = "", date: str = "") -> str:
    """The label a number of that fidelity carries ('' for exact, which is written plain)."""
    if fidelity == MODEL:
        return MODEL_LABEL
    if fidelity == MEASURED:
        return measured_label(card or "a GPU", date or "undated")
    return ""


def labelled(value: float | int, fidelity: str = EXACT, unit: str = "", card: str = "", date: str = "") -> str:
    """A number as a text states it: `1,672 cycles (model)`, `0.046 ms (measured: ...)`, `245`."""
    text = f"{number(value)} {unit}".strip()
    mark = label(fidelity, card, date)
    return f"{text} {mark}" if mark else text


def unlabelled(text: str, modelled: Iterable[float] = ()) -> list[str]:
    """The numbers of a text that need a model or measured label and have none in their sentence: times,
    `36x` ratios, counts of runs, and the numbers in `modelled` wherever they are written."""
    modelled = {round(float(v), 9) for v in modelled}
    missing = []
    for sentence in _SENTENCE.split(text):
        if not sentence or _LABELS.search(sentence):
            continue
        for found in _NEEDS_LABEL.finditer(sentence):
            missing.append(found.group(0))
        for found in re.finditer(_NUMBER, sentence):
            if round(float(found.group().replace(",", "")), 9) in modelled:
                missing.append(found.group())
    return missing
