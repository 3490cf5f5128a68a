"""Anomaly checks and rule-metric history over a real history file: baselines without failed runs
and earlier anomalies, each strategy's bounds worked out by hand, not enough history as a WARN,
the bounds in every output, and bad checks refused at validation (exit 2, located)."""

from __future__ import annotations

import datetime as dt

import pytest

from gryph.client import run
from gryph.client.outputs.gate import to_junit, to_markdown
from gryph.client.outputs.html.page import html_page
from gryph.client.outputs.text import to_text
from gryph.client.store.history import HistoryStore
from gryph.compiler.checks.check_functions import FUNCTIONS, Clock
from gryph.compiler.checks.check_tree import compile_checks
from gryph.compiler.checks.verdict import judge
from gryph.compiler.suites.native_suites import parse_suite
from gryph.compiler.suites.suite import PassSpec
from tests.support.gryph_cli import gryph
from tests.support.result_documents import result_document

NOW = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)


def record(store, started, n, passed=True, metrics=None, anomalies=None, suite="s"):
    checks = [
        {"name": name, "expression": "anomaly(n)", "status": "FAIL" if flag else "PASS", "anomaly": flag}
        for name, flag in (anomalies or {}).items()
    ]
    document = result_document(suite, {"n": n}, passed, metrics=metrics or {}, check_details=checks)
    store.record(document, started, {"n": n})


def outcome(store, check: str, n: float, metrics=None, now=NOW):
    """The one check's outcome for today's value ``n`` (at ``now``) against the store's history."""
    suite = parse_suite(
        f'suite s\nmeasure n: count(*)\nuniqueness ids on t: id\ncheck "c": {check}\n', known_sources=("t",)
    )
    [compiled] = compile_checks(suite)
    verdict = judge([compiled], PassSpec("all"), {"n": n}, metrics or {}, Clock("s", now, store))
    return verdict.checks[0]


@pytest.fixture
def store(tmp_path):
    """Four passed runs (10, 12, 14, newest last), a failed run (100) and an earlier anomaly of
    check "c" (50) in between."""
    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, NOW - dt.timedelta(days=6), 10)
    record(store, NOW - dt.timedelta(days=5), 100, passed=False)
    record(store, NOW - dt.timedelta(days=4), 12)
    record(store, NOW - dt.timedelta(days=3), 50, anomalies={"c": True})
    record(store, NOW - dt.timedelta(days=2), 14, anomalies={"c": False})
    return store


def test_normal_learns_from_passed_runs_without_earlier_anomalies(store):
    # baseline 10, 12, 14: mean 12, sample stddev 2, k = 2 -> [8, 16]
    check = 'anomaly(measures["n"], normal(k = 2, window = 14))'
    inside = outcome(store, check, 16)
    assert inside.status == "PASS" and inside.anomaly is False
    assert inside.values == {
        'measures["n"]': 16,
        "lower bound": 8.0,
        "upper bound": 16.0,
        "baseline runs": 3,
        "baseline mean": 12.0,
        "baseline stddev": 2.0,
    }
    outside = outcome(store, check, 16.5)
    assert outside.status == "FAIL" and outside.anomaly is True and outside.error is None
    assert outcome(store, check, float("nan")).anomaly is True  # NaN is never inside the bounds


def test_online_normal_counts_today_with_the_population_stddev(store):
    # 10, 12, 14 and today's 16: mean 13, population variance (9 + 1 + 1 + 9) / 4 = 5
    found = outcome(store, 'anomaly(measures["n"], online_normal(k = 2))', 16)
    assert found.passed and found.values["mean with today"] == 13.0
    assert found.values["stddev with today"] == pytest.approx(5**0.5)
    assert found.values["upper bound"] == pytest.approx(13 + 2 * 5**0.5)
    assert outcome(store, 'anomaly(measures["n"], online_normal(k = 1))', 16).anomaly is True  # 13 + 2.236 < 16
    assert outcome(store, 'anomaly(measures["n"], online_normal())', float("nan")).anomaly is True


def test_the_window_takes_the_newest_baseline_runs(store):
    # window 2: 14 and 12, mean 13, sample stddev sqrt(2)
    found = outcome(store, 'anomaly(measures["n"], normal(k = 1, window = 2))', 13)
    assert found.values["baseline mean"] == 13.0 and found.values["baseline stddev"] == pytest.approx(2**0.5)


def test_failed_runs_and_anomalies_join_the_baseline_when_the_check_says_so(store):
    both = 'anomaly(measures["n"], normal(), include_failed = true, include_anomalies = true)'
    assert outcome(store, both, 20).values["baseline mean"] == (10 + 100 + 12 + 50 + 14) / 5
    failed = 'anomaly(measures["n"], normal(), include_failed = true)'
    assert outcome(store, failed, 20).values["baseline mean"] == (10 + 100 + 12 + 14) / 4


def test_direction_keeps_one_bound(store):
    down = outcome(store, 'anomaly(measures["n"], normal(k = 2), direction = down)', 1000)
    assert down.passed and "upper bound" not in down.values and down.values["lower bound"] == 8.0
    up = outcome(store, 'anomaly(measures["n"], normal(k = 2), direction = up)', 7)
    assert up.passed and "lower bound" not in up.values
    assert not outcome(store, 'anomaly(measures["n"], normal(k = 2), direction = up)', 17).passed


def test_not_enough_history_is_a_skip_not_a_failure(store, tmp_path):
    short = outcome(store, 'anomaly(measures["n"], normal(), min_history = 4)', 12)
    assert short.status == "SKIP" and short.error is None and not short.passed
    assert short.skipped == "not enough history: 3 earlier runs, 4 needed"
    empty = outcome(HistoryStore(tmp_path / "new.duckdb"), 'anomaly(measures["n"], normal())', 12)
    assert empty.status == "SKIP" and empty.values["baseline runs"] == 0


@pytest.mark.parametrize(
    "strategy,lower,upper",
    [
        ("absolute_change(max_increase = 3, max_decrease = 1)", 13.0, 17.0),  # last kept run: 14
        # order 2: x - 2*14 + 12 within [-1, 1] -> x within [15, 17]
        ("absolute_change(max_increase = 1, max_decrease = 1, order = 2)", 15.0, 17.0),
        ("relative_change(max_increase = 0.1, max_decrease = 0.5)", 7.0, 15.4),  # 14 -> [14 - 7, 14 + 1.4]
        ("relative_change(max_increase = 0.5, max_decrease = 0.25, order = 2)", 9.0, 18.0),  # two runs back: 12
    ],
)
def test_change_strategies_bound_the_value(store, strategy, lower, upper):
    found = outcome(store, f'anomaly(measures["n"], {strategy})', lower)
    assert found.passed
    assert found.values["lower bound"] == pytest.approx(lower) and found.values["upper bound"] == pytest.approx(upper)
    assert not outcome(store, f'anomaly(measures["n"], {strategy})', upper + 0.01).passed


def test_relative_change_from_zero_allows_only_zero(tmp_path):
    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, NOW - dt.timedelta(days=1), 0)
    check = 'anomaly(measures["n"], relative_change(max_increase = 0.5))'
    assert outcome(store, check, 0).passed and not outcome(store, check, 1).passed


def test_seasonal_compares_with_the_same_weekday_last_week(tmp_path):
    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, NOW - dt.timedelta(days=8), 80)
    record(store, NOW - dt.timedelta(days=7) + dt.timedelta(minutes=5), 70)  # started a little late
    record(store, NOW - dt.timedelta(days=1), 10)
    found = outcome(store, 'anomaly(measures["n"], seasonal(period = "7d", max_decrease = 0.1))', 63)
    assert found.passed and found.values["baseline value"] == 70 and found.values["lower bound"] == 63.0
    clock = Clock("s", NOW, store)
    assert FUNCTIONS["value_ago"].impl(clock, "n", "7d") == 70
    assert FUNCTIONS["value_ago"].impl(clock, "n", "30d") is None


def test_seasonal_without_last_weeks_run_is_not_evaluated_not_compared_with_the_day_before(tmp_path):
    # the issue's case: daily runs, 01-08 missing; 01-15 (100) must not be judged against 01-07
    # (50, a weekend day) but skipped; a run 7 days back give or take 16.8 h still counts
    store = HistoryStore(tmp_path / "h.duckdb")
    today = dt.datetime(2026, 1, 15, tzinfo=dt.timezone.utc)
    for day in (5, 6, 7, 9, 10, 11, 12, 13, 14):
        record(store, dt.datetime(2026, 1, day, tzinfo=dt.timezone.utc), 50 if day == 7 else 100)
    suite = parse_suite(
        'suite s\nmeasure n: count(*)\ncheck "c": anomaly(measures["n"], seasonal(period = "7d", max_decrease = 0.1))\n',
        known_sources=("t",),
    )
    [compiled] = compile_checks(suite)
    clock = Clock("s", today, store)
    found = judge([compiled], PassSpec("all"), {"n": 100}, {}, clock).checks[0]
    assert found.status == "SKIP"  # not evaluated
    assert FUNCTIONS["value_ago"].impl(clock, "n", "7d") is None
    late = dt.datetime(2026, 1, 8, 16, tzinfo=dt.timezone.utc)  # 16 h late: within a tenth of 7 days
    record(store, late, 100)
    assert FUNCTIONS["value_ago"].impl(clock, "n", "7d") == 100
    assert judge([compiled], PassSpec("all"), {"n": 100}, {}, clock).checks[0].status == "PASS"


def test_min_change_keeps_a_constant_series_from_failing_on_any_change(tmp_path):
    store = HistoryStore(tmp_path / "h.duckdb")
    for days in range(1, 6):
        record(store, NOW - dt.timedelta(days=days), 128)
    # a standard deviation of 0: without a minimum, any other value is an anomaly
    assert outcome(store, 'anomaly(measures["n"], normal())', 129).status == "FAIL"
    # "1%" of the mean 128: bounds 128 - 1.28 and 128 + 1.28
    banded = 'anomaly(measures["n"], normal(), min_change = "1%")'
    found = outcome(store, banded, 129)
    assert found.status == "PASS" and found.values["lower bound"] == 126.72 and found.values["upper bound"] == 129.28
    assert outcome(store, banded, 130).status == "FAIL"
    # an absolute minimum on a change strategy: 128 + max(1% of 128, 5) = 133 at most
    changed = 'anomaly(measures["n"], relative_change(max_increase = 0.01), min_change = 5)'
    assert outcome(store, changed, 133).status == "PASS" and outcome(store, changed, 133.5).status == "FAIL"
    assert outcome(store, changed, 133).values["upper bound"] == 133


@pytest.mark.parametrize("given", ['"1"', '"-1%"', "-2", '"abc"', "true"])
def test_a_min_change_that_is_no_amount_or_percentage_is_refused(tmp_path, given):
    store = HistoryStore(tmp_path / "h.duckdb")
    with pytest.raises(Exception, match="min_change must be a number >= 0 or a percentage"):
        outcome(store, f'anomaly(measures["n"], normal(), min_change = {given})', 1)


def test_rule_metric_history(tmp_path):
    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, NOW - dt.timedelta(days=3), 1, metrics={"ids": {"unique": 7}})
    record(store, NOW - dt.timedelta(days=2), 1, metrics={"ids": {"total": 9}})  # no "unique" that run
    record(store, NOW - dt.timedelta(days=1), 1, metrics={"ids": {"unique": 5}, "prof": [{"n": 1}]})
    clock = Clock("s", NOW, store)
    assert FUNCTIONS["metric_history"].impl(clock, "ids", "unique", 10) == [5, None, 7]
    assert FUNCTIONS["metric_history"].impl(clock, "ids", "unique", 1) == [5]
    assert FUNCTIONS["previous_metric"].impl(clock, "ids", "unique") == 5
    assert FUNCTIONS["previous_metric"].impl(clock, "other", "unique") is None
    check = 'anomaly(metrics["ids"]["unique"], absolute_change(max_decrease = 1))'
    assert outcome(store, check, 0, {"ids": {"unique": 4}}).values["lower bound"] == 4.0


def _suite(tmp_path, rows: int) -> str:
    (tmp_path / "t.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(rows)))
    suite = tmp_path / "s.dq"
    suite.write_text(
        'suite steady\nsource t = csv("t.csv")\nmeasure rows: select count(*) from t\n'
        'check "rows steady": anomaly(measures["rows"], normal(k = 3), direction = down, min_history = 3)\n'
        "pass when all\n"
    )
    return str(suite)


def test_a_run_shows_its_bounds_in_every_output_and_leaves_its_anomaly_out(tmp_path):
    history = tmp_path / "h.duckdb"
    results = [run(_suite(tmp_path, rows), history=history) for rows in (10, 12, 14)]
    assert [r.checks[0].status for r in results] == ["SKIP", "SKIP", "SKIP"] and all(r.passed for r in results)
    assert "<skipped" in to_junit(results[0], strict=True) and "<failure" not in to_junit(results[0], strict=True)
    assert results[0].to_dict()["check"] == {"rows steady": None}  # neither passed nor failed
    assert not results[0].warnings_failed()  # --strict does not fail a run that waits for history
    dropped = run(_suite(tmp_path, 3), history=history)  # mean 12, stddev 2: lower bound 6
    assert not dropped.passed and dropped.checks[0].values["lower bound"] == 6.0
    for text in (to_text(dropped), to_junit(dropped), to_markdown(dropped), html_page(dropped.document(), {}, [], 30)):
        assert "lower bound" in text and "6" in text
    document = dropped.to_dict()["check_details"][0]
    assert document["anomaly"] is True and document["values"]["lower bound"] == 6.0
    # a failed run (and an anomaly) is left out of the next baseline: still 10, 12, 14
    assert run(_suite(tmp_path, 13), history=history).checks[0].values["baseline mean"] == 12.0


@pytest.mark.parametrize(
    "check,code,column,text",
    [
        ('anomaly(measures["rowz"], normal())', "UNKNOWN_MEASURE", 38, "rows"),
        ('anomaly(measures["name"], normal())', "ANOMALY_NOT_NUMERIC", 30, "string"),
        ('anomaly(measures["rows"], normal(k = 0))', "BAD_ANOMALY_CHECK", 55, "k must be a number > 0"),
        ('anomaly(measures["rows"], normal(k = -1))', "BAD_ANOMALY_CHECK", 55, "k must be a number > 0"),
        ('anomaly(measures["rows"], normal(window = 0))', "BAD_ANOMALY_CHECK", 55, "window must be a whole number"),
        ('anomaly(measures["rows"], normal(kk = 2))', "BAD_ANOMALY_CHECK", 55, "no parameter 'kk'"),
        ('anomaly(measures["rows"], gaussian())', "BAD_ANOMALY_CHECK", 48, "unknown anomaly strategy"),
        ('anomaly(measures["rows"], normal(), direction = sideways)', "BAD_ANOMALY_CHECK", 58, "direction"),
        ('anomaly(measures["rows"], absolute_change())', "BAD_ANOMALY_CHECK", 48, "bounds no change"),
        ('anomaly(measures["rows"], normal(window = 3), min_history = 5)', "BAD_ANOMALY_CHECK", 48, "never hold"),
        ('1 == 1 and anomaly(measures["rows"], normal())', "BAD_ANOMALY_CHECK", 33, "a check of its own"),
        ('anomaly(measures["rows"], online_normal(k = 0))', "BAD_ANOMALY_CHECK", 62, "k must be a number > 0"),
        (
            'anomaly(measures["rows"], online_normal(window = 3))',
            "BAD_ANOMALY_CHECK",
            62,
            "known names: k, relearn_after",
        ),
        ('anomaly(measures["rows"], normal(relearn_after = 1.5))', "BAD_ANOMALY_CHECK", 55, "relearn_after"),
        ('anomaly(measures["rows"], normal(), relearn_after = 3)', "BAD_ANOMALY_CHECK", 58, "the strategy's"),
    ],
)
def test_bad_anomaly_checks_are_refused_at_validation(tmp_path, check, code, column, text):
    (tmp_path / "t.csv").write_text("id,name\n1,a\n")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source t = csv("t.csv")\nmeasure rows: select count(*) from t\nmeasure name: select max(name) from t\n'
        f'check "rows steady": {check}\n'
    )
    done = gryph("validate", str(suite))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{suite}:4:{column}" in done.stderr and code in done.stderr and text in done.stderr
    assert "Traceback" not in done.stderr
