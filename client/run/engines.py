"""Choosing an engine: embedded DuckDB by default, Spark Connect on request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gryph.compiler.engine import Capabilities, Engine
from gryph.compiler.errors import InvalidInput

if TYPE_CHECKING:
    from gryph.client.spark import SparkEngine

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
        return open_spark(remote, read_once)
    raise InvalidInput(
        "UNKNOWN_ENGINE", f"unknown engine {name!r}", text=name, hint=f"choose one of: {', '.join(ENGINES)}"
    )


def open_spark(remote: str | None, read_once: bool = True, settings: dict[str, str] | None = None) -> SparkEngine:
    """The Spark engine with session ``settings`` (Griffin's env.json) applied; those the server
    takes only as cluster settings are left in its ``refused_settings``."""
    from gryph.client.spark import SparkEngine  # imports pyspark: only when asked for (else SPARK_MISSING)

    spark = SparkEngine(remote, read_once=read_once)
    try:
        spark.configure(settings or {})
    except BaseException:
        spark.close()  # the caller gets no engine to close: stop the session (and a local server) here
        raise
    return spark


def capabilities_of(name: str) -> Capabilities:
    """What engine ``name`` declares it refuses and rewrites, known without opening it."""
    if name == "duckdb":
        from gryph.local_backend.capabilities import CAPABILITIES as DUCKDB

        return DUCKDB
    if name == "spark":
        from gryph.client.spark.capabilities import CAPABILITIES as SPARK  # does not import pyspark

        return SPARK
    raise InvalidInput(
        "UNKNOWN_ENGINE", f"unknown engine {name!r}", text=name, hint=f"choose one of: {', '.join(ENGINES)}"
    )


def support_matrix() -> str:
    """The README's table of what each engine refuses, built from the engines' declarations."""
    declared = {name: capabilities_of(name) for name in ENGINES}
    features = dict.fromkeys(r.feature for caps in declared.values() for r in caps.refusals)
    lines = ["| feature | " + " | ".join(ENGINES) + " |", "|---" * (len(ENGINES) + 1) + "|"]
    for feature in features:
        cells = []
        for caps in declared.values():
            refusal = next((r for r in caps.refusals if r.feature == feature), None)
            cells.append("runs" if refusal is None else f"{refusal.gap.value}: {refusal.reason}")
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


class OnDemandEngine:
    """An engine by name, opened at its first use: ``validate`` of a suite whose schemas are all
    declared asks nothing of the engine, so it needs no server (its refusals are declared)."""

    def __init__(self, name: str, remote: str | None = None) -> None:
        self.name = name
        self.capabilities = capabilities_of(name)
        self._remote = remote
        self._engine: Engine | None = None

    def __getattr__(self, attribute: str) -> object:
        if attribute.startswith("_"):  # not set yet (copying, pickling): no engine for that
            raise AttributeError(attribute)
        if self._engine is None:
            self._engine = open_engine(self.name, self._remote)
        return getattr(self._engine, attribute)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
