"""Griffin's streaming jobs (``"process.type": "streaming"``), read for ``gryph stream``.

A ``kafka`` connector is a Kafka source of text messages (Griffin reads keys and values as
strings; a ``from_json`` step then parses the value, as in its examples). A data source's
``checkpoint`` (older name ``cache``) becomes the windows of the rules that read it:
``time.range`` ``["-2m", "0"]`` on an accuracy rule's ``updatable`` source is its ``retry``, on
its streaming target its ``lookback``; on a uniqueness or distinctness rule's target (the same
stream's earlier rows, Griffin's ``old`` data source) its ``window``. A data source without a
connector whose checkpoint shares another's ``file.path`` reads that one's batch (Griffin's
``new`` of the same cache). What has no meaning here (ZooKeeper, cache files, timer phases) is
reported once as not applied: gryph keeps its own state (``gryph stream --state``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import InvalidInput
from ..language.time_literals import duration_ms
from ..rule_kinds import RuleKind
from ..sources.consumer_settings import refused_setting
from ..sources.source_specs import SourceSpec
from ..suites.suite import RuleSpec
from .document import Node

STREAMING = "streaming"
# how Griffin's (Kafka 0.8) auto.offset.reset spells where a first start begins
_STARTING = {"smallest": "earliest", "earliest": "earliest", "largest": "latest", "latest": "latest"}
_STRING_TYPES = ("java.lang.string", "string")
# consumer settings gryph decides itself: it assigns partitions and keeps offsets in its own state
_OWN_SETTINGS = ("group.id", "auto.commit.enable", "enable.auto.commit", "auto.commit.interval.ms")
_NOT_APPLIED_CHECKPOINT = ("type", "file.path", "info.path", "ready.time.interval", "ready.time.delay", "read.only")


class NotAppliedWarning(UserWarning):
    """Streaming settings of a Griffin config that have no meaning for gryph's streams."""


class NotApplied:
    """The settings a streaming job gives that gryph does not apply, reported once per reason."""

    def __init__(self) -> None:
        self._keys: dict[str, dict[str, None]] = {}

    def add(self, node: Node, why: str) -> None:
        self._keys.setdefault(why, {})[node.where] = None

    def report(self) -> None:
        for why, keys in self._keys.items():
            warnings.warn(NotAppliedWarning(f"not applied here ({why}): {', '.join(keys)}"), stacklevel=3)


def kafka_source(connector: Node, raw: str, name: str, skipped: NotApplied) -> SourceSpec:
    """A Griffin kafka connector as a Kafka source of text messages (``value``, ``key``, ...)."""
    config = connector.obj("config", required=True)
    kafka = config.obj("kafka.config", required=True)
    bootstrap = kafka.text("bootstrap.servers", required=True)
    topics = config.text("topics", required=True)
    for key in ("key.type", "value.type"):
        if (config.text(key, "java.lang.String") or "").strip().lower() not in _STRING_TYPES:
            raise config.child(key).error(
                "UNSUPPORTED",
                f"data source {name!r}: {key} {config.text(key)!r}: Griffin reads Kafka messages as strings",
                'write "java.lang.String" (a from_json step parses the value)',
            )
    options: list[tuple[str, object]] = [("topics", topics), ("format", "text")]
    reset = (kafka.text("auto.offset.reset", "") or "").strip().lower()
    if reset:
        if reset not in _STARTING:
            raise kafka.child("auto.offset.reset").unknown_value(tuple(_STARTING), "auto.offset.reset")
        options.append(("starting", _STARTING[reset]))
    for key in kafka.keys():
        if key in ("bootstrap.servers", "auto.offset.reset"):
            continue
        if key in _OWN_SETTINGS:
            skipped.add(kafka.child(key), "gryph assigns partitions and keeps the offsets in its stream state")
            continue
        why = refused_setting(key, kafka.text(key))
        if why is not None:
            raise kafka.child(key).error(
                "BAD_CONFIG",
                f"data source {name!r}: the consumer setting {key} is refused: {why}",
                "gryph never lets a job load code or run commands; remove the setting",
                at_key=True,
            )
        options.append((f"kafka.{key}", kafka.text(key)))
    if connector.has("version"):
        skipped.add(connector.child("version"), "gryph reads Kafka with a current client")
    return SourceSpec(raw, "kafka", (bootstrap,), options=tuple(options), location=connector.location)


@dataclass(frozen=True)
class Checkpoint:
    """A data source's ``checkpoint``: how far back its rows count (``time.range``'s begin, ms)
    and whether unmatched rows are matched again (``updatable``)."""

    lookback_ms: int
    updatable: bool
    cache: str | None  # file.path: data sources that share it read the same stream


def read_checkpoint(entry: Node, skipped: NotApplied) -> Checkpoint | None:
    key = "checkpoint" if entry.has("checkpoint") else "cache" if entry.has("cache") else None
    if key is None:
        return None
    node = entry.obj(key)
    lookback = 0
    ranges = node.items("time.range")
    if ranges:
        begin = ranges[0]
        text = str(begin.value).strip()
        try:  # the begin is negative (that far back) or 0
            lookback = (duration_ms(text[1:]) or 0) if text.startswith("-") else 0
        except ValueError as error:
            raise begin.error("BAD_CONFIG", f"{begin.where}: {error}", 'e.g. "time.range": ["-2m", "0"]') from None
        if len(ranges) > 1 and str(ranges[1].value).strip() not in ("0", "0s", "0m"):
            skipped.add(ranges[1], "a batch is matched up to its own time")
    for field in _NOT_APPLIED_CHECKPOINT:
        if node.has(field) and field != "file.path":
            skipped.add(node.child(field), "gryph keeps its own stream state")
    return Checkpoint(lookback, node.flag("updatable", False), node.text("file.path"))


def stream_details(
    rules: list[RuleSpec], checkpoints: dict[str, Checkpoint], same_stream: Callable[[str | None, str | None], bool]
) -> list[RuleSpec]:
    """The rules with the windows their data sources' checkpoints give them; ``same_stream(a, b)``
    tells whether two data sources read one stream."""
    out = []
    for rule in rules:
        source = checkpoints.get(rule.source or "")
        target = checkpoints.get(rule.target or "")
        details = dict(rule.details)
        if rule.kind == RuleKind.ACCURACY:
            if source is not None and source.updatable and source.lookback_ms:
                details["retry"] = source.lookback_ms
            if target is not None and target.lookback_ms:
                details["lookback"] = target.lookback_ms
            out.append(replace(rule, details=details))
        elif rule.kind in (RuleKind.UNIQUENESS, RuleKind.DISTINCTNESS) and target is not None and target.lookback_ms:
            if rule.target != rule.source and not same_stream(rule.source, rule.target):
                raise InvalidInput(
                    "UNSUPPORTED",
                    f"{rule.kind} rule {rule.name!r} counts {rule.source!r} against {rule.target!r}, another "
                    "stream: gryph counts a batch against its own stream's earlier rows",
                    location=rule.location,
                    hint="give the rule's source and target one Kafka topic (Griffin's new and old of one stream)",
                )
            details["window"] = target.lookback_ms  # the stream's own earlier rows
            out.append(replace(rule, details=details, target=None))
        elif rule.kind == RuleKind.DISTINCTNESS:  # no earlier rows to count against: the batch alone
            out.append(replace(rule, target=None))
        else:
            out.append(rule)
    return out
