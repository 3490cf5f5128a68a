"""Schema statements and schema drift: ``schema SOURCE: required(...)`` / ``exact(...)`` as checks
over the columns the engine reports (no scan), and ``schema_changes`` against the columns stored
with the previous run, on both engines. Expected values are worked out from the files written."""

from __future__ import annotations

import duckdb
import pytest

from gryph.client import run, validate
from gryph.client.store.history import HistoryStore
from gryph.compiler.checks.schema_checks import SchemaCheck, judge_schema, schema_changes
from gryph.compiler.errors import InvalidInput, Location
from gryph.compiler.plan.data_types import DOUBLE, INTEGER, STRING
from gryph.compiler.suites.suite import SchemaSpec

DAY_1 = "select 1::bigint as user_id, 'a@x' as email, 2.5::double as score"
# user_id narrower (still an integer), email dropped, a unicode column added, score turned to text
DAY_2 = "select 7::integer as user_id, '2.5' as score, 'x' as \"naïve col\""

SUITE = """suite users_daily
source users = parquet("{path}")
schema users: required(user_id bigint, email string)
check "nothing removed": schema_changes("users")["removed"] == []
warn check "drift": len(schema_changes("users")["added"]) == 0
measure rows: select count(*) from users
pass when all
"""


def write(path, query):
    duckdb.sql(f"copy ({query}) to '{path}' (format parquet)")


@pytest.fixture(params=["duckdb", "spark"])
def engine(request):
    if request.param == "spark":
        return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}
    return {"engine": "duckdb"}


def test_a_dropped_column_is_a_failed_check_and_the_drift_is_listed(tmp_path, engine):
    data, history = tmp_path / "users.parquet", tmp_path / "h.duckdb"
    suite = SUITE.format(path=data)
    write(data, DAY_1)
    first = run(suite, **engine, history=history)
    assert first.passed and [c.status for c in first.checks] == ["PASS", "PASS", "PASS"]
    # no earlier run: nothing changed
    assert first.checks[0].values == {'schema_changes("users")': {"added": [], "removed": [], "changed": []}}
    assert first.schemas == {"users": {"user_id": "integer", "email": "string", "score": "double"}}
    assert HistoryStore(history).schema("users_daily", "users") == first.schemas["users"]

    write(data, DAY_2)
    second = run(suite, **engine, history=history)
    by_name = {c.name: c for c in second.checks}
    assert not second.passed
    assert by_name["schema users"].status == "FAIL"
    assert by_name["schema users"].values == {"missing columns": ["email"]}
    changes = {
        "added": ["naïve col"],
        "removed": ["email"],
        "changed": [{"column": "score", "was": "double", "now": "string"}],
    }
    assert by_name["nothing removed"].status == "FAIL"
    assert by_name["nothing removed"].values['schema_changes("users")'] == changes
    assert by_name["drift"].status == "WARN"
    assert second.measures == {"rows": 1}  # the rules still ran: a schema check is a result, not an error

    third = run(suite, **engine, history=history)  # compared with the second run now: no drift
    assert {c.name: c.status for c in third.checks} == {
        "nothing removed": "PASS",
        "drift": "PASS",
        "schema users": "FAIL",
    }


def test_a_rule_reading_a_dropped_column_is_still_a_validation_error(tmp_path):
    data = tmp_path / "users.parquet"
    write(data, DAY_2)
    suite = SUITE.format(path=data) + "completeness mails on users: email\n"
    with pytest.raises(InvalidInput) as raised:
        run(suite, history=None)
    assert raised.value.code == "UNKNOWN_COLUMN" and raised.value.location.line == 8


def test_exact_lists_unexpected_columns_and_wrong_types():
    spec = SchemaSpec("users", True, (("user_id", STRING), ("score", DOUBLE), ("gone", None)), Location(), "")
    passed, shown = judge_schema(SchemaCheck(spec, {"user_id": "integer", "score": "double", "extra": "date"}))
    assert not passed
    assert shown == {
        "missing columns": ["gone"],
        "wrong types": ["user_id: integer, expected string"],
        "unexpected columns": ["extra"],
    }
    required = SchemaSpec("users", False, (("user_id", INTEGER), ("score", None)), Location(), "")
    assert judge_schema(SchemaCheck(required, {"user_id": "integer", "score": "string", "x": "date"})) == (True, {})


def test_schema_changes_by_hand():
    before = {"a": "integer", "b": "string", "c": "double"}
    after = {"c": "string", "a": "integer", "d": "date"}
    assert schema_changes(before, after) == {
        "added": ["d"],
        "removed": ["b"],
        "changed": [{"column": "c", "was": "double", "now": "string"}],
    }
    assert schema_changes(None, after) == {"added": [], "removed": [], "changed": []}
    assert schema_changes({}, {}) == {"added": [], "removed": [], "changed": []}


def test_a_suite_of_schema_statements_alone_runs(tmp_path):
    data = tmp_path / "u.parquet"
    write(data, DAY_1)
    result = run(f'source users = parquet("{data}")\nschema users: exact(user_id, email string, score)\n')
    assert [(c.name, c.status) for c in result.checks] == [("schema users", "PASS")]


@pytest.mark.parametrize(
    ("statement", "code", "where", "near"),
    [
        ("schema userz: required(a)", "UNKNOWN_SOURCE", (2, 1), "userz"),
        ("schema users: required(user_id bigint, email strin)", "UNKNOWN_TYPE", (2, 40), "strin"),
        ("schema users: exact(a, b, a)", "BAD_SCHEMA", (2, 1), "a"),
        ('check "c": schema_changes("userz")["added"] == []', "UNKNOWN_SOURCE", (2, 27), '"userz"'),
        ("schema users: required(a)\nschema users: exact(a)", "DUPLICATE_CHECK", (3, 1), None),
    ],
)
def test_bad_schema_statements_are_located(tmp_path, statement, code, where, near):
    data = tmp_path / "u.parquet"
    write(data, DAY_1)
    text = f'source users = parquet("{data}")\n{statement}\nmeasure n: select count(*) from users\n'
    with pytest.raises(InvalidInput) as raised:
        validate(text)
    error = raised.value
    assert error.code == code and (error.location.line, error.location.column) == where
    if near is not None:
        assert error.text == near


def test_the_pass_policy_may_name_a_schema_check(tmp_path):
    data = tmp_path / "u.parquet"
    write(data, DAY_2)
    text = (
        f'source users = parquet("{data}")\nschema users: required(email)\ncheck "n": measures["n"] == 1\n'
        'measure n: select count(*) from users\npass when checks("schema users")\n'
    )
    assert not run(text).passed
