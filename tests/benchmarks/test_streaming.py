"""The streaming benchmark still runs, and its hand-written floor computes what gryph computes.

No timing is asserted here; speed is measured by ``make bench-stream``.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_streaming_benchmark_runs_and_gryph_agrees_with_the_floor(kafka, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not a package
    from benchmarks import streaming

    output = tmp_path / "result.json"
    argv = [
        "--messages",
        "300",
        "--repeats",
        "1",
        "--no-spark",
        "--bootstrap",
        kafka.bootstrap,
        "--output",
        str(output),
    ]
    assert streaming.main(argv) == 0
    document = json.loads(output.read_text())
    for part in ("overhead", "duckdb"):
        assert all(diff == [] for diff in document["parts"][part]["agree"].values()), document["parts"][part]
    assert set(document["parts"]["duckdb"]["agree"]) == {"duckdb-floor", "duckdb-gryph", "duckdb-gryph-samples"}
    assert set(document["parts"]["overhead"]["agree"]) == {"one-floor", "one-api", "one-running"}
    assert any(line.endswith("(target 0.2 s)") for line in document["targets"])


def test_the_floor_counts_by_hand(kafka, tmp_path, monkeypatch):
    """Four messages whose metrics are worked out here, read by the hand-written consumer."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import stream_data, stream_floor
    from tests.streaming.kafka_topics import new_topic

    topic = new_topic(kafka.bootstrap)
    rows = [
        {"id": 1, "user": "user1", "country": "DE", "amount": 2.5, "created": "2023-01-01T00:00:00",
         "shipped": "2023-01-01T00:00:01.500"},
        {"id": 1, "user": None, "country": None, "amount": None, "created": "2023-01-01T00:00:00", "shipped": None},
        {"id": 2, "user": "user5000", "country": "", "amount": -1.0, "created": "2023-01-01T00:00:00",
         "shipped": "2023-01-01T00:00:02"},
        {"id": 3, "user": "user1", "country": "FR", "amount": 0.5, "created": "2023-01-01T00:00:00",
         "shipped": "2023-01-01T00:00:00.001"},
    ]  # fmt: skip
    stream_data.produce(kafka.bootstrap, topic, iter(json.dumps(r).encode() for r in rows))
    users = stream_data.write_users(tmp_path / "users.csv")
    metrics = stream_floor.run_duckdb(kafka.bootstrap, topic, {0: (0, 4)}, str(users))
    assert metrics["user_present"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert metrics["contact"] == {"total": 4, "incomplete": 1, "complete": 3}  # "" is a value
    assert metrics["amounts"] == [{"n": 4, "amounts": 3, "total": 2.0, "lowest": -1.0, "highest": 2.5}]
    assert metrics["ids"] == {"total": 4, "unique": 2}  # 2 and 3 once; 1 twice
    assert metrics["user_distinct"] == {"total": 4, "distinct": 3}  # user1, user5000, NULL
    assert metrics["delivery"] == {"total": 3, "avg": (1500 + 2000 + 1) // 3}
    # user5000 is not among user0..user999; the NULL user is never a miss
    assert metrics["known_user"] == {"total": 4, "miss": 1, "matched": 3, "matchedFraction": 0.75}
