"""Griffin generation-B measures on both engines: Griffin's own test data and documented numbers,
and small tables with NULLs, NaN, duplicates, unicode, odd column names and no rows.

Expected values are derived by hand in the comments, or quoted from Griffin (its Scala tests
over MeasureTest.scala's rows, and its measure-configuration-guide on crime_report.csv).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from gryph.client import run
from tests.support.comparison import same

GRIFFIN_DATA = Path(__file__).resolve().parents[1] / "data" / "griffin"

# MeasureTest.scala: source(id, name, gender) and reference(gender)
GRIFFIN_SOURCE = pl.DataFrame(
    {
        "id": [1, 2, 3, 4, 5],
        "name": ["John Smith", "John Smith", "Rebecca Davis", "Paul Adams", None],
        "gender": ["Male", None, "Female", "Male", None],
    },
    schema={"id": pl.Int32, "name": pl.Utf8, "gender": pl.Utf8},
)
GRIFFIN_REFERENCE = pl.DataFrame({"gender": ["Male"]})

# rows: 1 ('a','é',1.0,1) 2 ('a','é',NaN,2) 3 ('b',NULL,NULL,3) 4 (NULL,NULL,2.0,NULL)
#       5 ('ü','日本',3.0,4) 6 ('','x',4.0,5) 7 = row 5 again
EDGE = pl.DataFrame(
    {
        "key": ["a", "a", "b", None, "ü", "", "ü"],
        "odd name.x": ["é", "é", None, None, "日本", "x", "日本"],
        "v": [1.0, math.nan, None, 2.0, 3.0, 4.0, 3.0],
        "n": [1, 2, 3, None, 4, 5, 4],
    }
)
EDGE_REF = pl.DataFrame({"k": ["a", "a", "ü", None]})
TEXTS = pl.DataFrame({"s": ["1", " 2 ", "1.5", "abc", None, "300", "2024-02-30"]})


def _source(name: str, path: Path, fmt: str = "parquet", **extra) -> dict:
    config = {"format": fmt, "paths": [path.name], **extra}
    return {"name": name, "connector": {"type": "file", "config": config}}


def _measure(name: str, kind: str, source: str, config: dict, outs=("metric",)) -> dict:
    return {
        "name": name,
        "type": kind,
        "data.source": source,
        "config": config,
        "out": [{"type": out, "name": f"{name}_{out}"} for out in outs],
    }


def _job(tmp_path: Path, tables: dict[str, pl.DataFrame], measures: list[dict]) -> Path:
    sources = []
    for name, frame in tables.items():
        path = tmp_path / f"{name}.parquet"
        frame.write_parquet(path)
        sources.append(_source(name, path))
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(
            {"name": "measures", "process.type": "batch", "data.sources": sources, "measures": measures},
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    return job


def _rows_of(result, measure: str) -> list[dict]:
    return result.records[measure]["sample"]


# --- Griffin's Scala tests ------------------------------------------------------------------------

GRIFFIN_CASES = {
    # CompletenessMeasureTest
    "completeness": (
        _measure("c", "completeness", "source", {"expr": "name is not null"}),
        {"total": 5, "complete": 4, "incomplete": 1},
    ),
    "completeness_complex": (
        _measure("c", "Completeness", "source", {"expr": "name is not null and gender is not null"}),
        {"total": 5, "complete": 3, "incomplete": 2},
    ),
    # DuplicationMeasureTest: all columns (every row differs), then by name (NULL name: no flag)
    "duplication_all_columns": (
        _measure("c", "duplication", "source", {"bad.record.definition": "duplicate"}),
        {"duplicate": 0, "unique": 5, "non_unique": 0, "distinct": 5, "total": 5},
    ),
    "duplication_name": (
        _measure("c", "Duplication", "source", {"expr": "name", "bad.record.definition": "duplicate"}),
        {"duplicate": 1, "unique": 2, "non_unique": 1, "distinct": 3, "total": 5},
    ),
    # AccuracyMeasureTest: two 'Male' rows match; 'Female' and the two NULLs do not
    "accuracy": (
        _measure(
            "c",
            "accuracy",
            "source",
            {"ref.source": "reference", "expr": [{"source.col": "gender", "ref.col": "gender"}]},
        ),
        {"total": 5, "accurate": 2, "inaccurate": 3},
    ),
    # SparkSqlMeasureTest
    "sparksql": (
        _measure(
            "c",
            "SparkSql",
            "source",
            {"expr": "select * from source", "bad.record.definition": "name is null or gender is null"},
        ),
        {"total": 5, "complete": 3, "incomplete": 2},
    ),
    # SchemaConformanceMeasureTest
    "schema_conformance": (
        _measure("c", "SchemaConformance", "source", {"expr": [{"source.col": "id", "type": "int"}]}),
        {"total": 5, "complete": 5, "incomplete": 0},
    ),
}


@pytest.mark.parametrize("name", sorted(GRIFFIN_CASES))
def test_griffin_scala_tests(name, dq_engine, tmp_path):
    measure, expected = GRIFFIN_CASES[name]
    job = _job(tmp_path, {"source": GRIFFIN_SOURCE, "reference": GRIFFIN_REFERENCE}, [measure])
    result = run(job, dq_engine)
    same(result.metrics, {"c": expected})


def test_griffin_scala_tests_odd_names_and_dates(dq_engine, tmp_path):
    # "support columns with space in their names" (duplication) and the date / timestamp checks
    # of SchemaConformanceMeasureTest over a constant '2009-07-30' column
    source = GRIFFIN_SOURCE.rename({"name": "full name"}).with_columns(
        pl.lit("2009-07-30").alias("Test_date"), pl.lit("2009-07-30").alias("Test date")
    )
    measures = [
        _measure("dup", "duplication", "source", {"expr": "full name", "bad.record.definition": "duplicate"}),
        _measure("date", "schemaConformance", "source", {"expr": [{"source.col": "Test_date", "type": "date"}]}),
        _measure("ts", "schemaConformance", "source", {"expr": [{"source.col": "Test date", "type": "timestamp"}]}),
    ]
    result = run(_job(tmp_path, {"source": source}, measures), dq_engine)
    same(
        result.metrics,
        {
            "dup": {"duplicate": 1, "unique": 2, "non_unique": 1, "distinct": 3, "total": 5},
            "date": {"total": 5, "complete": 5, "incomplete": 0},
            "ts": {"total": 5, "complete": 5, "incomplete": 0},
        },
    )


def test_griffin_scala_profiling_columns(dq_engine, tmp_path):
    # ProfilingMeasureTest: every column without expr, the named ones with it
    measures = [
        _measure("all", "profiling", "source", {}),
        _measure("some", "profiling", "source", {"expr": "name, gender", "approx.distinct.count": False}),
    ]
    result = run(_job(tmp_path, {"source": GRIFFIN_SOURCE}, measures), dq_engine)
    assert list(result.metrics["all"]) == ["id", "name", "gender"]
    assert list(result.metrics["some"]) == ["name", "gender"]
    assert "distinct_count" in result.metrics["some"]["name"]
    assert "approx_distinct_count" in result.metrics["all"]["name"]


# --- Griffin's measure-configuration-guide on crime_report.csv -------------------------------------


def test_griffin_documented_crime_report(dq_engine, tmp_path):
    (tmp_path / "crime_report.csv").write_bytes((GRIFFIN_DATA / "main_crime_report.csv").read_bytes())
    (tmp_path / "crime_report_truth.csv").write_bytes((GRIFFIN_DATA / "main_crime_report_truth.csv").read_bytes())
    crime = _source("crime_report_source", tmp_path / "crime_report.csv", "text")
    crime["baseline"] = True
    # config-batch-all-measures.json's pre.proc, with try_cast: Griffin's Spark (2/3, not ANSI) read
    # '' as a NULL int, where Spark 4's cast fails the query
    crime["connector"]["pre.proc"] = [
        "select split(value, ',') as part from this",
        "select part[0] as date_time, part[1] as incident, part[2] as address, part[3] as city, "
        "part[4] as zipcode_str from this",
        "select cast(date_time as timestamp) as date_time, incident, address, city, zipcode_str, "
        "try_cast(zipcode_str as int) as zipcode from this",
    ]
    truth = _source("crime_report_truth", tmp_path / "crime_report_truth.csv", "csv", options={"header": "true"})
    src = "crime_report_source"
    measures = [
        _measure("completeness_measure", "completeness", src, {"expr": "zipcode is not null and city is not null"}),
        _measure("duplication_measure", "duplication", src, {"expr": "incident", "bad.record.definition": "duplicate"}),
        _measure(
            "accuracy_measure",
            "accuracy",
            src,
            {"ref.source": "crime_report_truth", "expr": [{"source.col": "city", "ref.col": "city_name"}]},
        ),
        _measure(
            "schema_conformance_measure",
            "schemaConformance",
            src,
            {"expr": [{"source.col": "zipcode_str", "type": "int"}]},
        ),
        _measure(
            "spark_sql_measure",
            "sparkSQL",
            src,
            {
                "expr": "SELECT t.*, sq.zip IS NULL AS __measure_spark_sql_measure FROM crime_report_source AS t "
                "LEFT OUTER JOIN (SELECT zipcode as zip, COUNT(DISTINCT city) AS city_count FROM "
                "crime_report_source GROUP BY zipcode having city_count = 1) as sq ON sq.zip=t.zipcode",
                "bad.record.definition": "__measure_spark_sql_measure",
            },
        ),
        _measure(
            "profiling_measure",
            "profiling",
            src,
            {"expr": "city,zipcode", "approx.distinct.count": True, "round.scale": 2, "dataset.sample": 1.0},
        ),
    ]
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "crime", "data.sources": [crime, truth], "measures": measures}))
    metrics = run(job, dq_engine).metrics
    same(
        {k: v for k, v in metrics.items() if k != "profiling_measure"},
        {
            "completeness_measure": {"total": 4617, "complete": 4459, "incomplete": 158},
            "duplication_measure": {"total": 4617, "duplicate": 4363, "unique": 58, "non_unique": 196, "distinct": 254},
            "accuracy_measure": {"total": 4617, "accurate": 4511, "inaccurate": 106},
            "schema_conformance_measure": {"total": 4617, "complete": 4459, "incomplete": 158},
            "spark_sql_measure": {"total": 4617, "complete": 1983, "incomplete": 2634},
        },
    )
    zipcode = metrics["profiling_measure"]["zipcode"]
    # the guide's zipcode column (its data_type 'int' is 'bigint' here: integers are 64-bit)
    same(
        {
            k: zipcode[k]
            for k in (
                "avg_col_len",
                "max_col_len",
                "min_col_len",
                "variance",
                "kurtosis",
                "avg",
                "min",
                "max",
                "null_count",
                "approx_distinct_count",
                "total",
                "std_dev",
            )
        },
        {
            "avg_col_len": 5.0,
            "max_col_len": 5,
            "min_col_len": 5,
            "variance": 4.57,
            "kurtosis": -1.57,
            "avg": 94303.11,
            "min": 94301,
            "max": 94306,
            "null_count": 158,
            "approx_distinct_count": 4,
            "total": 4617,
            "std_dev": 2.14,
        },
    )
    city = metrics["profiling_measure"]["city"]
    same(
        {
            k: city[k]
            for k in ("max_col_len", "min_col_len", "null_count", "approx_distinct_count", "total", "data_type")
        },
        {
            "max_col_len": 25,
            "min_col_len": 2,
            "null_count": 0,
            "approx_distinct_count": 6,
            "total": 4617,
            "data_type": "string",
        },
    )


# --- small tables derived by hand -------------------------------------------------------------------

EDGE_MEASURES = [
    # good: `odd name.x` present and v > 0 (NaN > 0 is true: NaN sorts above every number);
    # rows 3 and 4 have no `odd name.x` -> 5 complete of 7
    _measure("comp", "completeness", "t", {"expr": "`odd name.x` is not null and v > 0"}, ("metric", "record")),
    # by key: 'a' x2, 'ü' x2, 'b', '' alone, NULL (no flag) -> unique 2, non_unique 2, duplicate 2, distinct 4
    _measure(
        "dup_key", "duplication", "t", {"expr": "key", "bad.record.definition": "non_unique"}, ("metric", "record")
    ),
    # every column: rows 5 and 7 are equal, the rest differ -> unique 5, non_unique 1, duplicate 1
    _measure("dup_all", "duplication", "t", {"bad.record.definition": "duplicate"}),
    # key against ref.k ('a','a','ü',NULL): 'b' and NULL miss; '' misses too but is blank, which
    # Griffin's coalesce(x, '') comparison counts as accurate -> inaccurate 2 of 7
    _measure(
        "acc",
        "accuracy",
        "t",
        {"ref.source": "ref", "expr": [{"source.col": "key", "ref.col": "k"}]},
        ("metric", "record"),
    ),
    # groups by key: a 2, b 1, NULL 1, ü 2, '' 1 -> 2 bad of 5
    _measure(
        "sql",
        "sparkSQL",
        "t",
        {"expr": "select key, count(*) as c from t group by key", "bad.record.definition": "c > 1"},
    ),
    _measure("prof", "profiling", "t", {"round.scale": 2, "approx.distinct.count": False}),
]

EDGE_EXPECTED = {
    "comp": {"total": 7, "complete": 5, "incomplete": 2},
    "dup_key": {"total": 7, "duplicate": 2, "unique": 2, "non_unique": 2, "distinct": 4},
    "dup_all": {"total": 7, "duplicate": 1, "unique": 5, "non_unique": 1, "distinct": 6},
    "acc": {"total": 7, "accurate": 5, "inaccurate": 2},
    "sql": {"total": 5, "complete": 3, "incomplete": 2},
    "prof": {
        # key: lengths 1,1,1,-,1,0,1 -> 0..1, avg 5/6; distinct a, b, ü, ''
        "key": {
            "data_type": "string",
            "total": 7,
            "min_col_len": 0,
            "max_col_len": 1,
            "avg_col_len": 5 / 6,
            "min": 0,
            "max": 0,
            "avg": 0,
            "std_dev": 0,
            "variance": 0,
            "kurtosis": 0,
            "distinct_count": 4,
            "null_count": 1,
        },
        # lengths 1,1,-,-,2,1,2 -> avg 7/5; distinct é, 日本, x
        "odd name.x": {
            "data_type": "string",
            "total": 7,
            "min_col_len": 1,
            "max_col_len": 2,
            "avg_col_len": 1.4,
            "min": 0,
            "max": 0,
            "avg": 0,
            "std_dev": 0,
            "variance": 0,
            "kurtosis": 0,
            "distinct_count": 3,
            "null_count": 2,
        },
        # text '1.0', 'NaN', ... all 3 long; NaN makes avg, spread and max NaN; min skips it
        "v": {
            "data_type": "double",
            "total": 7,
            "min_col_len": 3,
            "max_col_len": 3,
            "avg_col_len": 3.0,
            "min": 1.0,
            "max": math.nan,
            "avg": math.nan,
            "std_dev": math.nan,
            "variance": math.nan,
            "kurtosis": math.nan,
            "distinct_count": 5,
            "null_count": 1,
        },
        # 1,2,3,4,5,4: mean 19/6; deviations (-13,-7,-1,5,11,5)/6: m2 = 390/36, m4 = 46854/1296;
        # variance 390/36/5 = 2.1667, std_dev 1.4720, kurtosis 6*46854/152100 - 3 = -1.1517
        "n": {
            "data_type": "bigint",
            "total": 7,
            "min_col_len": 1,
            "max_col_len": 1,
            "avg_col_len": 1.0,
            "min": 1,
            "max": 5,
            "avg": 3.17,
            "std_dev": 1.47,
            "variance": 2.17,
            "kurtosis": -1.15,
            "distinct_count": 5,
            "null_count": 1,
        },
    },
}


def test_edge_table(dq_engine, tmp_path):
    result = run(_job(tmp_path, {"t": EDGE, "ref": EDGE_REF}, EDGE_MEASURES), dq_engine)
    same(result.metrics, EDGE_EXPECTED)
    # incomplete: rows 3 and 4; the first 'a' and 'ü' rows (least v) are non_unique; 'b' and NULL miss
    same(sorted(str(r["n"]) for r in _rows_of(result, "comp")), ["3", "None"])
    assert [r["__status"] for r in _rows_of(result, "comp")] == ["bad", "bad"]
    assert sorted((r["key"], r["n"]) for r in _rows_of(result, "dup_key")) == [("a", 1), ("ü", 4)]
    same(sorted(str(r["key"]) for r in _rows_of(result, "acc")), ["None", "b"])


def test_empty_table(dq_engine, tmp_path):
    empty = EDGE.clear()
    measures = [m for m in EDGE_MEASURES if m["name"] != "sql"] + [
        _measure("sql", "sparkSQL", "t", {"expr": "select * from t", "bad.record.definition": "v > 1"}),
        _measure("types", "schemaConformance", "t", {"expr": [{"source.col": "n", "type": "int"}]}),
    ]
    result = run(_job(tmp_path, {"t": empty, "ref": EDGE_REF}, measures), dq_engine)
    zero_rows = {"total": 0, "complete": 0, "incomplete": 0}
    zero_profile = {
        "total": 0,
        "min_col_len": 0,
        "max_col_len": 0,
        "avg_col_len": 0,
        "min": 0,
        "max": 0,
        "avg": 0,
        "std_dev": 0,
        "variance": 0,
        "kurtosis": 0,
        "distinct_count": 0,
        "null_count": 0,
    }
    same(
        result.metrics,
        {
            "comp": zero_rows,
            "sql": zero_rows,
            "types": zero_rows,
            "dup_key": {"total": 0, "duplicate": 0, "unique": 0, "non_unique": 0, "distinct": 0},
            "dup_all": {"total": 0, "duplicate": 0, "unique": 0, "non_unique": 0, "distinct": 0},
            "acc": {"total": 0, "accurate": 0, "inaccurate": 0},
            "prof": {
                name: {"data_type": kind, **zero_profile}
                for name, kind in (("key", "string"), ("odd name.x", "string"), ("v", "double"), ("n", "bigint"))
            },
        },
    )
    assert result.records["comp"]["count"] == 0


def test_schema_conformance_text(dq_engine, tmp_path):
    # s: '1', ' 2 ', '1.5', 'abc', NULL, '300', '2024-02-30'
    # int: '1' and ' 2 ' (trimmed) and '300' read; 4 bad. tinyint: '300' is out of range too: 5 bad.
    # double: '1', ' 2 ', '1.5', '300' read; 'abc', NULL, '2024-02-30' do not: 3 bad.
    # date: only '2024-02-30' has the shape of a date and it is not one: all 7 bad.
    def check(kind):
        return {"expr": [{"source.col": "s", "type": kind}]}

    measures = [
        _measure(kind, "schemaConformance", "texts", check(kind), ("metric", "record"))
        for kind in ("int", "tinyint", "double", "date")
    ]
    result = run(_job(tmp_path, {"texts": TEXTS}, measures), dq_engine)
    same(
        result.metrics,
        {
            "int": {"total": 7, "complete": 3, "incomplete": 4},
            "tinyint": {"total": 7, "complete": 2, "incomplete": 5},
            "double": {"total": 7, "complete": 4, "incomplete": 3},
            "date": {"total": 7, "complete": 0, "incomplete": 7},
        },
    )
    same(sorted(r["s"] for r in _rows_of(result, "double") if r["s"] is not None), ["2024-02-30", "abc"])


def test_example_config(dq_engine):
    # examples/data/users.csv (see test_griffin_fixtures): user_id 10050 twice, 49 distinct;
    # post_code NULL once (so its text does not read as an int either), every email present
    example = Path(__file__).resolve().parents[2] / "examples" / "griffin" / "measures.json"
    metrics = run(example, dq_engine).metrics
    same(
        {key: metrics[key] for key in ("completeness_measure", "duplication_measure", "schema_conformance_measure")},
        {
            "completeness_measure": {"total": 50, "complete": 49, "incomplete": 1},
            "duplication_measure": {"total": 50, "duplicate": 1, "unique": 48, "non_unique": 1, "distinct": 49},
            "schema_conformance_measure": {"total": 50, "complete": 49, "incomplete": 1},
        },
    )
    assert set(metrics) == {
        "completeness_measure",
        "duplication_measure",
        "profiling_measure",
        "accuracy_measure",
        "spark_sql_measure",
        "schema_conformance_measure",
    }
