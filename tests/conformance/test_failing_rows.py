"""A failing check shows the rows it failed on, on both engines alike: for each measure of the form
``select count(*) from SOURCE where CONDITION`` it reads, up to N of those rows in the order of
their columns, and for a condition on one column that column's most frequent values there.
Expected rows worked out by hand from TABLE."""

from __future__ import annotations

import math

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

TABLE = {
    "columns": [["id", "int64"], ["name", "string"], ["score", "float64"]],
    "rows": [
        [7, "x", 0.5],
        [1, "ok", 1.0],
        [2, "bé", 2.0],
        [3, None, 3.0],
        [4, "x", "NaN"],
        [5, "x", None],
        [6, "bé", 2.0],
    ],
}

SUITE = """
measure "bad names": select count(*) from t where name != 'ok'
measure "late or nan": select count(*) from t where id > 5 or score is nan
measure "low scores": select count(*) from t where score < 2.5
measure "none": select count(*) from t where id > 100
measure "all": count(*)
check "names ok": measures["bad names"] == 0
warn check "no late": measures["late or nan"] + 0 < 1
check "some low": measures["low scores"] > 0
check "none at all": measures["none"] > 0
check "rows": measures["all"] == 0
pass when all
"""


def _details(engine, sample: int = 3) -> dict[str, dict]:
    result = run(load_suite(SUITE, {"t": arrow_table(TABLE)}), engine, record_sample=sample)
    return {check["name"]: check for check in result.to_dict()["check_details"]}


def test_a_failing_check_shows_its_rows_and_top_values(dq_engine):
    shown = _details(dq_engine)["names ok"]["failing_rows"]["bad names"]
    # name != 'ok': ids 2, 4, 5, 6, 7 (NULL name 3 is unknown, not counted); the first 3 by id
    assert shown["count"] == 5 and shown["source"] == "t" and shown["where"] == "name != 'ok'"
    assert [row["id"] for row in shown["rows"]] == [2, 4, 5]
    assert shown["rows"][0] == {"id": 2, "name": "bé", "score": 2.0}
    assert math.isnan(shown["rows"][1]["score"]) and shown["rows"][2]["score"] is None
    # x three times (4, 5, 7), bé twice (2, 6)
    assert shown["column"] == "name"
    assert shown["top_values"] == [{"value": "x", "count": 3}, {"value": "bé", "count": 2}]


def test_a_condition_on_two_columns_has_rows_but_no_top_values(dq_engine):
    check = _details(dq_engine, sample=20)["no late"]  # a failing warning shows its rows too
    assert check["status"] == "WARN"
    shown = check["failing_rows"]["late or nan"]
    # id > 5: 6, 7; score is NaN: 4
    assert [row["id"] for row in shown["rows"]] == [4, 6, 7]
    assert "column" not in shown and "top_values" not in shown


def test_passing_checks_and_empty_counts_show_nothing(dq_engine):
    checks = _details(dq_engine)
    # a passing check reading the same kind of measure shows nothing
    assert "failing_rows" not in checks["some low"]
    # the failing check over zero rows has none to show; a measure without a condition is no row sample
    assert "failing_rows" not in checks["none at all"] and "failing_rows" not in checks["rows"]


def test_top_values_of_a_number_column(dq_engine):
    suite = SUITE.replace(
        'check "some low": measures["low scores"] > 0', 'check "some low": measures["low scores"] == 0'
    )
    result = run(load_suite(suite, {"t": arrow_table(TABLE)}), dq_engine)
    check = next(c for c in result.to_dict()["check_details"] if c["name"] == "some low")
    shown = check["failing_rows"]["low scores"]
    # score < 2.5: 0.5 (7), 1.0 (1), 2.0 (2, 6); NaN and NULL are not below 2.5
    assert shown["count"] == 4 and [row["id"] for row in shown["rows"]] == [1, 2, 6, 7]
    assert shown["top_values"] == [
        {"value": 2.0, "count": 2},
        {"value": 0.5, "count": 1},  # ties by value
        {"value": 1.0, "count": 1},
    ]


class _Counting:
    """An engine that counts the plans it runs."""

    def __init__(self, engine) -> None:
        self.engine, self.plans = engine, []

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def run(self, plan, sources):
        self.plans.append(plan)
        return self.engine.run(plan, sources)


def test_a_passing_suite_runs_no_sample_query(duckdb_engine):
    passing = "\n".join(line for line in SUITE.splitlines() if not line.startswith(("check", "warn")))
    passing += '\ncheck "few bad": measures["bad names"] <= 5'
    counting = _Counting(duckdb_engine)
    result = run(load_suite(passing, {"t": arrow_table(TABLE)}), counting)
    assert result.passed and len(counting.plans) == 1  # the suite's one plan, no second step
    failing = passing.replace("<= 5", "<= 4")
    counting.plans.clear()
    run(load_suite(failing, {"t": arrow_table(TABLE)}), counting)
    assert len(counting.plans) == 2
    # the rows and top values of the one failing measure only
    assert [q.name for q in counting.plans[1].queries] == ["rows0", "top0"]


def test_rows_in_a_check_is_one_statement_with_its_rows(dq_engine):
    suite = "check \"names ok\": rows(t where name != 'ok') <= 0.5 * rows(t)\npass when all\n"
    result = run(load_suite(suite, {"t": arrow_table(TABLE)}), dq_engine, record_sample=2)
    document = result.to_dict()
    # 5 of 7 rows are not 'ok' (NULL is unknown): 5 > 3.5
    assert document["measure"] == {"rows(t where name != 'ok')": 5, "rows(t)": 7}
    assert not result.passed
    shown = document["check_details"][0]["failing_rows"]
    assert list(shown) == ["rows(t where name != 'ok')"]  # rows(t) has no condition: no sample
    assert [row["id"] for row in shown["rows(t where name != 'ok')"]["rows"]] == [2, 4]
