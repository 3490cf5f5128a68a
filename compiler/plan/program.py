"""A whole plan: views to register, then queries whose rows come back to the client."""

from __future__ import annotations

from dataclasses import dataclass

from .relations import Relation


@dataclass(frozen=True, slots=True)
class View:
    """A relation registered under ``name`` before the queries run (pre-processing steps).

    ``kept``: computed once for the run where the engine keeps rows (DuckDB: a temporary table,
    spilling beyond its memory limit; Spark reads it through, over its kept source), for
    relations several exports and queries read.
    """

    name: str
    relation: Relation
    kept: bool = False
    # a kept view holding every row of this source once, with its columns (and more): where the
    # source is read once, the engine may read the source from the view and drop its own copy
    rows_of: str | None = None


@dataclass(frozen=True, slots=True)
class Query:
    """A relation whose rows are collected; ``limit`` bounds what crosses the wire."""

    name: str
    relation: Relation
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class Export:
    """A relation written in full where the engine runs: to a parquet ``path`` or a ``table``.

    Only the rows' destination is named here; nothing crosses the wire back to the client.
    """

    name: str
    relation: Relation
    path: str | None = None
    table: tuple[str, ...] | None = None  # [database, schema,] table: each part one identifier
    # (column, value): ``path`` is a Delta table partitioned by ``column``; the rows get it set to
    # ``value`` and replace the table's rows of that value in one commit (Spark's replaceWhere)
    replace: tuple[str, str] | None = None
    # an Iceberg table of the catalog with these properties (PyIceberg's names): ``table`` names it
    # (catalog, namespace, table) and ``replace`` its data time's rows, replaced in one commit
    catalog: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        if (self.path is None) == (self.table is None):
            raise ValueError("an export names exactly one of a path and a table")


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one run computes. Engines run views in order, then every query and export."""

    views: tuple[View, ...]
    queries: tuple[Query, ...]
    exports: tuple[Export, ...] = ()
    # sources whose files are read once for the whole run, however many views, queries and
    # exports read them (DuckDB: copied into a temporary table first; Spark keeps every source
    # several scans read anyway)
    read_once: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = [q.name for q in self.queries]
        if len(names) != len(set(names)):
            raise ValueError("query names must be unique")

    def query(self, name: str) -> Query:
        for query in self.queries:
            if query.name == name:
                return query
        raise KeyError(name)
