"""Spark SQL text that the Griffin loader writes around users' SQL: quoted names, the frames a
step may read, and a check that a ``where`` filter is one condition and nothing more."""

from __future__ import annotations

from ..spark_dialect.spark_names import quoted
from .document import Node


def with_frames(text: str, frames: dict[str, str]) -> str:
    """``text`` run with each name of ``frames`` bound to the view it stands for (as CTEs, which
    shadow any table of the same name for this query alone)."""
    query = text.strip().rstrip(";").rstrip()
    bindings = ", ".join(f"{quoted(name)} AS (SELECT * FROM {quoted(view)})" for name, view in frames.items())
    # the query stays inside parentheses, so it can only ever be one query
    return f"{'WITH ' + bindings + ' ' if bindings else ''}SELECT * FROM (\n{query}\n)"


def check_condition(condition: str, node: Node) -> None:
    """Refuse a ``where`` filter that is not a single boolean condition (it is pasted into a query)."""
    import sqlglot  # loaded only for configs with filters: it takes a quarter of a second
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        statements = sqlglot.parse(f"SELECT * FROM t WHERE {condition}", read="spark")
    except SqlglotError as error:
        raise node.error(
            "BAD_CONFIG", f"where filter {condition!r} is not a Spark SQL condition: {str(error).splitlines()[0]}"
        ) from None
    query = statements[0] if len(statements) == 1 else None
    if (
        not isinstance(query, exp.Select)
        or query.args.get("where") is None
        or any(query.args.get(key) for key in ("group", "having", "order", "limit", "joins"))
    ):
        raise node.error(
            "BAD_CONFIG",
            f"where filter {condition!r} is not a single condition",
            "write conditions such as dt='20240101' AND hour='09', separated by commas",
        )
