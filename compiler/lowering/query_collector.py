"""Gathers what every rule needs from the engine and fuses it into as few queries as possible.

Rules ask for *values* (a scalar expression over aggregates of some relation) and for *rows*
(a bounded relation). All values over the same relation share one ``Aggregate``: a suite reads
each source once for its aggregate metrics. Equal sub-plans hash equal, so two rules asking
for the same aggregate compute it once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..plan import (
    Aggregate,
    AggregateCall,
    Export,
    Field,
    Named,
    Plan,
    Project,
    Query,
    Relation,
    Scalar,
    Sort,
    SortKey,
    View,
    count_all,
)
from ..plan.data_types import INTEGER
from ..plan.scalars import substitute
from ..results import ResultRow

GROUP_KEY = "group_key"  # a grouped query's key column
GROUP_ROWS = "v0"  # and its row count, the first value every grouped query computes


@dataclass(frozen=True)
class ValueRef:
    """One value of a fused aggregate query."""

    query: str
    column: str


@dataclass(frozen=True)
class GroupedRef:
    """One value per group of a grouped aggregate query, beside its key and its row count."""

    query: str
    column: str


@dataclass(frozen=True)
class RowsRef:
    """The rows of a row query."""

    query: str


class _Fused:
    """The aggregate query of one input relation."""

    def __init__(self, name: str, relation: Relation, key: Scalar | None = None, limit: int | None = None) -> None:
        self.name = name
        self.relation = relation
        self.key = key  # grouped by this value: a row per group, the most rows first
        self.limit = limit
        self.measures: dict[AggregateCall, str] = {}
        self.outputs: dict[Scalar, str] = {}
        if key is not None:
            self.add(count_all())  # v0: each group's rows, which order the groups

    def measure(self, call: AggregateCall) -> str:
        if call not in self.measures:
            self.measures[call] = f"m{len(self.measures)}"
        return self.measures[call]

    def add(self, expr: Scalar) -> str:
        post = substitute(
            expr, lambda node: Field(self.measure(node), node.dtype) if isinstance(node, AggregateCall) else None
        )
        if post not in self.outputs:
            self.outputs[post] = f"v{len(self.outputs)}"
        return self.outputs[post]

    def query(self) -> Query:
        keys = () if self.key is None else (Named(self.key, GROUP_KEY),)
        aggregate = Aggregate(self.relation, keys, tuple(Named(c, n) for c, n in self.measures.items()))
        columns = tuple(Named(expr, name) for expr, name in self.outputs.items())
        if self.key is None:
            return Query(self.name, Project(aggregate, columns))
        grouped = Project(aggregate, (Named(Field(GROUP_KEY, self.key.dtype), GROUP_KEY), *columns))
        # the groups with the most rows first, ties by key, so both engines keep the same ones
        order = (SortKey(Field(GROUP_ROWS, INTEGER), ascending=False), SortKey(Field(GROUP_KEY, self.key.dtype)))
        return Query(self.name, Sort(grouped, order), self.limit)


class Collector:
    """Collects value and row requests; ``plan()`` builds the fused plan."""

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix  # keeps the query names of plans that run in one run apart
        self._fused: dict[Relation, _Fused] = {}
        self._grouped: dict[tuple[Relation, Scalar, int], _Fused] = {}
        self._rows: dict[tuple[Relation, int | None], str] = {}
        self._conditions: dict[str, Callable[[Results], bool]] = {}
        self._views: list[View] = []
        self._exports: list[Export] = []
        self._read_once: list[str] = []

    def view(self, name: str, relation: Relation, kept: bool = False, rows_of: str | None = None) -> None:
        self._views.append(View(name, relation, kept, rows_of))

    def read_once(self, source: str) -> None:
        """Have the engine read ``source``'s files once for the run (Plan.read_once)."""
        if source not in self._read_once:
            self._read_once.append(source)

    def export(self, export: Export) -> None:
        """Write a relation in full on the engine's side (full record outputs)."""
        self._exports.append(export)

    def value(self, relation: Relation, expr: Scalar) -> ValueRef:
        """A single value: ``expr`` over aggregates of ``relation`` (no grouping)."""
        fused = self._fused.get(relation)
        if fused is None:
            fused = self._fused[relation] = _Fused(f"{self._prefix}agg{len(self._fused)}", relation)
        return ValueRef(fused.name, fused.add(expr))

    def grouped_value(self, relation: Relation, key: Scalar, expr: Scalar, limit: int) -> GroupedRef:
        """``expr`` over aggregates of ``relation`` per value of ``key``, for at most ``limit``
        groups (the most rows first): every value asked of the same grouping shares one query."""
        fused = self._grouped.get((relation, key, limit))
        if fused is None:
            name = f"{self._prefix}grouped{len(self._grouped)}"
            fused = self._grouped[(relation, key, limit)] = _Fused(name, relation, key, limit)
        return GroupedRef(fused.name, fused.add(expr))

    def aggregates(self, relation: Relation) -> bool:
        """Whether some value is already asked of ``relation`` (its aggregate query exists)."""
        return relation in self._fused

    def rows(
        self, relation: Relation, limit: int | None = None, needed: Callable[[Results], bool] | None = None
    ) -> RowsRef:
        """The rows of a relation; with ``needed``, fetched only if it holds once values are known."""
        key = (relation, limit)
        if key not in self._rows:
            self._rows[key] = f"{self._prefix}rows{len(self._rows)}"
            if needed is not None:
                self._conditions[self._rows[key]] = needed
        elif needed is None:
            self._conditions.pop(self._rows[key], None)  # another rule needs it unconditionally
        return RowsRef(self._rows[key])

    def query_names(self) -> frozenset[str]:
        """The names of the queries asked for so far."""
        fused = [f.name for f in (*self._fused.values(), *self._grouped.values())]
        return frozenset(fused + list(self._rows.values()))

    def conditions(self) -> dict[str, Callable[[Results], bool]]:
        """Row queries that run only when their condition holds on the other queries' results."""
        return dict(self._conditions)

    def plan(self) -> Plan:
        queries = [fused.query() for fused in (*self._fused.values(), *self._grouped.values())]
        queries += [Query(name, relation, limit) for (relation, limit), name in self._rows.items()]
        return Plan(tuple(self._views), tuple(queries), tuple(self._exports), tuple(self._read_once))


class Results:
    """Query results, read through the references the collector handed out."""

    def __init__(self, rows_by_query: dict[str, list[ResultRow]]) -> None:
        self._rows = rows_by_query

    def value(self, ref: ValueRef) -> Any:  # whatever the engine computed
        rows = self._rows[ref.query]
        return rows[0][ref.column] if rows else None

    def groups(self, ref: GroupedRef) -> list[tuple[Any, Any]]:
        """Each group's key and value, the groups with the most rows first."""
        return [(row[GROUP_KEY], row[ref.column]) for row in self._rows.get(ref.query, [])]

    def rows(self, ref: RowsRef) -> list[ResultRow]:
        # a conditional query whose condition did not hold has no rows
        return self._rows.get(ref.query, [])
