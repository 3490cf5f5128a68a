"""What users' SQL may read: the suite's declared sources, views and rule tables, nothing else.

A ``sql "..."`` measure, a ``spark-sql`` rule, a ``pre.proc`` step or a ``sparkSQL`` measure is
the user's query over the suite's data. It may not reach files, the network, the catalog or the
JVM: every table it reads must be a name the suite declares (or one of its own CTEs), and table
functions and functions that read files or call into the engine are refused before anything
runs. On DuckDB the engine's own settings hold the same line again (local_backend/sandbox.py).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NoReturn

from ..errors import InvalidInput, Location
from ..spark_dialect.sql_patterns import check_sql_patterns
from ..spark_dialect.user_sql import parse_spark_query
from ..suites.suite import Suite

# functions that read files or call into the engine's host, by the names both engines know them
# by (DuckDB's readers, Spark's reflection); table functions are refused whatever their name
_REFUSED_FUNCTIONS = frozenset(
    {
        "glob",
        "java_method",
        "parquet_scan",
        "query",
        "query_table",
        "read_blob",
        "read_csv",
        "read_csv_auto",
        "read_files",
        "read_json",
        "read_json_auto",
        "read_ndjson",
        "read_parquet",
        "read_text",
        "reflect",
        "try_reflect",
    }
)


def check_suite_sql(suite: Suite) -> None:
    """Refuse (``SQL_NOT_ALLOWED``) any SQL of ``suite`` that reads more than the suite declares."""
    readable = set(suite.sources) | {v.name for v in suite.views} | {r.name for r in suite.rules}
    for view in suite.views:
        if view.sql and not view.union_of and view.json_of is None:
            check_sql_reads(view.sql, readable, f"pre-processing step {view.name!r}", view.location)
    for rule in [*suite.rules, *suite.measures]:
        if isinstance(rule.body, str) and rule.kind in ("sql", "measure"):
            check_sql_reads(rule.body, readable, f"{rule.kind} {rule.name!r}", rule.location)


def check_sql_reads(text: str, readable: Collection[str], what: str, location: Location | None) -> None:
    """Refuse ``text`` unless every table it reads is in ``readable`` (or its own CTE) and it calls
    no table function and no function that reads files or reflects."""
    from sqlglot import exp  # loaded only for suites that hold SQL

    try:
        query = parse_spark_query(text)
    except InvalidInput as error:  # SQL that does not parse: at the step that holds it
        if error.location.line is None and location is not None:
            error.location = location
        raise
    names = {name.lower() for name in readable} | {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
    for table in query.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            _refuse(what, f"the table function {table.this.sql(dialect='spark')}", location, text)
        if table.args.get("db") is not None or table.args.get("catalog") is not None:
            _refuse(what, f"{table.sql(dialect='spark')}, which is no source of the suite", location, text)
        if table.name.lower() not in names:
            _refuse(what, f"{table.name!r}, which is no source of the suite", location, text, sorted(readable))
    for call in query.find_all(exp.Func):
        name = (call.name if isinstance(call, exp.Anonymous) else call.sql_name()).lower()
        if name in _REFUSED_FUNCTIONS:
            _refuse(what, f"the function {name}(), which reads outside the suite's sources", location, text)
    check_sql_patterns(query, what, location)


def _refuse(what: str, thing: str, location: Location | None, text: str, names: list[str] | None = None) -> NoReturn:
    hint = "SQL reads the suite's declared sources only: declare the data as a source and read it by name"
    if names:
        hint += f" (readable here: {', '.join(names)})"
    raise InvalidInput("SQL_NOT_ALLOWED", f"{what} reads {thing}", location=location, text=text, hint=hint)
