"""Output tables already there, checked before any scan: a Delta table, an Iceberg table of a
catalog and a PostgreSQL table hold the columns the run writes (``written_columns``, the one
description the split's exports are made by), and a Delta table is partitioned by ``data_time``,
so a table of another shape is a located QUARANTINE_TARGET up front, not a failed commit after
the whole scan. Names are compared, not types: each kind has its own type names, and a column of
another type is its writer's refusal at the commit (QUARANTINE_NOT_WRITTEN), the old rows kept.
A table of the run's DuckDB file is checked by the engine, types too (local_backend/output_tables.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gryph.compiler.errors import InvalidInput, Location
from gryph.compiler.lowering.row_failures import DATA_TIME, written_columns
from gryph.compiler.plan.data_types import Schema


@dataclass(frozen=True)
class FoundTable:
    """What an output's table holds now: its columns, and its partition columns where its kind
    has them (None: not asked)."""

    columns: tuple[str, ...]
    partitions: tuple[str, ...] | None = None


@dataclass(frozen=True)
class OutputTable:
    """One output the run commits into a table: its source, which output, how it is named to the
    user and where, and how its current shape is read (None: no such table yet)."""

    source: str
    output: str
    shown: str
    location: Location
    found: Callable[[], FoundTable | None]


def check_shapes(tables: Iterable[OutputTable], schemas: dict[str, Schema]) -> None:
    """Each of ``tables`` that exists holds exactly the columns the run writes to it (any order);
    ``schemas``: the sources' schemas as the run reads them."""
    for table in tables:
        wanted = written_columns(schemas[table.source].names, table.output, table=True)
        try:
            found = table.found()
            problem = None if found is None else _problem(found, wanted)  # None: the first commit makes it
        except UnreadableTable as error:
            problem = str(error)
        if problem is not None:
            raise InvalidInput(
                "QUARANTINE_TARGET",
                f"{table.output} table {table.shown} {problem}",
                location=table.location,
                text=table.shown,
                hint=f"name a new table (the run makes it with {', '.join(wanted)}), or one gryph wrote for "
                f"source {table.source!r}",
            )


def _problem(found: FoundTable, wanted: tuple[str, ...]) -> str | None:
    if found.partitions is not None and list(found.partitions) != [DATA_TIME]:
        return f"is partitioned by {list(found.partitions) or 'nothing'}, not by [{DATA_TIME!r}]"
    missing = [name for name in wanted if name not in found.columns]
    extra = [name for name in found.columns if name not in wanted]
    parts = [f"has no column {_names(missing)}"] if missing else []
    parts += [f"has columns the run does not write: {_names(extra)}"] if extra else []
    return "; ".join(parts) or None


def _names(names: list[str]) -> str:
    return ", ".join(map(repr, names))


def delta_table(path: Path) -> Callable[[], FoundTable | None]:
    """How a Delta table's shape is read (deltalake): its columns and partitioning."""

    def found() -> FoundTable | None:
        if not (path / "_delta_log").is_dir():
            return None
        try:
            from deltalake import DeltaTable
        except ImportError:  # a Spark run's client without the delta extra: Spark's writer refuses it later
            return None
        try:
            table = DeltaTable(str(path))
        except Exception as error:  # delta-rs raises its own classes for a log it cannot read
            raise UnreadableTable(f"is not a Delta table gryph can read: {error}") from None
        columns = tuple(field.name for field in table.schema().fields)
        return FoundTable(columns, tuple(table.metadata().partition_columns))

    return found


class UnreadableTable(Exception):
    """A table whose shape cannot be read (a damaged log, a catalog's refusal): its problem."""
