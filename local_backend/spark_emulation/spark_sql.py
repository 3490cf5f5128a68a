"""Users' Spark SQL (``spark-sql`` rules, ``pre.proc`` steps) translated to DuckDB with sqlglot.

Casts are ``TRY_CAST`` by then (compiler/spark_dialect/user_sql.py); text is read as Spark reads it
(text_casts.py) and a fractional number cast to an integer is truncated, as in Spark.
"""

from __future__ import annotations

from gryph.compiler.spark_dialect.user_sql import parse_spark_query, untranslatable

from .text_casts import (
    boolean_from_text,
    date_from_text,
    double_from_text,
    double_text,
    integer_from_text,
    timestamp_from_text,
)

_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_FROM_TEXT = {
    "DOUBLE": double_from_text,
    "FLOAT": double_from_text,
    "BOOLEAN": boolean_from_text,
    "DATE": date_from_text,
    "TIMESTAMP": timestamp_from_text,
}


def spark_to_duckdb(text: str) -> str:
    """One Spark SQL query as DuckDB SQL; raises ``InvalidInput`` (SQL_UNTRANSLATABLE) otherwise."""
    from sqlglot import exp
    from sqlglot.errors import ErrorLevel, SqlglotError

    query = parse_spark_query(text)
    # Join hints only steer Spark's planner; they do not change results.
    for hint in list(query.find_all(exp.Hint)):
        hint.pop()
    try:
        for cast in list(query.find_all(exp.TryCast)):
            cast.replace(
                exp.maybe_parse(
                    _spark_cast(cast.this.sql(dialect="duckdb"), cast.args["to"].sql(dialect="duckdb")),
                    dialect="duckdb",
                )
            )
        return query.sql(dialect="duckdb", unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise untranslatable(exc, text, "duckdb") from None


def _spark_cast(value: str, target: str) -> str:
    """DuckDB SQL for Spark's ``try_cast(value AS target)``, whatever the value's type turns out to be.

    ``typeof`` is constant for a column, so DuckDB keeps one branch; every branch must bind for
    any type, hence the casts to VARCHAR and DOUBLE inside them.
    """
    kind = target.upper().split("(")[0].strip()
    text = f"TRY_CAST({value} AS VARCHAR)"
    is_text = f"typeof({value}) = 'VARCHAR'"
    if kind in _INTEGERS:
        fractional = f"(typeof({value}) IN ('DOUBLE', 'FLOAT') OR typeof({value}) LIKE 'DECIMAL%')"
        return (
            f"(CASE WHEN {is_text} THEN TRY_CAST({integer_from_text(text)} AS {target})"
            f" WHEN {fractional} THEN TRY_CAST(trunc(TRY_CAST({value} AS DOUBLE)) AS {target})"
            f" ELSE TRY_CAST({value} AS {target}) END)"
        )
    if kind in _FROM_TEXT:
        return f"(CASE WHEN {is_text} THEN {_FROM_TEXT[kind](text)} ELSE TRY_CAST({value} AS {target}) END)"
    if kind in ("VARCHAR", "TEXT", "STRING"):
        return (
            f"(CASE WHEN typeof({value}) IN ('DOUBLE', 'FLOAT') THEN {double_text(f'TRY_CAST({value} AS DOUBLE)')}"
            f" ELSE TRY_CAST({value} AS VARCHAR) END)"
        )
    return f"TRY_CAST({value} AS {target})"
