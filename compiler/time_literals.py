"""Time literals (``3d``, ``5h``, ``2m``, ``4s``, ``500ms``): read in this one place."""

from __future__ import annotations

from .numbers import number_from_text

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
