"""Freshness rules run: the newest time's age at the run's data time, and the warn and error ages
as checks of it (their verdicts, the pass policy, names), durations in checks, and bad input as
located errors of ``gryph validate`` (exit 2). The metrics on both engines: the conformance cases
(tests/conformance/cases/freshness.json)."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from gryph.client import load_suite, run
from gryph.compiler.errors import InvalidInput
from tests.support.gryph_cli import gryph

HOUR = 3_600_000
# 2026-11-23T22:30Z: 2026-01-01 is 56 x 365 + 14 leap days = 20454 days after 1970-01-01, and
# 2026-11-23 is 304 + 22 days later: 20780 days x 86400000 = 1795392000000 ms, plus 22.5 hours
NEWEST = 1795392000000 + 22 * HOUR + HOUR // 2


def _orders(*times: str | None) -> pa.Table:
    values = [None if t is None else dt.datetime.fromisoformat(t) for t in times]
    return pa.table({"created_ts": pa.array(values, pa.timestamp("us"))})


ORDERS = _orders("2026-11-23T20:00:00", None, "2026-11-23T22:30:00")
SUITE = "freshness orders: created_ts with warn = 6h, error = 24h\npass when all\n"


def _statuses(result) -> dict[str, str]:
    return {check.name: check.status for check in result.checks}


@pytest.mark.parametrize(
    ("data_time", "age_ms", "warn", "error", "passed"),
    [
        ("2026-11-24", 1 * HOUR + HOUR // 2, "PASS", "PASS", True),  # 1.5 h
        ("2026-11-24T04:30:00", 6 * HOUR, "PASS", "PASS", True),  # exactly the warn age: still fresh
        ("2026-11-24T06:00:00", 7 * HOUR + HOUR // 2, "WARN", "PASS", True),  # a warning never fails the run
        ("2026-11-24T22:30:00", 24 * HOUR, "WARN", "PASS", True),
        ("2026-11-25", 25 * HOUR + HOUR // 2, "WARN", "FAIL", False),
    ],
)
def test_the_warn_and_error_ages_are_checks_of_the_age(data_time, age_ms, warn, error, passed):
    result = run(load_suite(SUITE, {"orders": ORDERS}), data_time=data_time)
    assert result.metrics["orders"] == {"total": 2, "newest": NEWEST, "age_ms": age_ms}
    assert _statuses(result) == {"freshness orders (warn)": warn, "freshness orders (error)": error}
    assert result.passed is passed
    (warn_check, error_check) = result.checks
    assert warn_check.expression == 'metrics["orders"]["age_ms"] <= 6h'
    assert error_check.expression == 'metrics["orders"]["age_ms"] <= 1d'  # 24h, in its largest unit
    assert error_check.values == {'metrics["orders"]["age_ms"]': age_ms}


def test_no_time_at_all_is_stale():
    """An empty table or a column of NULLs: the age is unknown (null), and both checks fail."""
    for table in (_orders(), _orders(None, None)):
        result = run(load_suite(SUITE, {"orders": table}), data_time="2026-11-24")
        assert result.metrics["orders"] == {"total": 0, "newest": None, "age_ms": None}
        assert _statuses(result) == {"freshness orders (warn)": "WARN", "freshness orders (error)": "FAIL"}
        assert result.passed is False


def test_the_checks_follow_the_suites_own_and_the_policy_may_name_them():
    text = (
        'freshness orders: created_ts with error = 2h, age_ms = "age"\n'
        'check "recent": metrics["orders"]["age"] < 30m\n'
        'pass when checks("freshness orders (error)")\n'
    )
    result = run(load_suite(text, {"orders": ORDERS}), data_time="2026-11-24")
    # a renamed age: the check reads it under its name; only an error age: one check
    assert result.metrics["orders"]["age"] == 1 * HOUR + HOUR // 2
    assert _statuses(result) == {"recent": "FAIL", "freshness orders (error)": "PASS"}
    assert result.checks[1].expression == 'metrics["orders"]["age"] <= 2h'
    assert result.passed is True  # the policy reads the freshness check only


def test_without_a_data_time_the_age_is_counted_from_the_run():
    before = dt.datetime.now(dt.timezone.utc)
    result = run(load_suite("freshness orders: created_ts", {"orders": ORDERS}))
    after = dt.datetime.now(dt.timezone.utc)
    age = result.metrics["orders"]["age_ms"]
    assert int(before.timestamp() * 1000) - NEWEST - 1000 <= age <= int(after.timestamp() * 1000) - NEWEST
    assert result.checks == []  # no warn or error age: a measure only


def test_durations_in_checks_are_milliseconds():
    text = (
        "measure x: select 90000 as x from orders limit 1\n"
        'check "a": measures["x"] == 90s\n'
        'check "b": measures["x"] == 1m + 30000ms\n'
        'check "c": measures["x"] < 2m and measures["x"] > 1m\n'
        'check "d": measures["x"] >= 1d\n'
    )
    result = run(load_suite(text, {"orders": ORDERS}))
    assert _statuses(result) == {"a": "PASS", "b": "PASS", "c": "PASS", "d": "FAIL"}


def test_a_suite_check_of_the_same_name_is_refused():
    text = SUITE + 'check "freshness orders (warn)": 1 == 1\n'
    with pytest.raises(InvalidInput) as caught:
        run(load_suite(text, {"orders": ORDERS}))
    assert caught.value.code == "DUPLICATE_CHECK"
    assert (caught.value.location.line, caught.value.location.column) == (1, 42)  # the warn age


BAD = [
    # (rule, code, column, offending text)
    ("freshness orders: name with warn = 6h", "TYPE_MISMATCH", 19, "name"),
    ("freshness orders: created_ts with warn = 24h, error = 6h", "BAD_DETAIL", 42, "1d"),
    ('freshness orders: created_ts with warn = "-6h"', "BAD_DETAIL", 42, "'-6h'"),
    ("freshness orders: created_ts with error = 0", "BAD_DETAIL", 43, "0"),
    ("freshness orders: created_ts with warn = -6h", "SYNTAX_ERROR", 42, "-6h"),
    ("freshness orders: created_ts, id", "WRONG_ARITY", 31, "id"),
    ("freshness ordrs: created_ts", "UNKNOWN_SOURCE", 11, "ordrs"),
    ("freshness orders: created_ts with wran = 6h", "UNKNOWN_DETAIL", 35, "wran"),
    ('freshness orders: created_ts with of = "first"', "BAD_DETAIL", 40, "'first'"),
    ("freshness orders on orders, orders: created_ts", "TARGET_NOT_ALLOWED", 21, "orders"),
    ("freshness orders: created_ts\ncheck c: metrics['orders']['age'] < 1h", "UNKNOWN_METRIC", None, "['age']"),
]


@pytest.mark.parametrize(("rule", "code", "column", "text"), BAD)
def test_bad_input_is_a_located_error_of_validate(rule, code, column, text, tmp_path):
    (tmp_path / "orders.csv").write_text("id,name,created_ts\n1,a,2026-11-23T20:00:00\n")
    (tmp_path / "s.dq").write_text(f'source orders = csv("orders.csv")\n{rule}\n')
    done = gryph("validate", "s.dq", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    first = done.stderr.splitlines()[0]
    assert f"error {code}:" in first, first
    if column is not None:
        assert first.startswith(f"s.dq:2:{column}: "), first
    assert f"near: {text}" in done.stderr
