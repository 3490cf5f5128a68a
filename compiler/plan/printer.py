"""The stable, indented text form of a plan: what ``gryph explain`` shows and golden tests compare."""

from __future__ import annotations

import math
from functools import singledispatch

from ..spark_dialect.spark_names import quoted
from .program import Plan
from .relations import (
    Aggregate,
    Distinct,
    Filter,
    Join,
    Limit,
    Named,
    Project,
    Read,
    Relation,
    Sort,
    Sql,
    Window,
)
from .scalars import (
    AggregateCall,
    Between,
    Call,
    Cast,
    Field,
    IfThen,
    In,
    IsNull,
    Lambda,
    Like,
    Literal,
    RLike,
    Scalar,
    SortKey,
    Variable,
    WindowCall,
)

_INFIX = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "modulo": "%",
    "eq": "=",
    "ne": "!=",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq_null_safe": "<=>",
    "and": "AND",
    "or": "OR",
}


def quote_name(name: str) -> str:
    """Backquote a column name unless it is a plain identifier."""
    if name.isidentifier() and name.isascii():
        return name
    return quoted(name)


def table_label(parts: tuple[str, ...]) -> str:
    """A qualified table name as the plan and the result document show it: ``schema.table``."""
    return ".".join(quote_name(part) for part in parts)


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


@singledispatch
def format_scalar(node: Scalar) -> str:
    """One-line text of a scalar expression."""
    raise TypeError(f"not a scalar node: {node!r}")


@format_scalar.register(Field)
@format_scalar.register(Variable)
def _name(node: Field | Variable) -> str:
    return quote_name(node.name)


@format_scalar.register
def _lambda(node: Lambda) -> str:
    return f"{quote_name(node.param)} -> {format_scalar(node.body)}"


@format_scalar.register
def _literal(node: Literal) -> str:
    return format_literal(node)


@format_scalar.register
def _call(node: Call) -> str:
    f = format_scalar
    op = _INFIX.get(node.fn.value)
    if op and len(node.args) == 2:
        return f"({f(node.args[0])} {op} {f(node.args[1])})"
    if node.fn.value == "not":
        return f"(NOT {f(node.args[0])})"
    if node.fn.value == "negate":
        return f"(-{f(node.args[0])})"
    return f"{node.fn.value}(" + ", ".join(f(a) for a in node.args) + ")"


@format_scalar.register
def _if_then(node: IfThen) -> str:
    cases = " ".join(f"WHEN {format_scalar(c)} THEN {format_scalar(v)}" for c, v in node.cases)
    return f"CASE {cases} ELSE {format_scalar(node.otherwise)} END"


@format_scalar.register
def _cast(node: Cast) -> str:
    return f"CAST({format_scalar(node.operand)} AS {node.dtype})"


@format_scalar.register
def _is_null(node: IsNull) -> str:
    return f"({format_scalar(node.operand)} IS NULL)"


@format_scalar.register
def _in(node: In) -> str:
    return f"({format_scalar(node.operand)} IN (" + ", ".join(format_scalar(o) for o in node.options) + "))"


@format_scalar.register
def _between(node: Between) -> str:
    return f"({format_scalar(node.operand)} BETWEEN {format_scalar(node.low)} AND {format_scalar(node.high)})"


@format_scalar.register(Like)
@format_scalar.register(RLike)
def _pattern(node: Like | RLike) -> str:
    word = "LIKE" if isinstance(node, Like) else "RLIKE"
    return f"({format_scalar(node.operand)} {word} {format_scalar(node.pattern)})"


@format_scalar.register
def _aggregate(node: AggregateCall) -> str:
    args = "*" if not node.args else ", ".join(format_scalar(a) for a in node.args)
    text = f"{node.fn.value}({'DISTINCT ' if node.distinct else ''}{args})"
    if node.filter is not None:
        text += f" FILTER (WHERE {format_scalar(node.filter)})"
    return text


@format_scalar.register
def _window(node: WindowCall) -> str:
    parts = []
    if node.partition_by:
        parts.append("PARTITION BY " + ", ".join(format_scalar(p) for p in node.partition_by))
    if node.order_by:
        parts.append("ORDER BY " + ", ".join(format_sort_key(k) for k in node.order_by))
    return f"{node.fn.value}() OVER (" + " ".join(parts) + ")"


def format_sort_key(key: SortKey) -> str:
    return (
        f"{format_scalar(key.expr)} {'ASC' if key.ascending else 'DESC'} NULLS {'FIRST' if key.nulls_first else 'LAST'}"
    )


def _named(items: tuple[Named, ...]) -> str:
    return ", ".join(
        format_scalar(n.expr)
        if isinstance(n.expr, Field) and n.expr.name == n.name
        else f"{format_scalar(n.expr)} AS {quote_name(n.name)}"
        for n in items
    )


@singledispatch
def head(rel: Relation) -> str:
    """The first line of a relation's text: its own node, without its inputs."""
    if not isinstance(rel, Relation):
        raise TypeError(f"not a relation: {rel!r}")
    return rel.describe()  # a relation from outside the plan describes itself


@head.register
def _read(rel: Read) -> str:
    return f"Read {quote_name(rel.source)} [{', '.join(quote_name(n) for n in rel.schema.names)}]"


@head.register
def _sql(rel: Sql) -> str:
    return f"Sql[{rel.dialect}] {' '.join(rel.text.split())!r}"


@head.register
def _filter(rel: Filter) -> str:
    return f"Filter {format_scalar(rel.condition)}"


@head.register
def _project(rel: Project) -> str:
    return f"Project {_named(rel.columns)}"


@head.register
def _aggregate_head(rel: Aggregate) -> str:
    keys = f"keys=[{_named(rel.keys)}] " if rel.keys else ""
    if rel.grouping is not None:
        sets = ", ".join("(" + ", ".join(quote_name(k) for k in keys_of) + ")" for keys_of in rel.grouping.sets)
        keys += f"sets=[{sets}] as {quote_name(rel.grouping.column)} "
    return f"Aggregate {keys}measures=[{_named(rel.measures)}]"


@head.register
def _join(rel: Join) -> str:
    on = f" ON {format_scalar(rel.on)}" if rel.on is not None else ""
    return f"Join[{rel.kind.value}{', shuffled' if rel.shuffled else ''}]{on}"


@head.register
def _distinct(rel: Distinct) -> str:
    return "Distinct"


@head.register
def _sort(rel: Sort) -> str:
    return "Sort " + ", ".join(format_sort_key(k) for k in rel.keys)


@head.register
def _limit(rel: Limit) -> str:
    return f"Limit {rel.count}"


@head.register
def _window_head(rel: Window) -> str:
    return f"Window {_named(rel.columns)}"


def format_relation(rel: Relation, indent: int = 0) -> str:
    """The relation as an indented tree, one node per line."""
    lines = ["  " * indent + head(rel)]
    for child in rel.inputs():
        lines.append(format_relation(child, indent + 1))
    return "\n".join(lines)


def format_plan(plan: Plan, conditional: frozenset[str] = frozenset()) -> str:
    """The whole plan: views first, then each query, then the exports.

    ``conditional`` names the queries that run only when the first results call for them
    (record samples of record outputs that have rows).
    """
    blocks = []
    for view in plan.views:
        kept = " (kept: computed once)" if view.kept else ""
        blocks.append(f"view {quote_name(view.name)}{kept}:\n" + format_relation(view.relation, 1))
    for query in plan.queries:
        limit = f" (limit {query.limit})" if query.limit is not None else ""
        when = " (only if its record output has rows)" if query.name in conditional else ""
        blocks.append(f"query {query.name}{limit}{when}:\n" + format_relation(query.relation, 1))
    for export in plan.exports:
        target = export.path if export.table is None else f"table {table_label(export.table)}"
        blocks.append(f"export {export.name} to {target}:\n" + format_relation(export.relation, 1))
    return "\n".join(blocks) + "\n"
