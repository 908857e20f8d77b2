"""How Play moves through a launch: the size of the default step and the timer's pace, so a launch of
any size plays in about the same time (pure arithmetic, tested without a clock or a window)."""

from __future__ import annotations

import math

AUTO = "auto"  # the step that follows the launch's size: 1/LAUNCH_STEPS of its events
LAUNCH_STEPS = 300  # steps in a launch at the auto step: 20 s at 15 steps a second
MAX_TICKS_PER_SECOND = 30  # faster rates advance more than one step per timer tick
DEFAULT_RATE = 15
MAX_TICK_MS = 2000.0
RATES = (1, 4, 15, 30, 60, 600, 6000)  # steps a second


def rate_label(rate: int) -> str:
    return f"{rate:,} step{'s' if rate != 1 else ''}/s"


def auto_step(events: int) -> int:
    """Events in one auto step: a launch of `events` events takes about LAUNCH_STEPS of them."""
    return max(1, math.ceil(events / LAUNCH_STEPS))


def tick_plan(rate: float, steps_in_launch: int | None = None) -> tuple[int, int]:
    """(steps per timer tick, tick interval in ms) at `rate` steps a second. At the auto step a launch
    shorter than LAUNCH_STEPS events (`steps_in_launch`) ticks more slowly, so it too plays as long."""
    steps = max(1, round(rate / MAX_TICKS_PER_SECOND))
    interval = 1000.0 * steps / rate
    if steps_in_launch is not None and 0 < steps_in_launch < LAUNCH_STEPS:  # never slower than 2 s a tick
        interval = max(interval, min(interval * LAUNCH_STEPS / steps_in_launch, MAX_TICK_MS))
    return steps, max(1, round(interval))


def play_seconds(events: int, rate: float = DEFAULT_RATE, step: int | None = None) -> float:
    """How long Play takes from the first event to the last: ticks x interval (`step` events a
    step; None: the auto step)."""
    auto = step is None
    step = auto_step(events) if auto else step
    steps = math.ceil(events / step)
    per_tick, interval = tick_plan(rate, steps if auto else None)
    return math.ceil(steps / per_tick) * interval / 1000.0
