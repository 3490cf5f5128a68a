"""Measures and checks on both engines: one-row queries (DSL and Spark SQL), their shapes, checks
over measures and rule metrics, the pass policy, and the one-row contract. Values derived by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

ROOT = Path(__file__).resolve().parents[2]

TABLE = {
    "columns": [["id", "int64"], ["email", "string"], ["score", "float64"]],
    "rows": [[1, "a@x", 1.5], [2, None, 2.5], [2, "b@x", "NaN"], [3, None, None], [4, "", 4.0]],
}

SUITE = """
completeness c on t: email
measure "nulls": select count(*) from t where email is null
measure "cvc" as list: select count(id) as c, count(distinct id) as cd from t
measure "m" as map: count(id) as c, count(distinct id) as cd
measure "max id": max(id)
measure "sqlm" as map: sql "select count(*) as n, sum(cast((email is null) as int)) as nulls from t"
measure "one row": select id, email from t where id = 1
check "no nulls": measures["nulls"] == 0
check "ratio": metrics["c"]["complete"] / metrics["c"]["total"] >= 0.6
check "list": measures["cvc"][0] - measures["cvc"][1] == 1
check "by name": measures["cvc"]["cd"] == measures["m"][1] and measures["max id"] == 4
check "sql": measures["sqlm"]["nulls"] == measures["nulls"]
warn check "w": measures["one row"]["email"] == "b@x"
pass when passed >= 4
"""


def _run(text: str, engine):
    return run(load_suite(text, {"t": arrow_table(TABLE)}), engine)


def test_measures_checks_and_pass(dq_engine):
    result = _run(SUITE, dq_engine)
    assert result.metrics["c"] == {"total": 5, "incomplete": 2, "complete": 3}  # two NULL emails ('' is a value)
    assert result.measures == {
        "nulls": 2,  # rows 2 and 3
        "cvc": [5, 4],  # ids 1, 2, 2, 3, 4: five values, four distinct
        "m": {"c": 5, "cd": 4},  # the same query reported as a map
        "max id": 4,  # one column: a single value
        "sqlm": {"n": 5, "nulls": 2},  # Spark SQL, translated for DuckDB
        "one row": {"id": 1, "email": "a@x"},  # not an aggregate: a row query with exactly one row
    }
    document = result.to_dict()
    # 2 != 0; 3 / 5 = 0.6; 5 - 4 = 1; cd 4 == m[1] 4 and max 4; 2 == 2; 'a@x' != 'b@x' (a warning)
    assert document["check"] == {
        "no nulls": False,
        "ratio": True,
        "list": True,
        "by name": True,
        "sql": True,
        "w": False,
    }
    assert document["pass"] is True  # four deciding checks pass: passed >= 4 holds; warnings never count
    assert [c.status for c in result.checks] == ["FAIL", "PASS", "PASS", "PASS", "PASS", "WARN"]
    assert result.checks[0].values == {'measures["nulls"]': 2}


@pytest.mark.parametrize(
    "measure,says",
    [
        ('measure "per id": select id, count(*) as n from t group by id', "more than one row"),
        ('measure "none": select id from t where id = 99', "no rows"),
        ('measure "rows": sql "select id from t"', "more than one row"),
    ],
)
def test_a_measure_that_is_not_one_row_fails_alone(dq_engine, measure, says):
    name = measure.split('"')[1]
    result = _run(measure + '\nmeasure "ok": count(id)\ncheck "reads it": measures["' + name + '"] == 1\n', dq_engine)
    error = result.failed[name]
    assert error["code"] == "MEASURE_NOT_ONE_ROW" and says in error["message"] and error["line"] == 1
    assert result.measures["ok"] == 5 and result.measures[name] == {"error": error}  # the run went on
    assert result.checks[0].passed is False and "failed" in result.checks[0].error
    assert result.passed is False and result.to_dict()["failed"] == {name: error}


def test_a_profiling_rule_over_the_row_limit_fails_alone(dq_engine):
    many = {"columns": [["id", "int64"]], "rows": [[n] for n in range(10_001)]}
    suite = "profiling p on t: select id from t\nprofiling q on t: select count(*) as n from t\n"
    result = run(load_suite(suite, {"t": arrow_table(many)}), dq_engine)
    assert result.failed["p"]["code"] == "TOO_MANY_ROWS" and "more than 10000 rows" in result.failed["p"]["message"]
    assert result.metrics["q"] == [{"n": 10_001}] and result.metrics["p"] == {"error": result.failed["p"]}
    assert result.passed is False


def test_seed_example(dq_engine):
    """The example of docs/checks.md: the proposal's measures and checks, a Spark SQL measure and a warning over a rule."""
    result = run(ROOT / "examples" / "seed.dq", dq_engine)
    document = json.loads(json.dumps(result.to_dict()))
    assert {"measure", "check", "pass", "metrics", "records", "name", "engine", "started", "duration_seconds"} <= set(
        document
    )
    # users.csv: one user without a post code; order_items.csv: 60 lines over 40 orders
    assert document["measure"] == {
        "Null Count": 1,
        "count vs count distinct": [60, 40],
        "multiple values": {"c": 60, "cd": 40},
        "sql nulls": 1,
    }
    assert document["check"] == {
        "no null value": False,
        "count bigger than 50": True,
        "count > 50 in another way": True,
        "all order is unique": False,
        "match rate": False,  # a warning: 48 of 50 users match (10039, 10050 differ), 0.96 < 0.99
    }
    assert document["metrics"]["users_match"] == {"total": 50, "miss": 2, "matched": 48, "matchedFraction": 0.96}
    assert document["pass"] is True  # pass when always, the proposal's default
