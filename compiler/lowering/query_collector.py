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
    Call,
    Export,
    Field,
    Filter,
    Fn,
    GroupingSets,
    Join,
    JoinKind,
    Literal,
    Named,
    Plan,
    Project,
    Query,
    Relation,
    Scalar,
    SortKey,
    View,
    Window,
    WindowCall,
    WindowFn,
    and_all,
    count_all,
)
from ..plan.data_types import BOOLEAN, INTEGER
from ..plan.scalars import substitute
from ..results import ResultRow

GROUP_KEY = "group_key"  # a grouped query's i-th key column, group_key{i}
GROUPING_SET = "grouping_set"  # which grouping a row of a grouped query is of
GROUP_RANK = "group_rank"  # and its rank there: the most rows first, ties by key


@dataclass(frozen=True)
class ValueRef:
    """One value of a fused aggregate query (of its row over all rows, if it is grouped too)."""

    query: str
    column: str


@dataclass(frozen=True)
class GroupedRef:
    """One value per group of a grouping of a fused aggregate query, for at most ``limit`` groups."""

    query: str
    column: str
    grouping: int
    key: str
    limit: int


@dataclass(frozen=True)
class RowsRef:
    """The rows of a row query."""

    query: str


class _Fused:
    """The aggregate query of one input relation: its values over all rows and per value of each
    grouping key, all from one pass over the relation (grouping sets)."""

    def __init__(self, name: str, relation: Relation) -> None:
        self.name = name
        self.relation = relation
        self.measures: dict[AggregateCall, str] = {}
        self.outputs: dict[Scalar, str] = {}
        self.limits: dict[Scalar, int] = {}  # each grouping key, with the most groups asked of it
        # aggregates of other relations per value of a grouping key: (key, other, other's key) -> {call: column}
        self.joined: dict[tuple[Scalar, Relation, Scalar], dict[AggregateCall, str]] = {}

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

    def grouped(self, key: Scalar, expr: Scalar, limit: int) -> GroupedRef:
        at = self._grouping(key, limit)
        return GroupedRef(self.name, self.add(expr), at + 1, f"{GROUP_KEY}{at}", limit)

    def grouped_from(
        self, key: Scalar, other: Relation, other_key: Scalar, call: AggregateCall, limit: int
    ) -> GroupedRef:
        at = self._grouping(key, limit)
        calls = self.joined.setdefault((key, other, other_key), {})
        if call not in calls:
            calls[call] = f"j{sum(map(len, self.joined.values()))}"
        return GroupedRef(self.name, calls[call], at + 1, f"{GROUP_KEY}{at}", limit)

    def _grouping(self, key: Scalar, limit: int) -> int:
        """The index of ``key``'s grouping, which keeps at least ``limit`` groups."""
        self.limits[key] = max(limit, self.limits.get(key, 0))
        return list(self.limits).index(key)

    def query(self) -> Query:
        columns = tuple(Named(expr, name) for expr, name in self.outputs.items())
        if not self.limits:
            return Query(self.name, Project(Aggregate(self.relation, (), self._measures()), columns))
        # one pass over the relation for all rows (grouping set 0) and each grouping key (set i + 1
        # for the i-th key); a key outside its row's set is NULL there, GROUPING_SET tells them apart
        keys = tuple(Named(key, f"{GROUP_KEY}{i}") for i, key in enumerate(self.limits))
        sets = ((), *((k.name,) for k in keys))
        rows = Field(self.measure(count_all()), INTEGER)
        aggregate = Aggregate(self.relation, keys, self._measures(), GroupingSets(sets, GROUPING_SET))
        key_fields = tuple(Field(k.name, k.expr.dtype) for k in keys)
        grouping = Field(GROUPING_SET, INTEGER)
        projected = Project(
            aggregate, (Named(grouping, GROUPING_SET), *(Named(f, f.name) for f in (*key_fields, rows)), *columns)
        )
        # the groups with the most rows first, ties by key, so both engines keep the same ones
        order = (SortKey(rows, ascending=False), *(SortKey(f) for f in key_fields))
        rank = WindowCall(WindowFn.ROW_NUMBER, (grouping,), order)
        ranked = Window(projected, (Named(rank, GROUP_RANK),))
        kept = Call(Fn.LE, (Field(GROUP_RANK, INTEGER), Literal(max(self.limits.values()), INTEGER)), BOOLEAN)
        return Query(self.name, self._join_others(Filter(ranked, kept), key_fields))

    def _join_others(self, kept: Relation, key_fields: tuple[Field, ...]) -> Relation:
        """``kept`` with the values asked of other relations per group, each other relation
        aggregated by its key and joined to the groups kept (NULL where it has no rows of one):
        the groups and their cap are this relation's. The other relation (an anti join, a
        grouping) is one another query holds too, computed once for both (plan/sharing.py)."""
        if not self.joined:
            return kept
        keys = list(self.limits)
        out, shown = kept, [Named(Field(c.name, c.dtype), c.name) for c in kept.schema.columns]
        for i, ((key, other, other_key), calls) in enumerate(self.joined.items()):
            at, joined_key = keys.index(key), Field(f"jk{i}", other_key.dtype)
            per_group = Aggregate(
                other, (Named(other_key, joined_key.name),), tuple(Named(c, n) for c, n in calls.items())
            )
            same_group = (
                Call(Fn.EQ, (Field(GROUPING_SET, INTEGER), Literal(at + 1, INTEGER)), BOOLEAN),
                Call(Fn.EQ_NULL_SAFE, (key_fields[at], joined_key), BOOLEAN),
            )
            out = Join(JoinKind.LEFT, out, per_group, and_all(same_group))
            shown += [Named(Field(n, c.dtype), n) for c, n in calls.items()]
        return Project(out, tuple(shown))

    def _measures(self) -> tuple[Named, ...]:
        return tuple(Named(c, n) for c, n in self.measures.items())


class Collector:
    """Collects value and row requests; ``plan()`` builds the fused plan."""

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix  # keeps the query names of plans that run in one run apart
        self._fused: dict[Relation, _Fused] = {}
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
        fused = self._fused_of(relation)
        return ValueRef(fused.name, fused.add(expr))

    def grouped_value(self, relation: Relation, key: Scalar, expr: Scalar, limit: int) -> GroupedRef:
        """``expr`` over aggregates of ``relation`` per value of ``key``, for at most ``limit``
        groups (the most rows first). Every value asked of ``relation``, grouped by any key or
        not, comes from one query that reads it once."""
        return self._fused_of(relation).grouped(key, expr, limit)

    def grouped_value_from(
        self, relation: Relation, key: Scalar, other: Relation, other_key: Scalar, call: AggregateCall, limit: int
    ) -> GroupedRef:
        """``call`` over the rows of ``other`` per value of ``other_key``, for the groups of
        ``relation`` by ``key`` that ``grouped_value`` keeps (NULL for a group ``other`` has no
        rows of): a value derived from ``relation``'s rows (its misses, its counted values) per
        group, in ``relation``'s query and without reading ``relation`` again."""
        return self._fused_of(relation).grouped_from(key, other, other_key, call, limit)

    def _fused_of(self, relation: Relation) -> _Fused:
        fused = self._fused.get(relation)
        if fused is None:
            fused = self._fused[relation] = _Fused(f"{self._prefix}agg{len(self._fused)}", relation)
        return fused

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
        fused = [f.name for f in self._fused.values()]
        return frozenset(fused + list(self._rows.values()))

    def conditions(self) -> dict[str, Callable[[Results], bool]]:
        """Row queries that run only when their condition holds on the other queries' results."""
        return dict(self._conditions)

    def plan(self) -> Plan:
        queries = [fused.query() for fused in self._fused.values()]
        queries += [Query(name, relation, limit) for (relation, limit), name in self._rows.items()]
        return Plan(tuple(self._views), tuple(queries), tuple(self._exports), tuple(self._read_once))


class Results:
    """Query results, read through the references the collector handed out."""

    def __init__(self, rows_by_query: dict[str, list[ResultRow]]) -> None:
        self._rows = rows_by_query

    def value(self, ref: ValueRef) -> Any:  # whatever the engine computed
        # the one row of an aggregate, or the row over all rows (set 0) of a grouped one
        rows = [row for row in self._rows[ref.query] if row.get(GROUPING_SET, 0) == 0]
        return rows[0][ref.column] if rows else None

    def groups(self, ref: GroupedRef) -> list[tuple[Any, Any]]:
        """Each group's key and value, the groups with the most rows first."""
        rows = [row for row in self._rows.get(ref.query, []) if row[GROUPING_SET] == ref.grouping]
        rows.sort(key=lambda row: row[GROUP_RANK])
        return [(row[ref.key], row[ref.column]) for row in rows[: ref.limit]]

    def rows(self, ref: RowsRef) -> list[ResultRow]:
        # a conditional query whose condition did not hold has no rows
        return self._rows.get(ref.query, [])
