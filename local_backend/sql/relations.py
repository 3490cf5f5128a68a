"""Plan relations -> DuckDB SQL text: one function per node type.

Each relation becomes a ``SELECT`` statement; a parent reads it as ``(...) AS "t<N>"``. DuckDB's
optimizer flattens the nesting, so the simple form costs nothing.
"""

from __future__ import annotations

import itertools
from functools import singledispatch

from gryph.compiler.plan import (
    Aggregate,
    Distinct,
    Filter,
    Join,
    JoinKind,
    Limit,
    Project,
    Query,
    Read,
    Sort,
    Sql,
    Window,
    free_prefix,
)
from gryph.compiler.plan.data_types import DataType, Kind

from ..spark_emulation.spark_sql import spark_to_duckdb
from .quoting import ident
from .scalars import as_aggregate_type, filtered_sql, scalar_sql, sort_key_sql, unsupported


class Aliases:
    """Fresh subquery aliases for one compiled statement."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next(self) -> str:
        return ident(f"t{next(self._counter)}")


def query_sql(query: Query) -> str:
    """The SQL of a plan query, its row limit included."""
    relation = query.relation if query.limit is None else Limit(query.relation, query.limit)
    return relation_sql(relation, Aliases())


@singledispatch
def relation_sql(rel: object, aliases: Aliases) -> str:
    """The DuckDB ``SELECT`` statement of a plan relation."""
    raise unsupported(f"relation {type(rel).__name__}")


def _from(rel: object, aliases: Aliases) -> str:
    return f"({relation_sql(rel, aliases)}) AS {aliases.next()}"


@relation_sql.register
def _read(rel: Read, aliases: Aliases) -> str:
    # Name the columns: the plan's column order holds even if the source lists them otherwise.
    columns = ", ".join(ident(name) for name in rel.schema.names) or "*"
    return f"SELECT {columns} FROM {ident(rel.source)}"


DIALECTS = {
    "spark": spark_to_duckdb,
    "duckdb": lambda text: text,
}


@relation_sql.register
def _sql(rel: Sql, aliases: Aliases) -> str:
    translate = DIALECTS.get(rel.dialect.lower())
    if translate is None:
        raise unsupported(f"SQL in the {rel.dialect!r} dialect")
    return f"SELECT * FROM ({translate(rel.text)}) AS {aliases.next()}"


@relation_sql.register
def _filter(rel: Filter, aliases: Aliases) -> str:
    return f"SELECT * FROM {_from(rel.input, aliases)} WHERE {scalar_sql(rel.condition)}"


def _select_list(named) -> str:
    return ", ".join(f"{scalar_sql(n.expr)} AS {ident(n.name)}" for n in named)


def _grouped_value(sql: str, dtype: DataType) -> str:
    """A double that groups rows shows as 0.0 for its -0.0 and 0.0 (as Spark normalises it).

    DuckDB puts -0.0 and 0.0 in one group but shows whichever it met first.
    """
    return f"(CASE WHEN {sql} = 0 THEN CAST(0.0 AS DOUBLE) ELSE {sql} END)" if dtype.kind is Kind.DOUBLE else sql


@relation_sql.register
def _project(rel: Project, aliases: Aliases) -> str:
    return f"SELECT {_select_list(rel.columns)} FROM {_from(rel.input, aliases)}"


@relation_sql.register
def _aggregate(rel: Aggregate, aliases: Aliases) -> str:
    outputs = rel.keys + rel.measures
    if not outputs:
        raise unsupported("an Aggregate with no keys and no measures")
    percentile_sets = rel.percentile_sets()
    keys = [f"{_grouped_value(scalar_sql(k.expr), k.expr.dtype)} AS {ident(k.name)}" for k in rel.keys]
    if rel.grouping is not None:
        keys.append(f"{_set_index(rel)} AS {ident(rel.grouping.column)}")
    if not percentile_sets:
        return _grouped(", ".join(keys + [_select_list((n,)) for n in rel.measures]), rel, aliases)
    # Percentiles of one value over the same rows are one quantile_disc over a list of
    # fractions: DuckDB gathers and orders the values once, not once per fraction. It is exact
    # for the contract's definition (checked on a grid in tests/conformance/test_percentile_grid.py).
    prefix = free_prefix("__percentiles", [n.name for n in outputs])
    element: dict[str, str] = {}  # measure name -> its element of a list column
    lists = []
    for i, group in enumerate(percentile_sets):
        column = ident(f"{prefix}{i}")
        value = filtered_sql(scalar_sql(group.value), group.filter)
        call = f"quantile_disc({value}, [{', '.join(repr(f) for _, f in group.members)}])"
        lists.append(f"{call} AS {column}")
        element.update((name, f"{column}[{k}]") for k, (name, _) in enumerate(group.members, start=1))
    inner = keys + [_select_list((n,)) for n in rel.measures if n.name not in element]
    outer = [
        f"{as_aggregate_type(element[n.name], n.expr.dtype)} AS {ident(n.name)}" if n.name in element else ident(n.name)
        for n in outputs
    ]
    if rel.grouping is not None:
        outer.append(ident(rel.grouping.column))
    grouped = _grouped(", ".join(inner + lists), rel, aliases)
    return f"SELECT {', '.join(outer)} FROM ({grouped}) AS {aliases.next()}"


def _set_index(rel: Aggregate) -> str:
    """Which grouping set a row is of: its index, told by GROUPING()'s bits (a key's bit, the
    first key's the highest, is 1 where the row's set leaves it out)."""
    assert rel.grouping is not None
    names = [k.name for k in rel.keys]
    grouping = f"GROUPING({', '.join(scalar_sql(k.expr) for k in rel.keys)})"
    cases = " ".join(
        f"WHEN {sum(1 << (len(names) - 1 - j) for j, name in enumerate(names) if name not in keys)} THEN {i}"
        for i, keys in enumerate(rel.grouping.sets)
    )
    return f"CAST(CASE {grouping} {cases} END AS BIGINT)"


def _grouped(select_list: str, rel: Aggregate, aliases: Aliases) -> str:
    sql = f"SELECT {select_list} FROM {_from(rel.input, aliases)}"
    if rel.grouping is not None:
        by_key = {k.name: scalar_sql(k.expr) for k in rel.keys}
        sets = ", ".join("(" + ", ".join(by_key[name] for name in keys) + ")" for keys in rel.grouping.sets)
        return f"{sql} GROUP BY GROUPING SETS ({sets})"
    if rel.keys:
        # by position: the keys lead the select list, and expressions need not be repeated
        sql += " GROUP BY " + ", ".join(str(i) for i in range(1, len(rel.keys) + 1))
    return sql


JOINS = {
    JoinKind.INNER: "INNER JOIN",
    JoinKind.LEFT: "LEFT JOIN",
    JoinKind.ANTI: "ANTI JOIN",
    JoinKind.SEMI: "SEMI JOIN",
    JoinKind.CROSS: "CROSS JOIN",
}


@relation_sql.register
def _join(rel: Join, aliases: Aliases) -> str:
    if rel.kind not in JOINS:
        raise unsupported(f"{rel.kind.value} join")
    # The two sides never share a column name, so unqualified names are unambiguous.
    sql = f"SELECT * FROM {_from(rel.left, aliases)} {JOINS[rel.kind]} {_from(rel.right, aliases)}"
    return sql if rel.on is None else f"{sql} ON {scalar_sql(rel.on)}"


@relation_sql.register
def _distinct(rel: Distinct, aliases: Aliases) -> str:
    columns = ", ".join(
        f"{_grouped_value(ident(c.name), c.dtype)} AS {ident(c.name)}" for c in rel.input.schema.columns
    )
    return f"SELECT DISTINCT {columns} FROM {_from(rel.input, aliases)}"


@relation_sql.register
def _sort(rel: Sort, aliases: Aliases) -> str:
    keys = ", ".join(sort_key_sql(k) for k in rel.keys)
    return f"SELECT * FROM {_from(rel.input, aliases)} ORDER BY {keys}"


@relation_sql.register
def _limit(rel: Limit, aliases: Aliases) -> str:
    # LIMIT goes on the sorting statement itself: an order is not promised across a subquery
    if isinstance(rel.input, Sort):
        return f"{relation_sql(rel.input, aliases)} LIMIT {int(rel.count)}"
    return f"SELECT * FROM {_from(rel.input, aliases)} LIMIT {int(rel.count)}"


@relation_sql.register
def _window(rel: Window, aliases: Aliases) -> str:
    if not rel.columns:
        return relation_sql(rel.input, aliases)
    return f"SELECT *, {_select_list(rel.columns)} FROM {_from(rel.input, aliases)}"
