"""Alerts from `gryph stream` (a folder stream, per batch) and `gryph backfill` (per run), on the
real HTTP server of test_alerts: a message only when the verdict changes from the batch or run
before, as `gryph run` sends them; a delivery failure is a warning (exit 5) that leaves the
verdict alone, and a bad target is refused before anything runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from gryph.client.store.history import HistoryStore
from tests.client.test_alerts import Hook

STREAM_SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, user string",
                       settle = "1ms", max_files_per_batch = 1)
measure nulls: select count(*) from landed where user is null
check "users present": measures["nulls"] == 0
pass when all
"""
GOOD_ROWS, BAD_ROWS = [{"id": 1, "user": "ä"}], [{"id": 2, "user": None}]


@pytest.fixture
def server():
    hook = Hook()
    yield hook
    hook.close()


def _stream_suite(folder: Path) -> Path:
    (folder / "incoming").mkdir()
    path = folder / "landed.dq"
    path.write_text(STREAM_SUITE, encoding="utf-8")
    return path


def _arrive(folder: Path, name: str, rows: list[dict], age_s: float) -> None:
    """A file landed ``age_s`` seconds ago (modification times order the files)."""
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))


def _stream(suite: Path, *args: str) -> int:
    return main(["stream", str(suite), "--state", str(suite.parent / "state.duckdb"), "--format", "json", *args])


def test_a_stream_without_history_alerts_when_a_batch_changes_the_verdict(tmp_path, server, capsys):
    suite = _stream_suite(tmp_path)
    # one file a batch, oldest first: pass, fail, fail, pass
    for age, (name, rows) in enumerate(
        reversed([("1", GOOD_ROWS), ("2", BAD_ROWS), ("3", BAD_ROWS), ("4", GOOD_ROWS)])
    ):
        _arrive(tmp_path, f"{name}.json", rows, 10 + age)
    assert _stream(suite, "--available-now", "--notify", server.url) == 1  # batches 2 and 3 failed
    assert len(capsys.readouterr().out.splitlines()) == 4  # four batches ran
    # batch 1 passed (nothing to say), 2 failed, 3 still failing (nothing), 4 recovered
    events = [r["body"] for r in server.received]
    assert [(e["event"], e["verdict"], e["suite"]) for e in events] == [
        ("failure", "fail", "landed"),
        ("recovery", "pass", "landed"),
    ]
    assert events[0]["failed"] == [
        {"name": "users present", "expression": 'measures["nulls"] == 0', "values": {'measures["nulls"]': 1}}
    ]


def test_a_stream_with_history_compares_with_the_stored_batch_across_processes(tmp_path, server):
    suite = _stream_suite(tmp_path)
    history = ("--history", str(tmp_path / "h.duckdb"), "--notify", server.url, "--once")
    _arrive(tmp_path, "1.json", BAD_ROWS, 30)
    assert _stream(suite, *history) == 1 and [r["body"]["event"] for r in server.received] == ["failure"]
    _arrive(tmp_path, "2.json", BAD_ROWS, 20)
    assert _stream(suite, *history) == 1 and len(server.received) == 1  # the history's last batch failed too
    _arrive(tmp_path, "3.json", GOOD_ROWS, 10)
    assert _stream(suite, *history) == 0
    assert [r["body"]["event"] for r in server.received] == ["failure", "recovery"]


def test_a_stream_refuses_a_bad_target_before_its_first_batch(tmp_path, capsys):
    suite = _stream_suite(tmp_path)
    _arrive(tmp_path, "1.json", BAD_ROWS, 10)
    assert _stream(suite, "--once", "--notify", "ftp://127.0.0.1/x") == 2
    assert "BAD_NOTIFY" in capsys.readouterr().err
    assert not (tmp_path / "state.duckdb").exists()  # no batch ran


def _backfill_suite(tmp_path: Path, warn: bool = False) -> str:
    """A day's file is t_DAY.csv; its one check: no NULL email."""
    check = 'warn check "no nulls"' if warn else 'check "no nulls"'
    (tmp_path / "s.dq").write_text(
        "suite daily\n"
        'source t = csv("t_${day}.csv", schema = "id bigint, email string")\n'
        "measure nulls: select count(*) from t where email is null\n"
        f'{check}: measures["nulls"] == 0\n'
        "pass when all\n"
    )
    return str(tmp_path / "s.dq")


def _days(tmp_path: Path, emails: dict[str, str]) -> None:
    for day, email in emails.items():
        (tmp_path / f"t_{day}.csv").write_text(f"id,email\n1,{email}\n")


def _backfill(tmp_path: Path, start: str, end: str, *args: str) -> int:
    suite = str(tmp_path / "s.dq")
    options = ["--history", str(tmp_path / "h.duckdb"), "--var", "day={data_time}"]
    return main(["backfill", suite, "--from", start, "--to", end, *options, *args])


def test_a_backfill_alerts_per_run_as_gryph_run_does(tmp_path, server):
    _backfill_suite(tmp_path)
    _days(tmp_path, {"2026-11-01": "a@x", "2026-11-02": "", "2026-11-03": "", "2026-11-04": "d@x"})
    assert _backfill(tmp_path, "2026-11-01", "2026-11-04", "--notify", server.url) == 1
    # the 1st passed (nothing to say), the 2nd failed, the 3rd still failing, the 4th recovered
    assert [(r["body"]["event"], r["body"]["data_time"]) for r in server.received] == [
        ("failure", "2026-11-02"),
        ("recovery", "2026-11-04"),
    ]
    assert server.received[0]["body"]["failed"][0]["values"] == {'measures["nulls"]': 1}


def test_a_backfill_before_a_newer_run_compares_each_day_with_the_day_before_it(tmp_path, server):
    # 03-10 passed and is the newest run; 03-01..03 then fail every day. Day 1 has no run before
    # it (a first failure alerts), days 2 and 3 follow a failed day: one alert, not three
    _backfill_suite(tmp_path)
    _days(tmp_path, {"2026-03-10": "a@x", "2026-03-01": "", "2026-03-02": "", "2026-03-03": ""})
    assert _backfill(tmp_path, "2026-03-10", "2026-03-10") == 0
    assert _backfill(tmp_path, "2026-03-01", "2026-03-03", "--notify", server.url) == 1
    assert [(r["body"]["event"], r["body"]["data_time"]) for r in server.received] == [("failure", "2026-03-01")]


def test_a_backfill_delivery_failure_is_a_warning_with_exit_5(tmp_path, server, capsys):
    _backfill_suite(tmp_path, warn=True)
    _days(tmp_path, {"2026-11-01": "", "2026-11-02": ""})
    server.status = 500
    assert _backfill(tmp_path, "2026-11-01", "2026-11-02", "--notify", server.url) == 5
    err = capsys.readouterr().err
    assert "warning:" in err and "500" in err and "the run passed" in err
    assert len(server.received) == 1  # the 2nd day's warning is no change from the 1st's
    assert len(HistoryStore(tmp_path / "h.duckdb").documents("daily", 10)) == 2  # both runs stored


def test_a_backfill_refuses_a_bad_target_before_its_first_run(tmp_path, capsys):
    _backfill_suite(tmp_path)
    _days(tmp_path, {"2026-11-01": "a@x"})
    assert _backfill(tmp_path, "2026-11-01", "2026-11-01", "--notify", "ftp://127.0.0.1/x") == 2
    assert "BAD_NOTIFY" in capsys.readouterr().err
    assert not (tmp_path / "h.duckdb").exists()
