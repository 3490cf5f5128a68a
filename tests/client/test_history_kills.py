"""Runs killed with SIGKILL at random points while they read data and write history: the history
file stays readable, holds every run that completed, and no report is ever half written."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from gryph.client.store.history import HistoryStore

ROOT = Path(__file__).resolve().parents[2]
GRYPH = Path(sys.executable).parent / "gryph"
KILLS = 12


def test_sigkill_at_random_points_loses_no_completed_run(tmp_path):
    rng = random.Random(20261123)  # fixed: the kill points are the same on every run of the test
    history = tmp_path / "history.duckdb"
    command = [str(GRYPH)] if GRYPH.exists() else [sys.executable, "-m", "gryph.client.cli.main"]
    # kill points relative to how long a whole run takes on this machine now: the early half
    # cannot let a run finish, the late half almost always does
    clock = time.perf_counter()
    subprocess.run(
        [*command, "run", "examples/users.dq", "--no-history", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=300,
    )
    whole = time.perf_counter() - clock
    kill_points = [rng.uniform(0.0, 0.4 * whole) for _ in range(KILLS // 2)]
    kill_points += [rng.uniform(0.4 * whole, 3.0 * whole) for _ in range(KILLS - KILLS // 2)]
    reports = []
    for attempt, kill_point in enumerate(kill_points):
        report = tmp_path / f"report{attempt}.json"
        process = subprocess.Popen(
            [
                *command,
                "run",
                "examples/users.dq",
                "--history",
                str(history),
                "--format",
                "json",
                "--output",
                str(report),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(kill_point)
        process.kill()
        process.wait()
        reports.append(report)
    finished = [r for r in reports if r.exists()]
    for report in finished:  # a report exists whole or not at all (written beside it, then renamed)
        assert json.loads(report.read_text(encoding="utf-8"))["name"] == "users_daily"
    # the history is stored before the report is written: every finished report has its run
    stored = HistoryStore(history).runs("users_daily", 1000) if history.exists() else []
    assert len(stored) >= len(finished)
    assert 0 < len(finished) < KILLS  # the kill points fall both before and after runs complete
    # and a run after the kills still reads and extends it
    done = subprocess.run(
        [*command, "run", "examples/users.dq", "--history", str(history)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(HistoryStore(history).runs("users_daily", 1000)) == len(stored) + 1
