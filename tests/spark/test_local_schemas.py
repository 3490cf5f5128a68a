"""Schemas known here (local_schemas.py) are the ones the server infers for the same files.

The server is the independent source: each known schema is compared with what Spark itself
answers for the file, asked without a schema.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client.run.runner import load_suite
from gryph.client.spark.sources.local_schemas import known_schema, parquet_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _inferred(spark_engine, path) -> object:
    return spark_engine.spark.read.parquet(str(path)).schema


def test_a_flat_parquet_file_of_common_types_has_the_schema_spark_infers(spark_engine, tmp_path):
    path = tmp_path / "odd names ü.parquet"
    table = pa.table(
        {
            "id": pa.array([1, None], pa.int64()),
            "small": pa.array([1, 2], pa.int32()),
            "tiny": pa.array([1, None], pa.int8()),
            "short": pa.array([1, None], pa.int16()),
            "ratio": pa.array([0.5, float("nan")], pa.float64()),
            "single": pa.array([0.25, None], pa.float32()),
            "flag": [True, None],
            "name é": ["a", None],
            "day": pa.array([dt.date(2024, 1, 1), None], pa.date32()),
            "at_ms": pa.array([1, None], pa.timestamp("ms", tz="UTC")),
            "at_us": pa.array([1, None], pa.timestamp("us", tz="UTC")),
        }
    )
    pq.write_table(table, path)
    assert parquet_schema(str(path)) == _inferred(spark_engine, path)


@pytest.mark.parametrize(
    "column",
    [
        pa.array([1], pa.uint32()),  # unsigned: Spark widens it its own way
        pa.array([1], pa.timestamp("us")),  # no time zone: Spark's inference settings decide
        pa.array([1], pa.timestamp("ns", tz="UTC")),
        pa.array([b"x"], pa.binary()),
        pa.array([[1]], pa.list_(pa.int64())),
        pa.array([{"a": 1}], pa.struct([("a", pa.int64())])),
        pa.array([1], pa.decimal128(10, 2)),
    ],
)
def test_other_parquet_columns_are_left_to_the_server(tmp_path, column):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"id": [1], "other": column}), path)
    assert parquet_schema(str(path)) is None


def test_files_not_here_folders_and_globs_are_left_to_the_server(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(pa.table({"id": [1]}), folder / "part-0.parquet")
    suite = load_suite(
        f'source gone = parquet("{tmp_path / "gone.parquet"}")\n'
        f'source parts = parquet("{folder}")\n'
        f'source declared_parts = parquet("{folder}", schema = "id bigint")\n'
        f'source matches = parquet("{folder}/*.parquet")\n'
        f'source remote = csv("s3://bucket/x.csv", schema = "id bigint")\n'
        "completeness c on gone: id\ncompleteness d on parts: id\ncompleteness e on remote: id\n"
        "completeness f on declared_parts: id\ncompleteness g on matches: id\n"
    )
    # a folder or a glob may hold partition folders, whose columns Spark adds to any schema
    assert {name: known_schema(spec) for name, spec in suite.sources.items()} == dict.fromkeys(suite.sources)


def test_the_example_sources_have_the_schemas_the_server_gives(spark_engine):
    from gryph.client.spark.sources.source_loading import _read_files

    suite = load_suite(EXAMPLES / "users.dq")
    for spec in suite.sources.values():
        known = known_schema(spec)
        assert known is not None, spec.name
        assert known == _read_files(spark_engine.spark, spec, None).schema, spec.name
