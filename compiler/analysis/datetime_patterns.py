"""Spark's datetime patterns (``yyyy-MM-dd HH:mm:ss``), read into fields and literal text.

Only the fields in ``SUPPORTED`` are accepted: each has one exact equivalent on every engine.
A plan carries the pattern as Spark writes it; an engine that formats otherwise translates the
parts (DuckDB: ``local_backend/spark_emulation/datetime_format.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

SUPPORTED = frozenset(
    {
        "yyyy",
        "yy",  # year, four digits / last two
        "M",
        "MM",
        "MMM",
        "MMMM",  # month: 1, 01, Jan, January
        "d",
        "dd",
        "D",
        "DDD",  # day of month: 5, 05; day of year: 5, 005
        "E",
        "EEE",
        "EEEE",  # weekday: Tue, Tue, Tuesday
        "H",
        "HH",
        "h",
        "hh",
        "a",  # hour 0-23, hour 1-12, AM/PM
        "m",
        "mm",
        "s",
        "ss",  # minute, second
        "SSS",
        "SSSSSS",  # fraction of a second: milliseconds, microseconds
    }
)

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
