"""How things read to people: code in backticks as code (numbers: core/numbers.py), and a trace's summary
for a notebook, with a picture of its grid drawn elsewhere (core knows no Qt). `%load_ext gpuviz`
registers the summary as IPython's formatter for traces."""

from __future__ import annotations

import base64
import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuviz.core.trace.model import Trace

CODE = re.compile(r"`([^`]+)`")


def code_as_html(text: str) -> str:
    """Plain text (a lesson's words, a verdict) as rich text: escaped, with `code` in a code font."""
    return CODE.sub(lambda found: f"<code>{found.group(1)}</code>", html.escape(text, quote=False))


def code_as_plain(text: str) -> str:
    """Plain text with its backticks gone, for places that show no rich text (a radio button, a title)."""
    return CODE.sub(lambda found: found.group(1), text)


def summary_rows(trace: Trace) -> list[tuple[str, str]]:
    from gpuviz.core.analysis.report import race_summary

    meta = trace.meta
    dims = lambda v: " x ".join(str(int(d)) for d in v)
    arrays = ", ".join(f"{a['name']} {a['dtype']}{tuple(a['shape'])}" for a in meta.get("arrays", []))
    events = 0 if trace.accesses is None else len(trace.accesses["thread"])
    return [
        ("kernel", f"{trace.kernel} (launch {meta.get('launch', 0)})"),
        ("launch", f"grid {dims(trace.grid)}, block {dims(trace.block)}: {trace.n_threads:,} threads"),
        ("ran on", f"{meta['backend']}: {meta['device']} ({meta['sm_count']} SMs)"),
        ("arrays", arrays or "none"),
        ("accesses", f"{events:,} recorded (level {meta.get('level')})" + (", truncated" if trace.truncated else "")),
        ("races", race_summary(trace).removeprefix("races: ")),
    ]


def summary_html(trace: Trace, png: bytes | None = None) -> str:
    """A table of what the launch was and found, with the grid's picture (PNG bytes) below where given."""
    rows = "".join(
        f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in summary_rows(trace)
    )
    image = f"<br><img src='data:image/png;base64,{base64.b64encode(png).decode()}'>" if png else ""
    return f"<table>{rows}</table>{image}"
