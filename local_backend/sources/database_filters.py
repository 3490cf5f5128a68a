"""The part of a plan's filters a database can run for DuckDB, so fewer rows cross the wire.

Pushed down only when every read of the source sits under a filter, and only conditions that
mean the same in PostgreSQL, SQLite and DuckDB: a column compared with a number, a column equal
(or not) to a string or boolean, ``IS [NOT] NULL``, joined by AND. String order is left out (a
database's collation may sort text differently). Values travel as bound parameters, never as
SQL text; the plan's own filter still runs in DuckDB, so what is pushed only has to be implied
by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gryph.compiler.plan import Call, Field, Filter, Fn, IsNull, Literal, Read, inputs, walk_relations
from gryph.compiler.plan.data_types import Kind

_COMPARISONS = {Fn.EQ: "=", Fn.NE: "<>", Fn.LT: "<", Fn.LE: "<=", Fn.GT: ">", Fn.GE: ">="}
_MIRRORED = {Fn.LT: Fn.GT, Fn.LE: Fn.GE, Fn.GT: Fn.LT, Fn.GE: Fn.LE, Fn.EQ: Fn.EQ, Fn.NE: Fn.NE}
_NUMBERS = (Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL)


@dataclass(frozen=True)
class PushedFilter:
    """A WHERE condition in the database's SQL and the values of its parameters, in order."""

    sql: str
    parameters: tuple


def pushed_filter(relations, source: str, placeholder) -> PushedFilter | None:
    """What the database may filter for every read of ``source``; ``placeholder(n)`` spells the
    n-th parameter (``$1`` in PostgreSQL, ``?`` in SQLite)."""
    conditions, reads = [], 0
    for rel in relations:
        for node in walk_relations(rel):
            for child in inputs(node):
                if isinstance(child, Read) and child.source == source:
                    if not isinstance(node, Filter):
                        return None
                    conditions.append(node.condition)
            reads += isinstance(node, Read) and node.source == source
    if not conditions or len(conditions) != reads:
        return None
    parameters: list = []
    alternatives = []
    for condition in conditions:
        parts = [sql for sql in (_part(c, parameters, placeholder) for c in _conjuncts(condition)) if sql]
        if not parts:
            return None
        alternatives.append("(" + " AND ".join(parts) + ")")
    return PushedFilter(" OR ".join(alternatives), tuple(parameters))


def _conjuncts(condition):
    if isinstance(condition, Call) and condition.fn is Fn.AND:
        for arg in condition.args:
            yield from _conjuncts(arg)
    else:
        yield condition


def _column(field: Field) -> str:
    return '"' + field.name.replace('"', '""') + '"'


def _part(condition, parameters: list, placeholder) -> str | None:
    """One conjunct in the database's SQL, or None when it may not be pushed."""
    if isinstance(condition, IsNull) and isinstance(condition.operand, Field):
        return f"{_column(condition.operand)} IS NULL"
    if (
        isinstance(condition, Call)
        and condition.fn is Fn.NOT
        and isinstance(condition.args[0], IsNull)
        and isinstance(condition.args[0].operand, Field)
    ):
        return f"{_column(condition.args[0].operand)} IS NOT NULL"
    if not (isinstance(condition, Call) and condition.fn in _COMPARISONS):
        return None
    left, right = condition.args
    fn = condition.fn
    if isinstance(left, Literal) and isinstance(right, Field):
        left, right, fn = right, left, _MIRRORED[fn]
    if not (isinstance(left, Field) and isinstance(right, Literal) and _comparable(left, right, fn)):
        return None
    parameters.append(right.value)
    return f"{_column(left)} {_COMPARISONS[fn]} {placeholder(len(parameters))}"


def _comparable(field: Field, literal: Literal, fn: Fn) -> bool:
    value = literal.value
    if field.dtype.kind in _NUMBERS:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if fn not in (Fn.EQ, Fn.NE):
        return False
    if field.dtype.kind is Kind.STRING:
        return isinstance(value, str)
    return field.dtype.kind is Kind.BOOLEAN and isinstance(value, bool)
