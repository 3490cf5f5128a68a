"""Spark exceptions -> gryph ``EngineError``, so callers never see PySpark exception types."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from pyspark.errors import PySparkException

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.sources.databases import statement_timed_out
from gryph.compiler.sources.parquet_footers import footer_error
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import offsets_lost, topics
from gryph.compiler.sources.unreadable_files import damaged_file, source_of_file, unreadable_source

from .connect import grpc_status
from .connector_jars import FETCH_COMMAND

_MISSING = {"PATH_NOT_FOUND", "TABLE_OR_VIEW_NOT_FOUND"}
_NO_AVRO = {"AVRO_DATA_SOURCE_NOT_ENABLED", "DATA_SOURCE_NOT_FOUND"}
# Spark 4.2 says so under a legacy, unnamed condition: its text is what tells
_NO_AVRO_TEXT = "failed to find data source: avro"
# Spark's words for a file it could not read (FAILED_READ_FILE), and the file, a URL
_READ_FILE = re.compile(r"while reading file (\S+?)\.?(?:\s|$)")
# the Kafka connector's words for offsets the broker no longer holds (failOnDataLoss)
_KAFKA_LOST = re.compile(r"Could not read records in offset \[(\d+), \d+\) for topic partition (\S+)-(\d+)")


def kafka_missing(exc: PySparkException) -> bool:
    """Whether ``exc`` says the server has no Kafka connector (its condition, or its text where
    Spark names none: "Failed to find data source: kafka")."""
    text = first_line(exc).lower()
    return _condition(exc) == "KAFKA_DATA_SOURCE_NOT_ENABLED" or ("data source" in text and "kafka" in text)


def no_kafka(what: str, location: Location | None = None) -> EngineError:
    message = f"{what}: this Spark server has no Kafka connector (spark-sql-kafka-0-10 is not deployed)"
    return _module_refused("KAFKA_NOT_ENABLED", message, "spark-sql-kafka-0-10_2.13", location)


def no_avro(what: str, location: Location | None = None) -> EngineError:
    message = f"{what}: this Spark server has no Avro support (the spark-avro module is not deployed)"
    return _module_refused("SPARK_AVRO", message, "spark-avro_2.13", location)


def _module_refused(code: str, message: str, artifact: str, location: Location | None) -> EngineError:
    """A Spark module the server was not started with, and how a server gets it."""
    return EngineError(
        code,
        message,
        location=location,
        hint=f"start your server with --packages org.apache.spark:{artifact}:<its Spark version>; "
        "a local server (--remote local) loads it from gryph's cache: "
        f"`{FETCH_COMMAND}` fetches it (with Maven)",
    )


def _condition(exc: PySparkException) -> str:
    condition = exc.getCondition() or ""
    return condition.split(".")[0]


def first_line(exc: BaseException) -> str:
    """The part of a Spark failure's text that says what happened."""
    text = str(exc).strip()
    # a bare gRPC failure prints as a "<_MultiThreadedRendezvous ...>" repr: its details say what happened
    details = re.search(r'^\s*details = "(.*)"$', text, re.M)
    if text.startswith("<") and details:
        return details.group(1)
    return text.splitlines()[0] if text else type(exc).__name__


@contextmanager
def spark_errors(what: str, source: str | None = None) -> Iterator[None]:
    """Re-raise Spark failures inside the block as ``EngineError`` saying ``what`` was being done.

    ``source`` names the source being read (with its paths), for missing-data messages.
    """
    try:
        yield
    except PySparkException as exc:
        if grpc_status(exc) == "UNAVAILABLE":
            raise EngineError(
                "SPARK_UNREACHABLE",
                f"{what}: the Spark Connect server stopped answering ({first_line(exc)})",
                hint="is the server still running? a run waits "
                "GRYPH_SPARK_RETRY_SECONDS (default 30) for it to come back",
            ) from exc
        condition = _condition(exc)
        if source is not None and condition in _MISSING:
            raise EngineError(
                "SOURCE_NOT_FOUND",
                f"source {source} does not exist: {first_line(exc)}",
                hint="check the path or table name (paths are resolved on the Spark server)",
            ) from exc
        if kafka_missing(exc):
            raise no_kafka(what) from exc
        if condition in _NO_AVRO or _NO_AVRO_TEXT in first_line(exc).lower():
            raise no_avro(what) from exc
        raise EngineError(
            "QUERY_FAILED",
            f"{what} failed on Spark: {first_line(exc)}",
            hint=f"Spark error class {condition}" if condition else None,
        ) from exc


@contextmanager
def read_failures(sources: Iterable[SourceSpec]) -> Iterator[None]:
    """Within, a failure to read one of ``sources`` is that source's error, in DuckDB's words: a
    file Spark could not read (``SOURCE_UNREADABLE``), Kafka offsets the broker deleted before
    the batch read them (``DATA_LOST``); not the failure of the query that reached them."""
    try:
        yield
    except EngineError as error:
        cause = error.__cause__
        known = _read_failure(cause, list(sources)) if isinstance(cause, PySparkException) else None
        if known is None:
            raise
        raise known from cause


def _read_file_reason(line: str, end: int) -> str | None:
    """What Spark says after naming the file it failed to read (nothing for FAILED_READ_FILE.NO_HINT)."""
    reason = re.sub(r"\s*SQLSTATE: \w+\s*$", "", line[end:]).strip().rstrip(".")
    return reason or None


def _read_failure(exc: PySparkException, sources: list[SourceSpec]) -> EngineError | None:
    timed_out = statement_timed_out([s for s in sources if s.kind.networked], str(exc))
    if timed_out is not None:
        return timed_out
    if _condition(exc) == "FAILED_READ_FILE":
        named = _READ_FILE.search(first_line(exc))
        spec = None if named is None else source_of_file(sources, named.group(1))
        if named is None or spec is None:
            return None
        if spec.kind.footers:  # DuckDB's words for a file that does not decode: damaged_parquet.py
            reason = _read_file_reason(first_line(exc), named.end())
            return footer_error(spec) or damaged_file(spec, named.group(1), reason)
        return unreadable_source(spec, first_line(exc))
    lost = _KAFKA_LOST.search(str(exc))
    if lost is None:
        return None
    start, topic, partition = lost.groups()
    kafka = (s for s in sources if "topic" in s.kind.option_names and topic in topics(s))
    spec = next(kafka, None)
    return None if spec is None else offsets_lost(spec, topic, int(partition), f"from {start}")
