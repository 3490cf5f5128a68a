"""A Kafka consumer for one source, opened in bounded time (confluent-kafka, librdkafka).

librdkafka retries a broker that does not answer forever, quietly; here a broker that gives no
metadata within ``METADATA_TIMEOUT_S`` is ``KAFKA_UNREACHABLE``, and a topic the broker does not
have is ``STREAM_UNKNOWN_TOPIC`` with the closest topic it has. The consumer never commits: where
a stream stands is the stream's state, committed with its batch.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from gryph.compiler.errors import EngineError, Location, did_you_mean
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import consumer_options

if TYPE_CHECKING:
    from confluent_kafka import Consumer

METADATA_TIMEOUT_S = 10.0
RECONNECT_BACKOFF_MS = 10
_QUIET = logging.getLogger("gryph.kafka")  # librdkafka's own log (retries, refused connections) stays off the terminal
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def consumer_config(spec: SourceSpec) -> dict[str, Any]:
    """What the consumer of ``spec`` is configured with: the user's ``kafka.*`` options over
    gryph's defaults, except that it never commits offsets."""
    config: dict[str, Any] = {
        "bootstrap.servers": spec.paths[0],
        "group.id": "gryph",  # librdkafka wants one; with assign() and no commits it is never used
        "isolation.level": "read_committed",
        "enable.partition.eof": True,  # tells when a partition's committed end is reached
        "auto.offset.reset": "error",  # an offset the broker no longer holds is lost data, not a jump
        "socket.connection.setup.timeout.ms": int(METADATA_TIMEOUT_S * 1000),
        # librdkafka opens no new connection within half this backoff of the last: the broker a
        # bootstrap address names is a second connection, so its default (100 ms) held every
        # consumer's first metadata request back 50 ms; failed connections still back off
        # exponentially, up to reconnect.backoff.max.ms
        "reconnect.backoff.ms": RECONNECT_BACKOFF_MS,
        **consumer_options(spec),
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "logger": _QUIET,
    }
    return config


@contextmanager
def shared_consumers() -> Iterator[None]:
    """Within: one consumer per configuration, opened (connected, its metadata asked) once and
    closed on leaving. A stream's batch asks the partitions' offsets and reads the messages
    through it: each connection and metadata request cost a batch of one message about 60 ms."""
    opened: dict[tuple, tuple[Consumer, Any]] = {}
    token = _SHARED.set(opened)
    try:
        yield
    finally:
        _SHARED.reset(token)
        for consumer, _ in opened.values():
            consumer.close()


@contextmanager
def consumer_for(spec: SourceSpec, topics: Iterable[str]) -> Iterator[tuple[Consumer, Any]]:
    """A consumer for ``spec`` and the broker's metadata, once the broker answered and has every
    topic of ``topics``: inside ``shared_consumers`` the one already open for the same
    configuration (with the metadata it was opened with), else one of its own, closed afterwards."""
    shared = _SHARED.get()
    config = consumer_config(spec)
    key = tuple(sorted(config.items(), key=lambda item: item[0]))
    if shared is not None and key in shared:
        consumer, metadata = shared[key]
        _check_topics(spec, topics, metadata)
        yield consumer, metadata
        return
    consumer, metadata = _open(spec, config)
    try:
        _check_topics(spec, topics, metadata)
    except EngineError:
        consumer.close()
        raise
    if shared is not None:
        shared[key] = (consumer, metadata)
        yield consumer, metadata
        return
    try:
        yield consumer, metadata
    finally:
        consumer.close()


_SHARED: ContextVar[dict[tuple, tuple[Consumer, Any]] | None] = ContextVar("gryph_kafka_consumers", default=None)


def _open(spec: SourceSpec, config: dict[str, Any]) -> tuple[Consumer, Any]:
    try:
        from confluent_kafka import Consumer, KafkaException
    except ImportError:
        raise EngineError(
            "DRIVER_MISSING",
            f"source {spec.name!r}: the Kafka client (confluent-kafka) is not installed",
            location=spec.location or Location(),
            hint="pip install 'gryph[kafka]'",
        ) from None
    try:
        consumer = Consumer(config)
    except KafkaException as exc:  # a consumer option librdkafka does not know or accept
        raise kafka_failed(spec, "to take the consumer options", exc) from None
    try:
        metadata = consumer.list_topics(timeout=METADATA_TIMEOUT_S)
    except KafkaException:
        consumer.close()
        raise unreachable(spec, METADATA_TIMEOUT_S) from None
    return consumer, metadata


def _check_topics(spec: SourceSpec, topics: Iterable[str], metadata: Any) -> None:
    for topic in topics:
        found = metadata.topics.get(topic)
        if found is None or found.error is not None:
            raise EngineError(
                "STREAM_UNKNOWN_TOPIC",
                f"source {spec.name!r}: the broker at {spec.paths[0]} has no topic {topic!r}",
                location=spec.location or Location(),
                text=topic,
                hint=did_you_mean(topic, (t for t in metadata.topics if not t.startswith("__"))),
            )


def unreachable(spec: SourceSpec, seconds: float, waiting: str = "") -> EngineError:
    """No broker answered ``spec``'s consumer for ``seconds``."""
    return EngineError(
        "KAFKA_UNREACHABLE",
        f"source {spec.name!r}: no Kafka broker answered at {spec.paths[0]} within {seconds:g} s{waiting}",
        location=spec.location or Location(),
        text=spec.paths[0],
        hint="is the broker running, and is this its bootstrap address (host:port)?",
    )


def kafka_failed(spec: SourceSpec, what: str, exc: BaseException) -> EngineError:
    return EngineError(
        "KAFKA_FAILED",
        f"source {spec.name!r}: the Kafka broker at {spec.paths[0]} failed {what}: {exc}",
        location=spec.location or Location(),
        text=spec.paths[0],
    )
