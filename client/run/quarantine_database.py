"""Quarantine and valid outputs that are tables of the ``--database`` DuckDB file: ``quarantine
orders to "table:dq.bad_orders"`` in a suite, or ``--quarantine-to table:PREFIX`` (tables named
PREFIX + SOURCE__quarantine and SOURCE__valid, as ``--records-to table:PREFIX`` names its own).

The engine writes them on the run's own connection, all in one transaction that replaces the
data time's rows (local_backend/output_tables.py). Before any scan the run opens the file
writable; a run without ``--database``, a file another process holds or this user may not
write, a table of another shape, or a Spark run is a located ``QUARANTINE_TARGET``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from gryph.compiler.engine import Engine
from gryph.compiler.errors import GryphError, InvalidInput, Location, with_article
from gryph.compiler.lowering.row_failures import OUTPUTS
from gryph.compiler.plan.printer import table_label
from gryph.compiler.safe_names import safe_file_name
from gryph.compiler.sources.table_names import split_qualified
from gryph.compiler.suites.split_outputs import DATABASE_TABLE, row_level_sources
from gryph.compiler.suites.suite import Suite


@dataclass(frozen=True)
class DatabaseTable:
    """One output's table of the DuckDB file, and where the user named it."""

    parts: tuple[str, ...]  # [schema,] table
    given: str  # as the user wrote it: the statement's "table:..." or "--quarantine-to table:..."
    location: Location

    @property
    def label(self) -> str:
        return table_label(self.parts)


def in_database(suite: Suite, root: str | None) -> dict[str, dict[str, DatabaseTable]]:
    """Per source, its outputs that are tables of the DuckDB file (a ``table:`` root gives every
    source a row-level rule reads both)."""
    found: dict[str, dict[str, DatabaseTable]] = {}
    if root is not None:
        if not root.startswith(DATABASE_TABLE):
            return found
        *schema, start = root[len(DATABASE_TABLE) :].split(".")
        given = f"--quarantine-to {root}"
        if len(schema) > 1 or not all(part.strip() for part in schema):
            raise InvalidInput(
                "QUARANTINE_TARGET",
                f"{given} is not a table prefix of the form table:[schema.]prefix",
                location=Location(suite.file),
                text=root,
                hint="write --quarantine-to table:dq. (tables dq.SOURCE__quarantine and dq.SOURCE__valid)",
            )
        for source in row_level_sources(suite):
            found[source] = {
                out: DatabaseTable((*schema, start + safe_file_name(f"{source}__{out}")), given, Location(suite.file))
                for out in OUTPUTS
            }
        return found
    for (source, out), spec in suite.output_tables.items():
        if spec.kind.family == "catalog":
            parts = tuple(split_qualified(spec.table_name))  # checked by the suite's loader
            location = spec.location or Location(suite.file)
            found.setdefault(source, {})[out] = DatabaseTable(parts, DATABASE_TABLE + spec.table_name, location)
    return found


def refuse_engine(engine: str, tables: dict[str, dict[str, DatabaseTable]]) -> None:
    """Before the engine opens: only DuckDB has a database file (Spark's catalog is the
    cluster's; its outputs are ``delta(...)`` and ``iceberg(...)`` tables)."""
    first = _first(tables)
    if first is not None and engine != "duckdb":
        raise _refused(
            first,
            f"is a table of the --database DuckDB file: {with_article(engine)} run has none",
            'on spark, write delta("PATH") or iceberg(...) outputs; or run on duckdb with --database FILE',
        )


def open_for_writes(engine: Engine, tables: dict[str, dict[str, DatabaseTable]]) -> None:
    """Before any scan: the engine's DuckDB file opened writable for the run's table outputs."""
    first = _first(tables)
    if first is None:
        return
    refuse_engine(engine.name, tables)
    try:
        opened = engine.open_for_writes()  # type: ignore[attr-defined]  # DuckDB's own, checked above
    except GryphError as error:  # another process holds the file, or this user may not write it
        raise _refused(
            first,
            f"cannot be written: {error.message}",
            "close the other process that opened it, or give a file this user may write",
        ) from None
    if not opened:
        raise _refused(first, "is a table of the --database DuckDB file: the run names none", "add --database FILE")


def refuse_in_stream(tables: dict[str, dict[str, DatabaseTable]]) -> None:
    """``gryph stream`` runs without a database file: its outputs are a folder per batch."""
    first = _first(tables)
    if first is not None:
        raise _refused(
            first,
            "is a table of the --database DuckDB file: gryph stream writes a folder per batch",
            'write: quarantine SOURCE to "out/bad" (or delta("out/bad"))',
        )


def _first(tables: dict[str, dict[str, DatabaseTable]]) -> DatabaseTable | None:
    return next((table for outs in tables.values() for table in outs.values()), None)


@contextlib.contextmanager
def located(tables: dict[str, dict[str, DatabaseTable]]) -> Iterator[None]:
    """The engine's refusal of a table of another shape, located where the user named the table."""
    by_label = {table.label: table for outs in tables.values() for table in outs.values()}
    try:
        yield
    except InvalidInput as error:
        table = by_label.get(error.text or "") if error.code == "QUARANTINE_TARGET" else None
        if table is not None:
            error.location, error.text = table.location, table.given
        raise


def _refused(table: DatabaseTable, problem: str, hint: str) -> InvalidInput:
    return InvalidInput(
        "QUARANTINE_TARGET", f"{table.given} {problem}", location=table.location, text=table.given, hint=hint
    )
