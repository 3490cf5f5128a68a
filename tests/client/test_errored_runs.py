"""A run that breaks before its checks judge (a day's file missing, a column a rule reads dropped)
leaves a trace: a history run whose verdict is error with its code and message, an alert (one per
incident, a recovery after), a section of the report; a backfill runs every day and exits with
the worst; history functions and baselines read no value of an errored run."""

from __future__ import annotations

import pytest

from gryph.client.cli.main import main
from gryph.client.store.history import HistoryStore
from tests.client.test_alerts import Hook

SUITE = """source t = csv("t_${day}.csv")
measure nulls: select count(*) from t where email is null
check "no nulls": measures["nulls"] == 0
check "steady": anomaly(measures["nulls"], absolute_change(max_increase = 1))
"""


@pytest.fixture
def hook():
    server = Hook()
    yield server
    server.close()


def _day(folder, day: str, header: str = "id,email", row: str = "1,a@x") -> None:
    (folder / f"t_{day}.csv").write_text(f"{header}\n{row}\n", encoding="utf-8")


def _run(folder, day: str, *args: str) -> int:
    suite = folder / "s.dq"
    suite.write_text(SUITE, encoding="utf-8")
    history = ["--history", str(folder / "h.duckdb")]
    return main(["run", str(suite), "--data-time", day, "--var", f"day={day}", *history, *args])


def test_a_backfill_runs_every_day_keeps_the_broken_one_and_exits_with_the_worst(tmp_path, capsys):
    _day(tmp_path, "2026-03-01")
    _day(tmp_path, "2026-03-03")  # 03-02's file never arrived
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    args = ["backfill", str(tmp_path / "s.dq"), "--from", "2026-03-01", "--to", "2026-03-03"]
    code = main([*args, "--var", "day={data_time}", "--history", str(tmp_path / "h.duckdb")])
    out = capsys.readouterr()
    assert code == 3  # SOURCE_NOT_FOUND's exit, worse than the days that passed
    assert out.out.splitlines() == ["2026-03-01: passed", "2026-03-02: ERROR SOURCE_NOT_FOUND", "2026-03-03: passed"]
    documents = HistoryStore(tmp_path / "h.duckdb").documents("s", 10)
    assert [(d.data_time, d.passed, d.error and d.error.code) for d in documents] == [
        ("2026-03-01", True, None),
        ("2026-03-02", False, "SOURCE_NOT_FOUND"),
        ("2026-03-03", True, None),
    ]
    broken = documents[1]
    assert broken.error is not None and "t_2026-03-02.csv" in broken.error.message and broken.error.exit_code == 3
    assert broken.measures == {} and broken.checks == ()
    assert broken.duration_seconds > 0  # the time it took to break (the engine opened, the file sought)
    # 03-03's anomaly check compared with 03-01, the errored day read as no value: it judged (no SKIP)
    assert [c.status for c in documents[2].checks] == ["PASS", "PASS"]
    assert main(["report", "s", "--history", str(tmp_path / "h.duckdb"), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Runs that broke (1)" in page and "<td>2026-03-02</td><td>SOURCE_NOT_FOUND</td>" in page


def test_a_dropped_column_alerts_once_as_an_incident_and_recovers(tmp_path, hook, capsys):
    _day(tmp_path, "2026-03-01")
    assert _run(tmp_path, "2026-03-01", "--notify", hook.url) == 0
    _day(tmp_path, "2026-03-02", header="id,mail")  # the column the measure reads is gone
    assert _run(tmp_path, "2026-03-02", "--notify", hook.url) == 2  # as before: the error's exit code
    assert "UNKNOWN_COLUMN" in capsys.readouterr().err
    _day(tmp_path, "2026-03-03", header="id,mail")  # still broken: the same incident, no new alert
    assert _run(tmp_path, "2026-03-03", "--notify", hook.url) == 2
    _day(tmp_path, "2026-03-04")
    assert _run(tmp_path, "2026-03-04", "--notify", hook.url) == 0
    events = [
        (r["body"]["event"], r["body"]["data_time"], r["body"].get("error", {}).get("code")) for r in hook.received
    ]
    assert events == [("error", "2026-03-02", "UNKNOWN_COLUMN"), ("recovery", "2026-03-04", None)]
    assert hook.received[0]["body"]["verdict"] == "error"
    headline = hook.received[0]["body"]["headline"]  # the verdict and code first, once; where last
    assert headline.startswith("error UNKNOWN_COLUMN: unknown column 'email' (at ") and headline.endswith("s.dq:2:45)")
