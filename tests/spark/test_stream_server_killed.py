"""The Spark Connect server crashes (SIGKILL) in the middle of a stream's batch: the stream ends
soon with exit 3 and a named error, commits nothing, and the next start (on a new server) runs
the same batch again, with the same batch time, and stores it in history once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import duckdb

from gryph.client.spark.session.local_server import start_local_server
from gryph.client.store.history import HistoryStore
from gryph.client.store.stream_state import StreamState

SUITE = """suite stream_crash
source t = folder("incoming/", format = "parquet", schema = "a bigint, b bigint, c string", settle = "1ms")
uniqueness keys on t: a, c
distinctness labels on t: c, b
profiling counts on t: count(distinct c) as labels, count(distinct a) as keys
"""
RETRY_SECONDS = 5
BIG_ROWS = 4_000_000  # a batch of about a minute on a local 2-core server: the crash lands inside it


def _gryph(*args: str) -> list[str]:
    return [sys.executable, "-m", "gryph.client.cli.main", *args]


def test_server_killed_mid_batch_commits_nothing_and_the_batch_runs_again(tmp_path):
    (tmp_path / "suite.dq").write_text(SUITE, encoding="utf-8")
    (tmp_path / "incoming").mkdir()
    data = tmp_path / "incoming" / "part-0.parquet"
    duckdb.sql(
        f"copy (select i as a, i % 1000 as b, 'x' || (i % 7777) as c from range({BIG_ROWS}) t(i)) "
        f"to '{data}' (format parquet)"
    )
    os.utime(data, (time.time() - 60,) * 2)
    args = ("stream", "suite.dq", "--once", "--format", "json", "--state", "s.duckdb", "--history", "h.duckdb")
    env = dict(os.environ, GRYPH_SPARK_RETRY_SECONDS=str(RETRY_SECONDS))
    server = start_local_server(confs={"spark.sql.shuffle.partitions": "2"})
    try:
        batch = subprocess.Popen(
            _gryph(*args, "--remote", server.url),
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(15)  # connected, the file read, the queries under way
        assert batch.poll() is None, "the batch ended before the crash: make BIG_ROWS larger"
        server.stop(graceful=False)
        crashed = time.monotonic()
        stdout, stderr = batch.communicate(timeout=600)
        waited = time.monotonic() - crashed
    finally:
        server.stop()
    assert batch.returncode == 3, stderr
    assert "SPARK_UNREACHABLE" in stderr and "nothing was committed" in stderr, stderr
    assert waited < 6 * RETRY_SECONDS, f"the batch took {waited:.0f} s to give up"
    assert stdout == ""
    state = StreamState(tmp_path / "s.duckdb", "stream_crash")
    try:
        interrupted = state.last_batch()
    finally:
        state.close()
    assert interrupted is not None and interrupted.status == "intent"

    server = start_local_server(confs={"spark.sql.shuffle.partitions": "2"})
    try:
        resumed = subprocess.run(
            _gryph(*args, "--remote", server.url), cwd=tmp_path, capture_output=True, text=True, timeout=900
        )
    finally:
        server.stop()
    assert resumed.returncode == 0, resumed.stderr
    document = json.loads(resumed.stdout)
    assert document["stream"]["batch"] == 1 and document["stream"]["tmst"] == interrupted.tmst
    assert document["stream"]["sources"]["t"]["rows"] == BIG_ROWS
    # a: every i once; c: 7777 labels, so (a, c) unique throughout; (c, b) pairs: lcm(7777, 1000) > rows
    assert document["metrics"]["keys"] == {"total": BIG_ROWS, "unique": BIG_ROWS}
    assert document["metrics"]["counts"] == [{"labels": 7777, "keys": BIG_ROWS}]
    assert len(HistoryStore(tmp_path / "h.duckdb").runs("stream_crash")) == 1
