"""A batch whose offsets hold only an aborted transaction's messages and its marker reads no row:
it is not run, stored or printed (nothing new, as docs/streams.md says), its offsets are passed,
and the next batch with data is batch 1, from after them; the same on both engines. A real
transactional producer on the test broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gryph.client.store.history import HistoryStore
from gryph.client.store.stream_state import StreamState
from gryph.client.streaming.stream_runner import stream

from .kafka_topics import new_topic, produce, produce_in_transaction

SUITE = """suite clicks
source clicks = kafka("{bootstrap}", topic = "{topic}", format = "json", schema = "id bigint, user string")
completeness users_present on clicks: user
"""


def _batches(suite: Path, engine: str, remote: str | None) -> list[dict]:
    state, history = suite.parent / f"{engine}.duckdb", suite.parent / f"{engine}-history.duckdb"
    results = stream(suite, engine, remote=remote, available_now=True, state=state, history=history)
    return [result.to_dict() for result in results]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_a_batch_of_only_an_aborted_transaction_is_not_run(engine, kafka, tmp_path, request):
    remote = request.getfixturevalue("spark_remote") if engine == "spark" else None
    topic = new_topic(kafka.bootstrap)
    suite = tmp_path / "clicks.dq"
    suite.write_text(SUITE.format(bootstrap=kafka.bootstrap, topic=topic), encoding="utf-8")
    aborted = [json.dumps({"id": i, "user": "gone"}).encode() for i in range(3)]
    produce_in_transaction(kafka.bootstrap, topic, aborted, commit=False)  # offsets 0-2, the abort marker at 3
    assert _batches(suite, engine, remote) == []
    state = StreamState(tmp_path / f"{engine}.duckdb", "clicks")
    try:
        assert state.last_batch() is None  # nothing stored as a batch
        assert state.kafka_positions("clicks") == {(topic, 0): 4}  # past the aborted messages and the marker
    finally:
        state.close()
    assert HistoryStore(tmp_path / f"{engine}-history.duckdb").suites() == []

    produce(kafka.bootstrap, topic, [(None, json.dumps({"id": 9, "user": None}).encode())])  # offset 4
    (batch,) = _batches(suite, engine, remote)
    assert batch["stream"]["batch"] == 1
    assert batch["stream"]["sources"]["clicks"]["from"] == {f"{topic}/0": 4}
    assert batch["stream"]["sources"]["clicks"]["rows"] == 1
    assert batch["metrics"]["users_present"] == {"total": 1, "incomplete": 1, "complete": 0}
