"""Relations whose rows are rows of one source, unchanged: the record samples of filters and of
semi and anti joins. An engine can compute such a relation with each row's address in the
source (DuckDB: its file and row number; Spark: a number given when the source is kept) and
fetch only the few whole rows a sample shows."""

from __future__ import annotations

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


def on_spine(rel: Relation, source: Read) -> Relation:
    """``rel`` reading ``source`` where its rows come from (``row_source``)."""
    if isinstance(rel, Filter):
        return Filter(on_spine(rel.input, source), rel.condition)
    if isinstance(rel, Join):
        return Join(rel.kind, on_spine(rel.left, source), rel.right, rel.on)
    return source


def column_names(rel: Relation) -> set[str]:
    """Every column name of ``rel`` and of the relations beneath it (users' SQL: as far as known)."""
    return {
        name
        for node in walk_relations(rel)
        if not (isinstance(node, Sql) and node.output_schema is None)
        for name in node.schema.names
    }
