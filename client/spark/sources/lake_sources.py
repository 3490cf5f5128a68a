"""Delta Lake and Iceberg sources on Spark: read on the cluster by the tables' own Spark packages.

Delta: ``format("delta")`` with ``versionAsOf`` / ``timestampAsOf``. Iceberg: ``format("iceberg")``
of the newest metadata file of a table's folder, or a catalog's table (the catalog set up in the
session from the source's ``catalog.*`` options, else the server's own), ``versionAsOf`` a
snapshot. Either needs its package on the server, and Delta its session settings: the local
server (``--remote local``) loads both; a server without the package is a located error naming
the package and the settings to add.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.readwriter import DataFrameReader
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.lake_tables import (
    TableLog,
    catalog_properties,
    delta_timestamp,
    iceberg_identifier,
    iceberg_is_path,
    missing_snapshot,
    newest_metadata_file,
    spark_timestamp,
)
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.spark_dialect.spark_names import quoted

from ..session.connector_jars import DELTA_FOR_SPARK, ICEBERG_FOR_SPARK
from ..session.failures import first_line, spark_errors
from ..session.local_server import DELTA_SETTINGS

_ICEBERG_SETTINGS = (
    "spark.sql.catalog.<catalog>=org.apache.iceberg.spark.SparkCatalog and its type, uri and warehouse "
    "(gryph sets them in the session from the source's catalog.* options)",
)
# Spark's conditions for a format it has no reader for, or a catalog it was not given
_NOT_ENABLED = {
    "DATA_SOURCE_NOT_FOUND",
    "REQUIRES_SINGLE_PART_NAMESPACE",
    "CATALOG_NOT_FOUND",
    "CATALOG_PLUGIN_CLASS_NOT_FOUND",
    "DELTA_CONFIGURE_SPARK_SESSION_WITH_EXTENSION_AND_CATALOG",
}
# Delta's conditions for a path that holds no Delta table (and Spark's for a catalog's missing
# table), and for a version it does not have
_NOT_A_TABLE = (
    "DELTA_MISSING_DELTA_TABLE",
    "DELTA_PATH_DOES_NOT_EXIST",
    "DELTA_TABLE_NOT_FOUND",
    "PATH_NOT_FOUND",
    "TABLE_OR_VIEW_NOT_FOUND",
)
_NO_VERSION = ("DELTA_VERSION", "DELTA_TIMESTAMP", "DELTA_CANNOT_TIME_TRAVEL", "DELTA_FILE_NOT_FOUND")
_NO_SNAPSHOT = "cannot find snapshot with id"  # Iceberg's text (no condition) for a snapshot it lacks
# Spark's text (a legacy condition) for a catalog whose class the server lacks: Iceberg's runtime
_NO_CATALOG_CLASS = "cannot find catalog plugin class"
# pyiceberg's SQL catalog URIs (SQLAlchemy's) as Iceberg's JDBC catalog takes them
_SQLITE_URI = re.compile(r"sqlite:///?(?P<path>/.*)")
_POSTGRES_URI = re.compile(
    r"postgresql(?:\+\w+)?://(?:(?P<user>[^:@/]*)(?::(?P<password>[^@/]*))?@)?(?P<where>[^/]+)/(?P<db>[^?]+)"
)


def read_lake_table(spark: SparkSession, spec: SourceSpec) -> DataFrame:
    """The source's table at the version it asks for; the schema asked now, so a missing table,
    version or package fails here, at the source's line."""
    df: DataFrame
    with spark_errors(f"reading source {spec.name!r}"):
        try:
            df = _FORMATS[spec.kind.kind].read(spark, spec)
            df.schema  # noqa: B018 - the request that finds the table (or fails)
        except PySparkException as exc:
            known = _lake_error(spec, exc, spark)
            if known is None:
                raise  # spark_errors says what failed
            raise known from None
    return df


def _delta_reader(spark: SparkSession, spec: SourceSpec) -> DataFrameReader:
    reader = spark.read.format("delta")
    moment = delta_timestamp(spec)
    if spec.option("version") is not None:
        reader = reader.option("versionAsOf", str(spec.option("version")))
    elif moment is not None:
        reader = reader.option("timestampAsOf", spark_timestamp(moment))
    return reader


def _iceberg_read(spark: SparkSession, spec: SourceSpec, metadata_table: str) -> DataFrame:
    """The Iceberg table at the snapshot the source asks for, or one of its metadata tables
    (``snapshots``, ``refs``: then the table's current metadata)."""
    reader = spark.read.format("iceberg")
    if spec.option("snapshot") is not None and not metadata_table:
        reader = reader.option("versionAsOf", str(spec.option("snapshot")))
    if iceberg_is_path(spec):
        where = _metadata_file(spark, spec)
        return reader.load(f"{where}#{metadata_table}" if metadata_table else where)
    _configure_catalog(spark, spec)
    parts = [*iceberg_identifier(spec), *([metadata_table] if metadata_table else [])]
    return reader.table(".".join(quoted(part) for part in parts))


def _metadata_file(spark: SparkSession, spec: SourceSpec) -> str:
    """The metadata file a table's folder is read from (as DuckDB's reader picks it), listed on
    the server; a metadata file given as such is read as it is."""
    path = spec.paths[0].rstrip("/")
    if path.endswith(".json"):
        return path
    listed = spark.read.format("binaryFile").load(f"{path}/metadata").select("path")  # file names, no content
    files = {cast(str, row[0]).rsplit("/", 1)[-1]: cast(str, row[0]) for row in listed.collect()}
    hint = None
    if "version-hint.text" in files:
        first = spark.read.text(files["version-hint.text"]).first()
        hint = None if first is None else cast(str, first[0])
    newest = newest_metadata_file(files, hint)
    if newest is None:
        raise _not_a_table(spec, f"{spec.paths[0]} is not an Iceberg table (no metadata/*.metadata.json)")
    return files.get(newest, f"{path}/metadata/{newest}")


def _configure_catalog(spark: SparkSession, spec: SourceSpec) -> None:
    """The source's ``catalog.*`` options as the Iceberg catalog of this session (none given: the
    server's own catalog of that name)."""
    properties = catalog_properties(spec)
    if properties:
        described = f"source {spec.name!r} ({spec.describe()})"
        open_catalog(spark, iceberg_identifier(spec)[0], properties, described, spec)


def open_catalog(
    spark: SparkSession, name: str, properties: dict[str, str], described: str, spec: SourceSpec | None = None
) -> None:
    """An Iceberg catalog of PyIceberg's ``properties`` as the session's catalog ``name``, for the
    source or output ``described`` (``spec``: where it is declared). A session opens a catalog
    once: other properties for a catalog it already has are refused."""
    prefix = f"spark.sql.catalog.{name}"
    settings = {prefix: "org.apache.iceberg.spark.SparkCatalog"}
    settings.update({f"{prefix}.{key}": value for key, value in _spark_catalog_properties(properties).items()})
    if f"{prefix}.warehouse" not in settings:  # Java's JDBC catalog will not open without one (reads never use it)
        settings[f"{prefix}.warehouse"] = cast(str, spark.conf.get("spark.sql.warehouse.dir"))
    current = spark.conf.get(f"{prefix}.uri", None)
    if current is not None and current != settings.get(f"{prefix}.uri"):
        raise EngineError(
            "CATALOG_UNREADABLE",
            f"{described}: this Spark session already has the Iceberg catalog {name!r} at {current}; "
            "a session opens a catalog once",
            location=None if spec is None else spec.location,
            text=None if spec is None else spec.as_written(),
            hint="read and write tables of different catalogs under different catalog names, or in separate runs",
        )
    for key, value in settings.items():
        spark.conf.set(key, value)


def _spark_catalog_properties(properties: dict[str, str]) -> dict[str, str]:
    """PyIceberg's catalog properties as Iceberg's Spark catalog takes them: a SQL catalog's
    SQLAlchemy URI as a JDBC catalog's (``sqlite:////x.db`` -> ``jdbc:sqlite:/x.db``), an HTTP one
    as a REST catalog's; the others as they are."""
    out = dict(properties)
    uri = properties.get("uri", "")
    sqlite, postgres = _SQLITE_URI.fullmatch(uri), _POSTGRES_URI.fullmatch(uri)
    if sqlite is not None:
        out.update(type="jdbc", uri=f"jdbc:sqlite:{sqlite['path']}")
    elif postgres is not None:
        out.update(type="jdbc", uri=f"jdbc:postgresql://{postgres['where']}/{postgres['db']}")
        if postgres["user"]:  # a URL's user and password are percent-encoded, a JDBC property's not
            out["jdbc.user"] = unquote(postgres["user"])
        if postgres["password"]:
            out["jdbc.password"] = unquote(postgres["password"])
    elif uri.startswith(("http://", "https://")):
        out.setdefault("type", "rest")
    if out.get("type") == "sql":
        out["type"] = "jdbc"
    return out


def delta_log(spark: SparkSession, spec: SourceSpec) -> TableLog:
    """What a Delta table's log says of the version the source reads, as DuckDB's reader says it:
    the version Spark reads (its history's), the rows (Delta answers a bare count from its add
    actions' statistics, no data file read) and the commit's own time (its commitInfo; the
    history's timestamp is the log file's modification time)."""
    path = spec.paths[0]
    with spark_errors(f"reading the log of source {spec.name!r}"):
        rows = read_lake_table(spark, spec).count()
        version = cast("int | None", spec.option("version"))  # an int: checked when the suite was read
        if version is None:
            history = spark.sql(f"DESCRIBE HISTORY delta.{quoted(path)}")
            moment = delta_timestamp(spec)
            if moment is not None:  # Spark's version at the moment: the last committed by then
                history = history.where(F.col("timestamp") <= F.lit(spark_timestamp(moment)).cast("timestamp"))
            latest = history.agg(F.max("version")).first()
            assert latest is not None  # an aggregate of no groups has one row
            version = cast(int, latest[0])
        commit = spark.read.json(f"{path.rstrip('/')}/_delta_log/{version:020d}.json")
        committed = commit.where(F.col("commitInfo").isNotNull()).select("commitInfo.timestamp").first()
    return TableLog(version, rows, None if committed is None else cast(int, committed[0]))


def iceberg_log(spark: SparkSession, spec: SourceSpec) -> TableLog:
    """What an Iceberg table's metadata says of the snapshot the source reads, as DuckDB's reader
    says it: the snapshot (the ``main`` branch's, unless asked for), its summary's
    ``total-records`` and its commit time."""
    read_lake_table(spark, spec)  # a table or snapshot that does not exist fails as when read
    with spark_errors(f"reading the snapshots of source {spec.name!r}"):
        snapshot = cast("int | None", spec.option("snapshot"))
        if snapshot is None:
            refs = _iceberg_read(spark, spec, "refs").where((F.col("name") == "main") & (F.col("type") == "BRANCH"))
            main = refs.select("snapshot_id").first()
            if main is None:  # a table created and never written: no rows, no commit of data
                return TableLog(None, 0, None)
            snapshot = cast(int, main[0])
        snapshots = _iceberg_read(spark, spec, "snapshots").where(F.col("snapshot_id") == F.lit(snapshot))
        found = snapshots.select(F.col("summary")["total-records"], F.unix_millis("committed_at")).first()
    assert found is not None  # the table was read at this snapshot
    total = cast("str | None", found[0])  # optional in the spec; every writer we know keeps it
    return TableLog(snapshot, None if total is None else int(total), cast(int, found[1]))


def _lake_error(spec: SourceSpec, exc: PySparkException, spark: SparkSession) -> EngineError | InvalidInput | None:
    condition = (exc.getCondition() or "").split(".")[0]
    text = first_line(exc)
    described = f"source {spec.name!r} ({spec.describe()})"
    lowered = text.lower()
    if condition in _NOT_ENABLED or f"data source: {spec.format}" in lowered or _NO_CATALOG_CLASS in lowered:
        return not_enabled(spec, spark.version)
    if condition.startswith(_NOT_A_TABLE) or "is not a delta table" in lowered:
        return _not_a_table(spec, f"{spec.paths[0]} is not {_FORMATS[spec.kind.kind].a_table}: {text}")
    missing_version = _FORMATS[spec.kind.kind].missing_version
    known = missing_version(spark, spec, lowered) if missing_version is not None else None
    if known is not None:
        return known
    if condition.startswith(_NO_VERSION) or _NO_SNAPSHOT in lowered:
        return InvalidInput(
            "LAKE_VERSION_NOT_FOUND", f"{described}: {text}", location=spec.location, text=spec.as_written()
        )
    return None


def _not_a_table(spec: SourceSpec, problem: str) -> InvalidInput:
    return InvalidInput(
        "LAKE_TABLE_NOT_FOUND",
        f"source {spec.name!r} ({spec.describe()}): {problem}",
        location=spec.location,
        text=spec.as_written(),
        hint="check the table's path or name (paths are resolved on the Spark server)",
    )


def not_enabled(spec: SourceSpec, server_version: str) -> EngineError:
    """The server has no package for the source's format (or not its settings)."""
    minor = ".".join(server_version.split(".")[:2])
    package, settings, extra = _FORMATS[spec.kind.kind].package(minor)
    return EngineError(
        "LAKE_NOT_ENABLED",
        f"source {spec.name!r} ({spec.describe()}): this Spark server (Spark {server_version}) cannot read "
        f"{spec.format.title()} tables{extra}",
        location=spec.location,
        text=spec.as_written(),
        hint=f"start the server with --packages {package} and --conf " + " --conf ".join(settings),
    )


def _delta_package(minor: str) -> tuple[str, tuple[str, ...], str]:
    """Delta's package for a Spark release, the settings it needs, and what else to say."""
    release = DELTA_FOR_SPARK.get(minor, f"<Delta's release for Spark {minor}>")
    return f"io.delta:delta-spark_{minor}_2.13:{release}", tuple(f"{k}={v}" for k, v in DELTA_SETTINGS.items()), ""


def _iceberg_package(minor: str) -> tuple[str, tuple[str, ...], str]:
    """Iceberg's runtime for a Spark release, the settings it needs, and what else to say."""
    release = ICEBERG_FOR_SPARK.get(minor, f"<Iceberg's release for Spark {minor}>")
    extra = (
        ""
        if minor in ICEBERG_FOR_SPARK
        else f" (Iceberg publishes no Spark runtime for Spark {minor} that gryph knows: read the table on "
        "DuckDB, --engine duckdb, or on a Spark 4.1 server)"
    )
    return f"org.apache.iceberg:iceberg-spark-runtime-{minor}_2.13:{release}", _ICEBERG_SETTINGS, extra


def _no_iceberg_snapshot(spark: SparkSession, spec: SourceSpec, lowered: str) -> InvalidInput | None:
    """A snapshot the table lacks, named with the snapshots it has, as DuckDB names them."""
    if _NO_SNAPSHOT not in lowered:
        return None
    try:
        snapshots = _iceberg_read(spark, spec, "snapshots").orderBy("committed_at").select("snapshot_id")
        return missing_snapshot(spec, (row[0] for row in snapshots.collect()))
    except PySparkException:
        return None  # then Iceberg's own words


@dataclass(frozen=True)
class _LakeFormat:
    """How Spark reads one lake format: the table, its log, the package it needs, a version it lacks."""

    read: Callable[[SparkSession, SourceSpec], DataFrame]
    log: Callable[[SparkSession, SourceSpec], TableLog]
    package: Callable[[str], tuple[str, tuple[str, ...], str]]
    a_table: str
    # a version the table lacks, told with what it has (else its reader's own words: _NO_VERSION)
    missing_version: Callable[[SparkSession, SourceSpec, str], InvalidInput | None] | None = None


_FORMATS = {
    SourceKind.DELTA: _LakeFormat(
        lambda spark, spec: _delta_reader(spark, spec).load(spec.paths[0]),
        delta_log,
        _delta_package,
        "a Delta table",
    ),
    SourceKind.ICEBERG: _LakeFormat(
        lambda spark, spec: _iceberg_read(spark, spec, ""),
        iceberg_log,
        _iceberg_package,
        "an Iceberg table",
        _no_iceberg_snapshot,
    ),
}


def lake_log(spark: SparkSession, spec: SourceSpec) -> TableLog:
    """A Delta source's log, or an Iceberg source's snapshot, as its package on the server reads it."""
    return _FORMATS[spec.kind.kind].log(spark, spec)
