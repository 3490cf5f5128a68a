"""Publishing a committed batch is an outbox: a client killed after any output (history, the JSON
line, the HTML report, JUnit XML, Markdown, alerts), or at random, leaves the rest to the next start, which completes
them before a new batch, so a reader of the JSON lines, the history and the alert receiver each
see every batch once. Real processes killed with SIGKILL, alerts on the real HTTP server of
test_alerts; expected batches and alerts counted by hand from the files written."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.client.test_alerts import Hook
from tests.client.test_stream_backfill_alerts import BAD_ROWS, GOOD_ROWS, STREAM_SUITE

GOOD, BAD = GOOD_ROWS, BAD_ROWS


@pytest.fixture
def hook():
    server = Hook()
    yield server
    server.close()


def _folder(tmp_path: Path, files: list[list[dict]]) -> list[str]:
    """The suite and its files, one a batch, oldest first; the command line of its stream."""
    (tmp_path / "incoming").mkdir()
    (tmp_path / "landed.dq").write_text(STREAM_SUITE, encoding="utf-8")
    for number, rows in enumerate(files):
        path = tmp_path / "incoming" / f"{number}.json"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        moment = time.time() - 100 + number
        os.utime(path, (moment, moment))
    return ["stream", "landed.dq", "--available-now", "--format", "json", "--state", "s.duckdb"]


def _start(args: list[str], cwd: Path, crash_at: str | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "GRYPH_STREAM_CRASH_AT"}
    if crash_at is not None:
        env["GRYPH_STREAM_CRASH_AT"] = crash_at
    return subprocess.Popen(
        [sys.executable, "-m", "gryph.client.cli.main", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _batches(stdout: str) -> list[int]:
    return [json.loads(line)["stream"]["batch"] for line in stdout.splitlines()]


def _stored_batches(tmp_path: Path) -> list[str]:
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "gryph.client.cli.main",
            "history",
            "landed",
            "--history",
            "h.duckdb",
            "--format",
            "json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return sorted(run["run_id"].rsplit("-", 1)[1] for run in json.loads(shown.stdout)["runs"])


@pytest.mark.parametrize("crash_at", ["committed", "history", "printed", "report", "junit", "markdown", "alerts"])
def test_a_client_killed_after_each_output_leaves_the_rest_to_the_next_start(tmp_path, hook, crash_at):
    # batch 1 passes, 2 fails (a failure alert), 3 passes (a recovery alert)
    args = _folder(tmp_path, [GOOD, BAD, GOOD])
    args += [
        "--history",
        "h.duckdb",
        "--html",
        "r.html",
        "--junit",
        "j.xml",
        "--markdown",
        "m.md",
        "--notify",
        hook.url,
    ]
    killed = _start(args, tmp_path, crash_at)
    first, errors = killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL, errors
    # batch 1 was committed, and published up to the point: printed only once "printed" is done
    printed = crash_at in ("printed", "report", "junit", "markdown", "alerts")
    assert _batches(first) == ([1] if printed else [])
    assert (tmp_path / "r.html").exists() == (crash_at in ("report", "junit", "markdown", "alerts"))
    assert (tmp_path / "j.xml").exists() == (crash_at in ("junit", "markdown", "alerts"))
    resumed = _start(args, tmp_path)
    second, errors = resumed.communicate(timeout=180)
    assert resumed.returncode == 1, errors  # batch 2 failed its check
    assert sorted(_batches(first) + _batches(second)) == [1, 2, 3]  # every batch printed once
    assert _batches(second)[0] == (2 if printed else 1)
    assert _stored_batches(tmp_path) == ["1", "2", "3"]
    assert [r["body"]["event"] for r in hook.received] == ["failure", "recovery"]  # each alert once
    assert "landed" in (tmp_path / "r.html").read_text(encoding="utf-8")
    # the last batch's (it passed): JUnit and Markdown show its check passing
    assert 'failures="0"' in (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert "users present" in (tmp_path / "m.md").read_text(encoding="utf-8")


def test_random_kills_lose_no_batch_and_store_each_once(tmp_path):
    rng = random.Random(20261128)
    args = [*_folder(tmp_path, [GOOD] * 6), "--history", "h.duckdb", "--html", "r.html"]
    printed: list[int] = []
    kills = 0
    for _ in range(6):
        client = _start(args, tmp_path)
        time.sleep(rng.uniform(0.5, 4.0))  # a start takes about a second: kills before, during and after batches
        client.send_signal(signal.SIGKILL)
        out, _ = client.communicate(timeout=60)
        kills += client.returncode == -signal.SIGKILL
        printed += _batches(out)
    finished = _start(args, tmp_path)
    out, errors = finished.communicate(timeout=180)
    assert finished.returncode == 0, errors
    printed += _batches(out)
    assert kills > 0
    assert sorted(set(printed)) == [1, 2, 3, 4, 5, 6]  # a reader of the lines saw every batch
    # a line is printed again only when a kill fell between its write and its mark
    assert len(printed) - 6 <= kills
    assert _stored_batches(tmp_path) == ["1", "2", "3", "4", "5", "6"]
