"""A stream state belongs to one suite file: two suites of one name in two folders (``A/land.dq``,
``B/land.dq``, both defaulting to ``.gryph/streams/land.duckdb``) never run each other's batches,
whichever starts first, and nothing either reads is lost; a moved suite takes its state over only
when told to (--adopt-state)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from gryph.client.store.stream_state import StreamState
from tests.support.gryph_cli import gryph

SUITE = """suite land
source landed = folder("{folder}", format = "json", schema = "id bigint, who string", settle = "1ms")
profiling rows on landed: count(*) as n, max(who) as who
"""


def _suite(root: Path, name: str, folder: str = "in/") -> Path:
    (root / name / "in").mkdir(parents=True, exist_ok=True)
    path = root / name / "land.dq"
    path.write_text(SUITE.format(folder=folder), encoding="utf-8")
    return path


def _arrive(folder: Path, name: str, who: str) -> None:
    path = folder / name
    path.write_text(json.dumps({"id": 1, "who": who}) + "\n", encoding="utf-8")
    os.utime(path, (time.time() - 60,) * 2)


def _cli(*args: str, cwd: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    return gryph(*args, cwd=cwd, env={"GRYPH_STREAM_CRASH_AT": crash_at} if crash_at else None)


def _whos(run: subprocess.CompletedProcess) -> list[str]:
    assert run.returncode == 0, run.stderr
    return [json.loads(line)["metrics"]["rows"][0]["who"] for line in run.stdout.splitlines()]


@pytest.mark.parametrize(("first", "second"), [("A", "B"), ("B", "A")])
def test_two_suites_of_one_name_never_run_each_others_batch(tmp_path, first, second):
    for name in ("A", "B"):
        _suite(tmp_path, name)
        _arrive(tmp_path / name / "in", f"{name}.json", f"{name}-row")
    killed = _cli("stream", f"{first}/land.dq", "--available-now", cwd=tmp_path, crash_at="intent")
    assert killed.returncode == -9  # the first suite's batch 1 is listed, not read

    refused = _cli("stream", f"{second}/land.dq", "--available-now", "--format", "json", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""  # nothing of the first's batch printed
    assert "STREAM_OTHER_SUITE" in refused.stderr
    assert str(tmp_path / first / "land.dq") in refused.stderr and str(tmp_path / second / "land.dq") in refused.stderr
    assert f'landed = folder("{tmp_path / first / "in"}")' in refused.stderr  # what the state's stream reads
    assert "--state" in refused.stderr

    own = ("--state", f".gryph/streams/land-{second}.duckdb")
    assert _whos(_cli("stream", f"{second}/land.dq", "--available-now", "--format", "json", *own, cwd=tmp_path)) == [
        f"{second}-row"
    ]
    # the first resumes its own batch: its file is read once, by it
    assert _whos(_cli("stream", f"{first}/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == [
        f"{first}-row"
    ]
    assert _whos(_cli("stream", f"{first}/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == []


def test_status_and_reset_refuse_another_suites_state(tmp_path):
    for name in ("A", "B"):
        _suite(tmp_path, name)
    _arrive(tmp_path / "A" / "in", "a.json", "A-row")
    assert _whos(_cli("stream", "A/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == ["A-row"]
    for action in (("status",), ("reset", "--to", "earliest", "--yes")):
        refused = _cli("stream", action[0], "B/land.dq", *action[1:], cwd=tmp_path)
        assert refused.returncode == 2 and "STREAM_OTHER_SUITE" in refused.stderr
    # reset refused: A's file is still taken
    assert _whos(_cli("stream", "A/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == []


def test_a_moved_suite_takes_its_state_over_only_when_told(tmp_path):
    landing = tmp_path / "landing"
    landing.mkdir()
    old = _suite(tmp_path, "old", folder=str(landing))
    _arrive(landing, "1.json", "first")
    assert _whos(_cli("stream", "old/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == ["first"]
    (tmp_path / "new").mkdir()
    old.rename(tmp_path / "new" / "land.dq")
    _arrive(landing, "2.json", "second")
    refused = _cli("stream", "new/land.dq", "--available-now", cwd=tmp_path)
    assert refused.returncode == 2 and "--adopt-state" in refused.stderr
    adopted = _cli("stream", "new/land.dq", "--available-now", "--format", "json", "--adopt-state", cwd=tmp_path)
    assert _whos(adopted) == ["second"]  # 1.json stays read: the state went on where it stood
    assert _whos(_cli("stream", "new/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == []


def test_a_state_older_than_the_record_is_claimed_by_the_first_suite_that_opens_it(tmp_path):
    for name in ("A", "B"):
        _suite(tmp_path, name)
        _arrive(tmp_path / name / "in", f"{name}.json", f"{name}-row")
    (tmp_path / ".gryph" / "streams").mkdir(parents=True)
    StreamState(tmp_path / ".gryph" / "streams" / "land.duckdb", "land").close()  # as earlier versions left it
    assert _whos(_cli("stream", "B/land.dq", "--available-now", "--format", "json", cwd=tmp_path)) == ["B-row"]
    refused = _cli("stream", "A/land.dq", "--available-now", cwd=tmp_path)
    assert refused.returncode == 2 and "STREAM_OTHER_SUITE" in refused.stderr
