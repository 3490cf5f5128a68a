"""Fresh topics on the test broker, filled with given messages (each test its own topic)."""

from __future__ import annotations

import time
import uuid

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

BASE_TIME_MS = 1_700_000_000_000  # the broker timestamp of a topic's first message; each next one 1 ms later


def new_topic(bootstrap: str, partitions: int = 1, prefix: str = "t") -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    # kept forever: the messages' timestamps lie in 2023, which the default retention (7 days) would delete
    topic = NewTopic(name, partitions, 1, config={"retention.ms": "-1"})
    for future in admin.create_topics([topic]).values():
        future.result(timeout=30)
    deadline = time.monotonic() + 30  # created is not yet known to the broker's metadata: wait for that
    while time.monotonic() < deadline:
        found = admin.list_topics(timeout=10).topics.get(name)
        if found is not None and len(found.partitions) == partitions:
            return name
        time.sleep(0.1)
    raise AssertionError(f"topic {name} did not appear in the broker's metadata")


def produce(bootstrap: str, topic: str, messages: list[tuple[bytes | None, bytes | None]], partition: int = 0) -> None:
    """``messages`` as (key, value), in order, into one partition; timestamps BASE_TIME_MS + i."""
    producer = Producer({"bootstrap.servers": bootstrap})
    for i, (key, value) in enumerate(messages):
        producer.produce(topic, value=value, key=key, partition=partition, timestamp=BASE_TIME_MS + i)
    assert producer.flush(30) == 0


def produce_in_transaction(bootstrap: str, topic: str, values: list[bytes], commit: bool) -> None:
    """``values`` in one transaction, committed or aborted: either way a marker follows them."""
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"tx-{uuid.uuid4().hex}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    for i, value in enumerate(values):
        producer.produce(topic, value=value, partition=0, timestamp=BASE_TIME_MS + i)
    assert producer.flush(30) == 0  # sent before the end: an abort would drop them unsent, with no marker
    if commit:
        producer.commit_transaction(30)
    else:
        producer.abort_transaction(30)
