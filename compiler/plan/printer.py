"""The stable, indented text form of a plan: what ``gryph explain`` shows and golden tests compare."""

from __future__ import annotations

import math

from ..spark_names import quoted
from .program import Plan
from .relations import (
    Aggregate, Distinct, Filter, Join, Limit, Named, Project, Read, Relation, Sort, Sql, Window,
)
from .scalars import (
    AggregateCall, Between, Call, Cast, Field, IfThen, In, IsNull, Lambda, Like, Literal, RLike,
    Scalar, SortKey, Variable, WindowCall,
)

_INFIX = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "modulo": "%",
    "eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "eq_null_safe": "<=>", "and": "AND", "or": "OR",
}


def quote_name(name: str) -> str:
    """Backquote a column name unless it is a plain identifier."""
    if name.isidentifier() and name.isascii():
        return name
    return quoted(name)


def format_literal(lit: Literal) -> str:
    value = lit.value
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def format_scalar(node: Scalar) -> str:
    """One-line text of a scalar expression."""
    f = format_scalar
    if isinstance(node, (Field, Variable)):
        return quote_name(node.name)
    if isinstance(node, Lambda):
        return f"{quote_name(node.param)} -> {f(node.body)}"
    if isinstance(node, Literal):
        return format_literal(node)
    if isinstance(node, Call):
        op = _INFIX.get(node.fn.value)
        if op and len(node.args) == 2:
            return f"({f(node.args[0])} {op} {f(node.args[1])})"
        if node.fn.value == "not":
            return f"(NOT {f(node.args[0])})"
        if node.fn.value == "negate":
            return f"(-{f(node.args[0])})"
        return f"{node.fn.value}(" + ", ".join(f(a) for a in node.args) + ")"
    if isinstance(node, IfThen):
        cases = " ".join(f"WHEN {f(c)} THEN {f(v)}" for c, v in node.cases)
        return f"CASE {cases} ELSE {f(node.otherwise)} END"
    if isinstance(node, Cast):
        return f"CAST({f(node.operand)} AS {node.dtype})"
    if isinstance(node, IsNull):
        return f"({f(node.operand)} IS NULL)"
    if isinstance(node, In):
        return f"({f(node.operand)} IN (" + ", ".join(f(o) for o in node.options) + "))"
    if isinstance(node, Between):
        return f"({f(node.operand)} BETWEEN {f(node.low)} AND {f(node.high)})"
    if isinstance(node, Like):
        return f"({f(node.operand)} LIKE {f(node.pattern)})"
    if isinstance(node, RLike):
        return f"({f(node.operand)} RLIKE {f(node.pattern)})"
    if isinstance(node, AggregateCall):
        args = "*" if not node.args else ", ".join(f(a) for a in node.args)
        text = f"{node.fn.value}({'DISTINCT ' if node.distinct else ''}{args})"
        if node.filter is not None:
            text += f" FILTER (WHERE {f(node.filter)})"
        return text
    if isinstance(node, WindowCall):
        parts = []
        if node.partition_by:
            parts.append("PARTITION BY " + ", ".join(f(p) for p in node.partition_by))
        if node.order_by:
            parts.append("ORDER BY " + ", ".join(format_sort_key(k) for k in node.order_by))
        return f"{node.fn.value}() OVER (" + " ".join(parts) + ")"
    raise TypeError(f"not a scalar node: {node!r}")


def format_sort_key(key: SortKey) -> str:
    return (f"{format_scalar(key.expr)} {'ASC' if key.ascending else 'DESC'} "
            f"NULLS {'FIRST' if key.nulls_first else 'LAST'}")


def _named(items: tuple[Named, ...]) -> str:
    return ", ".join(
        format_scalar(n.expr) if isinstance(n.expr, Field) and n.expr.name == n.name
        else f"{format_scalar(n.expr)} AS {quote_name(n.name)}"
        for n in items
    )


def _head(rel: Relation) -> str:
    if isinstance(rel, Read):
        return f"Read {quote_name(rel.source)} [{', '.join(quote_name(n) for n in rel.schema.names)}]"
    if isinstance(rel, Sql):
        text = " ".join(rel.text.split())
        return f"Sql[{rel.dialect}] {text!r}"
    if isinstance(rel, Filter):
        return f"Filter {format_scalar(rel.condition)}"
    if isinstance(rel, Project):
        return f"Project {_named(rel.columns)}"
    if isinstance(rel, Aggregate):
        keys = f"keys=[{_named(rel.keys)}] " if rel.keys else ""
        return f"Aggregate {keys}measures=[{_named(rel.measures)}]"
    if isinstance(rel, Join):
        on = f" ON {format_scalar(rel.on)}" if rel.on is not None else ""
        return f"Join[{rel.kind.value}]{on}"
    if isinstance(rel, Distinct):
        return "Distinct"
    if isinstance(rel, Sort):
        return "Sort " + ", ".join(format_sort_key(k) for k in rel.keys)
    if isinstance(rel, Limit):
        return f"Limit {rel.count}"
    if isinstance(rel, Window):
        return f"Window {_named(rel.columns)}"
    raise TypeError(f"not a relation: {rel!r}")


def format_relation(rel: Relation, indent: int = 0) -> str:
    """The relation as an indented tree, one node per line."""
    lines = ["  " * indent + _head(rel)]
    children = (rel.left, rel.right) if isinstance(rel, Join) else (
        () if isinstance(rel, (Read, Sql)) else (rel.input,))
    for child in children:
        lines.append(format_relation(child, indent + 1))
    return "\n".join(lines)


def format_plan(plan: Plan, conditional: frozenset[str] = frozenset()) -> str:
    """The whole plan: views first, then each query, then the exports.

    ``conditional`` names the queries that run only when the first results call for them
    (record samples of record outputs that have rows).
    """
    blocks = []
    for view in plan.views:
        blocks.append(f"view {quote_name(view.name)}:\n" + format_relation(view.relation, 1))
    for query in plan.queries:
        limit = f" (limit {query.limit})" if query.limit is not None else ""
        when = " (only if its record output has rows)" if query.name in conditional else ""
        blocks.append(f"query {query.name}{limit}{when}:\n" + format_relation(query.relation, 1))
    for export in plan.exports:
        target = export.path if export.path is not None else f"table {export.table}"
        blocks.append(f"export {export.name} to {target}:\n" + format_relation(export.relation, 1))
    return "\n".join(blocks) + "\n"
