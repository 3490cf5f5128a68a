"""A freshness rule in a stream: each batch's age is counted from the batch's time (``__tmst``),
the run's time of a micro-batch, as the rule counts it from a run's start."""

from __future__ import annotations

import json
import os
import time

from gryph.client.streaming.stream_runner import stream

SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, ts bigint", settle = "1ms")
freshness landed: ts with warn = 1h
"""


def test_a_batch_s_age_is_counted_from_its_time(tmp_path):
    (tmp_path / "incoming").mkdir()
    path = tmp_path / "incoming" / "a.json"
    path.write_text("".join(json.dumps(row) + "\n" for row in ({"id": 1, "ts": 1000}, {"id": 2, "ts": 5000})))
    landed = time.time() - 60
    os.utime(path, (landed, landed))
    suite = tmp_path / "landed.dq"
    suite.write_text(SUITE, encoding="utf-8")
    (batch,) = [result.to_dict() for result in stream(suite, state=tmp_path / "state.duckdb", once=True)]
    tmst = batch["stream"]["tmst"]
    assert batch["metrics"]["landed"] == {"total": 2, "newest": 5000, "age_ms": tmst - 5000}
    # 5000 ms after 1970 is decades older than an hour before the batch
    assert [(c["name"], c["status"]) for c in batch["check_details"]] == [("freshness landed (warn)", "WARN")]
