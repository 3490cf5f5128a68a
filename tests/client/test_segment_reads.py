"""A segmented suite reads its source once (issue 44 item 8): its metrics over all rows, every
segment's, and a drift check's category counts come from one scan, counted by DuckDB's profile of
each statement the run sends and, on Spark, by the requests the run sends (a source scanned twice
is kept on the server first, read_once.py: a request of its own; tests/spark/test_segment_reads.py).
What reads a source more than once is pinned too: uniqueness and accuracy by segment. Values
derived by hand."""

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


def _scans_of_run(text: str, files: list[str], tmp_path, monkeypatch) -> tuple[dict[str, int], dict]:
    """Each file's scans over the statements of one DuckDB run of ``text``, and its document."""
    engine = open_engine("duckdb")
    profile = tmp_path / "profile.json"
    engine.connection.execute("SET enable_profiling = 'json'")
    engine.connection.execute(f"SET profiling_output = '{profile}'")
    fetch, scans = engine._fetch, dict.fromkeys(files, 0)

    def profiled(*args, **kwargs):
        out = fetch(*args, **kwargs)
        for name in files:
            scans[name] += _scans(json.loads(profile.read_text()), name)
        return out

    monkeypatch.setattr(engine, "_fetch", profiled)
    try:
        document = run(load_suite(text), engine, record_sample=0).to_dict()
    finally:
        engine.close()
    return scans, document


def test_duckdb_scans_the_source_once_for_totals_segments_and_drift(events, tmp_path, monkeypatch):
    scans, document = _scans_of_run(SUITE.format(path=events), [str(events)], tmp_path, monkeypatch)
    assert scans == {str(events): 1}, scans  # was 3: the totals, the segments' GROUP BY and the categories'
    check_values(document)


UNIQUE = """source events = parquet("{path}")
uniqueness once on events{by}: user_id
completeness contact on events{by}: email
"""


@pytest.mark.parametrize("by", ["", " by segment"])
def test_uniqueness_by_segment_scans_once_more_than_unsegmented(events, tmp_path, monkeypatch, by):
    """The values' counts over all rows (GROUP BY user_id) and per segment (GROUP BY segment,
    user_id) are two statements (the plan has no union to give both from one): uniqueness by
    segment reads its source once more, no more (benchmarks/README.md measures it)."""
    scans, document = _scans_of_run(UNIQUE.format(path=events, by=by), [str(events)], tmp_path, monkeypatch)
    # the shared aggregate (totals, completeness), the values' histogram, and per segment one more
    assert scans[str(events)] == (3 if by else 2), scans
    # users 1, 1, 2, 3, 3, 4, NULL: 2, 4 and NULL once each
    assert document["metrics"]["once"] == {"total": 7, "unique": 3}
    if by:
        # a: users 1, 1, 4 (one unique); NULL: 3, NULL; '': 3; b: 2
        once = [(v["segment"], v["metrics"]["unique"]) for v in document["segments"]["once"]["values"]]
        assert once == [("a", 1), (None, 2), ("", 1), ("b", 1)]


ACCURATE = """source events = parquet("{path}")
source known = parquet("{known}")
accuracy known_users on events, known{by}: events.user_id = known.user_id
"""


@pytest.mark.parametrize("by", ["", " by segment"])
def test_accuracy_by_segment_scans_each_source_once_more_than_unsegmented(events, tmp_path, monkeypatch, by):
    """Accuracy's judged rows and misses (an anti join of the two sources) are counted in the
    source's shared statement; per segment both are counted again, grouped by the segment and
    joined, in a statement of its own (accuracy.py's _segments): the judged rows and the anti join
    each read the source there, the anti join the target."""
    known = tmp_path / "known.parquet"
    pq.write_table(pa.table({"user_id": [1, 2]}), known)
    text = ACCURATE.format(path=events, known=known, by=by)
    scans, document = _scans_of_run(text, [str(events), str(known)], tmp_path, monkeypatch)
    assert scans == ({str(events): 3, str(known): 2} if by else {str(events): 1, str(known): 1}), scans
    # users 3, 3, 4 miss; NULL is never a miss
    assert document["metrics"]["known_users"]["miss"] == 3
    if by:
        misses = [(v["segment"], v["metrics"]["miss"]) for v in document["segments"]["known_users"]["values"]]
        assert misses == [("a", 1), (None, 1), ("", 1), ("b", 0)]


def test_a_distinct_count_over_all_rows_beside_segmented_rules_shares_their_scan(events, tmp_path, monkeypatch):
    """Beside rules `by` a column, a distinct count over all rows only is in the same grouping sets
    (counted per segment too, which costs a hash of the (segment, value) pairs): one scan. An
    aggregate of its own was tried (benchmarks/README.md): 3x less CPU on DuckDB, but a second scan
    makes Spark keep the source, and the local server died keeping it at 10M rows."""
    text = (
        f'source events = parquet("{events}")\n'
        "completeness contact on events by segment: email\n"
        'measure "users": select count(distinct user_id) as users from events\n'
    )
    scans, document = _scans_of_run(text, [str(events)], tmp_path, monkeypatch)
    assert scans == {str(events): 1}, scans
    assert document["measure"]["users"] == 4  # users 1, 2, 3, 4; NULL not counted
    contact = [(v["segment"], v["metrics"]["incomplete"]) for v in document["segments"]["contact"]["values"]]
    assert contact == [("a", 1), (None, 1), ("", 0), ("b", 0)]
