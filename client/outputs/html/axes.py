"""How the report's charts show their numbers: the page's width, whole-number axes for counts,
percentages exact enough to tell a value from the boundary a check compares it with, and
durations in the unit that fits them (ms, s, min, h, d)."""

from __future__ import annotations

import datetime as dt
import math

import altair as alt

from ..readable_values import number

# a chart's plot width: the page's column (1,100 px less margins, a section's frame and the
# y axis); narrower windows scale the SVG down (the page's CSS)
WIDTH = 940
PERCENT_AXIS = ".3~%"  # 0.98974 -> 98.974%, 0.99 -> 99%: ticks close to a boundary stay apart
PERCENT_TOOLTIP = ".6~%"
# (unit, milliseconds) from the largest: a duration is shown in the largest unit it reaches twice
# (90 s stays in seconds, 2 h 30 min is 2.5 h)
_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1_000))


MOST_TICKS = 8
# (step in ms, label format), finest first: a time axis ticks at the finest step that needs no
# more than MOST_TICKS ticks over its runs; steps past a week are calendar months (_MONTHS)
_TIME_STEPS = (
    *((n * 1_000, "%H:%M:%S") for n in (1, 5, 15, 30)),
    *((n * 60_000, "%b %d %H:%M") for n in (1, 5, 15, 30)),
    *((n * 3_600_000, "%b %d %H:%M") for n in (1, 3, 6, 12)),
    *((n * 86_400_000, "%b %d") for n in (1, 2, 7)),
)
_MONTHS = ((1, "%b %Y"), (3, "%b %Y"), (12, "%Y"))


def count_axis(title: str | None, largest: float) -> alt.Axis:
    """An axis of counts up to about ``largest``: ticks on whole numbers only (no more ticks than
    whole numbers: Vega's own tickMinStep is not applied by the renderer), thousands separated."""
    ticks = max(1, min(MOST_TICKS, math.ceil(abs(largest)) if math.isfinite(largest) else MOST_TICKS))
    return alt.Axis(title=title, format=",d", tickCount=ticks)


def time_axis(field: str, title: str, first_ms: int, last_ms: int) -> alt.X:
    """An x axis of times in UTC, ticked at round steps of the clock or the calendar that fit the
    span (days as ``Nov 20``); the ticks are given (Vega's own time intervals fail the renderer)."""
    ticks, label = _time_ticks(first_ms, last_ms)
    return alt.X(f"{field}:T", title=title, scale=alt.Scale(type="utc"), axis=alt.Axis(format=label, values=ticks))


def _time_ticks(first_ms: int, last_ms: int) -> tuple[list[int], str]:
    """Ticks from ``first_ms`` to ``last_ms``: multiples of a clock step (days start at midnight
    UTC), else the first of every month, quarter or year."""
    span = last_ms - first_ms
    for step, label in _TIME_STEPS:
        if step * MOST_TICKS >= span:
            return list(range(-(-first_ms // step) * step, last_ms + 1, step)), label
    first = dt.datetime.fromtimestamp(first_ms / 1000, dt.timezone.utc)
    for months, label in _MONTHS:
        ticks, year, month = [], first.year, first.month
        while True:
            moment = dt.datetime(year, month, 1, tzinfo=dt.timezone.utc)
            if moment.timestamp() * 1000 > last_ms:
                break
            if moment.timestamp() * 1000 >= first_ms and (month - 1) % months == 0:
                ticks.append(round(moment.timestamp() * 1000))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if len(ticks) <= MOST_TICKS or months == 12:
            return ticks, label
    raise AssertionError("unreachable: a year step always returns")


def percent_text(fraction: float) -> str:
    """A fraction as a percentage with six significant digits, never rounded onto 0% or 100%
    when it is not exactly that (0.9995 is 99.95%, 0.99999999 is 99.999999%, 0.98974 is 98.974%)."""
    if math.isnan(fraction):
        return "n/a"
    percent = fraction * 100
    text = number(percent)
    digits = 6
    while text in ("100", "0", "-100") and float(text) != percent and digits < 17:
        digits += 1
        text = f"{percent:.{digits}g}"
    return f"{text}%"


def duration_unit(largest_ms: float) -> tuple[str, int]:
    """The unit (name, milliseconds) an axis up to ``largest_ms`` reads best in: ms below 2 s."""
    for unit, size in _UNITS:
        if abs(largest_ms) >= 2 * size:
            return unit, size
    return "ms", 1
