"""Spark's datetime patterns (``yyyy-MM-dd HH:mm:ss``), read into fields and literal text.

Only the fields in ``FIELDS`` are accepted: each has one exact equivalent on every engine.
A plan carries the pattern as Spark writes it; an engine that formats otherwise translates the
parts (DuckDB: ``local_backend/spark_emulation/datetime_format.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True, slots=True)
class Field:
    """How a supported field is written: by a strftime directive (DuckDB's, where ``%g`` is
    milliseconds) and in Python (English names, as Spark's default locale)."""

    strftime: str
    write: Callable[[datetime], str]


# The one table of pattern letters: the DuckDB formatter and Griffin's placeholders read it.
FIELDS: dict[str, Field] = {
    # year, four digits / last two
    "yyyy": Field("%Y", lambda t: f"{t.year:04d}"),
    "yy": Field("%y", lambda t: f"{t.year % 100:02d}"),
    # month: 1, 01, Jan, January
    "M": Field("%-m", lambda t: str(t.month)),
    "MM": Field("%m", lambda t: f"{t.month:02d}"),
    "MMM": Field("%b", lambda t: _MONTHS[t.month - 1][:3]),
    "MMMM": Field("%B", lambda t: _MONTHS[t.month - 1]),
    # day of month: 5, 05; day of year: 5, 005
    "d": Field("%-d", lambda t: str(t.day)),
    "dd": Field("%d", lambda t: f"{t.day:02d}"),
    "D": Field("%-j", lambda t: str(t.timetuple().tm_yday)),
    "DDD": Field("%j", lambda t: f"{t.timetuple().tm_yday:03d}"),
    # weekday: Tue, Tue, Tuesday
    "E": Field("%a", lambda t: _WEEKDAYS[t.weekday()][:3]),
    "EEE": Field("%a", lambda t: _WEEKDAYS[t.weekday()][:3]),
    "EEEE": Field("%A", lambda t: _WEEKDAYS[t.weekday()]),
    # hour 0-23, hour 1-12, AM/PM
    "H": Field("%-H", lambda t: str(t.hour)),
    "HH": Field("%H", lambda t: f"{t.hour:02d}"),
    "h": Field("%-I", lambda t: str((t.hour - 1) % 12 + 1)),
    "hh": Field("%I", lambda t: f"{(t.hour - 1) % 12 + 1:02d}"),
    "a": Field("%p", lambda t: "AM" if t.hour < 12 else "PM"),
    # minute, second
    "m": Field("%-M", lambda t: str(t.minute)),
    "mm": Field("%M", lambda t: f"{t.minute:02d}"),
    "s": Field("%-S", lambda t: str(t.second)),
    "ss": Field("%S", lambda t: f"{t.second:02d}"),
    # fraction of a second: milliseconds, microseconds
    "SSS": Field("%g", lambda t: f"{t.microsecond // 1000:03d}"),
    "SSSSSS": Field("%f", lambda t: f"{t.microsecond:06d}"),
}
SUPPORTED = frozenset(FIELDS)

# Java reserves these for optional sections and future use; outside quotes they are not text.
_RESERVED = frozenset("[]{}#")


class PatternError(ValueError):
    """A pattern with a field or character outside ``SUPPORTED``; the message names it."""


@dataclass(frozen=True, slots=True)
class Part:
    """A field (a run of one pattern letter, e.g. ``yyyy``) or literal text."""

    text: str
    is_field: bool


def parse_pattern(pattern: str) -> list[Part]:
    """The parts of a pattern, or a ``PatternError`` naming what is not supported."""
    parts: list[Part] = []
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "'":
            text, position = _quoted(pattern, position)
            parts.append(Part(text, False))
        elif char.isascii() and char.isalpha():
            end = position
            while end < len(pattern) and pattern[end] == char:
                end += 1
            parts.append(_field(pattern[position:end]))
            position = end
        elif char in _RESERVED:
            raise PatternError(f"the character {char!r} is reserved in datetime patterns; quote it: '{char}'")
        else:
            parts.append(Part(char, False))
            position += 1
    return parts


def _field(run: str) -> Part:
    if run not in SUPPORTED:
        raise PatternError(
            f"the pattern field {run!r} (letter {run[0]!r}) is not supported; supported: {' '.join(sorted(SUPPORTED))}"
        )
    return Part(run, True)


def _quoted(pattern: str, start: int) -> tuple[str, int]:
    """Text in quotes from ``start`` (a quote); ``''`` is one quote, inside quotes or not."""
    if pattern.startswith("''", start):
        return "'", start + 2
    text = []
    position = start + 1
    while position < len(pattern):
        if pattern.startswith("''", position):
            text.append("'")
            position += 2
        elif pattern[position] == "'":
            return "".join(text), position + 1
        else:
            text.append(pattern[position])
            position += 1
    raise PatternError("a quote in the pattern is never closed")
