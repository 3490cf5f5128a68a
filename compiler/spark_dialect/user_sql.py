"""Users' Spark SQL (pre.proc steps, spark-sql rules, sparkSQL measures), parsed once and read with
one meaning on every engine: a cast that cannot convert its value gives NULL.

Griffin's configs were written for Spark 2 and 3, where a bad cast (``cast('' as int)``) is NULL;
Spark 4's ANSI mode would fail the whole query instead. So every ``CAST`` in a user's query is
run as ``TRY_CAST``, with Spark 4's rules for reading text (each engine maps ``TRY_CAST`` so).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sqlglot loads only when a suite holds SQL
    from sqlglot import exp

from ..errors import InvalidInput

_TERMINAL_CODES = re.compile(r"\x1b\[[0-9;]*m")  # sqlglot underlines the offending token for a terminal


def untranslatable(reason: str | Exception, text: str, engine: str | None = None) -> InvalidInput:
    """The error for Spark SQL that cannot run (anywhere, or on ``engine``); ``reason`` may be
    sqlglot's error, whose position in the query it names."""
    where = f" on {engine}" if engine else ""
    return InvalidInput("SQL_UNTRANSLATABLE", f"cannot run this Spark SQL{where}: {_reason(reason)}", text=text)


def _reason(reason: str | Exception) -> str:
    details = getattr(reason, "errors", None)  # a sqlglot ParseError's: description, line, col, highlight
    if details and isinstance(details[0], dict) and details[0].get("line"):
        first = details[0]
        reason = f"{first.get('description')} at line {first['line']}, column {first.get('col')}"
        if first.get("highlight"):
            reason += f", near {first['highlight']!r}"
    return _TERMINAL_CODES.sub("", str(reason))


def parse_spark_query(text: str) -> exp.Query:
    """The one query of ``text`` as a sqlglot tree (a copy the caller may change), casts made safe;
    ``InvalidInput`` otherwise."""
    return _parsed(text).copy()


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> exp.Query:
    # each query is parsed once per process, though its rule is checked, translated and run
    # imported here: sqlglot takes a quarter of a second to load, and most suites hold no SQL
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        statements = [s for s in sqlglot.parse(text, read="spark") if s is not None]
    except SqlglotError as exc:
        raise untranslatable(exc, text) from None
    if len(statements) != 1:
        raise untranslatable(f"expected one query, found {len(statements)} statements", text)
    (query,) = statements
    if not isinstance(query, exp.Query):
        raise untranslatable(f"only a query can be a rule, not {query.key.upper()}", text)
    # sqlglot reads Spark's CAST as a TryCast that Spark writes back as CAST; ``safe`` makes it TRY_CAST
    for cast in list(query.find_all(exp.Cast)):
        if isinstance(cast, exp.TryCast):
            cast.set("safe", True)
        else:
            cast.replace(exp.TryCast(this=cast.this, to=cast.args["to"], safe=True))
    return query


def spark_query_as_run(text: str) -> str:
    """The Spark SQL a Spark engine runs for a user's query: checked to be one query (a second
    statement never reaches Spark), and as written unless it casts."""
    query = parse_spark_query(text)
    if "cast" not in text.lower():
        return text  # nothing to make safe: the user's own text, untouched
    return query.sql(dialect="spark")
