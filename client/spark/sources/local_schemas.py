"""Schemas known without asking the server: a file source's declared schema, or the footer of a
parquet file on this machine.

Asking the server costs a request per source, and for an undeclared parquet file a Spark job
that reads its footer (0.3-0.5 s on a warm local server, more than the rest of a small run's
requests together). A source whose files are all here is read with a schema known here, which
the server then takes as given. As for small runs (small_runs.py), a path found here is taken
to be the file the server reads.
"""

from __future__ import annotations

import json

from pyspark.sql import types as T

from gryph.compiler.sources.local_files import local_files
from gryph.compiler.sources.source_specs import SourceSpec

from ..compile.type_mapping import to_spark_schema

SPARK_SCHEMA_KEY = b"org.apache.spark.sql.parquet.row.metadata"

# What Spark infers for a flat parquet column, by (physical type, logical type); columns of any
# other kind (nested, unsigned, decimal, timestamps without a time zone or in nanoseconds, plain
# binary) are left to the server's inference.
_PARQUET_TYPES = {
    ("BOOLEAN", "None"): T.BooleanType(),
    ("INT32", "None"): T.IntegerType(),
    ("INT32", "Int8"): T.ByteType(),
    ("INT32", "Int16"): T.ShortType(),
    ("INT32", "Int32"): T.IntegerType(),
    ("INT32", "Date"): T.DateType(),
    ("INT64", "None"): T.LongType(),
    ("INT64", "Int64"): T.LongType(),
    ("INT64", "TimestampUTCmilliseconds"): T.TimestampType(),
    ("INT64", "TimestampUTCmicroseconds"): T.TimestampType(),
    ("FLOAT", "None"): T.FloatType(),
    ("DOUBLE", "None"): T.DoubleType(),
    ("BYTE_ARRAY", "String"): T.StringType(),
}


def known_schema(spec: SourceSpec) -> T.StructType | None:
    """The Spark schema the server would give ``spec``'s files, when it is known here (None:
    ask the server). Only for paths that each name a file here: a folder or a glob may hold
    partition folders (``day=.../``), whose columns Spark adds to any schema."""
    if not spec.paths or any("://" in path or local_files(spec, path) != [path] for path in spec.paths):
        return None
    if spec.schema is not None:
        declared = to_spark_schema(spec.schema)
        return T.StructType([T.StructField(f.name, f.dataType, True) for f in declared])  # as Spark reads files
    if spec.kind.footers and len(spec.paths) == 1 and not spec.options:
        return parquet_schema(spec.paths[0])
    return None


def parquet_schema(path: str) -> T.StructType | None:
    """The schema Spark infers for a flat parquet file of common types (None for any other)."""
    import pyarrow.parquet as pq  # only for runs that read a parquet footer here

    try:
        metadata = pq.read_metadata(path)
    except (OSError, ValueError):
        return None  # not readable as parquet here: the server says what is wrong with it
    if SPARK_SCHEMA_KEY in (metadata.metadata or {}):
        return None  # written by Spark, which reads back the types it noted (char, varchar, ...)
    schema = metadata.schema
    fields = []
    for i in range(len(schema)):
        column = schema.column(i)
        spark_type = _PARQUET_TYPES.get((column.physical_type, _logical(column.logical_type)))
        if spark_type is None or column.max_repetition_level or "." in column.path:
            return None
        fields.append(T.StructField(column.name, spark_type, True))  # file columns are all nullable
    if len({f.name.lower() for f in fields}) < len(fields):
        return None  # names equal but for case: Spark's resolution of them is its own
    return T.StructType(fields)


def _logical(logical_type) -> str:
    """A parquet logical type as a key of ``_PARQUET_TYPES``."""
    described = json.loads(logical_type.to_json())
    kind = described["Type"]
    if kind == "Int":
        return f"Int{described['bitWidth']}" if described["isSigned"] else "Unsigned"
    if kind == "Timestamp":
        return f"Timestamp{'UTC' if described['isAdjustedToUTC'] else 'Local'}{described['timeUnit']}"
    return kind
