"""What a check reads and the bounds it sets (for the report's measures section and the rules
drawn on trend charts), read from checks compiled as a suite compiles them."""

from __future__ import annotations

import pytest

from gryph.compiler.checks.check_bounds import bounds, reads
from gryph.compiler.checks.check_functions import Clock, NoHistory
from gryph.compiler.checks.verdict import judge
from gryph.compiler.suites.suite import PassSpec
from tests.compiler.test_checks import MEASURES, METRICS, STARTED, compiled


def _one(expr: str):
    [check] = compiled(f'check "c": {expr}\n')
    return check.expr


def _metric(name: str, *path: object) -> dict:
    return {"source": "metric", "name": name, "path": list(path)}


N = {"source": "measure", "name": "n", "path": []}


@pytest.mark.parametrize(
    "expr,expected",
    [
        ('measures["n"] >= 40', [{**N, "op": ">=", "value": 40}]),
        # the number on the left: read from the measure's side
        ('40 <= measures["n"]', [{**N, "op": ">=", "value": 40}]),
        ('0.99 < metrics["acc"]["matchedFraction"]', [{**_metric("acc", "matchedFraction"), "op": ">", "value": 0.99}]),
        ('measures["n"] > -5', [{**N, "op": ">", "value": -5}]),
        ('measures["n"] == 10', [{**N, "op": "==", "value": 10}]),
        # both halves of an `and` are required: a band
        (
            'measures["n"] >= 1 and (measures["n"] <= 20)',
            [{**N, "op": ">=", "value": 1}, {**N, "op": "<=", "value": 20}],
        ),
        ('metrics["prof"][0]["n"] < 7', [{**_metric("prof", 0, "n"), "op": "<", "value": 7}]),
        # no bound alone: under `or` or `not`, against another value, a string, a computed value
        ('measures["n"] >= 1 or measures["n"] <= 0', []),
        ('not measures["n"] >= 1', []),
        ('measures["n"] >= metrics["acc"]["total"]', []),
        ('measures["s"] == "abc"', []),
        ('measures["n"] + 1 >= 4', []),
        ('measures["n"] >= 1 + 2', []),
        ("1 < 2", []),
    ],
)
def test_bounds(expr, expected):
    assert bounds(_one(expr)) == expected


def test_reads_name_each_measure_and_metric_once_in_order():
    expr = _one('measures["n"] >= metrics["acc"]["total"] + max(measures["f"], measures["n"], 1)')
    assert reads(expr) == [N, _metric("acc", "total"), {"source": "measure", "name": "f", "path": []}]
    # a subscript computed at run time: the metric is read, its path unknown past it
    assert reads(_one('metrics["prof"][0 + 0]["n"] > 1')) == [_metric("prof")]


def test_outcomes_carry_reads_and_bounds_anomaly_checks_what_they_watch():
    checks = compiled(
        'check "a": measures["n"] >= 40\n'
        'check "b": anomaly(measures["n"], absolute_change(max_increase = 5))\n'
        'check "c": len(metrics["prof"]) == 1\n'
    )
    a, b, c = judge(checks, PassSpec(), MEASURES, METRICS, Clock("s", STARTED, NoHistory())).checks
    assert (a.reads, a.bounds) == ([N], [{**N, "op": ">=", "value": 40}])
    assert (b.reads, b.bounds) == ([N], [])
    assert (c.reads, c.bounds) == ([_metric("prof")], [])


def test_a_bound_needs_every_subscript_constant():
    assert bounds(_one('metrics["prof"][0 + 0]["n"] > 1')) == []
