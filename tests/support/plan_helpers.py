"""Build small plans by hand and run them on an engine (either one: nothing here is engine-specific)."""

from __future__ import annotations

import pyarrow as pa

from gryph.compiler.plan import Named, Plan, Project, Query, Read, View
from gryph.compiler.plan import data_types as G
from gryph.compiler.sources.source_specs import SourceSpec


def frame_source(name: str, table: pa.Table) -> SourceSpec:
    return SourceSpec(name, "frame", frame=table)


def run_one(engine, relation, sources: dict[str, SourceSpec], views=()) -> list[dict]:
    """The rows of one query over ``sources``."""
    return engine.run(Plan(tuple(views), (Query("q", relation),)), sources)["q"]


def read(engine, spec: SourceSpec) -> Read:
    return Read(spec.name, engine.schema_of(spec))


def project(engine, spec: SourceSpec, exprs: dict[str, object]) -> dict[str, list]:
    """Evaluate named expressions over every row of ``spec``: one query, values by name."""
    rel = Project(read(engine, spec), tuple(Named(e, n) for n, e in exprs.items()))
    rows = run_one(engine, rel, {spec.name: spec})
    return {name: [row[name] for row in rows] for name in exprs}


def multiset(rows: list[dict]) -> list[str]:
    """Rows as a sorted list of reprs, for comparing unordered results."""
    return sorted(repr(sorted(row.items())) for row in rows)


INT, DBL, STR, BOOL = G.INTEGER, G.DOUBLE, G.STRING, G.BOOLEAN


class Bench:
    """Sources registered by name, and the engine that runs relations over them."""

    def __init__(self, engine) -> None:
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


class Recorder:
    """The engine's connection, with every statement it is given written down."""

    def __init__(self, con: object) -> None:
        self.con, self.statements = con, []

    def execute(self, sql, *args):
        self.statements.append(sql)
        return self.con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.con, name)
