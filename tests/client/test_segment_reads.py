"""A segmented suite reads its source once (issue 44 item 8): its metrics over all rows, every
segment's, and a drift check's category counts come from one scan, counted by DuckDB's profile of
each statement the run sends and, on Spark, by the requests the run sends (a source scanned twice
is kept on the server first, read_once.py: a request of its own; tests/spark/test_segment_reads.py).
Uniqueness, distinctness and accuracy by segment read their sources as often as without `by`.
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
distinctness users on events{by}: user_id
completeness contact on events{by}: email
"""


@pytest.mark.parametrize("by", ["", " by segment"])
def test_uniqueness_by_segment_scans_as_often_as_unsegmented(events, tmp_path, monkeypatch, by):
    """Both rules count their values in one grouping of the source: by segment, the counts per
    segment and value, summed per value for the rules' own metrics and counted per segment in the
    source's grouped query. Two scans either way: the shared aggregate (totals, completeness) and
    the values' grouping (was 3 by segment: the values were grouped again per segment)."""
    scans, document = _scans_of_run(UNIQUE.format(path=events, by=by), [str(events)], tmp_path, monkeypatch)
    assert scans[str(events)] == 2, scans
    # users 1, 1, 2, 3, 3, 4, NULL: 2, 4 and NULL once each; five values, NULL one of them
    assert document["metrics"]["once"] == {"total": 7, "unique": 3}
    assert document["metrics"]["users"] == {"total": 7, "distinct": 5}
    if by:
        # a: users 1, 1, 4; NULL: 3, NULL; '': 3; b: 2 (3 twice over all rows, once in NULL's and '')
        segments = document["segments"]
        once = [(v["segment"], v["metrics"]) for v in segments["once"]["values"]]
        assert once == [
            ("a", {"total": 3, "unique": 1}),
            (None, {"total": 2, "unique": 2}),
            ("", {"total": 1, "unique": 1}),
            ("b", {"total": 1, "unique": 1}),
        ]
        users = [(v["segment"], v["metrics"]["distinct"]) for v in segments["users"]["values"]]
        assert users == [("a", 2), (None, 2), ("", 1), ("b", 1)]


ACCURATE = """source events = parquet("{path}")
source known = parquet("{known}")
accuracy known_users on events, known{by}: events.user_id = known.user_id
"""


@pytest.fixture
def known(tmp_path):
    path = tmp_path / "known.parquet"
    pq.write_table(pa.table({"user_id": [1, 2]}), path)
    return path


@pytest.mark.parametrize("by", ["", " by segment"])
def test_accuracy_by_segment_scans_each_source_as_often_as_unsegmented(events, known, tmp_path, monkeypatch, by):
    """Beside another rule of the source: each segment's judged rows come from the source's
    grouped query, its misses from the rule's one anti join, grouped by segment and joined to the
    segments kept (was: the source scanned 4 times, the target twice)."""
    text = ACCURATE.format(path=events, known=known, by=by) + f"completeness contact on events{by}: email\n"
    scans, document = _scans_of_run(text, [str(events), str(known)], tmp_path, monkeypatch)
    # the shared aggregate, and the anti join's source side; its target side
    assert scans == {str(events): 2, str(known): 1}, scans
    # users 3, 3, 4 miss; NULL is never a miss
    assert document["metrics"]["known_users"]["miss"] == 3
    if by:
        misses = [(v["segment"], v["metrics"]) for v in document["segments"]["known_users"]["values"]]
        assert misses == [
            ("a", {"total": 3, "miss": 1, "matched": 2, "matchedFraction": 2 / 3}),  # users 1, 1, 4
            (None, {"total": 2, "miss": 1, "matched": 1, "matchedFraction": 0.5}),  # 3, and NULL: no miss
            ("", {"total": 1, "miss": 1, "matched": 0, "matchedFraction": 0.0}),  # 3
            ("b", {"total": 1, "miss": 0, "matched": 1, "matchedFraction": 1.0}),  # 2
        ]


@pytest.mark.parametrize("by", ["", " by segment"])
def test_accuracy_alone_by_segment_reads_the_rows_its_count_takes_from_metadata(
    events, known, tmp_path, monkeypatch, by
):
    """Alone, an accuracy rule's judged rows over all rows are a ``count(*)`` that DuckDB answers
    from the parquet footer, reading no rows; per segment they are counted from the rows, one
    scan of the segment column that no other rule shares. The misses come from the anti join either
    way: its scan cannot count the rows it does not return."""
    scans, _ = _scans_of_run(
        ACCURATE.format(path=events, known=known, by=by), [str(events), str(known)], tmp_path, monkeypatch
    )
    assert scans == {str(events): 2 if by else 1, str(known): 1}, scans


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
