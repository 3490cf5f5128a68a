"""The result document read back, typed: what history, reports, alerts and a stream's replay read
of a run, instead of its JSON object's string keys.

``RunResult.to_dict`` writes the document with ``format_version`` (``FORMAT_VERSION``); a document
an earlier gryph stored in a history has none (version 0) and reads the same, its missing parts
empty. Every part is checked as it is read: a damaged or foreign document raises ``Damaged``
naming the part, which the store turns into its file's located error.

Metric maps, measure values and sampled rows stay JSON values: their shape is each rule kind's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from enum import Enum
from typing import cast

from gryph.compiler.rule_kinds import RuleKind

from .checked_values import Damaged, field, integer, optional, shown, text

FORMAT_VERSION = 1  # 1: the version written (gryph before it wrote none: 0); raise it when a part changes
VERSION_KEY = "format_version"

STATUSES = ("PASS", "FAIL", "WARN", "SKIP")  # CheckOutcome.status


class Outcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"  # the check could not judge yet


class Severity(str, Enum):
    ERROR = "error"  # a failed check
    WARNING = "warning"  # a failed warning: it fails no policy


@dataclass(frozen=True)
class Reference:
    """What a check reads or watches: ``measures["m"]`` (source "measure") or ``metrics["r"]["k"]``."""

    source: str
    name: str
    path: tuple[str | int, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {"source": self.source, "name": self.name, "path": list(self.path)}


@dataclass(frozen=True)
class Bound:
    """A comparison with a number a check requires, the reference on the left (``rows >= 40``)."""

    reference: Reference
    op: str
    value: int | float

    def as_json(self) -> dict[str, object]:
        return {**self.reference.as_json(), "op": self.op, "value": self.value}


@dataclass(frozen=True)
class TopValue:
    value: object
    count: object


@dataclass(frozen=True)
class FailingRows:
    """The rows a failing check failed on, for one row-count measure it reads."""

    source: str
    where: str
    count: object
    rows: tuple[Mapping, ...]
    column: str | None = None  # a condition on one column: its most frequent values among the rows
    top_values: tuple[TopValue, ...] = ()


@dataclass(frozen=True)
class CheckSegment:
    """One segment of a `check ... by COLUMN`: the column's value and the check's outcome there."""

    value: object  # as the engine gave it: text, a number, or None for NULL
    status: str  # PASS, FAIL, WARN or SKIP
    values: Mapping[str, object] = dataclass_field(default_factory=dict)
    error: str | None = None
    skipped: str | None = None
    anomaly: bool | None = None  # an anomaly check's finding in this segment


@dataclass(frozen=True)
class Check:
    name: str
    expression: str
    status: str  # PASS, FAIL, WARN (a failed warning) or SKIP
    values: Mapping[str, object] = dataclass_field(default_factory=dict)  # what it read, by its text
    error: str | None = None
    skipped: str | None = None  # why it could not judge yet
    anomaly: bool | None = None  # an anomaly check's finding
    watches: Reference | None = None
    reads: tuple[Reference, ...] = ()
    bounds: tuple[Bound, ...] = ()
    failing_rows: Mapping[str, FailingRows] = dataclass_field(default_factory=dict)
    segments: tuple[CheckSegment, ...] = ()  # a `by COLUMN` check's outcome per segment

    @property
    def outcome(self) -> Outcome:
        return {"PASS": Outcome.PASS, "SKIP": Outcome.SKIP}.get(self.status, Outcome.FAIL)

    @property
    def severity(self) -> Severity | None:
        """Of a failed check: a warning or an error; a check that passed or skipped does not say."""
        return {"WARN": Severity.WARNING, "FAIL": Severity.ERROR}.get(self.status)


@dataclass(frozen=True)
class Rule:
    name: str
    kind: RuleKind
    details: Mapping[str, object]  # its one-value details: renamed metrics, step size, ...


@dataclass(frozen=True)
class Records:
    """A rule's records (missed rows, duplicates): how many, a sample, and where all were written."""

    output: str
    count: int
    sample: tuple[Mapping, ...]
    written_to: str | None = None


@dataclass(frozen=True)
class MalformedColumn:
    """A csv column of a declared type: its values that did not parse, and the first of them."""

    type: str
    malformed: int
    examples: tuple[Mapping, ...]  # {"row", "value"}


@dataclass(frozen=True)
class Unfinished:
    """A rule or measure that could not finish: its error's code and message."""

    code: str
    message: str


@dataclass(frozen=True)
class StreamRead:
    """What a stream batch read of one stream source. Kafka: offsets per ``topic/partition``
    (``start``, ``end``), malformed messages, ``lost`` ones; folders: the files and those
    ``gone``, ``changed`` or ``linked_outside`` since they were listed."""

    rows: int
    lag: int
    start: Mapping[str, int] = dataclass_field(default_factory=dict)
    end: Mapping[str, int] = dataclass_field(default_factory=dict)
    malformed: int | None = None  # a Kafka source's
    lost: int | None = None  # when offsets were lost
    files: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    linked_outside: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        """Its counts as a report lists them: rows, lag, and the malformed and lost messages it has."""
        found = {"rows": self.rows, "lag": self.lag, "malformed": self.malformed, "lost": self.lost}
        return {what: count for what, count in found.items() if count is not None}


@dataclass(frozen=True)
class StreamBatch:
    number: int
    tmst: int  # the batch's time, epoch milliseconds
    sources: Mapping[str, StreamRead]
    # per accuracy rule matching misses again: the metrics of each earlier batch time it improved
    updates: Mapping[str, Mapping[int, dict]] = dataclass_field(default_factory=dict)


@dataclass(frozen=True)
class RunError:
    """Why a run broke before its checks could judge (a missing file, a dropped column): its error
    code, message (with where) and the exit code it ended with."""

    code: str
    message: str
    exit_code: int


@dataclass(frozen=True)
class Segment:
    """One value of a rule's `by` column and the rule's metrics over its rows."""

    value: object  # as the engine gave it: text, a number, or None for NULL
    metrics: Mapping[str, object]


@dataclass(frozen=True)
class RuleSegments:
    """A rule's metrics per segment, the most rows first; ``capped``: the column held more values
    than ``cap``, and only the ``cap`` with the most rows were kept."""

    column: str
    cap: int
    capped: bool
    at: str  # where the rule's `by` stands: file:line:col
    values: tuple[Segment, ...]


@dataclass(frozen=True)
class ResultDocument:
    """One run's result document, read."""

    format_version: int
    name: str
    engine: str
    started: str
    duration_seconds: float
    passed: bool
    policy: str
    metrics: Mapping[str, object]  # by rule (Griffin: its merged metric map)
    measures: Mapping[str, object]
    checks: tuple[Check, ...] = ()
    rules: Mapping[str, Rule] = dataclass_field(default_factory=dict)
    records: Mapping[str, Records] = dataclass_field(default_factory=dict)
    rows_read: Mapping[str, int] = dataclass_field(default_factory=dict)
    elapsed_ms: int | None = None
    failed: Mapping[str, Unfinished] = dataclass_field(default_factory=dict)  # rules and measures unfinished
    malformed_values: Mapping[str, Mapping[str, MalformedColumn]] = dataclass_field(default_factory=dict)
    schemas: Mapping[str, Mapping[str, str]] = dataclass_field(default_factory=dict)
    table_logs: Mapping[str, Mapping] = dataclass_field(default_factory=dict)
    # per source split into quarantine and valid folders: each folder's path and rows, the run's id
    outputs: Mapping[str, Mapping] = dataclass_field(default_factory=dict)
    stream: StreamBatch | None = None
    data_time: str | None = None
    run_id: str | None = None  # a document read from a history
    error: RunError | None = None  # a run that broke: no metric, measure or check of it
    segments: Mapping[str, RuleSegments] = dataclass_field(default_factory=dict)  # by rule: its `by` metrics
    measure_segments: Mapping[str, RuleSegments] = dataclass_field(default_factory=dict)  # by measure: its rows
    # the JSON object as written, to publish again unchanged (a stream batch's replay)
    source: Mapping = dataclass_field(default_factory=dict, repr=False, compare=False)

    def unfinished(self) -> dict[str, str]:
        """Each rule or measure that could not finish, with its error's message."""
        return {name: error.message for name, error in self.failed.items()}


def read_document(document: object, what: str = "the result document") -> ResultDocument:
    """``document`` (a JSON object as ``RunResult.to_dict`` wrote it, of this format or an earlier
    one) read and checked; ``Damaged`` names the first part that is not what gryph writes."""
    if not isinstance(document, dict):
        raise Damaged(f"{what} is {shown(document)}, not a JSON object")
    version = integer(document.get(VERSION_KEY, 0), f"{what}'s {VERSION_KEY}")
    if not 0 <= version <= FORMAT_VERSION:
        raise Damaged(f"{what} is of result format {version}; this gryph reads formats up to {FORMAT_VERSION}")
    task = cast(dict, optional(document, "metric", dict, what, {}))
    return ResultDocument(
        format_version=version,
        name=cast(str, field(document, "name", str, what)),
        engine=cast(str, field(document, "engine", str, what)),
        started=cast(str, field(document, "started", str, what)),
        duration_seconds=float(cast(float, field(document, "duration_seconds", (int, float), what))),
        passed=cast(bool, field(document, "pass", bool, what)),
        policy=cast(str, optional(document, "policy", str, what, "always")),
        metrics=cast(dict, field(document, "metrics", dict, what)),
        measures=cast(dict, field(document, "measure", dict, what)),
        checks=tuple(
            _check(c, f"{what}'s check {i + 1}")
            for i, c in enumerate(cast(list, optional(document, "check_details", list, what, [])))
        ),
        rules=_objects(document, "rules", what, _rule),
        records=_objects(document, "records", what, _records),
        rows_read=_numbers(cast(dict, optional(task, "rowsCounter", dict, f"{what}'s metric", {})), what),
        elapsed_ms=cast(int | None, optional(task, "timeElapsed", int, f"{what}'s metric")),
        failed=_objects(document, "failed", what, lambda error, where, _: _unfinished(error, where)),
        malformed_values=_objects(
            document, "malformed_values", what, lambda columns, where, _: _each(columns, where, _malformed)
        ),
        schemas=_objects(document, "schemas", what, lambda columns, where, _: _texts(columns, where)),
        table_logs=_objects(document, "table_logs", what, lambda log, _, __: log),
        outputs=_objects(document, "outputs", what, lambda written, _, __: written),
        stream=None if document.get("stream") is None else _stream(field(document, "stream", dict, what), what),
        data_time=cast(str | None, optional(document, "data_time", str, what)),
        run_id=cast(str | None, optional(document, "run_id", str, what)),
        error=None
        if document.get("error") is None
        else _run_error(cast(dict, field(document, "error", dict, what)), what),
        segments=_objects(document, "segments", what, _segments),
        measure_segments=_objects(document, "measure_segments", what, _segments),
        source=document,
    )


def _segments(part: dict, where: str, _: str) -> RuleSegments:
    values = []
    for index, item in enumerate(cast(list, field(part, "values", list, where))):
        item_where = f"{where}'s segment {index + 1}"
        if not isinstance(item, dict) or "segment" not in item:
            raise Damaged(f"{item_where} is {shown(item)}, not a segment and its metrics")
        values.append(Segment(item["segment"], cast(dict, field(item, "metrics", dict, item_where))))
    return RuleSegments(
        column=cast(str, field(part, "column", str, where)),
        cap=cast(int, field(part, "cap", int, where)),
        capped=cast(bool, field(part, "capped", bool, where)),
        at=cast(str, field(part, "at", str, where)),
        values=tuple(values),
    )


def _objects(document: dict, key: str, what: str, read) -> dict:
    """``document[key]`` (absent: empty), an object of objects, each item read by ``read(item, where, name)``."""
    part = cast(dict, optional(document, key, dict, what, {}))
    return _each(part, f"{what}'s {key}", read)


def _each(part: dict, what: str, read) -> dict:
    out = {}
    for name, item in part.items():
        where = f"{what} of {name!r}"
        if not isinstance(item, dict):
            raise Damaged(f"{where} is {shown(item)}, not an object")
        out[name] = read(item, where, name)
    return out


def _check(check: object, what: str) -> Check:
    if not isinstance(check, dict):
        raise Damaged(f"{what} is {shown(check)}, not an object")
    status = text(field(check, "status", str, what), what)
    if status not in STATUSES:
        raise Damaged(f"{what}'s status is {status!r}, not one of {', '.join(STATUSES)}")
    watches = optional(check, "watches", dict, what)
    failing = cast(dict, optional(check, "failing_rows", dict, what, {}))
    return Check(
        name=cast(str, field(check, "name", str, what)),
        expression=cast(str, field(check, "expression", str, what)),
        status=status,
        values=cast(dict, optional(check, "values", dict, what, {})),
        error=cast(str | None, optional(check, "error", str, what)),
        skipped=cast(str | None, optional(check, "skipped", str, what)),
        anomaly=cast(bool | None, optional(check, "anomaly", bool, what)),
        watches=None if watches is None else _reference(watches, f"{what}'s watches"),
        reads=tuple(_reference(r, f"{what}'s reads") for r in cast(list, optional(check, "reads", list, what, []))),
        bounds=tuple(_bound(b, f"{what}'s bounds") for b in cast(list, optional(check, "bounds", list, what, []))),
        failing_rows=_each(failing, f"{what}'s failing rows", lambda rows, where, _: _failing(rows, where)),
        segments=tuple(
            _check_segment(item, f"{what}'s segment {index + 1}")
            for index, item in enumerate(cast(list, optional(check, "segments", list, what, [])))
        ),
    )


def _check_segment(item: object, what: str) -> CheckSegment:
    if not isinstance(item, dict) or "segment" not in item:
        raise Damaged(f"{what} is {shown(item)}, not a segment and its outcome")
    status = text(field(item, "status", str, what), what)
    if status not in STATUSES:
        raise Damaged(f"{what}'s status is {status!r}, not one of {', '.join(STATUSES)}")
    return CheckSegment(
        item["segment"],
        status,
        cast(dict, optional(item, "values", dict, what, {})),
        cast(str | None, optional(item, "error", str, what)),
        cast(str | None, optional(item, "skipped", str, what)),
        cast(bool | None, optional(item, "anomaly", bool, what)),
    )


def _reference(reference: object, what: str) -> Reference:
    if not isinstance(reference, dict):
        raise Damaged(f"{what} holds {shown(reference)}, not an object")
    path = cast(list, optional(reference, "path", list, what, []))
    if not all(isinstance(step, (str, int)) and not isinstance(step, bool) for step in path):
        raise Damaged(f"{what}'s path {shown(path)} is not of names and numbers")
    return Reference(
        cast(str, field(reference, "source", str, what)), cast(str, field(reference, "name", str, what)), tuple(path)
    )


def _bound(bound: object, what: str) -> Bound:
    reference = _reference(bound, what)
    value = cast(int | float, field(cast(dict, bound), "value", (int, float), what))
    return Bound(reference, cast(str, field(cast(dict, bound), "op", str, what)), value)


def _failing(rows: dict, what: str) -> FailingRows:
    return FailingRows(
        source=cast(str, field(rows, "source", str, what)),
        where=cast(str, field(rows, "where", str, what)),
        count=rows.get("count"),
        rows=_rows(rows, "rows", what),
        column=cast(str | None, optional(rows, "column", str, what)),
        top_values=tuple(TopValue(top.get("value"), top.get("count")) for top in _rows(rows, "top_values", what)),
    )


def _rule(rule: dict, what: str, name: str) -> Rule:
    kind = cast(str, field(rule, "kind", str, what))
    try:
        known = RuleKind(kind)
    except ValueError:
        raise Damaged(f"{what} is of kind {kind!r}, no rule kind of gryph's") from None
    return Rule(name, known, cast(dict, optional(rule, "details", dict, what, {})))


def _records(records: dict, what: str, _: str) -> Records:
    return Records(
        output=cast(str, field(records, "output", str, what)),
        count=integer(field(records, "count", int, what), what),
        sample=_rows(records, "sample", what),
        written_to=cast(str | None, optional(records, "written_to", str, what)),
    )


def _run_error(error: dict, what: str) -> RunError:
    where = f"{what}'s error"
    return RunError(
        cast(str, field(error, "code", str, where)),
        cast(str, field(error, "message", str, where)),
        integer(field(error, "exit_code", int, where), where),
    )


def _unfinished(error: dict, what: str) -> Unfinished:
    return Unfinished(cast(str, field(error, "code", str, what)), cast(str, field(error, "message", str, what)))


def _malformed(column: dict, what: str, _: str) -> MalformedColumn:
    return MalformedColumn(
        type=cast(str, field(column, "type", str, what)),
        malformed=integer(field(column, "malformed", int, what), what),
        examples=_rows(column, "examples", what),
    )


def _stream(part: object, what: str) -> StreamBatch:
    where = f"{what}'s stream"
    stream = cast(dict, part)
    return StreamBatch(
        number=integer(field(stream, "batch", int, where), where),
        tmst=integer(field(stream, "tmst", int, where), where),
        sources=_objects(stream, "sources", where, lambda read, at, _: _stream_read(read, at)),
        updates=_objects(stream, "updates", where, lambda updates, at, _: _updates(updates, at)),
    )


def _updates(updates: dict, what: str) -> dict[int, dict]:
    """A rule's improved results by batch time (JSON keys them by the time's digits)."""
    times = [time if isinstance(time, int) else int(time) if str(time).isdigit() else None for time in updates]
    if None in times:
        raise Damaged(f"{what} holds a key that is no batch time")
    return _each(dict(zip(times, updates.values(), strict=True)), what, lambda metrics, _, __: metrics)


def _stream_read(read: dict, what: str) -> StreamRead:
    def paths(key: str) -> tuple[str, ...]:
        return tuple(text(p, f"{what}'s {key}") for p in cast(list, optional(read, key, list, what, [])))

    return StreamRead(
        rows=integer(optional(read, "rows", int, what, 0), what),
        lag=integer(optional(read, "lag", int, what, 0), what),
        start=_numbers(cast(dict, optional(read, "from", dict, what, {})), what),
        end=_numbers(cast(dict, optional(read, "to", dict, what, {})), what),
        malformed=cast(int | None, optional(read, "malformed", int, what)),
        lost=cast(int | None, optional(read, "lost", int, what)),
        files=paths("files"),
        gone=paths("gone"),
        changed=paths("changed"),
        linked_outside=paths("linked_outside"),
    )


def _rows(part: dict, key: str, what: str) -> tuple[Mapping, ...]:
    rows = cast(list, optional(part, key, list, what, []))
    if not all(isinstance(row, dict) for row in rows):
        raise Damaged(f"{what}'s {key} holds an item that is not an object")
    return tuple(rows)


def _numbers(part: dict, what: str) -> dict[str, int]:
    return {name: integer(value, f"{what}'s count of {name!r}") for name, value in part.items()}


def _texts(part: dict, what: str) -> dict[str, str]:
    return {name: text(value, f"{what}'s {name!r}") for name, value in part.items()}
