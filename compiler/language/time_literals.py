"""Time literals (``3d``, ``5h``, ``2m``, ``4s``, ``500ms``): read in this one place."""

from __future__ import annotations

import math

from .number_literals import number_from_text

TIME_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def split_time(text: str) -> tuple[str, int]:
    """The number part of ``text`` and its unit in milliseconds (1 when it has no unit)."""
    text = text.strip().lower()
    unit = "ms" if text.endswith("ms") else text[-1:]
    if unit in TIME_UNITS_MS:
        return text[: -len(unit)], TIME_UNITS_MS[unit]
    return text, 1


def time_literal_ms(text: str) -> int | float:
    """The milliseconds of a time literal the grammar matched (``\\d+(ms|d|h|m|s)``)."""
    number, unit_ms = split_time(text)
    return number_from_text(number) * unit_ms


def duration_literal(ms: int) -> str:
    """Milliseconds as a time literal in the largest unit that holds them whole: 21600000 -> ``6h``."""
    for unit, unit_ms in sorted(TIME_UNITS_MS.items(), key=lambda item: -item[1]):
        if ms % unit_ms == 0:
            return f"{ms // unit_ms}{unit}"
    raise AssertionError("every whole number of milliseconds is a literal in ms")


# a duration beyond this is a mistake, and would overflow 64-bit milliseconds with the times it meets
MAX_DURATION_MS = 1000 * 365 * 86_400_000


def duration_ms(value: object) -> int | None:
    """A duration detail (``3m``, ``500ms``, a number of milliseconds) in milliseconds; None when
    unset. ValueError says what is wrong with any other value."""
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a duration such as 3m, got {value!r}")
    if isinstance(value, str):
        number, unit_ms = split_time(value)
        if not number.isdigit():
            raise ValueError(f"must be a duration such as 3m, got {value!r}")
        value = int(number) * unit_ms if len(number) <= 18 else math.inf
    if value <= 0:
        raise ValueError(f"must be positive, got {value!r}")
    if not value < MAX_DURATION_MS:  # also NaN and infinity
        raise ValueError("must be a duration under 1000 years")
    return int(value)
