"""PostgreSQL, MySQL and SQLite sources on Spark: a JDBC read that runs on the cluster.

The server needs the JDBC driver on its classpath (``spark.jars``: a local server gets them from
Maven Central with the connectors, see local_server.py; a server without one is DRIVER_MISSING,
naming the Maven coordinates to start it with). Spark itself prunes columns and pushes filters into the
JDBC query. With ``partition_column`` and ``num_partitions`` the table is read in that many
ranges of a numeric column, bounded by its min and max (asked of the database first).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import types as T
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.errors import EngineError, GryphError
from gryph.compiler.sources.databases import (
    from_clause,
    quote_name,
    refused_by_database,
    resolve,
    sqlite_columns_sql,
    sqlite_type,
    statement_timed_out,
)
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.spark_dialect.spark_names import quoted

from ..compile.scalars import column
from ..compile.type_mapping import to_spark
from ..session.failures import spark_errors


# Spark's names of the errors a database sends back when it refuses the table or query's text
def read_database(spark: SparkSession, spec: SourceSpec) -> DataFrame:
    """The source's rows through JDBC; analysing it (``df.schema``) reads the database's schema."""
    database = resolve(spec)
    try:
        with spark_errors(f"reading source {spec.name!r}", source=f"{spec.name!r} ({spec.describe()})"):

            def reader():  # a new one each time: a reader keeps every option it was given
                # read-only sessions and timeouts: the same guards as on DuckDB (databases.py)
                options = {"url": database.jdbc_url(), "driver": database.jdbc_driver(), **database.jdbc_properties()}
                if database.user is not None:
                    options["user"] = database.user
                if database.password is not None:
                    options["password"] = database.password
                if database.networked:
                    # timestamp without time zone (MySQL's DATETIME) read as written
                    options["preferTimestampNTZ"] = "true"
                return spark.read.format("jdbc").options(**options)

            rows = reader()
            # a query goes in as dbtable, wrapped by from_clause: Spark trims its `query` option, so a
            # trailing `-- comment` would swallow the parenthesis Spark closes it with
            if not database.networked and spec.option("table") is not None:  # SQLite's declared types
                df = _read_sqlite_table(_partitioned(rows, reader(), spec), _sqlite_types(reader(), spec), spec)
            else:
                df = _partitioned(rows, reader(), spec).option("dbtable", from_clause(spec)).load()
            _ = df.schema  # analysed now: a missing table or a refused login fails here, named
            return df
    except GryphError as error:
        raise _as_source_error(error, spec) from None


def _sqlite_types(reader, spec: SourceSpec) -> dict[str, T.DataType]:
    """The table's columns in the types their declarations give (as on DuckDB): Spark's own
    mapping would read REAL as a float and an expression's column as a decimal."""
    sql, parameters = sqlite_columns_sql(spec)
    for value in parameters:  # pragma_table_info takes its arguments as SQL literals here
        sql = sql.replace("?", "'" + value.replace("'", "''") + "'", 1)
    rows = reader.options(query=sql, customSchema="name STRING, type STRING").load().collect()
    return {row["name"]: to_spark(sqlite_type(row["type"] or "")) for row in rows}


def _read_sqlite_table(rows, types: dict[str, T.DataType], spec: SourceSpec) -> DataFrame:
    """Dates and timestamps are text in SQLite: read as text, then cast by Spark (the JDBC driver
    parses one fixed pattern only), as DuckDB casts them."""
    temporal = (T.DateType, T.TimestampType)
    read_as = ", ".join(
        f"{quoted(name)} {'string' if isinstance(t, temporal) else t.simpleString()}" for name, t in types.items()
    )
    df = rows.option("customSchema", read_as).option("dbtable", from_clause(spec)).load()
    return df.select(
        *(column(name).cast(t).alias(name) if isinstance(t, temporal) else column(name) for name, t in types.items())
    )


def _partitioned(rows, bounds_reader, spec: SourceSpec):
    """``rows`` reading ranges of the partition column, bounded by its min and max."""
    column = spec.option("partition_column")
    if column is None:
        return rows
    quoted = quote_name(spec.format, str(column))
    bounds = (
        bounds_reader.option(
            "dbtable", f"(SELECT min({quoted}) AS lo, max({quoted}) AS hi FROM {from_clause(spec)}) AS gryph_bounds"
        )
        .load()
        .collect()[0]
    )
    if bounds["lo"] is None:  # an empty table: one partition reads it
        return rows
    return rows.options(
        partitionColumn=str(column),
        lowerBound=str(bounds["lo"]),
        upperBound=str(bounds["hi"]),
        numPartitions=str(spec.option("num_partitions")),
    )


# each driver as Maven coordinates for a server's --packages: connectors/pom.xml's versions
# (tests/spark/test_jdbc_drivers.py holds the two equal)
DRIVER_PACKAGES = {
    "org.postgresql.Driver": "org.postgresql:postgresql:42.7.4",
    "org.mariadb.jdbc.Driver": "org.mariadb.jdbc:mariadb-java-client:2.7.12",
    "org.sqlite.JDBC": "org.xerial:sqlite-jdbc:3.46.1.3",
}


def _driver_missing(error: GryphError, spec: SourceSpec) -> EngineError | None:
    """A server without the source's JDBC driver: said so, with the package that brings it."""
    driver = resolve(spec).jdbc_driver()
    if "ClassNotFoundException" not in error.message or driver not in error.message:
        return None
    return EngineError(
        "DRIVER_MISSING",
        f"source {spec.name!r}: the Spark server has no JDBC driver {driver}",
        location=spec.location,
        text=spec.as_written(),
        hint=f"start the server with --packages {DRIVER_PACKAGES[driver]} (or its jar in spark.jars)",
    )


def _as_source_error(error: GryphError, spec: SourceSpec) -> GryphError:
    """The error named after the source (gryph's errors never show a password); a table or query
    the database refuses is the suite's mistake, a driver the server lacks the server's."""
    return (
        _driver_missing(error, spec)
        or statement_timed_out([spec], error.message)
        or refused_by_database(spec, error.message)
        or EngineError(error.code, error.message, location=spec.location, text=spec.as_written(), hint=error.hint)
    )
