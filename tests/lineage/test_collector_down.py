"""A collector that is down never changes the verdict (issue 45 item 3): each event has one
bounded deadline, a failure is one warning on stderr, and the exit code is an alert's: 5 when the
run passed, the run's own when it failed."""

from __future__ import annotations

import time

import pytest

from gryph.client.cli.main import main
from gryph.client.lineage import emitter
from gryph.client.spark.session.local_server import free_port
from tests.lineage.lineage_support import Collector, people


def _run(suite, *args: str) -> int:
    return main(["run", str(suite), "--no-history", "--quiet", *args])


@pytest.mark.parametrize(("op", "exit_code"), [(">=", 5), ("==", 1)], ids=["passed", "failed"])
def test_a_refused_connection_is_a_warning_and_the_verdict_stands(tmp_path, capsys, op, exit_code):
    suite = people(tmp_path, op)
    port = free_port()
    down = f"http://user:pw-secret-77@127.0.0.1:{port}/api/v1/lineage?token=tok-secret-78"
    assert _run(suite) == exit_code % 5  # the same run without lineage: 0 or 1
    capsys.readouterr()
    assert _run(suite, "--openlineage", down) == exit_code
    out, err = capsys.readouterr()
    assert "people_daily" in out  # the report, as without lineage
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, err  # START and the end event, each told once
    assert all("LINEAGE_NOT_SENT" in w and f"to http://127.0.0.1:{port} " in w for w in warnings)
    assert "pw-secret-77" not in err and "tok-secret-78" not in err


def test_a_collector_that_never_answers_costs_at_most_the_deadline(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(emitter, "DEADLINE_SECONDS", 1.0)
    silent = Collector(silent=True)
    try:
        began = time.monotonic()
        assert _run(people(tmp_path, ">="), "--openlineage", silent.url) == 5
        took = time.monotonic() - began
    finally:
        silent.close()
    assert took < 2 * 1.0 + 5  # two events of one second each, and the run itself
    err = capsys.readouterr().err
    assert err.count("within the 1 s deadline") == 2, err


def test_a_file_that_cannot_be_written_is_a_warning(tmp_path, capsys):
    suite = people(tmp_path, ">=")
    events = tmp_path / "events.jsonl"
    events.mkdir()  # a folder where the file goes: refused before the run
    assert _run(suite, "--openlineage", str(events)) == 2
    assert "--openlineage" in capsys.readouterr().err
