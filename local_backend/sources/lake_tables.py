"""Delta Lake and Iceberg sources on DuckDB: read on the client by their maintained Python readers.

A Delta table (``deltalake``) is registered as the Arrow dataset of the version asked for, so
DuckDB pushes the columns and filters of each scan into it and reads only the files it needs. An
Iceberg table (``pyiceberg``) is scanned with the plan's columns and simple filters (Iceberg
prunes files by them) and streamed in Arrow batches; a source scanned more than once is first
streamed into a DuckDB temporary table. Both readers load only for suites that read such tables.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.plan import reads
from gryph.compiler.plan.data_types import Schema
from gryph.compiler.plan.pruning import columns_read, prune_columns
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.lake_tables import (
    TableLog,
    catalog_properties,
    delta_timestamp,
    iceberg_identifier,
    iceberg_is_path,
    missing_snapshot,
    newest_metadata_file,
)
from gryph.compiler.sources.local_files import local_path
from gryph.compiler.sources.source_specs import SourceSpec

from ..sql.quoting import ident
from .database_filters import Pushed, pushed_conditions
from .duck_types import schema_of_relation
from .source_views import stamp_item


class LakeRead:
    """The Arrow names and views a Delta or Iceberg source made in DuckDB; ``drop`` removes them."""

    def __init__(self) -> None:
        self._names: list[tuple[str, str]] = []

    def made(self, kind: str, name: str) -> None:
        self._names.append((kind, name))

    def drop(self, con: duckdb.DuckDBPyConnection) -> None:
        for kind, name in reversed(self._names):
            if kind == "arrow":
                con.unregister(name)
            else:
                con.execute(f"DROP {kind} IF EXISTS {ident(name)}")


def lake_view(con: duckdb.DuckDBPyConnection, spec: SourceSpec, relations: list) -> LakeRead:
    """The source as a view named after it, reading what ``relations`` (a run's) need of it."""
    read = LakeRead()
    try:
        columns, arrow_name = _FORMATS[spec.kind.kind].register(con, spec, relations, read)
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {ident(spec.name)} AS SELECT {columns}{stamp_item(spec)} FROM {ident(arrow_name)}"
        )
        read.made("view", spec.name)
    except duckdb.Error as exc:
        read.drop(con)
        raise _unreadable(spec, exc) from None
    except BaseException:
        read.drop(con)
        raise
    return read


def lake_schema(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> Schema:
    """The schema of the version the source reads, from the table's metadata alone (no data file)."""
    empty = _FORMATS[spec.kind.kind].schema(spec).empty_table()
    return schema_of_relation(con.from_arrow(empty).select(f"*{stamp_item(spec)}" if spec.stamp is not None else "*"))


def lake_log(spec: SourceSpec) -> TableLog:
    """What the table's log says of the version the source reads: Delta's add actions' record
    counts (a file without them: its Parquet footer's) and commit; Iceberg's snapshot summary."""
    return _FORMATS[spec.kind.kind].log(spec)


def _arrow_name(spec: SourceSpec) -> str:
    return f"__gryph_lake_{spec.name}"


def _register_delta(
    con: duckdb.DuckDBPyConnection, spec: SourceSpec, relations: list, read: LakeRead
) -> tuple[str, str]:
    """The version's Arrow dataset, registered: DuckDB pushes each scan's columns and filters into it."""
    con.register(_arrow_name(spec), _delta_table(spec).to_pyarrow_dataset())
    read.made("arrow", _arrow_name(spec))
    return "*", _arrow_name(spec)


def _register_iceberg(
    con: duckdb.DuckDBPyConnection, spec: SourceSpec, relations: list, read: LakeRead
) -> tuple[str, str]:
    """The snapshot's batches of the columns the run reads, filtered by what Iceberg can prune by."""
    arrow_name = _arrow_name(spec)
    table = _iceberg_table(spec)
    schema = _iceberg_schema(spec, table)
    try:
        wanted = columns_read([prune_columns(rel) for rel in relations]).get(spec.name)
    except TypeError:  # a relation pruning does not know: read every column
        wanted = None
    fetched = [name for name in schema.names if wanted is None or name in wanted]
    scans = sum(reads(rel).count(spec.name) for rel in relations)
    batches = _iceberg_batches(
        spec, table, fetched or schema.names[:1], pushed_conditions(relations, spec.name, doubles=False)
    )
    con.register(arrow_name, batches)
    read.made("arrow", arrow_name)
    if scans > 1:  # a stream of batches is read once: a second scan reads a copy
        con.execute(f"CREATE TEMP TABLE {ident(arrow_name + '_staged')} AS SELECT * FROM {ident(arrow_name)}")
        read.made("table", arrow_name + "_staged")
        arrow_name += "_staged"
    return _columns(schema, set(fetched)), arrow_name


def _delta_schema(spec: SourceSpec) -> pa.Schema:
    return _delta_table(spec).to_pyarrow_dataset().schema


def _iceberg_schema_of(spec: SourceSpec) -> pa.Schema:
    return _iceberg_schema(spec, _iceberg_table(spec))


def _delta_log(spec: SourceSpec) -> TableLog:
    table = _delta_table(spec)
    version = table.version()
    counts = pa.table(table.get_add_actions(flatten=True)).column("num_records")
    rows = pc.sum(counts).as_py() or 0
    if counts.null_count:  # a writer that kept no statistics: the footers of the files have the count
        rows = table.to_pyarrow_dataset().count_rows()
    # the history of the table at its last version: deltalake 1.6 numbers the history of a
    # table loaded at an earlier version one too low
    latest = _reader(spec).DeltaTable(spec.paths[0])
    history = latest.history(latest.version() - version + 1)
    committed = next(entry.get("timestamp") for entry in history if entry["version"] == version)
    return TableLog(version, rows, committed)


def _iceberg_log(spec: SourceSpec) -> TableLog:
    table = _iceberg_table(spec)
    _iceberg_schema(spec, table)  # a snapshot that does not exist is refused as when the table is read
    snapshot = table.snapshot_by_id(spec.option("snapshot")) if spec.option("snapshot") is not None else None
    snapshot = snapshot or table.current_snapshot()
    if snapshot is None:  # a table created and never written: no rows, no commit of data
        return TableLog(None, 0, None)
    total = (snapshot.summary or {}).get("total-records")  # optional in the spec; every writer we know keeps it
    return TableLog(snapshot.snapshot_id, None if total is None else int(total), snapshot.timestamp_ms)


def _columns(schema: pa.Schema, fetched: set[str]) -> str:
    """Every column of the table, in its order: fetched ones as read, the others typed NULLs
    (the run never reads them)."""
    types = duckdb.from_arrow(schema.empty_table()).types
    return ", ".join(
        ident(name) if name in fetched else f"CAST(NULL AS {duck_type}) AS {ident(name)}"
        for name, duck_type in zip(schema.names, types, strict=True)
    )


def _reader(spec: SourceSpec):
    reader = spec.kind.package("duckdb")
    assert reader is not None, f"{spec.format} declares no Python reader"
    module, extra = reader.provides, reader.name
    try:
        return importlib.import_module(module)
    except ImportError:
        raise EngineError(
            "DRIVER_MISSING",
            f"source {spec.name!r} ({spec.describe()}) needs {module}, which is not installed",
            location=spec.location,
            hint=f'pip install "gryph[{extra}]"',
        ) from None


# --- Delta ----------------------------------------------------------------------------------


def _delta_table(spec: SourceSpec):
    """The Delta table at the version (or the last commit at the timestamp) the source asks for."""
    deltalake = _reader(spec)
    path = spec.paths[0]
    try:
        table = deltalake.DeltaTable(path)
    except deltalake.exceptions.TableNotFoundError:
        raise _not_found(spec, f"{path} is not a Delta table (it has no _delta_log)") from None
    except (deltalake.exceptions.DeltaError, OSError) as exc:
        raise _unreadable(spec, exc) from None
    version, moment = spec.option("version"), delta_timestamp(spec)
    if moment is not None:
        version = _version_at(spec, _commit_times(path, table.history()), moment)
    if version is None or version == table.version():
        return table
    if not isinstance(version, int) or version > table.version():
        raise _no_version(spec, f"version {version} does not exist: the table's last version is {table.version()}")
    try:
        table.load_as_version(version)
    except deltalake.exceptions.DeltaError as exc:  # its log was cleaned up to a later checkpoint
        raise _no_version(spec, f"version {version} cannot be read: {_one_line(exc)}") from None
    return table


def _commit_times(path: str, history: list[dict]) -> list[tuple[int, int]]:
    """Each version and the moment (epoch ms) of its commit as Delta on Spark tells it
    (``DeltaHistoryManager``): the in-commit timestamp where the table keeps one, else the
    modification time of the version's log file, a moment no later than the commit before made a
    millisecond after it. The commit's own record (``commitInfo.timestamp``, taken before the file
    was written, so earlier) would place a moment between the two in another version than Spark
    does; it stands only for a log that is not a local file."""
    log = Path(local_path(path)) / "_delta_log"
    times: list[tuple[int, int]] = []
    for entry in sorted(history, key=lambda entry: entry["version"]):
        version, at = entry["version"], entry.get("inCommitTimestamp")
        if at is None:
            try:
                at = (log / f"{version:020d}.json").stat().st_mtime_ns // 1_000_000
            except OSError:
                at = entry["timestamp"]
            if times and at <= times[-1][1]:
                at = times[-1][1] + 1
        times.append((version, at))
    return times


def _version_at(spec: SourceSpec, commits: list[tuple[int, int]], moment: datetime) -> int:
    """The version current at ``moment`` (``commits``: each version's commit, in order); as Delta
    on Spark, a moment before the first commit or after the last is an error rather than the
    nearest version."""
    millis = moment.timestamp() * 1000
    first, last = commits[0], commits[-1]
    if millis < first[1] or millis > last[1]:
        raise _no_version(
            spec,
            f"the table has no version at {moment.isoformat()}: its commits run from "
            f"{_utc(first[1])} (version {first[0]}) to {_utc(last[1])} (version {last[0]})",
        )
    return max(version for version, at in commits if at <= millis)


def _utc(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, timezone.utc).isoformat(sep=" ", timespec="milliseconds")


# --- Iceberg --------------------------------------------------------------------------------


def _iceberg_table(spec: SourceSpec):
    """The Iceberg table: from its folder's newest metadata file, or loaded through its catalog."""
    _reader(spec)
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError, NotInstalledError

    try:
        if iceberg_is_path(spec):
            from pyiceberg.table import StaticTable

            return StaticTable.from_metadata(_metadata_file(spec))
        from pyiceberg.catalog import load_catalog

        name, *table = iceberg_identifier(spec)
        try:
            catalog = load_catalog(name, **catalog_properties(spec))
        except NotInstalledError as exc:  # the catalog's own driver (SQLAlchemy for a SQL catalog)
            raise EngineError(
                "DRIVER_MISSING",
                f"source {spec.name!r} ({spec.describe()}): {_one_line(exc)}",
                location=spec.location,
                hint='pip install "gryph[iceberg]"',
            ) from None
        except Exception as exc:  # each catalog kind raises its own errors (and ValueError for settings)
            raise EngineError(
                "CATALOG_UNREADABLE",
                f"source {spec.name!r} ({spec.describe()}): the Iceberg catalog {name!r} cannot be opened: "
                f"{_one_line(exc)}",
                location=spec.location,
                text=spec.as_written(),
                hint="give its properties as catalog.uri = ..., catalog.warehouse = ... (or in ~/.pyiceberg.yaml)",
            ) from None
        return catalog.load_table(tuple(table))
    except (NoSuchTableError, NoSuchNamespaceError) as exc:
        raise _not_found(spec, f"no Iceberg table {spec.paths[0]!r}: {_one_line(exc)}") from None


def _metadata_file(spec: SourceSpec) -> str:
    """The metadata file a table folder's readers start from: its version hint's, else the newest."""
    path = Path(local_path(spec.paths[0]))
    if path.suffix == ".json":
        if not path.is_file():
            raise _not_found(spec, f"{path} is not an Iceberg metadata file")
        return str(path)
    folder = path / "metadata"
    hint = folder / "version-hint.text"
    names = [f.name for f in folder.glob("*.metadata.json")]
    newest = newest_metadata_file(names, hint.read_text() if hint.is_file() else None)
    if newest is None:
        raise _not_found(spec, f"{path} is not an Iceberg table (no metadata/*.metadata.json)")
    return str(folder / newest)


def _iceberg_schema(spec: SourceSpec, table) -> pa.Schema:
    """The columns of the snapshot the source reads (a table's schema may have changed since)."""
    snapshot = spec.option("snapshot")
    if snapshot is None:
        return table.schema().as_arrow()
    found = table.snapshot_by_id(snapshot)
    if found is None:
        raise missing_snapshot(spec, (s.snapshot_id for s in table.snapshots()))
    schemas = {s.schema_id: s for s in table.schemas().values()} if found.schema_id is not None else {}
    return schemas.get(found.schema_id, table.schema()).as_arrow()


def _iceberg_batches(spec: SourceSpec, table, columns: list[str], pushed) -> pa.RecordBatchReader:
    """The snapshot's rows of ``columns`` that may meet ``pushed``, streamed batch by batch."""
    snapshot = spec.option("snapshot")
    scan = table.scan(row_filter=_iceberg_filter(pushed), selected_fields=tuple(columns), snapshot_id=snapshot)
    return scan.to_arrow_batch_reader()


def _iceberg_filter(pushed: tuple[tuple[Pushed, ...], ...] | None):
    from pyiceberg import expressions as E

    if pushed is None:
        return E.AlwaysTrue()
    kinds = {
        "=": E.EqualTo,
        "<>": E.NotEqualTo,
        "<": E.LessThan,
        "<=": E.LessThanOrEqual,
        ">": E.GreaterThan,
        ">=": E.GreaterThanOrEqual,
    }

    def one(part: Pushed):
        if part.op == "IS NULL":
            return E.IsNull(term=E.Reference(part.column))
        if part.op == "IS NOT NULL":
            return E.NotNull(term=E.Reference(part.column))
        return kinds[part.op](part.column, part.value)

    alternatives = [E.And(*map(one, parts)) if len(parts) > 1 else one(parts[0]) for parts in pushed]
    return E.Or(*alternatives) if len(alternatives) > 1 else alternatives[0]


# --- errors ---------------------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _not_found(spec: SourceSpec, problem: str) -> InvalidInput:
    return InvalidInput(
        "LAKE_TABLE_NOT_FOUND",
        f"source {spec.name!r} ({spec.describe()}): {problem}",
        location=spec.location,
        text=spec.as_written(),
        hint="check the table's path or name",
    )


def _no_version(spec: SourceSpec, problem: str) -> InvalidInput:
    return InvalidInput(
        "LAKE_VERSION_NOT_FOUND",
        f"source {spec.name!r} ({spec.describe()}): {problem}",
        location=spec.location,
        text=spec.as_written(),
    )


def _unreadable(spec: SourceSpec, exc: BaseException) -> EngineError:
    return EngineError(
        "SOURCE_UNREADABLE",
        f"source {spec.name!r} ({spec.describe()}) cannot be read: {_one_line(exc)}",
        location=spec.location,
        text=spec.as_written(),
    )


@dataclass(frozen=True)
class _LakeFormat:
    """How DuckDB reads one lake format: a run's view of it, its schema, its log."""

    register: Callable[[duckdb.DuckDBPyConnection, SourceSpec, list, LakeRead], tuple[str, str]]
    schema: Callable[[SourceSpec], pa.Schema]
    log: Callable[[SourceSpec], TableLog]


_FORMATS = {
    SourceKind.DELTA: _LakeFormat(_register_delta, _delta_schema, _delta_log),
    SourceKind.ICEBERG: _LakeFormat(_register_iceberg, _iceberg_schema_of, _iceberg_log),
}
