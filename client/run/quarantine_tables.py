"""Quarantine outputs that are tables: an Iceberg table of a catalog (PyIceberg) and a PostgreSQL
table. The engine writes the rows to a stage folder as for a parquet output; each is then put in
its table in one commit that replaces the data time's rows (``data_time``, a column the table
holds): Iceberg's overwrite with a filter on it, PostgreSQL's delete and insert in one transaction
(a source's quarantine and valid tables of one server in the same one). A rerun of the data time
replaces its rows; a run killed before the commit leaves the old ones. On Spark an Iceberg table
is committed by the cluster through Iceberg's Spark runtime, from the same catalog
(client/spark/sources/lake_outputs.py): no stage, no row on the client.
"""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gryph.compiler.errors import EngineError, InvalidInput, Location, with_article
from gryph.compiler.lowering.row_failures import BOOKKEEPING, DATA_TIME
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.databases import resolve
from gryph.compiler.sources.lake_tables import catalog_properties, iceberg_identifier
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.table_names import split_qualified
from gryph.compiler.support.crash_points import QUARANTINE_CRASH_AT, crash_if_chosen

from .output_shapes import FoundTable, OutputTable

RUN_PROPERTY = "gryph.run_id"  # an Iceberg snapshot's summary property: the run whose rows it holds


def check_table(spec: SourceSpec) -> None:
    """Before any scan: the table's database or catalog is reached and can be written (a
    read-only PostgreSQL server or session is refused here, not after the scan)."""
    _WRITERS[spec.kind.kind].check(spec)


def _check_postgres(spec: SourceSpec) -> None:
    connection = _postgres(spec)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select pg_is_in_recovery(), case when to_regclass($1) is not null"
                " then has_table_privilege($1, 'INSERT') and has_table_privilege($1, 'DELETE')"
                " when to_regnamespace($2) is not null then has_schema_privilege($2, 'CREATE')"
                " else has_database_privilege(current_database(), 'CREATE') end",
                (_qualified(spec), schema_of(spec) or "public"),
            )
            standby, allowed = cursor.fetchone()
    finally:
        connection.rollback()
        connection.close()
    if standby or not allowed:
        raise _refused(
            spec,
            "cannot be written (" + ("the server is a read-only standby" if standby else "its user may not") + ")",
            "name a table of a server that takes writes, whose user may insert and delete its rows",
        )


def output_table(source: str, output: str, spec: SourceSpec) -> OutputTable:
    """The output's table, for the shape check before the scan (output_shapes.py)."""
    return OutputTable(
        source, output, spec.describe(), spec.location or Location(), lambda: _WRITERS[spec.kind.kind].found(spec)
    )


def _postgres_table(spec: SourceSpec) -> FoundTable | None:
    connection = _postgres(spec)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select to_regclass($1) is not null, array(select attname::text from pg_attribute"
                " where attrelid = to_regclass($1) and attnum > 0 and not attisdropped order by attnum)",
                (_qualified(spec),),
            )
            exists, columns = cursor.fetchone()
    finally:
        connection.rollback()
        connection.close()
    return FoundTable(tuple(columns)) if exists else None


def _iceberg_table(spec: SourceSpec) -> FoundTable | None:
    from pyiceberg.exceptions import NoSuchTableError

    try:
        table = _catalog(spec).load_table(iceberg_identifier(spec)[1:])
    except NoSuchTableError:
        return None
    return FoundTable(tuple(field.name for field in table.schema().fields))


def commit(
    specs: Mapping[str, SourceSpec], stages: Mapping[str, Path], data_time: str, run_id: str
) -> dict[str, dict[str, object]]:
    """Replace the data time's rows of a source's tables (per output) with the staged ones; what
    the history keeps of each (Iceberg: the snapshot id). PostgreSQL tables of one server are
    committed in one transaction, so both change or neither; an Iceberg table in a commit of its
    own (a catalog commits one table at a time), its snapshot marked with the run's id."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    tables = []
    for out, spec in specs.items():
        rows = ds.dataset(str(stages[out]), format="parquet").to_table()
        rows = rows.append_column(DATA_TIME, pa.array([data_time] * rows.num_rows, pa.string()))
        tables.append((out, spec, rows))
    done: dict[str, dict[str, object]] = {}
    for group in _transactions(tables):
        made = _WRITERS[group[0][1].kind.kind].commit([(spec, rows) for _, spec, rows in group], data_time, run_id)
        done.update((out, {"format": spec.format, **info}) for (out, spec, _), info in zip(group, made, strict=True))
    return done


def _transactions(tables: list) -> list[list]:
    """The tables committed together: the PostgreSQL tables of one server (URL and login), each
    other table alone."""
    groups: dict[object, list] = {}
    for index, table in enumerate(tables):
        spec = table[1]
        key = resolve(spec).adbc_uri() if spec.kind.kind == SourceKind.POSTGRES else index
        groups.setdefault(key, []).append(table)
    return list(groups.values())


@contextlib.contextmanager
def _not_written(spec: SourceSpec) -> Iterator[None]:
    """A driver's error writing ``spec`` (a table of another shape, a lost connection) as gryph's."""
    try:
        yield
    except (EngineError, InvalidInput):
        raise
    except Exception as error:  # the drivers' own errors
        raise EngineError(
            "QUARANTINE_NOT_WRITTEN",
            f"{spec.name} {spec.describe()} was not written: {str(error).splitlines()[0]}",
            location=spec.location,
            text=spec.describe(),
            hint=f"{with_article(spec.format)} output must be a table of the columns the run writes, {DATA_TIME} included "
            "(a new name makes one)",
        ) from None


def spark_commits(spec: SourceSpec) -> bool:
    """Whether a Spark run's cluster commits the output into its table itself (Iceberg, through its
    Spark runtime), rather than staging its rows for the client to commit."""
    return _WRITERS[spec.kind.kind].spark_commits


def committed_by_engine(spec: SourceSpec) -> dict[str, object]:
    """What the history keeps of an output the engine committed itself: its table's snapshot
    after the commit, read through the catalog this client reaches too."""
    table = _catalog(spec).load_table(iceberg_identifier(spec)[1:])
    return {"format": spec.format, "snapshot": table.current_snapshot().snapshot_id}


def _commit_iceberg(tables: list, data_time: str, run_id: str) -> list[dict[str, object]]:
    ((spec, rows),) = tables  # a catalog's commit holds one table
    with _not_written(spec):
        return [_commit_iceberg_table(spec, rows, data_time, run_id)]


def _commit_iceberg_table(spec: SourceSpec, rows, data_time: str, run_id: str) -> dict[str, object]:
    from pyiceberg.exceptions import NoSuchTableError
    from pyiceberg.expressions import EqualTo

    catalog = _catalog(spec)
    identifier = iceberg_identifier(spec)[1:]
    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        catalog.create_namespace_if_not_exists(identifier[:-1])
        # partitioned by the data time, as Spark's writer makes it: a data time's rows are whole files
        table = catalog.create_table(identifier, schema=rows.schema)
        with table.update_spec() as spec_update:
            spec_update.add_identity(DATA_TIME)
    # EqualTo's own __init__ takes (term, literal); its pydantic fields are what mypy reads
    with warnings.catch_warnings():  # a data time's first rows replace none: not worth a warning
        warnings.filterwarnings("ignore", "Delete operation did not match any records")
        table.overwrite(
            rows,
            overwrite_filter=EqualTo(DATA_TIME, data_time),  # type: ignore[call-arg, arg-type]
            snapshot_properties={RUN_PROPERTY: run_id},  # which run's rows the snapshot holds
        )
    return {"snapshot": table.current_snapshot().snapshot_id}


def _commit_postgres(tables: list, data_time: str, run_id: str) -> list[dict[str, object]]:
    """The tables of one server in one transaction: a kill between two leaves both old."""
    connection = _postgres(tables[0][0])
    try:
        with connection.cursor() as cursor:
            cursor.execute("set transaction read write")  # gryph's sessions start read-only
            for index, (spec, rows) in enumerate(tables):
                if index:
                    crash_if_chosen(QUARANTINE_CRASH_AT, "swapped")  # between two tables: neither committed
                with _not_written(spec):
                    _replace_rows(cursor, spec, rows, data_time)
        with _not_written(tables[-1][0]):
            connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        connection.close()
    return [{} for _ in tables]


def _replace_rows(cursor, spec: SourceSpec, rows, data_time: str) -> None:
    name = _qualified(spec)
    cursor.execute("select to_regclass($1) is not null", (name,))
    (exists,) = cursor.fetchone()
    if exists:
        cursor.execute(f"delete from {name} where {_quoted(DATA_TIME)} = $1", (data_time,))
    elif schema_of(spec) is not None:
        cursor.execute(f"create schema if not exists {_quoted(schema_of(spec) or '')}")
    # ADBC makes the table from the rows' Arrow types, or appends to the one there
    cursor.adbc_ingest(name_of(spec), _as_json(rows), mode="create_append", db_schema_name=schema_of(spec))


def _as_json(rows):
    """The rows with a quarantine's bookkeeping columns (lists and structs) as JSON text (ADBC maps
    no Arrow struct to a PostgreSQL type; ``::jsonb`` reads them back)."""
    import json

    import pyarrow as pa

    for column in BOOKKEEPING["quarantine"]:
        at = rows.schema.get_field_index(column)
        if at < 0:
            continue  # a valid output has none
        texts = [json.dumps(value, ensure_ascii=False) for value in rows.column(at).to_pylist()]
        rows = rows.set_column(at, column, pa.array(texts, pa.string()))
    return rows


def name_of(spec: SourceSpec) -> str:
    return split_qualified(str(spec.option("table")))[-1]


def schema_of(spec: SourceSpec) -> str | None:
    parts = split_qualified(str(spec.option("table")))
    return parts[-2] if len(parts) > 1 else None


def _qualified(spec: SourceSpec) -> str:
    """The table's name quoted part by part for PostgreSQL's SQL."""
    return ".".join(_quoted(part) for part in split_qualified(str(spec.option("table"))))


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _postgres(spec: SourceSpec):
    pg = importlib.import_module("adbc_driver_postgresql.dbapi")  # installed with gryph[postgres]; no stubs
    try:
        return pg.connect(resolve(spec).adbc_uri(), autocommit=False)
    except Exception as error:  # the driver's errors: a refused login, an unreachable server
        raise _refused(
            spec, f"cannot be reached: {str(error).splitlines()[0]}", "check the URL and credentials"
        ) from None


def _catalog(spec: SourceSpec):
    from pyiceberg.catalog import load_catalog

    try:
        return load_catalog(iceberg_identifier(spec)[0], **catalog_properties(spec))
    except Exception as error:  # each catalog kind raises its own errors
        raise _refused(
            spec, f"has no catalog: {str(error).splitlines()[0]}", "give catalog.uri and catalog.warehouse"
        ) from None


def _refused(spec: SourceSpec, problem: str, hint: str) -> InvalidInput:
    return InvalidInput(
        "QUARANTINE_TARGET",
        f"{spec.name} {spec.describe()} {problem}",
        location=spec.location,
        text=spec.describe(),
        hint=hint,
    )


@dataclass(frozen=True)
class _TableWriter:
    """How a table kind is checked before the scan (reached and writable; its shape, once the
    run's columns are known) and committed to after it (what the commit made, for the history)."""

    check: Callable[[SourceSpec], object]
    found: Callable[[SourceSpec], FoundTable | None]  # what the table holds now (None: no table yet)
    # (table, rows) pairs committed together, the data time, the run's id -> what each commit made
    commit: Callable[[list[tuple[SourceSpec, Any]], str, str], list[dict[str, object]]]
    spark_commits: bool = False  # on Spark the cluster commits it (client/spark/sources/lake_outputs.py)


_WRITERS = {
    SourceKind.POSTGRES: _TableWriter(_check_postgres, _postgres_table, _commit_postgres),
    SourceKind.ICEBERG: _TableWriter(_catalog, _iceberg_table, _commit_iceberg, spark_commits=True),
}
