"""Relations of the plan: frozen nodes with tuple children and a known output schema.

Every relation has uniquely named output columns; a join's two sides must not share a name
(the lowering renames one side first), so no column reference ever needs a qualifier.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .data_types import INTEGER, Column, Kind, Schema
from .functions import AggFn, JoinKind
from .node import Node, Part, concrete_types, walk_nodes
from .scalars import (
    AggregateCall,
    Literal,
    Scalar,
    SortKey,
    WindowCall,
    contains_aggregate,
    contains_window,
    field_names,
)


class Relation(Node):
    """Base of relations: nodes with a known output ``schema`` and relation inputs."""

    __slots__ = ()

    @property
    def schema(self) -> Schema:
        raise NotImplementedError

    def inputs(self) -> tuple[Relation, ...]:
        """The direct input relations, in field order (a join's left side first)."""
        return self.parts_of(Relation)

    def expressions(self) -> tuple[Scalar, ...]:
        """The scalar expressions this node evaluates itself (not those of its inputs)."""
        return self.parts_of(Scalar)

    # The extension point for relations defined outside the plan (an engine's rewrites add its
    # own): pruning and the printer handle the plan's relations themselves and ask any other
    # relation these two, so an engine never registers into the compiler's functions.
    def prune(self, needed: frozenset[str] | None) -> Relation:
        """This node reading only what giving the ``needed`` output columns takes (None: all)."""
        raise TypeError(f"cannot prune a {type(self).__name__}")

    def describe(self) -> str:
        """This node's line in a printed plan, without its inputs."""
        raise TypeError(f"no printed form for a {type(self).__name__}")


@dataclass(frozen=True, slots=True)
class Named(Part):
    """An expression with the output column name it produces."""

    expr: Scalar
    name: str


def _check_fields(where: str, exprs: Iterable[Scalar], schema: Schema) -> None:
    for expr in exprs:
        missing = field_names(expr) - set(schema.names)
        if missing:
            raise ValueError(f"{where}: unknown column(s) {sorted(missing)}; input has {list(schema.names)}")


def _check_unique(where: str, given: Iterable[str]) -> None:
    names = list(given)
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"{where}: duplicate output column(s) {duplicates}")


def _check_boolean(where: str, expr: Scalar) -> None:
    if expr.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
        raise ValueError(f"{where}: condition must be boolean, got {expr.dtype}")


@dataclass(frozen=True, slots=True)
class Read(Relation):
    """All rows of a named source (or view) with the schema the compiler checked against."""

    source: str
    source_schema: Schema

    @property
    def schema(self) -> Schema:
        return self.source_schema


@dataclass(frozen=True, slots=True)
class Sql(Relation):
    """Pass-through SQL text in ``dialect`` (a ``spark-sql`` rule or ``pre.proc`` step).

    It reads the sources and views named in ``tables``; its schema is known only when the
    compiler could learn it (``None`` otherwise).
    """

    text: str
    tables: tuple[str, ...]
    dialect: str = "spark"
    output_schema: Schema | None = None

    @property
    def schema(self) -> Schema:
        if self.output_schema is None:
            raise ValueError("the schema of a SQL relation is not known before it runs")
        return self.output_schema


@dataclass(frozen=True, slots=True)
class Filter(Relation):
    """Rows of the input for which ``condition`` is true."""

    input: Relation
    condition: Scalar

    def __post_init__(self) -> None:
        _check_boolean("Filter", self.condition)
        if contains_aggregate(self.condition) or contains_window(self.condition):
            raise ValueError("Filter: aggregates and windows are not allowed in a condition")
        _check_fields("Filter", [self.condition], self.input.schema)

    @property
    def schema(self) -> Schema:
        return self.input.schema


@dataclass(frozen=True, slots=True)
class Project(Relation):
    """One output row per input row with the given columns."""

    input: Relation
    columns: tuple[Named, ...]

    def __post_init__(self) -> None:
        if not self.columns:
            raise ValueError("Project needs at least one column")
        _check_unique("Project", (c.name for c in self.columns))
        for column in self.columns:
            if contains_aggregate(column.expr) or contains_window(column.expr):
                raise ValueError("Project: use Aggregate or Window for aggregates and windows")
        _check_fields("Project", [c.expr for c in self.columns], self.input.schema)

    @property
    def schema(self) -> Schema:
        return Schema(tuple(Column(c.name, c.expr.dtype) for c in self.columns))


@dataclass(frozen=True, slots=True)
class GroupingSets(Part):
    """Several groupings of one input in one aggregate (SQL's GROUPING SETS): each set names the
    keys it groups by (none: one row for all rows); a key outside a row's set is NULL there, and
    the ``column`` says which set a row belongs to, as the set's index in ``sets``."""

    sets: tuple[tuple[str, ...], ...]
    column: str


@dataclass(frozen=True, slots=True)
class Aggregate(Relation):
    """Group by ``keys`` (none: one row for the whole input) and compute ``measures``; with
    ``grouping``, once per grouping set in the same pass over the input."""

    input: Relation
    keys: tuple[Named, ...]
    measures: tuple[Named, ...]
    grouping: GroupingSets | None = None

    def __post_init__(self) -> None:
        names = [k.name for k in self.keys] + [m.name for m in self.measures]
        if self.grouping is not None:
            key_names = {k.name for k in self.keys}
            if not self.keys or not self.grouping.sets or any(not set(s) <= key_names for s in self.grouping.sets):
                raise ValueError("Aggregate: grouping sets must be of its keys")
            names.append(self.grouping.column)
        _check_unique("Aggregate", names)
        for key in self.keys:
            if contains_aggregate(key.expr) or contains_window(key.expr):
                raise ValueError("Aggregate: grouping keys cannot hold aggregates")
        for measure in self.measures:
            if not isinstance(measure.expr, AggregateCall):
                raise ValueError(f"Aggregate: measure {measure.name!r} must be an AggregateCall")
            if measure.expr.filter is not None:
                _check_boolean("Aggregate filter", measure.expr.filter)
        _check_fields("Aggregate", [k.expr for k in self.keys] + [m.expr for m in self.measures], self.input.schema)

    @property
    def schema(self) -> Schema:
        columns = tuple(Column(n.name, n.expr.dtype) for n in self.keys + self.measures)
        if self.grouping is None:
            return Schema(columns)
        return Schema((*columns, Column(self.grouping.column, INTEGER, False)))

    def percentile_sets(self) -> tuple[PercentileSet, ...]:
        """The PERCENTILE_DISC measures, gathered by the value and the rows they rank."""
        sets: dict[tuple[Scalar, Scalar | None], list[tuple[str, float]]] = {}
        for m in self.measures:
            call = m.expr
            if isinstance(call, AggregateCall) and call.fn is AggFn.PERCENTILE_DISC:
                fraction = call.args[1]
                assert isinstance(fraction, Literal) and isinstance(
                    fraction.value, (int, float)
                )  # a number written down
                sets.setdefault((call.args[0], call.filter), []).append((m.name, fraction.value))
        return tuple(PercentileSet(value, rows, tuple(members)) for (value, rows), members in sets.items())


@dataclass(frozen=True, slots=True)
class PercentileSet(Part):
    """Percentiles of one value over the same rows: an engine orders the values once for all."""

    value: Scalar
    filter: Scalar | None
    members: tuple[tuple[str, float], ...]  # (measure name, fraction)


@dataclass(frozen=True, slots=True)
class Join(Relation):
    """Join two relations; ANTI and SEMI keep only the left columns. ``shuffled``: both sides may
    be as large as a source, so an engine that could copy the right side to every task (Spark's
    broadcast, from estimates) shuffles both sides instead."""

    kind: JoinKind
    left: Relation
    right: Relation
    on: Scalar | None
    shuffled: bool = False

    def __post_init__(self) -> None:
        if self.kind is JoinKind.CROSS:
            if self.on is not None:
                raise ValueError("Join: a cross join has no condition")
        else:
            if self.on is None:
                raise ValueError(f"Join: a {self.kind.value} join needs a condition")
            _check_boolean("Join", self.on)
            both = Schema(
                self.left.schema.columns + tuple(c for c in self.right.schema.columns if c.name not in self.left.schema)
            )
            _check_fields("Join", [self.on], both)
        shared = set(self.left.schema.names) & set(self.right.schema.names)
        if shared:
            raise ValueError(f"Join: both sides have column(s) {sorted(shared)}; rename one side")

    @property
    def schema(self) -> Schema:
        if self.kind in (JoinKind.ANTI, JoinKind.SEMI):
            return self.left.schema
        right = self.right.schema.columns
        if self.kind is JoinKind.LEFT:
            right = tuple(Column(c.name, c.dtype, True) for c in right)
        return Schema(self.left.schema.columns + right)


@dataclass(frozen=True, slots=True)
class Distinct(Relation):
    """The input without duplicate rows (NULLs compare equal)."""

    input: Relation

    @property
    def schema(self) -> Schema:
        return self.input.schema


@dataclass(frozen=True, slots=True)
class Sort(Relation):
    """The input ordered by ``keys``."""

    input: Relation
    keys: tuple[SortKey, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise ValueError("Sort needs at least one key")
        _check_fields("Sort", [k.expr for k in self.keys], self.input.schema)

    @property
    def schema(self) -> Schema:
        return self.input.schema


@dataclass(frozen=True, slots=True)
class Limit(Relation):
    """At most ``count`` rows of the input."""

    input: Relation
    count: int

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError("Limit: count must not be negative")

    @property
    def schema(self) -> Schema:
        return self.input.schema


@dataclass(frozen=True, slots=True)
class Window(Relation):
    """The input plus one column per window call (row numbering and partition counts)."""

    input: Relation
    columns: tuple[Named, ...]

    def __post_init__(self) -> None:
        for column in self.columns:
            if not isinstance(column.expr, WindowCall):
                raise ValueError(f"Window: column {column.name!r} must be a WindowCall")
        _check_unique("Window", list(self.input.schema.names) + [c.name for c in self.columns])
        _check_fields("Window", [c.expr for c in self.columns], self.input.schema)

    @property
    def schema(self) -> Schema:
        return Schema(self.input.schema.columns + tuple(Column(c.name, c.expr.dtype, False) for c in self.columns))


RELATION_TYPES: tuple[type[Relation], ...] = concrete_types(Relation)


def free_prefix(base: str, taken: Schema | Iterable[str]) -> str:
    """A name prefix that no name of ``taken`` (names, or a Schema) starts with."""
    names = taken.names if isinstance(taken, Schema) else tuple(taken)
    prefix = base
    while any(name.startswith(prefix) for name in names):
        prefix = "_" + prefix
    return prefix


def inputs(rel: Relation) -> tuple[Relation, ...]:
    """The direct input relations of a node."""
    return rel.inputs()


def walk_relations(rel: Relation) -> Iterator[Relation]:
    """Yield ``rel`` and every relation beneath it."""
    return walk_nodes(rel, Relation)


def reads(rel: Relation) -> list[str]:
    """Names of the sources a relation scans, once per scan."""
    out = []
    for node in walk_relations(rel):
        if isinstance(node, Read):
            out.append(node.source)
        elif isinstance(node, Sql):
            out.extend(node.tables)
    return out
