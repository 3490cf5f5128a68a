"""Load a ``SourceSpec`` as a Spark DataFrame: files, catalog tables, databases, or uploaded frames.

Every source comes out with 64-bit integers and doubles (narrower Spark types widen, as the
logical types do) and, when the user declared a schema, with exactly those names and types.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame
from pyspark.sql import types as T
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession
from pyspark.sql.pandas.types import from_arrow_schema

from gryph.compiler.errors import EngineError
from gryph.compiler.plan.data_types import INTEGER, Column, Schema
from gryph.compiler.source_kinds import DIALECT_OPTIONS, SourceKind
from gryph.compiler.sources.csv_dialects import CsvDialect, csv_dialect, first_local_file
from gryph.compiler.sources.csv_whole_files import refuse_misread
from gryph.compiler.sources.databases import is_database
from gryph.compiler.sources.in_memory_tables import frame_to_arrow
from gryph.compiler.sources.lake_tables import is_lake_table
from gryph.compiler.sources.local_files import check_local_files
from gryph.compiler.sources.null_markers import NULL_VALUE, null_markers
from gryph.compiler.sources.parquet_footers import footer_error
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import TMST
from gryph.compiler.sources.typed_text import declared_text

from ..compile.scalars import column
from ..compile.type_mapping import needs_widening, schema_of, to_logical, to_spark, to_spark_schema
from ..session.failures import spark_errors
from .database_sources import read_database
from .kafka_source import read_kafka
from .lake_sources import read_lake_table
from .local_schemas import known_schema
from .typed_text import text_struct, typed_from_text


def load_source(spark: SparkSession, spec: SourceSpec) -> tuple[DataFrame, Schema]:
    """The rows of ``spec`` and their schema, for one schema request; fails with an
    ``EngineError`` naming the source if it is missing. A stream batch's rows carry its time
    (``spec.stamp``) as the 64-bit column ``__tmst``."""
    try:
        df, schema = _load(spark, spec)
    except EngineError as error:  # a parquet footer Spark failed on: the words DuckDB's run uses
        footers = footer_error(spec) if isinstance(error.__cause__, PySparkException) else None
        if footers is None:
            raise
        raise footers from error
    if spec.stamp is None:
        return df, schema
    stamped = df.withColumn(TMST, F.lit(int(spec.stamp)).cast(T.LongType()))
    return stamped, Schema((*schema.columns, Column(TMST, INTEGER)))


def _load(spark: SparkSession, spec: SourceSpec) -> tuple[DataFrame, Schema]:
    if spec.kind.family == "stream":  # a topic's batch (a folder's comes as files of its format)
        return read_kafka(spark, spec)
    if is_database(spec):
        df = read_database(spark, spec)
        return _widen(df, df.schema)
    if is_lake_table(spec):
        df = read_lake_table(spark, spec)
        return _widen(df, df.schema)
    with spark_errors(f"reading source {spec.name!r}", source=f"{spec.name!r} ({spec.describe()})"):
        if spec.kind.family == "catalog":
            df = _declared(spark.table(spec.table_name), spec)
        elif spec.kind.family == "memory":
            df = _declared(_upload(spark, spec.frame), spec)
        else:
            check_local_files(spec)  # the server may run here: refuse before it reads what it cannot
            if spec.kind.text:
                refuse_misread(spec)  # Spark would read U+FFFD, or split a record, where DuckDB fails
            if declared_text(spec):  # read as text, then in the declared types: typed_text.py
                return typed_from_text(_read_files(spark, spec, text_struct(spec)), spec)
            known = known_schema(spec)
            df = _read_files(spark, spec, known)
            if known is not None:
                return _widen(df, known)  # no request: the server reads the files as told
        return _widen(df, df.schema)  # analysis happens lazily on the server; surface a missing path now


def _read_files(spark: SparkSession, spec: SourceSpec, known: T.StructType | None) -> DataFrame:
    reader = spark.read.format(spec.kind.reader_format).options(**_file_options(spec))
    if known is not None:
        reader = reader.schema(known)
    elif spec.schema is not None:
        # A declared schema gives names and types by position (headerless Griffin CSVs need it).
        reader = reader.schema(to_spark_schema(spec.schema))
    elif spec.kind.text and spec.option("inferSchema") is None:
        reader = reader.option("inferSchema", "true")
    return reader.load(list(spec.paths))


def _file_options(spec: SourceSpec) -> dict[str, str]:
    decided = _DECIDED_OPTIONS.get(spec.kind.kind)
    options, given = decided(spec) if decided is not None else ({}, spec.options)
    for key, value in given:
        if key == NULL_VALUE:  # the reader takes one marker; several are mapped after it (typed_text.py)
            markers = null_markers(spec)
            if len(markers) == 1:
                options[key] = markers[0]
            continue
        options[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return options


def _dialect_options(dialect: CsvDialect, *, line_break_found: bool) -> dict[str, str]:
    """The reader options for ``dialect``, all of it: Spark's own defaults differ (a backslash
    escapes a quote; no comments). Its line reader splits at LF, CR LF and CR alike; with
    ``multiLine`` it is told the file's line break, else it would find it itself and turn a CR LF
    inside a quoted field into LF (DuckDB and Python's csv module keep what the file holds)."""
    options = {
        "header": "true" if dialect.header else "false",
        "sep": dialect.delimiter,
        "quote": dialect.quote,  # "" turns quoting off
        "escape": dialect.escape or "\0",  # one character: NUL, which no text file holds, for none
        "encoding": "ISO-8859-1" if dialect.encoding == "latin-1" else "UTF-8",
        "multiLine": "true" if dialect.multi_line else "false",
    }
    if dialect.multi_line and line_break_found:  # of a file not here, Spark finds it
        options["lineSep"] = dialect.line_break
    if dialect.comment:
        options["comment"] = dialect.comment
    return options


def _delimited_text_options(spec: SourceSpec) -> tuple[dict[str, str], tuple[tuple[str, object], ...]]:
    """The dialect gryph decided for a CSV or TSV (csv_dialects.py), in place of the options it read it from."""
    options = _dialect_options(csv_dialect(spec), line_break_found=first_local_file(spec) is not None)
    return options, tuple((key, value) for key, value in spec.options if key not in DIALECT_OPTIONS)


def _json_options(spec: SourceSpec) -> tuple[dict[str, str], tuple[tuple[str, object], ...]]:
    """Spark reads JSON lines unless told the file is one document."""
    one_document = spec.option("multiLine") is None and _is_one_json_document(spec.paths)
    return ({"multiLine": "true"} if one_document else {}), spec.options


# the reader options gryph decides for a kind (beside the ones the user gives, passed on)
_DECIDED_OPTIONS = {
    SourceKind.CSV: _delimited_text_options,
    SourceKind.TSV: _delimited_text_options,
    SourceKind.JSON: _json_options,
}


def _is_one_json_document(paths: tuple[str, ...]) -> bool:
    """Whether the first local file is one JSON document over several lines (an array, or an
    object written out over lines), not JSON lines, which DuckDB tells itself (format 'auto');
    remote paths cannot be peeked: lines assumed."""
    for path in paths:
        file = Path(path)
        if file.is_file():
            with open(file, "rb") as handle:
                head = handle.read(4096).lstrip()
            if head.startswith(b"["):
                return True
            first_line = head.split(b"\n", 1)[0]
            return head.startswith(b"{") and not _is_json(first_line)
    return False


def _is_json(text: bytes) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _declared(df: DataFrame, spec: SourceSpec) -> DataFrame:
    """Tables and frames keep the declared columns, by name, in the declared types."""
    if spec.schema is None:
        return df
    return df.select(*(column(c.name).try_cast(to_spark(c.dtype)).alias(c.name) for c in spec.schema.columns))


def _widen(df: DataFrame, struct: T.StructType) -> tuple[DataFrame, Schema]:
    """``df`` (of Spark schema ``struct``) with narrow numbers widened, and its logical schema
    (the same before and after: asking for the widened frame's would be another request)."""
    schema = schema_of(struct)
    if not any(needs_widening(f.dataType) for f in struct.fields):
        return df, schema
    widened = df.select(
        *(
            column(f.name).cast(to_spark(to_logical(f.dataType))).alias(f.name)
            if needs_widening(f.dataType)
            else column(f.name)
            for f in struct.fields
        )
    )
    return widened, schema


def _upload(spark: SparkSession, frame: object) -> DataFrame:
    """Send an in-memory Arrow, Polars or pandas table to the server with exact types."""
    table = frame_to_arrow(frame)
    table = table.cast(pa.schema([f.with_type(_sendable(f.type)) for f in table.schema]))
    return spark.createDataFrame(table, schema=from_arrow_schema(table.schema))


def _sendable(arrow_type: pa.DataType) -> pa.DataType:
    """The Arrow type Spark accepts for a column: 64-bit numbers, plain strings, microseconds."""
    if pa.types.is_dictionary(arrow_type):
        return _sendable(arrow_type.value_type)
    if pa.types.is_integer(arrow_type):
        return pa.int64()
    if pa.types.is_floating(arrow_type):
        return pa.float64()
    if pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type):
        return pa.string()
    if pa.types.is_large_binary(arrow_type) or pa.types.is_binary_view(arrow_type):
        return pa.binary()
    if pa.types.is_timestamp(arrow_type):
        return pa.timestamp("us", tz=arrow_type.tz)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return pa.list_(_sendable(arrow_type.value_type))
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(_sendable(f.type)) for f in arrow_type])
    return arrow_type
