"""A run leaves the session's settings as it found them."""

from __future__ import annotations

import pyarrow as pa

from gryph.compiler.plan import AggFn, Aggregate, AggregateCall, Field, Named, Plan, Query, Read
from gryph.compiler.plan.data_types import INTEGER, schema
from gryph.compiler.sources.source_specs import SourceSpec

SETTING = "spark.sql.codegen.maxFields"


def test_a_wide_aggregate_restores_the_codegen_width(spark_engine):
    """150 measures go past Spark's 100 code-generation fields: the width is raised for the run only."""
    source = SourceSpec("w", "frame", frame=pa.table({"v": pa.array([1, 2, 3], pa.int64())}))
    total = AggregateCall(AggFn.SUM, (Field("v", INTEGER),), INTEGER)
    wide = Aggregate(Read("w", schema(("v", INTEGER))), (), tuple(Named(total, f"m{n}") for n in range(150)))
    before = spark_engine.spark.conf.get(SETTING)
    rows = spark_engine.run(Plan((), (Query("q", wide),)), {"w": source})["q"]
    assert rows == [{f"m{n}": 6 for n in range(150)}]  # 1 + 2 + 3
    assert spark_engine.spark.conf.get(SETTING) == before
