"""Quarantine and valid outputs Spark commits into lake tables itself, no row coming to the client.

A Delta table's folder: its ``data_time`` partition replaced with ``replaceWhere``. An Iceberg
table of a catalog, opened from the same properties PyIceberg reads it with (a SQL catalog's
SQLite or PostgreSQL database as Iceberg's JDBC catalog): its data time's rows replaced by
DataFrameWriterV2's ``overwrite`` with a filter on ``data_time``; a new table is created
partitioned by it, as the DuckDB run's PyIceberg writer creates it. Either is one commit of its
table: a run killed before it leaves the old rows, one killed after it the new.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import Export
from gryph.compiler.plan.printer import table_label
from gryph.compiler.spark_dialect.spark_names import quoted
from gryph.compiler.support.crash_points import QUARANTINE_CRASH_AT, crash_if_chosen

from ..session.connect import grpc_status
from ..session.failures import first_line
from .lake_sources import open_catalog


def lake_commit(spark: SparkSession, frame: DataFrame, export: Export) -> Callable[[], None]:
    """The one action that commits ``frame``'s rows into the export's table (``export.replace``
    set), its data time's rows replaced; the catalog is opened now, the rows written when called."""
    assert export.replace is not None  # an export with a data time to replace
    column, value = export.replace
    rows = frame.withColumn(column, F.lit(value))
    if export.catalog is None:  # a Delta table's folder
        writer = rows.write.format("delta").mode("overwrite").partitionBy(column)
        writer = writer.option("replaceWhere", f"{quoted(column)} = {_sql_text(value)}")
        return _committing(f"output {export.name!r} ({export.path})", lambda: writer.save(export.path))
    assert export.table is not None  # an Iceberg output names its catalog's table
    described = f"output {export.name!r} (table {table_label(export.table)})"
    open_catalog(spark, export.table[0], dict(export.catalog), described)
    name = ".".join(quoted(part) for part in export.table)
    if spark.catalog.tableExists(name):
        return _committing(described, lambda: rows.writeTo(name).overwrite(F.col(column) == F.lit(value)))
    # Iceberg's JDBC catalog makes a table only in a namespace it has
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {'.'.join(quoted(part) for part in export.table[:-1])}")
    return _committing(described, lambda: rows.writeTo(name).partitionedBy(F.col(column)).create())


def _committing(described: str, commit: Callable[[], None]) -> Callable[[], None]:
    """``commit``, after the crash tests' point before it; a commit the table refuses (another
    shape, a lost race) is ``QUARANTINE_NOT_WRITTEN``, as the client's own commits say it."""

    def run() -> None:
        crash_if_chosen(QUARANTINE_CRASH_AT, "engine_commit")
        try:
            commit()
        except PySparkException as error:
            if grpc_status(error) == "UNAVAILABLE":
                raise  # the server is gone: spark_errors says so
            raise EngineError(
                "QUARANTINE_NOT_WRITTEN",
                f"{described} was not written: {first_line(error)}",
                hint="an output table must hold the columns the run writes, data_time included "
                "(a new name makes one); the table keeps its rows",
            ) from None

    return run


def _sql_text(value: str) -> str:
    """A Spark SQL string literal (its escapes are backslashes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
