"""Users' Spark SQL translated to DuckDB, and what cannot be."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import Sql
from gryph.local_backend.spark_emulation.spark_sql import spark_to_duckdb


def test_sqlglot_loads_only_when_a_suite_holds_spark_sql(tmp_path):
    # loading it is a quarter of a second of every validate and run otherwise
    (tmp_path / "t.csv").write_text("a\n1\n")
    suite = tmp_path / "s.dq"
    suite.write_text(f'source t = csv("{tmp_path / "t.csv"}")\ncompleteness c on t: a\n')
    code = (
        f"import sys; from gryph.client import validate; validate({str(suite)!r}); assert 'sqlglot' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_backquoted_names_become_double_quoted():
    assert spark_to_duckdb("SELECT `a b`, `x``y` FROM `db`.`t`") == 'SELECT "a b", "x`y" FROM "db"."t"'


def test_hints_are_dropped():
    assert "BROADCAST" not in spark_to_duckdb("SELECT /*+ BROADCAST(t) */ a FROM t")


@pytest.mark.parametrize(
    "text, why",
    [
        ("SELEC a FROM t", "Invalid expression"),
        ("SELECT 1; SELECT 2", "2 statements"),
        ("INSERT INTO x SELECT 1", "INSERT"),
        ("SELECT a, count(1) FROM t GROUP BY a GROUPING SETS ((a))", "GROUPING SETS"),
    ],
)
def test_untranslatable_sql(text, why):
    with pytest.raises(InvalidInput) as err:
        spark_to_duckdb(text)
    assert err.value.code == "SQL_UNTRANSLATABLE"
    assert why in err.value.message and err.value.text == text


def test_a_parse_error_names_its_place_without_terminal_codes():
    """sqlglot underlines the offending token with ANSI codes: the message says where instead."""
    text = "SELECT a FROM t\nWHERE a IN ("
    with pytest.raises(InvalidInput) as err:
        spark_to_duckdb(text)
    assert "\x1b" not in err.value.message
    assert "at line 2, column 12, near '('" in err.value.message


def test_a_trailing_semicolon_is_fine():
    assert spark_to_duckdb("SELECT 1 AS one;") == "SELECT 1 AS one"


def test_spark_functions_run_on_duckdb(bench):
    bench.table("events", {"ms": [1515385800000, None], "s": ["abc", "x"]})
    text = (
        "SELECT from_unixtime(ms / 1000, 'yyyy-MM-dd') AS day, nvl(ms, 0) AS ms0, "
        "size(split(s, 'b')) AS parts FROM events"
    )
    assert bench.rows(Sql(text, ("events",))) == [
        {"day": "2018-01-08", "ms0": 1515385800000, "parts": 2},
        {"day": None, "ms0": 0, "parts": 1},
    ]


def test_the_engine_raises_invalid_input_for_untranslatable_rules(bench):
    bench.table("t", {"a": [1]})
    with pytest.raises(InvalidInput) as err:
        bench.rows(Sql("SELECT FROM WHERE", ("t",)))
    assert err.value.code == "SQL_UNTRANSLATABLE"
