"""A level shift re-learns: after ``relearn_after`` consecutive anomalies (default 3) their runs join
the baseline, and ``gryph history accept SUITE --data-time D`` marks a run as normal by hand.
The issue's case (14 days near 100, then 10 near 200, ``normal(window = 14)``) run as a user runs
it, with ``gryph backfill``; every bound worked out by hand."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from gryph.client.store.history import HistoryStore
from tests.client.test_anomaly_checks import NOW, outcome, record
from tests.support.gryph_cli import gryph

OLD_LEVEL = [100, 101, 99, 102, 98, 100, 101, 99, 100, 102, 98, 101, 99, 100]  # 03-01 .. 03-14
NEW_LEVEL = [200, 201, 199, 202, 198, 200, 201, 199, 200, 202]  # 03-15 .. 03-24
DAYS = [(dt.date(2026, 3, 1) + dt.timedelta(days=i)).isoformat() for i in range(25)]


def _suite(folder, strategy: str):
    for day, value in zip(DAYS, [*OLD_LEVEL, *NEW_LEVEL, 201], strict=True):
        (folder / f"{day}.csv").write_text(f"v\n{value}\n", encoding="utf-8")
    (folder / "shift.dq").write_text(
        'suite shift\ndata_time = ${day}\nsource t = csv("${day}.csv")\n'
        "measure level: select max(v) from t\n"
        f'check "level steady": anomaly(measures["level"], {strategy})\n',
        encoding="utf-8",
    )


def _backfill(folder, last: str) -> list[str]:
    done = gryph("backfill", "shift.dq", "--from", DAYS[0], "--to", last, "--var", "day={data_time}", cwd=folder)
    return done.stdout.splitlines()


def _run(folder, day: str) -> dict:
    done = gryph("run", "shift.dq", "--var", f"day={day}", "--format", "json", cwd=folder)
    [check] = json.loads(done.stdout)["check_details"]
    return check


def _mean_and_stddev(values: list[int]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def test_a_level_shift_is_the_baseline_after_three_anomalies(tmp_path):
    _suite(tmp_path, "normal(window = 14)")
    lines = _backfill(tmp_path, DAYS[23])
    # 03-15..03-17 are the three anomalies; from 03-18 on they are in the baseline: 03-18's window
    # is 03-04..03-17 (eleven old days and three new ones), whose bounds hold 198
    assert lines[14:17] == ["2026-03-15: FAILED", "2026-03-16: FAILED", "2026-03-17: FAILED"]
    assert lines[17:] == [f"{day}: passed" for day in DAYS[17:24]]
    window = [*OLD_LEVEL[3:], *NEW_LEVEL[:3]]  # 03-18's baseline: the 14 runs before it
    mean, stddev = _mean_and_stddev(window)
    assert mean == pytest.approx((1100 + 600) / 14)  # 03-04..03-14: 1400 - (100 + 101 + 99)
    assert mean - 3 * stddev <= 198 <= mean + 3 * stddev
    # the issue's run: 201 on 03-25 against 03-11..03-24 (98, 101, 99, 100 and the ten new days)
    check = _run(tmp_path, DAYS[24])
    assert check["status"] == "PASS"
    mean, stddev = _mean_and_stddev([98, 101, 99, 100, *NEW_LEVEL])
    assert check["values"]["baseline mean"] == pytest.approx(2400 / 14) == pytest.approx(mean)
    assert check["values"]["baseline stddev"] == pytest.approx(stddev)


def test_without_relearning_the_shift_fails_forever_as_the_issue_found(tmp_path):
    _suite(tmp_path, "normal(window = 14, relearn_after = 0)")
    lines = _backfill(tmp_path, DAYS[23])
    assert lines[14:] == [f"{day}: FAILED" for day in DAYS[14:24]]
    check = _run(tmp_path, DAYS[24])
    assert check["status"] == "FAIL"
    assert check["values"]["baseline mean"] == pytest.approx(sum(OLD_LEVEL) / 14)  # 1400 / 14 = 100


def test_history_accept_marks_a_run_normal_by_hand(tmp_path):
    _suite(tmp_path, "normal(window = 14, relearn_after = 0)")
    _backfill(tmp_path, DAYS[15])  # 03-15 and 03-16 (200, 201) failed
    accepted = gryph("history", "accept", "shift", "--data-time", "2026-03-15", cwd=tmp_path)
    assert accepted.returncode == 0 and accepted.stdout.startswith("accepted shift at 2026-03-15 (run ")
    assert gryph("history", "accept", "shift", "--data-time", "2026-03-16", cwd=tmp_path).returncode == 0
    # twice is once: the baseline holds the run one time
    assert gryph("history", "accept", "shift", "--data-time", "2026-03-16", cwd=tmp_path).returncode == 0
    listed = json.loads(gryph("history", "shift", "--limit", "3", "--format", "json", cwd=tmp_path).stdout)["runs"]
    assert [(r["data_time"], r.get("accepted", False)) for r in listed] == [
        ("2026-03-16", True),
        ("2026-03-15", True),
        ("2026-03-14", False),
    ]
    table = gryph("history", "shift", "--measure", "level", "--limit", "2", cwd=tmp_path).stdout
    assert "2026-03-16 (accepted)  False" in table
    # 03-17 (199) against 03-03..03-16: twelve old days (1199) and the two accepted (401)
    check = _run(tmp_path, DAYS[16])
    assert check["values"]["baseline runs"] == 14
    assert check["values"]["baseline mean"] == pytest.approx((1199 + 401) / 14)
    assert check["status"] == "PASS"


@pytest.mark.parametrize(
    "args,code,text",
    [
        (["accept", "shift", "--data-time", "2026-04-01"], "NO_RUN_AT_DATA_TIME", "2026-03-02, 2026-03-01"),
        (["accept", "shift", "--data-time", "yesterday"], "BAD_DATA_TIME", "yesterday"),
        (["accept", "nosuch", "--data-time", "2026-03-01"], "NO_STORED_RUNS", "suites stored there: shift"),
        (["accept", "shift"], "BAD_OPTION", "accept SUITE --data-time"),
        (["shift", "--data-time", "2026-03-01"], "BAD_OPTION", "accept SUITE --data-time"),
    ],
)
def test_bad_accepts_are_refused_with_a_hint(tmp_path, args, code, text):
    _suite(tmp_path, "normal()")
    _backfill(tmp_path, DAYS[1])
    done = gryph("history", *args, cwd=tmp_path)
    assert done.returncode == 2 and f"error {code}" in done.stderr and text in done.stderr


def test_a_streak_is_counted_among_the_runs_the_check_judged(tmp_path):
    """A failed run (another check) or a skipped one does not break a streak; a calm run does, and
    two anomalies then stay out of the baseline."""
    store = HistoryStore(tmp_path / "h.duckdb")
    for days_ago, value, anomaly in [(7, 10, False), (6, 12, False), (5, 50, True), (4, 51, True), (3, 11, False)]:
        record(store, NOW - dt.timedelta(days=days_ago), value, passed=not anomaly, anomalies={"c": anomaly})
    record(store, NOW - dt.timedelta(days=2), 52, passed=False, anomalies={"c": True})
    record(store, NOW - dt.timedelta(days=1), 53, passed=False, anomalies={"c": True})
    # a streak of two (5, 4 days ago) broken by a calm run, then a streak of two: nothing re-learnt
    found = outcome(store, 'anomaly(measures["n"], normal(k = 1))', 11)
    assert found.values["baseline mean"] == 11.0 and found.values["baseline runs"] == 3
    # with relearn_after = 2 both streaks join: 10, 12, 50, 51, 11, 52, 53
    two = outcome(store, 'anomaly(measures["n"], normal(k = 1, relearn_after = 2))', 11)
    assert two.values["baseline runs"] == 7 and two.values["baseline mean"] == pytest.approx(239 / 7)
    # a run where the check did not judge (too little history of another check failed it) does not
    # break a streak: 52, 53, (skipped), 54 is a streak of three, re-learnt by default
    record(store, NOW - dt.timedelta(hours=36), 99, passed=False)
    record(store, NOW - dt.timedelta(hours=12), 54, passed=False, anomalies={"c": True})
    three = outcome(store, 'anomaly(measures["n"], absolute_change(max_increase = 1))', 55)
    assert three.values["upper bound"] == 55.0  # the last run of the baseline is 54, not 11
    found = outcome(store, 'anomaly(measures["n"], normal(k = 1))', 11)
    assert found.values["baseline runs"] == 6  # 10, 12, 11 and 52, 53, 54; never the failed 99
    assert found.values["baseline mean"] == pytest.approx(192 / 6)


def test_relearn_after_must_be_a_whole_number(tmp_path):
    _suite(tmp_path, "normal(relearn_after = -1)")
    done = gryph("run", "shift.dq", "--var", "day=2026-03-01", "--no-history", cwd=tmp_path)
    assert done.returncode == 2 and "relearn_after must be a whole number >= 0, got -1" in done.stderr
