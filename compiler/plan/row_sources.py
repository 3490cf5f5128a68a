"""Relations whose rows are rows of one source, unchanged: the record samples of filters and of
semi and anti joins. An engine can compute such a relation with each row's address in the
source (DuckDB: its file and row number; Spark: a number given when the source is kept) and
fetch only the few whole rows a sample shows.

What is shared here is the plan side: which rows are a source's rows, and the same relation
over the source's rows with their addresses. The rest is each engine's own, because its cost
is: which samples gain (DuckDB: those of a shared relation its statement materialises, so that
relation carries addresses instead of whole rows; Spark: join samples, whose numbers one shuffle
gives the count and the sample), and how the rows are fetched (DuckDB: a semi join per sample,
skipping row groups by row number; Spark: one scan of the copy for all of a source's samples).
"""

from __future__ import annotations

from dataclasses import replace

from .data_types import Column, Schema
from .functions import JoinKind
from .relations import Filter, Join, Read, Relation, Sql, walk_relations


def row_source(rel: Relation) -> Read | None:
    """The read whose rows ``rel`` returns unchanged, when ``rel`` keeps some of them and does
    nothing else (filters, the left side of semi and anti joins)."""
    while isinstance(rel, Filter | Join):
        if isinstance(rel, Filter):
            rel = rel.input
        elif rel.kind in (JoinKind.SEMI, JoinKind.ANTI):
            rel = rel.left
        else:
            return None
    return rel if isinstance(rel, Read) else None


def addressed(read: Read, rows: str, address: tuple[Column, ...]) -> Read:
    """``read``'s rows with their ``address`` columns after its own, read from ``rows`` (the
    engine's name for them)."""
    return Read(rows, Schema((*read.source_schema.columns, *address)))


def on_spine(rel: Relation, source: Read) -> Relation:
    """``rel`` reading ``source`` where its rows come from (``row_source``)."""
    if isinstance(rel, Filter):
        return Filter(on_spine(rel.input, source), rel.condition)
    if isinstance(rel, Join):
        return replace(rel, left=on_spine(rel.left, source))
    return source


def column_names(rel: Relation) -> set[str]:
    """Every column name of ``rel`` and of the relations beneath it (users' SQL: as far as known)."""
    return {
        name
        for node in walk_relations(rel)
        if not (isinstance(node, Sql) and node.output_schema is None)
        for name in node.schema.names
    }
