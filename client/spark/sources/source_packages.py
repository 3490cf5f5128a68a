"""Which of a suite's sources this Spark server has no package for (spark-avro, the Kafka
connector, Delta, Iceberg: ``compiler/source_kinds.py`` declares them), asked before a run.

A reader of each needed format is resolved against a path that does not exist: Spark looks its
data source up first, so a missing package answers "Failed to find (the) data source" at once and
an installed one fails later, on the path or on options it lacks. No file is read and no job runs.
Each source missing its package gets the error a run would give when it reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pyspark.errors import PySparkException
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.errors import EngineError
from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.source_specs import SourceSpec

from ..session.failures import no_avro, no_kafka
from .lake_sources import not_enabled

# Spark's words (DATA_SOURCE_NOT_FOUND, and its legacy Avro and Kafka conditions) for a format it has no reader for
_NOT_FOUND = re.compile(r"failed to find (?:the )?data source", re.IGNORECASE)
_NOWHERE = "/nonexistent/gryph-package-probe"

# the error of a source whose package the server lacks, per kind that needs one (a test holds
# this table to the kinds source_kinds.py declares a Spark package for)
MISSING: dict[SourceKind, Callable[[SourceSpec, SparkSession], EngineError]] = {
    SourceKind.AVRO: lambda spec, _: no_avro(_described(spec), spec.location),
    SourceKind.KAFKA: lambda spec, _: no_kafka(_described(spec), spec.location),
    SourceKind.DELTA: lambda spec, spark: not_enabled(spec, spark.version),
    SourceKind.ICEBERG: lambda spec, spark: not_enabled(spec, spark.version),
}


def has_data_source(spark: SparkSession, name: str) -> bool:
    """Whether the server registers the data source ``name`` (one analysis request, no job)."""
    try:
        _ = spark.read.format(name).load(_NOWHERE).schema
    except PySparkException as error:
        return _NOT_FOUND.search(str(error)) is None
    return True


def missing_packages(spark: SparkSession, sources: Sequence[SourceSpec]) -> list[EngineError]:
    """An error per source whose package the server lacks; each package is asked about once."""
    present: dict[str, bool] = {}
    errors = []
    for spec in sources:
        package = spec.kind.package("spark")
        if package is None:
            continue
        if package.provides not in present:
            present[package.provides] = has_data_source(spark, package.provides)
        if not present[package.provides]:
            errors.append(MISSING[SourceKind(spec.format)](spec, spark))
    return errors


def _described(spec: SourceSpec) -> str:
    return f"source {spec.name!r} ({spec.describe()})"
