"""Spread and order statistics of the check language: sample (n - 1) variance and standard
deviation, median, MAD, quantiles, sqrt and z-scores, against values worked out by hand, with
nulls (skipped), one value, nothing, NaN, and bad arguments."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from gryph.compiler.checks.check_functions import CheckError, Clock, NoHistory
from gryph.compiler.checks.check_tree import compile_checks
from gryph.compiler.checks.interpreter import Env, evaluate
from gryph.compiler.errors import InvalidInput
from gryph.compiler.results import Row
from gryph.compiler.suites.native_suites import parse_suite

SUITE = """measure row: count(*)
accuracy acc on users, orders: users.user_id = orders.user_id
"""


def compiled(checks: str):
    return compile_checks(parse_suite(SUITE + checks, known_sources=("users", "orders")))


def value(expr: str):
    [check] = compiled(f'check "c": {expr}\n')
    clock = Clock("s", dt.datetime(2026, 11, 18, tzinfo=dt.timezone.utc), NoHistory())
    return evaluate(check.expr, Env({"row": Row(("c", "cd"), (100, 10))}, {}, clock))


@pytest.mark.parametrize(
    "expr,expected",
    [
        # mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; sample: 5 / 3
        ("variance([1, 2, 3, 4])", 5 / 3),
        ("stddev([1, 2, 3, 4])", math.sqrt(5 / 3)),
        # mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32, over n - 1 = 7
        ("variance([2, 4, 4, 4, 5, 5, 7, 9])", 32 / 7),
        ("variance([1, null, 3])", 2.0),  # nulls are skipped: (1 + 1) / 1
        ("stddev([5])", None),  # a sample stddev of one value is undefined
        ("stddev([])", None),
        ("variance([null, null])", None),
        ("stddev([7, 7, 7])", 0.0),
        ("median([3, 1, 2])", 2.0),
        ("median([4, 1, 3, 2])", 2.5),  # the mean of the two middle values
        ("median([null, 7])", 7.0),
        ("median([])", None),
        # median 2; distances 1 1 0 0 2 4 7 -> 0 0 1 1 2 4 7; their median is 1
        ("mad([1, 1, 2, 2, 4, 6, 9])", 1.0),
        ("mad([5])", 0.0),
        ("mad([])", None),
        # sorted 1 2 3 4; (n - 1) * q = 0.75: three quarters of the way from 1 to 2
        ("quantile([4, 3, 2, 1], 0.25)", 1.75),
        ("quantile([1, 2, 3, 4], 0)", 1.0),
        ("quantile([1, 2, 3, 4], 1)", 4.0),
        ("quantile([10, 20], 0.5)", 15.0),
        ("quantile([], 0.5)", None),
        ("quantile([1, 2], null)", None),
        ("sqrt(16)", 4.0),
        ("sqrt(2.25)", 1.5),
        ("sqrt(null)", None),
        ("zscore(4, [1, 2, 3])", 2.0),  # mean 2, sample stddev 1
        ("zscore(0, [1, 2, 3])", -2.0),
        ("zscore(5, [5, 5])", None),  # no spread: as division by zero, null
        ("zscore(3, [1])", None),
        ("zscore(null, [1, 2, 3])", None),
        ('stddev(measures["row"])', math.sqrt(4050)),  # a measure row: 100 and 10, mean 55
    ],
)
def test_statistics_by_hand(expr, expected):
    got = value(expr)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-12) and isinstance(got, float)


def test_nan_and_infinity_propagate():
    nan = "(1e308 * 10 - 1e308 * 10)"  # inf - inf: NaN, which is a value, not a missing one
    assert math.isnan(value(f"stddev([1, {nan}, 3])"))
    assert math.isnan(value(f"median([1, {nan}])"))
    assert math.isnan(value(f"mad([2, {nan}])"))
    assert math.isnan(value(f"quantile([1, {nan}], 0.5)"))
    assert math.isnan(value(f"sqrt({nan})"))
    assert math.isnan(value("variance([1, 1e308 * 10])"))  # an infinity has no spread
    assert value("median([1, 1e308 * 10, 1e308 * 10])") == math.inf


@pytest.mark.parametrize(
    "expr,message",
    [
        ("stddev(['a', 'b'])", "stddev() needs numbers"),
        ("median(3)", "median() needs a list"),
        ("quantile([1, 2], 1.5)", "quantile() needs q between 0 and 1"),
        ("quantile([1, 2], 'x')", "quantile() needs q between 0 and 1"),
        ("sqrt(-1)", "sqrt() of a negative number"),
        ("sqrt('4')", "sqrt() needs a number"),
        ("zscore('a', [1, 2])", "zscore() needs a number"),
    ],
)
def test_bad_arguments_fail_the_check(expr, message):
    with pytest.raises(CheckError, match=message.replace("(", r"\(").replace(")", r"\)")):
        value(expr)


def test_wrong_arity_and_named_arguments_are_located():
    with pytest.raises(InvalidInput) as info:
        compiled('check "c": quantile([1, 2])\n')
    assert info.value.code == "WRONG_ARITY"
    with pytest.raises(InvalidInput) as info:
        compiled('check "c": stddev([1, 2], ddof = 0) > 1\n')
    assert info.value.code == "NAMED_ARGUMENT" and "ddof" in info.value.message
    assert info.value.location.column == 27


def test_metric_history_names_a_rule_of_the_suite():
    with pytest.raises(InvalidInput) as info:
        compiled('check "c": previous_metric("acx", "total") == 8\n')
    assert info.value.code == "UNKNOWN_RULE" and "acc" in (info.value.hint or "")
