"""Spark datetime patterns as DuckDB ``strftime`` formats (English names, as Spark's default locale)."""

from __future__ import annotations

from gryph.compiler.spark_dialect.datetime_patterns import FIELDS, parse_pattern


def strftime_format(pattern: str) -> str:
    """The strftime format that writes what ``pattern`` writes in Spark."""
    return "".join(
        FIELDS[part.text].strftime if part.is_field else part.text.replace("%", "%%") for part in parse_pattern(pattern)
    )
