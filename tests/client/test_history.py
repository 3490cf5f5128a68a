"""Run history: newest first, other suites, time windows, concurrent writers, failed runs."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys

import pytest

from gryph.client import run
from gryph.client.store.history import HistoryStore
from gryph.client.store.history_writes import HistoryWriteError
from gryph.compiler.checks.check_functions import Clock
from gryph.compiler.errors import EngineError
from tests.support.result_documents import result_document

NOW = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)  # a Wednesday


def record(store: HistoryStore, suite: str, started: dt.datetime, **measures) -> str:
    return store.record(result_document(suite, measures), started, measures)


def test_values_newest_first_and_per_suite(tmp_path):
    store = HistoryStore(tmp_path / "h.duckdb")
    for day, n in ((1, 10), (3, 30), (2, 20)):
        record(store, "a", NOW - dt.timedelta(days=10 - day), n=n)
    record(store, "b", NOW, n=99, other=1)
    assert store.measure_values("a", "n", 10) == [30, 20, 10]
    assert store.measure_values("a", "n", 2) == [30, 20]
    assert store.measure_values("b", "n", 10) == [99]
    assert store.measure_values("a", "missing", 10) == []
    assert [r["measure"] for r in store.runs("a")] == [{"n": 30}, {"n": 20}, {"n": 10}]


def test_no_history_file_means_no_earlier_runs(tmp_path):
    store = HistoryStore(tmp_path / "none.duckdb")
    assert store.measure_values("a", "n", 5) == [] and store.runs("a") == []
    assert not (tmp_path / "none.duckdb").exists()  # reading never creates the file


def test_averages_over_time_windows(tmp_path):
    from gryph.compiler.checks.check_functions import FUNCTIONS

    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, "s", NOW - dt.timedelta(hours=2), n=10)  # today
    record(store, "s", NOW - dt.timedelta(days=1), n=20)  # Tuesday: this week
    record(store, "s", NOW - dt.timedelta(days=5), n=30)  # Friday before: this month
    record(store, "s", NOW - dt.timedelta(days=20), n=40)  # last month (Oct 29)
    record(store, "s", NOW - dt.timedelta(days=40), n=None)  # a null value is skipped
    clock = Clock("s", NOW, store)

    def call(name, *args):
        return FUNCTIONS[name].impl(clock, *args)

    assert call("daily_avg", "n") == 10.0
    assert call("weekly_avg", "n") == 15.0  # since Monday Nov 16: 10 and 20
    assert call("monthly_avg", "n") == 20.0  # since Nov 1: 10, 20, 30
    assert call("avg_previous", "n", 7) == 20.0  # last 7 days: 10, 20, 30
    assert call("avg_previous", "n", 30) == 25.0  # last 30 days: 10, 20, 30, 40
    assert call("avg_previous", "m", 30) is None  # never measured
    assert call("get_previous_measure_values", "n", 3) == [10, 20, 30]
    assert call("get_previous_measure_values_for_other_task", "s", "n", 1) == [10]


# each writer stores its runs one by one and reads them back after each: a run lost to another
# writer shows at once, in the writer, and a reader racing the writers is exercised as well
_WRITER = """
import datetime as dt, sys
from gryph.client.results.document import read_document
from gryph.client.store.history import HistoryStore
from gryph.client.store.history_writes import HistoryWriteError
path, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store, start = HistoryStore(path), dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)
for i in range(count):
    n = worker * 100 + i
    document = {"name": "concurrent", "engine": "duckdb", "started": "2026-11-18T12:00:00", "duration_seconds": 0.1,
                "metrics": {}, "records": {}, "measure": {"n": n}, "pass": True}
    store.record(read_document(document), start, {"n": n})
    mine = [v for v in store.measure_values("concurrent", "n", 100000) if v // 100 == worker]
    assert sorted(mine) == list(range(worker * 100, n + 1)), f"writer {worker} reads {sorted(mine)} after {n}"
"""


def _slowed_locks() -> list[str]:
    """strace, where it runs, holding every fcntl call 3 ms: DuckDB reads its file's header, then
    takes its lock with fcntl, so the moment in which another writer's commit slips in unseen grows
    from microseconds to milliseconds, and a history guarded by DuckDB's lock alone loses runs on
    every try (it lost one run in a full test run once, by chance)."""
    strace = shutil.which("strace")
    if strace is None or subprocess.run([strace, "-o", os.devnull, "true"], check=False).returncode != 0:
        return []
    return [strace, "-f", "-qq", "-o", os.devnull, "-e", "trace=fcntl", "-e", "inject=fcntl:delay_enter=3000"]


def test_concurrent_writers_lose_nothing(tmp_path):
    path, writers, runs = str(tmp_path / "h.duckdb"), 4, 12
    command = [*_slowed_locks(), sys.executable, "-c", _WRITER, path]
    processes = [
        subprocess.Popen([*command, str(w), str(runs)], stderr=subprocess.PIPE, text=True) for w in range(writers)
    ]
    errors = [p.communicate(timeout=300)[1] for p in processes]
    assert [p.returncode for p in processes] == [0] * writers, errors
    values = HistoryStore(path).measure_values("concurrent", "n", 1000)
    assert sorted(values) == [w * 100 + i for w in range(writers) for i in range(runs)]


def test_a_write_failing_half_way_leaves_history_intact(tmp_path, monkeypatch):
    store = HistoryStore(tmp_path / "h.duckdb")
    record(store, "s", NOW - dt.timedelta(days=1), n=1)

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(HistoryStore, "_write_measures", staticmethod(broken))
    with pytest.raises(HistoryWriteError, match="disk full"):
        record(store, "s", NOW, n=2)  # the run row was written, then the measures failed
    monkeypatch.undo()
    assert store.measure_values("s", "n", 10) == [1]
    assert len(store.runs("s")) == 1


def test_a_failed_run_stores_nothing(tmp_path):
    history = tmp_path / "h.duckdb"
    suite = tmp_path / "s.dq"
    (tmp_path / "t.csv").write_text("a\n1\n2\n")
    suite.write_text('source t = csv("t.csv", schema = "a bigint")\nmeasure "n": count(*)\n')
    assert run(suite, history=history).measures == {"n": 2}
    (tmp_path / "t.csv").unlink()
    with pytest.raises(EngineError):
        run(suite, history=history)
    assert HistoryStore(history).measure_values("s", "n", 10) == [2]


def test_checks_compare_with_earlier_runs(tmp_path):
    history = tmp_path / "h.duckdb"
    (tmp_path / "t.csv").write_text("a\n1\n2\n3\n")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source t = csv("t.csv", schema = "a bigint")\n'
        'measure "n": count(*)\n'
        'check "no earlier run": len(get_previous_measure_values("n", 5)) == 0\n'
        'check "steady": daily_avg("n") == null || abs(measures["n"] - daily_avg("n")) <= 1\n'
        "pass when all\n"
    )
    first = run(suite, history=history)
    assert first.to_dict()["check"] == {"no earlier run": True, "steady": True}
    (tmp_path / "t.csv").write_text("a\n" + "\n".join(str(i) for i in range(10)) + "\n")
    second = run(suite, history=history)
    # earlier runs: [3]; 10 rows now, |10 - 3| > 1
    assert second.to_dict()["check"] == {"no earlier run": False, "steady": False}
    assert second.passed is False
    assert HistoryStore(history).measure_values("s", "n", 5) == [10, 3]
    assert [r["pass"] for r in HistoryStore(history).runs("s")] == [False, True]  # failed runs are stored too
