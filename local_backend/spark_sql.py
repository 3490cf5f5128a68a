"""Users' Spark SQL (``spark-sql`` rules, ``pre.proc`` steps) translated to DuckDB with sqlglot."""

from __future__ import annotations

from gryph.compiler.errors import InvalidInput


def _untranslatable(reason: str, text: str) -> InvalidInput:
    return InvalidInput("SQL_UNTRANSLATABLE", f"cannot run this Spark SQL on duckdb: {reason}", text=text)


def spark_to_duckdb(text: str) -> str:
    """One Spark SQL query as DuckDB SQL; raises ``InvalidInput`` (SQL_UNTRANSLATABLE) otherwise."""
    # imported here: sqlglot takes a quarter of a second to load, and most suites hold no SQL
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ErrorLevel, SqlglotError

    try:
        statements = [s for s in sqlglot.parse(text, read="spark") if s is not None]
    except SqlglotError as exc:
        raise _untranslatable(str(exc), text) from None
    if len(statements) != 1:
        raise _untranslatable(f"expected one query, found {len(statements)} statements", text)
    (query,) = statements
    if not isinstance(query, exp.Query):
        raise _untranslatable(f"only a query can be a rule, not {query.key.upper()}", text)
    # Join hints only steer Spark's planner; they do not change results.
    for hint in list(query.find_all(exp.Hint)):
        hint.pop()
    try:
        return query.sql(dialect="duckdb", unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise _untranslatable(str(exc), text) from None
