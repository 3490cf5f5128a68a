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

from ..plan import Aggregate, AggregateCall, Export, Field, Named, Plan, Project, Query, Relation, Scalar, View
from ..plan.scalars import substitute
from ..results import ResultRow


@dataclass(frozen=True)
class ValueRef:
    """One value of a fused aggregate query."""

    query: str
    column: str


@dataclass(frozen=True)
class RowsRef:
    """The rows of a row query."""

    query: str


class _Fused:
    """The aggregate query of one input relation."""

    def __init__(self, name: str, relation: Relation) -> None:
        self.name = name
        self.relation = relation
        self.measures: dict[AggregateCall, str] = {}
        self.outputs: dict[Scalar, str] = {}

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
        aggregate = Aggregate(self.relation, (), tuple(Named(c, n) for c, n in self.measures.items()))
        columns = tuple(Named(expr, name) for expr, name in self.outputs.items())
        return Query(self.name, Project(aggregate, columns))


class Collector:
    """Collects value and row requests; ``plan()`` builds the fused plan."""

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix  # keeps the query names of plans that run in one run apart
        self._fused: dict[Relation, _Fused] = {}
        self._rows: dict[tuple[Relation, int | None], str] = {}
        self._conditions: dict[str, Callable[[Results], bool]] = {}
        self._views: list[View] = []
        self._exports: list[Export] = []

    def view(self, name: str, relation: Relation) -> None:
        self._views.append(View(name, relation))

    def export(self, export: Export) -> None:
        """Write a relation in full on the engine's side (full record outputs)."""
        self._exports.append(export)

    def value(self, relation: Relation, expr: Scalar) -> ValueRef:
        """A single value: ``expr`` over aggregates of ``relation`` (no grouping)."""
        fused = self._fused.get(relation)
        if fused is None:
            fused = self._fused[relation] = _Fused(f"{self._prefix}agg{len(self._fused)}", relation)
        return ValueRef(fused.name, fused.add(expr))

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
        return frozenset([f.name for f in self._fused.values()] + list(self._rows.values()))

    def conditions(self) -> dict[str, Callable[[Results], bool]]:
        """Row queries that run only when their condition holds on the other queries' results."""
        return dict(self._conditions)

    def plan(self) -> Plan:
        queries = [fused.query() for fused in self._fused.values()]
        queries += [Query(name, relation, limit) for (relation, limit), name in self._rows.items()]
        return Plan(tuple(self._views), tuple(queries), tuple(self._exports))


class Results:
    """Query results, read through the references the collector handed out."""

    def __init__(self, rows_by_query: dict[str, list[ResultRow]]) -> None:
        self._rows = rows_by_query

    def value(self, ref: ValueRef) -> Any:  # whatever the engine computed
        rows = self._rows[ref.query]
        return rows[0][ref.column] if rows else None

    def rows(self, ref: RowsRef) -> list[ResultRow]:
        # a conditional query whose condition did not hold has no rows
        return self._rows.get(ref.query, [])
