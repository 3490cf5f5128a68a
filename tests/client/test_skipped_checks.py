"""A check that cannot judge yet is SKIP: neither passed nor failed, in every output, and it never
alerts. History functions that find no earlier run and anomaly checks without enough history."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET

from gryph.client import run
from gryph.client.alerts.routing import event_for
from gryph.client.outputs.gate import to_junit, to_markdown
from gryph.client.outputs.headline import run_headline
from gryph.client.outputs.html import html_page
from gryph.client.outputs.text import to_text
from gryph.compiler.suites.suite import NotifySpec
from tests.support.gryph_cli import gryph

SUITE = """suite daily
source t = csv("t.csv", schema = "a bigint")
measure "n": count(*)
measure "empty": select max(a) from t where a < 0
check "has rows": measures["n"] > 0
check "week on week": measures["n"] >= 0.5 * value_ago("n", "7d")
check "near the average": abs(measures["n"] - avg_previous("n", 7)) <= 5
check "as last time": measures["n"] == get_previous_measure_values("n", 1)[0]
check "seasonal": anomaly(measures["n"], seasonal(period = "7d", max_decrease = 0.5))
warn check "no value": measures["empty"] > 0
"""


def _day(tmp_path, rows: int, started: dt.datetime):
    (tmp_path / "t.csv").write_text("a\n" + "".join(f"{i}\n" for i in range(rows)))
    return run(str(tmp_path / "s.dq"), history=tmp_path / "h.duckdb", data_time=started.isoformat())


def test_history_checks_skip_until_their_earlier_run_exists(tmp_path):
    (tmp_path / "s.dq").write_text(SUITE)
    monday = dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc)
    first = _day(tmp_path, 10, monday)
    statuses = {c.name: c.status for c in first.checks}
    # "no value" reads a measure that is null for a reason of its own: no history excuses it
    # (a warning, so that Monday's run passes and joins the seasonal baseline)
    assert statuses == {
        "has rows": "PASS",
        "week on week": "SKIP",
        "near the average": "SKIP",
        "as last time": "SKIP",
        "seasonal": "SKIP",
        "no value": "WARN",
    }
    by_name = {c.name: c for c in first.checks}
    assert by_name["week on week"].skipped == 'no earlier run yet: value_ago("n", "7d") found none'
    assert by_name["as last time"].skipped == 'no earlier run yet: get_previous_measure_values("n", 1) found none'
    # one period back from Monday 00:00, give or take a tenth of 7 days (16.8 h)
    assert (
        by_name["seasonal"].skipped
        == "no run one period back: seasonal() found none from 2026-10-25 07:12 to 2026-10-26 16:48"
    )
    assert first.to_dict()["check"] == {
        "has rows": True,
        "week on week": None,
        "near the average": None,
        "as last time": None,
        "seasonal": None,
        "no value": False,
    }
    assert run_headline(first).text == "passed (policy: all) — 1 of 2 checks failed (a warning), 4 skipped"

    tuesday = _day(tmp_path, 12, monday + dt.timedelta(days=1))
    statuses = {c.name: c.status for c in tuesday.checks}
    # Monday's run is one day back: the daily comparisons judge, the weekly ones still wait
    assert statuses["near the average"] == "PASS" and statuses["as last time"] == "FAIL"  # 12 != 10
    assert statuses["week on week"] == "SKIP" and statuses["seasonal"] == "SKIP"
    # Monday's run is no Tuesday's last week: the window it looked in is named
    (seasonal,) = [c for c in tuesday.checks if c.name == "seasonal"]
    assert seasonal.skipped == "no run one period back: seasonal() found none from 2026-10-26 07:12 to 2026-10-27 16:48"
    next_monday = _day(tmp_path, 4, monday + dt.timedelta(days=7))
    statuses = {c.name: c.status for c in next_monday.checks}
    assert statuses["week on week"] == "FAIL" and statuses["seasonal"] == "FAIL"  # 4 < half of 10


def test_a_skipped_check_in_every_output(tmp_path):
    (tmp_path / "t.csv").write_text("a\n1\n")
    (tmp_path / "s.dq").write_text(
        'source t = csv("t.csv", schema = "a bigint")\nmeasure "n": count(*)\n'
        'check "has rows": measures["n"] > 0\n'
        'check "steady": anomaly(measures["n"], relative_change(max_decrease = 0.5))\n'
    )
    result = run(str(tmp_path / "s.dq"), history=tmp_path / "h.duckdb")
    reason = "not enough history: 0 earlier runs, 1 needed"
    assert result.passed and run_headline(result).text == "passed (policy: all) — the check passed, 1 skipped"
    assert run_headline(result).tone == "pass"
    assert f"SKIP    steady    skipped: {reason}" in to_text(result)
    (case,) = [c for c in ET.fromstring(to_junit(result, strict=True)).iter("testcase") if c.get("name") == "steady"]
    assert case.find("skipped").get("message").startswith(f"skipped: {reason}") and case.find("failure") is None
    assert "| steady | ⏭️ SKIP | skipped: " in to_markdown(result)
    page = html_page(result.document(), {}, [], 30)
    assert '<span class="verdict skip">SKIP</span>' in page and ".skip{background:#757575}" in page
    document = json.loads(gryph("run", str(tmp_path / "s.dq"), "--no-history", "--format", "json").stdout)
    assert document["check"] == {"has rows": True, "steady": None}
    assert [c.get("skipped") for c in document["check_details"]] == [None, reason]


def test_waiting_for_history_never_alerts(tmp_path):
    """Day 1 passes with a skipped check: its tone is pass, so no warning goes out, and the day the
    check first judges (and passes) is no recovery."""
    (tmp_path / "s.dq").write_text(
        'source t = csv("t.csv", schema = "a bigint")\nmeasure "n": count(*)\n'
        'check "steady": anomaly(measures["n"], relative_change(max_decrease = 0.5))\n'
    )
    start = dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc)
    results = [_day(tmp_path, 10, start + dt.timedelta(days=n)) for n in range(3)]
    assert [run_headline(result).tone for result in results] == ["pass", "pass", "pass"]
    documents = [result.document() for result in results]
    target = NotifySpec("webhook", "http://127.0.0.1:9/")
    assert event_for(target, documents[0], []) is None and event_for(target, documents[1], documents[:1]) is None
