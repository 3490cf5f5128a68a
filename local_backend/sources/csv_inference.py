"""CSV column types inferred as Spark infers them (``inferSchema``), so both engines see one schema.

DuckDB's own sniffer keeps '007' as text, reads 'yes' as a boolean and '2024/01/05' as a date;
Spark reads '007' as the integer 7, 'yes' as text, '1.5d' and 'Inf' as doubles. The file is read
as text, one pass tells each column's type by Spark's rules (every non-empty value must fit:
integers, then wider integers as decimals, then doubles, booleans, dates, timestamps, else
text), and each column is then read from its text as Spark reads it (text_casts.py).
"""

from __future__ import annotations

import duckdb

from gryph.compiler.sources.unchanged_files import while_unchanged

from ..spark_emulation.text_casts import (
    boolean_from_text,
    date_from_text,
    double_from_text,
    integer_from_text,
    timestamp_from_text,
)
from ..sql.quoting import ident, string

_INTEGER = r"[+-]?[0-9]+"
_DATE = r"\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}\s*"
_TIMESTAMP = r"\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}[ T].+"

# a column's type and how its text becomes a value of it, in Spark's order of preference
_READERS = {
    "integer": integer_from_text,
    "decimal": lambda sql: f"TRY_CAST({sql} AS DECIMAL(38, 0))",
    "double": double_from_text,
    "boolean": boolean_from_text,
    "date": date_from_text,
    "timestamp": timestamp_from_text,
}


def _fits(sql: str) -> dict[str, str]:
    """For each type, the condition under which the non-NULL text ``sql`` is a value of it."""
    integer_text = f"regexp_full_match({sql}, {string(_INTEGER)})"
    date = f"(regexp_full_match({sql}, {string(_DATE)}) AND {date_from_text(sql)} IS NOT NULL)"
    return {
        "integer": f"({integer_text} AND TRY_CAST({sql} AS BIGINT) IS NOT NULL)",
        "decimal": integer_text,
        "double": f"({double_from_text(sql)} IS NOT NULL)",
        "boolean": f"(lower({sql}) IN ('true', 'false'))",
        "date": date,
        # a column of dates and timestamps is a timestamp column
        "timestamp": f"({date} OR (regexp_full_match({sql}, {string(_TIMESTAMP)}, 's')"
        f" AND {timestamp_from_text(sql)} IS NOT NULL))",
    }


def spark_typed(con: duckdb.DuckDBPyConnection, text_relation: str, files: list[str]) -> str:
    """A projection of ``text_relation`` (every column text, read from ``files``) with Spark's types."""
    names, kinds = while_unchanged(text_relation, files, lambda: _inferred(con, text_relation))
    columns = [
        f"{_READERS[kind](ident(name)) if kind else ident(name)} AS {ident(name)}"
        for name, kind in zip(names, kinds, strict=True)
    ]
    return f"(SELECT {', '.join(columns)} FROM {text_relation})"


def _inferred(con: duckdb.DuckDBPyConnection, text_relation: str) -> tuple[list[str], list[str | None]]:
    """Each column's name and Spark type (None: text), from one pass over the text.

    The columns are unpivoted into (column, value) rows and counted per column: one query whose
    size does not grow with the width (a SELECT of seven counts per column takes minutes and
    gigabytes to plan at a few hundred columns).
    """
    names = con.sql(f"SELECT * FROM {text_relation}").columns
    counts = ", ".join(f"count(*) FILTER (WHERE {condition})" for condition in _fits("value").values())
    # UNPIVOT leaves out NULLs: what is counted per column is its non-NULL values, less empty text
    # (a quoted empty field, given a null marker), which Spark's inference passes over too
    rows = con.execute(
        f"SELECT name, count(*), {counts} FROM (UNPIVOT (SELECT * FROM {text_relation}) "
        "ON COLUMNS(*) INTO NAME name VALUE value) WHERE value <> '' GROUP BY name"
    ).fetchall()
    fitting_by_name = {name: (present, fitting) for name, present, *fitting in rows}
    kinds = []
    for name in names:
        present, fitting = fitting_by_name.get(name, (0, ()))
        # a column DuckDB's UNPIVOT did not list has no counts: () against every reader
        kinds.append(next((k for k, n in zip(_READERS, fitting, strict=False) if present and n == present), None))
    return list(names), kinds
