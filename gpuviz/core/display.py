"""How things read to people: numbers as people write them (1,048,576; 0.5; 1,672.25), code in backticks
as code, and a trace's summary for a notebook, with a picture of its grid drawn elsewhere (core knows no
Qt). `%load_ext gpuviz` registers the summary as IPython's formatter for traces."""

from __future__ import annotations

import base64
import html
import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuviz.core.trace.model import Trace

SIGNIFICANT = 6  # digits a non-integer keeps, as printf's %g does, but never in exponent form between ...
PLAIN_RANGE = (1e-4, 1e15)  # ... these magnitudes: beyond them a number keeps the short form 1.5e-7
CODE = re.compile(r"`([^`]+)`")


def format_number(value: float | int | complex, significant: int = SIGNIFICANT) -> str:
    """A number as people write it: 1,048,576 (thousands separated, no exponent), 0.5, 4.5, 1,672.25
    (as many decimals as it needs, up to `significant` digits); 1e-07 and 2.4e+20 where plain digits
    would not read. Integers of any size, floats, NumPy scalars, bools and complex numbers."""
    if isinstance(value, complex) or getattr(value, "dtype", None) is not None and value.dtype.kind == "c":
        return _complex_text(complex(value), significant)
    if isinstance(value, bool) or getattr(value, "dtype", None) is not None and value.dtype.kind in "biu":
        return f"{int(value):,}"  # exact: a float would round a 64-bit integer
    if isinstance(value, int):
        return f"{value:,}"
    return _float_text(float(value), significant)


def _float_text(value: float, significant: int) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    size = abs(value)
    if value == 0:
        return "0"
    if not PLAIN_RANGE[0] <= size < PLAIN_RANGE[1]:
        return f"{value:.{min(significant, 3)}g}"  # 1.5e-07: few digits, the exponent is what matters
    if value.is_integer():
        return f"{int(value):,}"
    decimals = max(1, significant - 1 - math.floor(math.log10(size)))
    text = f"{value:,.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _complex_text(value: complex, significant: int) -> str:
    real = format_number(value.real, significant)
    if value.imag == 0:
        return real
    return f"{real}{'-' if value.imag < 0 else '+'}{format_number(abs(value.imag), significant)}j"


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
