"""Spark datetime patterns as DuckDB ``strftime`` formats (English names, as Spark's default locale)."""

from __future__ import annotations

from gryph.compiler.analysis.datetime_patterns import parse_pattern

STRFTIME: dict[str, str] = {
    "yyyy": "%Y",
    "yy": "%y",
    "M": "%-m",
    "MM": "%m",
    "MMM": "%b",
    "MMMM": "%B",
    "d": "%-d",
    "dd": "%d",
    "D": "%-j",
    "DDD": "%j",
    "E": "%a",
    "EEE": "%a",
    "EEEE": "%A",
    "H": "%-H",
    "HH": "%H",
    "h": "%-I",
    "hh": "%I",
    "a": "%p",
    "m": "%-M",
    "mm": "%M",
    "s": "%-S",
    "ss": "%S",
    "SSS": "%g",
    "SSSSSS": "%f",
}
"""Every supported pattern field (``datetime_patterns.SUPPORTED``) and its strftime directive."""


def strftime_format(pattern: str) -> str:
    """The strftime format that writes what ``pattern`` writes in Spark."""
    return "".join(
        STRFTIME[part.text] if part.is_field else part.text.replace("%", "%%") for part in parse_pattern(pattern)
    )
