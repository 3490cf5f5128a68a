"""The segments benchmark's suites (benchmarks/segments.py) do the work its hand-written floor
does: each segment's counts from gryph equal those of a plain `GROUP BY segment` over the file."""

from __future__ import annotations

import duckdb
import pytest

from benchmarks.segments import MEASURES, suite_text, write_events
from gryph.client import load_suite, run


@pytest.mark.parametrize("suite", list(MEASURES))
def test_each_segment_holds_what_a_group_by_counts(suite, tmp_path):
    path = write_events(tmp_path / "events.parquet", 3000)
    document = run(load_suite(suite_text(path, suite, True)), "duckdb", record_sample=0).to_dict()
    by_hand = duckdb.connect().execute(
        "SELECT segment, count(*), count_if(email IS NULL), count_if(account_id IS NULL), count(DISTINCT user_id)"
        f" FROM read_parquet('{path}') GROUP BY segment"
    )
    expected = {row[0]: row[1:] for row in by_hand.fetchall()}
    assert len(expected) == 100  # 98 values, NULL and ''
    email = {v["segment"]: v["metrics"] for v in document["segments"]["email_present"]["values"]}
    account = {v["segment"]: v["metrics"] for v in document["segments"]["account"]["values"]}
    rows = {v["segment"]: v["metrics"] for v in document["measure_segments"]["rows"]["values"]}
    for segment, (n, no_email, no_account, users) in expected.items():
        assert (email[segment]["total"], email[segment]["incomplete"]) == (n, no_email)
        assert account[segment]["incomplete"] == no_account
        assert rows[segment]["n"] == n
        assert rows[segment].get("users") == (users if suite == "distinct" else None)
