"""Streaming sources: a Kafka topic, and a folder that files keep arriving in.

A suite reads them one micro-batch at a time (``gryph stream``). The client decides what each
batch holds (per Kafka partition a range of offsets, end exclusive; or a list of files) and
hands the engine a *bounded* spec: a ``kafka`` spec whose ``ranges`` name the offsets
(stream_positions.py), or a file spec of the folder's format with the batch's exact paths. Every
row of a batch carries the batch time as ``__tmst`` (epoch milliseconds), as in Griffin's streaming mode.

This module declares the options each kind takes and the columns its rows have, so the check
pass knows the schema before anything is read and both engines read the same columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..errors import EngineError, InvalidInput, Location
from ..language.time_literals import duration_ms
from ..plan.data_types import BOOLEAN, INTEGER, STRING, TIMESTAMP, Column, Schema
from ..source_kinds import SourceKind, source_kind
from .consumer_settings import refused_setting
from .source_specs import SourceSpec, check_option_names
from .stream_positions import KafkaRange

TMST = "__tmst"  # Griffin's name for the batch time column
MALFORMED = "__malformed"  # true for a Kafka message whose value did not parse (its columns are NULL)

# the broker's own columns of every message, after the value's
KAFKA_COLUMNS = (
    Column("key", STRING),
    Column("topic", STRING),
    Column("partition", INTEGER),
    Column("offset", INTEGER),
    Column("timestamp", TIMESTAMP),
)
# options passed to the Kafka consumer as they are, as Spark's reader takes them
CONSUMER_PREFIX = source_kind("kafka").option_prefix
DEFAULT_SETTLE_MS = 5_000


def is_stream(spec: SourceSpec) -> bool:
    return spec.kind.stream


def check_stream_source(spec: SourceSpec) -> None:
    """Refuse, located, a streaming source a stream could never read."""
    kind = spec.kind
    check_option_names(spec)
    formats = kind.value_formats
    if value_format(spec) not in formats:
        raise _bad(spec, f"{spec.format}(...) reads format = one of {', '.join(formats)}", str(spec.option("format")))
    _CHECKS[kind.kind](spec)
    if spec.schema is None and value_format(spec) != "text":
        raise _bad(
            spec,
            f"a streaming {value_format(spec)} source declares its schema: every batch is read with it",
            spec.name,
            'add schema = "id bigint, ts timestamp, user string"',
        )


def _check_kafka(spec: SourceSpec) -> None:
    if len(spec.paths) != 1 or not spec.paths[0].strip():
        raise _bad(spec, 'kafka(...) takes one bootstrap address, e.g. kafka("127.0.0.1:9092", ...)', spec.name)
    if not topics(spec):
        raise _bad(spec, "kafka(...) names no topic", spec.name, 'add topic = "clicks" (or topics = "a,b")')
    if spec.option("starting", "earliest") not in ("earliest", "latest"):
        raise _bad(spec, 'starting is "earliest" or "latest"', str(spec.option("starting")))
    if spec.option("on_malformed", "count") not in ("count", "fail"):
        raise _bad(spec, 'on_malformed is "count" or "fail"', str(spec.option("on_malformed")))
    if not isinstance(spec.option("accept_data_loss", False), bool):
        raise _bad(spec, "accept_data_loss is true or false", str(spec.option("accept_data_loss")))
    if value_format(spec) == "text" and spec.schema is not None:
        raise _bad(spec, "a text topic has one column, value: it takes no schema", spec.name)
    _positive(spec, "max_records_per_batch")
    consumer_options(spec)


def _check_folder(spec: SourceSpec) -> None:
    _positive(spec, "max_files_per_batch")
    if not isinstance(spec.option("follow_links", False), bool):
        raise _bad(spec, "follow_links is true or false", str(spec.option("follow_links")))
    try:
        duration_ms(spec.option("settle"))
    except ValueError as error:
        raise _bad(spec, f"settle {error}", str(spec.option("settle"))) from None


# what each stream kind checks besides its options and format
_CHECKS = {SourceKind.KAFKA: _check_kafka, SourceKind.FOLDER: _check_folder}


def _positive(spec: SourceSpec, key: str) -> None:
    value = spec.option(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise _bad(spec, f"{key} is a whole number of at least 1", str(value))


def _bad(spec: SourceSpec, message: str, text: str, hint: str | None = None) -> InvalidInput:
    return InvalidInput(
        "BAD_SOURCE", f"source {spec.name!r}: {message}", location=spec.location or Location(), text=text, hint=hint
    )


def value_format(spec: SourceSpec) -> str:
    return str(spec.option("format", spec.kind.default_value_format)).lower()


def topics(spec: SourceSpec) -> tuple[str, ...]:
    named = f"{spec.option('topic') or ''},{spec.option('topics') or ''}"
    return tuple(dict.fromkeys(t.strip() for t in named.split(",") if t.strip()))


def consumer_options(spec: SourceSpec) -> dict[str, str]:
    """The user's ``kafka.*`` options, for the consumer without their prefix; a setting that would
    make the client load code or run a command is refused (consumer_settings.py), here where every
    engine takes them, however the spec was built."""
    options = {k[len(CONSUMER_PREFIX) :]: str(v) for k, v in spec.options if k.startswith(CONSUMER_PREFIX)}
    for key, value in options.items():
        why = refused_setting(key, value)
        if why is not None:
            raise _bad(
                spec,
                f"the consumer setting {CONSUMER_PREFIX}{key} is refused: {why}",
                f"{CONSUMER_PREFIX}{key}",
                "gryph never lets a suite load code or run commands; remove the setting",
            )
    return options


def follows_links(spec: SourceSpec) -> bool:
    """Whether a folder source reads the files its links lead to outside the folder (else skipped)."""
    return spec.option("follow_links", False) is True


def settle_ms(spec: SourceSpec) -> int:
    settle = duration_ms(spec.option("settle"))
    return DEFAULT_SETTLE_MS if settle is None else settle


def value_schema(spec: SourceSpec) -> Schema:
    """The columns a message's value (a folder's file) is read into."""
    if value_format(spec) == "text":  # a topic's values as text (a folder's files are never read so)
        return Schema((Column("value", STRING),))
    assert spec.schema is not None, "checked by check_stream_source"
    return spec.schema


def stream_schema(spec: SourceSpec) -> Schema:
    """The columns rules see: the value's, the broker's (Kafka), whether it parsed, and ``__tmst``."""
    columns = value_schema(spec).columns + _ADDED_COLUMNS.get(spec.kind.kind, ())
    clash = next((c.name for c in columns[: len(value_schema(spec).columns)] if c.name in _ADDED_NAMES), None)
    if clash is not None:
        raise _bad(
            spec, f"the declared column {clash!r} has the name of a column gryph adds", clash, "rename it in the schema"
        )
    return Schema((*columns, Column(TMST, INTEGER)))


# what a stream kind adds to its value's columns: a message's broker columns and whether it parsed
_ADDED_COLUMNS = {SourceKind.KAFKA: (*KAFKA_COLUMNS, Column(MALFORMED, BOOLEAN))}
_ADDED_NAMES = frozenset({c.name for c in KAFKA_COLUMNS} | {MALFORMED, TMST})


def fails_on_malformed(spec: SourceSpec) -> bool:
    """Whether a malformed message fails the batch (``on_malformed = "fail"``) instead of counting."""
    return spec.option("on_malformed", "count") == "fail"


def malformed_message(spec: SourceSpec, topic: str, partition: int, offset: int) -> EngineError:
    """``STREAM_MALFORMED``: the first message of a batch that does not parse, on either engine."""
    return EngineError(
        "STREAM_MALFORMED",
        f"source {spec.name!r}: the message at {topic}/{partition}/{offset} is not "
        f"{value_format(spec)} of the source's schema",
        location=spec.location or Location(),
        text=f"{topic}/{partition}/{offset}",
        hint='on_malformed = "count" counts such messages (their columns NULL) instead of failing',
    )


def offsets_lost(spec: SourceSpec, topic: str, partition: int, offsets: str) -> EngineError:
    """``DATA_LOST``: the broker deleted ``offsets`` of a partition before the stream read them
    (found when a batch is planned, or by the reader when the broker deleted them since)."""
    return EngineError(
        "DATA_LOST",
        f"source {spec.name!r}: {topic}/{partition} lost offsets {offsets} before they were read "
        "(the broker no longer holds them: its retention removed them, or records were deleted)",
        location=spec.location or Location(),
        text=f"{topic}/{partition}",
        hint="read the topic more often or keep it longer; to go on from the log start and count "
        "what was lost, add accept_data_loss = true to the source",
    )


def bounded_kafka(spec: SourceSpec, ranges: Iterable[KafkaRange], tmst: int) -> SourceSpec:
    """``spec`` bounded to one batch: the offsets to read of each partition, in order."""
    return replace(spec, ranges=tuple(sorted(ranges)), stamp=tmst)


def bounded_files(spec: SourceSpec, files: tuple[str, ...], tmst: int) -> SourceSpec:
    """A folder source bounded to one batch: its format's reader over exactly ``files``."""
    options = tuple((k, v) for k, v in spec.options if k in ("header", "delimiter"))
    return SourceSpec(
        spec.name, value_format(spec), files, None, options, spec.schema, location=spec.location, stamp=tmst
    )
