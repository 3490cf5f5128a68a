"""A stream batch's time on every row: ``SourceSpec.stamp`` becomes the 64-bit column ``__tmst``
of every format, on both engines."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.compiler.plan.data_types import INTEGER, STRING, Column, Schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine
from gryph.local_backend.sources.source_views import register_source

STAMP = 1_764_000_000_123  # beyond 32 bits: the column must be 64-bit
DECLARED = Schema((Column("id", INTEGER), Column("name", STRING)))
# what every source below holds, then the stamp
EXPECTED = [(1, "ä b", STAMP), (2, None, STAMP)]


def _sources(folder) -> dict[str, SourceSpec]:
    (folder / "t.csv").write_text("id,name\n1,ä b\n2,\n", encoding="utf-8")
    (folder / "t.json").write_text('{"id": 1, "name": "ä b"}\n{"id": 2, "name": null}\n', encoding="utf-8")
    table = pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["ä b", None]})
    pq.write_table(table, folder / "t.parquet")
    return {
        "csv": SourceSpec("t", "csv", (str(folder / "t.csv"),), schema=DECLARED, stamp=STAMP),
        "json": SourceSpec("t", "json", (str(folder / "t.json"),), schema=DECLARED, stamp=STAMP),
        "parquet": SourceSpec("t", "parquet", (str(folder / "t.parquet"),), stamp=STAMP),
        "frame": SourceSpec("t", "frame", frame=pl.from_arrow(table), stamp=STAMP),
    }


def _duckdb_rows(spec: SourceSpec) -> tuple[list[tuple], Schema]:
    engine = DuckDBEngine()
    try:
        loaded = register_source(engine.connection, spec, "t")
        rows = engine.connection.execute('SELECT * FROM "t" ORDER BY id').fetchall()
        loaded.drop(engine.connection)
        return rows, engine.schema_of(spec)
    finally:
        engine.close()


def _spark_rows(spec: SourceSpec, remote: str) -> tuple[list[tuple], Schema]:
    from gryph.client.spark import SparkEngine
    from gryph.client.spark.sources.source_loading import load_source

    with SparkEngine(remote) as engine:
        df, schema = load_source(engine.spark, spec)
        return [tuple(row) for row in df.orderBy("id").collect()], schema


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("kind", ["csv", "json", "parquet", "frame"])
def test_a_stamped_source_has_the_batch_time_on_every_row(engine, kind, tmp_path, request):
    spec = _sources(tmp_path)[kind]
    if engine == "duckdb":
        rows, schema = _duckdb_rows(spec)
    else:
        rows, schema = _spark_rows(spec, request.getfixturevalue("spark_remote"))
    assert rows == EXPECTED
    assert schema.columns == (*DECLARED.columns, Column("__tmst", INTEGER))


def test_an_unstamped_source_has_no_tmst(tmp_path):
    spec = _sources(tmp_path)["csv"]
    rows, schema = _duckdb_rows(SourceSpec(spec.name, spec.format, spec.paths, schema=spec.schema))
    assert rows == [(1, "ä b"), (2, None)]
    assert schema == DECLARED


def test_a_stamped_database_table_has_the_batch_time_on_every_row(tmp_path):
    import sqlite3

    path = tmp_path / "t.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (id INTEGER, name TEXT)")
        db.executemany("INSERT INTO t VALUES (?, ?)", [(1, "ä b"), (2, None)])
    spec = SourceSpec("t", "sqlite", (str(path),), options=(("table", "t"),), stamp=STAMP)
    engine = DuckDBEngine()
    try:
        assert engine.schema_of(spec).columns[-1] == Column("__tmst", INTEGER)
        from gryph.local_backend.sources.database_sources import register_database

        loaded = register_database(engine.connection, spec, "t", None, None, staged=False)
        assert engine.connection.execute('SELECT * FROM "t" ORDER BY id').fetchall() == EXPECTED
        loaded.drop(engine.connection)
    finally:
        engine.close()
