"""The holt_winters anomaly strategy (statsmodels, the `anomaly` extra) over a real history file: a
weekly season learnt from daily runs, so one value is normal on a busy weekday and an anomaly on a
quiet one; refused at validation (exit 2, located) when statsmodels is not installed."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest

from gryph.client.store.history import HistoryStore
from tests.client.test_anomaly_checks import NOW, outcome, record
from tests.support.gryph_cli import ROOT, gryph

pytest.importorskip("statsmodels")

BUSY, QUIET = 100, 20  # five busy weekdays, then two quiet ones
NOISE = (3, -2, 1, -3, 2, -1, 0, -2, 4, 0)  # a ten-day cycle, so it does not repeat with the week
CHECK = 'anomaly(measures["n"], holt_winters(seasonal_periods = 7, k = 3))'


def daily_history(tmp_path, days: int) -> HistoryStore:
    """``days`` daily runs ending yesterday; run i (0 the oldest) is weekday i % 7 of the season."""
    store = HistoryStore(tmp_path / f"h{days}.duckdb")
    for i in range(days):
        value = (BUSY if i % 7 < 5 else QUIET) + NOISE[i % 10]
        record(store, NOW - dt.timedelta(days=days - i), value)
    return store


def test_a_busy_weekday_value_is_normal_on_a_busy_day(tmp_path):
    # 28 runs (slots 0-27): today is slot 28, weekday 0 (busy). Its earlier values are slots 0, 7,
    # 14, 21: 100 + (3, -2, 2, -2), seasonal mean 100.25, no trend: the forecast is near 100.25 and
    # the residuals are the noise (a few units), so 100 is inside and a quiet day's 20 is not.
    store = daily_history(tmp_path, 28)
    found = outcome(store, CHECK, 100)
    assert found.status == "PASS" and found.anomaly is False, found.values
    assert found.values["forecast"] == pytest.approx(100.25, abs=3)
    assert 0 < found.values["residual stddev"] < 5 and found.values["baseline runs"] == 28
    assert found.values["lower bound"] < 100 < found.values["upper bound"] < 120
    assert outcome(store, CHECK, 20).anomaly is True


def test_the_same_value_on_a_quiet_weekday_is_an_anomaly(tmp_path):
    # 33 runs: today is slot 33, weekday 5 (quiet). Slots 5, 12, 19, 26: 20 + (-1, 1, 0, 0), seasonal
    # mean 20: the upper bound is about 20 + 3 * (a few units), far below 100.
    store = daily_history(tmp_path, 33)
    found = outcome(store, CHECK, 100)
    assert found.status == "FAIL" and found.anomaly is True
    assert found.values["forecast"] == pytest.approx(20, abs=3) and found.values["upper bound"] < 40
    assert outcome(store, CHECK, 21).anomaly is False


def test_a_run_left_out_of_the_baseline_keeps_the_season_in_place(tmp_path):
    # a failed run on quiet slot 26 is left out: its hole takes slot 19's value, so slot 27 stays
    # a quiet day and today (slot 28) a busy one
    store = daily_history(tmp_path, 28)
    record(store, NOW - dt.timedelta(days=2), 5000, passed=False)
    assert outcome(store, CHECK, 100).anomaly is False
    assert outcome(store, CHECK, 20).anomaly is True


def _series_history(tmp_path, values) -> HistoryStore:
    """One daily run per value, oldest first, ending yesterday."""
    store = HistoryStore(tmp_path / "series.duckdb")
    for i, value in enumerate(values):
        record(store, NOW - dt.timedelta(days=len(values) - i), value)
    return store


def test_a_constant_series_bounds_its_value_exactly_and_warns_of_nothing(tmp_path, recwarn):
    # 14 runs of 5: every level, trend and season fits them with no residual (Deequ's fit too), so
    # the forecast is 5 and the bounds are [5, 5]; statsmodels' log of the zero error sum is not shown
    store = _series_history(tmp_path, [5] * 14)
    found = outcome(store, CHECK, 5)
    assert found.status == "PASS" and found.anomaly is False, found.values
    assert (found.values["forecast"], found.values["residual stddev"]) == (5.0, 0.0)
    assert (found.values["lower bound"], found.values["upper bound"]) == (5.0, 5.0)
    assert outcome(store, CHECK, 6).anomaly is True
    assert [str(w.message) for w in recwarn] == []


def test_an_exactly_repeating_season_is_forecast_without_a_warning(tmp_path, recwarn):
    # 1, 2, ..., 7 twice: today is slot 14, the season's first day again; the fit is exact (its
    # error sum 0, whose log statsmodels takes with every forecast), so 1 is in bounds and 4 is not
    store = _series_history(tmp_path, list(range(1, 8)) * 2)
    found = outcome(store, CHECK, 1)
    assert found.anomaly is False and found.values["forecast"] == pytest.approx(1.0), found.values
    assert outcome(store, CHECK, 4).anomaly is True
    assert [str(w.message) for w in recwarn] == []


def test_fewer_than_two_seasons_is_not_enough_history(tmp_path):
    found = outcome(daily_history(tmp_path, 13), CHECK, 100)
    assert found.status == "SKIP" and found.skipped == "not enough history: 13 earlier runs, 14 needed"


def _suite(tmp_path, check: str):
    (tmp_path / "t.csv").write_text("id\n1\n")
    suite = tmp_path / "s.dq"
    suite.write_text(f'source t = csv("t.csv")\nmeasure rows: select count(*) from t\ncheck "rows steady": {check}\n')
    return suite


@pytest.mark.parametrize(
    "strategy,column,text",
    [
        ("holt_winters(seasonal_periods = 7, window = 13)", 83, "less than two seasons of 7 runs"),
        ("holt_winters(seasonal_periods = 1)", 61, "seasonal_periods must be a whole number >= 2"),
        ("holt_winters(k = 0)", 61, "k must be a number > 0"),
    ],
)
def test_bad_holt_winters_parameters_are_refused(tmp_path, strategy, column, text):
    suite = _suite(tmp_path, f'anomaly(measures["rows"], {strategy})')
    done = gryph("validate", str(suite))
    assert done.returncode == 2 and f"{suite}:3:{column}" in done.stderr and text in done.stderr, done.stderr


# None in sys.modules makes `import statsmodels` raise ImportError, as when the extra is not installed
WITHOUT_STATSMODELS = """
import sys
sys.modules["statsmodels"] = None
from gryph.client.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_statsmodels_the_strategy_is_refused_at_validation_naming_the_extra(tmp_path):
    suite = _suite(tmp_path, 'anomaly(measures["rows"], holt_winters())')
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_STATSMODELS, "validate", str(suite)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"{suite}:3:48" in done.stderr and "ANOMALY_EXTRA_MISSING" in done.stderr
    assert "needs statsmodels" in done.stderr and 'pip install "gryph[anomaly]"' in done.stderr
    assert "Traceback" not in done.stderr


LOADS = """
import sys
from gryph.client.cli.main import main
code = main(sys.argv[1:])
print("statsmodels loaded:", "statsmodels" in sys.modules, file=sys.stderr)
sys.exit(code)
"""


def test_statsmodels_is_imported_only_by_a_check_that_uses_it(tmp_path):
    def loaded(check: str) -> str:
        suite = _suite(tmp_path, check)
        done = subprocess.run(
            [sys.executable, "-c", LOADS, "validate", str(suite)], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stderr.splitlines()[-1]

    assert loaded('anomaly(measures["rows"], normal())') == "statsmodels loaded: False"
    assert loaded('anomaly(measures["rows"], holt_winters())') == "statsmodels loaded: True"
