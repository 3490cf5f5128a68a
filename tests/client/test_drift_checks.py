"""drift(t.amount) run as a user runs it: gryph backfill, then runs with --data-time; the previous
run is the previous data time's, the first is SKIP. Expected statistics worked out by hand
(tests/compiler/test_drift.py: 21 values 0..20 sketch as quantiles 0, 1, ..., 20)."""

from __future__ import annotations

import json
import math
import re

import pytest

from tests.support.gryph_cli import gryph

SUITE = (
    'suite amounts\ndata_time = ${day}\nsource t = csv("${day}.csv")\n'
    'check "psi": drift(t.amount)\n'
    'check "ks": drift(t.amount, method = ks, threshold = 0.3)\n'
)
EVEN = [str(v) for v in range(21)]  # 0..20: quantiles 0, 1, ..., 20
SQUEEZED = [str(v / 2) for v in range(21)]  # 0, 0.5, ..., 10: quantiles 0, 0.5, ..., 10


def _suite(folder, days: dict[str, list[str]]) -> None:
    for day, values in days.items():
        (folder / f"{day}.csv").write_text("amount\n" + "\n".join(values) + "\n", encoding="utf-8")
    (folder / "amounts.dq").write_text(SUITE, encoding="utf-8")


def _run(folder, day: str) -> dict[str, dict]:
    done = gryph("run", "amounts.dq", "--var", f"day={day}", "--format", "json", cwd=folder)
    return {check["name"]: check for check in json.loads(done.stdout)["check_details"]}


def test_first_run_skips_then_the_same_passes_and_a_squeeze_fails(tmp_path):
    _suite(tmp_path, {"2026-03-01": EVEN, "2026-03-02": EVEN, "2026-03-03": SQUEEZED})
    done = gryph(
        "backfill", "amounts.dq", "--from", "2026-03-01", "--to", "2026-03-03", "--var", "day={data_time}", cwd=tmp_path
    )
    assert done.stdout.splitlines() == ["2026-03-01: passed", "2026-03-02: passed", "2026-03-03: FAILED"]
    # 03-03 again: compared with 03-02 (its previous data time), not with the run of 03-03 stored by backfill
    checks = _run(tmp_path, "2026-03-03")
    assert checks["psi"]["status"] == "FAIL" and checks["ks"]["status"] == "FAIL"
    psi = checks["psi"]["values"]
    assert psi["psi"] == pytest.approx(0.5 * math.log(2) + 0.499 * math.log(500))  # 3.4477
    assert psi["threshold"] == 0.2 and psi["previous run"] == "2026-03-02T00:00:00+00:00"
    # the two distributions: NULL, NaN and below 0 empty, then [0, 1) ... [19, 20), then 20 and above
    assert [(b["before"], b["now"]) for b in psi["bins"][3:23]] == [(0.05, 0.1)] * 10 + [(0.05, 0.0)] * 10
    ks = checks["ks"]["values"]
    assert ks["quantiles before"] == [float(v) for v in range(21)] and ks["quantiles now"] == [v / 2 for v in range(21)]
    assert ks["ks"] == pytest.approx(0.5)  # F = x/20 against x/10, apart most at x = 10


def test_the_previous_run_is_the_previous_data_time(tmp_path):
    _suite(tmp_path, {"2026-03-02": EVEN, "2026-03-01": SQUEEZED})
    first = _run(tmp_path, "2026-03-02")
    assert first["psi"]["status"] == "SKIP" and first["psi"]["skipped"] == "no earlier run to compare with"
    # a late day before it has no earlier run either: the history is read in data-time order
    late = _run(tmp_path, "2026-03-01")
    assert late["psi"]["status"] == "SKIP"
    again = _run(tmp_path, "2026-03-02")  # now compared with 03-01's squeezed amounts
    assert again["psi"]["status"] == "FAIL" and again["psi"]["values"]["previous run"] == "2026-03-01T00:00:00+00:00"


@pytest.mark.parametrize(
    "check,says,column",
    [
        ("drift(t.day)", "drift() compares a column of numbers, text or booleans, and t.day is none of them", 18),
        ("drift(t.amount, method = chi)", "method must be psi or ks for a column of numbers, got 'chi'", 28),
        ("drift(t.amount, method = linf)", "method must be psi or ks for a column of numbers, got 'linf'", 28),
        (
            "drift(t.name, method = ks)",
            "method must be psi or linf for a text or boolean column's categories, got 'ks'",
            26,
        ),
        ("drift(t.amount, threshold = 0)", "threshold must be a number > 0, got 0", 28),
        ("drift(t.amount, window = 3)", "drift() has no parameter 'window'", 28),
        ("drift(t.amount) and true", "drift(...) is not a value: a drift check is a check of its own", 12),
        ("t.amount > 0", "t.amount is a column: only drift(...) reads one", 12),
        ('drift(measures["m"])', "drift() compares a source's column", 18),
    ],
)
def test_a_wrong_drift_check_is_a_located_error(tmp_path, check, says, column):
    (tmp_path / "t.csv").write_text("amount,name,day\n1,a,2026-03-01\n", encoding="utf-8")
    (tmp_path / "s.dq").write_text(
        f'source t = csv("t.csv")\nmeasure "m": select count(*) from t\ncheck "c": {check}\n', encoding="utf-8"
    )
    done = gryph("validate", "s.dq", cwd=tmp_path)
    assert done.returncode == 2
    assert f"s.dq:3:{column}: error BAD_DRIFT_CHECK: {says}" in done.stdout + done.stderr


def _drift_charts(folder, suite: str) -> list[list[dict]]:
    """The data of each drift chart in the HTML report of 2026-03-02's run, after 2026-03-01's."""
    gryph("run", suite, "--var", "day=2026-03-01", cwd=folder)
    gryph("run", suite, "--var", "day=2026-03-02", "--html", "report.html", cwd=folder)
    page = (folder / "report.html").read_text(encoding="utf-8")
    specs = re.findall(r'<figure class="chart" id="drift-[^"]*"><svg.*?class="vl-spec">(.*?)</script>', page, re.S)
    return [json.loads(spec)["data"]["values"] for spec in specs]


def test_the_html_report_draws_both_distributions(tmp_path):
    _suite(tmp_path, {"2026-03-01": EVEN, "2026-03-02": SQUEEZED})
    bars, lines = _drift_charts(tmp_path, "amounts.dq")
    # PSI: 1/20 of the rows in each of [0, 1) .. [19, 20) before; now 1/10 in each of [0, 1) .. [9, 10)
    assert {(b["bin"], b["run"]): b["share"] for b in bars}[("0 – 1", "before")] == 0.05
    assert [b["share"] for b in bars if b["run"] == "now" and b["bin"] in ("9 – 10", "10 – 11")] == [0.1, 0.0]
    # KS: each run's quantile q_i at cumulative share i / 20
    assert [(p["value"], p["share"]) for p in lines if p["run"] == "now"] == [(i / 2, i / 20) for i in range(21)]


STATUS_SUITE = (
    'suite orders\ndata_time = ${day}\nsource orders = csv("${day}.csv")\n'
    'check "psi": drift(orders.status)\n'
    'check "linf": drift(orders.status, method = linf)\n'
)
PAID_MOSTLY = ["paid", "paid", "paid", "open", ""]  # an empty field is NULL: shares 0.6, 0.2, NULL 0.2
REFUNDS = ["paid", "open", "open", "refunded", ""]  # 0.2, 0.4, 0.2 (refunded: new), NULL 0.2


def _status_days(folder, days: dict[str, list[str]]) -> None:
    for day, values in days.items():
        # two columns: in a file of one column an empty line is no row (as Spark reads it)
        rows = "".join(f"{i},{value}\n" for i, value in enumerate(values))
        (folder / f"{day}.csv").write_text("id,status\n" + rows, encoding="utf-8")
    (folder / "orders.dq").write_text(STATUS_SUITE, encoding="utf-8")


def test_a_text_columns_categories_drift_read_back_from_the_history(tmp_path):
    _status_days(tmp_path, {"2026-03-01": PAID_MOSTLY, "2026-03-02": REFUNDS})
    done = gryph(
        "backfill", "orders.dq", "--from", "2026-03-01", "--to", "2026-03-02", "--var", "day={data_time}", cwd=tmp_path
    )
    assert done.stdout.splitlines() == ["2026-03-01: passed", "2026-03-02: FAILED"]
    done = gryph("run", "orders.dq", "--var", "day=2026-03-02", "--format", "json", "--junit", "j.xml", cwd=tmp_path)
    checks = {check["name"]: check for check in json.loads(done.stdout)["check_details"]}
    psi = checks["psi"]["values"]
    # paid (0.2 - 0.6) ln(1/3) + open 0.2 ln 2 + refunded (0.2 - 0.0001) ln 2000; NULL unchanged
    assert psi["psi"] == pytest.approx(-0.4 * math.log(1 / 3) + 0.2 * math.log(2) + 0.1999 * math.log(2000))
    assert psi["previous run"] == "2026-03-01T00:00:00+00:00" and psi["appeared"] == ["refunded"]
    assert [b.get("bin", b.get("category")) for b in psi["bins"]] == ["NULL", "paid", "open", "refunded", "other"]
    assert checks["linf"]["values"]["linf"] == pytest.approx(0.4)  # paid: 0.6 -> 0.2
    assert checks["psi"]["status"] == checks["linf"]["status"] == "FAIL"
    junit = (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert junit.count("<failure") == 2 and "linf = 0.4" in junit
    stored = gryph("history", "orders", "--measure", "sketch(orders.status)", "--format", "json", cwd=tmp_path)
    by_day = {run["data_time"]: run["value"] for run in json.loads(stored.stdout)["runs"]}
    assert by_day["2026-03-01"] == {"rows": 5, "null": 1, "other": 0, "categories": [["paid", 3], ["open", 1]]}


def test_the_html_report_draws_both_runs_category_bars(tmp_path):
    _status_days(tmp_path, {"2026-03-01": PAID_MOSTLY, "2026-03-02": REFUNDS})
    charts = _drift_charts(tmp_path, "orders.dq")
    for chart in charts:  # both checks (psi and linf) draw the same bars
        bars = {(b["bin"], b["run"]): b["share"] for b in chart}
        # a category's label is quoted: one named "other" is not the bin of the rest
        assert bars[('"paid"', "before")] == 0.6 and bars[('"paid"', "now")] == 0.2
        assert bars[('"refunded"', "before")] == 0.0 and bars[('"refunded"', "now")] == 0.2
        assert bars[("NULL", "now")] == 0.2 and bars[("other", "now")] == 0.0
    assert len(charts) == 2


def test_a_boolean_column_drifts_as_two_categories(tmp_path):
    (tmp_path / "s.dq").write_text(
        'suite flags\ndata_time = ${day}\nsource t = csv("${day}.csv")\ncheck "c": drift(t.ok, method = linf)\n',
        encoding="utf-8",
    )
    (tmp_path / "2026-03-01.csv").write_text("ok\ntrue\ntrue\ntrue\nfalse\n", encoding="utf-8")
    (tmp_path / "2026-03-02.csv").write_text("ok\ntrue\nfalse\nfalse\nfalse\n", encoding="utf-8")
    gryph("run", "s.dq", "--var", "day=2026-03-01", cwd=tmp_path)
    done = gryph("run", "s.dq", "--var", "day=2026-03-02", "--format", "json", cwd=tmp_path)
    [check] = json.loads(done.stdout)["check_details"]
    # true 3/4 -> 1/4, false 1/4 -> 3/4: linf 0.5
    assert check["status"] == "FAIL" and check["values"]["linf"] == pytest.approx(0.5)
    assert [b.get("bin", b.get("category")) for b in check["values"]["bins"]] == ["NULL", "true", "false", "other"]
