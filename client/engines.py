"""Choosing an engine: embedded DuckDB by default, Spark Connect on request."""

from __future__ import annotations

from gryph.compiler.engine import Engine
from gryph.compiler.errors import InvalidInput

ENGINES = ("duckdb", "spark")


def open_engine(
    name: str = "duckdb",
    remote: str | None = None,
    database: str | None = None,
    read_once: bool = True,
    memory_limit: str | None = None,
    temp_directory: str | None = None,
    read_only: bool = False,
) -> Engine:
    """An engine by name; ``remote`` is the Spark Connect URL (or ``local``), ``database`` a DuckDB file.

    ``read_once`` (Spark): keep a source several queries scan on the cluster for the run.
    ``memory_limit`` and ``temp_directory`` (DuckDB): the memory cap and where work beyond it spills.
    ``read_only`` (DuckDB): open ``database`` so that the run cannot change it.
    """
    if name == "duckdb":
        from gryph.local_backend.engine import DuckDBEngine

        return DuckDBEngine(database, memory_limit=memory_limit, temp_directory=temp_directory, read_only=read_only)
    if name == "spark":
        from gryph.client.spark.engine import SparkEngine  # imports pyspark: only when asked for

        return SparkEngine(remote, read_once=read_once)
    raise InvalidInput(
        "UNKNOWN_ENGINE", f"unknown engine {name!r}", text=name, hint=f"choose one of: {', '.join(ENGINES)}"
    )
