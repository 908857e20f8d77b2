"""The colours of the light and dark themes as a table (no Qt), and every pair of text and background the
app draws with them, so that a test can hold each pair to WCAG AA's 4.5:1 contrast (a washed-out projector
at the back of a classroom loses the rest).

The window's style sheet, the pictures' slides, the lesson text's links, the source editor and the badges
that say good or bad all read their colours here.
"""

from __future__ import annotations

from dataclasses import dataclass

AA_CONTRAST = 4.5  # WCAG 2's level AA for body text


@dataclass(frozen=True)
class ThemeColours:
    background: str  # the window
    text: str
    muted: str  # secondary words: disabled buttons, the captions of pictures, axis numbers over a plot
    button: str
    border: str
    field: str  # text boxes, lists, the lesson text
    overlay: tuple[int, int, int, int]  # the stage's caption over the picture: RGBA, the picture shows through
    plot: str  # the drawing area of plots and of the grid and data pictures
    picture: str  # a slide's background (pictures, clips, notebooks)
    link: str  # glossary terms in the lesson text
    bad: str  # errors said in words on the window's own background (the status line, the launch panel)


THEMES: dict[str, ThemeColours] = {
    "dark": ThemeColours(background="#1b1c24", text="#e6e6ee", muted="#a4a4b6", button="#2c2e3b",
                         border="#55566a", field="#242530", overlay=(27, 28, 36, 225), plot="#18181e",
                         picture="#1b1c24", link="#7cc4ee", bad="#ff8a8a"),
    "light": ThemeColours(background="#f3f3f6", text="#16161d", muted="#55556a", button="#e1e2ea",
                          border="#8e8ea0", field="#ffffff", overlay=(243, 243, 246, 230), plot="#fafafc",
                          picture="#ffffff", link="#0b55a3", bad="#b3141e"),
}  # fmt: skip


@dataclass(frozen=True)
class Badge:
    """Words on a colour of their own: the same in both themes, so they never depend on what is behind."""

    text: str
    background: str


BADGES = {
    "run": Badge("#ffffff", "#2e7d32"),  # the Run button
    "busy": Badge("#000000", "#f9a825"),  # Run while a run goes on
    "stop": Badge("#ffffff", "#c62828"),
    "primary": Badge("#ffffff", "#1565c0"),  # Commit, Show the answer, Check my fix
    "evidence": Badge("#16161d", "#f9a825"),  # the caption above the views: what they show now
    "error banner": Badge("#ffe4e8", "#5c1a24"),  # memory errors and barrier divergence above the views
    "good": Badge("#ffffff", "#1b6e32"),  # the run agrees, the fix passed
    "bad": Badge("#ffffff", "#b3261e"),  # the run disagrees, the fix failed, an error on the stage
    "race": Badge("#ffffff", "#c4122f"),  # elements written by several threads, updates lost
}
# The Memory view's cost cells: green (as good as it gets) to red (as bad), dark enough for white words
HEAT_TEXT, HEAT_GOOD, HEAT_BAD = "#ffffff", (30, 120, 50), (180, 40, 50)
HEAT_SAMPLES = 11  # steps of the ramp the contrast test checks


def heat(badness: float) -> tuple[int, int, int]:
    """The cost colour for a badness of 0 (good) to 1 (bad), clipped."""
    b = min(1.0, max(0.0, badness))
    return tuple(round(good + (bad - good) * b) for good, bad in zip(HEAT_GOOD, HEAT_BAD))


# Words over cells whatever their colour (thread ids, values, block names): white on a dark backing
LABEL_TEXT, LABEL_BACKING = "#ffffff", (0, 0, 0, 150)
HELP_TEXT, HELP_OVERLAY = "#f0f0f6", (10, 10, 16, 225)  # the keys over the window (F1); the window shows through


def badge_html(words: str, name: str) -> str:
    """Rich text (Qt's HTML) of words in a badge: its colours read alike on either theme's background."""
    badge = BADGES[name]
    return f"<span style='background:{badge.background}; color:{badge.text}'>&nbsp;{words}&nbsp;</span>"


# The source editor and the code view are dark in both themes (their colours are the code's, not the window's).
EDITOR = {
    "background": "#1e1f29",
    "text": "#eeffff",
    "gutter": "#161720",
    "line number": "#8b93ad",
    "marked line number": "#ff6e86",  # a line with an error
    "count": "#7fdbca",  # how many times the selected thread ran a line
    "here": "#a6e22e",  # threads at this line now (the replay)
    "keyword": "#c792ea",
    "cuda": "#82aaff",
    "decorator": "#ffcb6b",
    "number": "#f78c6c",
    "string": "#c3e88d",
    "comment": "#8e97c0",
    "error line": "#781e2d",  # behind a line with an error
    "selected line": "#7d5a0e",  # behind the line selected elsewhere
    "thread line": "#285a8c",  # behind the lines the selected thread ran
    "line": "#1e5f32",  # behind the lines threads are at (the replay)
    "modelled line": "#50326e",  # behind a library call the simulator ran as a model
}


@dataclass(frozen=True)
class TextPair:
    where: str  # what the pair is, in the app's words
    text: str
    background: str

    @property
    def contrast(self) -> float:
        return contrast(self.text, self.background)


def text_pairs(theme: str) -> list[TextPair]:
    """Every pair of text and background colour that a theme draws words with."""
    c = THEMES[theme]
    under = "#ffffff" if theme == "dark" else "#000000"  # the worst picture under the translucent caption
    caption = blend(c.overlay, under)
    pairs = [
        TextPair("window text", c.text, c.background),
        TextPair("text in a field (lists, lesson text)", c.text, c.field),
        TextPair("button text", c.text, c.button),
        TextPair("disabled button", c.muted, c.button),
        TextPair("muted text", c.muted, c.background),
        TextPair("muted text in a field", c.muted, c.field),
        TextPair("glossary link", c.link, c.field),
        TextPair("inline code", c.text, c.field),
        TextPair("error in words (status, launch panel)", c.bad, c.background),
        TextPair("caption over the picture (stage)", c.text, caption),
        TextPair("axis text over a plot", c.text, c.plot),
        TextPair("row and column numbers over a plot", c.muted, c.plot),
        TextPair("slide title", c.text, c.picture),
        TextPair("slide caption", c.muted, c.picture),
        TextPair("tooltip", c.text, c.field),
    ]
    pairs += [TextPair(f"badge: {name}", badge.text, badge.background) for name, badge in BADGES.items()]
    pairs.append(TextPair("keys over the window (F1)", HELP_TEXT, blend(HELP_OVERLAY, "#ffffff")))
    pairs.append(TextPair("label over a cell (the lightest)", LABEL_TEXT, blend(LABEL_BACKING, "#ffffff")))
    pairs += [TextPair(f"memory cost cell, badness {k / (HEAT_SAMPLES - 1):.1f}", HEAT_TEXT,
                       hex_colour(heat(k / (HEAT_SAMPLES - 1)))) for k in range(HEAT_SAMPLES)]  # fmt: skip
    return pairs + editor_pairs()


def editor_pairs() -> list[TextPair]:
    e = EDITOR
    words = ("text", "keyword", "cuda", "decorator", "number", "string", "comment")
    pairs = [TextPair(f"editor: {word}", e[word], e["background"]) for word in words]
    pairs += [TextPair(f"editor gutter: {word}", e[word], e["gutter"])
              for word in ("line number", "marked line number", "count", "here")]  # fmt: skip
    pairs += [TextPair(f"editor text on the {behind}", e["text"], e[behind])
              for behind in ("error line", "selected line", "thread line", "line", "modelled line")]  # fmt: skip
    return pairs


# ---- WCAG 2 relative luminance and contrast -------------------------------------------------------------
def rgb(colour: str) -> tuple[int, int, int]:
    """'#rrggbb' as three 0..255 integers."""
    value = colour.lstrip("#")
    if len(value) != 6:
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def hex_colour(channels) -> str:
    return "#" + "".join(f"{int(round(c)):02x}" for c in channels[:3])


def relative_luminance(colour: str | tuple) -> float:
    """WCAG 2's relative luminance of an sRGB colour, 0 (black) to 1 (white)."""
    channels = rgb(colour) if isinstance(colour, str) else colour[:3]

    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str | tuple, second: str | tuple) -> float:
    """WCAG 2's contrast ratio of two colours, 1 (the same) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def blend(rgba: tuple[int, int, int, int], under: str) -> str:
    """A translucent colour over an opaque one, as '#rrggbb'."""
    alpha = rgba[3] / 255
    return hex_colour([top * alpha + below * (1 - alpha) for top, below in zip(rgba[:3], rgb(under))])


def css(rgba: tuple[int, int, int, int]) -> str:
    """An RGBA colour as a style sheet writes it."""
    return f"rgba({rgba[0]}, {rgba[1]}, {rgba[2]}, {rgba[3]})"
