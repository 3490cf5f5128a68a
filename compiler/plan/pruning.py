"""Column pruning on the plan: every Read keeps only the columns something above it uses.

An engine that reads a source once for several queries (the Spark engine keeps it on the
cluster for the run) needs to know which of its columns the run uses, and the relations it
then compiles must not name the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import replace
from functools import singledispatch

from .relations import (
    Aggregate,
    Distinct,
    Filter,
    Join,
    Limit,
    Project,
    Read,
    Relation,
    Sort,
    Sql,
    Window,
    walk_relations,
)
from .scalars import Scalar, field_names

Needed = frozenset[str] | None  # None: every output column


def _fields(exprs: Iterable[Scalar]) -> frozenset[str]:
    return frozenset().union(*(field_names(e) for e in exprs))


def _or_all(needed: Needed, extra: AbstractSet[str]) -> Needed:
    return None if needed is None else needed | extra


@singledispatch
def prune_columns(rel: Relation, needed: Needed = None) -> Relation:
    """``rel`` computing the same ``needed`` output columns while reading no other column."""
    return rel.prune(needed)  # a relation from outside the plan prunes itself


@prune_columns.register
def _read(rel: Read, needed: Needed = None) -> Relation:
    if needed is None:
        return rel
    columns = tuple(c for c in rel.source_schema.columns if c.name in needed)
    # a count over no column still needs its rows: keep the first column for them
    return replace(rel, source_schema=replace(rel.source_schema, columns=columns or rel.source_schema.columns[:1]))


@prune_columns.register
def _sql(rel: Sql, needed: Needed = None) -> Relation:
    return rel


@prune_columns.register
def _filter(rel: Filter, needed: Needed = None) -> Relation:
    return replace(rel, input=prune_columns(rel.input, _or_all(needed, field_names(rel.condition))))


@prune_columns.register
def _project(rel: Project, needed: Needed = None) -> Relation:
    kept = tuple(c for c in rel.columns if needed is None or c.name in needed) or rel.columns[:1]
    return replace(rel, input=prune_columns(rel.input, _fields(c.expr for c in kept)), columns=kept)


@prune_columns.register
def _aggregate(rel: Aggregate, needed: Needed = None) -> Relation:
    return replace(rel, input=prune_columns(rel.input, _fields(rel.expressions())))


@prune_columns.register
def _join(rel: Join, needed: Needed = None) -> Relation:
    on = field_names(rel.on) if rel.on is not None else frozenset()
    left, right = (_side(side, needed, on) for side in (rel.left, rel.right))
    return replace(rel, left=left, right=right)


@prune_columns.register
def _distinct(rel: Distinct, needed: Needed = None) -> Relation:
    return replace(rel, input=prune_columns(rel.input, None))  # every column decides what is distinct


@prune_columns.register
def _sort(rel: Sort, needed: Needed = None) -> Relation:
    return replace(rel, input=prune_columns(rel.input, _or_all(needed, _fields(rel.expressions()))))


@prune_columns.register
def _limit(rel: Limit, needed: Needed = None) -> Relation:
    return replace(rel, input=prune_columns(rel.input, needed))


@prune_columns.register
def _window(rel: Window, needed: Needed = None) -> Relation:
    own = frozenset(c.name for c in rel.columns)
    below = None if needed is None else (needed - own) | _fields(rel.expressions())
    return replace(rel, input=prune_columns(rel.input, below))


def _side(side: Relation, needed: Needed, on: AbstractSet[str]) -> Relation:
    names = frozenset(side.schema.names)
    return prune_columns(side, None if needed is None else (needed | on) & names)


def columns_read(relations: Iterable[Relation]) -> dict[str, frozenset[str] | None]:
    """For each source the pruned relations read: the columns they use (None: all, for SQL)."""
    out: dict[str, frozenset[str] | None] = {}
    for rel in relations:
        for node in walk_relations(rel):
            if isinstance(node, Sql):
                out.update(dict.fromkeys(node.tables))  # SQL text may name any column
            elif isinstance(node, Read) and (node.source not in out or out[node.source] is not None):
                out[node.source] = (out.get(node.source) or frozenset()) | frozenset(node.source_schema.names)
    return out
