"""Hostile names and text, on both engines: quotes, backquotes, ``;``, ``--``, newlines and unicode
in source, column, rule and measure names, string literals and paths, and Spark SQL with a second
statement. Nothing the user gives is pasted into SQL unquoted, so no second statement ever runs,
and every name comes back exactly as written."""

from __future__ import annotations

import json

import polars as pl
import pytest

from gryph.client import run
from gryph.compiler.errors import GryphError, InvalidInput

HOSTILE = ['a"b', "c'd", "e`f", "g;h", "i--j", "k\nl", "m n", "Ünï日本", "o.p", "select", "q) DROP TABLE t; --"]


def quoted_name(name: str) -> str:
    """A DSL name in backquotes (a backquote doubled)."""
    return "`" + name.replace("`", "``") + "`"


def test_hostile_column_and_rule_names_round_trip(dq_engine):
    columns = {name: [1, None, 3] for name in HOSTILE}
    frame = pl.DataFrame(columns)
    rules = "\n".join(
        f"completeness {quoted_name('rule ' + name)} on {quoted_name('src ' + HOSTILE[0])}: {quoted_name(name)}"
        for name in HOSTILE
    )
    result = run(rules, dq_engine, frames={"src " + HOSTILE[0]: frame})
    # every column holds one NULL of three rows
    assert result.metrics == {f"rule {name}": {"total": 3, "incomplete": 1, "complete": 2} for name in HOSTILE}
    for name in HOSTILE:
        assert [row[name] for row in result.records[f"rule {name}"]["sample"]] == [None]


@pytest.mark.parametrize(
    "literal, expected",
    [
        ("'x; DROP TABLE t; --'", 0),
        ("'\\'; DROP TABLE t; --'", 0),
        ('"a\\"b"', 1),
        ("'c\\'d'", 1),
        ("'--'", 1),
        ("'Ünï日本'", 1),
        ("'%'", 0),
        ("'\\\\'", 0),
    ],
)
def test_hostile_string_literals_compare_as_text(dq_engine, literal, expected):
    frame = pl.DataFrame({"v": ['a"b', "c'd", "--", "Ünï日本", "x"]})
    result = run(f"profiling p on t: select count(*) as n from t where v = {literal}", dq_engine, frames={"t": frame})
    assert result.metrics["p"] == [{"n": expected}]


def label(name: str) -> str:
    """A measure or check label in double quotes (backslash escapes)."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_hostile_measure_and_check_names(dq_engine):
    name = "m\"'`;-- 日本\\"
    suite = (
        f"measure {label(name)} on t: select count(*) from t\ncheck {label('ok; DROP')}: measures[{label(name)}] == 2"
    )
    result = run(suite, dq_engine, frames={"t": pl.DataFrame({"a": [1, 2]})})
    assert result.measures == {name: 2}
    assert result.checks[0].name == "ok; DROP" and result.passed


SECOND_STATEMENTS = [
    "select * from this; create table pwned as select 1 as x",
    "select * from this where 1 = 1; drop table src",
    "select 1 as x -- ; create table pwned as select 1",
]


@pytest.mark.parametrize("step", SECOND_STATEMENTS)
def test_griffin_sql_with_a_second_statement_never_runs_it(dq_engine, tmp_path, step):
    (tmp_path / "a.csv").write_text("x\n1\n", encoding="utf-8")
    job = {
        "name": "j",
        "data.sources": [
            {
                "name": "src",
                "connector": {
                    "type": "file",
                    "config": {"format": "csv", "paths": ["a.csv"], "options": {"header": "true"}},
                    "pre.proc": [step],
                },
            }
        ],
        "evaluate.rule": {
            "rules": [
                {
                    "dsl.type": "spark-sql",
                    "out.dataframe.name": "r",
                    "rule": step.replace("this", "src"),
                    "out": [{"type": "metric", "name": "r", "flatten": "array"}],
                }
            ]
        },
    }
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    try:
        result = run(str(tmp_path / "job.json"), dq_engine)
    except GryphError as error:
        assert error.code in ("SQL_UNTRANSLATABLE", "QUERY_FAILED", "BAD_SQL"), str(error)
    else:  # only the commented-out statement form runs: as the one query it is
        assert step.startswith("select 1 as x --") and result.metrics["r"] == [{"x": 1}]
    assert not _table_exists(dq_engine, "pwned")


def _table_exists(engine, name: str) -> bool:
    if engine.name == "spark":
        return engine.spark.catalog.tableExists(name)
    return bool(
        engine._con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall()[0][0]
    )


def test_hostile_paths_are_paths(dq_engine, tmp_path):
    odd = tmp_path / "we'ird; name -- (x).csv"
    odd.write_text("id\n1\n2\n", encoding="utf-8")
    path = str(odd).replace("\\", "\\\\").replace('"', '\\"')
    result = run(f'source s = csv("{path}")\nprofiling p on s: select count(*) as n from s', dq_engine)
    assert result.metrics["p"] == [{"n": 2}]
    missing = str(tmp_path / "x'); COPY (SELECT 1) TO 'pwned.csv'; --.csv")
    with pytest.raises(GryphError):
        run(f'source s = csv("{missing}")\nprofiling p on s: select count(*) as n from s', dq_engine)
    assert not (tmp_path / "pwned.csv").exists()


def test_a_hostile_table_name_is_one_name(duckdb_engine):
    with pytest.raises(GryphError) as caught:
        run('source s = table("t; DROP TABLE x")\nprofiling p on s: select count(*) as n from s', duckdb_engine)
    assert caught.value.code in ("SOURCE_NOT_FOUND", "SOURCE_NO_TABLE")


def test_sql_measure_with_two_statements_is_refused(duckdb_engine):
    with pytest.raises(InvalidInput) as caught:
        run(
            'measure m on t: sql "select count(*) from t; create table pwned as select 1"',
            duckdb_engine,
            frames={"t": pl.DataFrame({"a": [1]})},
        )
    assert caught.value.code == "SQL_UNTRANSLATABLE"
    assert not _table_exists(duckdb_engine, "pwned")
