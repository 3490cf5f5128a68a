"""Users' SQL reads the suite's declared sources only: refused at validation (exit 2, located)
when it names a file, a table function, a catalog table or a reflective function; and on DuckDB
the engine's connection refuses a file read even from SQL that never went through validation."""

from __future__ import annotations

import json

import pytest

from gryph.client import run
from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.plan import Plan, Query, Sql
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine
from tests.support.gryph_cli import gryph


@pytest.fixture
def users(tmp_path):
    path = tmp_path / "users.csv"
    path.write_text("id,name\n1,ann\n2,bob\n3,cy\n", encoding="utf-8")
    return path


def _suite(tmp_path, text: str):
    path = tmp_path / "suite.dq"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_measure_reading_a_file_is_refused_at_validation(tmp_path, users):
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2", encoding="utf-8")
    suite = _suite(
        tmp_path,
        f'source t = csv("users.csv")\nmeasure "leak": sql "select length(content) from read_text(\'{secret}\')"\n',
    )
    for command in ("validate", "run"):
        done = gryph(command, str(suite), "--no-history") if command == "run" else gryph(command, str(suite))
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"{suite}:2:1: error SQL_NOT_ALLOWED" in done.stderr
        assert "read_text" in done.stderr.lower() and "7" not in done.stdout  # no length of the secret


@pytest.mark.parametrize(
    "sql, named",
    [
        ("select count(*) from read_parquet('/etc/x.parquet')", "table function"),
        ("select count(*) from parquet.`/etc/x.parquet`", "parquet.`/etc/x.parquet`"),
        ("select count(*) from `/etc/hostname`", "'/etc/hostname'"),
        ("select count(*) from other_db.t", "other_db.t"),
        ("select count(*) from undeclared", "'undeclared'"),
        ("select max(reflect('java.lang.System', 'getenv', 'HOME')) from t", "reflect()"),
        ("select max(java_method('java.lang.System', 'getenv', 'HOME')) from t", "java_method()"),
        ("select (select count(*) from read_files('/etc')) from t", "table function"),
        ("select count(*) from t join (select * from read_csv('/etc/passwd')) p on true", "table function"),
    ],
)
def test_sql_reaching_outside_the_sources_is_refused(tmp_path, users, sql, named):
    suite = _suite(tmp_path, f'source t = csv("users.csv")\nmeasure "m": sql "{sql}"\n')
    with pytest.raises(InvalidInput) as caught:
        run(str(suite), "duckdb")
    assert caught.value.code == "SQL_NOT_ALLOWED"
    assert (caught.value.location.line, caught.value.location.column) == (2, 1)
    assert named in caught.value.message


def test_sql_that_does_not_parse_is_located_at_its_step(tmp_path, users):
    """Refused at validation before any engine reads it: the error names the measure's line."""
    suite = _suite(tmp_path, 'source t = csv("users.csv")\nmeasure "m": sql "drop table t"\n')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and f"{suite}:2:1: error SQL_UNTRANSLATABLE" in done.stderr, done.stderr


def test_sql_reading_sources_views_and_its_own_ctes_runs(tmp_path, users):
    suite = _suite(
        tmp_path,
        'source t = csv("users.csv")\n'
        'measure "m": sql "with a as (select id from T where id > 1) select count(*) as n from a"\n',
    )
    assert run(str(suite), "duckdb").measures["m"] == 2  # ids 2 and 3


def test_a_griffin_pre_proc_step_reading_a_file_is_refused(tmp_path, users):
    job = {
        "name": "j",
        "process.type": "batch",
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "paths": [str(users)], "options": {"header": "true"}},
                    "pre.proc": [{"dsl.type": "spark-sql", "rule": "select * from csv.`/etc/passwd`"}],
                },
            }
        ],
        "evaluate.rule": {
            "rules": [{"dsl.type": "spark-sql", "out.dataframe.name": "n", "rule": "select count(*) as n from src"}]
        },
    }
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job), encoding="utf-8")
    with pytest.raises(InvalidInput) as caught:
        run(str(path), "duckdb")
    assert caught.value.code == "SQL_NOT_ALLOWED" and "csv.`/etc/passwd`" in caught.value.message


def test_duckdb_refuses_a_file_read_that_never_went_through_validation(tmp_path, users):
    secret = tmp_path / "secret.csv"  # a CSV: DuckDB reads a quoted .csv path as a table
    secret.write_text("password\nhunter2\n", encoding="utf-8")
    sources = {"t": SourceSpec("t", "csv", paths=(str(users),))}
    engine = DuckDBEngine()
    try:
        plain = Plan((), (Query("n", Sql("select count(*) as n from t", ("t",), dialect="duckdb")),))
        assert engine.run(plain, sources) == {"n": [{"n": 3}]}  # the declared source: 3 rows
        for leak in (f"select length(content) as n from read_text('{secret}')", f"select * from '{secret}'"):
            plan = Plan((), (Query("leak", Sql(leak, ("t",), dialect="duckdb")),))
            with pytest.raises(EngineError) as caught:
                engine.run(plan, sources)
            assert "Permission Error" in caught.value.message and "hunter2" not in caught.value.message
    finally:
        engine.close()


def test_sql_over_files_in_several_folders_globs_and_formats_still_runs(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from fastavro import parse_schema, writer

    for folder in ("a", "b", "c", "d"):
        (tmp_path / folder).mkdir()
    (tmp_path / "a" / "x1.csv").write_text("id\n1\n2\n", encoding="utf-8")
    (tmp_path / "a" / "x2.csv").write_text('id\n3\n""\n', encoding="utf-8")  # one empty id
    pq.write_table(pa.table({"id": [10, 20]}), tmp_path / "b" / "p.parquet")
    (tmp_path / "c" / "j.json").write_text('{"id": 100}\n{"id": 200}\n', encoding="utf-8")
    schema = parse_schema({"type": "record", "name": "r", "fields": [{"name": "id", "type": "long"}]})
    with open(tmp_path / "d" / "v.avro", "wb") as out:
        writer(out, schema, [{"id": 1000}])
    suite = _suite(
        tmp_path,
        'source x = csv("a/*.csv")\nsource p = parquet("b/p.parquet")\n'
        'source j = json("c/j.json")\nsource v = avro("d/v.avro")\n'
        "completeness ids on x: id\n"
        'measure "total": sql "select (select sum(id) from x) + (select sum(id) from p) + '
        '(select sum(id) from j) + (select sum(id) from v) as total"\n',
    )
    done = gryph("run", str(suite), "--no-history", "--format", "json", "--records-to", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["measure"]["total"] == 1 + 2 + 3 + 10 + 20 + 100 + 200 + 1000
    assert (tmp_path / "out" / "ids__incompleteRecords.parquet").is_file()  # the empty id, written
