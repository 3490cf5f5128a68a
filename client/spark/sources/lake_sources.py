"""Delta Lake and Iceberg sources on Spark: read on the cluster by the tables' own Spark packages.

Delta: ``format("delta")`` with ``versionAsOf`` / ``timestampAsOf``. Iceberg: ``format("iceberg")``
for a table's folder, or the table of a catalog the server configures (``snapshot-id``). Either
needs its package on the server and, for Delta's SQL and Iceberg's catalogs, session settings:
the local server (``--remote local``) loads Delta with them; a server without the package, or
an Iceberg table on a Spark no Iceberg runtime is built for, is a located error naming the
package and the settings to add.
"""

from __future__ import annotations

from typing import cast

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.plan.spark_names import quoted
from gryph.compiler.sources.lake_tables import TableLog, delta_timestamp, iceberg_is_path, spark_timestamp
from gryph.compiler.sources.source_specs import SourceSpec

from ..session.connector_jars import DELTA_FOR_SPARK
from ..session.failures import first_line, spark_errors
from ..session.local_server import DELTA_SETTINGS

_ICEBERG_SETTINGS = (
    "spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
    "spark.sql.catalog.<catalog>=org.apache.iceberg.spark.SparkCatalog (and its type, uri, warehouse)",
)
# Spark's conditions for a format it has no reader for, or a catalog it was not given
_NOT_ENABLED = {
    "DATA_SOURCE_NOT_FOUND",
    "REQUIRES_SINGLE_PART_NAMESPACE",
    "CATALOG_NOT_FOUND",
    "DELTA_CONFIGURE_SPARK_SESSION_WITH_EXTENSION_AND_CATALOG",
}
# Delta's conditions for a path that holds no Delta table, and for a version it does not have
_NOT_A_TABLE = ("DELTA_MISSING_DELTA_TABLE", "DELTA_PATH_DOES_NOT_EXIST", "DELTA_TABLE_NOT_FOUND", "PATH_NOT_FOUND")
_NO_VERSION = ("DELTA_VERSION", "DELTA_TIMESTAMP", "DELTA_CANNOT_TIME_TRAVEL", "DELTA_FILE_NOT_FOUND")


def read_lake_table(spark: SparkSession, spec: SourceSpec) -> DataFrame:
    """The source's table at the version it asks for; the schema asked now, so a missing table,
    version or package fails here, at the source's line."""
    reader = spark.read.format(spec.format)
    if spec.format == "delta":
        moment = delta_timestamp(spec)
        if spec.option("version") is not None:
            reader = reader.option("versionAsOf", str(spec.option("version")))
        elif moment is not None:
            reader = reader.option("timestampAsOf", spark_timestamp(moment))
    elif spec.option("snapshot") is not None:
        reader = reader.option("snapshot-id", str(spec.option("snapshot")))
    with spark_errors(f"reading source {spec.name!r}"):
        try:
            if spec.format == "iceberg" and not iceberg_is_path(spec):
                df = reader.table(spec.paths[0])
            else:
                df = reader.load(spec.paths[0])
            df.schema  # noqa: B018 - the request that finds the table (or fails)
        except PySparkException as exc:
            known = _lake_error(spec, exc, spark)
            if known is None:
                raise  # spark_errors says what failed
            raise known from None
    return df


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


def _lake_error(spec: SourceSpec, exc: PySparkException, spark: SparkSession) -> EngineError | InvalidInput | None:
    condition = (exc.getCondition() or "").split(".")[0]
    text = first_line(exc)
    described = f"source {spec.name!r} ({spec.describe()})"
    if condition in _NOT_ENABLED or f"data source: {spec.format}" in text.lower():
        return not_enabled(spec, spark.version)
    if condition.startswith(_NOT_A_TABLE) or "is not a delta table" in text.lower():
        return InvalidInput(
            "LAKE_TABLE_NOT_FOUND",
            f"{described}: {spec.paths[0]} is not a {spec.format.title()} table: {text}",
            location=spec.location,
            text=spec.paths[0],
            hint="check the table's path or name (paths are resolved on the Spark server)",
        )
    if condition.startswith(_NO_VERSION):
        return InvalidInput(
            "LAKE_VERSION_NOT_FOUND", f"{described}: {text}", location=spec.location, text=spec.describe()
        )
    return None


def not_enabled(spec: SourceSpec, server_version: str) -> EngineError:
    """The server has no package for the source's format (or not its settings)."""
    minor = ".".join(server_version.split(".")[:2])
    if spec.format == "delta":
        release = DELTA_FOR_SPARK.get(minor, f"<Delta's release for Spark {minor}>")
        package, extra = f"io.delta:delta-spark_{minor}_2.13:{release}", ""
        settings = tuple(f"{key}={value}" for key, value in DELTA_SETTINGS.items())
    else:
        package, settings = f"org.apache.iceberg:iceberg-spark-runtime-{minor}_2.13", _ICEBERG_SETTINGS
        extra = (
            f" (Iceberg publishes no runtime for Spark {minor} yet: its newest, 1.12.0, is for Spark 4.1; "
            "read the table on DuckDB: --engine duckdb)"
            if minor == "4.2"
            else ""
        )
    return EngineError(
        "LAKE_NOT_ENABLED",
        f"source {spec.name!r} ({spec.describe()}): this Spark server (Spark {server_version}) cannot read "
        f"{spec.format.title()} tables{extra}",
        location=spec.location,
        text=spec.describe(),
        hint=f"start the server with --packages {package} and --conf " + " --conf ".join(settings),
    )
