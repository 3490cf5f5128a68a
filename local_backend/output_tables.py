"""A run's quarantine and valid outputs into tables of the engine's DuckDB file (``table:`` targets).

Each output replaces its data time's rows of its table (a ``data_time`` column the table holds):
a delete and an insert. All of a run's such outputs are written in one transaction on the run's
own connection, so a reader, or a run killed at any step, sees every table's old rows or every
table's new ones, never one of each. A table of another shape is refused before the scan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import duckdb

from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import Export
from gryph.compiler.plan.data_types import STRING, Column, Schema
from gryph.compiler.plan.printer import table_label
from gryph.compiler.support.crash_points import QUARANTINE_CRASH_AT, crash_if_chosen

from .sources.duck_types import schema_of_relation
from .sql.quoting import ident, string
from .sql.relations import Aliases, relation_sql


def replacing(exports: Sequence[Export]) -> list[Export]:
    """The exports that replace a data time's rows of a table (the others are written whole)."""
    return [e for e in exports if e.table is not None and e.replace is not None]


def check_shapes(con: duckdb.DuckDBPyConnection, exports: Sequence[Export]) -> None:
    """Before the scan: a table already there holds exactly the columns the run writes."""
    for export in replacing(exports):
        assert export.table is not None and export.replace is not None  # replacing() keeps these
        try:
            found = schema_of_relation(con.sql(f"SELECT * FROM {_name(export)}"))
        except duckdb.CatalogException:
            continue  # a new table: made by the run
        wanted = Schema((*export.relation.schema.columns, Column(export.replace[0], STRING)))
        if _shape(found) != _shape(wanted):
            label = table_label(export.table)
            raise InvalidInput(
                "QUARANTINE_TARGET",
                f"table {label} holds other columns than the run writes: {_shown(found)} (the run: {_shown(wanted)})",
                text=label,
                hint="name a new table (the run makes it), or drop this one",
            )


def write_all(
    con: duckdb.DuckDBPyConnection, exports: Sequence[Export], execute: Callable[[str, Export], None]
) -> None:
    """Replace each export's data time's rows of its table, all in one transaction (``execute``
    runs one statement for an export, with its settings and its errors)."""
    con.execute("BEGIN TRANSACTION")
    try:
        for index, export in enumerate(exports):
            if index:
                crash_if_chosen(QUARANTINE_CRASH_AT, "swapped")  # a kill between two outputs: neither counts
            for statement in _statements(export):
                execute(statement, export)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _statements(export: Export) -> list[str]:
    assert export.table is not None and export.replace is not None  # replacing() keeps these
    column, value = ident(export.replace[0]), string(export.replace[1])
    name = _name(export)
    rows = f"SELECT *, {value} AS {column} FROM ({relation_sql(export.relation, Aliases())})"
    schema = [f"CREATE SCHEMA IF NOT EXISTS {ident(export.table[0])}"] if len(export.table) > 1 else []
    return [
        *schema,
        f"CREATE TABLE IF NOT EXISTS {name} AS {rows} LIMIT 0",
        f"DELETE FROM {name} WHERE {column} = {value}",
        f"INSERT INTO {name} BY NAME {rows}",
    ]


def _name(export: Export) -> str:
    assert export.table is not None
    return ".".join(ident(part) for part in export.table)


def _shape(schema: Schema) -> list[tuple[str, object]]:
    return [(c.name, c.dtype) for c in schema.columns]  # NULLs allowed or not: the table's own say


def _shown(schema: Schema) -> str:
    return ", ".join(f"{c.name} {c.dtype}" for c in schema.columns)
