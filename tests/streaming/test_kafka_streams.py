"""``gryph stream`` over Kafka topics on a real broker: batches bounded by per-partition caps,
each message counted in exactly one committed batch across restarts and crashes, malformed
messages counted, ``starting = "latest"``, a partition added while running, offsets lost to
retention. Expected values are counted by hand from the messages produced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions

from gryph.client.store.stream_state import StreamState
from gryph.client.streaming.stream_runner import stream

from .kafka_topics import new_topic, produce

SUITE = """suite clicks
source clicks = kafka("{bootstrap}", topic = "{topic}", format = "json", schema = "id bigint, user string, amount double"{options})
completeness users_present on clicks: user
profiling totals on clicks: count(*) as n, sum(amount) as total
measure "rows": select count(*) from clicks
"""


def _suite(folder: Path, bootstrap: str, topic: str, **options: object) -> Path:
    extra = "".join(f", {key} = {json.dumps(value)}" for key, value in options.items())
    path = folder / "clicks.dq"
    path.write_text(SUITE.format(bootstrap=bootstrap, topic=topic, options=extra), encoding="utf-8")
    return path


def _messages(*rows: dict | str) -> list[tuple[bytes | None, bytes | None]]:
    """JSON objects as message values; a str is sent as it is (a malformed message)."""
    return [(None, (row if isinstance(row, str) else json.dumps(row)).encode()) for row in rows]


def _batches(suite: Path, **options) -> list[dict]:
    return [r.to_dict() for r in stream(suite, state=suite.parent / "state.duckdb", available_now=True, **options)]


def test_caps_split_the_topic_and_every_message_is_counted_once(kafka, tmp_path):
    topic = new_topic(kafka.bootstrap, partitions=2)
    produce(kafka.bootstrap, topic, _messages(*({"id": i, "user": "u", "amount": i} for i in range(5))), 0)
    produce(kafka.bootstrap, topic, _messages({"id": 10, "user": None, "amount": 10}, "not json", {"id": 12}), 1)
    suite = _suite(tmp_path, kafka.bootstrap, topic, max_records_per_batch=3)
    first, second = _batches(suite)
    # batch 1: offsets 0..2 of each partition; batch 2: the rest of partition 0
    assert first["stream"]["sources"]["clicks"] == {
        "from": {f"{topic}/0": 0, f"{topic}/1": 0},
        "to": {f"{topic}/0": 3, f"{topic}/1": 3},
        "rows": 6,
        "malformed": 1,
        "lag": 2,
    }
    # partition 0: users u, u, u; partition 1: NULL, the malformed one (all NULL), id 12 without user
    assert first["metrics"]["users_present"] == {"total": 6, "incomplete": 3, "complete": 3}
    assert first["metrics"]["totals"] == [{"n": 6, "total": 0 + 1 + 2 + 10}]
    assert second["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 3, f"{topic}/1": 3}
    assert second["stream"]["sources"]["clicks"]["rows"] == 2
    assert second["metrics"]["totals"] == [{"n": 2, "total": 3 + 4}]
    assert _batches(suite) == []  # nothing new
    produce(kafka.bootstrap, topic, _messages({"id": 5, "user": "v", "amount": 0.5}), 0)
    (third,) = _batches(suite)
    assert third["stream"]["batch"] == 3
    assert third["stream"]["sources"]["clicks"]["from"][f"{topic}/0"] == 5
    assert sum(b["measure"]["rows"] for b in (first, second, third)) == 9  # every message produced, once


def test_latest_starts_after_what_the_topic_held_at_the_first_start(kafka, tmp_path):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, _messages({"id": 1, "user": "old", "amount": 1}))
    suite = _suite(tmp_path, kafka.bootstrap, topic, starting="latest")
    assert _batches(suite) == []
    produce(kafka.bootstrap, topic, _messages({"id": 2, "user": "new", "amount": 2}))
    (batch,) = _batches(suite)
    assert batch["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 1}
    assert batch["metrics"]["totals"] == [{"n": 1, "total": 2.0}]


def test_a_partition_added_while_running_is_read_from_its_start(kafka, tmp_path):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, _messages({"id": 1, "user": "a", "amount": 1}))
    suite = _suite(tmp_path, kafka.bootstrap, topic, starting="latest")
    assert _batches(suite) == []  # positioned at the end of partition 0
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    for future in admin.create_partitions([NewPartitions(topic, 2)]).values():
        future.result(timeout=30)
    deadline = time.monotonic() + 30  # created is not yet in the broker's metadata: wait for that
    while len(admin.list_topics(topic, timeout=10).topics[topic].partitions) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    produce(kafka.bootstrap, topic, _messages({"id": 2, "user": "b", "amount": 2}), partition=1)
    (batch,) = _batches(suite)
    assert batch["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 1, f"{topic}/1": 0}
    assert batch["metrics"]["totals"] == [{"n": 1, "total": 2.0}]


def _delete_before(bootstrap: str, topic: str, offset: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.delete_records([TopicPartition(topic, 0, offset)]).values():
        future.result(timeout=30)


def test_offsets_lost_to_retention_stop_the_stream_unless_it_accepts_loss(kafka, tmp_path, capsys):
    from gryph.client.cli.main import main

    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, _messages(*({"id": i, "user": "u", "amount": i} for i in range(6))))
    suite = _suite(tmp_path, kafka.bootstrap, topic, max_records_per_batch=2)
    state = str(tmp_path / "state.duckdb")
    assert main(["stream", str(suite), "--once", "--state", state]) == 0  # offsets 0, 1
    capsys.readouterr()
    _delete_before(kafka.bootstrap, topic, 4)  # 2 and 3 are gone before they were read
    assert main(["stream", "status", str(suite), "--state", state]) == 0
    assert "offsets 2 to 3 were deleted before they were read: the next batch fails (DATA_LOST)" in (
        capsys.readouterr().out
    )
    assert main(["stream", str(suite), "--once", "--state", state]) == 3
    err = capsys.readouterr().err
    assert "DATA_LOST" in err and f"{topic}/0 lost offsets 2 to 3" in err and "accept_data_loss" in err
    suite = _suite(tmp_path, kafka.bootstrap, topic, max_records_per_batch=2, accept_data_loss=True)
    (batch,) = [r.to_dict() for r in stream(suite, state=state, once=True)]
    assert batch["stream"]["sources"]["clicks"]["lost"] == 2
    assert batch["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 4}
    assert batch["metrics"]["totals"] == [{"n": 2, "total": 4.0 + 5.0}]


def _cli(*args: str, cwd: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GRYPH_STREAM_CRASH_AT"}
    if crash_at is not None:
        env["GRYPH_STREAM_CRASH_AT"] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.parametrize("crash_at", ["intent", "computed", "committed"])
def test_a_killed_client_resumes_and_counts_every_message_once(kafka, tmp_path, crash_at):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, _messages(*({"id": i, "user": "u", "amount": 10**i} for i in range(5))))
    suite = _suite(tmp_path, kafka.bootstrap, topic, max_records_per_batch=2)
    args = ("stream", str(suite), "--available-now", "--format", "json", "--state", "s.duckdb", "--history", "h.duckdb")
    assert _cli(*args, cwd=tmp_path, crash_at=crash_at).returncode == -9
    resumed = _cli(*args, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    documents = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert [d["stream"]["batch"] for d in documents] == [1, 2, 3]
    # 1 + 10 + 100 + 1000 + 10000: each message in exactly one batch
    assert sum(d["metrics"]["totals"][0]["total"] for d in documents) == 11111.0
    history = json.loads(_cli("history", "clicks", "--history", "h.duckdb", "--format", "json", cwd=tmp_path).stdout)
    assert len(history["runs"]) == 3


def test_a_broker_that_does_not_answer_fails_the_batch_and_commits_nothing(tmp_path):
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    suite = _suite(tmp_path, f"127.0.0.1:{port}", "clicks")
    failed = _cli("stream", str(suite), "--once", "--state", "s.duckdb", cwd=tmp_path)
    assert failed.returncode == 3
    assert "KAFKA_UNREACHABLE" in failed.stderr
    state = StreamState(tmp_path / "s.duckdb", "clicks")
    try:
        assert state.last_batch() is None
    finally:
        state.close()


def test_status_shows_where_each_partition_stands_and_reset_moves_it(kafka, tmp_path, capsys):
    from gryph.client.cli.main import main

    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, _messages(*({"id": i, "user": "u", "amount": i} for i in range(5))))
    suite = _suite(tmp_path, kafka.bootstrap, topic, max_records_per_batch=3)
    state = str(tmp_path / "s.duckdb")
    assert main(["stream", "status", str(suite), "--state", state]) == 0
    assert f"clicks: {topic}/0 not read yet (log 0..5)" in capsys.readouterr().out
    assert main(["stream", str(suite), "--once", "--state", state]) == 0
    capsys.readouterr()
    assert main(["stream", "status", str(suite), "--state", state]) == 0
    status = capsys.readouterr().out
    assert "last batch 1 at " in status and ": published" in status
    assert f"clicks: {topic}/0 at offset 3, lag 2 (log 0..5)" in status
    assert main(["stream", "reset", str(suite), "--state", state, "--to", "earliest"]) == 2  # no --yes
    capsys.readouterr()
    assert main(["stream", "reset", str(suite), "--state", state, "--to", "earliest", "--yes"]) == 0
    (again,) = [r.to_dict() for r in stream(suite, state=state, once=True)]
    assert again["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 0}  # read again from the start
    assert again["stream"]["batch"] == 2  # batch numbers go on: history keeps both
    assert main(["stream", "reset", str(suite), "--state", state, "--to", "latest", "--yes"]) == 0
    assert [r.to_dict() for r in stream(suite, state=state, available_now=True)] == []


def test_a_broker_gone_mid_batch_fails_it_in_bounded_time_and_commits_nothing(tmp_path):
    """The batch's offsets are fixed (its intent is written), then the broker goes away before the
    batch has read them: exit 3 naming the broker, the intent left to run again."""
    from tests.kafka_server import KafkaServer

    broker = KafkaServer()  # its own broker: this test stops it
    try:
        topic = new_topic(broker.bootstrap)
        produce(broker.bootstrap, topic, _messages({"id": 1, "user": "u", "amount": 1}))
        suite = _suite(tmp_path, broker.bootstrap, topic)
        args = ("stream", str(suite), "--once", "--state", "s.duckdb")
        assert _cli(*args, cwd=tmp_path, crash_at="intent").returncode == -9
    finally:
        broker.stop()
    started = time.monotonic()
    failed = _cli(*args, cwd=tmp_path)
    assert failed.returncode == 3, failed.stderr
    assert "KAFKA_UNREACHABLE" in failed.stderr and broker.bootstrap in failed.stderr
    assert time.monotonic() - started < 60
    state = StreamState(tmp_path / "s.duckdb", "clicks")
    try:
        last = state.last_batch()
    finally:
        state.close()
    assert last is not None and last.status == "intent"  # nothing committed: the next start runs it
