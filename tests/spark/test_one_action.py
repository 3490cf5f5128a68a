"""A run's queries go to Spark as one action; a failure still names the query that failed."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import Plan, Query, Read, Sql
from gryph.compiler.plan.data_types import INTEGER, schema
from gryph.compiler.sources.source_specs import SourceSpec


def _plan(*queries: tuple[str, str]) -> Plan:
    return Plan((), tuple(Query(name, Sql(text, ("t",), "spark")) for name, text in queries))


def _sources():
    return {"t": SourceSpec("t", "frame", frame=pa.table({"a": [1, 2, 3], "s": ["x", None, "é"]}))}


def test_queries_of_different_shapes_come_back_apart(spark_engine):
    rows = spark_engine.run(
        _plan(
            ("n", "SELECT count(*) AS n FROM t"),
            ("pairs", "SELECT a, s FROM t WHERE a > 1"),
            ("same_shape", "SELECT count(*) AS n FROM t WHERE s IS NULL"),
            ("untyped", "SELECT NULL AS nothing, max(a) AS top FROM t"),
            ("none", "SELECT a FROM t WHERE a > 3"),
        ),
        _sources(),
    )
    assert rows["n"] == [{"n": 3}] and rows["same_shape"] == [{"n": 1}] and rows["none"] == []
    assert rows["untyped"] == [{"nothing": None, "top": 3}]
    assert sorted(rows["pairs"], key=lambda r: r["a"]) == [{"a": 2, "s": None}, {"a": 3, "s": "é"}]


def test_a_failure_at_run_time_names_its_query(spark_engine):
    plan = _plan(
        ("fine", "SELECT count(*) AS n FROM t"), ("broken", "SELECT raise_error(concat('bad row ', a)) AS x FROM t")
    )
    with pytest.raises(EngineError) as info:
        spark_engine.run(plan, _sources())
    assert info.value.code == "QUERY_FAILED" and "'broken'" in info.value.message
    assert "'fine'" not in info.value.message


def test_an_analysis_failure_names_its_query(spark_engine):
    # a column the frame lacks: Spark finds out when it analyses the query, not when it is built
    ghost = Query("misspelt", Read("t", schema(("ghost", INTEGER))))
    plan = Plan((), (Query("fine", Sql("SELECT count(*) AS n FROM t", ("t",), "spark")), ghost))
    with pytest.raises(EngineError) as info:
        spark_engine.run(plan, _sources())
    assert info.value.code == "QUERY_FAILED" and "'misspelt'" in info.value.message
    assert "'fine'" not in info.value.message
