"""A segmented suite reads its source once on Spark too (tests/client/test_segment_reads.py has the
suite, its data and its values): a source a run scans more than once is kept on the server first
(read_once.py), a request of its own, so one action and no other request is one scan."""

from __future__ import annotations

from gryph.client import load_suite, run
from tests.client.test_segment_reads import SUITE, check_values, write_events
from tests.support.spark_requests import requests_sent


def test_spark_runs_one_action_and_keeps_no_copy_of_the_source(spark_engine, tmp_path, monkeypatch):
    suite = load_suite(SUITE.format(path=write_events(tmp_path / "events.parquet")))
    sent = requests_sent(spark_engine, monkeypatch)
    document = run(suite, spark_engine, record_sample=0).to_dict()
    assert sent == [("execute", "root")], sent  # was a checkpoint command too: the source kept for two scans
    check_values(document)
