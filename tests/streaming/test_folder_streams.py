"""``gryph stream`` over a folder that files arrive in: each settled file read exactly once, in
order of arrival, in batches capped by max_files_per_batch; the state survives crashes at every
step; a second client is refused. Expected values are counted by hand from the files written."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gryph.client.cli.main import main
from gryph.client.store.stream_state import StreamState
from gryph.client.streaming.stream_runner import stream

SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, user string, amount double",
                       settle = "1ms"{cap})
completeness users_present on landed: user
uniqueness ids on landed: id
profiling totals on landed: count(*) as n, sum(amount) as total, min(__tmst) as first_tmst
measure "rows": select count(*) from landed
check "some rows": measures["rows"] > 0
pass when all
"""


def _suite(folder: Path, cap: int | None = None) -> Path:
    (folder / "incoming").mkdir(exist_ok=True)
    path = folder / "landed.dq"
    path.write_text(SUITE.format(cap="" if cap is None else f", max_files_per_batch = {cap}"), encoding="utf-8")
    return path


def _arrive(folder: Path, name: str, rows: list[dict], age_s: float = 60.0) -> Path:
    """A file landed ``age_s`` seconds ago (modification times order the files)."""
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))
    return path


def _batches(suite: Path, **options) -> list[dict]:
    state = suite.parent / "state.duckdb"
    return [result.to_dict() for result in stream(suite, state=state, **options)]


def test_each_file_is_read_once_in_order_of_arrival(tmp_path):
    suite = _suite(tmp_path)
    _arrive(tmp_path, "b.json", [{"id": 1, "user": "ä", "amount": 1.5}, {"id": 2, "user": None, "amount": 2}], 30)
    _arrive(tmp_path, "a.json", [{"id": 2, "user": "b", "amount": 3.0}], 20)
    _arrive(tmp_path, ".part.json", [{"id": 9, "user": "hidden", "amount": 9}], 10)  # being written: skipped
    _arrive(tmp_path, "_SUCCESS", [], 10)  # a marker: skipped
    first = _batches(suite, once=True)
    assert len(first) == 1
    batch = first[0]
    # b.json arrived first; three rows; one user missing; id 2 twice so only id 1 unique
    assert batch["stream"]["sources"]["landed"]["files"] == [
        str(tmp_path / "incoming" / "b.json"),
        str(tmp_path / "incoming" / "a.json"),
    ]
    assert batch["stream"]["batch"] == 1
    assert batch["stream"]["sources"]["landed"]["rows"] == 3
    assert batch["metrics"]["users_present"] == {"total": 3, "incomplete": 1, "complete": 2}
    assert batch["metrics"]["ids"] == {"total": 3, "unique": 1}
    assert batch["metrics"]["totals"] == [{"n": 3, "total": 6.5, "first_tmst": batch["stream"]["tmst"]}]
    assert batch["pass"] is True

    assert _batches(suite, once=True) == []  # nothing new: no batch
    _arrive(tmp_path, "c.json", [{"id": 2, "user": "c", "amount": 4.0}], 5)
    second = _batches(suite, available_now=True)
    assert [b["stream"]["batch"] for b in second] == [2]
    # only c.json: id 2 again, but this batch holds it once
    assert second[0]["metrics"]["ids"] == {"total": 1, "unique": 1}
    assert second[0]["stream"]["tmst"] > batch["stream"]["tmst"]


def test_a_file_still_being_written_waits_for_its_settle_time(tmp_path):
    suite = _suite(tmp_path)
    suite.write_text(suite.read_text().replace('settle = "1ms"', 'settle = "1h"'), encoding="utf-8")
    _arrive(tmp_path, "old.json", [{"id": 1, "user": "a", "amount": 1}], age_s=7200)
    _arrive(tmp_path, "new.json", [{"id": 2, "user": "b", "amount": 2}], age_s=0)
    (batch,) = _batches(suite, available_now=True)
    assert batch["stream"]["sources"]["landed"]["files"] == [str(tmp_path / "incoming" / "old.json")]


def test_a_cap_splits_what_is_there_into_batches_and_reports_the_lag(tmp_path):
    suite = _suite(tmp_path, cap=2)
    for number in range(5):
        _arrive(tmp_path, f"f{number}.json", [{"id": number, "user": "u", "amount": number}], 50 - number)
    batches = _batches(suite, available_now=True)
    files = [[Path(f).name for f in b["stream"]["sources"]["landed"]["files"]] for b in batches]
    assert files == [["f0.json", "f1.json"], ["f2.json", "f3.json"], ["f4.json"]]
    assert [b["stream"]["sources"]["landed"]["lag"] for b in batches] == [3, 1, 0]
    assert [b["metrics"]["totals"][0]["total"] for b in batches] == [1.0, 5.0, 4.0]


def test_max_batches_stops_and_the_next_start_goes_on(tmp_path):
    suite = _suite(tmp_path, cap=1)
    for number in range(3):
        _arrive(tmp_path, f"f{number}.json", [{"id": number, "user": "u", "amount": number}], 50 - number)
    assert [b["stream"]["batch"] for b in _batches(suite, available_now=True, max_batches=2)] == [1, 2]
    assert [b["stream"]["batch"] for b in _batches(suite, available_now=True)] == [3]


def test_every_batch_is_a_run_in_history_once(tmp_path, capsys):
    suite = _suite(tmp_path, cap=1)
    history = tmp_path / "history.duckdb"
    for number in range(2):
        _arrive(tmp_path, f"f{number}.json", [{"id": number, "user": "u", "amount": number}], 50 - number)
    _batches(suite, available_now=True, history=history)
    assert main(["history", "landed", "--history", str(history), "--format", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert sorted(run["run_id"].rsplit("-", 1)[1] for run in runs) == ["1", "2"]


def _cli(*args: str, cwd: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("GRYPH_STREAM_CRASH_AT", None)
    if crash_at is not None:
        env["GRYPH_STREAM_CRASH_AT"] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("crash_at", ["intent", "computed", "committed"])
def test_a_client_killed_mid_batch_resumes_with_the_same_batch(tmp_path, crash_at):
    suite = _suite(tmp_path, cap=1)
    for number in range(3):
        _arrive(tmp_path, f"f{number}.json", [{"id": number, "user": "u", "amount": 10**number}], 50 - number)
    args = ("stream", str(suite), "--available-now", "--format", "json", "--state", "s.duckdb", "--history", "h.duckdb")
    killed = _cli(*args, cwd=tmp_path, crash_at=crash_at)
    assert killed.returncode == -9  # SIGKILL: nothing after the point ran
    assert killed.stdout == ""  # batch 1 never got as far as being printed
    left = StreamState(tmp_path / "s.duckdb", "landed")
    try:
        interrupted = left.last_batch()
    finally:
        left.close()
    assert interrupted is not None and interrupted.number == 1
    resumed = _cli(*args, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    documents = [json.loads(line) for line in resumed.stdout.splitlines()]
    # every file counted in exactly one batch: 1 + 10 + 100
    assert [d["stream"]["batch"] for d in documents] == [1, 2, 3]
    assert sum(d["metrics"]["totals"][0]["total"] for d in documents) == 111.0
    assert documents[0]["stream"]["tmst"] == interrupted.tmst  # run again with the time it was given
    history = json.loads(_cli("history", "landed", "--history", "h.duckdb", "--format", "json", cwd=tmp_path).stdout)
    assert len(history["runs"]) == 3  # each batch stored once, even the one published again


def test_a_second_client_on_the_same_state_is_refused(tmp_path):
    suite = _suite(tmp_path)
    _arrive(tmp_path, "f.json", [{"id": 1, "user": "u", "amount": 1}])
    held = StreamState(tmp_path / "s.duckdb", "landed")
    try:
        refused = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    finally:
        held.close()
    assert refused.returncode == 3
    assert "STREAM_LOCKED" in refused.stderr and "s.duckdb" in refused.stderr


def test_a_state_that_is_not_one_is_a_clear_error(tmp_path):
    suite = _suite(tmp_path)
    (tmp_path / "s.duckdb").write_bytes(b"not a database at all" * 100)
    broken = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert broken.returncode == 3
    assert "STREAM_STATE" in broken.stderr and "s.duckdb" in broken.stderr
    other = StreamState(tmp_path / "other.duckdb", "another_suite")
    other.close()
    mixed = _cli("stream", str(suite), "--once", "--state", "other.duckdb", cwd=tmp_path)
    assert mixed.returncode == 2
    assert "state of suite 'another_suite'" in mixed.stderr


def test_a_database_of_the_users_is_not_taken_for_a_state(tmp_path):
    """A DuckDB file with tables of its own (a history, say) is refused, and left as it was."""
    import duckdb

    suite = _suite(tmp_path)
    _arrive(tmp_path, "f.json", [{"id": 1, "user": "u", "amount": 1}])
    with duckdb.connect(str(tmp_path / "mine.duckdb")) as con:
        con.execute("CREATE TABLE orders AS SELECT 1 AS id")
    refused = _cli("stream", str(suite), "--once", "--state", "mine.duckdb", cwd=tmp_path)
    assert refused.returncode == 3
    assert "STREAM_STATE" in refused.stderr and "other tables (orders)" in refused.stderr
    with duckdb.connect(str(tmp_path / "mine.duckdb")) as con:
        assert con.execute("SELECT table_name FROM duckdb_tables()").fetchall() == [("orders",)]


def test_run_refuses_a_streaming_suite_and_names_stream(tmp_path, capsys):
    suite = _suite(tmp_path)
    assert main(["run", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "STREAM_SUITE" in err and "gryph stream" in err and "landed.dq:2:1" in err


def test_stream_refuses_a_suite_without_a_stream(tmp_path, capsys):
    path = tmp_path / "plain.dq"
    (tmp_path / "t.csv").write_text("id\n1\n", encoding="utf-8")
    path.write_text('source t = csv("t.csv")\ncompleteness c on t: id\n', encoding="utf-8")
    assert main(["stream", str(path), "--once"]) == 2
    assert "NOT_A_STREAM" in capsys.readouterr().err


def test_a_folder_that_does_not_exist_is_a_clear_error(tmp_path, capsys):
    suite = _suite(tmp_path)
    (tmp_path / "incoming").rmdir()
    assert main(["stream", str(suite), "--once", "--state", str(tmp_path / "s.duckdb")]) == 3
    err = capsys.readouterr().err
    assert "SOURCE_UNREADABLE" in err and "does not exist" in err


def _intent_only(tmp_path: Path) -> None:
    """A stream killed right after it wrote batch 1's intent (its files listed, none read)."""
    killed = _cli("stream", "landed.dq", "--once", "--state", "s.duckdb", cwd=tmp_path, crash_at="intent")
    assert killed.returncode == -9


def test_a_file_deleted_after_it_was_listed_is_named_and_left_out(tmp_path):
    _suite(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    doomed = _arrive(tmp_path, "b.json", [{"id": 2, "user": "u", "amount": 2}], 50)
    _intent_only(tmp_path)
    doomed.unlink()
    resumed = _cli("stream", "landed.dq", "--available-now", "--format", "json", "--state", "s.duckdb", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    (batch,) = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert batch["stream"]["sources"]["landed"]["gone"] == [str(doomed)]
    assert batch["stream"]["sources"]["landed"]["rows"] == 1  # a.json only


def test_a_file_changed_after_it_was_listed_is_named(tmp_path):
    _suite(tmp_path)
    grown = _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    _intent_only(tmp_path)
    with grown.open("a", encoding="utf-8") as more:  # a writer that went on after the settle time
        more.write(json.dumps({"id": 2, "user": "u", "amount": 2}) + "\n")
    resumed = _cli("stream", "landed.dq", "--once", "--format", "json", "--state", "s.duckdb", cwd=tmp_path)
    batch = json.loads(resumed.stdout)
    assert batch["stream"]["sources"]["landed"]["changed"] == [str(grown)]


def test_a_corrupt_file_fails_its_batch_until_it_is_moved_away(tmp_path):
    _suite(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    corrupt = tmp_path / "incoming" / "b.json"
    corrupt.write_text('{"id": 2, "user": \n', encoding="utf-8")
    os.utime(corrupt, (time.time() - 50,) * 2)
    failed = _cli("stream", "landed.dq", "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert failed.returncode == 3
    assert "b.json" in failed.stderr and "nothing was committed" in failed.stderr
    again = _cli("stream", "landed.dq", "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert again.returncode == 3  # the same batch, the same file: never skipped silently
    corrupt.rename(tmp_path / "b.json.bad")
    moved = _cli("stream", "landed.dq", "--once", "--format", "json", "--state", "s.duckdb", cwd=tmp_path)
    batch = json.loads(moved.stdout)
    assert batch["stream"]["sources"]["landed"]["gone"] == [str(corrupt)]
    assert batch["stream"]["sources"]["landed"]["rows"] == 1


def test_reset_to_latest_skips_the_files_there_now_and_to_earliest_reads_them_again(tmp_path, capsys):
    suite = _suite(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    state = str(tmp_path / "s.duckdb")
    assert main(["stream", "reset", str(suite), "--state", state, "--to", "latest", "--yes"]) == 0
    assert [r.to_dict() for r in stream(suite, state=state, available_now=True)] == []
    assert main(["stream", "status", str(suite), "--state", state]) == 0
    assert "landed: 1 files read, 0 settled files pending" in capsys.readouterr().out
    assert main(["stream", "reset", str(suite), "--state", state, "--to", "earliest", "--yes"]) == 0
    (batch,) = [r.to_dict() for r in stream(suite, state=state, available_now=True)]
    assert batch["stream"]["sources"]["landed"]["rows"] == 1


def test_a_triggered_stream_waits_for_what_arrives_and_stops_after_max_batches(tmp_path):
    suite = _suite(tmp_path)
    _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    batches, arrived = [], 0.0
    for result in stream(suite, state=tmp_path / "state.duckdb", trigger_ms=200, max_batches=2):
        batches.append(result.to_dict())
        if len(batches) == 1:  # lands while the stream waits for its next trigger
            _arrive(tmp_path, "b.json", [{"id": 2, "user": "u", "amount": 2}], 5)
            arrived = time.time() * 1000
    assert [b["metrics"]["totals"][0]["total"] for b in batches] == [1.0, 2.0]
    assert batches[1]["stream"]["tmst"] >= arrived - 1  # a batch of the next trigger, after the file came


def test_once_after_a_crash_runs_only_the_batch_the_crash_left(tmp_path):
    _suite(tmp_path, cap=1)
    _arrive(tmp_path, "a.json", [{"id": 1, "user": "u", "amount": 1}], 60)
    _arrive(tmp_path, "b.json", [{"id": 2, "user": "u", "amount": 2}], 50)
    _intent_only(tmp_path)
    resumed = _cli("stream", "landed.dq", "--once", "--format", "json", "--state", "s.duckdb", cwd=tmp_path)
    assert [json.loads(line)["stream"]["batch"] for line in resumed.stdout.splitlines()] == [1]


def test_the_lease_is_gryphs_lock_beside_the_state_so_a_client_never_reads_a_state_being_written(tmp_path):
    # DuckDB reads a file's header before it takes its own lock: the lease must be taken first,
    # so a holder of gryph's lock alone (as a client mid-way through opening the file) refuses another
    suite = _suite(tmp_path)
    _arrive(tmp_path, "f.json", [{"id": 1, "user": "u", "amount": 1}])
    lock = os.open(tmp_path / "s.duckdb.lock", os.O_RDONLY | os.O_CREAT)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        refused = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    finally:
        os.close(lock)
    assert refused.returncode == 3
    assert "STREAM_LOCKED" in refused.stderr
    assert not (tmp_path / "s.duckdb").exists()  # refused before DuckDB touched the file
    ran = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr


def test_a_state_file_that_is_not_duckdbs_is_named_not_opened(tmp_path):
    suite = _suite(tmp_path)
    (tmp_path / "s.duckdb").write_bytes(b"SQLite format 3\x00" + bytes(100))
    refused = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert refused.returncode == 3
    assert "STREAM_STATE" in refused.stderr and "no DuckDB database" in refused.stderr
