"""The streaming benchmark's input: JSON click messages on a topic, a small static csv of known
users, and the suite of six rule types that gryph streams over them (``make bench-stream``).

Messages are generated from a fixed seed, so every run and both engines see the same values:
ids with duplicates, users with NULLs and names the csv lacks, countries with NULLs and empty
strings, amounts with NULLs, ISO times with a shipped time missing now and then.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator
from pathlib import Path

KNOWN_USERS = 1_000  # users.csv holds user0 .. user999
USER_RANGE = 1_200  # messages name user0 .. user1199: about one in six is unknown
COUNTRIES = ("DE", "FR", "US", "JP", "BR", "", None)
START = dt.datetime(2023, 11, 14, 22, 0, 0)
SCHEMA = "id bigint, user string, country string, amount double, created timestamp, shipped timestamp"

SUITE = """suite clicks_bench
source clicks = kafka("{bootstrap}", topic = "{topic}", format = "json",
                      schema = "{schema}")
source users = csv("{users}")
completeness user_present on clicks: user
completeness contact on clicks: user, country
profiling amounts on clicks:
    count(*) as n, count(amount) as amounts, sum(amount) as total, min(amount) as lowest, max(amount) as highest
uniqueness ids on clicks: id
distinctness user_distinct on clicks: user
timeliness delivery on clicks: created, shipped
accuracy known_user on clicks, users: clicks.user = users.name
"""


def messages(count: int, seed: int = 7) -> Iterator[bytes]:
    """``count`` JSON message values, the same for the same ``count`` and ``seed``."""
    rng = random.Random(seed)
    for i in range(count):
        created = START + dt.timedelta(seconds=i)
        shipped = None if rng.random() < 0.02 else created + dt.timedelta(milliseconds=rng.randrange(14_400_000))
        amount = None if rng.random() < 0.03 else round(rng.uniform(0, 100), 2)
        user = None if rng.random() < 0.05 else f"user{rng.randrange(USER_RANGE)}"
        row = {
            "id": rng.randrange(count),
            "user": user,
            "country": rng.choice(COUNTRIES),
            "amount": amount,
            "created": created.isoformat(),
            "shipped": None if shipped is None else shipped.isoformat(timespec="milliseconds"),
        }
        yield json.dumps(row).encode()


def write_users(path: Path) -> Path:
    """The static reference table: one ``name`` per known user."""
    path.write_text("name,since\n" + "".join(f"user{i},2020-01-01\n" for i in range(KNOWN_USERS)), encoding="utf-8")
    return path


def produce(bootstrap: str, topic: str, values: Iterator[bytes], partitions: int = 1) -> int:
    """Every value into ``topic``, spread round-robin over ``partitions``; how many were sent."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "compression.type": "lz4"})
    sent = 0
    for value in values:
        while True:
            try:
                producer.produce(topic, value=value, partition=sent % partitions)
                break
            except BufferError:  # the client's queue is full: let it send some first
                producer.poll(0.1)
        sent += 1
        if sent % 10_000 == 0:
            producer.poll(0)
    if producer.flush(120) != 0:
        raise RuntimeError(f"the broker did not take every message of {topic} within 120 s")
    return sent


def write_suite(folder: Path, bootstrap: str, topic: str, users: Path) -> Path:
    """The suite of the stream over ``topic``, in ``folder``."""
    path = folder / f"{topic}.dq"
    path.write_text(SUITE.format(bootstrap=bootstrap, topic=topic, schema=SCHEMA, users=users), encoding="utf-8")
    return path
