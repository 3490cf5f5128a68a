"""Apache Griffin's own job configs (tests/data/griffin/configs), run unchanged but for their data
paths, on both engines, against the metrics Griffin's BatchDQAppTest asserts for them. Both
engines read the avro files themselves (the test Spark server loads spark-avro).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gryph.client import run
from gryph.compiler.errors import InvalidInput
from tests.support.comparison import same

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "griffin" / "configs"

# BatchDQAppTest at apache/griffin 64a00d10 (its expected metric maps, one per config)
EXPECTED = {
    "accuracy": {"total_count": 50, "miss_count": 4, "matched_count": 46, "matchedFraction": 0.92},
    "completeness": {"total": 50, "incomplete": 1, "complete": 49},
    "distinctness": {"total": 50, "distinct": 49, "dup": [{"dup": 1, "num": 1}]},
    "timeliness": {
        "total": 10,
        "avg": 276000,
        "percentile_95": 660000,
        "step": [{"step": 0, "cnt": 6}, {"step": 5, "cnt": 2}, {"step": 3, "cnt": 1}, {"step": 4, "cnt": 1}],
    },
    "uniqueness": {"total": 50, "unique": 48},
}
# Griffin lists these rows in no particular order: compared as sets
PROFILING = {
    "prof": [{"user_id": 10001 + i, "cnt": 1} for i in range(13)],
    "post_group": [{"post_code": "94022", "cnt": 13}],
}


def griffin_run(name: str, engine):
    """Run one corpus config as it is."""
    return run(CONFIGS / f"{name}-batch-griffindsl.json", engine)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_griffin_corpus_config(name, dq_engine):
    result = griffin_run(name, dq_engine)
    expected = EXPECTED[name]
    if name == "timeliness":  # the step histogram comes in no particular order either
        result.metrics["step"] = sorted(result.metrics["step"], key=lambda row: row["step"])
        expected = dict(expected, step=sorted(expected["step"], key=lambda row: row["step"]))
    for key, value in expected.items():
        same(result.metrics[key], value, f"metrics.{key}")


def test_griffin_corpus_profiling_with_pre_proc(dq_engine):
    result = griffin_run("profiling", dq_engine)
    assert set(result.metrics) == set(PROFILING)
    for key, rows in PROFILING.items():
        assert sorted(result.metrics[key], key=str) == sorted(rows, key=str)


def test_griffin_corpus_malformed_rule_is_a_located_error(duckdb_engine):
    # Griffin fails this job at run time (AnalysisException); here it fails before any scan
    with pytest.raises(InvalidInput) as caught:
        run(CONFIGS / "profiling-batch-griffindsl_malformed.json", duckdb_engine)
    error = caught.value
    assert error.code == "UNKNOWN_COLUMN"
    assert (error.location.line, error.location.column) == (27, 18)
    assert "abc" in str(error)


def test_griffin_master_all_measures_config_unchanged(dq_engine):
    # Griffin master's own example, casts and all: Spark 4 would fail its cast('""' as int) where
    # Griffin's Spark gave NULL, and gryph runs users' casts as Griffin's Spark did
    metrics = run(CONFIGS / "config-batch-all-measures.json", dq_engine).metrics
    # 4,617 lines; 158 have no zipcode (157 '""' and the line whose fifth field is 'PALO ALTO'), none
    # lacks a city. Its completeness expr is written bad-style ("zipcode is null OR city is null") but
    # Griffin's code takes expr as the complete condition: 158 complete
    assert metrics["completeness_measure"] == {"total": 4617, "complete": 158, "incomplete": 4459}
    # the measure-configuration guide's numbers for the other measures (test_griffin_measures.py)
    assert metrics["duplication_measure"] == {
        "total": 4617,
        "duplicate": 4363,
        "unique": 58,
        "non_unique": 196,
        "distinct": 254,
    }
    assert metrics["accuracy_measure"] == {"total": 4617, "accurate": 4511, "inaccurate": 106}
    assert metrics["schema_conformance_measure"] == {"total": 4617, "complete": 4459, "incomplete": 158}
    assert metrics["spark_sql_measure"] == {"total": 4617, "complete": 1983, "incomplete": 2634}
    assert metrics["profiling_measure"]["zipcode"]["null_count"] == 158


def test_griffin_tool_docs_mysql_config(mariadb, dq_engine, tmp_path):
    """The jdbc:mysql demo of Griffin's tool docs, unchanged but for its server's address."""
    mariadb.execute(
        "CREATE DATABASE IF NOT EXISTS test;"
        "CREATE OR REPLACE TABLE test.stu (id INT, name VARCHAR(20));"
        "CREATE OR REPLACE TABLE test.stu2 (id INT, name VARCHAR(20));"
        "INSERT INTO test.stu VALUES (1, 'ann'), (2, 'Bob'), (3, 'cy'), (4, 'dee');"
        "INSERT INTO test.stu2 VALUES (1, 'ANN'), (2, 'bobby'), (3, 'cy');"
        "CREATE USER IF NOT EXISTS 'xxx'@'%' IDENTIFIED BY 'xxx';"
        "GRANT SELECT ON test.* TO 'xxx'@'%';"
    )
    text = (CONFIGS / "accuracy-batch-jdbc-mysql.json").read_text(encoding="utf-8")
    job = tmp_path / "job.json"
    job.write_text(text.replace("localhost:3306", f"127.0.0.1:{mariadb.port}"), encoding="utf-8")
    metrics = run(job, dq_engine).metrics
    # where id < 3 on both sides: ann = ANN matches (upper on both sides), Bob does not meet bobby
    same(metrics, {"total_count": 2, "miss_count": 1, "matched_count": 1, "matchedFraction": 0.5})
