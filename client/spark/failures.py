"""Spark exceptions -> gryph ``EngineError``, so callers never see PySpark exception types."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from pyspark.errors import PySparkException

from gryph.compiler.errors import EngineError

_MISSING = {"PATH_NOT_FOUND", "TABLE_OR_VIEW_NOT_FOUND"}
_NO_AVRO = {"AVRO_DATA_SOURCE_NOT_ENABLED", "DATA_SOURCE_NOT_FOUND"}


def _condition(exc: PySparkException) -> str:
    condition = exc.getCondition() or ""
    return condition.split(".")[0]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextmanager
def spark_errors(what: str, source: str | None = None) -> Iterator[None]:
    """Re-raise Spark failures inside the block as ``EngineError`` saying ``what`` was being done.

    ``source`` names the source being read (with its paths), for missing-data messages.
    """
    try:
        yield
    except PySparkException as exc:
        condition = _condition(exc)
        if source is not None and condition in _MISSING:
            raise EngineError("SOURCE_NOT_FOUND", f"source {source} does not exist: {_first_line(exc)}",
                              hint="check the path or table name (paths are resolved on the Spark server)") from exc
        if condition in _NO_AVRO:
            raise EngineError("SPARK_AVRO", f"{what}: this Spark server has no Avro support "
                              "(the spark-avro module is not deployed)",
                              hint="start the server with --packages org.apache.spark:spark-avro_2.13:<spark version>") from exc
        raise EngineError("QUERY_FAILED", f"{what} failed on Spark: {_first_line(exc)}",
                          hint=f"Spark error class {condition}" if condition else None) from exc
