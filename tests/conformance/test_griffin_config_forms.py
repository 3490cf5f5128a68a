"""Every form of a generation-A Griffin job config that Griffin reads, on both engines: text files
prepared by pre.proc strings, Hive partitions by ``where`` (a comma list is a UNION ALL), the
``this`` idiom, several connectors, ``__tmst``, Griffin's dq.type names, intermediate spark-sql
steps and headerless CSVs. Expected values are worked out from the rows written here.
"""

from __future__ import annotations

import json

import pytest

from gryph.client import run
from gryph.local_backend.engine import DuckDBEngine

STAMP = 1700000000000  # 2023-11-14 22:13:20 UTC


def write_job(tmp_path, sources: list, rules: list, **extra) -> str:
    path = tmp_path / "job.json"
    path.write_text(
        json.dumps(
            {
                "name": "job",
                "process.type": "batch",
                "timestamp": STAMP,
                "data.sources": sources,
                "evaluate.rule": {"rules": rules},
                **extra,
            }
        ),
        encoding="utf-8",
    )
    return str(path)


def dsl(dq_type: str, name: str, rule: str, **extra) -> dict:
    return {"dsl.type": "griffin-dsl", "dq.type": dq_type, "out.dataframe.name": name, "rule": rule, **extra}


def profiled(name: str, query: str) -> dict:
    """A profiling rule whose one row is the metric ``name`` (flatten map)."""
    return dsl("profiling", name, query, out=[{"type": "metric", "name": name, "flatten": "map"}])


def test_text_file_prepared_by_pre_proc_strings(dq_engine, tmp_path):
    # four lines: a CRLF ending, an empty line, unicode, and no final line break
    (tmp_path / "report.txt").write_bytes("a,1\nb,22\r\n\nÉté,333".encode())
    sources = [
        {"name": "lines", "connector": {"type": "file", "config": {"format": "text", "paths": ["report.txt"]}}},
        {
            "name": "parts",
            "connector": {
                "type": "file",
                "config": {"format": "text", "paths": ["report.txt"]},
                "pre.proc": [
                    "select value from this where value <> ''",
                    "select split(value, ',')[0] as word, cast(split(value, ',')[1] as int) as n from this",
                ],
            },
        },
    ]
    rules = [
        profiled("text", "count(*) as n, sum(length(value)) as chars from lines"),
        profiled("parts", "count(*) as rows, sum(n) as total, max(length(word)) as longest from parts"),
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # lines 'a,1' 'b,22' '' 'Été,333': 4 rows, 3 + 4 + 0 + 7 characters (É and é are one each)
    assert result.metrics["text"] == {"n": 4, "chars": 14}
    # the empty line filtered out; n = 1 + 22 + 333; 'Été' is the longest word (3)
    assert result.metrics["parts"] == {"rows": 3, "total": 356, "longest": 3}


@pytest.fixture
def partitioned(dq_engine, tmp_path):
    """An engine whose catalog has table ``default.visits`` (dt, hour, user); the data source reading it
    bears the same name, so its view must not shadow the table."""
    rows = (
        "('20231114', '22', 'ann'), ('20231114', '22', 'bob'), ('20231114', '21', 'cy'), "
        "('20231113', '22', 'dee'), ('20231114', '23', 'eve')"
    )
    if dq_engine.name == "duckdb":
        engine = DuckDBEngine(database=str(tmp_path / "catalog.duckdb"))
        engine._con.execute(f"CREATE TABLE visits AS SELECT * FROM (VALUES {rows}) t(dt, hour, user)")
        yield engine
        engine.close()
        return
    spark = dq_engine.spark
    spark.sql(
        f"CREATE TABLE default.visits USING parquet AS SELECT * FROM VALUES {rows} AS t(dt, hour, user)"
    ).collect()
    yield dq_engine
    spark.sql("DROP TABLE default.visits").collect()


def test_hive_where_partitions_are_a_union_all(partitioned, tmp_path):
    # Griffin's service writes #yyyyMMdd# and #HH#: the job's time (22:13 on 2023-11-14, UTC)
    where = "dt = '#yyyyMMdd#' AND hour = '#HH#', dt = '20231114' AND hour = '23', dt = '20231114' AND hour = '22'"
    sources = [
        {
            "name": "visits",
            "connector": {"type": "hive", "config": {"database": "default", "table.name": "visits", "where": where}},
        }
    ]
    rules = [profiled("p", "count(*) as n, count(distinct user) as users from visits")]
    result = run(write_job(tmp_path, sources, rules), partitioned)
    # partition 20231114/22 twice (ann, bob each twice: UNION ALL keeps both) and 20231114/23 (eve)
    assert result.metrics["p"] == {"n": 5, "users": 3}


def test_pre_proc_rule_objects_rebind_this_and_the_source_name(dq_engine, tmp_path):
    (tmp_path / "people.csv").write_text("name,age\nann,30\nbob,\ncy,17\ndee,45\n", encoding="utf-8")
    connector = {
        "type": "file",
        "dataframe.name": "people",
        "config": {"format": "csv", "paths": ["people.csv"], "options": {"header": "true"}},
        "pre.proc": [
            {"dsl.type": "spark-sql", "out.dataframe.name": "adults", "rule": "select * from people where age >= 18"},
            {
                "dsl.type": "spark-sql",
                "out.dataframe.name": "people",
                "rule": "select name, age * 2 as double_age from adults",
            },
        ],
    }
    sources = [{"name": "people", "connector": connector}]
    rules = [profiled("p", "count(*) as n, sum(double_age) as s from people")]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # adults: ann 30, dee 45 (bob's age is NULL, cy is 17); doubled: 60 + 90
    assert result.metrics["p"] == {"n": 2, "s": 150}


def test_several_connectors_are_a_union_over_common_columns(dq_engine, tmp_path):
    (tmp_path / "a.csv").write_text("id,name,extra\n1,ann,x\n2,bob,y\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("name,id\ncy,3\nann,1\n", encoding="utf-8")
    header = {"header": "true"}
    sources = [
        {
            "name": "users",
            "connectors": [
                {"type": "file", "config": {"format": "csv", "paths": ["a.csv"], "options": header}},
                {"type": "file", "config": {"format": "csv", "paths": ["b.csv"], "options": header}},
            ],
        }
    ]
    rules = [
        dsl("distinct", "d", "id, name", details={"duplication.array": "dup"}),
        dsl(
            "profiling", "cols", "count(*) as n from users", out=[{"type": "metric", "name": "cols", "flatten": "map"}]
        ),
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # rows (1,ann) (2,bob) (3,cy) (1,ann): 4 rows, 3 distinct, (1,ann) once duplicated
    assert result.metrics["total"] == 4 and result.metrics["distinct"] == 3
    assert result.metrics["dup"] == [{"dup": 1, "num": 1}]
    assert result.metrics["cols"] == {"n": 4}


def test_tmst_is_the_jobs_time_on_every_row(dq_engine, tmp_path):
    (tmp_path / "t.csv").write_text("id\n1\n2\n", encoding="utf-8")
    sources = [
        {
            "name": "src",
            "connector": {
                "type": "file",
                "config": {"format": "csv", "paths": ["t.csv"], "options": {"header": "true"}},
            },
        }
    ]
    rules = [
        dsl(
            "profiling",
            "t",
            "__tmst, count(*) as n from src group by __tmst",
            out=[{"type": "metric", "name": "t", "flatten": "array"}],
        )
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    assert result.metrics["t"] == [{"__tmst": STAMP, "n": 2}]


def test_griffin_dq_type_names_and_flatten_list(dq_engine, tmp_path):
    (tmp_path / "ids.csv").write_text("id\n1\n1\n2\n3\n3\n3\n", encoding="utf-8")
    sources = [
        {
            "name": "src",
            "baseline": True,
            "connector": {
                "type": "file",
                "config": {"format": "csv", "paths": ["ids.csv"], "options": {"header": "true"}},
            },
        }
    ]
    rules = [
        dsl("DISTINCT", "d", "id", out=[{"type": "metric", "name": "d", "flatten": "map"}]),
        dsl("Duplicate", "u", "id", out=[{"type": "metric", "name": "u", "flatten": "map"}]),
        dsl(
            "profiling",
            "p",
            "id, count(*) as n from src group by id order by id",
            out=[{"type": "metric", "name": "p", "flatten": "list"}],
        ),
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # ids 1 1 2 3 3 3: three distinct values; only 2 occurs once. Griffin writes distinctness and
    # uniqueness metrics as entries of the job's map whatever their out entry says
    assert result.metrics == {
        "total": 6,
        "distinct": 3,
        "unique": 1,
        "p": [{"id": 1, "n": 2}, {"id": 2, "n": 1}, {"id": 3, "n": 3}],
    }


def test_intermediate_spark_sql_steps_write_no_metric(dq_engine, tmp_path):
    (tmp_path / "ids.csv").write_text("id,city\n1,Oslo\n2,Oslo\n3,Bergen\n", encoding="utf-8")
    sources = [
        {
            "name": "src",
            "connector": {
                "type": "file",
                "config": {"format": "csv", "paths": ["ids.csv"], "options": {"header": "true"}},
            },
        }
    ]
    rules = [
        {
            "dsl.type": "spark-sql",
            "out.dataframe.name": "per_city",
            "rule": "select city, count(*) as n from src group by city",
        },
        {
            "dsl.type": "spark-sql",
            "out.dataframe.name": "cities",
            "rule": "select count(*) as cities, max(n) as biggest from per_city",
            "out": [{"type": "metric", "name": "cities", "flatten": "map"}],
        },
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    assert result.metrics == {"cities": {"cities": 2, "biggest": 2}}


def test_csv_with_a_schema_and_no_header_keeps_its_first_row(dq_engine, tmp_path):
    # Spark's (and Griffin's) default: without options.header, the first line is data
    (tmp_path / "people.csv").write_text("ann,30\nbob,41\n", encoding="utf-8")
    schema = [{"name": "Name", "type": "STRING"}, {"name": "age", "type": "int"}]
    sources = [
        {
            "name": "src",
            "connector": {"type": "file", "config": {"format": "csv", "paths": ["people.csv"], "schema": schema}},
        }
    ]
    rules = [profiled("p", "count(*) as n, sum(age) as ages, max(name) as last from src")]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    assert result.metrics["p"] == {"n": 2, "ages": 71, "last": "bob"}


def src_and_tgt(src_csv: str, tgt_csv: str) -> list:
    """Two CSV sources with headers: ``src``, the baseline, and ``tgt``."""
    header = {"header": "true"}
    return [
        {
            "name": name,
            **({"baseline": True} if name == "src" else {}),
            "connector": {"type": "file", "config": {"format": "csv", "paths": [path], "options": header}},
        }
        for name, path in (("src", src_csv), ("tgt", tgt_csv))
    ]


def test_spark_sql_reads_the_table_of_a_dsl_rule(dq_engine, tmp_path):
    (tmp_path / "a.csv").write_text("id,name\n1,ann\n2,bob\n3,cy\n4,\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,name\n1,ann\n2,bo\n3,cy\n", encoding="utf-8")
    sources = src_and_tgt("a.csv", "b.csv")
    rules = [
        dsl("accuracy", "accu", "src.id = tgt.id and src.name = tgt.name"),
        dsl("profiling", "names", "name, count(*) as n from src group by name"),
        {
            "dsl.type": "spark-sql",
            "out.dataframe.name": "rate",
            "rule": "select miss / total as miss_rate, __tmst as t from accu",
            "out": [{"type": "metric", "name": "rate", "flatten": "map"}],
        },
        {
            "dsl.type": "spark-sql",
            "out.dataframe.name": "named",
            "rule": "select count(*) as groups from names where name is not null",
            "out": [{"type": "metric", "name": "named", "flatten": "map"}],
        },
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # (2,bob) has no match, (4,NULL) neither (its name is NULL but its id is not): 2 of 4 miss
    assert (result.metrics["miss"], result.metrics["total"]) == (2, 4)
    assert result.metrics["rate"] == {"miss_rate": 0.5, "t": STAMP}
    # names ann, bob, cy and NULL: three groups with a name
    assert result.metrics["named"] == {"groups": 3}


def test_spark_sql_reading_a_dsl_rule_that_failed_fails_alone(dq_engine, tmp_path):
    # 10,001 distinct names: the grouped profiling rule is over its 10,000-row limit
    (tmp_path / "a.csv").write_text("id,name\n" + "".join(f"{i},n{i}\n" for i in range(10_001)), encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,name\n1,n1\n2,x\n", encoding="utf-8")
    sources = src_and_tgt("a.csv", "b.csv")

    def spark_sql(name: str, query: str) -> dict:
        return {
            "dsl.type": "spark-sql",
            "out.dataframe.name": name,
            "rule": query,
            "out": [{"type": "metric", "name": name, "flatten": "map"}],
        }

    rules = [
        dsl("accuracy", "accu", "src.id = tgt.id and src.name = tgt.name"),
        dsl("profiling", "names", "name, count(*) as n from src group by name"),
        spark_sql("named", "select count(*) as groups from names"),
        spark_sql("twice", "select groups * 2 as doubled from named"),
        spark_sql("rate", "select miss / total as miss_rate from accu"),
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    assert result.failed["names"]["code"] == "TOO_MANY_ROWS"
    # the rule reading it, and the rule reading that one, fail naming the rule they depend on
    for reader in ("named", "twice"):
        error = result.failed[reader]
        assert error["code"] == "INPUT_RULE_FAILED" and "'names'" in error["message"], error
    # the run went on: of src's 10,001 rows only (1, n1) is in tgt, and the Spark SQL rule reading it
    assert (result.metrics["miss"], result.metrics["total"]) == (10_000, 10_001)
    assert result.metrics["rate"] == {"miss_rate": 10_000 / 10_001}
    assert result.passed is False


JSON_LINES = (
    "\n".join(
        [
            '{"name": "ann", "age": 30, "tags": ["a"], "score": 1}',
            '{"name": "bob", "age": null, "score": 2.5, "extra": {"k": 1}}',
            '{"name": "cy", "age": "x"}',
            "not json",
            '{"name": "Été"}',
        ]
    )
    + "\n"
)


def test_from_json_in_pre_proc_and_in_the_rule_list(dq_engine, tmp_path):
    (tmp_path / "events.txt").write_text(JSON_LINES, encoding="utf-8")
    text = {"format": "text", "paths": ["events.txt"]}
    sources = [
        {
            "name": "events",
            "connector": {
                "type": "file",
                "config": text,
                "pre.proc": [
                    {
                        "dsl.type": "df-ops",
                        "in.dataframe.name": "this",
                        "out.dataframe.name": "s1",
                        "rule": "from_json",
                    },
                    {"dsl.type": "spark-sql", "out.dataframe.name": "this", "rule": "select name, age, score from s1"},
                ],
            },
        },
        {"name": "raw", "connector": {"type": "file", "config": text}},
    ]
    rules = [
        profiled(
            "p",
            "count(*) as n, count(name) as named, sum(score) as score, count(age) as aged, "
            "max(name) as last from events",
        ),
        {"dsl.type": "df-opr", "name": "ext", "rule": "from_json", "details": {"df.name": "raw"}},
        dsl(
            "completeness",
            "c",
            "tags, extra",
            details={"source": "ext"},
            out=[{"type": "metric", "name": "c", "flatten": "map"}],
        ),
    ]
    result = run(write_job(tmp_path, sources, rules), dq_engine)
    # five lines (the one that is not JSON gives NULL fields); age holds 30 and "x": text, two set;
    # scores 1 + 2.5; 'Été' sorts after 'cy' (UTF-8 order)
    assert result.metrics["p"] == {"n": 5, "named": 4, "score": 3.5, "aged": 2, "last": "Été"}
    # tags only in ann's line, extra only in bob's: no line has both
    assert result.metrics["c"] == {"total": 5, "incomplete": 5, "complete": 0}
