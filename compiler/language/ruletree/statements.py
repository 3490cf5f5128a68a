"""Statements of a native suite (``.dq`` file), as parsed: sources, rules, measures, checks, policy."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import Location
from .check_nodes import CheckExpr
from .nodes import AccuracyBody, Node, SelectList, SelectQuery


@dataclass(frozen=True, slots=True)
class SourceDecl(Node):
    name: str
    format: str  # lower case
    paths: tuple[str, ...]
    options: tuple[tuple[str, object], ...]


@dataclass(frozen=True, slots=True)
class Detail(Node):
    """One ``with key = value`` entry; ``value_at`` is where its value stands."""

    key: str
    value: object
    value_at: Location


@dataclass(frozen=True, slots=True)
class SegmentBy(Node):
    """``by COLUMN``: a rule's metrics per value of the column as well as over all rows."""

    column: str
    top: int | None = None  # `top N`: at most N segments, the ones with the most rows


@dataclass(frozen=True, slots=True)
class RuleDecl(Node):
    kind: str  # lower case
    name: str
    source: str | None
    target: str | None
    body: AccuracyBody | SelectQuery | SelectList
    details: tuple[Detail, ...]
    segment: SegmentBy | None = None


@dataclass(frozen=True, slots=True)
class NativeText(Node):
    """A measure's ``native "..."`` SQL, run as written inside its database."""

    sql: str


@dataclass(frozen=True, slots=True)
class MeasureDecl(Node):
    """Exactly one of ``sql`` (Spark SQL text), ``native`` and ``query`` is set."""

    name: str
    shape: str | None
    source: str | None
    sql: str | None
    native: NativeText | None
    query: SelectQuery | None
    segment: SegmentBy | None = None


@dataclass(frozen=True, slots=True)
class CheckDecl(Node):
    name: str
    warn: bool
    expr: CheckExpr
    segment: SegmentBy | None = None  # `by COLUMN`: judged once per segment of what it reads


@dataclass(frozen=True, slots=True)
class PassChecks(Node):
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PassCount(Node):
    op: str
    count: str  # as written


@dataclass(frozen=True, slots=True)
class PassAlways(Node):
    kind: str  # always | all | any


@dataclass(frozen=True, slots=True)
class PassDecl(Node):
    policy: PassChecks | PassCount | PassAlways


@dataclass(frozen=True, slots=True)
class StreamDecl(Node):
    interval_ms: int  # ``stream every 30s``: the micro-batch trigger of ``gryph stream``


@dataclass(frozen=True, slots=True)
class SchemaColumn(Node):
    """A column a schema statement expects, with its type as written (None: any type)."""

    name: str
    type: str | None


@dataclass(frozen=True, slots=True)
class SchemaDecl(Node):
    """``schema users: required(user_id bigint, email)``, or ``exact(...)``."""

    source: str
    mode: str  # required | exact
    columns: tuple[SchemaColumn, ...]


@dataclass(frozen=True, slots=True)
class NotifyDecl(Node):
    """``notify "URL" on fail, error for "a", "b" with token_env = "NAME"``: where an alert goes
    when the verdict changes, for which tones, checks and segments (``for segments "ES"``; empty: all)."""

    url: str
    tones: tuple[str, ...]
    checks: tuple[str, ...]
    details: tuple[Detail, ...]
    segments: tuple[object, ...] = ()  # text, numbers or None (the NULL segment)


@dataclass(frozen=True, slots=True)
class OutputDecl(Node):
    """``quarantine orders to "out/bad"`` or ``valid orders to "out/good"``: a folder of a split's rows."""

    kind: str  # quarantine | valid
    source: str
    path: str
    format: str = "parquet"  # a folder of parquet files per data time, or a delta, iceberg or postgres table
    options: tuple[tuple[str, object], ...] = ()  # a table's: iceberg's catalog.*, postgres's table and credentials


@dataclass(frozen=True, slots=True)
class GriffinMeasureDecl(Node):
    """``griffin TYPE NAME on SOURCE[, REF]: items [with ...]``: a Griffin generation-B measure; its
    items and details are read by the measure's type (compiler/suites/griffin_measure_statements.py)."""

    measure_type: str  # as written: Griffin's spelling, any case
    name: str
    source: str
    target: str | None
    body: SelectList  # at the whole statement, as a selections rule's
    details: tuple[Detail, ...]


Statement = (
    SourceDecl
    | RuleDecl
    | MeasureDecl
    | CheckDecl
    | PassDecl
    | StreamDecl
    | SchemaDecl
    | NotifyDecl
    | OutputDecl
    | GriffinMeasureDecl
)


@dataclass(frozen=True, slots=True)
class SuiteTree:
    """A parsed native suite: its declared name (if any) and its statements in order."""

    name: str | None
    statements: tuple[Statement, ...]
