"""The part of a plan's filters a database (or an Iceberg scan) can run for DuckDB, so fewer rows
cross the wire.

Pushed down only when every read of the source sits under a filter, and only conditions that
mean the same in PostgreSQL, MySQL, SQLite and DuckDB: a column compared with a number, a column
equal (or not) to a string or boolean, ``IS [NOT] NULL``, joined by AND. String order is left out
(a database's collation may sort text differently), and MySQL gets no string at all (its default
collations ignore case and trailing spaces, so ``<>`` would drop rows DuckDB keeps). Values travel
as bound parameters, never as SQL text; MySQL's reader (connectorx) binds none, so there numbers
and booleans, and only they, are written as literals by Python. The plan's own filter still runs
in DuckDB, so what is pushed only has to be implied by it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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


@dataclass(frozen=True)
class Pushed:
    """One condition a reader may run: ``column op value`` (``op`` one of ``= <> < <= > >=``), or
    ``column IS NULL`` / ``IS NOT NULL`` (no value)."""

    column: str
    op: str
    value: object = None


def _double_quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def pushed_conditions(
    relations, source: str, strings: bool = True, doubles: bool = True
) -> tuple[tuple[Pushed, ...], ...] | None:
    """What a reader may filter for every read of ``source``: alternatives (OR) of conjunctions
    (AND), or None. ``strings``: whether text comparisons may be pushed; ``doubles``: whether
    comparisons of doubles may (a reader that orders NaN below other numbers may not)."""
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
    alternatives = []
    for condition in conditions:
        parts = tuple(p for p in (_part(c, strings, doubles) for c in _conjuncts(condition)) if p is not None)
        if not parts:
            return None
        alternatives.append(parts)
    return tuple(alternatives)


def pushed_filter(
    relations,
    source: str,
    placeholder: Callable[[int], str] | None,
    quote: Callable[[str], str] = _double_quoted,
    strings: bool = True,
) -> PushedFilter | None:
    """What the database may filter for every read of ``source``; ``placeholder(n)`` spells the
    n-th parameter (``$1`` in PostgreSQL, ``?`` in SQLite), None writes numbers and booleans as
    literals; ``quote`` quotes a column name; ``strings``: whether text comparisons may be pushed."""
    alternatives = pushed_conditions(relations, source, strings)
    if alternatives is None:
        return None
    parameters: list = []
    sql = " OR ".join(
        "(" + " AND ".join(_sql(part, quote, placeholder, parameters) for part in parts) + ")" for parts in alternatives
    )
    return PushedFilter(sql, tuple(parameters))


def _conjuncts(condition):
    if isinstance(condition, Call) and condition.fn is Fn.AND:
        for arg in condition.args:
            yield from _conjuncts(arg)
    else:
        yield condition


def _sql(part: Pushed, quote: Callable[[str], str], placeholder: Callable[[int], str] | None, parameters: list) -> str:
    if part.op in ("IS NULL", "IS NOT NULL"):
        return f"{quote(part.column)} {part.op}"
    return f"{quote(part.column)} {part.op} {_value(part.value, placeholder, parameters)}"


def _value(value: object, placeholder: Callable[[int], str] | None, parameters: list) -> str:
    """The value as a bound parameter, or as a literal (a finite number or a boolean: ``_comparable``
    let nothing else through) where the driver binds none."""
    if placeholder is not None:
        parameters.append(value)
        return placeholder(len(parameters))
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    assert isinstance(value, (int, float)), value
    text = repr(value)  # a float as a double literal (1.5e0): compared as a double, as DuckDB does
    return text if isinstance(value, int) or "e" in text else text + "e0"


def _part(condition, strings: bool, doubles: bool) -> Pushed | None:
    """One conjunct as a reader may run it, or None when it may not be pushed."""
    if isinstance(condition, IsNull) and isinstance(condition.operand, Field):
        return Pushed(condition.operand.name, "IS NULL")
    if (
        isinstance(condition, Call)
        and condition.fn is Fn.NOT
        and isinstance(condition.args[0], IsNull)
        and isinstance(condition.args[0].operand, Field)
    ):
        return Pushed(condition.args[0].operand.name, "IS NOT NULL")
    if not (isinstance(condition, Call) and condition.fn in _COMPARISONS):
        return None
    left, right = condition.args
    fn = condition.fn
    if isinstance(left, Literal) and isinstance(right, Field):
        left, right, fn = right, left, _MIRRORED[fn]
    if not (isinstance(left, Field) and isinstance(right, Literal) and _comparable(left, right, fn, strings)):
        return None
    if left.dtype.kind is Kind.DOUBLE and not doubles:
        return None
    return Pushed(left.name, _COMPARISONS[fn], right.value)


def _comparable(field: Field, literal: Literal, fn: Fn, strings: bool) -> bool:
    value = literal.value
    if field.dtype.kind in _NUMBERS:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if fn not in (Fn.EQ, Fn.NE):
        return False
    if field.dtype.kind is Kind.STRING:
        return strings and isinstance(value, str)
    return field.dtype.kind is Kind.BOOLEAN and isinstance(value, bool)
