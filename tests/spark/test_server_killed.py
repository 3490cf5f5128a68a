"""The Spark Connect server crashes (SIGKILL) in the middle of a run: the run ends soon with exit 3
and an error that says the server went away, writes no report, and the history keeps what it had."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import duckdb

from gryph.client.spark.session.local_server import start_local_server
from gryph.client.store.history import HistoryStore

SUITE = """suite crash_test
source t = parquet("data.parquet")
uniqueness keys on t: a, c
distinctness labels on t: c, b
profiling counts on t: count(distinct c) as labels, count(distinct a) as keys
"""
RETRY_SECONDS = 5  # how long the client waits for a server that stopped answering
BIG_ROWS = 4_000_000  # a run of about a minute on a local 2-core server: the crash lands inside it


def _write_data(path, rows: int) -> None:
    duckdb.sql(
        f"copy (select i as a, i % 1000 as b, 'x' || (i % 7777) as c from range({rows}) t(i)) "
        f"to '{path}' (format parquet)"
    )


def _gryph(*args: str) -> list[str]:
    return [sys.executable, "-m", "gryph.client.cli.main", *args]


def test_server_killed_mid_run_fails_fast_and_loses_nothing(tmp_path):
    (tmp_path / "suite.dq").write_text(SUITE, encoding="utf-8")
    history = tmp_path / "history.duckdb"
    env = dict(os.environ, GRYPH_SPARK_RETRY_SECONDS=str(RETRY_SECONDS))
    _write_data(tmp_path / "data.parquet", 10)
    earlier = subprocess.run(
        _gryph("run", "suite.dq", "--history", str(history)),  # on DuckDB: quicker
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert earlier.returncode == 0, earlier.stderr
    assert len(HistoryStore(history).runs("crash_test")) == 1

    server = start_local_server(confs={"spark.sql.shuffle.partitions": "2"})
    try:
        _write_data(tmp_path / "data.parquet", BIG_ROWS)
        report = tmp_path / "report.json"
        run = subprocess.Popen(
            _gryph(
                "run",
                "suite.dq",
                "--remote",
                server.url,
                "--history",
                str(history),
                "--format",
                "json",
                "--output",
                str(report),
            ),
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(15)  # connected, sources read, the queries under way
        assert run.poll() is None, "the run ended before the crash: make BIG_ROWS larger"
        server.stop(graceful=False)
        crashed = time.monotonic()
        _, stderr = run.communicate(timeout=600)
        waited = time.monotonic() - crashed
    finally:
        server.stop()

    assert run.returncode == 3, stderr
    assert "SPARK_UNREACHABLE" in stderr and server.url.removeprefix("sc://") in stderr, stderr
    assert "Traceback" not in stderr and "RETRIES_EXCEEDED" not in stderr, stderr
    # PySpark alone would retry for about ten minutes; the budget is RETRY_SECONDS per request
    # still in flight, and the session closes without waiting for the server
    assert waited < 6 * RETRY_SECONDS, f"the run took {waited:.0f} s to give up"
    assert not report.exists()
    # the earlier run is intact; the crashed one is kept as an errored run (issue 44: a trace)
    documents = HistoryStore(history).documents("crash_test", 10)
    assert [d.passed for d in documents] == [True, False]
    assert documents[0].error is None and documents[1].error is not None
    assert documents[1].error.code == "SPARK_UNREACHABLE" and documents[1].measures == {}
