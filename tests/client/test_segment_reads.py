"""A segmented suite reads its source once (issue 44 item 8): its metrics over all rows, every
segment's, and a drift check's category counts come from one scan, counted by DuckDB's profile of
each statement the run sends and, on Spark, by the requests the run sends (a source scanned twice
is kept on the server first, read_once.py: a request of its own; tests/spark/test_segment_reads.py).
Values derived by hand."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import load_suite, run
from gryph.client.run.engines import open_engine

SUITE = """source events = parquet("{path}")
completeness contact on events by segment: email
completeness users on events: user_id
measure "rows" by segment: select count(*) as n, count(distinct user_id) as users from events
check "status steady": drift(events.status)
"""


def write_events(path):
    """Seven events: segments a (3), NULL (2), '' and b (1 each)."""
    pq.write_table(
        pa.table(
            {
                "segment": ["a", "a", "b", None, "", "a", None],
                "email": ["x", None, "y", None, "z", "w", "v"],
                "user_id": [1, 1, 2, 3, 3, 4, None],
                "status": ["new", "old", "new", None, "", "new", "old"],
            }
        ),
        path,
    )
    return path


@pytest.fixture
def events(tmp_path):
    return write_events(tmp_path / "events.parquet")


def check_values(document: dict) -> None:
    """By hand: segment a is rows 1, 2, 6 (one email missing; users 1, 1, 4), NULL rows 4 and 7
    (one missing; users 3, NULL), '' row 5, b row 3; the most rows first, ties by value."""
    assert document["metrics"]["contact"] == {"total": 7, "incomplete": 2, "complete": 5}
    assert document["metrics"]["users"]["incomplete"] == 1
    assert document["measure"]["rows"] == {"n": 7, "users": 4}
    contact = [(v["segment"], v["metrics"]["incomplete"]) for v in document["segments"]["contact"]["values"]]
    assert contact == [("a", 1), (None, 1), ("", 0), ("b", 0)]
    rows = [(v["segment"], v["metrics"]) for v in document["measure_segments"]["rows"]["values"]]
    assert rows == [
        ("a", {"n": 3, "users": 2}),
        (None, {"n": 2, "users": 1}),
        ("", {"n": 1, "users": 1}),
        ("b", {"n": 1, "users": 1}),
    ]
    sketch = document["measure"]["sketch(events.status)"]
    assert (sketch["rows"], sketch["null"], sketch["categories"]) == (7, 1, [["new", 3], ["old", 2], ["", 1]])


def _scans(profile: dict, path: str) -> int:
    """The scans of the file ``path`` in a DuckDB JSON profile."""
    found = 0
    if profile.get("type") == "TABLE_SCAN" and profile.get("extra_info", {}).get("Filename(s)") == path:
        found += 1
    for child in profile.get("operator", []) + profile.get("children", []):
        found += _scans(child, path)
    return found


def test_duckdb_scans_the_source_once_for_totals_segments_and_drift(events, tmp_path, monkeypatch):
    engine = open_engine("duckdb")
    profile = tmp_path / "profile.json"
    engine.connection.execute("SET enable_profiling = 'json'")
    engine.connection.execute(f"SET profiling_output = '{profile}'")
    fetch, scans = engine._fetch, []

    def profiled(*args, **kwargs):
        out = fetch(*args, **kwargs)
        scans.append(_scans(json.loads(profile.read_text()), str(events)))
        return out

    monkeypatch.setattr(engine, "_fetch", profiled)
    try:
        document = run(load_suite(SUITE.format(path=events)), engine, record_sample=0).to_dict()
    finally:
        engine.close()
    assert sum(scans) == 1, scans  # was 3: the totals, the segments' GROUP BY and the categories'
    check_values(document)
