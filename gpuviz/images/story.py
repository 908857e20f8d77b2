"""One element's story without Qt: who read and wrote the picked element (or the first racing one), in
order, with lost updates on the race colour (core/element_story.py, as the app's story view tells it).
The row the cursor has reached is marked; a click on a row moves the cursor there."""

from __future__ import annotations

import numpy as np

from gpuviz.core.analysis.report import race_report
from gpuviz.core.element_story import ElementStory, element_story
from gpuviz.core.marks import element_name
from gpuviz.core.numbers import number
from gpuviz.core.theme_colours import BADGES
from gpuviz.images.canvas import Look, ViewImage, blank, rgb_of, wrapped, write_at
from gpuviz.scene.state import AppState

SIZE = 13
ROW = int(SIZE * 1.5)
SHOWN = 60  # groups of accesses told; the summary counts them all
COLUMNS = (("events", 0), ("threads", 110), ("block", 220), ("does", 285), ("value", 420), ("line", 520))
LOST = BADGES["race"]


def story_element(state: AppState):
    """The picked element, else the first racing one: the race is the story worth telling."""
    if state.element is not None:
        return state.element
    trace = state.trace
    report = race_report(trace)
    if report is None or not report.races:
        return None
    race = report.races[0]
    block = None if race.block is None else trace.block_linear(race.block)
    return trace.array_names().index(race.array), race.index, block


class StoryPicture:
    """Draws the story of an app state's element; the story is told once per element."""

    def __init__(self) -> None:
        self._key = None
        self.story: ElementStory | None = None

    def draw(self, state: AppState, box: tuple[int, int], look: Look) -> ViewImage:
        trace = state.trace
        rgb = blank(box, look.background)
        element = story_element(state) if trace.accesses is not None else None
        if element is None:
            why = ("Accesses were not recorded for this launch (level threads)." if trace.accesses is None
                   else "Click an element in the data view to see who read and wrote it.")  # fmt: skip
            return ViewImage(rgb, why, title="Element story")
        key = (id(trace), tuple(element))
        if key != self._key:
            times = state.replay.times if state.replay is not None else None
            self.story = element_story(trace, element[0], int(element[1]), element[2], shown=SHOWN, times=times)
            self._key = key
        story, per_block = self.story, int(np.prod(trace.block))
        text, muted = look.text, look.muted
        lines = wrapped(story.summary(), box[0] - 16, SIZE)
        items = [(line, text, (8, 6 + i * ROW)) for i, line in enumerate(lines)]
        top = 10 + len(lines) * ROW
        items += [(name, muted, (8 + x, top)) for name, x in COLUMNS]
        now = self._group_at(state.frame) if state.replay is not None else -1
        tops = []
        for g, group in enumerate(story.groups):
            y = top + (g + 1) * ROW
            if y + ROW > box[1]:
                break
            tops.append(y)
            if group.lost:
                rgb[y - 2 : y + ROW - 3, 4 : box[0] - 4] = rgb_of(LOST.background)
            if g == now:
                rgb[y - 2 : y + ROW - 3, 0:4] = text  # the theme's text colour: seen on both themes
            items += [(cell, rgb_of(LOST.text) if group.lost else text, (8 + x, y))
                      for cell, (_name, x) in zip(self._cells(group, per_block), COLUMNS)]  # fmt: skip
        write_at(rgb, items, SIZE)
        groups = story.groups

        def pick(_px: float, py: float):
            g = next((i for i, y in enumerate(tops) if y - 2 <= py < y + ROW - 2), -1)
            return ("event", (groups[g].last.position, groups[g].last.thread)) if g >= 0 else None

        legend = [(rgb_of(LOST.background), "update lost: the final value does not carry it"),
                  (text, "the accesses the cursor has reached last")]  # fmt: skip
        title = f"Element story: who read and wrote {element_name(trace, tuple(element))}, in order"
        return ViewImage(rgb, "", legend, pick, title=title)

    def _group_at(self, frame: int) -> int:
        """The last group of accesses the cursor has reached (-1: none yet)."""
        firsts = [group.first.position for group in self.story.groups]
        return int(np.searchsorted(firsts, frame, side="right")) - 1

    @staticmethod
    def _cells(group, per_block: int) -> list[str]:
        first, last = group.first, group.last
        events = f"{first.position:,}" if group.count == 1 else f"{first.position:,}-{last.position:,}"
        blocks = sorted({first.thread // per_block, last.thread // per_block})
        does = {"read": "read", "write": "wrote", "atomic": "updated to"}[first.kind]
        lost = f"  x {group.lost:,} lost" if group.lost else ""
        return [events, group.threads(), "-".join(map(str, blocks)), does, number(first.value), f"{first.line}{lost}"]
