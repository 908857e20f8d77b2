"""A lesson's `## Evidence`: once the answer is shown, the app shows it on the frames that prove it
(a Scene, scene/scene.py).

One `key: value` a line (docs/lessons.md, "Evidence"):

    view: data                       the view to raise (a name of app/views/table.py)
    launch: 1                        the launch it is on (default: the lesson's `launch=N`, else 0)
    partner: 0                       the launch beside it in the Compare view (default: the first other one)
    at: lost update of array[0]      where the replay's cursor goes (core/moments.py MOMENTS)
    thread: race                     the thread to select (core/moments.py THREADS)
    element: array[0]                the element to select (Data view, Element story)
    line: 13                         the source line to select (Code and Memory views)
    colour: value read               the grid's colour mode (core/colors.py MODES), chosen for the claim
    mark: readers of array[0]        threads or elements to outline, with a call-out (core/marks.py KINDS);
                                     one line each, as many as the claim needs
    order: by SM waves               an animation order instead of the replay (core/frames.py ORDERS)
    caption: Every thread has read {element} = {value} ...   what the student sees there

The caption may name what was resolved: {thread}, {element}, and {value} (the element's value at the
cursor). Resolving is Qt-free and checks every word against the launch: a lesson whose evidence
names a write that never happens fails its test.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuviz.core import moments
from gpuviz.core.colors import MODES
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import ORDERS, REPLAY
from gpuviz.core.marks import Focus, element_name, resolve_mark, thread_name
from gpuviz.core.numbers import number
from gpuviz.core.replay import Replay
from gpuviz.core.trace.model import Trace
from gpuviz.scene.scene import Scene, check_partner

KEYS = ("view", "launch", "partner", "at", "thread", "element", "line", "colour", "order", "mark", "caption")


@dataclass(frozen=True)
class Evidence:
    """The section as written."""

    view: str
    caption: str
    launch: int | None = None  # None: the lesson's launch
    at: str | None = None
    thread: str | None = None
    element: str | None = None
    line: int = 0
    colour: str | None = None
    order: str | None = None
    marks: tuple[str, ...] = ()
    partner: int | None = None  # None: the Compare view's first other launch


def parse_evidence(text: str) -> Evidence | None:
    """The evidence of a `## Evidence` body, None when there is none."""
    fields: dict[str, str] = {}
    marks: list[str] = []
    for raw in text.splitlines():
        line = raw.strip().lstrip("- ").strip()
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if not colon or key.strip() not in KEYS:
            raise GpuvizError(f"evidence line {line!r}: write `KEY: value` with KEY one of {', '.join(KEYS)}")
        if key.strip() == "mark":
            marks.append(value.strip())
        else:
            fields[key.strip()] = value.strip()
    if not fields:
        return None
    for needed in ("view", "caption"):
        if needed not in fields:
            raise GpuvizError(f"evidence: add a `{needed}:` line (every evidence names a view and a caption)")
    if fields.get("colour") and fields["colour"] not in MODES:
        raise GpuvizError(f"evidence colour {fields['colour']!r}: use one of {', '.join(MODES)}")
    if fields.get("order") and fields["order"] not in ORDERS:
        raise GpuvizError(f"evidence order {fields['order']!r}: use one of {', '.join(ORDERS)}")
    for whole in ("launch", "partner", "line"):
        if whole in fields and not fields[whole].isdigit():
            raise GpuvizError(f"evidence {whole} {fields[whole]!r}: give a whole number")
    launch = int(fields["launch"]) if "launch" in fields else None
    partner = int(fields["partner"]) if "partner" in fields else None
    if partner is not None and partner == launch:
        raise GpuvizError(f"evidence partner {partner}: that is the evidence's own launch; name another launch "
                          "of the script, counted from 0")  # fmt: skip
    return Evidence(fields["view"], fields["caption"], launch, fields.get("at"), fields.get("thread"),
                    fields.get("element"), int(fields.get("line", 0)), fields.get("colour"), fields.get("order"),
                    tuple(marks), partner)  # fmt: skip


def resolve(evidence: Evidence, trace: Trace, replay: Replay | None = None, launches: tuple[Trace, ...] = ()) -> Scene:
    """The scene the evidence asks for, every word of it found in the launch (`launches`: the run it belongs
    to); a GpuvizError says which word is not there. Colours the evidence does not name are the first mode."""
    if replay is None and trace.accesses is not None:
        replay = Replay(trace)
    needs_log = evidence.at or (evidence.thread and not moments.names_a_thread_by_place(evidence.thread)) or (
        evidence.element == "race")  # fmt: skip
    if needs_log and replay is None:
        raise GpuvizError("evidence: this launch was recorded without its accesses (level threads)")
    frame = moments.moment(trace, replay, evidence.at) if evidence.at else None
    gid = moments.thread(trace, replay, evidence.thread) if evidence.thread else -1
    chosen = moments.element(trace, evidence.element) if evidence.element else None
    order = REPLAY if frame is not None else (evidence.order or (REPLAY if replay is not None else ORDERS[1]))
    caption = _caption(evidence.caption, _words(trace, replay, frame, gid, chosen))
    layer = int(trace.threads["block_idx"][gid][2]) if gid >= 0 else 0
    colour = evidence.colour or MODES[0]
    focus = Focus(frame, gid, chosen, evidence.line)
    marks = tuple(resolve_mark(text, trace, replay, focus) for text in evidence.marks)
    partner = -1 if evidence.partner is None else evidence.partner
    if partner >= 0:
        check_partner(partner, trace, launches)  # named by the lesson: its own words in the message
    return Scene(trace, launches, order, layer, frame, gid, chosen, evidence.line, colour, evidence.view, caption,
                 marks=marks, partner=partner)  # fmt: skip


def _caption(text: str, words: dict[str, str]) -> str:
    try:
        caption = text.format_map(words)
    except (KeyError, ValueError, IndexError) as exc:
        raise GpuvizError(
            f"evidence caption: {{{exc}}} is not known; name only {{thread}}, {{element}}, {{value}}"
        ) from exc
    for word, value in words.items():
        if f"{{{word}}}" in text and not value:
            raise GpuvizError(
                f"evidence caption names {{{word}}}: give the evidence a{'n' * (word == 'element')} "
                f"{'thread' if word == 'thread' else 'element'} line"
            )
    return caption[:1].upper() + caption[1:]


def _words(trace: Trace, replay: Replay | None, frame: int | None, gid: int, chosen) -> dict[str, str]:
    words = {"thread": "", "element": "", "value": ""}
    if gid >= 0:
        words["thread"] = thread_name(trace, gid)
    if chosen is not None:
        aid, index, block = chosen
        words["element"] = element_name(trace, chosen)
        if replay is not None:
            at = replay.events if frame is None else frame
            words["value"] = number(replay.values_at(aid, at, block)[index])
    return words
