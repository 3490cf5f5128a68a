"""A bounded Kafka batch read by the cluster: Spark's Kafka batch source over exactly the
per-partition offsets [start, end) of the spec (no data passes through the client), the value
parsed with ``from_json`` / ``from_csv`` (PERMISSIVE, a corrupt-record column) into the columns
``stream_schema`` lists, ``__tmst`` aside. A message is malformed exactly as on DuckDB
(local_backend/sources/kafka/values.py says when): its value columns are then NULL, or, with
``on_malformed = "fail"``, the batch fails at the first.
"""

from __future__ import annotations

import json

from pyspark.errors import PySparkException
from pyspark.sql import Column as SparkColumn
from pyspark.sql import DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.plan.data_types import Schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import (
    MALFORMED,
    TMST,
    consumer_options,
    fails_on_malformed,
    malformed_message,
    stream_schema,
    value_format,
    value_schema,
)

from ..compile.type_mapping import to_spark, to_spark_schema
from ..session.failures import kafka_missing, no_kafka

_CORRUPT = "__corrupt"
_PARSE_OPTIONS = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT}
_BROKER = ("key", "topic", "partition", "offset", "timestamp")


def read_kafka(spark: SparkSession, spec: SourceSpec) -> tuple[DataFrame, Schema]:
    """The batch's rows and their schema (``stream_schema`` without ``__tmst``)."""
    schema = Schema(tuple(c for c in stream_schema(spec).columns if c.name != TMST))
    ranges = [r for r in spec.ranges if not r.empty]
    if not ranges:  # Spark refuses an empty assignment: no partition, no rows
        return spark.createDataFrame([], to_spark_schema(schema)), schema
    assign: dict[str, list[int]] = {}
    starting: dict[str, dict[str, int]] = {}
    ending: dict[str, dict[str, int]] = {}
    for r in ranges:
        assign.setdefault(r.topic, []).append(r.partition)
        starting.setdefault(r.topic, {})[str(r.partition)] = r.start
        ending.setdefault(r.topic, {})[str(r.partition)] = r.end
    options = {
        "kafka.bootstrap.servers": spec.paths[0],
        "kafka.isolation.level": "read_committed",  # as on DuckDB: aborted transactions are not data
        **{f"kafka.{key}": value for key, value in consumer_options(spec).items()},
        "assign": json.dumps(assign),
        "startingOffsets": json.dumps(starting),
        "endingOffsets": json.dumps(ending),
    }
    raw = spark.read.format("kafka").options(**options).load()
    try:
        _ = raw.schema  # the server looks the connector up here: one without it fails now, at the source
    except PySparkException as exc:
        if kafka_missing(exc):
            raise no_kafka(f"reading source {spec.name!r}", spec.location) from exc
        raise
    messages = raw.select(
        F.col("value").cast("string").alias("__value"),
        F.col("key").cast("string").alias("key"),
        "topic",
        F.col("partition").cast("bigint").alias("partition"),
        "offset",
        "timestamp",
    )
    values, bad = _parsed(spec)
    rows = messages.select(*values, *_BROKER, bad.alias(MALFORMED))
    if fails_on_malformed(spec):  # one more read of the batch, for suites that ask for it
        first = rows.where(F.col(MALFORMED)).orderBy("topic", "partition", "offset").limit(1).collect()
        if first:
            raise malformed_message(spec, first[0]["topic"], first[0]["partition"], first[0]["offset"])
    return rows, schema


def _parsed(spec: SourceSpec) -> tuple[list[SparkColumn], SparkColumn]:
    """The value's columns (NULL when malformed), and whether the message is malformed."""
    value = F.col("__value")
    shape = value_format(spec)  # text, json or csv: what a message's value holds
    if shape == "text":
        return [value.alias("value")], F.lit(False)
    columns = value_schema(spec).columns
    if shape == "json":
        with_corrupt = to_spark_schema(Schema(columns)).add(_CORRUPT, "string")
        parsed = F.from_json(value, with_corrupt, _PARSE_OPTIONS)
        shape_ok = value.rlike(r"^\s*\{")  # one JSON object: Spark would read an array's first element
    else:
        ddl = ", ".join(f"{_quoted(c.name)} {to_spark(c.dtype).simpleString()}" for c in columns)
        parsed = F.from_csv(value, F.lit(f"{ddl}, {_CORRUPT} string"), _PARSE_OPTIONS)
        shape_ok = F.lit(True)
    bad = F.coalesce(value.isNull() | ~shape_ok | parsed.isNull() | parsed.getField(_CORRUPT).isNotNull(), F.lit(True))
    return [F.when(~bad, parsed.getField(c.name)).alias(c.name) for c in columns], bad


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
