"""Reading files, tables and in-memory frames, and the errors for data that is not there."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import data_types as G
from gryph.compiler.sources.source_specs import SourceSpec
from tests.support.comparison import same
from tests.support.plan_helpers import read, run_one

EXPECTED = [{"id": 1, "name": "Ann", "score": 2.5}, {"id": 2, "name": None, "score": None}]
SCHEMA = G.schema(("id", G.INTEGER), ("name", G.STRING), ("score", G.DOUBLE))


def rows_of(engine, spec):
    rows = run_one(engine, read(engine, spec), {spec.name: spec})
    return sorted(rows, key=lambda r: r[next(iter(r))])


def test_csv_with_header_infers_types(spark_engine, tmp_path):
    (tmp_path / "u.csv").write_text("id,name,score\n1,Ann,2.5\n2,,\n")
    spec = SourceSpec("u", "csv", paths=(str(tmp_path / "u.csv"),))
    assert spark_engine.schema_of(spec) == SCHEMA
    assert rows_of(spark_engine, spec) == EXPECTED


def test_headerless_csv_takes_names_from_declared_schema(spark_engine, tmp_path):
    (tmp_path / "u.csv").write_text("1;Ann;2.5\n2;NA;NA\n")
    spec = SourceSpec(
        "u",
        "csv",
        paths=(str(tmp_path / "u.csv"),),
        schema=SCHEMA,
        options=(("header", False), ("delimiter", ";"), ("nullValue", "NA")),
    )
    assert spark_engine.schema_of(spec) == SCHEMA
    assert rows_of(spark_engine, spec) == EXPECTED


def test_tsv_with_quotes(spark_engine, tmp_path):
    (tmp_path / "u.tsv").write_text("id\tname\tscore\n1\t'Ann'\t2.5\n2\t\t\n")
    spec = SourceSpec("u", "tsv", paths=(str(tmp_path / "u.tsv"),), options=(("quote", "'"),))
    assert rows_of(spark_engine, spec) == EXPECTED


def test_parquet_and_orc(spark_engine, tmp_path):
    table = pa.table({"id": pa.array([1, 2], pa.int32()), "name": ["Ann", None], "score": [2.5, None]})
    pq.write_table(table, tmp_path / "u.parquet")
    orc.write_table(table, str(tmp_path / "u.orc"))
    for fmt in ("parquet", "orc"):
        spec = SourceSpec("u", fmt, paths=(str(tmp_path / f"u.{fmt}"),))
        assert spark_engine.schema_of(spec) == SCHEMA  # int32 widens to the 64-bit INTEGER
        assert rows_of(spark_engine, spec) == EXPECTED


def test_json_lines_and_json_array(spark_engine, tmp_path):
    records = [{"id": 1, "name": "Ann", "score": 2.5}, {"id": 2, "name": None, "score": None}]
    (tmp_path / "lines.json").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    (tmp_path / "array.json").write_text(json.dumps(records, indent=2))
    for name in ("lines", "array"):
        spec = SourceSpec("u", "json", paths=(str(tmp_path / f"{name}.json"),), schema=SCHEMA)
        assert rows_of(spark_engine, spec) == EXPECTED


def test_frames_keep_nan_and_null(spark_engine):
    expected = [{"id": 1, "score": math.nan}, {"id": 2, "score": None}, {"id": 3, "score": 1.5}]
    frames = [
        pa.table({"id": pa.array([1, 2, 3], pa.int8()), "score": pa.array([math.nan, None, 1.5], pa.float32())}),
        pl.DataFrame({"id": [1, 2, 3], "score": [math.nan, None, 1.5]}),
        # pandas turns NaN into NA on construction; a masked array keeps the two apart
        pd.DataFrame(
            {
                "id": pd.array([1, 2, 3], dtype="Int64"),
                "score": pd.arrays.FloatingArray(np.array([math.nan, 0.0, 1.5]), np.array([False, True, False])),
            }
        ),
    ]
    for frame in frames:
        spec = SourceSpec("f", "frame", frame=frame)
        assert spark_engine.schema_of(spec) == G.schema(("id", G.INTEGER), ("score", G.DOUBLE))
        rows = rows_of(spark_engine, spec)
        assert same(rows, expected), (type(frame).__name__, rows)


def test_empty_frame(spark_engine):
    spec = SourceSpec("e", "frame", frame=pa.table({"a": pa.array([], pa.int64())}))
    assert rows_of(spark_engine, spec) == []


def test_table_source_with_declared_schema(spark_engine):
    spark_engine.spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW gryph_people AS SELECT CAST(1 AS INT) AS id, '7' AS code"
    ).collect()
    spec = SourceSpec("people", "table", table="gryph_people", schema=G.schema(("code", G.INTEGER), ("id", G.INTEGER)))
    assert rows_of(spark_engine, spec) == [{"code": 7, "id": 1}]


def test_missing_file_names_source_and_path(spark_engine, tmp_path):
    missing = str(tmp_path / "nope.csv")
    with pytest.raises(EngineError) as info:
        spark_engine.schema_of(SourceSpec("users", "csv", paths=(missing,)))
    assert info.value.exit_code == 3
    assert "users" in str(info.value) and "nope.csv" in str(info.value)


def test_missing_table(spark_engine):
    with pytest.raises(EngineError, match="no_such_table"):
        spark_engine.schema_of(SourceSpec("t", "table", table="no_such_table"))
