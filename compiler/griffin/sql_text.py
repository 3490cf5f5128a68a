"""Spark SQL text that the Griffin loader writes around users' SQL: a check that a ``where`` filter
is one condition and nothing more (the frames a step may read: spark_dialect/spark_names.py)."""

from __future__ import annotations

from .document import Node


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
