"""The one table of views: the window docks them, Ctrl+E exports them, `gpuviz render` draws them,
and the tests run every row. Adding a view is one file in app/views/ and one row here.

Qt-free (classes are named, imported when a view is made), so the command line can list the names.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

AREAS = ("tab", "left", "right", "launch", "bottom")  # tab: the centre; launch: under the launch controls


@dataclass(frozen=True)
class ViewSpec:
    name: str  # `gpuviz render --view NAME`, `window.views[NAME]`
    factory: str  # "module:Class"; the class takes the app state
    title: str  # the tab's or dock's title
    area: str  # one of AREAS; docks of one area are stacked as tabs
    picture: bool  # drawn to PNG/SVG by export and `gpuviz render`
    # its picture reaches its bottom edge (cells, not an axis): on the stage the caption goes below it, not over it
    caption_below: bool = False


VIEWS = (
    ViewSpec("grid", "gpuviz.app.views.grid_view:GridView", "Threads", "tab", True, caption_below=True),
    ViewSpec("data", "gpuviz.app.views.data_view:DataView", "Data", "tab", True, caption_below=True),
    ViewSpec("timeline", "gpuviz.app.views.timeline_view:TimelineView", "SM timeline", "tab", True),
    ViewSpec("compare", "gpuviz.app.views.compare_view:CompareView", "Compare", "tab", True),
    ViewSpec("memory", "gpuviz.app.views.memory_view:MemoryView", "Memory", "tab", True),
    ViewSpec("streams", "gpuviz.app.views.streams_view:StreamsView", "Streams", "tab", True),
    ViewSpec("lesson", "gpuviz.app.views.lesson_view:LessonView", "Lesson", "right", False),
    ViewSpec("races", "gpuviz.app.views.race_view:RaceView", "Races", "right", True),
    ViewSpec("story", "gpuviz.app.views.story_view:StoryView", "Element story", "right", True),
    ViewSpec("code", "gpuviz.app.views.code_view:CodeView", "Code", "left", True),
    ViewSpec("output", "gpuviz.app.views.output_view:OutputView", "Output", "left", False),
    ViewSpec("record", "gpuviz.app.views.record_view:RecordView", "Thread", "launch", False),
    ViewSpec("legend", "gpuviz.app.views.legend_view:LegendView", "Legend", "launch", False),
    ViewSpec("animation", "gpuviz.app.views.animation_bar:AnimationBar", "Animation", "bottom", False),
)
BY_NAME = {spec.name: spec for spec in VIEWS}
PICTURE_VIEWS = tuple(spec.name for spec in VIEWS if spec.picture)


def view_class(spec: ViewSpec) -> type:
    module, name = spec.factory.split(":")
    return getattr(importlib.import_module(module), name)


def make_view(name: str, state):
    """A new view of the table, on `state`."""
    return view_class(BY_NAME[name])(state)
