"""Fixtures for the DuckDB engine tests: a real engine over small in-memory and on-disk tables."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.plan import Named, Plan, Project, Query, Read, View
from gryph.compiler.sources import SourceSpec
from gryph.local_backend import DuckDBEngine


class Bench:
    """Sources registered by name, and the engine that runs relations over them."""

    def __init__(self, engine: DuckDBEngine) -> None:
        self.engine = engine
        self.sources: dict[str, SourceSpec] = {}

    def add(self, spec: SourceSpec) -> Read:
        """Register a source; its Read carries the schema the engine reports."""
        self.sources[spec.name] = spec
        return Read(spec.name, self.engine.schema_of(spec))

    def table(self, name: str, data: dict | pa.Table) -> Read:
        frame = data if isinstance(data, pa.Table) else pa.table(data)
        return self.add(SourceSpec(name, "frame", frame=frame))

    def rows(self, relation, limit: int | None = None, views: tuple[View, ...] = ()) -> list[dict]:
        plan = Plan(views, (Query("q", relation, limit),))
        return self.engine.run(plan, self.sources)["q"]

    def values(self, expr, data: dict | pa.Table | None = None) -> list:
        """The values of one expression over a table (a one-row dummy table by default)."""
        read = self.table("t", data if data is not None else {"dummy": [0]})
        return [row["v"] for row in self.rows(Project(read, (Named(expr, "v"),)))]


@pytest.fixture
def engine():
    engine = DuckDBEngine()
    yield engine
    engine.close()


@pytest.fixture
def bench(engine) -> Bench:
    return Bench(engine)
